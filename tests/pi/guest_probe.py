#!/usr/bin/env python3
"""Run inside the emulated Pi by tests/pi/run-emulated: looks, prints JSON, changes nothing
(but ``phone-join``, which moves the test's second radio into a network namespace).

    guest_probe.py manifest                 what setup.sh installs: path -> owner mode sum
    guest_probe.py processes UNIT           each process of UNIT: user, groups, caps, libs
    guest_probe.py phone-join SSID [PSK]    the phone's radio joins the hotspot, gets a lease
    guest_probe.py phone-lease              the phone asks for a new DHCP lease
    guest_probe.py resolve NAME             NAME's IPv4 address by the resolver DHCP gave
    guest_probe.py check METHOD URL         one request as a connectivity check sends it:
                                            redirects not followed (in the phone's netns)
    guest_probe.py http METHOD URL [BODY [TOKEN]]   one JSON request (in the phone's netns)
    guest_probe.py mdns NAME                one-shot mDNS query for NAME's IPv4 address
    guest_probe.py streams N SECONDS        N event streams to the table on port 80, each
                                            from its own loopback address, held SECONDS
    guest_probe.py memory UNIT...           MemAvailable and each unit's memory (MB)
    guest_probe.py phones N [PORT]          N phones at once, each from its own loopback
                                            address: the phone page and its files, as a
                                            browser with an empty cache fetches them, then
                                            a seat; the seconds until each has it

Standard library only: it runs on the Pi's own python3, before and after any venv.
"""

from __future__ import annotations

import concurrent.futures
import gzip
import hashlib
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

MANIFEST_TOPS = ("/etc", "/opt", "/usr/local", "/boot", "/var/lib/kalimambo")
VOLATILE = {"/etc/resolv.conf", "/etc/ld.so.cache", "/etc/.pwd.lock", "/etc/machine-id"}
PHONE = "phone"


def manifest() -> dict[str, str]:
    found: dict[str, str] = {}
    for top in MANIFEST_TOPS:
        start = Path(top)
        if not start.exists():
            continue
        paths = [start] if top == "/var/lib/kalimambo" else [start, *start.rglob("*")]
        for path in paths:  # the table's own data changes as it runs: only its folder
            name = str(path)
            if "__pycache__" in path.parts or name in VOLATILE:
                continue
            info = path.lstat()
            if path.is_symlink():
                what = "-> " + os.readlink(path)
            elif path.is_file():
                what = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                what = "dir" if path.is_dir() else "other"
            found[name] = f"{info.st_uid}:{info.st_gid} {info.st_mode:o} {what}"
    return found


def processes(unit: str) -> list[dict[str, Any]]:
    procs = Path(f"/sys/fs/cgroup/system.slice/{unit}/cgroup.procs")
    found = []
    for pid in procs.read_text().split():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            maps = Path(f"/proc/{pid}/maps").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        found.append({"pid": int(pid), "uid": int(fields["Uid"].split()[0]),
                      "groups": fields["Groups"].split(),
                      "cap_eff": int(fields["CapEff"].strip(), 16),
                      "cap_bnd": int(fields["CapBnd"].strip(), 16),
                      "no_new_privs": fields.get("NoNewPrivs", "0").strip() == "1",
                      "seccomp": fields.get("Seccomp", "0").strip(),
                      "libraries": sorted({lib for lib in ("_lgpio", "_rpi_ws281x")
                                           if lib in maps}),
                      "cmdline": cmdline.decode(errors="replace").strip()})
    return found


def run(*words: str) -> str:
    return subprocess.run(words, check=True, capture_output=True, text=True).stdout


def in_phone(*words: str) -> str:
    return run("ip", "netns", "exec", PHONE, *words)


def phone_join(ssid: str, psk: str | None) -> dict[str, Any]:
    """The second radio, in its own namespace, joins ``ssid`` as a phone would."""
    if PHONE not in run("ip", "netns", "list"):
        run("ip", "netns", "add", PHONE)
        phy = Path("/sys/class/net/wlan1/phy80211/name").read_text().strip()
        run("iw", "phy", phy, "set", "netns", "name", PHONE)
    in_phone("ip", "link", "set", "lo", "up")
    in_phone("ip", "link", "set", "wlan1", "up")
    network = f'ssid="{ssid}"\n' + (f'psk="{psk}"\nkey_mgmt=WPA-PSK\nproto=RSN\n'
                                    if psk else "key_mgmt=NONE\n")
    Path("/run/phone-wpa.conf").write_text("ctrl_interface=/run/phone-wpa\n"
                                           f"network={{\n{network}}}\n")
    subprocess.run(["pkill", "-f", "phone-wpa.conf"], check=False)
    in_phone("wpa_supplicant", "-B", "-i", "wlan1", "-c", "/run/phone-wpa.conf",
             "-P", "/run/phone-wpa.pid")
    deadline = time.monotonic() + 120
    while "Connected to" not in in_phone("iw", "dev", "wlan1", "link"):
        if time.monotonic() > deadline:
            raise SystemExit("the phone did not associate with the hotspot in 120 s")
        time.sleep(1)
    return {**phone_lease(), "associated": True}


