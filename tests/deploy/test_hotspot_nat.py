"""deploy/kalimambo-hotspot-nat, NetworkManager's dispatcher script for the hotspot's
sharing, run as the dispatcher runs it, with nft, nmcli, logger and sleep stood in for
by scripts that note their calls (the emulated Pi runs the real ones: tests/pi)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT

SCRIPT = ROOT / "deploy" / "kalimambo-hotspot-nat"


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """A folder of stand-ins: each notes its arguments in calls.log; nft finds the table
    only while tmp_path/table exists."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("nmcli", "logger", "sleep"):
        (folder / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{tmp_path}/calls.log"\n')
    (folder / "nft").write_text(f'#!/bin/sh\necho "nft $*" >> "{tmp_path}/calls.log"\n'
                                f'[ -e "{tmp_path}/table" ]\n')
    for tool in folder.iterdir():
        tool.chmod(0o755)
    return folder


def dispatch(tools: Path, device: str, action: str, connection: str) -> list[str]:
    env = {"PATH": f"{tools}:/usr/bin:/bin", "CONNECTION_ID": connection,
           "KALIMAMBO_RUN_DIR": str(tools.parent)}
    subprocess.run([str(SCRIPT), device, action], env=env, check=True, timeout=30)
    log = tools.parent / "calls.log"
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return calls


def test_other_connections_and_actions_are_left_alone(tools: Path) -> None:
    assert dispatch(tools, "eth0", "up", "Wired connection 1") == []
    assert dispatch(tools, "wlan0", "down", "kalimambo-hotspot") == []


def test_a_hotspot_with_its_table_needs_nothing(tools: Path) -> None:
    (tools.parent / "table").touch()
    assert dispatch(tools, "wlan0", "up", "kalimambo-hotspot") == [
        "nft list table ip nm-shared-wlan0"]


def test_a_missing_table_brings_the_hotspot_up_three_times_then_is_only_said(
        tools: Path) -> None:
    for _ in range(3):
        calls = dispatch(tools, "wlan0", "up", "kalimambo-hotspot")
        assert calls[0] == "nft list table ip nm-shared-wlan0"
        assert calls[-2:] == ["sleep 10", "nmcli connection up kalimambo-hotspot"]
        assert any(call.startswith("logger -t kalimambo-hotspot") for call in calls)
    fourth = dispatch(tools, "wlan0", "up", "kalimambo-hotspot")
    assert not any(call.startswith("nmcli") for call in fourth)
    warning = [call for call in fourth if call.startswith("logger")]
    assert warning and "-p daemon.warning" in warning[0] and "way out" in warning[0]


def test_the_script_is_executable_and_posix_sh() -> None:
    assert os.access(SCRIPT, os.X_OK)
    assert SCRIPT.read_text().startswith("#!/bin/sh\n")
    subprocess.run(["sh", "-n", str(SCRIPT)], check=True)
