"""The power watch against /sys laid out as a Raspberry Pi's kernel lays it out.

Where the files come from (raspberrypi/linux, the Raspberry Pi OS kernel):

- drivers/hwmon/raspberrypi-hwmon.c (at 1a91e6d5abd997453149831bfa2f75513a715a19): line
  159 registers the hwmon device named ``rpi_volt``, line 123 gives it one attribute,
  HWMON_I_LCRIT_ALARM (the file ``in0_lcrit_alarm``), and line 112 reads it as
  ``!!(last_throttled & UNDERVOLTAGE_STICKY_BIT)``, BIT(16) (line 48), from a poll every
  2 s (line 104) that asks the firmware to clear its sticky bits each time (line 63).
  The hwmon class (Documentation/hwmon/sysfs-interface) puts ``name`` beside it and
  links ``/sys/class/hwmon/hwmonN`` to the device's own folder, which sits under the
  firmware device: ``.../soc:firmware/raspberrypi-hwmon/hwmon/hwmonN``.
- drivers/firmware/raspberrypi.c (at 01fc79ac13ffd70ec71f75de31bf5e1637fa442e): lines
  232-242, ``get_throttled_show`` writes ``"%x\\n"`` (line 239: hex, no ``0x``) and warns
  that it is deprecated (line 237); the driver is ``raspberrypi-firmware``, so
  ``/sys/bus/platform/drivers/raspberrypi-firmware/soc:firmware`` links to the device,
  ``/sys/devices/platform/soc/soc:firmware`` up to the Pi 4.  raspberrypi/linux pull request
  6697 (March 2025) removed the file from the 6.12 kernels; the 6.6 ones have it.
- The bits (Raspberry Pi's documentation, ``vcgencmd get_throttled``): 0 under-voltage,
  1 arm frequency capped, 2 throttled, 3 soft temperature limit; 16-19 the same, "has
  occurred".
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from kalimambo.firmware.hardware import parse_hardware
from kalimambo.firmware.lights import Lights
from kalimambo.firmware.power import (
    FREQ_CAPPED,
    OCCURRED,
    SOFT_TEMP_LIMIT,
    THROTTLED,
    UNDER_VOLTAGE,
    PowerWatch,
    read_pi_supply,
)

FIRMWARE = "sys/devices/platform/soc/soc:firmware"


def hwmon(root: Path, alarm: int, number: int = 1) -> Path:
    """A Pi 4's hwmon as the kernel lays it out: the CPU's thermal sensor first (another
    name), then rpi_volt under the firmware device, each linked from /sys/class/hwmon."""
    thermal = root / "sys/devices/virtual/thermal/thermal_zone0/hwmon0"
    thermal.mkdir(parents=True, exist_ok=True)
    (thermal / "name").write_text("cpu_thermal\n")
    (thermal / "temp1_input").write_text("48686\n")
    device = root / FIRMWARE / f"raspberrypi-hwmon/hwmon/hwmon{number}"
    device.mkdir(parents=True, exist_ok=True)
    (device / "name").write_text("rpi_volt\n")
    alarm_file = device / "in0_lcrit_alarm"
    alarm_file.write_text(f"{alarm}\n")
    links = root / "sys/class/hwmon"
    links.mkdir(parents=True, exist_ok=True)
    for link, target in (("hwmon0", thermal), (f"hwmon{number}", device)):
        if not (links / link).exists():
            os.symlink(os.path.relpath(target, links), links / link)
    return alarm_file


def get_throttled(root: Path, value: int) -> Path:
    """The firmware device's get_throttled, and the driver's link to the device."""
    device = root / FIRMWARE
    device.mkdir(parents=True, exist_ok=True)
    path = device / "get_throttled"
    path.write_text(f"{value:x}\n")
    driver = root / "sys/bus/platform/drivers/raspberrypi-firmware"
    driver.mkdir(parents=True, exist_ok=True)
    if not (driver / "soc:firmware").exists():
        os.symlink(os.path.relpath(device, driver), driver / "soc:firmware")
    return path


def hardware(supply_ma: int = 3000) -> object:
    return parse_hardware({"strip": {"led_count": 32, "max_brightness": 1.0, "gamma": 1.0},
                           "power": {"supply_ma": supply_ma}})


# ---- reading the flags -------------------------------------------------------------------

def test_off_a_pi_it_cannot_know(tmp_path: Path) -> None:
    (tmp_path / "sys/class/hwmon/hwmon0").mkdir(parents=True)  # a PC's: another name
    (tmp_path / "sys/class/hwmon/hwmon0/name").write_text("coretemp\n")
    pi = read_pi_supply(tmp_path)
    assert not pi.known and not pi.low and pi.throttled is None
    assert pi.describe() == "cannot know"
    assert not read_pi_supply(tmp_path / "nothing").known


@pytest.mark.parametrize("alarm", [0, 1])
def test_the_rpi_volt_alarm_set_and_clear(tmp_path: Path, alarm: int) -> None:
    """Bookworm and Trixie: rpi_volt's alarm, found by its name whatever its number."""
    hwmon(tmp_path, alarm, number=3)
    pi = read_pi_supply(tmp_path)
    assert pi.source == "/sys/class/hwmon/hwmon3/in0_lcrit_alarm"  # as a builder cats it
    assert pi.low is bool(alarm)
    assert pi.throttled is None  # the alarm says nothing of throttling


