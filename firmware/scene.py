"""What stands where on the track, and the colours the strip shows for it.

The scene is made from what the table sends (``stripview.StripState``) and drawn as one
colour per space: figures over Mambo over heaps, empty spaces dark.  A step plays forward
from the scene before it, so the picture after it is the one the table's next view
describes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kalimambo.engine.events import KALI
from kalimambo.firmware.stripview import StripSeat, StripState

RGB = tuple[int, int, int]
DARK: RGB = (0, 0, 0)

EXPLORER_COLOURS: dict[str, RGB] = {
    # Chosen for cheap WS2812s after gamma 2.2: saturated primaries where the wood is
    # a primary; orange with enough green left after gamma to stay apart from red;
    # the natural wood a warm white (blue in it, unlike yellow).  A test keeps every
    # pair of figure colours apart in hue.
    "green": (0, 255, 0),
    "yellow": (255, 200, 0),
    "violet": (150, 0, 255),
    "red": (255, 0, 0),
    "blue": (0, 0, 255),
    "orange": (255, 110, 0),
    "natural": (255, 215, 150),
}
KALI_COLOUR: RGB = (150, 200, 255)
"""Kali's figure is black; a cold white reads as "the odd one" and is never an explorer."""
MAMBO_COLOUR: RGB = (0, 230, 200)
"""Mambo is grey; turquoise keeps him well apart from the red explorer and from Kali."""
DUNG_COLOUR: RGB = (120, 70, 0)
"""Heaps are a dim amber (brown does not survive gamma on an LED): there, not a figure."""
SPLAT_COLOUR: RGB = (255, 120, 10)
FALLBACK_COLOURS: tuple[RGB, ...] = tuple(EXPLORER_COLOURS.values())


def colour_of_seat(colour_name: object, seat: int) -> RGB:
    """The strip colour for a seat's wooden colour name (a seat without one gets
    the colour of its position in the seat list, so it still shows)."""
    if isinstance(colour_name, str) and colour_name in EXPLORER_COLOURS:
        return EXPLORER_COLOURS[colour_name]
    return FALLBACK_COLOURS[seat % len(FALLBACK_COLOURS)]


def scale(colour: RGB, factor: float) -> RGB:
    """``colour`` dimmed (or brightened, capped at 255) by ``factor``."""
    r, g, b = colour
    return (min(255, int(r * factor)), min(255, int(g * factor)), min(255, int(b * factor)))


@dataclass(slots=True)
class Scene:
    """Figures, Mambo and heaps on a track of ``spaces`` spaces."""

    spaces: int
    figures: dict[str, int] = field(default_factory=dict)
    colours: dict[str, RGB] = field(default_factory=dict)
    rhino: int | None = None
    dung: tuple[int, ...] = ()

    def copy(self) -> Scene:
        return Scene(self.spaces, dict(self.figures), dict(self.colours), self.rhino,
                     self.dung)

    def colour(self, figure: str) -> RGB:
        return self.colours.get(figure, KALI_COLOUR)

    def draw(self) -> tuple[list[RGB], list[RGB | None]]:
        """One colour per space (figure, else Mambo, else heap, else dark), and the
        heap under a figure or Mambo where there is one (shown when a space has
        LEDs to spare)."""
        top: list[RGB] = [DARK] * self.spaces
        under: list[RGB | None] = [None] * self.spaces
        for space in self.dung:
            top[space] = DUNG_COLOUR
        if self.rhino is not None:
            if top[self.rhino] == DUNG_COLOUR:
                under[self.rhino] = DUNG_COLOUR
            top[self.rhino] = MAMBO_COLOUR
        for name, space in self.figures.items():
            if space in self.dung:
                under[space] = DUNG_COLOUR
            top[space] = self.colour(name)
        return top, under


def map_space(space: int, track_length: int, spaces: int) -> int:
    """A space of the game's track on the board's track (they match unless the host
    started a game on a different length than the board file says)."""
    if track_length == spaces:
        return space % spaces
    return (space * spaces // track_length) % spaces


def seat_colours(seats: Sequence[StripSeat]) -> dict[str, RGB]:
    """Every seat's strip colour by name, plus Kali's."""
    colours = {seat.name: colour_of_seat(seat.colour, i) for i, seat in enumerate(seats)}
    colours[KALI] = KALI_COLOUR
    return colours


def scene_of(state: StripState, spaces: int) -> Scene:
    """The scene a table's message describes (positions, Mambo, heaps), on ``spaces``
    spaces."""
    length = state.track_length or spaces
    figures = {name: map_space(space, length, spaces)
               for name, space in state.board.positions.items()}
    rhino = state.board.rhino
    dung = tuple(sorted({map_space(d, length, spaces) for d in state.dung}))
    return Scene(spaces, figures, seat_colours(state.seats),
                 None if rhino is None else map_space(rhino, length, spaces), dung)
