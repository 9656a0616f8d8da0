#!/usr/bin/env bash
# Sets up Kalimambo, from a fresh clone to a working table. Safe to run again at any time.
#   ./setup.sh            a .venv at the repository root with Kalimambo installed (any Linux)
#   ./setup.sh --dev      also the test tools, shellcheck, poppler-utils, librsvg2-bin and
#                         Debian's chromium (and, on Python 3.12+, lgpio built from its
#                         source: swig, gcc)
#   sudo ./setup.sh       on Raspberry Pi OS also: system packages, the LED strip driver,
#                         /etc/kalimambo/board.toml, the two services (kalimambo: the table,
#                         kalimambo-lights: strip, buttons, buzzer), kalimambo.local
# See ./setup.sh --help. Every change to the system goes through run/install_file/... below,
# so --dry-run can list each one and make none.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: ./setup.sh [OPTIONS]

Any Linux machine:
  (no option)          create .venv at the repository root and install Kalimambo into it;
                       then '.venv/bin/kalimambo' runs the table (simulated strip off a Pi)
  --dev                also the test tools (pytest, playwright, ruff, mypy...), and through
                       apt when root: Debian's chromium (browser tests), shellcheck,
                       poppler-utils and librsvg2-bin (the wiring diagram's test);
                       where PyPI has no lgpio wheel for this Python (3.12 and newer), lgpio
                       is built from its source (apt when root: swig, gcc, python3-dev) and
                       kept in ~/.cache/kalimambo/wheels

Raspberry Pi OS (found from /proc/device-tree/model; run with sudo), instead of .venv:
                       system packages (python3-venv, python3-lgpio, avahi-daemon), the
                       strip driver (rpi-ws281x on a Pi 2-4 / Zero 2 W, the ws2812-pio
                       overlay on a Pi 5), the board file /etc/kalimambo/board.toml (kept if
                       it exists), data in /var/lib/kalimambo, kalimambo.service (the table
                       on port 80, as the user kalimambo), kalimambo-lights.service (strip,
                       buttons, buzzer), and the name kalimambo.local on the network.
                       Pi 1, Zero and Zero W (armv6l) are refused: no strip driver builds there
  --hotspot NAME       convention mode: the Pi becomes a Wi-Fi access point called NAME;
                       phones join it and open http://10.42.0.1 (no venue Wi-Fi needed)
  --hotspot-password P a WPA2 password for the hotspot (8 to 63 characters; default: open)
  --country CC         set the Wi-Fi country (two letters, e.g. GB, DE, US) with raspi-config,
                       with or without --hotspot: the Pi's Wi-Fi stays off until one is set
  --no-hotspot         remove the hotspot; the Pi joins ordinary Wi-Fi again
  --hotspot-channel N  the hotspot's Wi-Fi channel, 1 to 13 (default: NetworkManager's choice)
  --hostname NAME      the network name (default kalimambo: http://kalimambo.local)
  --port N             the service's port (default 80)

Any Linux machine, as root, to make SD cards for several tables (docs/IMAGE.md):
  --image BASE OUT     make OUT.img, a card image with the table installed, from BASE, the
                       Raspberry Pi OS Lite (64-bit) image Raspberry Pi Imager downloads
                       (.img or .img.xz; Bookworm or Trixie); each card flashed with it
                       becomes its own table at its first boot, with no network needed

Anywhere:
  --dry-run            print every change to the system that would be made, and make none
  --uninstall          remove what setup.sh added (service, user, overlay, hotspot...);
                       keeps the board file and saved games
  --purge              with --uninstall: also delete /etc/kalimambo and /var/lib/kalimambo
  --help               show this help

KALIMAMBO_ROOT=DIR (with --dry-run only) reads /proc, /etc, /boot under DIR instead: for tests.
KALIMAMBO_AT_BOOT=1 (set by the card's boot service) asks systemd to restart the table
                       without waiting for it: that service runs before the table starts.
KALIMAMBO_APT_LOCK_TIMEOUT=SECONDS how long apt-get waits for another package manager to
                       let go of apt's and dpkg's locks (default 300): shorter for tests.
USAGE
}

die() { echo "setup.sh: $*" >&2; exit 2; }

DEV=0 DRY=0 UNINSTALL=0 PURGE=0 NO_HOTSPOT=0
HOTSPOT="" HOTSPOT_PASSWORD="" HOTSPOT_CHANNEL="" COUNTRY="" HOSTNAME_WANTED="kalimambo" PORT=80
IMAGE_BASE="" IMAGE_OUT=""
need_value() {
    if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see ./setup.sh --help)"; fi
}
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) DEV=1 ;;
        --dry-run) DRY=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        --no-hotspot) NO_HOTSPOT=1 ;;
        --hotspot) need_value "$@"; HOTSPOT="$2"; shift ;;
        --hotspot-password) need_value "$@"; HOTSPOT_PASSWORD="$2"; shift ;;
        --hotspot-channel) need_value "$@"; HOTSPOT_CHANNEL="$2"; shift ;;
        --image)
            if [ $# -lt 3 ] || [ -z "$2" ] || [ -z "$3" ]; then
                die "--image needs the base image and the image to write: --image BASE.img OUT.img"
            fi
            IMAGE_BASE="$2"; IMAGE_OUT="$3"; shift 2 ;;
        --country) need_value "$@"; COUNTRY="$2"; shift ;;
        --hostname) need_value "$@"; HOSTNAME_WANTED="$2"; shift ;;
        --port) need_value "$@"; PORT="$2"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option '$1' (see ./setup.sh --help)" ;;
    esac
    shift
done

# Check every option before changing anything.
[ "$PURGE" = 0 ] || [ "$UNINSTALL" = 1 ] || die "--purge only goes with --uninstall"
[ -z "$HOTSPOT" ] || [ "$NO_HOTSPOT" = 0 ] || die "--hotspot and --no-hotspot contradict each other"
if [ -n "$HOTSPOT" ]; then
    [ "${#HOTSPOT}" -le 32 ] || die "the hotspot name '$HOTSPOT' is too long (32 characters at most)"
fi
if [ -n "$HOTSPOT_PASSWORD" ]; then
    [ -n "$HOTSPOT" ] || die "--hotspot-password goes with --hotspot NAME"
    if [ "${#HOTSPOT_PASSWORD}" -lt 8 ] || [ "${#HOTSPOT_PASSWORD}" -gt 63 ]; then
        die "a Wi-Fi password has 8 to 63 characters"
    fi
fi
if [ -n "$HOTSPOT_CHANNEL" ]; then
    [ -n "$HOTSPOT" ] || die "--hotspot-channel goes with --hotspot NAME"
    if ! [[ "$HOTSPOT_CHANNEL" =~ ^[0-9]{1,2}$ ]] || [ "$HOTSPOT_CHANNEL" -lt 1 ] \
            || [ "$HOTSPOT_CHANNEL" -gt 13 ]; then
        die "--hotspot-channel takes a 2.4 GHz channel from 1 to 13, not '$HOTSPOT_CHANNEL'"
    fi
fi
[ -z "$COUNTRY" ] || [[ "$COUNTRY" =~ ^[A-Z]{2}$ ]] \
    || die "--country takes a two-letter country code in capitals, like GB or DE, not '$COUNTRY'"
