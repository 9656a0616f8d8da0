/* The host's "new day": the board's leaderboard counts games from now on. Asked first
   in a dialog (Escape or Cancel keeps the day). */

import { modal } from "../common/dialog.js";
import { $, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { dateTime } from "../common/when.js";
import { act } from "./session.js";

export function wireNewDay() {
  const confirm = modal($("confirm-day"), (answer) => {
    if (answer === "day") act($("new-day"), "POST", "/host/new-day", {});
  });
  $("new-day").addEventListener("click", () => confirm.open($("day-cancel")));
}

export function renderDay(view) {
  const start = Number(view.day_start);
  if (!start) return;
  setText($("day-since"), t("host.day_since", { time: dateTime(start) }));
}