PHONE_RESOLV = Path(f"/etc/netns/{PHONE}/resolv.conf")
"""``ip netns exec`` mounts it over /etc/resolv.conf: the phone's own DNS servers."""


def phone_lease() -> dict[str, Any]:
    """A DHCP lease for the phone, its address, route and DNS servers set as a phone's
    system sets them (busybox ships no lease script: without one nothing is set)."""
    script = Path("/var/tmp/phone-udhcpc.sh")  # /run is noexec: udhcpc could not run it
    PHONE_RESOLV.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("#!/bin/sh\ncase \"$1\" in bound|renew)\n"
                      "  ip addr flush dev \"$interface\"\n"
                      "  ip addr add \"$ip/${mask:-24}\" dev \"$interface\"\n"
                      "  [ -n \"$router\" ] && ip route replace default via "
                      "${router%% *} dev \"$interface\"\n"
                      f"  : > {PHONE_RESOLV}\n"
                      f"  for server in $dns; do echo \"nameserver $server\" >> {PHONE_RESOLV}; "
                      "done\n;; esac\n")
    script.chmod(0o755)
    in_phone("busybox", "udhcpc", "-i", "wlan1", "-s", str(script), "-n", "-q",
             "-t", "20", "-T", "3")
    shown = in_phone("ip", "-4", "-o", "addr", "show", "dev", "wlan1").split()
    if len(shown) < 4:
        raise SystemExit("the phone got no IPv4 address from the hotspot's DHCP")
    servers = [line.split()[1] for line in PHONE_RESOLV.read_text().splitlines()
               if line.startswith("nameserver ")] if PHONE_RESOLV.exists() else []
    return {"address": shown[3], "dns": servers}


def resolve(name: str) -> dict[str, Any]:
    try:
        return {"address": socket.gethostbyname(name)}
    except OSError as error:
        return {"address": None, "error": str(error)}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def check(method: str, url: str) -> dict[str, Any]:
    """One request as a phone's connectivity check (or a form's button) sends it."""
    request = urllib.request.Request(url, data=b"" if method == "POST" else None,
                                     method=method)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            status, headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, error.headers, error.read()
    except OSError as failed:   # no route, refused, timed out: the phone sees no answer
        return {"status": None, "error": str(failed)}
    return {"status": status, "location": headers.get("Location"),
            "body": raw[:2000].decode(errors="replace")}


def http(method: str, url: str, body: str | None, token: str | None) -> dict[str, Any]:
    data = body.encode() if body else None
    request = urllib.request.Request(url, data=data, method=method)
    if data:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    begun = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    took = time.monotonic() - begun
    try:
        answer = json.loads(raw or b"null")
    except ValueError:
        answer = raw[:200].decode(errors="replace")
    return {"status": status, "seconds": round(took, 3), "body": answer}