[[ "$HOSTNAME_WANTED" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] \
    || die "'$HOSTNAME_WANTED' is not a usable host name (small letters, digits and dashes)"
if ! [[ "$PORT" =~ ^[0-9]{1,5}$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
    die "--port takes a port number from 1 to 65535, not '$PORT'"
fi

ROOT="${KALIMAMBO_ROOT:-}"
ROOT="${ROOT%/}"
[ -z "$ROOT" ] || [ "$DRY" = 1 ] || die "KALIMAMBO_ROOT is for tests and only works with --dry-run"

REPO="$(cd "$(dirname "$0")" && pwd)"
cd "$REPO"
PYTHON="${PYTHON:-python3}"
HELPER="$REPO/deploy/install_helper.py"

# Where things go on the Pi (real paths; under $ROOT when testing).
OPT_DIR=/opt/kalimambo
SERVICE_VENV=$OPT_DIR/venv
ETC_DIR=/etc/kalimambo
BOARD_FILE=$ETC_DIR/board.toml
STATE_FILE=$ETC_DIR/setup-state
DATA_DIR=/var/lib/kalimambo
UNIT_FILE=/etc/systemd/system/kalimambo.service
LIGHTS_UNIT_FILE=/etc/systemd/system/kalimambo-lights.service
RUN_DIRS=(/run/kalimambo /run/kalimambo-lights)
UDEV_FILE=/etc/udev/rules.d/99-kalimambo-leds.rules
AUDIO_FILE=/etc/modprobe.d/kalimambo-no-analog-audio.conf
CMD_LINK=/usr/local/bin/kalimambo
HOTSPOT_CON=kalimambo-hotspot
HOTSPOT_FILE=/etc/NetworkManager/system-connections/$HOTSPOT_CON.nmconnection
HOTSPOT_ADDRESS=10.42.0.1
HOTSPOT_INFO=$ETC_DIR/hotspot.toml
PORTAL_DIR=/var/lib/kalimambo-portal
DNS_DROPIN=/etc/NetworkManager/dnsmasq-shared.d/kalimambo-portal.conf
NAT_DISPATCHER=/etc/NetworkManager/dispatcher.d/90-kalimambo-hotspot-nat
NAT_MODULES=/etc/modules-load.d/kalimambo-hotspot.conf
SERVICE_USER=kalimambo

at() { printf '%s%s' "$ROOT" "$1"; }
IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1
# At boot (kalimambo-card.service, ordered before the table) a restart of the table is
# queued, not waited for: waiting would wait for that service itself.
NO_BLOCK=()
[ "${KALIMAMBO_AT_BOOT:-}" = 1 ] && NO_BLOCK=(--no-block)
REBOOT=0

# ---- how changes are made (or, with --dry-run, listed) ----------------------------------

say() { printf '%s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }

# One shell word, quoted only when it needs it, so the listed commands read naturally;
# the hotspot password is never printed.
word() {
    if [ -n "$HOTSPOT_PASSWORD" ] && [ "$1" = "$HOTSPOT_PASSWORD" ]; then
        printf "'********'"
        return
    fi
    case "$1" in
        *[!A-Za-z0-9_./:=,@%+-]*|'') printf "'%s'" "${1//\'/\'\\\'\'}" ;;
        *) printf '%s' "$1" ;;
    esac
}
show() {
    local out="" arg
    for arg in "$@"; do out="$out $(word "$arg")"; done
    printf '%s' "${out# }"
}

run() {
    if [ "$DRY" = 1 ]; then
        say "   would run: $(show "$@")"
    else
        say "   + $(show "$@")"
        "$@"
    fi
}

# run, but as the owner of the checkout when root (sudo ./setup.sh must not leave a
# root-owned .venv in someone's home).
OWNER="$(stat -c %U "$REPO")"
as_owner() {
    if [ "$IS_ROOT" = 1 ] && [ "$OWNER" != root ] && [ "$OWNER" != UNKNOWN ]; then
        runuser -u "$OWNER" -- env HOME="$(getent passwd "$OWNER" | cut -d: -f6)" "$@"
    else
        "$@"
    fi
}
run_as_owner() {
    if [ "$IS_ROOT" = 1 ] && [ "$OWNER" != root ] && [ "$OWNER" != UNKNOWN ]; then
        run runuser -u "$OWNER" -- env HOME="$(getent passwd "$OWNER" | cut -d: -f6)" "$@"
    else
        run "$@"
    fi
}

# install_file SRC DEST MODE [LABEL]: copy unless DEST already holds exactly that.
install_file() {
    local src="$1" dest="$2" mode="$3" label="${4:-${1#"$REPO"/}}"
    if [ -f "$(at "$dest")" ] && cmp -s "$src" "$(at "$dest")"; then
        say "   unchanged: $dest"
        return 1
    fi
    if [ "$DRY" = 1 ]; then
        say "   would install $dest (mode $mode) from $label:"
        sed 's/^/   |  /' "$src"
    else
        say "   + install -m $mode $label $dest"
        install -D -m "$mode" "$src" "$dest"
    fi
}

# remove_path PATH...: delete what exists; say so.
remove_path() {
    local path
    for path in "$@"; do
        if [ -e "$(at "$path")" ] || [ -L "$(at "$path")" ]; then
            run rm -rf "$path"
        fi
    done
}

dry_flag() { if [ "$DRY" = 1 ]; then printf -- '--dry-run'; fi; }
would() { if [ "$DRY" = 1 ]; then printf 'would '; fi; }

helper() {
    # shellcheck disable=SC2046  # dry_flag gives one word or none
    "$PYTHON" "$HELPER" "$@" $(dry_flag)
}

# ---- what machine this is ----------------------------------------------------------------

# The same file on a Pi; the second is where an emulated root can fake it (tests/pi/).
MODEL=""
for model_file in /proc/device-tree/model /sys/firmware/devicetree/base/model; do
    if [ -r "$(at $model_file)" ]; then
        MODEL="$(tr -d '\0' < "$(at $model_file)")"
        break
    fi
done
case "$MODEL" in
    "Raspberry Pi 5"*|"Raspberry Pi Compute Module 5"*) PI=5 ;;   # also the Pi 500
    # Pi 1 (Model A/B/A+/B+), Zero, Zero W, Compute Module 1: the ARMv6 ones.
    "Raspberry Pi Model "*|"Raspberry Pi Zero Rev"*|"Raspberry Pi Zero W"*|"Raspberry Pi Compute Module Rev"*)
        PI=1 ;;
    "Raspberry Pi"*) PI=4 ;;   # Pi 2 to 4, Zero 2 W, 400, CM 3-4: rpi-ws281x works
    *) PI=0 ;;
esac

CONFIG_TXT=/boot/firmware/config.txt   # Bookworm and later; Bullseye had /boot/config.txt
if [ ! -e "$(at $CONFIG_TXT)" ] && [ -e "$(at /boot/config.txt)" ]; then
    CONFIG_TXT=/boot/config.txt
fi

# in_group USER GROUP: is USER a member of GROUP in /etc/group?
in_group() {
    local line
    line="$(grep -E "^$2:" "$(at /etc/group)" 2>/dev/null || true)"
    [ -n "$line" ] && [[ ",${line##*:}," == *",$1,"* ]]
}
group_exists() { grep -qE "^$1:" "$(at /etc/group)" 2>/dev/null; }
user_exists() { grep -qE "^$1:" "$(at /etc/passwd)" 2>/dev/null; }
deb_installed() {
    dpkg-query --admindir="$(at /var/lib/dpkg)" -W -f='${Status}' "$1" 2>/dev/null \
        | grep -q 'install ok installed'
}

