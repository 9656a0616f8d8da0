"""The playback cursor: a pure state machine over one round's steps.

No clock and no threads: the table passes ``now`` (seconds, any monotonic
origin) and calls ``advance(now)`` when ``due`` has come; "next" and "skip" are plain
calls.  ``step`` (k) counts the steps already shown, 0 <= k <= len(steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kalimambo.engine.events import Event, RoundEnd, RoundEvent
from kalimambo.engine.pacing import PACINGS
from kalimambo.engine.timeline import (
    END_SECONDS,
    BoardState,
    Step,
    board_at,
    round_steps,
    step_seconds,
)
from kalimambo.web.core.happenings import PlaybackEnded, StepShown
from kalimambo.web.core.viewtypes import PlaybackView


@dataclass(slots=True)
class Playback:
    """Round ``round``'s steps being shown, from the board ``before`` it."""

    round: int
    steps: Sequence[Step]
    events: Sequence[Event]
    """The round's events, typed (a replay's read back from a stored record)."""
    public: list[RoundEvent]
    """The same events' JSON forms: the history entry's own list, so the stream can copy
    it rather than send it again."""
    before: BoardState
    pacing: str
    pause_ms: int
    step: int = 0
    due: float | None = None
    """When auto pacing shows the next step (None in step pacing or once done)."""
    skipped: bool = False
    """The host skipped: the steps from here on are drawn at once, not animated."""
    until: float | None = None
    """Auto pacing: when the step shown last has had its time.  The last step's comes
    after the round has ended, and the next round's playback waits for it, so the last
    figure moved is not cut short when the next reveal comes at once (computer players)."""
    _seconds: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.pacing not in PACINGS:
            raise ValueError(f"pacing must be one of {PACINGS}, not {self.pacing!r}")
        self._seconds = step_seconds(self.steps, self.pause_ms)

    @classmethod
    def begin(cls, round_no: int, events: Sequence[Event], public: list[RoundEvent],
              before: BoardState, pacing: str, pause_ms: int, now: float,
              not_before: float | None = None) -> Playback:
        """A playback at k = 0; in auto pacing the reveal comes at once (``due = now``),
        or once the last round's last step has had its time (``not_before``)."""
        playback = cls(round_no, round_steps(events), events, public, before, pacing,
                       pause_ms)
        playback.due = max(now, not_before or now) if pacing == "auto" else None
        return playback

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def done(self) -> bool:
        return self.step >= self.total

    def board(self) -> BoardState:
        """The board as of the cursor."""
        return board_at(self.before, self.steps, self.step)

    def current(self) -> Step | None:
        """The step shown last (the one the displays animate now), or None at k = 0."""
        return self.steps[self.step - 1] if self.step else None

    def next(self, now: float) -> bool:
        """Show one more step (any pacing); false when there is none left."""
        if self.done:
            return False
        self.step += 1
        self._schedule(now)
        return True

    def jump(self) -> bool:
        """"Skip", one step at a time: one more step, drawn at once rather than
        animated (and so is every step after it); false when none is left.  A skip
        shows each step left as a version of its own, so that no message of the event
        stream carries the rest of the round at once."""
        if self.done:
            return False
        self.skipped = True
        self.step += 1
        self.due = self.until = None
        return True

    def advance(self, now: float) -> bool:
        """Auto pacing: show every step whose time has come; whether the cursor moved.

        One step per call at most, so every display gets every step."""
        if self.pacing != "auto" or self.due is None or now < self.due or self.done:
            return False
        return self.next(max(now, self.due))

    def set_pacing(self, pacing: str, pause_ms: int, now: float) -> None:
        if pacing not in PACINGS:
            raise ValueError(f"pacing must be one of {PACINGS}, not {pacing!r}")
        self.pacing = pacing
        self.pause_ms = pause_ms
        self._seconds = step_seconds(self.steps, pause_ms)
        self._schedule(now)

    def _schedule(self, now: float) -> None:
        auto = self.pacing == "auto" and not self.skipped
        self.until = now + self._seconds[self.step - 1] if auto and self.step else None
        if not auto or self.done:
            self.due = None
        else:
            self.due = self.until if self.step else now

    def seconds(self) -> float:
        """How long the step shown last is animated (``timeline.step_seconds``, in any
        pacing: in step pacing the next one waits for "next", but each still plays)."""
        return self._seconds[self.step - 1] if self.step else 0.0

    def closing(self) -> int:
        """Where the round's closing events (its ``round_end``) begin in its events."""
        count = len(self.events)
        return count - 1 if self.events and isinstance(self.events[-1], RoundEnd) else count

    def current_span(self) -> tuple[int, int]:
        """Where the step shown last begins and ends in the round's events (an empty
        span at k = 0): the typed events of that step are the same slice."""
        count = sum(len(step.events) for step in self.steps[:self.step])
        current = self.current()
        return (count - len(current.events) if current else 0), count

    def to_view(self, last_step: bool = False) -> PlaybackView:
        """The public ``playback``: where the cursor is, the events shown so far
        (``shown``) and the step just shown (``current``: its kind, where its events
        begin in ``shown``, and whether it was skipped to rather than animated);
        nothing about the steps after the cursor.

        ``last_step``: the view of the last step before the playback ends, which comes
        as a message of its own right after it.  The round's closing ``round_end``
        event is held back for that end, with the round's history entry: the last
        step's message stays small, and every display takes the round's end from the
        end's message."""
        first, count = self.current_span()
        if last_step and self.done:
            count = min(count, self.closing())
        current = self.current()
        public = self.public
        shown = public if count == len(public) else public[:count]
        return {"round": self.round, "step": self.step, "steps": self.total,
                "pacing": self.pacing,
                "current": {"kind": current.kind, "first": first,
                            "skipped": self.skipped} if current else None,
                "shown": shown}


def step_shown(playback: Playback, replay: bool = False) -> StepShown:
    """The cursor's move just made, told once for every display."""
    current = playback.current()
    assert current is not None
    first, end = playback.current_span()
    return StepShown(playback.round, playback.step, playback.total, current.kind, first,
                     min(end, playback.closing()) - first, playback.seconds(),
                     playback.skipped, replay)


def playback_ended(playback: Playback, replay: bool = False) -> PlaybackEnded:
    """The playback's end, with where its closing events are."""
    return PlaybackEnded(playback.round, playback.closing(), END_SECONDS, playback.skipped,
                         replay)
