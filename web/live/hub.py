"""The hub, what lives on the app (``app.extensions["kalimambo"]``): the table, the event
streams' fan-out and the lights link, built together in one place."""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable, Iterator

from kalimambo.engine.pacing import DEFAULT_PACING, DEFAULT_PAUSE_MS
from kalimambo.firmware.wire import patch_message, whole_message
from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.core.view import lights_summary
from kalimambo.web.core.viewtypes import LightsView
from kalimambo.web.live.lightslink import LightsLink
from kalimambo.web.live.stream import Broadcaster, Item
from kalimambo.web.storage.store import Store
from kalimambo.web.table.buttons import press
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.publisher import Change
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner

log = logging.getLogger(__name__)


class Hub:
    """The table, the lights link and the event streams' fan-out, made here together, each
    given what it needs: every change goes to the streams and, over the lights socket, to
    the lights process; its button presses come back as table commands
    (web/table/buttons.py). The table keeps its own clock and lock."""

    def __init__(self, store: Store, track_length: int, host: HostAuth, *, pin: str | None,
                 lights_socket: str | None, led_count: int, heartbeat: float = 15.0,
                 join_url: str | Callable[[], str] = "", runner: InlineRunner | None = None,
                 default_pacing: str = DEFAULT_PACING,
                 default_pause_ms: int = DEFAULT_PAUSE_MS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.pin = pin
        self.broadcaster = Broadcaster(heartbeat)
        # The link calls these only once started (below), when the table is there.
        self.lights = LightsLink(lights_socket, led_count, welcome=self._welcome,
                                 on_change=self._lights_changed,
                                 on_command=lambda name: press(self.table, name))
        self.table = Table(store, track_length, host, join_url=join_url, runner=runner,
                           lights_status=self.lights.status, default_pacing=default_pacing,
                           default_pause_ms=default_pause_ms, clock=clock,
                           listeners=(self.broadcaster.publish, self._to_lights))
        self.lights.guard = self.table.lock  # a lights process is welcomed under it
        self.lights.start()
        self._lights_changed()  # a socket that could not be made shows at once
        self.table.start_clock()

    # -- the lights process -------------------------------------------------------------
    def _welcome(self) -> list[bytes]:
        """A newly connected lights process (or one that lost its place): the whole
        public view once; every change after it is its patch (``_to_lights``)."""
        return [whole_message(self.table.current.view_json)]

    def _to_lights(self, change: Change) -> None:
        """Every change, as the event streams get it: its patch (diffed once, for every
        listener), the first view whole. The lights process reads what it draws from it
        (firmware/stripview.py)."""
        self.lights.send(patch_message(change.patch_json, change.happened_json)
                         if change.patch_json is not None
                         else whole_message(change.view_json))

    def _lights_changed(self) -> None:
        """The strip's status changed (or the lights process came or went): a new view,
        so the host page says so at once."""
        status = lights_summary(self.lights.status())
        shown = self.table.current.view.get("lights") or {}
        if any(shown.get(key) != value for key, value in status.items()):
            self.table.refresh()

    # -- what the API calls -------------------------------------------------------------
    def stream(self, token: str | None, patches: bool = False) -> Iterator[bytes]:
        """One event stream's body: subscribed and counted (``token``: a seat's, which
        shows as connected while it is open, and whose own view the stream then
        carries) under the table's lock, so it starts from exactly the change it was
        subscribed at; every change as the whole view, or with ``patches`` as its
        patch (the table's pages)."""
        table = self.table

        def start(q: queue.Queue[Item]) -> tuple[Change, str | None]:
            with table.lock:
                self.broadcaster.subscribe(q)
                seat = table.stream_opened(token)
                return table.current, seat

        return self.broadcaster.stream(start, lambda: table.current,
                                       on_close=lambda: table.stream_closed(token),
                                       patches=patches)

    def lights_frame(self) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """The strip's frame as sent, and as a person sees it."""
        return self.lights.frames()

    def lights_retry(self) -> LightsView:
        if not self.lights.retry():
            raise Refusal(Kind.CONFLICT, "lights_failed",
                          "The lights process is not running, so there is nothing to retry.")
        self.table.refresh()
        return self.table.current.view["lights"]

    def close(self) -> None:
        self.table.close_clock()
        self.lights.close()
        self.store.close()