# ---- steps -------------------------------------------------------------------------------

# apt_install PKG...: install those not yet installed (apt-get update first, once).
apt_install() {
    local missing=() pkg
    for pkg in "$@"; do deb_installed "$pkg" || missing+=("$pkg"); done
    if [ "${#missing[@]}" = 0 ]; then
        say "   already installed: $*"
        return
    fi
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}"
}

# apt_get COMMAND ARGS...: apt-get COMMAND ARGS, listed (with --dry-run, only listed), its
# output shown only if it fails, and patient with another package manager.
# Right after a Pi's first boot the system's own updates (apt-daily, unattended-upgrades)
# often hold apt's or dpkg's lock for minutes, and apt-get alone stops at once ("Could not
# get lock /var/lib/dpkg/lock-frontend"). dpkg's locks are waited for by apt-get itself
# (DPkg::Lock::Timeout); the package lists' lock, which 'apt-get update' does not wait
# for, by trying again. After 5 minutes it stops with a sentence naming the holder.
apt_get() {
    local limit="${KALIMAMBO_APT_LOCK_TIMEOUT:-300}" start="$SECONDS" left holder log waiting
    local locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/cache/apt/archives/lock)
    [[ "$limit" =~ ^[0-9]+$ ]] \
        || die "KALIMAMBO_APT_LOCK_TIMEOUT is a number of seconds, not '$limit'"
    [ "$1" = update ] && locks=(/var/lib/apt/lists/lock)
    waiting="   waiting for another package manager to finish (up to $(duration "$limit"))"
    # (the option after COMMAND, so that the listed line reads 'apt-get install ...')
    local words=(env DEBIAN_FRONTEND=noninteractive apt-get "$1" -o "DPkg::Lock::Timeout=$limit"
        "${@:2}")
    if [ "$DRY" = 1 ]; then run "${words[@]}"; return; fi
    holder="$(lock_holder "${locks[@]}")"
    [ -z "$holder" ] || say "$waiting: $holder"
    say "   + $(show "${words[@]}")"
    log="$(mktemp)"
    until "${words[@]}" > "$log" 2>&1; do
        if ! grep -q -e 'Could not get lock' -e 'Unable to acquire the dpkg' -e 'Unable to lock' \
                "$log"; then
            tail -n 30 "$log" >&2
            rm -f "$log"
            die "'$(show "${words[@]}")' failed (its last lines are above)"
        fi
        left=$((limit - (SECONDS - start)))
        if [ "$left" -le 0 ]; then
            rm -f "$log"
            holder="$(lock_holder "${locks[@]}")"
            [ -n "$holder" ] || holder="it holds apt's or dpkg's lock"
            die "another package manager is still at work after $(duration "$limit"):" \
                "$holder. Let it finish (after a first boot the system's own updates can" \
                "take a while), then run setup.sh again."
        fi
        if [ -z "$holder" ]; then   # (taken after the look above, or not seen in /proc/locks)
            holder="$(lock_holder "${locks[@]}")"
            say "$waiting${holder:+: $holder}"
            holder="${holder:-?}"
        fi
        sleep 1
        words[5]="DPkg::Lock::Timeout=$left"
    done
    rm -f "$log"
}

# lock_holder FILE...: "process PID (NAME) holds FILE" for the first FILE another process
# holds a lock on (apt and dpkg take fcntl locks: /proc/locks lists them), or nothing.
lock_holder() {
    local file id pid name
    for file in "$@"; do
        id="$(stat -L -c '%Hd %Ld %i' "$file" 2>/dev/null)" || continue
        # shellcheck disable=SC2086  # major, minor, inode: /proc/locks writes 'fe:00:1234'
        id="$(printf '%02x:%02x:%s' $id)"
        pid="$(awk -v id="$id" '$2 != "->" && $6 == id { print $5; exit }' /proc/locks \
            2>/dev/null)" || true
        [ -n "$pid" ] || continue
        if [[ "$pid" =~ ^[1-9][0-9]*$ ]]; then
            name="$(cat "/proc/$pid/comm" 2>/dev/null)" || true
            printf 'process %s%s holds %s' "$pid" "${name:+ ($name)}" "$file"
        else
            printf 'a process holds %s' "$file"
        fi
        return 0
    done
    return 0
}

# duration SECONDS: "5 minutes", "1 minute", "90 seconds".
duration() {
    if [ "$1" -ge 60 ] && [ $(($1 % 60)) = 0 ]; then
        if [ "$1" = 60 ]; then printf '1 minute'; else printf '%s minutes' $(($1 / 60)); fi
    elif [ "$1" = 1 ]; then printf '1 second'
    else printf '%s seconds' "$1"; fi
}

repo_venv() {
    local extras="$1" flags=()
    step "Python environment: $REPO/.venv"
    [ "$PI" = 0 ] || flags=(--system-site-packages)   # sees apt's python3-lgpio
    if [ ! -x .venv/bin/python ]; then
        run_as_owner "$PYTHON" -m venv "${flags[@]}" .venv
    else
        say "   exists: .venv"
    fi
    # The install is editable, so new code needs no reinstall; only new dependencies do.
    # A stamp of what was installed (pyproject.toml, the extras, the Python) lets a second
    # run skip pip, which takes minutes on a Pi Zero 2 W and needs the network.
    local stamp
    stamp="$(cat pyproject.toml - <<< "$extras $(.venv/bin/python -V 2>&1)" | sha256sum | cut -c1-16)"
    # (Not with KALIMAMBO_ROOT: the tests' dry runs show the whole install.)
    if [ -z "$ROOT" ] && [ "$(cat .venv/.kalimambo-installed 2>/dev/null)" = "$stamp" ] \
            && .venv/bin/python -c 'import kalimambo' 2>/dev/null; then
        say "   unchanged: Kalimambo$extras is installed in .venv as pyproject.toml asks"
        return 0
    fi
    run_as_owner .venv/bin/python -m pip install --quiet --upgrade pip
    [ "$extras" = "[dev]" ] && dev_lgpio
    run_as_owner .venv/bin/python -m pip install --quiet -e ".$extras"
    [ "$DRY" = 1 ] || as_owner sh -c "printf '%s\\n' '$stamp' > .venv/.kalimambo-installed"
}

# The dev extra's lgpio (Linux x86_64 and aarch64, as its marker in pyproject.toml says).
# PyPI has lgpio wheels only up to Python 3.11; for newer ones deploy/build_lgpio.py builds
# one from lgpio's own source with gcc and swig, once per machine (kept in
# ~/.cache/kalimambo/wheels), and installs it before pip would try the sdist and fail.
dev_lgpio() {
    local builder=(.venv/bin/python deploy/build_lgpio.py) missing
    [ "$(uname -s)" = Linux ] || return 0
    case "$(uname -m)" in x86_64|aarch64) ;; *) return 0 ;; esac
    if [ "$DRY" = 0 ] && .venv/bin/python -c 'import importlib.util, sys