BITS = [(UNDER_VOLTAGE, "under-voltage"), (FREQ_CAPPED, "arm frequency capped"),
        (THROTTLED, "throttled"), (SOFT_TEMP_LIMIT, "soft temperature limit")]


@pytest.mark.parametrize(("bit", "words"), BITS, ids=[words for _, words in BITS])
@pytest.mark.parametrize("when", ["now", "occurred", "clear"])
def test_each_get_throttled_flag_set_and_clear(tmp_path: Path, bit: int, words: str,
                                               when: str) -> None:
    """An older kernel without rpi_volt's hwmon: the firmware's whole word."""
    value = {"now": bit | bit << OCCURRED, "occurred": bit << OCCURRED, "clear": 0}[when]
    get_throttled(tmp_path, value)
    pi = read_pi_supply(tmp_path)
    assert pi.source == f"/{FIRMWARE}/get_throttled" and pi.flags == value
    assert pi.low is (bit == UNDER_VOLTAGE and when != "clear")
    assert pi.throttled is (bit in (THROTTLED, FREQ_CAPPED) and when != "clear")
    described = pi.describe()
    if when == "now":
        assert described == f"now: {words}"
    elif when == "occurred":
        assert described == f"lately: {words}"
    else:
        assert described == "no flag set"


def test_the_kernels_example_word(tmp_path: Path) -> None:
    """0x50005, the word the kernel logs with "Under-voltage detected!": under-voltage
    and throttled, now and since."""
    get_throttled(tmp_path, 0x50005)
    pi = read_pi_supply(tmp_path)
    assert pi.low and pi.throttled
    assert pi.describe() == "now: under-voltage, throttled"


def test_the_hwmon_alarm_wins_over_the_deprecated_file(tmp_path: Path) -> None:
    """A 6.6 kernel has both: the hwmon alarm is read, never get_throttled (whose first
    read puts a kernel warning with a backtrace in the log)."""
    hwmon(tmp_path, 0)
    get_throttled(tmp_path, 0x50005)
    pi = read_pi_supply(tmp_path)
    assert pi.source is not None and pi.source.endswith("in0_lcrit_alarm")
    assert not pi.low


def test_get_throttled_is_found_through_its_driver_wherever_the_device_sits(
        tmp_path: Path) -> None:
    device = tmp_path / "sys/devices/platform/axi/axi:firmware"
    device.mkdir(parents=True)
    (device / "get_throttled").write_text("10000\n")
    driver = tmp_path / "sys/bus/platform/drivers/raspberrypi-firmware"
    driver.mkdir(parents=True)
    os.symlink(os.path.relpath(device, driver), driver / "axi:firmware")
    pi = read_pi_supply(tmp_path)
    assert pi.low and pi.describe() == "lately: under-voltage"


def test_an_unreadable_value_is_cannot_know(tmp_path: Path) -> None:
    hwmon(tmp_path, 0).write_text("garbage\n")
    assert not read_pi_supply(tmp_path).known


# ---- the watch: status on change, one log line per change ---------------------------------

