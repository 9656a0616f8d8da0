"""``kalimambo leds calibrate``: find out which LED sits under which space, from a phone.

The Pi lights one LED at a time; the builder taps the space on a drawing of the
board where it glows ("none" for an LED under no space, "skip" to leave it for
later).  Once the first space's LEDs are tapped, "N LEDs per space from here" fills
the rest of a regular strip at once (two LEDs per space took 64 taps before).  The
answers are written to the board file as an explicit ``[layout] spaces`` map.  The
session is plain Python (tested directly); the Flask app is a thin page and a few
JSON calls over it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from kalimambo.engine.values import is_int
from kalimambo.firmware.hardware import HardwareConfig, HardwareFileError
from kalimambo.firmware.hardwarewrite import write_layout
from kalimambo.firmware.scene import RGB

MAX_PER_SPACE = 16
"""As many LEDs per space as the board file's ``layout.leds_per_space`` allows."""
GLOW: RGB = (255, 255, 255)
DONE: RGB = (0, 40, 0)
"""LEDs already placed glow faintly green, so gaps along the strip stand out."""


class Calibration:
    """The answers so far, and the LED to ask about next."""

    def __init__(self, hardware: HardwareConfig, path: str | Path,
                 show: Callable[[list[RGB]], object]) -> None:
        self.hardware = hardware
        self.path = Path(path)
        self.show = show
        self.answers: dict[int, int | None] = {}
        """LED -> its space, or None for an LED under no space."""
        self.led = 0
        self.saved = False
        self._lock = threading.Lock()
        self._light()

    @property
    def done(self) -> bool:
        return self.led >= self.hardware.led_count

    def _light(self) -> None:
        frame: list[RGB] = [(0, 0, 0)] * self.hardware.led_count
        for led, space in self.answers.items():
            if space is not None:
                frame[led] = DONE
        if not self.done:
            frame[self.led] = GLOW
        self.show(frame)

    def layout(self) -> list[list[int]]:
        """The LEDs under each space from the answers so far."""
        spaces: list[list[int]] = [[] for _ in range(self.hardware.spaces)]
        for led in sorted(self.answers):
            space = self.answers[led]
            if space is not None:
                spaces[space].append(led)
        return spaces

    def missing(self) -> list[int]:
        return [space for space, leds in enumerate(self.layout()) if not leds]

    def _last_run(self) -> tuple[int, int, int] | None:
        """Before the current LED: the last space answered, how many LEDs in a row it has
        there, and the way the spaces run (+1 as the figures walk, -1 against): what
        "N LEDs per space from here" continues.  None before any space is tapped."""
        before = [led for led in sorted(self.answers) if led < self.led
                  and self.answers[led] is not None]
        if not before:
            return None
        space = self.answers[before[-1]]
        assert space is not None
        run = 0
        for led in range(before[-1], -1, -1):
            if self.answers.get(led) != space:
                break
            run += 1
        step = 1
        earlier = [s for s in (self.answers[led] for led in before)
                   if s is not None and s != space]
        if earlier and (earlier[-1] - space) % self.hardware.spaces == 1:
            step = -1  # the strip runs against the figures
        return space, run, step

    def state(self) -> dict[str, Any]:
        layout = self.layout()
        last = None if self.done else self._last_run()
        return {"led": self.led, "led_count": self.hardware.led_count,
                "spaces": self.hardware.spaces, "done": self.done, "layout": layout,
                "answered": len(self.answers), "missing": self.missing(),
                "here": self.answers.get(self.led, "unknown") if not self.done else None,
                "saved": self.saved, "path": str(self.path),
                "fill": None if last is None else {"space": last[0], "per_space": last[1],
                                                   "step": last[2]}}

    def mark(self, space: object) -> dict[str, Any]:
        """The current LED sits under ``space`` (a number), or under none (``None``)."""
        with self._lock:
            if self.done:
                raise ValueError("Every LED has an answer: save, or go back to change one.")
            if space is not None and (not is_int(space) or not 0 <= space < self.hardware.spaces):
                raise ValueError(f"There is no space {space!r}: spaces run 0 to "
                                 f"{self.hardware.spaces - 1}.")
            self.answers[self.led] = space
            self.led += 1
            self.saved = False
            self._light()
            return self.state()

    def fill(self, per_space: object) -> dict[str, Any]:
        """From the current LED on, ``per_space`` LEDs under each next space, going on
        from the last space tapped (which first gets its own ``per_space``) in the way
        the taps ran, until a space already has LEDs or the strip ends."""
        with self._lock:
            if not is_int(per_space) or not 1 <= per_space <= MAX_PER_SPACE:
                raise ValueError(f"LEDs per space: a whole number from 1 to {MAX_PER_SPACE} "
                                 f"(got {per_space!r}).")
            last = None if self.done else self._last_run()
            if last is None:
                raise ValueError("First tap the space under the glowing LED (and its "
                                 "neighbours under the same space); then the rest can "
                                 "follow, N per space.")
            space, run, step = last
            taken = {s for s in self.answers.values() if s is not None}
            left = per_space - run  # the last space tapped may still want LEDs
            while self.led < self.hardware.led_count:
                if left <= 0:
                    space, left = (space + step) % self.hardware.spaces, per_space
                    if space in taken:
                        break  # round the whole track: the rest are under no space yet
                self.answers[self.led] = space
                taken.add(space)
                self.led += 1
                left -= 1
            self.saved = False
            self._light()
            return self.state()

    def skip(self) -> dict[str, Any]:
        """Leave the current LED without an answer for now."""
        with self._lock:
            if not self.done:
                self.answers.pop(self.led, None)
                self.led += 1
            self._light()
            return self.state()

    def back(self) -> dict[str, Any]:
        """Go back one LED to answer it again."""
        with self._lock:
            self.led = max(0, self.led - 1)
            self._light()
            return self.state()

    def goto(self, led: object) -> dict[str, Any]:
        with self._lock:
            if not is_int(led) or not 0 <= led < self.hardware.led_count:
                raise ValueError(f"There is no LED {led!r}: LEDs run 0 to "
                                 f"{self.hardware.led_count - 1}.")
            self.led = led
            self._light()
            return self.state()

    def save(self) -> dict[str, Any]:
        """Write the map to the board file; refused while a space has no LED."""
        with self._lock:
            missing = self.missing()
            if missing:
                shown = ", ".join(str(s) for s in missing[:8]) + (
                    "..." if len(missing) > 8 else "")
                raise ValueError(f"Every space needs an LED first: none yet under space "
                                 f"{shown}.")
            try:
                # The map only holds for this LED count, so it is written too.
                write_layout(self.path, self.layout(), self.hardware.led_count)
            except (HardwareFileError, OSError) as error:
                raise ValueError(f"Could not save: {error}") from None
            self.saved = True
            return self.state()