sys.exit(importlib.util.find_spec("lgpio") is None)'; then
        say "   lgpio: already in .venv"
        return
    fi
    if [ "$DRY" = 0 ]; then
        missing="$(as_owner "${builder[@]}" --missing-tools)" \
            || die "deploy/build_lgpio.py --missing-tools failed (see above)"
        if [ -n "$missing" ]; then
            say "   lgpio has no wheel for this Python: it is built from its source, which needs $missing"
            if [ "$IS_ROOT" = 1 ] && command -v apt-get >/dev/null 2>&1; then
                # shellcheck disable=SC2086  # one package name a word
                apt_install $missing
            else
                die "lgpio (a dev dependency) has no wheel for $(.venv/bin/python -V) and is" \
                    "built from its source here, which needs Debian's $missing: run" \
                    "'sudo apt-get install $missing' (or 'sudo ./setup.sh --dev'), then ./setup.sh --dev again"
            fi
        fi
    fi
    run_as_owner "${builder[@]}" --install
}

dev_tools() {
    local missing=() pair
    # command:package (pdftoppm comes in poppler-utils: the score sheet's A4 test;
    # rsvg-convert in librsvg2-bin: the wiring diagram drawn by librsvg and by chromium;
    # WebKitWebDriver in webkit2gtk-driver, which brings WebKitGTK's MiniBrowser, and
    # Xvfb in xvfb: the WebKit browser tests; node and npm: the JavaScript type check;
    # zbarimg in zbar-tools: the Wi-Fi QR code read back; mtools, dosfstools, fdisk and
    # e2fsprogs: the small disk images that setup.sh --image must refuse or clean up after)
    for pair in chromium:chromium rsvg-convert:librsvg2-bin shellcheck:shellcheck \
            pdftoppm:poppler-utils WebKitWebDriver:webkit2gtk-driver Xvfb:xvfb node:nodejs \
            npm:npm zbarimg:zbar-tools mcopy:mtools mkfs.fat:dosfstools sfdisk:fdisk \
            mkfs.ext4:e2fsprogs; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    if [ "${#missing[@]}" != 0 ]; then
        step "Test tools from Debian: ${missing[*]}"
        if [ "$IS_ROOT" = 1 ] && command -v apt-get >/dev/null 2>&1; then
            apt_get update -qq
            apt_get install -y -qq "${missing[@]}"
        else
            echo "setup.sh: the browser, shell and JavaScript tests need Debian's ${missing[*]}:" \
                 "run 'sudo apt-get install ${missing[*]}'" >&2
        fi
    fi
    js_checker
}

# js_checker: TypeScript's checker, the version package-lock.json pins, into node_modules/
# (tests/project/test_js_check.py runs it offline over web/static). Skipped when the lock file's
# fingerprint matches the last install's.
js_checker() {
    local stamp
    if ! command -v npm >/dev/null 2>&1; then
        echo "setup.sh: the JavaScript check (tests/project/test_js_check.py) needs node and npm:" \
             "run 'sudo apt-get install nodejs npm', then './setup.sh --dev' again" >&2
        return 0
    fi
    step "JavaScript checker: npm ci (TypeScript, as package-lock.json pins it)"
    stamp="$(sha256sum < package-lock.json | cut -c1-16)"
    if [ "$(cat node_modules/.kalimambo-installed 2>/dev/null)" = "$stamp" ] \
            && [ -x node_modules/.bin/tsc ]; then
        say "   unchanged: node_modules holds what package-lock.json asks"
        return 0
    fi
    run_as_owner npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    [ "$DRY" = 1 ] || as_owner sh -c "printf '%s\\n' '$stamp' > node_modules/.kalimambo-installed"
}

# Read the board file setup.sh will use: the one in /etc/kalimambo, else the example.
EXAMPLE="" BACKEND="" GPIO="" LED_COUNT="" STRIP_TYPE="" LIGHTS_AS_ROOT=0 OVERLAY=""
read_board() {
    local source key value info
    if [ "$PI" = 5 ]; then EXAMPLE="$REPO/hardware/boards/pi5-pio-2led.toml"
    else EXAMPLE="$REPO/hardware/boards/pi4-gpio18.toml"; fi
    source="$EXAMPLE"
    [ -f "$(at $BOARD_FILE)" ] && source="$(at $BOARD_FILE)"
    info="$("$PYTHON" "$HELPER" board-info "$source")" || exit 2
    while IFS='=' read -r key value; do
        case "$key" in
            backend) BACKEND="$value" ;;
            gpio) GPIO="$value" ;;
            led_count) LED_COUNT="$value" ;;
            strip_type) STRIP_TYPE="$value" ;;
        esac
    done <<< "$info"
    if [ "$BACKEND" = auto ]; then
        if [ "$PI" = 5 ]; then BACKEND=pio; else BACKEND=ws281x; fi
    fi
    if [ "$PI" = 5 ] && [ "$BACKEND" = ws281x ]; then
        die "$source: strip.backend = \"ws281x\" does not work on a Raspberry Pi 5; use \"pio\" (or \"auto\")"
    fi
    if [ "$PI" = 4 ] && [ "$BACKEND" = pio ]; then
        die "$source: strip.backend = \"pio\" needs a Raspberry Pi 5; use \"ws281x\" (or \"auto\")"
    fi
    # rpi-ws281x needs root for PWM (GPIO 18, 12...) and PCM (21); SPI (GPIO 10) does not.
    if [ "$BACKEND" = ws281x ] && [ "$GPIO" != 10 ]; then LIGHTS_AS_ROOT=1; fi
    if [ "$BACKEND" = pio ]; then
        OVERLAY="dtoverlay=ws2812-pio,gpio=$GPIO,num_leds=$LED_COUNT"
        [ "$STRIP_TYPE" = sk6812w ] && OVERLAY="$OVERLAY,rgbw"
    fi
    say "Board file: ${source#"$ROOT"} (strip backend $BACKEND, GPIO $GPIO, $LED_COUNT LEDs)"
}

pi_packages() {
    local pkgs=(python3-venv python3-lgpio avahi-daemon)
    # PyPI has only source for rpi-ws281x on ARM: pip compiles it.
    [ "$BACKEND" = ws281x ] && pkgs+=(gcc libc6-dev python3-dev)
    step "System packages"
    apt_install "${pkgs[@]}"
}

service_account() {
    local group
    step "Service account: $SERVICE_USER (the table runs as it on every Pi)"
    if ! user_exists "$SERVICE_USER"; then
        run useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
            --shell /usr/sbin/nologin "$SERVICE_USER"
    else
        say "   exists: user $SERVICE_USER"
    fi
    # An earlier set-up put the user in gpio/spi; only the lights service needs those now,
    # and it gets them from its unit (SupplementaryGroups=).
    for group in gpio spi; do
        in_group "$SERVICE_USER" "$group" && run gpasswd -d "$SERVICE_USER" "$group"
    done
    if [ "$LIGHTS_AS_ROOT" = 1 ]; then
        say "   the lights service runs as root: rpi-ws281x drives GPIO $GPIO through /dev/mem"
    else
        for group in gpio spi; do
            [ "$group" = spi ] && [ "$GPIO" != 10 ] && continue
            group_exists "$group" \
                || say "   note: no '$group' group on this system: the strip or buttons may be refused"
        done
    fi
    return 0
}