def test_a_sag_is_said_once_held_then_remembered(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    alarm = hwmon(tmp_path, 0)
    watch = PowerWatch(hardware(), tmp_path)  # type: ignore[arg-type]
    caplog.set_level(logging.INFO, "kalimambo.firmware.power")
    watch.frame(0, 0.0)
    assert watch.status()["pi"] == "ok" and watch.status()["pi_sags"] == 0
    assert "watching the Pi's own supply" in caplog.text
    alarm.write_text("1\n")
    for second in range(1, 8):  # sagging for a while: one line, one sag
        watch.frame(0, float(second))
    assert watch.status()["pi"] == "low" and watch.status()["pi_sags"] == 1
    assert caplog.text.count("supply is sagging") == 1
    alarm.write_text("0\n")
    watch.frame(0, 9.0)
    assert watch.status()["pi"] == "low"  # held: a supply on the edge is one long sag
    watch.frame(0, 30.0)
    assert watch.status()["pi"] == "sagged"
    assert "steady again (it sagged 1 time since" in caplog.text
    alarm.write_text("1\n")
    watch.frame(0, 40.0)
    assert watch.status() == {"pi": "low", "pi_sags": 2, "throttled": None,
                              "supply_ma": 3000, "asked_ma": 100, "dimming": False}


def test_throttling_from_get_throttled(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    word = get_throttled(tmp_path, 0)
    watch = PowerWatch(hardware(), tmp_path)  # type: ignore[arg-type]
    caplog.set_level(logging.INFO, "kalimambo.firmware.power")
    watch.frame(0, 0.0)
    assert watch.status()["throttled"] is False
    word.write_text(f"{THROTTLED | THROTTLED << OCCURRED:x}\n")
    watch.frame(0, 5.0)
    assert watch.status()["throttled"] is True and watch.status()["pi"] == "ok"
    assert "slowing itself down" in caplog.text


def test_off_a_pi_the_status_says_unknown_and_the_log_says_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "kalimambo.firmware.power")
    watch = PowerWatch(hardware(), tmp_path)  # type: ignore[arg-type]
    watch.frame(0, 0.0)
    watch.frame(0, 5.0)
    assert watch.status()["pi"] == "unknown"
    assert caplog.text.count("cannot see the Pi's own supply") == 1


def test_the_limiter_dimming_is_said_and_held(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """32 LEDs at full white (no gamma, full brightness) ask about 1.95 A of a 300 mA
    supply: the limiter dims; when the picture fits again it stops, 5 s later."""
    caplog.set_level(logging.INFO, "kalimambo.firmware.power")
    lights = Lights(hardware(300), "sim", run_thread=False,  # type: ignore[arg-type]
                    clock=lambda: 0.0, sys_root=tmp_path)
    lights.set_override([(255, 255, 255)] * 32)
    lights.tick(0.0)
    power = lights.status()["power"]
    assert power["dimming"] is True and power["supply_ma"] == 300
    assert power["asked_ma"] == 2000  # 1952 mA, up to 100 mA
    assert caplog.text.count("the limiter dims it to fit") == 1
    assert "asks about 2.0 A but power.supply_ma is 300 mA" in caplog.text
    lights.set_override([(0, 0, 0)] * 32)
    lights.tick(1.0)
    assert lights.status()["power"]["dimming"] is True  # held
    lights.tick(6.0)
    assert lights.status()["power"]["dimming"] is False
    assert "no longer dims" in caplog.text
    lights.close()


def test_a_changing_picture_does_not_churn_the_status(tmp_path: Path) -> None:
    """The status goes to the table and every phone: an animation's every frame must not
    change it, only a higher peak (in 100 mA steps) or a dimming that starts or stops."""
    lights = Lights(hardware(), "sim", run_thread=False,  # type: ignore[arg-type]
                    clock=lambda: 0.0, sys_root=tmp_path)
    seen = []
    for step in range(200):
        level = (step * 37) % 120
        lights.set_override([(level, level, level)] * 32)
        lights.tick(step / 30)
        status = lights.status()["power"]
        if not seen or seen[-1] != status:
            seen.append(status)
    assert len(seen) <= 6
    assert all(not status["dimming"] for status in seen)
    lights.close()
