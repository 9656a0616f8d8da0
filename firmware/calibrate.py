"""``kalimambo leds calibrate``: find out which LED sits under which space, from a phone.

The Pi lights one LED at a time; the builder taps the space on a drawing of the
board where it glows ("none" for an LED under no space, "skip" to leave it for
later).  The answers are written to the board file as an explicit ``[layout]
spaces`` map.  The session is plain Python (tested directly); the Flask app is a
thin page and four JSON calls over it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from kalimambo.engine.setup import is_int
from kalimambo.firmware.board import BoardConfig, BoardFileError
from kalimambo.firmware.boardwrite import write_layout
from kalimambo.firmware.scene import RGB

GLOW: RGB = (255, 255, 255)
DONE: RGB = (0, 40, 0)
"""LEDs already placed glow faintly green, so gaps along the strip stand out."""


class Calibration:
    """The answers so far, and the LED to ask about next."""

    def __init__(self, board: BoardConfig, path: str | Path,
                 show: Callable[[list[RGB]], object]) -> None:
        self.board = board
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
        return self.led >= self.board.led_count

    def _light(self) -> None:
        frame: list[RGB] = [(0, 0, 0)] * self.board.led_count
        for led, space in self.answers.items():
            if space is not None:
                frame[led] = DONE
        if not self.done:
            frame[self.led] = GLOW
        self.show(frame)

    def layout(self) -> list[list[int]]:
        """The LEDs under each space from the answers so far."""
        spaces: list[list[int]] = [[] for _ in range(self.board.spaces)]
        for led in sorted(self.answers):
            space = self.answers[led]
            if space is not None:
                spaces[space].append(led)
        return spaces

    def missing(self) -> list[int]:
        return [space for space, leds in enumerate(self.layout()) if not leds]

    def state(self) -> dict[str, Any]:
        layout = self.layout()
        return {"led": self.led, "led_count": self.board.led_count,
                "spaces": self.board.spaces, "done": self.done, "layout": layout,
                "answered": len(self.answers), "missing": self.missing(),
                "here": self.answers.get(self.led, "unknown") if not self.done else None,
                "saved": self.saved, "path": str(self.path)}

    def mark(self, space: object) -> dict[str, Any]:
        """The current LED sits under ``space`` (a number), or under none (``None``)."""
        with self._lock:
            if self.done:
                raise ValueError("Every LED has an answer: save, or go back to change one.")
            if space is not None and (not is_int(space) or not 0 <= space < self.board.spaces):
                raise ValueError(f"There is no space {space!r}: spaces run 0 to "
                                 f"{self.board.spaces - 1}.")
            self.answers[self.led] = space
            self.led += 1
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
            if not is_int(led) or not 0 <= led < self.board.led_count:
                raise ValueError(f"There is no LED {led!r}: LEDs run 0 to "
                                 f"{self.board.led_count - 1}.")
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
                write_layout(self.path, self.layout(), self.board.led_count)
            except (BoardFileError, OSError) as error:
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
        return render_template("calibrate.html", spaces=session.board.spaces,
                               led_count=session.board.led_count)

    @app.get("/api/state")
    def state() -> Response | tuple[Response, int]:
        return answer(session.state)

    @app.post("/api/mark")
    def mark() -> Response | tuple[Response, int]:
        return answer(lambda: session.mark(field("space")))

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
