"""Calibration: the phone page's calls, and the map written into the board file."""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest

from kalimambo.firmware.calibrate import DONE, GLOW, Calibration, create_calibrate_app
from kalimambo.firmware.hardware import HardwareFileError, load_hardware_file, parse_hardware
from kalimambo.firmware.hardwarewrite import with_layout, write_layout
from kalimambo.firmware.scene import RGB

BOARD_TEXT = textwrap.dedent("""\
    # Ana's board: strip starts at space 3 and runs backwards
    name = "Ana's board"
    [track]
    spaces = 4   # a tiny test board

    [strip]
    led_count = 6
    colour_order = "RGB"  # keep me

    [layout]
    first_led = 2
    spaces = [
      [0], [1],
      [2], [3],
    ]

    [power]
    supply_ma = 1500
    """)


@pytest.fixture
def board_path(tmp_path: Path) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(BOARD_TEXT)
    return path


def session_for(path: Path) -> tuple[Calibration, list[list[RGB]]]:
    shown: list[list[RGB]] = []
    hardware = parse_hardware({"track": {"spaces": 4}, "strip": {"led_count": 6}})
    return Calibration(hardware, path, shown.append), shown


def test_tapping_every_led_writes_the_map_and_keeps_the_rest(board_path: Path) -> None:
    session, shown = session_for(board_path)
    client: Any = create_calibrate_app(session).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b"const SPACES = 4;" in page.data
    assert shown[-1] == [GLOW] + [(0, 0, 0)] * 5  # LED 0 glows
    # The strip runs backwards from space 3; LED 2 sits between spaces.
    for space in (3, 2, None):
        assert client.post("/api/mark", json={"space": space}).status_code == 200
    assert shown[-1] == [DONE, DONE, (0, 0, 0), GLOW, (0, 0, 0), (0, 0, 0)]
    assert client.post("/api/skip").json["led"] == 4
    assert client.post("/api/back").json["led"] == 3
    for space in (1, 0, 0):
        state = client.post("/api/mark", json={"space": space}).json
    assert state["done"] and state["layout"] == [[4, 5], [3], [1], [0]]
    response = client.post("/api/save")
    assert response.status_code == 200 and response.json["saved"]

    hardware = load_hardware_file(board_path)
    assert hardware.layout == ((4, 5), (3,), (1,), (0,)) and hardware.explicit_layout
    text = board_path.read_text()
    assert "colour_order = \"RGB\"  # keep me" in text and "supply_ma = 1500" in text
    assert text.startswith("# Ana's board") and text.count("spaces = [") == 1


def test_save_is_refused_until_every_space_has_an_led(board_path: Path) -> None:
    session, _ = session_for(board_path)
    client: Any = create_calibrate_app(session).test_client()
    client.post("/api/mark", json={"space": 0})
    response = client.post("/api/save")
    assert response.status_code == 400
    assert "none yet under space 1, 2, 3" in response.json["error"]["message"]
    assert board_path.read_text() == BOARD_TEXT


@pytest.mark.parametrize("body", [{"space": 4}, {"space": "two"}, {"space": True}, {},
                                  None])
def test_bad_taps_change_nothing(board_path: Path, body: Any) -> None:
    session, _ = session_for(board_path)
    client: Any = create_calibrate_app(session).test_client()
    response = client.post("/api/mark", json=body)
    assert response.status_code == 400 and response.json["error"]["message"]
    assert session.led == 0 and session.answers == {}


def fill_session(path: Path, spaces: int, leds: int) -> tuple[Calibration, Any]:
    hardware = parse_hardware({"track": {"spaces": spaces}, "strip": {"led_count": leds}})
    session = Calibration(hardware, path, lambda frame: None)
    return session, create_calibrate_app(session).test_client()


def test_two_leds_per_space_from_here_takes_two_taps_not_64(tmp_path: Path) -> None:
    """The issue's case: 32 spaces, 64 LEDs, two under each, the strip from space 0."""
    path = tmp_path / "board.toml"
    _, client = fill_session(path, 32, 64)
    assert client.get("/api/state").json["fill"] is None  # nothing tapped: nothing to follow
    for _ in range(2):
        state = client.post("/api/mark", json={"space": 0}).json
    assert state["fill"] == {"space": 0, "per_space": 2, "step": 1}  # the page's guess
    state = client.post("/api/fill", json={"per_space": 2}).json
    assert state["done"] and state["missing"] == []
    assert client.post("/api/save").json["saved"]
    assert load_hardware_file(path).layout == tuple((2 * s, 2 * s + 1) for s in range(32))