directories_and_config() {
    step "Board file and data"
    [ -d "$(at $ETC_DIR)" ] || run install -d -m 0755 "$ETC_DIR"
    if [ -f "$(at $BOARD_FILE)" ]; then
        say "   kept: $BOARD_FILE (yours; setup.sh never overwrites it)"
    else
        run install -m 0644 "$EXAMPLE" "$BOARD_FILE"
    fi
    if [ -d "$(at $DATA_DIR)" ]; then
        say "   exists: $DATA_DIR (saved games; systemd keeps it owned by $SERVICE_USER)"
    else
        run install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$DATA_DIR"
    fi
}

service_venv() {
    local target="$OPT_DIR/src"
    # rpi-ws281x on a Pi 2-4 (the [pi] extra); lgpio comes from apt's python3-lgpio.
    [ "$BACKEND" = ws281x ] && target="$OPT_DIR/src[pi]"
    step "The services' own copy of Kalimambo: $SERVICE_VENV"
    [ "$BACKEND" = ws281x ] && say "   with rpi-ws281x for the strip on GPIO $GPIO"
    local fresh=0
    if [ -x "$(at $SERVICE_VENV/bin/python)" ]; then
        say "   exists: $SERVICE_VENV"
    else
        run "$PYTHON" -m venv --system-site-packages "$SERVICE_VENV"
        fresh=1
    fi
    # The service user cannot read a checkout in a private home, so it gets its own copy,
    # owned by root (built there, so no root-owned build files land in the checkout); run
    # ./setup.sh again after 'git pull' to update it.
    if copy_source || [ "$fresh" = 1 ] || [ ! -x "$(at $SERVICE_VENV/bin/kalimambo)" ]; then
        # Debian's pip 23 builds rpi-ws281x the deprecated way (setup.py install).
        run "$SERVICE_VENV/bin/python" -m pip install --quiet --root-user-action=ignore \
            --upgrade pip
        if ! run "$SERVICE_VENV/bin/python" -m pip install --quiet --root-user-action=ignore \
                "$target"; then
            rm -rf "$OPT_DIR/src"   # so the next run copies and installs again
            die "pip could not install Kalimambo into $SERVICE_VENV (see above); run ./setup.sh again"
        fi
    else
        say "   unchanged: $OPT_DIR/src and what is installed from it"
    fi
    if [ "$(readlink "$(at $CMD_LINK)" 2>/dev/null)" = "$SERVICE_VENV/bin/kalimambo" ]; then
        say "   unchanged: $CMD_LINK"
    else
        run ln -sfn "$SERVICE_VENV/bin/kalimambo" "$CMD_LINK"
    fi
}

# copy_source: the project, without .git, .venv, tests and what running it leaves behind,
# to $OPT_DIR/src, owned by root. Fails (status 1) when that copy is already the same.
COPY_EXCLUDES=(--exclude=./.git --exclude=./.venv --exclude=./tests --exclude=./build
    --exclude=./data --exclude='*.egg-info' --exclude=__pycache__ --exclude='.lgd-nfy*'
    --exclude=.gunicorn --exclude=.pytest_cache --exclude=.mypy_cache --exclude=.ruff_cache
    --exclude=.hypothesis --exclude=./node_modules)
copy_source() {
    local stage
    stage="$(mktemp -d)"
    tar -C "$REPO" "${COPY_EXCLUDES[@]}" --owner=0 --group=0 -cf - . \
        | tar -C "$stage" --no-same-owner -xf -
    chmod 0755 "$stage"
    if [ -d "$(at $OPT_DIR/src)" ] \
            && diff -r -q -x build -x '*.egg-info' -x __pycache__ "$stage" "$(at $OPT_DIR/src)" \
                >/dev/null 2>&1 \
            && [ -z "$(find "$(at $OPT_DIR/src)" ! -user root -print -quit 2>/dev/null)" ]; then
        rm -rf "$stage"
        return 1
    fi
    if [ "$DRY" = 1 ]; then
        say "   would copy $REPO (without .git, .venv, tests) to $OPT_DIR/src, owned by root"
        rm -rf "$stage"
        return 0
    fi
    say "   + copy $REPO (without .git, .venv, tests) to $OPT_DIR/src, owned by root"
    rm -rf "$OPT_DIR/src"
    mkdir -p "$OPT_DIR"
    mv "$stage" "$OPT_DIR/src"
    return 0
}

strip_driver() {
    local result
    step "LED strip driver ($BACKEND on GPIO $GPIO)"
    if [ "$BACKEND" = pio ]; then
        if [ ! -e "$(at "$(dirname "$CONFIG_TXT")/overlays/ws2812-pio.dtbo")" ]; then
            say "   warning: $(dirname "$CONFIG_TXT")/overlays/ws2812-pio.dtbo is missing: this kernel"
            say "   predates the Pi 5 strip driver; run 'sudo apt update && sudo apt full-upgrade'"
        fi
        install_file "$REPO/deploy/99-kalimambo-leds.rules" "$UDEV_FILE" 0644 \
            && run udevadm control --reload-rules
        result="$(helper config-block "$(at "$CONFIG_TXT")" "$OVERLAY")" || exit 2
    elif [ "$BACKEND" = ws281x ] && [ "$GPIO" = 10 ]; then
        spi_lines
        result="$(helper config-block "$(at "$CONFIG_TXT")" "${SPI_LINES[@]}")" || exit 2
    else
        result="$(helper config-block "$(at "$CONFIG_TXT")")" || exit 2
    fi
    if [ -n "$OVERLAY" ]; then report_config "$result" "$OVERLAY"
    else report_config "$result" "${SPI_LINES[@]}"; fi
    # rpi-ws281x's PWM (GPIO 12 and 18: PWM0; 13 and 19: PWM1) is the analog audio's PWM.
    if [ "$BACKEND" = ws281x ] && [[ " 12 13 18 19 " == *" $GPIO "* ]]; then
        install_file "$REPO/deploy/kalimambo-no-analog-audio.conf" "$AUDIO_FILE" 0644 \
            && REBOOT=1
    else
        remove_path "$AUDIO_FILE"
    fi
    return 0
}

# spi_lines: config.txt's lines for rpi-ws281x on SPI (GPIO 10) into SPI_LINES: SPI on, and
# a core clock that stays put, since the SPI clock is divided from it (rpi-ws281x's README:
# core_freq=250 on a Pi 3, core_freq=500 and core_freq_min=500 on a Pi 4). The Zero 2 W is
# a Pi 3 inside; a Pi 2 runs at 250 already.
SPI_LINES=()
spi_lines() {
    SPI_LINES=(dtparam=spi=on)
    case "$MODEL" in
        "Raspberry Pi 4"*|"Raspberry Pi Compute Module 4"*)   # also the Pi 400
            SPI_LINES+=(core_freq=500 core_freq_min=500) ;;
        *) SPI_LINES+=(core_freq=250) ;;
    esac
}

