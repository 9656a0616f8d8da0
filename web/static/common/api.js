/* The table's JSON API under /api/v1. */

import { currentLang, hasMessage, t } from "./i18n.js";

/** The public view as docs/API.md describes it (what the pages read of it; the round
   events and a replay's parts are left loose).

   @typedef {{id?: string, name: string, colour: string, bot?: boolean,
     bot_level?: string | null, hosted?: boolean, connected?: boolean, picked?: boolean,
     minus_points: number}} Seat
   @typedef {{round: number, cards: Record<string, number>, kali: number,
     events: any[], minus_points: Record<string, number>}} RoundEntry
   @typedef {{round: number, step: number, steps: number, pacing: string,
     current: {kind: string, first: number, skipped: boolean} | null,
     shown: any[]}} Playback
   @typedef {{type: string, round?: number, step?: number, kind?: string, first?: number,
     count?: number, seconds?: number, skipped?: boolean, replay?: boolean,
     game_id?: number}} Happened
   @typedef {{piece: "explorer" | "kali" | "mambo" | "heap", name?: string,
     from?: number | null, to: number}} PieceMove
   @typedef {{reason: "undo" | "skip" | "restart" | "setup", round: number,
     moves: PieceMove[]}} Placing
   @typedef {{pi: "unknown" | "ok" | "low" | "sagged", pi_sags: number,
     throttled: boolean | null, supply_ma: number, asked_ma: number,
     dimming: boolean}} Power
   @typedef {{backend: string, ok: boolean, error: string | null, playing: boolean,
     connected: boolean, pacing: string, pause_ms: number,
     power?: Power | null}} Lights
   @typedef {{version: number, phase: "lobby" | "picking" | "playing" | "finished",
     round: number, track_length: number, seats: Seat[], rhino: number | null,
     positions: Record<string, number>, dung: number[], dung_points: number,
     setup: any, last_round: RoundEntry | null, history: RoundEntry[], winners: string[],
     playback: Playback | null, undone: number | null, placing: Placing | null,
     game_id: number | null,
     join_url: string, hints: boolean, lights: Lights, day_start: number, replay: any,
     happened: Happened[],
     booth: {attract: boolean, attract_after_s: number, sound: boolean},
     storage?: {ok: boolean, error: string | null}}} View
*/

export class ApiError extends Error {
  /** @param {number} status  @param {string} code  @param {string} message */
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
  return message || (hasMessage(key) ? t(key) : t("error.generic"));
}

/** Call /api/v1: resolves with the JSON answer, rejects with an ApiError.
    options: {body, token}.
    @param {string} method  @param {string} path
    @param {{body?: unknown, token?: string | null}} [options]
    @returns {Promise<any>} */
export async function api(method, path, options) {
  const opts = options || {};
  /** @type {Record<string, string>} */
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
  /** @type {any} */
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const code = error.code || `http_${response.status}`;
    throw new ApiError(response.status, code, errorText(code, error.message));
  }
  return data;
}
