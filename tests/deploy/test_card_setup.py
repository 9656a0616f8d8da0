"""deploy/card_setup.py: a card's kalimambo.toml read line by line (a wrong value gets its
default and a sentence naming its line, never a card that does not start), the identity a
card chooses once, the setup.sh options it makes, and the table file it leaves the table.

The boot itself (systemd, NetworkManager, setup.sh offline) runs in the emulated card of
tests/pi/run-emulated --image."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from kalimambo.firmware.hardware import parse_hardware
from kalimambo.firmware.hardwarewrite import with_values
from kalimambo.web.system.tablefile import (
    LANGUAGES,
    TableSettings,
    read_table_file,
    table_file_text,
)
from tests.helpers import ROOT

TEMPLATE = (ROOT / "deploy" / "kalimambo.toml").read_text()
BOARD = (ROOT / "hardware" / "boards" / "pi4-gpio18.toml").read_text()


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("card_setup", ROOT / "deploy/card_setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["card_setup"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


card = load()
IDENTITY = {"letters": "qxzw", "password": "abcd-efgh-jkmn", "channel": 6,
            "first_hostname": "raspberrypi"}


def uncommented(text: str) -> str:
    """The template with every example line in use, as a volunteer might."""
    return re.sub(r"^#([a-z_]+ = )", r"\1", text, flags=re.M)


def test_the_template_as_shipped_sets_nothing_and_is_valid() -> None:
    found = card.read_settings(TEMPLATE, BOARD)
    assert (found.own, found.board, found.problems) == ({}, {}, [])
    table = card.decide(found, IDENTITY)
    assert table.name == "kalimambo-qxzw" and table.ssid == "kalimambo-qxzw"
    assert table.password == "abcd-efgh-jkmn" and table.channel == 6
    assert table.setup_args() == ["--port", "80", "--hostname", "kalimambo-qxzw", "--hotspot",
                                  "kalimambo-qxzw", "--hotspot-channel", "6",
                                  "--hotspot-password", "abcd-efgh-jkmn"]


def test_every_example_line_of_the_template_is_a_right_value() -> None:
    text = uncommented(TEMPLATE)
    found = card.read_settings(text, BOARD)
    assert found.problems == []
    assert found.own == {"table.name": "kalimambo-1", "table.language": "de",
                         "hotspot.enabled": True, "hotspot.name": "Kalimambo table 1",
                         "hotspot.password": "mambo-table-7", "hotspot.country": "DE",
                         "card.read_only": True}
    assert found.board == {("host", "pin"): "4821", ("animation", "pacing"): "auto",
                           ("animation", "pause_ms"): 3000, ("strip", "led_count"): 32,
                           ("strip", "gpio"): 18, ("strip", "colour_order"): "GRB",
                           ("power", "supply_ma"): 3000}
    every = {(s.section, s.key) for s in card.SETTINGS}
    shown = set(re.findall(r"^\[(\w+)\]|^([a-z_]+) = ", text, flags=re.M))
    assert len(shown) > 1 and len(every) == len(card.SETTINGS)  # each setting shown once
    assert {key for _, key in every} <= {key for _, key in shown if key}


WRONG = [  # (section, key, a wrong value as TOML, words the message must hold)
    ("table", "name", '"Table 3!"', "small letters"),
    ("table", "language", '"nl"', "one of en, de, fr, it"),
    ("table", "host_pin", '"12"', "4 to 8 digits"),
    ("table", "pacing", '"fast"', "animation.pacing"),
    ("table", "pause_ms", "-4", "animation.pause_ms"),
    ("hotspot", "enabled", '"yes"', "true or false"),
    ("hotspot", "name", '"' + "x" * 33 + '"', "1 to 32"),
    ("hotspot", "password", '"short"', "8 to 63"),
    ("hotspot", "country", '"Germany"', "two letters"),
    ("strip", "led_count", "0", "strip.led_count"),
    ("strip", "gpio", "99", "strip.gpio"),
    ("strip", "colour_order", '"XYZ"', "colour_order"),
    ("strip", "power_limit_ma", '"lots"', "power.supply_ma"),
]


@pytest.mark.parametrize(("section", "key", "value", "words"), WRONG,
                         ids=[f"{s}.{k}" for s, k, _, _ in WRONG])
def test_a_wrong_value_gets_its_default_and_names_its_line(section: str, key: str,
                                                           value: str, words: str) -> None:
    right = uncommented(TEMPLATE)
    lines = right.splitlines()
    number = card.line_of(right, section, key)
    assert number is not None
    lines[number - 1] = f"{key} = {value}"
    found = card.read_settings("\n".join(lines), BOARD)
    assert len(found.problems) == 1, found.problems
    problem = found.problems[0]
    assert problem.startswith(f"kalimambo.toml line {number}: {key}")
    assert words in problem and ("default" in problem or "kept" in problem)
    if key in ("password", "host_pin"):
        assert value.strip('"') not in problem.split(":", 1)[1]  # a secret is not repeated
    everything_else = card.read_settings(right, BOARD)
    assert f"{section}.{key}" not in found.own and (section, key) not in found.board
    assert len(found.own) + len(found.board) == \
        len(everything_else.own) + len(everything_else.board) - 1
    table = card.decide(found, IDENTITY)
    if key == "name" and section == "table":
        assert table.name == "kalimambo-qxzw"
    if key == "password":
        assert table.password == IDENTITY["password"]
    if key == "country":
        assert table.country is None


@pytest.mark.parametrize(("text", "words"), [
    ("[table]\nname = \n", "not valid TOML"),
    ("[tabel]\nname = \"x\"\n", "[tabel] is not a section"),
    ("[table]\n\nnick = \"x\"\n", "kalimambo.toml line 3: 'nick' is not a setting of [table]"),
])
def test_a_broken_file_or_an_unknown_line_is_named_and_ignored(text: str, words: str) -> None:
    found = card.read_settings(text, BOARD)
    assert found.own == {} and found.board == {}
    assert len(found.problems) == 1 and words in found.problems[0]


def test_board_values_are_written_into_the_board_file_comments_kept() -> None:
    found = card.read_settings("[strip]\nled_count = 64\ncolour_order = \"RGB\"\n"
                               "power_limit_ma = 2000\n[table]\nhost_pin = \"9876\"\n", BOARD)
    assert found.problems == []
    written = with_values(BOARD, found.board)
    hardware = parse_hardware(tomllib.loads(written))
    assert (hardware.led_count, hardware.colour_order, hardware.supply_ma,
            hardware.host_pin) == (64, "RGB", 2000, "9876")
    kept = [line for line in BOARD.splitlines() if line.strip().startswith("#")]
    assert kept and all(line in written.splitlines() for line in kept)
    assert with_values(written, found.board) == written  # the next boot changes nothing


def test_a_name_chosen_in_raspberry_pi_imager_is_kept_and_the_file_wins() -> None:
    nothing = card.read_settings("", BOARD)
    imager = {**IDENTITY, "first_hostname": "bar-table"}
    assert card.decide(nothing, imager).name == "bar-table"
    named = card.read_settings("[table]\nname = \"Hall-A\"\n", BOARD)
    assert card.decide(named, imager).name == "hall-a"
    assert card.decide(nothing, {**IDENTITY, "first_hostname": "raspberrypi"}).name == \
        "kalimambo-qxzw"


def test_a_card_without_hotspot_says_so_to_setup_sh() -> None:
    found = card.read_settings("[hotspot]\nenabled = false\n", BOARD)
    assert card.decide(found, IDENTITY).setup_args() == [
        "--port", "80", "--hostname", "kalimambo-qxzw", "--no-hotspot"]
    open_wifi = card.read_settings("[hotspot]\npassword = \"\"\ncountry = \"de\"\n", BOARD)
    args = card.decide(open_wifi, IDENTITY).setup_args()
    assert "--hotspot-password" not in args and args[-2:] == ["--country", "DE"]


def test_each_card_chooses_its_own_identity() -> None:
    chosen = [card.choose_identity("raspberrypi", {}) for _ in range(40)]
    for identity in chosen:
        assert re.fullmatch(r"[a-z]{4}", identity["letters"])
        assert re.fullmatch(r"[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}", identity["password"])
        assert not set(identity["password"]) & set("01ilo")
        assert identity["channel"] in (1, 6, 11)
    assert len({i["letters"] for i in chosen}) > 35
    assert len({i["password"] for i in chosen}) == 40
    assert {i["channel"] for i in chosen} == {1, 6, 11}  # 40 draws: all three (p > 0.999)


def test_the_channel_is_the_least_crowded_of_1_6_11() -> None:
    rng = random.Random(7)
    assert card.choose_channel({1: 4, 6: 0, 11: 2}, rng) == 6
    assert card.choose_channel({1: 0, 6: 3, 11: 0}, rng) in (1, 11)
    assert {card.choose_channel({}, rng) for _ in range(30)} == {1, 6, 11}


def test_the_table_file_round_trips(tmp_path: Path) -> None:
    settings = TableSettings("kalimambo-qxzw", "de", ('line 3: a "quoted" word', "two"))
    path = tmp_path / "table.toml"
    path.write_text(table_file_text(settings))
    assert read_table_file(path) == settings
    path.write_text(table_file_text(TableSettings("t", None, ())))
    assert read_table_file(path) == TableSettings("t", None, ())
    assert read_table_file(tmp_path / "none.toml") is None


def test_the_languages_are_the_pages_languages() -> None:
    from kalimambo.web.http.pages import LANGUAGES as PAGES

    files = sorted(p.stem for p in (ROOT / "web" / "i18n").glob("*.json"))
    assert sorted(LANGUAGES) == sorted(PAGES) == files


def test_imager_firstrun_boot_is_left_to_imager() -> None:
    bookworm = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4"
                " fsck.repair=yes rootwait quiet systemd.run=/boot/firstrun.sh "
                "systemd.run_success_action=reboot systemd.unit=kernel-command-line.target")
    assert card.imager_runs_first(bookworm)
    assert not card.imager_runs_first(bookworm.replace(" systemd.run=/boot/firstrun.sh", ""))
    assert not card.imager_runs_first("root=PARTUUID=1-02 ds=nocloud;i=rpi-imager-1 rootwait")


def test_the_identity_is_chosen_once_and_kept_private(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(card, "CARD_FILE", tmp_path / "card.toml")
    monkeypatch.setattr(card, "busiest_channels", lambda: {1: 2, 6: 0, 11: 3})
    monkeypatch.setattr(card, "current_hostname", lambda: "raspberrypi")
    first = card.load_identity()
    assert first["channel"] == 6 and first["first_hostname"] == "raspberrypi"
    assert (tmp_path / "card.toml").stat().st_mode & 0o777 == 0o600
    assert card.load_identity() == first  # the next boot keeps it
    (tmp_path / "card.toml").write_text("letters = \"abcd\"\n")  # half a file
    again = card.load_identity()
    assert set(again) >= {"letters", "password", "channel"}
    assert card.load_identity() == again  # chosen anew once, then kept


def test_a_boot_without_its_boot_partition_keeps_the_settings_last_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    boot = tmp_path / "boot"
    boot.mkdir()
    monkeypatch.setattr(card, "SETTINGS_FILE", boot / "kalimambo.toml")
    monkeypatch.setattr(card, "SETTINGS_AS_READ", tmp_path / "kalimambo.toml.last-read")
    text, problems = card.volunteer_file(boot_mounted=False)  # never read yet
    assert text == "" and "every setting has its default" in problems[0]
    (boot / "kalimambo.toml").write_text('[table]\nname = "kalimambo-red"\n')
    text, problems = card.volunteer_file(boot_mounted=True)
    assert problems == [] and 'name = "kalimambo-red"' in text
    assert (tmp_path / "kalimambo.toml.last-read").stat().st_mode & 0o777 == 0o600
    (boot / "kalimambo.toml").unlink()  # the partition gone: its file with it
    kept, problems = card.volunteer_file(boot_mounted=False)
    assert kept == text and "as last read" in problems[0]
    assert card.read_settings(kept, BOARD).own.get("table.name") == "kalimambo-red"