# report_config RESULT LINE...: say what config_block did (or would do) to config.txt.
report_config() {
    local verb="${1%%;*}" rest=""
    [ "$1" = "$verb" ] || rest="${1#*; }"
    shift
    case "$verb" in
        add) say "   $(would)append to $CONFIG_TXT:"; print_block "$@"; REBOOT=1 ;;
        replace) say "   $(would)replace setup.sh's block in $CONFIG_TXT with:"; print_block "$@"
                 REBOOT=1 ;;
        remove) say "   $(would)remove setup.sh's block from $CONFIG_TXT"; REBOOT=1 ;;
        unchanged) say "   unchanged: $CONFIG_TXT already has $*" ;;
        absent) ;;
    esac
    [ -z "$rest" ] || say "   $rest"
}
print_block() {
    local line
    say "   |  # >>> kalimambo: added by setup.sh; './setup.sh --uninstall' removes this block"
    say "   |  [all]"
    for line in "$@"; do say "   |  $line"; done
    say "   |  # <<< kalimambo"
}

# unit TEMPLATE DEST KEY=VALUE...: render a unit; install it if it differs. Status 0: changed.
unit() {
    local template="$1" dest="$2" rendered
    shift 2
    rendered="$(mktemp)"
    "$PYTHON" "$HELPER" render "$REPO/deploy/$template" "REPO=$REPO" "VENV=$SERVICE_VENV" \
        "CONFIG=$BOARD_FILE" "$@" > "$rendered" || { rm -f "$rendered"; exit 2; }
    if install_file "$rendered" "$dest" 0644 "deploy/$template"; then
        rm -f "$rendered"
        return 0
    fi
    rm -f "$rendered"
    return 1
}

systemd_units() {
    local caps="" lights_user="$SERVICE_USER" groups="gpio" caps_lights="" why changed=0
    [ "$PORT" -lt 1024 ] && caps=CAP_NET_BIND_SERVICE
    [ "$GPIO" = 10 ] && groups="gpio spi"
    why="runs as $SERVICE_USER: the Pi 5 strip (/dev/leds0) and the pins only need group gpio"
    if [ "$LIGHTS_AS_ROOT" = 1 ]; then
        # rpi-ws281x maps /dev/mem (CAP_SYS_RAWIO); group kalimambo opens the table's socket.
        lights_user=root groups="$SERVICE_USER" caps_lights=CAP_SYS_RAWIO
        why="runs as root: rpi-ws281x drives GPIO $GPIO through /dev/mem (CAP_SYS_RAWIO only)"
    elif [ "$BACKEND" = ws281x ]; then
        why="runs as $SERVICE_USER: rpi-ws281x on GPIO 10 uses SPI (groups gpio and spi)"
    fi
    step "Services: kalimambo.service (as $SERVICE_USER, port $PORT), kalimambo-lights.service (as $lights_user)"
    unit kalimambo.service.in "$UNIT_FILE" "PORT=$PORT" "CAPS=$caps" && changed=1
    unit kalimambo-lights.service.in "$LIGHTS_UNIT_FILE" "USER=$lights_user" "GROUPS=$groups" \
        "CAPS=$caps_lights" "WHY=$why" && changed=1
    [ "$changed" = 0 ] || run systemctl daemon-reload
    run systemctl enable kalimambo.service kalimambo-lights.service
    run systemctl "${NO_BLOCK[@]}" restart kalimambo.service kalimambo-lights.service
}

network_name() {
    local current=""
    step "Network name: $HOSTNAME_WANTED.local"
    run systemctl enable --now avahi-daemon.service
    [ -r "$(at /etc/hostname)" ] && current="$(tr -d '[:space:]' < "$(at /etc/hostname)")"
    if [ "$current" = "$HOSTNAME_WANTED" ]; then
        say "   unchanged: the host name is already $HOSTNAME_WANTED"
    else
        if ! grep -q '^previous_hostname=' "$(at $STATE_FILE)" 2>/dev/null; then
            if [ "$DRY" = 1 ]; then
                say "   would note the old host name '$current' in $STATE_FILE (for --uninstall)"
            else
                printf 'previous_hostname=%s\n' "$current" >> "$STATE_FILE"
            fi
        fi
        run hostnamectl set-hostname "$HOSTNAME_WANTED"
        run systemctl restart avahi-daemon.service   # announce the new name
    fi
    local result
    result="$(helper hosts "$(at /etc/hosts)" "$HOSTNAME_WANTED")" || exit 2
    case "$result" in
        unchanged) ;;
        *) say "   $(would)set /etc/hosts: 127.0.1.1 $HOSTNAME_WANTED" ;;
    esac
}

# hotspot_file: the file that holds the hotspot connection, or nothing. NetworkManager
# says where it keeps it (a keyfile; with netplan integration a YAML file under
# /etc/netplan); without a running NetworkManager (dry runs, a chroot) the keyfile path.
hotspot_file() {
    local file=""
    if [ -z "$ROOT" ] && command -v nmcli >/dev/null 2>&1; then
        file="$(nmcli -g GENERAL.FILENAME connection show "$HOTSPOT_CON" 2>/dev/null || true)"
    fi
    [ -n "$file" ] || file="$HOTSPOT_FILE"
    [ -e "$(at "$file")" ] && printf '%s' "$file"
    return 0
}

# note_state KEY [VALUE]: set (or, without VALUE, drop) KEY=VALUE in $STATE_FILE, which
# only root can read.
note_state() {
    local file
    file="$(at "$STATE_FILE")"
    if [ "$DRY" = 1 ]; then
        say "   would note $1 in $STATE_FILE"
        return
    fi
    [ -n "${2:-}" ] || [ -f "$file" ] || return 0
    install -d -m 0755 "$(dirname "$file")"
    { grep -v "^$1=" "$file" 2>/dev/null || true; [ -z "${2:-}" ] || printf '%s=%s\n' "$1" "$2"; } \
        > "$file.new"
    chmod 0600 "$file.new"
    mv "$file.new" "$file"
}

