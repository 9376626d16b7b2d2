"""Shared by the hostile bots: speak BGTP/1 up to the first ``go``, report, resign.

Every hostile bot is bounded by its own code (counts, sizes and sleeps have a
ceiling), so a broken sandbox fails the test without harming the machine.
The test writes ``targets.json`` next to the bot: loopback ports, host paths
and pids it should try to reach.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    with open(os.path.join(HERE, "targets.json")) as handle:
        TARGETS = json.load(handle)
except OSError:
    TARGETS = {}


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def report(attack, outcome):
    """``outcome`` starts with BLOCKED or SUCCEEDED; the test looks for SUCCEEDED."""
    sys.stderr.write(f"ATTACK {attack} {outcome}\n")
    sys.stderr.flush()


def until_go():
    """Handshake and ready, then return at the first ``go`` (exit quietly if it never comes)."""
    for line in sys.stdin:
        word = line.split()[:1]
        if word == ["bgtp"]:
            say("bgtp 1 name=hostile")
        elif word == ["newgame"]:
            say("ready")
        elif word == ["go"]:
            return
    sys.exit(0)


def resign():
    say("resign")
    for line in sys.stdin:  # wait for gameover/quit like a polite bot
        if line.split()[:1] == ["quit"]:
            break


def attempt(attack, action):
    """Run ``action``; a truthy result is a success worth reporting, an exception a block."""
    try:
        result = action()
    except Exception as error:  # noqa: BLE001 - every failure is the sandbox doing its job
        report(attack, f"BLOCKED {type(error).__name__}: {error}")
        return None
    if result:
        report(attack, f"SUCCEEDED {str(result)[:200]!r}")
    else:
        report(attack, "BLOCKED (nothing found)")
    return result


def read(path):
    """An ``attempt`` action: list the directory or read the start of the file at ``path``."""
    def action():
        if os.path.isdir(path):
            return os.listdir(path)
        with open(path, "rb") as handle:
            return handle.read(4096)
    return action