def create_calibrate_app(session: Calibration) -> Flask:
    """The phone page: the ring of spaces, and calls to mark, skip, go back and save."""
    app = Flask(__name__)
    app.extensions["calibration"] = session

    def answer(action: Callable[[], dict[str, Any]]) -> Response | tuple[Response, int]:
        try:
            return jsonify(action())
        except ValueError as error:
            return jsonify({"error": {"code": "refused", "message": str(error)}}), 400

    def field(name: str) -> Any:
        data = request.get_json(silent=True)
        if not isinstance(data, dict) or name not in data:
            raise ValueError(f"Please send JSON with \"{name}\".")
        return data[name]

    @app.get("/")
    def page() -> str:
        return render_template("calibrate.html", spaces=session.hardware.spaces,
                               led_count=session.hardware.led_count)

    @app.get("/api/state")
    def state() -> Response | tuple[Response, int]:
        return answer(session.state)

    @app.post("/api/mark")
    def mark() -> Response | tuple[Response, int]:
        return answer(lambda: session.mark(field("space")))

    @app.post("/api/fill")
    def fill() -> Response | tuple[Response, int]:
        return answer(lambda: session.fill(field("per_space")))

    @app.post("/api/skip")
    def skip() -> Response | tuple[Response, int]:
        return answer(session.skip)

    @app.post("/api/back")
    def back() -> Response | tuple[Response, int]:
        return answer(session.back)

    @app.post("/api/goto")
    def goto() -> Response | tuple[Response, int]:
        return answer(lambda: session.goto(field("led")))

    @app.post("/api/save")
    def save() -> Response | tuple[Response, int]:
        return answer(session.save)

    return app
