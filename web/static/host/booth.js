/* The booth's settings (attract mode, its idle time, sound on the board page), the
   replay of a finished game and its "Stop". The table keeps the settings (view.booth)
   and plays the replay (view.replay): this only sends the host's choices. */

import { $, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { act } from "./session.js";

export function renderBooth(view) {
  const booth = view.booth || {};
  /** @type {HTMLInputElement} */ ($("attract")).checked = Boolean(booth.attract);
  const after = /** @type {HTMLInputElement} */ ($("attract-after"));
  if (document.activeElement !== after && Number(after.value) !== booth.attract_after_s) {
    after.value = String(booth.attract_after_s || 120);
  }
  after.disabled = !booth.attract;
  /** @type {HTMLInputElement} */ ($("sound")).checked = Boolean(booth.sound);
  const replay = view.replay;
  $("replay-status").hidden = !replay;
  $("replay-stop").hidden = !replay;
  if (replay) {
    setText($("replay-status"), t("host.replay_running", { game: replay.game_id }));
  }
}

/** A finished game's "Replay" button (host/archive.js puts one beside each). */
export function replayGame(button, gameId) {
  act(button, "POST", "/host/replay", { game_id: gameId });
}

export function wireBooth() {
  $("attract").addEventListener("change", () =>
    act(null, "POST", "/host/settings", { attract: /** @type {HTMLInputElement} */ ($("attract")).checked }));
  $("attract-after").addEventListener("change", () => {
    const seconds = Number(/** @type {HTMLInputElement} */ ($("attract-after")).value);
    if (Number.isInteger(seconds)) act(null, "POST", "/host/settings", { attract_after_s: seconds });
  });
  $("sound").addEventListener("change", () =>
    act(null, "POST", "/host/settings", { sound: /** @type {HTMLInputElement} */ ($("sound")).checked }));
  $("replay-stop").addEventListener("click", () =>
    act($("replay-stop"), "POST", "/host/replay/stop", {}));
}
