/* The host's login token and the calls made with it. */

import { api } from "../common/api.js";
import { storageGet, storageSet } from "../common/storage.js";
import { toast } from "../common/toast.js";

const TOKEN_KEY = "kalimambo.host";
let token = storageGet(TOKEN_KEY);
const logoutListeners = [];

export const hostToken = () => token;

export function setHostToken(value) {
  token = value;
  storageSet(TOKEN_KEY, value);
}

/** Forget the token (logged out, or the table no longer knows it). */
export function logout() {
  setHostToken(null);
  logoutListeners.forEach((listener) => listener());
}

export function onLogout(listener) { logoutListeners.push(listener); }

/** Call the API as host; a refused token logs the page out. */
export async function hostCall(method, path, body) {
  try {
    return await api(method, path, { token, body });
  } catch (err) {
    if (err.code === "host_only") logout();
    throw err;
  }
}

/** Run a host action; show the table's message if it is refused.

    While it runs, `button` is marked busy and ignores further presses; it is not
    disabled, because disabling the focused button would throw keyboard focus away. */
export async function act(button, method, path, body) {
  if (button && button.getAttribute("aria-busy") === "true") return null;
  if (button) button.setAttribute("aria-busy", "true");
  try {
    return await hostCall(method, path, body);
  } catch (err) {
    toast(err.message, "error");
    return null;
  } finally {
    if (button) button.removeAttribute("aria-busy");
  }
}

/** Check a stored token still works; log out if not. */
export async function checkLogin() {
  if (!token) return;
  try {
    await api("GET", "/host", { token });
  } catch (err) {
    if (err.status === 401 || err.status === 403) logout();
  }
}