def test_from_here_follows_a_strip_that_runs_backwards_from_any_space(
        tmp_path: Path) -> None:
    """LED 0 under space 3, LED 1 between spaces, LED 2 under space 2: the strip runs
    against the figures, so one per space from there on goes 1, 0, then stops (space 3
    has its LED); the last LED stays under no space."""
    _, client = fill_session(tmp_path / "board.toml", 4, 6)
    for space in (3, None, 2):
        client.post("/api/mark", json={"space": space})
    state = client.post("/api/fill", json={"per_space": 1}).json
    assert state["layout"] == [[4], [3], [2], [0]]
    assert state["led"] == 5 and not state["done"] and state["missing"] == []


def test_from_here_first_completes_the_space_it_is_in(tmp_path: Path) -> None:
    _, client = fill_session(tmp_path / "board.toml", 4, 12)
    client.post("/api/mark", json={"space": 0})  # one of its three tapped
    state = client.post("/api/fill", json={"per_space": 3}).json
    assert state["layout"] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert state["done"]


@pytest.mark.parametrize("body", [{"per_space": 0}, {"per_space": 17},
                                  {"per_space": "2"}, {"per_space": True}, {}])
def test_bad_fills_change_nothing(tmp_path: Path, body: Any) -> None:
    session, client = fill_session(tmp_path / "board.toml", 4, 8)
    client.post("/api/mark", json={"space": 0})
    before = dict(session.answers)
    response = client.post("/api/fill", json=body)
    assert response.status_code == 400 and response.json["error"]["message"]
    assert session.answers == before and session.led == 1


def test_a_fill_before_any_tap_says_what_to_do(tmp_path: Path) -> None:
    _, client = fill_session(tmp_path / "board.toml", 4, 8)
    response = client.post("/api/fill", json={"per_space": 2})
    assert response.status_code == 400
    assert "First tap the space" in response.json["error"]["message"]
    page = client.get("/").data.decode()
    assert 'id="fill"' in page and "per space from here" in page


def test_a_new_board_file_is_made_with_the_led_count(tmp_path: Path) -> None:
    path = tmp_path / "new.toml"
    write_layout(path, [[0], [1], [2], [3]] + [[i] for i in range(4, 32)], led_count=40)
    hardware = load_hardware_file(path)
    assert hardware.led_count == 40 and hardware.leds_of(31) == (31,)


def test_the_written_board_file_keeps_its_permissions(tmp_path: Path) -> None:
    """The services read the board file: calibrate run with sudo must not leave it 0600."""
    layout = [[i] for i in range(32)]
    path = tmp_path / "new.toml"
    write_layout(path, layout)
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o640)
    write_layout(path, layout[::-1])
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["new.toml"]


def test_a_map_that_would_break_the_file_is_not_written(board_path: Path) -> None:
    with pytest.raises(HardwareFileError, match=r"layout.spaces\[1\]: LED 0 is already"):
        write_layout(board_path, [[0], [0], [1], [2]])
    assert board_path.read_text() == BOARD_TEXT


def test_with_layout_adds_a_missing_section_and_parses() -> None:
    text = with_layout("[track]\nspaces = 4\n\n[power]\nsupply_ma = 900\n",
                       [[1], [0], [2], [3]])
    data = tomllib.loads(text)
    assert data["layout"]["spaces"] == [[1], [0], [2], [3]]
    assert data["power"]["supply_ma"] == 900


def test_the_led_count_is_saved_with_the_map(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text("[track]\nspaces = 4\n")  # no led_count: it would default to 4
    hardware = parse_hardware({"track": {"spaces": 4}, "strip": {"led_count": 5}})
    session = Calibration(hardware, path, lambda frame: None)
    for space in (0, 1, None, 2, 3):
        session.mark(space)
    session.save()
    saved = load_hardware_file(path)
    assert saved.led_count == 5 and saved.layout == ((0,), (1,), (3,), (4,))
