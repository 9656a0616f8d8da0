#!/usr/bin/env bash
# Sets up Kalimambo: a .venv at the repository root with the project installed.
#   ./setup.sh          the table (runs on any Linux machine; simulated strip off a Pi)
#   ./setup.sh --dev    also the test tools and Debian's chromium for the browser tests
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: ./setup.sh [--dev] [--help]

  (no option)  create .venv at the repository root and install Kalimambo into it
  --dev        also install the test tools (pytest, hypothesis, playwright, ruff,
               mypy) and Debian's chromium for the browser tests
  --help       show this help
USAGE
}

DEV=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) DEV=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "setup.sh: unknown option '$1' (see ./setup.sh --help)" >&2; exit 2 ;;
    esac
    shift
done

cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "$DEV" = 1 ]; then
    .venv/bin/python -m pip install --quiet -e '.[dev]'
    if ! command -v chromium >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
        else
            echo "setup.sh: the browser tests need Debian's chromium: run 'sudo apt-get install chromium'" >&2
        fi
    fi
else
    .venv/bin/python -m pip install --quiet -e .
fi
