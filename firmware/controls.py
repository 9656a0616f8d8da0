"""Buttons and buzzer (gpiozero): one press for the next step, hold to undo, hold
long for a new game, and short buzzer cues for a rhino charge, dung, the end of a
round and the win.

All of it is optional: pins absent from the board file create nothing, and
hardware that cannot be opened (a PC, a missing pin library) is logged and
skipped, because the table must run without it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kalimambo.firmware.hardware import HardwareConfig

log = logging.getLogger(__name__)

Action = Callable[[], Any]
Note = tuple[float | None, float]
"""A tone in Hz (None: silence) and how long it lasts in seconds."""

CUES: dict[str, tuple[Note, ...]] = {
    # A low rumble that drops: Mambo charging.
    "rhino": ((131.0, 0.12), (None, 0.03), (123.0, 0.12), (None, 0.03), (117.0, 0.3)),
    # High then low: splat.
    "dung": ((392.0, 0.06), (147.0, 0.25)),
    # Two rising notes: the round is over.
    "round_end": ((523.0, 0.1), (None, 0.05), (659.0, 0.15)),
    # A little fanfare.
    "win": ((523.0, 0.12), (659.0, 0.12), (784.0, 0.12), (None, 0.06), (1047.0, 0.4)),
}
TONAL_OCTAVES = 2
"""TonalBuzzer range: A4 +- 2 octaves, 110 to 1760 Hz, which holds every cue."""


class _HoldButton:
    """One button: a press, a hold (on release after ``hold_s``) and a long hold
    (fired once ``long_s`` is reached, while still held)."""

    def __init__(self, button: Any, hold_s: float, long_s: float, on_press: Action | None,
                 on_hold: Action | None, on_long: Action | None) -> None:
        self.button = button
        self.long_wait = long_s - hold_s
        self.on_press, self.on_hold, self.on_long = on_press, on_hold, on_long
        self.held = False
        self.long_fired = False
        self.timer: threading.Timer | None = None
        self._lock = threading.Lock()
        button.when_pressed = self._pressed
        button.when_held = self._held
        button.when_released = self._released

    def _pressed(self) -> None:
        with self._lock:
            self.held = False
            self.long_fired = False

    def _held(self) -> None:
        with self._lock:
            self.held = True
            if self.on_long is not None:
                self.timer = threading.Timer(self.long_wait, self._long)
                self.timer.daemon = True
                self.timer.start()

    def _long(self) -> None:
        with self._lock:
            if not self.button.is_pressed or self.long_fired:
                return
            self.long_fired = True
        _call(self.on_long, "new game")

    def _released(self) -> None:
        with self._lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            held, long_fired = self.held, self.long_fired
            self.held = False
        if long_fired:
            return
        if held:
            _call(self.on_hold, "undo")
        else:
            _call(self.on_press, "next")

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.button.close()


def _call(action: Action | None, what: str) -> None:
    if action is None:
        return
    try:
        action()
    except Exception:
        log.exception("controls: the %s action failed", what)


class Controls:
    """The board's buttons and buzzer (docs/CONTRACTS.md "Lights").

    With only a ``next`` button, that button also undoes (hold) and starts a new
    game (long hold); with an ``undo`` button too, the holds move there.
    """

    def __init__(self, hardware: HardwareConfig, on_next: Action | None, on_undo: Action | None,
                 on_new_game: Action | None, *, pin_factory: Any = None,
                 cue_speed: float = 1.0) -> None:
        self.buttons: list[_HoldButton] = []
        self.buzzer: Any = None
        self.tonal = hardware.buzzer_tonal
        self.cue_speed = cue_speed
        self.errors: list[str] = []
        self.exceptions: list[Exception] = []
        """What went wrong opening each pin (the agent tells "no GPIO at all" apart)."""
        self._cue_lock = threading.Lock()
        self._tone: Any = None
        hold, long = hardware.undo_hold_s, hardware.new_game_hold_s
        if hardware.button_next is not None:
            alone = hardware.button_undo is None
            self._button(hardware.button_next, "buttons.next", hold, long, on_next,
                         on_undo if alone else None, on_new_game if alone else None,
                         pin_factory)
        if hardware.button_undo is not None:
            self._button(hardware.button_undo, "buttons.undo", hold, long, None, on_undo,
                         on_new_game, pin_factory)
        if hardware.buzzer_pin is not None:
            self._buzzer(hardware.buzzer_pin, pin_factory)

    def _button(self, pin: int, key: str, hold: float, long: float, on_press: Action | None,
                on_hold: Action | None, on_long: Action | None, pin_factory: Any) -> None:
        try:
            from gpiozero import Button
            button = Button(pin, hold_time=hold, pin_factory=pin_factory)
        except Exception as error:
            self._failed(f"{key} (GPIO {pin})", error)
            return
        self.buttons.append(_HoldButton(button, hold, long, on_press, on_hold, on_long))

    def _buzzer(self, pin: int, pin_factory: Any) -> None:
        try:
            if self.tonal:
                from gpiozero import TonalBuzzer
                from gpiozero.tones import Tone

                # A bare number under 128 would be read as a MIDI note.
                self._tone = Tone
                self.buzzer = TonalBuzzer(pin, octaves=TONAL_OCTAVES, pin_factory=pin_factory)
            else:
                from gpiozero import Buzzer
                self.buzzer = Buzzer(pin, pin_factory=pin_factory)
        except Exception as error:
            self._failed(f"buzzer.pin (GPIO {pin})", error)

    def _failed(self, what: str, error: Exception) -> None:
        message = f"{what}: {error}"
        self.errors.append(message)
        self.exceptions.append(error)
        log.warning("controls: %s; going on without it", message)

    def cue(self, name: str, wait: bool = False) -> None:
        """Play a cue (rhino, dung, round_end, win) in the background (or now, with
        ``wait``); cues never overlap, and without a buzzer nothing happens."""
        if name not in CUES:
            raise ValueError(f"unknown cue {name!r} (known: {', '.join(CUES)})")
        if self.buzzer is None:
            return
        if wait:
            self._play(CUES[name])
        else:
            threading.Thread(target=self._play, args=(CUES[name],), name=f"cue-{name}",
                             daemon=True).start()

    def _play(self, notes: tuple[Note, ...]) -> None:
        with self._cue_lock:
            buzzer = self.buzzer
            if buzzer is None:
                return
            try:
                for tone, seconds in notes:
                    if tone is None:
                        buzzer.off() if not self.tonal else buzzer.stop()
                    elif self.tonal:
                        buzzer.play(self._tone(frequency=tone))
                    else:
                        buzzer.on()
                    time.sleep(seconds * self.cue_speed)
                buzzer.off() if not self.tonal else buzzer.stop()
            except Exception:
                log.exception("controls: playing a cue failed")

    def close(self) -> None:
        for button in self.buttons:
            button.close()
        self.buttons = []
        if self.buzzer is not None:
            buzzer, self.buzzer = self.buzzer, None
            with self._cue_lock:
                buzzer.close()
