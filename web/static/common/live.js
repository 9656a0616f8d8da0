/* The public view over Server-Sent Events, and the page's "lost the table" line. */

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { applyPatch } from "./patch.js";

/** Show in #conn whether the page hears the table. */
export function setConnected(ok) {
  const box = $("conn");
  if (!box) return;
  box.className = `conn ${ok ? "ok" : "down"}`;
  box.textContent = ok ? "" : t("conn.lost");
}

/** Follow the public view: one EventSource, reopened when it closes for good. The
    stream sends the whole view first, then "patch" events with only what changed (a
    JSON Patch) and, beside it, what the change did; a patch that does not fit (a missed
    message) reopens the stream.

    onView(view, whole, token, happened) gets every view: `whole` for the stream's first
    view or a fresh start (draw it as it is, `happened` empty), else a patch's, whose
    `happened` says what that change did (animate it). #conn shows the connection state; tokenOf() gives
    the seat's token, so the table knows that seat is connected and the stream carries
    that seat's own view (its "me"); `token` is the one this stream was opened with.
    Returns {reconnect} for pages that wake up from sleep. */
export function live(onView, tokenOf) {
  /** @type {EventSource | null} */
  let source = null;
  /** @type {number | undefined} */
  let retryTimer;
  let delay = 1000;
  /** @type {import("./api.js").View | null} */
  let current = null;

  function open() {
    clearTimeout(retryTimer);
    if (source) source.close();
    const token = tokenOf ? tokenOf() : null;
    const opened = token;
    source = new EventSource(token
      ? `/api/v1/events?patches=1&token=${encodeURIComponent(token)}`
      : "/api/v1/events?patches=1");
    source.onmessage = (message) => {
      let view;
      try { view = JSON.parse(message.data); } catch (e) { return; }
      delay = 1000;
      current = view;
      setConnected(true);
      onView(view, true, opened, []);
    };
    source.addEventListener("patch", (message) => {
      if (!current) return;
      let view;
      /** @type {import("./api.js").ChangeMessage} */
      let change;
      try {
        change = JSON.parse(message.data);
        view = applyPatch(current, change.patch);
      } catch (e) {
        if (current && Number(message.lastEventId) <= current.version) return;
        current = null;
        open();
        return;
      }
      current = view;
      onView(view, false, opened, change.happened || []);
    });
    source.onerror = () => {
      setConnected(false);
      if (/** @type {EventSource} */ (source).readyState === EventSource.CLOSED) {
        retryTimer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 15000);
      }
    };
  }

  open();
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && source && source.readyState !== EventSource.OPEN) open();
  });
  window.addEventListener("online", open);
  return { reconnect: open };
}