hotspot() {
    step "Convention hotspot: Wi-Fi '$HOTSPOT' at $HOTSPOT_ADDRESS"
    local settings=(connection.autoconnect yes connection.autoconnect-priority 100
        802-11-wireless.ssid "$HOTSPOT" 802-11-wireless.mode ap 802-11-wireless.band bg
        ipv4.method shared ipv4.addresses "$HOTSPOT_ADDRESS/24" ipv6.method disabled)
    [ -z "$HOTSPOT_CHANNEL" ] || settings+=(802-11-wireless.channel "$HOTSPOT_CHANNEL")
    if [ -n "$HOTSPOT_PASSWORD" ]; then
        # WPA2 only, CCMP, no PMF: what the Pi's Wi-Fi chip and most phones agree on.
        settings+=(wifi-sec.key-mgmt wpa-psk wifi-sec.psk "$HOTSPOT_PASSWORD"
            wifi-sec.proto rsn wifi-sec.pairwise ccmp wifi-sec.group ccmp wifi-sec.pmf disable)
    fi
    # Raspberry Pi OS has these, a trimmed or plain Debian system may not: rfkill to
    # switch the radio on, dnsmasq-base for NetworkManager's shared mode (DHCP and DNS
    # for the phones), wpasupplicant for the access point itself.
    apt_install rfkill dnsmasq-base wpasupplicant
    if [ "$DRY" = 0 ] && ! command -v nmcli >/dev/null 2>&1; then
        die "the hotspot needs NetworkManager (nmcli), which Raspberry Pi OS has since Bookworm; this system has none"
    fi
    [ -z "$COUNTRY" ] || run raspi-config nonint do_wifi_country "$COUNTRY"
    run rfkill unblock wifi
    # A second run with the same settings must change nothing and drop no phone, but
    # NetworkManager rewrites its file on every 'modify' (seen on a booted Pi). So the
    # settings' fingerprint is noted in $STATE_FILE (root only: the password is in it)
    # and the connection is touched only when they differ; an existing one is changed in
    # place (the same connection, the same UUID), never deleted and added again.
    local fingerprint file
    fingerprint="$(printf '%s\n' "${settings[@]}" | sha256sum | cut -c1-32)"
    file="$(hotspot_file)"
    if [ -n "$file" ] && grep -qx "hotspot=$fingerprint" "$(at $STATE_FILE)" 2>/dev/null; then
        say "   unchanged: the hotspot connection $HOTSPOT_CON ($file)"
        if [ "$DRY" = 0 ] && [ "$(nmcli -g GENERAL.STATE connection show "$HOTSPOT_CON" 2>/dev/null)" = activated ] \
                && cmp -s "$REPO/deploy/kalimambo-portal-dnsmasq.conf" "$(at $DNS_DROPIN)" \
                && [ -d "$(at $PORTAL_DIR)" ]; then
            say "   up: the hotspot '$HOTSPOT'"
        else  # down, or its DNS has a new drop-in: dnsmasq reads it as the hotspot comes up
            dns_dropin
            run nmcli connection up "$HOTSPOT_CON"
        fi
    else
        if [ -n "$file" ]; then
            if [ -z "$HOTSPOT_PASSWORD" ] && grep -q -e '^\[wifi-security\]' -e 'key-mgmt' "$(at "$file")"; then
                run nmcli connection modify "$HOTSPOT_CON" remove 802-11-wireless-security
            fi
            run nmcli connection modify "$HOTSPOT_CON" "${settings[@]}"
        else
            run nmcli connection add type wifi ifname wlan0 con-name "$HOTSPOT_CON" "${settings[@]}"
        fi
        note_state hotspot "$fingerprint"
        dns_dropin
        say "   note: bringing the hotspot up drops this Pi's ordinary Wi-Fi (and an SSH session over it)"
        run nmcli connection up "$HOTSPOT_CON"
    fi
    portal_files
    sharing_files
    say "   phones: join '$HOTSPOT', then open http://$HOTSPOT_ADDRESS$( [ "$PORT" = 80 ] || printf ':%s' "$PORT")/"
}

# dns_dropin: the hotspot's dnsmasq also reads the hosts files the table writes in
# $PORTAL_DIR (the phones' connectivity checks; web/system/portaldns.py). The folder must
# exist before dnsmasq starts: it watches only a folder it found.
dns_dropin() {
    [ -d "$(at $PORTAL_DIR)" ] \
        || run install -d -m 0755 -o "$SERVICE_USER" -g "$SERVICE_USER" "$PORTAL_DIR"
    install_file "$REPO/deploy/kalimambo-portal-dnsmasq.conf" "$DNS_DROPIN" 0644 || true
}

# sharing_files: the hotspot shares the Pi's Ethernet through an nft table NetworkManager
# writes as it comes up, with one second for nft: the kernel's parts for it load early in
# the boot, and a dispatcher script brings the hotspot up once more if the table is
# missing all the same (both files say why).
sharing_files() {
    install_file "$REPO/deploy/kalimambo-hotspot-modules.conf" "$NAT_MODULES" 0644 || true
    install_file "$REPO/deploy/kalimambo-hotspot-nat" "$NAT_DISPATCHER" 0755 || true
}

# portal_files: what the table learns of the hotspot (its name and password for the
# board's Wi-Fi QR code, where the DNS drop-in looks), readable by root and the table's
# user only; the table reads it as it starts.
portal_files() {
    local wanted
    wanted="$(mktemp)"
    HOTSPOT_NAME="$HOTSPOT" HOTSPOT_PASS="$HOTSPOT_PASSWORD" "$PYTHON" -c '
import json, os, sys
print("# Written by setup.sh --hotspot for the table (web/system/hotspot.py).")
for key, value in (("name", os.environ["HOTSPOT_NAME"]), ("password", os.environ["HOTSPOT_PASS"]),
                   ("address", sys.argv[1]), ("dns_dir", sys.argv[2])):
    print(f"{key} = {json.dumps(value)}")' "$HOTSPOT_ADDRESS" "$PORTAL_DIR" > "$wanted"
    if [ -f "$(at $HOTSPOT_INFO)" ] && cmp -s "$wanted" "$(at $HOTSPOT_INFO)"; then
        say "   unchanged: $HOTSPOT_INFO"
    elif [ "$DRY" = 1 ]; then
        say "   would write $HOTSPOT_INFO (mode 0640, root:$SERVICE_USER; the password is not shown)"
    else
        say "   + install -m 0640 -o root -g $SERVICE_USER (the hotspot's name and password) $HOTSPOT_INFO"
        install -D -m 0640 -o root -g "$SERVICE_USER" "$wanted" "$HOTSPOT_INFO"
        [ ! -e "$(at $UNIT_FILE)" ] || run systemctl "${NO_BLOCK[@]}" restart kalimambo.service
    fi
    rm -f "$wanted"
}

wifi_country() {
    step "Wi-Fi country: $COUNTRY"
    run raspi-config nonint do_wifi_country "$COUNTRY"
}

remove_hotspot() {
    local table_knew=0
    [ -e "$(at $HOTSPOT_INFO)" ] && table_knew=1
    if [ -n "$(hotspot_file)" ] || [ -e "$(at $HOTSPOT_INFO)" ] || [ -e "$(at $DNS_DROPIN)" ] \
            || [ -e "$(at $PORTAL_DIR)" ] || [ -e "$(at $NAT_DISPATCHER)" ] \
            || [ -e "$(at $NAT_MODULES)" ]; then
        step "Convention hotspot: removed"
        [ -z "$(hotspot_file)" ] || run nmcli connection delete "$HOTSPOT_CON"
        note_state hotspot
        remove_path "$HOTSPOT_INFO" "$DNS_DROPIN" "$PORTAL_DIR" "$NAT_DISPATCHER" "$NAT_MODULES"
        if [ "$table_knew" = 1 ] && [ -e "$(at $UNIT_FILE)" ]; then
            run systemctl "${NO_BLOCK[@]}" try-restart kalimambo.service  # no Wi-Fi code on the board
        fi
    fi
}