def mdns(name: str) -> dict[str, Any]:
    """A one-shot ("legacy unicast") mDNS query, as a phone's resolver sends it."""
    query_id = random.randrange(1 << 16)
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split("."))
    packet = struct.pack("!6H", query_id, 0, 1, 0, 0, 0) + question + b"\0" \
        + struct.pack("!2H", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        sock.settimeout(3)
        for _ in range(5):
            sock.sendto(packet, ("224.0.0.251", 5353))
            try:
                reply, sender = sock.recvfrom(4096)
            except TimeoutError:
                continue
            if len(reply) >= 12 and struct.unpack("!H", reply[:2])[0] == query_id:
                address = first_a_record(reply)
                if address:
                    return {"address": address, "from": sender[0]}
    return {"address": None}


def skip_name(packet: bytes, at: int) -> int:
    """Past a (possibly compressed) domain name."""
    while packet[at]:
        if packet[at] & 0xC0 == 0xC0:
            return at + 2
        at += packet[at] + 1
    return at + 1


def first_a_record(packet: bytes) -> str | None:
    """The first IPv4 address among a DNS reply's answers."""
    questions, answers = struct.unpack("!2H", packet[4:8])
    at = 12
    for _ in range(questions):
        at = skip_name(packet, at) + 4
    for _ in range(answers):
        at = skip_name(packet, at)
        kind, _, _, length = struct.unpack("!2HIH", packet[at:at + 10])
        at += 10
        if kind == 1 and length == 4:
            return socket.inet_ntoa(packet[at:at + 4])
        at += length
    return None


def streams(count: int, seconds: float) -> dict[str, Any]:
    """Phones' event streams (with patches, as the phone page opens them), each from an
    address of its own (the table allows a few per address), held open while the memory
    is read."""
    held = []
    for i in range(count):
        sock = socket.socket()
        sock.bind((f"127.0.{1 + i // 250}.{2 + i % 250}", 0))
        sock.connect(("127.0.0.1", 80))
        sock.sendall(b"GET /api/v1/events?patches=1 HTTP/1.1\r\nHost: kalimambo\r\n"
                     b"Accept: text/event-stream\r\n\r\n")
        held.append(sock)
    opened = 0
    for sock in held:
        sock.settimeout(60)
        if sock.recv(4096).startswith(b"HTTP/1.1 200"):
            opened += 1
    print(json.dumps({"opened": opened}), flush=True)
    time.sleep(seconds)
    return {"opened": opened, "held_s": seconds}


ASSET = re.compile(r'(?:href|src)="(/static/[^"]+)"')


def one_phone(index: int, name: str, start: threading.Event, port: int) -> dict[str, Any]:
    """One phone with an empty cache: the page, then its files over up to four
    connections at once (as a browser does), then the join; seconds and bytes."""
    address = f"127.0.{2 + index // 250}.{2 + index % 250}"
    headers = {"Accept-Encoding": "gzip", "Accept-Language": "en", "Host": "10.42.0.1"}
    wire = [0]

    def get(path: str) -> bytes:
        connection = HTTPConnection("127.0.0.1", port, timeout=120,
                                                source_address=(address, 0))
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        wire[0] += len(body) + sum(len(k) + len(v) + 4 for k, v in response.getheaders())
        connection.close()
        if response.status != 200:
            raise SystemExit(f"phone {index}: GET {path} answered {response.status}")
        return gzip.decompress(body) if response.getheader("Content-Encoding") == "gzip" \
            else body

    start.wait()
    begun = time.monotonic()
    page = get("/").decode()
    assets = sorted(set(ASSET.findall(page)))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(get, assets))
    loaded = time.monotonic() - begun
    connection = HTTPConnection("127.0.0.1", port, timeout=120,
                                            source_address=(address, 0))
    connection.request("POST", "/api/v1/join", body=json.dumps({"name": name}),
                       headers={"Content-Type": "application/json", "Host": "10.42.0.1"})
    response = connection.getresponse()
    answer = json.loads(response.read() or b"null")
    if response.status not in (200, 201) or "token" not in (answer or {}):
        raise SystemExit(f"phone {index}: the join answered {response.status} {answer}")
    return {"loaded_s": round(loaded, 2), "seated_s": round(time.monotonic() - begun, 2),
            "requests": len(assets) + 1, "bytes": wire[0]}


def phones(count: int, port: int = 80) -> dict[str, Any]:
    """``count`` phones opening the phone page at the same moment, each to a seat."""
    start = threading.Event()
    names = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        futures = [pool.submit(one_phone, i, names[i % len(names)] + str(i), start, port)
                   for i in range(count)]
        time.sleep(0.5)
        start.set()
        found = [future.result() for future in futures]
    return {"phones": found}


def memory(units: list[str]) -> dict[str, Any]:
    info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    found: dict[str, Any] = {key: round(int(info[key].split()[0]) / 1024, 1)
                             for key in ("MemTotal", "MemAvailable")}
    found["used"] = round(found["MemTotal"] - found["MemAvailable"], 1)
    for unit in units:
        current = run("systemctl", "show", "-P", "MemoryCurrent", unit).strip()
        found[unit] = round(int(current) / 2**20, 1) if current.isdigit() else None
    return found


def main(argv: list[str]) -> int:
    what, args = argv[0], argv[1:]
    if what == "manifest":
        result: Any = manifest()
    elif what == "processes":
        result = processes(args[0])
    elif what == "phone-join":
        result = phone_join(args[0], args[1] if len(args) > 1 else None)
    elif what == "phone-lease":
        result = phone_lease()
    elif what == "resolve":
        result = resolve(args[0])
    elif what == "check":
        result = check(args[0], args[1])
    elif what == "http":
        result = http(args[0], args[1], args[2] if len(args) > 2 else None,
                      args[3] if len(args) > 3 else None)
    elif what == "mdns":
        result = mdns(args[0])
    elif what == "streams":
        result = streams(int(args[0]), float(args[1]))
    elif what == "memory":
        result = memory(args)
    elif what == "phones":
        result = phones(int(args[0]), int(args[1]) if len(args) > 1 else 80)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
