/* The table's JSON API under /api/v1. */

import { currentLang, hasMessage, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The table's messages are English: other languages get our own words for the code. */
function errorText(code, message) {
  const key = `err.${code}`;
  if (currentLang() !== "en" && hasMessage(key)) return t(key);
  return message || (hasMessage(key, "en") ? t(key) : t("error.generic"));
}

/** Call /api/v1: resolves with the JSON answer, rejects with an ApiError.
    options: {body, token}. */
export async function api(method, path, options) {
  const opts = options || {};
  const headers = {};
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      cache: "no-store",
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
  } catch (e) {
    throw new ApiError(0, "network", t("error.network"));
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const code = error.code || `http_${response.status}`;
    throw new ApiError(response.status, code, errorText(code, error.message));
  }
  return data;
}
