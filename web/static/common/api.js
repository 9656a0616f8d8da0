/* The table's JSON API under /api/v1. */

import { currentLang, hasMessage, t } from "./i18n.js";

/** The public view and what is in it, as the table sends it (docs/API.md). The keys
   are those of web/core/viewtypes.py, which describes every view once: a test
   (tests/http/test_view_jsdoc.py) holds these typedefs to it. Looser here than there
   only where the pages read loosely: a key the pages may lack is optional, and
   `RoundEvent` and `Happened` are every event and every happening in one type each
   (its `type` says which keys it has).

   @typedef {object} Seat
   @property {string} [id]
   @property {string} name
   @property {string} colour
   @property {boolean} [bot]
   @property {string | null} [bot_level]
   @property {boolean} [hosted]
   @property {boolean} [connected]
   @property {boolean} [picked]
   @property {number} minus_points

   @typedef {object} Setup
   @property {number} rhino
   @property {string[]} order
   @property {number[]} dung

   @typedef {object} RoundEvent  a round's event (engine/events.py, RECORD.md)
   @property {string} type
   @property {number} [round]
   @property {Record<string, number>} [cards]
   @property {number} [kali]
   @property {string} [figure]
   @property {number} [card]
   @property {number} [space]
   @property {string} [reason]
   @property {string | null} [beaten_by]
   @property {number} [from_space]
   @property {number} [to_space]
   @property {boolean} [passed_rhino]
   @property {number} [spaces]
   @property {string} [rammed]
   @property {string} [player]
   @property {number} [points]
   @property {string} [cause]
   @property {number} [total]
   @property {boolean} [for_kali]
   @property {Record<string, number>} [minus_points]
   @property {boolean} [game_over]
   @property {string[]} [winners]

   @typedef {object} RoundEntry
   @property {number} round
   @property {Record<string, number>} cards
   @property {number} kali
   @property {RoundEvent[]} events
   @property {Record<string, number>} minus_points

   @typedef {object} RoundOutcome  a replay board's history entry: no events
   @property {number} round
   @property {Record<string, number>} cards
   @property {number} kali
   @property {Record<string, number>} minus_points

   @typedef {object} Step
   @property {string} kind
   @property {number} first
   @property {boolean} skipped

   @typedef {object} Playback
   @property {number} round
   @property {number} step
   @property {number} steps
   @property {string} pacing
   @property {Step | null} current
   @property {RoundEvent[]} shown

   @typedef {object} Happened
   @property {string} type
   @property {number} [round]
   @property {number} [step]
   @property {string} [kind]
   @property {number} [first]
   @property {number} [count]
   @property {number} [seconds]
   @property {boolean} [skipped]
   @property {boolean} [replay]
   @property {number} [game_id]
   @property {string[]} [seats]
   @property {string[]} [players]
   @property {string} [player]
   @property {string[]} [winners]
   @property {boolean} [stopped_playback]
   @property {boolean} [kept_seats]
   @property {boolean} [hints]
   @property {string} [pacing]
   @property {number} [pause_ms]

   @typedef {object} PieceMove
   @property {"explorer" | "kali" | "mambo" | "heap"} piece
   @property {string} [name]
   @property {number} [from]
   @property {number} to

   @typedef {object} Placing
   @property {"undo" | "skip" | "restart" | "setup"} reason
   @property {number} round
   @property {PieceMove[]} moves

   @typedef {object} Power
   @property {"unknown" | "ok" | "low" | "sagged"} pi
   @property {number} pi_sags
   @property {boolean | null} throttled
   @property {number} supply_ma
   @property {number} asked_ma
   @property {boolean} dimming

   @typedef {object} Lights
   @property {string | null} backend
   @property {boolean} ok
   @property {string | null} error
   @property {boolean} playing
   @property {boolean} connected
   @property {string} pacing
   @property {number} pause_ms
   @property {Power | null} [power]

   @typedef {object} Storage
   @property {boolean} ok
   @property {string | null} error
   @property {boolean} in_memory

   @typedef {object} Booth
   @property {boolean} attract
   @property {number} attract_after_s
   @property {boolean} sound

   @typedef {object} ReplayReason
   @property {string} code
   @property {Record<string, any>} params

   @typedef {object} ReplayBoard  a replayed game's board, in the view's board keys
   @property {"playing" | "finished"} phase
   @property {string} game_id
   @property {number} round
   @property {number} track_length
   @property {Seat[]} seats
   @property {number | null} rhino
   @property {Record<string, number>} positions
   @property {number[]} dung
   @property {Setup} setup
   @property {Playback} playback
   @property {RoundOutcome[]} history
   @property {RoundOutcome | null} last_round
   @property {string[]} winners
   @property {null} undone

   @typedef {object} Replay
   @property {number} game_id
   @property {boolean} attract
   @property {ReplayReason | null} reason
   @property {number} rounds
   @property {boolean} done
   @property {ReplayBoard} board

   @typedef {object} View
   @property {number} version
   @property {"lobby" | "picking" | "playing" | "finished"} phase
   @property {number} round
   @property {number} track_length
   @property {Seat[]} seats
   @property {number | null} rhino
   @property {Record<string, number>} positions
   @property {number[]} dung
   @property {number} dung_points
   @property {Setup | null} setup
   @property {Playback | null} playback
   @property {RoundEntry[]} history
   @property {RoundEntry | null} last_round
   @property {string[]} winners
   @property {number | null} undone
   @property {Placing | null} placing
   @property {number | null} game_id
   @property {string} join_url
   @property {boolean} hints
   @property {Lights} lights
   @property {Storage} [storage]
   @property {number} day_start
   @property {Replay | null} replay
   @property {Booth} booth

   @typedef {object} PatchOperation  one operation of the JSON Patch the table sends
   @property {string} op
   @property {string} path
   @property {string} [from]
   @property {unknown} [value]

   @typedef {object} ChangeMessage  a "patch" event's data: the change, and what it did
   @property {PatchOperation[]} patch
   @property {Happened[]} happened

   @typedef {object} Me  a seat's own, in GET /api/v1/me's view
   @property {string} id
   @property {string} name
   @property {string} colour
   @property {number[]} hand
   @property {number | null} pick
   @property {boolean} hosted
   @property {boolean} bot
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