uninstall() {
    step "Removing Kalimambo's system set-up"
    local units=() files=() name
    # (-data and -card: a card's, --image; the data partition stays, mounted until a reboot)
    for name in kalimambo-data kalimambo-card kalimambo-lights kalimambo; do
        if [ -e "$(at /etc/systemd/system/$name.service)" ]; then
            units+=("$name.service")
            files+=("/etc/systemd/system/$name.service")
        fi
    done
    if [ "${#units[@]}" != 0 ]; then
        run systemctl disable --now "${units[@]}"
        run rm -f "${files[@]}"
        run systemctl daemon-reload
    fi
    remove_path "${RUN_DIRS[@]}"
    if [ -e "$(at $UDEV_FILE)" ]; then
        run rm -f "$UDEV_FILE"
        run udevadm control --reload-rules
    fi
    remove_path "$AUDIO_FILE" "$CMD_LINK" "$OPT_DIR"
    local result
    result="$(helper config-block "$(at "$CONFIG_TXT")")" || exit 2
    report_config "$result" ""
    remove_hotspot
    # Saved games stay (unless --purge), but nothing may stay owned by a deleted user, and
    # nothing that running left behind (lgpio's pipes, gunicorn's control directory) stays.
    if [ "$PURGE" = 0 ] && [ -d "$(at $DATA_DIR)" ]; then
        local leftovers=()
        mapfile -t leftovers < <(cd "$(at $DATA_DIR)" && \
            find . -maxdepth 1 \( -name '.lgd-nfy*' -o -name .gunicorn \) -printf "$DATA_DIR/%P\n")
        remove_path "${leftovers[@]}"
        user_exists "$SERVICE_USER" && run chown -R root:root "$DATA_DIR"
    fi
    user_exists "$SERVICE_USER" && run userdel "$SERVICE_USER"
    local previous=""
    previous="$(sed -n 's/^previous_hostname=//p' "$(at $STATE_FILE)" 2>/dev/null | head -n 1)" || true
    if [ -n "$previous" ]; then
        run hostnamectl set-hostname "$previous"
        result="$(helper hosts "$(at /etc/hosts)" "$previous")" || exit 2
        [ "$result" = unchanged ] || say "   $(would)set /etc/hosts: 127.0.1.1 $previous"
    fi
    # What a card's boot service writes for the table at each boot (the card's own
    # choices, card.toml, are kept like the board file).
    remove_path "$STATE_FILE" "$ETC_DIR/table.toml" "$ETC_DIR/card-applied"
    if [ "$PURGE" = 1 ]; then
        remove_path "$ETC_DIR" "$DATA_DIR"
    else
        for kept in "$BOARD_FILE" "$DATA_DIR"; do
            [ -e "$(at $kept)" ] && say "   kept: $kept, owned by root (--uninstall --purge deletes it)"
        done
    fi
    say "   kept: the apt packages (python3-venv, python3-lgpio, avahi-daemon...)"
    [ -d "$REPO/.venv" ] && say "   kept: $REPO/.venv"
    return 0
}

# make_image: --image BASE OUT, on any Linux machine as root (deploy/build_image.py builds;
# here only the tools it needs, from apt where the machine has it).
make_image() {
    local tools=(mtools:mcopy fdisk:sfdisk e2fsprogs:resize2fs xz-utils:xz) missing=() pair
    if [ "$UNINSTALL$DEV$NO_HOTSPOT" != 000 ] || [ -n "$HOTSPOT$COUNTRY" ]; then
        die "--image goes alone: the card's settings are in kalimambo.toml on its boot partition"
    fi
    [ "$IS_ROOT" = 1 ] || die "--image mounts and changes an image: run 'sudo ./setup.sh --image BASE OUT'"
    [ "$(uname -m)" = aarch64 ] || tools+=(qemu-user-static:qemu-aarch64-static
        binfmt-support:update-binfmts)
    for pair in "${tools[@]}"; do
        command -v "${pair#*:}" >/dev/null 2>&1 || missing+=("${pair%%:*}")
    done
    if [ "${#missing[@]}" != 0 ]; then
        step "Tools for the image: ${missing[*]}"
        command -v apt-get >/dev/null 2>&1 \
            || die "--image needs ${missing[*]} (Debian's package names): install them, then run it again"
        apt_install "${missing[@]}"
    fi
    [ "$DRY" = 0 ] || { say "   would build $IMAGE_OUT from $IMAGE_BASE (deploy/build_image.py)"; exit 0; }
    exec "$PYTHON" "$REPO/deploy/build_image.py" "$IMAGE_BASE" "$IMAGE_OUT"
}

# ---- the run -----------------------------------------------------------------------------

if [ "$DRY" = 1 ]; then
    say "Dry run: nothing is changed. This is what setup.sh would do here."
fi
if [ "$PI" != 0 ]; then say "Machine: $MODEL"; fi

if [ -n "$IMAGE_BASE" ]; then
    make_image
fi

if [ "$UNINSTALL" = 1 ]; then
    [ "$DRY" = 1 ] || [ "$IS_ROOT" = 1 ] || die "--uninstall changes the system: run 'sudo ./setup.sh --uninstall'"
    uninstall
    [ "$REBOOT" = 0 ] || say "Reboot to unload the LED strip overlay: sudo reboot"
    exit 0
fi

if [ "$PI" = 0 ]; then
    if [ -n "$HOTSPOT$COUNTRY" ] || [ "$NO_HOTSPOT" = 1 ]; then
        die "--hotspot, --no-hotspot and --country are for a Raspberry Pi (none found in /proc/device-tree/model)"
    fi
    extras=""
    [ "$DEV" = 1 ] && extras="[dev]"
    repo_venv "$extras"
    [ "$DEV" = 1 ] && dev_tools
    exit 0
fi

# A Raspberry Pi.
if [ "$PI" = 1 ] || { [ -z "$ROOT" ] && [ "$(uname -m)" = armv6l ]; }; then
    die "${MODEL:-this Raspberry Pi} (ARMv6: Pi 1, Zero, Zero W) is not supported: rpi-ws281x" \
        "has no wheel or build for armv6l here and lgpio no 32-bit wheel; use a Pi 2-5 or Zero 2 W"
fi
if [ -n "$COUNTRY" ] && [ ! -x "$(at /usr/bin/raspi-config)" ]; then
    die "--country sets the Wi-Fi country with raspi-config, which is missing: 'sudo apt-get install raspi-config'"
fi
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "Kalimambo needs Python 3.11 or newer: Raspberry Pi OS Bookworm or later"
read_board
if [ "$IS_ROOT" = 0 ] && [ "$DRY" = 0 ]; then
    extras=""
    [ "$DEV" = 1 ] && extras="[dev]"
    repo_venv "$extras"
    say ""
    say "This is a Raspberry Pi: 'sudo ./setup.sh' also installs the strip driver and the"
    say "kalimambo service that starts the table at boot ('./setup.sh --dry-run' lists it all)."
    exit 0
fi

pi_packages
# The services' venv is this Pi's Kalimambo ('kalimambo' on the PATH). The checkout gets a
# .venv of its own only with --dev (the tests): a second copy of every dependency would
# cost a Zero 2 W minutes of pip, and a card image build as many under qemu-user.
if [ "$DEV" = 1 ]; then
    repo_venv "[dev]"
    dev_tools
fi
service_account
directories_and_config
service_venv
strip_driver
systemd_units
network_name
if [ -n "$HOTSPOT" ]; then hotspot
elif [ -n "$COUNTRY" ]; then wifi_country; fi
if [ "$NO_HOTSPOT" = 1 ]; then remove_hotspot; fi

step "Done"
[ "$DRY" = 1 ] && say "   (dry run: nothing was changed)"
say "   phones and the board page: http://$HOSTNAME_WANTED.local$( [ "$PORT" = 80 ] || printf ':%s' "$PORT")/"
say "   strip bring-up: sudo systemctl stop kalimambo-lights; sudo kalimambo leds --config $BOARD_FILE test"
say "   the host link and its QR code (the host's way in; the table's own screen never shows it):"
say "     sudo -u $SERVICE_USER $SERVICE_VENV/bin/kalimambo host-link --data-dir $DATA_DIR --port $PORT"
[ "$REBOOT" = 0 ] || say "   reboot once to load the LED strip settings: sudo reboot"
exit 0
