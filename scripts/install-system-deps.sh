#!/bin/sh
# Install the system packages the bot sandbox needs, and with --tests the browser, only when missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) only when something is missing.
set -eu

missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
# setpriv (util-linux) drops to the bot's uid before bwrap starts (rlimits come from the shell's ulimit).
command -v setpriv >/dev/null 2>&1 || missing="$missing util-linux"
# The bot runs the system interpreter: the worker's own python (pyenv, venv) is not visible inside.
[ -x /usr/bin/python3 ] || missing="$missing python3-minimal"
# With --tests: the browser tests (tests/web) drive Debian's chromium through Playwright, whose own
# download cannot work offline. Running the service needs no browser.
if [ "${1:-}" = "--tests" ]; then
    [ -x /usr/bin/chromium ] || missing="$missing chromium"
    [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$missing fonts-dejavu-core"
fi

if [ -z "$missing" ]; then
    echo "install-system-deps: nothing to install (bwrap $(bwrap --version 2>/dev/null | cut -d' ' -f2))"
    exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-system-deps: need root to install:$missing" >&2; exit 1
    fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: no apt-get; install these with your package manager:$missing" >&2
    exit 1
fi
echo "install-system-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
command -v bwrap >/dev/null 2>&1 && bwrap --version
