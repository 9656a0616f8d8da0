"""``kalimambo leds``: help, bad input (exit 2, nothing touched), test, walk, bench."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from kalimambo.firmware import lights as firmware_lights
from kalimambo.firmware.hardware import load_hardware_file
from kalimambo.leds_cmd import main
from tests.helpers import free_port


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def board_file(tmp_path: Path, text: str, name: str = "board.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_help_is_enough_to_bring_up_a_strip(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    for needed in ("dtoverlay=ws2812-pio", "GPIO 18", "led_count", "colour_order",
                   "supply_ma", "calibrate", "walk", "test", "never the Pi's 5 V pin"):
        assert needed in out
    for command in ("test", "walk", "calibrate", "bench"):
        code, out, _ = run([command, "--help"], capsys)
        assert code == 0 and len(out) > 300


@pytest.mark.parametrize(("argv", "message"), [
    (["frob"], "invalid choice: 'frob'"),
    (["test", "--strip", "neopixel"], "invalid choice: 'neopixel'"),
    (["--leds", "0", "test"], "--leds 0: a strip has at least 1 LED"),
    (["calibrate"], "calibrate needs --config FILE"),
    (["--config", "{missing}", "test"], "no such board file"),
    (["--config", "{bad}", "test"], "strip.gamma: must be a number at least 1"),
    (["--config", "{bad}", "walk"], "strip.gamma"),
    (["--leds", "4", "--config", "{long}", "test"], "layout.leds_per_space: 32 spaces x 2"),
])
def test_bad_input_is_one_line_exit_2_before_any_hardware(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        argv: list[str], message: str) -> None:
    def no_hardware(*args: Any) -> Any:
        raise AssertionError("a strip was opened")

    monkeypatch.setattr(firmware_lights, "make_backend", no_hardware)
    files = {"missing": str(tmp_path / "none.toml"),
             "bad": str(board_file(tmp_path, "[strip]\ngamma = 0.5\n", "bad.toml")),
             "long": str(board_file(tmp_path, "[layout]\nleds_per_space = 2\n", "long.toml"))}
    code, out, err = run([a.format(**files) for a in argv], capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1 and err.startswith("kalimambo leds")
    assert out == ""


def test_test_pattern_on_the_pio_device_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    path = board_file(tmp_path, f"""
        [track]
        spaces = 4
        [strip]
        led_count = 8
        device = "{device}"
        max_brightness = 1.0
        gamma = 1.0
        [layout]
        leds_per_space = 2
    """)
    code, out, err = run(["--config", str(path), "--strip", "pio", "test", "--delay", "0",
                          "--space-delay", "0"], capsys)
    assert (code, err) == (0, "")
    assert "all 8 LEDs RED" in out and "space 3: LED 6, 7" in out
    assert device.read_bytes() == bytes(32)  # ends dark, 4 bytes per LED


def test_a_strip_that_does_not_start_is_exit_1_with_the_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = board_file(tmp_path, f'[strip]\ndevice = "{tmp_path}/nope"\n')
    code, _, err = run(["--config", str(path), "--strip", "pio", "test"], capsys)
    assert code == 1
    assert "dtoverlay=ws2812-pio,gpio=18,num_leds=32" in err and err.count("\n") == 1


def test_walk_follows_enter_back_jump_and_quit(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nb\n20\nwhat\n31\n\nq\n"))
    code, out, _ = run(["--strip", "sim", "walk"], capsys)
    assert code == 0
    lit = [int(line.split()[1]) for line in out.splitlines() if line.startswith("LED ")]
    assert lit == [0, 1, 2, 1, 20, 20, 31, 0]
    assert "'what' is not a command" in out


def test_walk_start_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["--strip", "sim", "walk", "--start", "40"], capsys)
    assert code == 2 and "--start 40: LEDs run 0 to 31" in err


def test_test_prints_each_patterns_current_and_when_the_limiter_steps_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """supply_ma = 300 with 32 LEDs: white once dropped to 35 of 255 without a word."""
    path = board_file(tmp_path, "[power]\nsupply_ma = 300\n")
    code, out, err = run(["--config", str(path), "--strip", "sim", "test", "--delay", "0",
                          "--space-delay", "0"], capsys)
    assert code == 0
    # the board file check: a supply below the worst case is allowed, and said once
    assert err.count("\n") == 1 and "warning: power.supply_ma is 300 mA, below the " \
        "strip's worst case of about 988 mA" in err
    white = next(line for line in out.splitlines() if line.startswith("all 32 LEDs WHITE"))
    assert white == ("all 32 LEDs WHITE: asks about 988 mA, more than power.supply_ma "
                     "(300 mA): the limiter dims it to about 296 mA (full white goes out "
                     "as 35 of 255)")
    assert "space 0: LED 0: about 62 mA (power.supply_ma: 300 mA)" in out


def test_test_with_enough_supply_prints_the_estimates_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--strip", "sim", "test", "--delay", "0", "--space-delay", "0"],
                         capsys)
    assert (code, err) == (0, "")
    assert "all 32 LEDs WHITE: about 988 mA (power.supply_ma: 3000 mA)" in out
    assert "limiter" not in out


def test_bench_says_in_sentences_whether_this_machine_keeps_up(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["bench", "--frames", "60", "--seconds", "0.2"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3 and lines[0].startswith("This machine (")
    assert "160 LEDs" in lines[0] and "the target is 0.5 ms" in lines[0]
    assert "% of one CPU core" in lines[1]
    assert "animation.fps" in lines[2]


def test_bench_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["bench", "--json", "--frames", "60", "--seconds", "0.2"], capsys)
    assert code == 0
    figures = json.loads(out)
    assert set(figures["frame_compute"]) == {"32", "64", "160"}
    assert figures["frame_compute"]["160"]["mean_ms"] > 0
    assert figures["animation_60fps"]["160"]["frames_per_second"] > 0


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_calibrate_serves_the_phone_page_and_saves(tmp_path: Path, stop: int) -> None:
    port = free_port()
    path = tmp_path / "board.toml"
    path.write_text("# mine\n[track]\nspaces = 4\n")
    # Started as a shell starts a background job: with SIGINT ignored. Ctrl-C (and
    # SIGTERM) must still stop it: it once ran on, and a suite run with '&' timed out.
    process = subprocess.Popen(
        [sys.executable, "-m", "kalimambo", "leds", "--strip", "sim", "--leds", "4",
         "--config", str(path), "calibrate", "--port", str(port), "--bind", "127.0.0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    base = f"http://127.0.0.1:{port}/"

    def post(what: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(base + "api/" + what, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base, timeout=5) as response:
                    assert b"Calibrate the strip" in response.read()
                break
            except OSError:
                assert process.poll() is None, process.communicate()[0]
                assert time.monotonic() < deadline, "calibrate did not start"
                time.sleep(0.1)
        for space in (3, 2, 1, 0):
            state = post("mark", {"space": space})
        assert state["done"] and post("save", {})["saved"]
    finally:
        os.killpg(process.pid, stop)
        try:  # a generous ceiling: a busy machine is slow, but the signal must end it
            output = process.communicate(timeout=60)[0].decode()
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"calibrate was still running 60 s after {signal.Signals(stop).name}")
    assert process.returncode == 0
    assert f"Open http://127.0.0.1:{port}/ on your phone" in output
    assert load_hardware_file(path).layout == ((3,), (2,), (1,), (0,))
    assert path.read_text().startswith("# mine\n")
