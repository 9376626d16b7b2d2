"""Hostile bots against the real sandbox, through the match runner.

Each hostile bot (tests/sandbox/hostile/) speaks BGTP/1 as White, attacks on its
first ``go`` and reports on stderr. Every test checks: the game ended for the
right reason, the attack failed (nothing reported SUCCEEDED, the canary got no
connection, no secret in the record, nothing written outside), nothing of the
bot survives (no process carries its marker, no unreaped child), and the next
game plays normally.
"""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path

import pytest

from engines.record import UNSAFE_CHARS, verify_record
from runner.match import play_game
from runner.sandbox import Limits

from .conftest import PROJECT, processes_with, tree_digest, zombie_children

# memory and disk are smaller than the defaults so the attacks hit the wall quickly
LIMITS = Limits(memory_bytes=512 << 20, disk_bytes=64 << 20, tmp_bytes=16 << 20)
SLOW_ATTACKS = {"memory_hog", "disk_filler", "fork_bomb"}  # touching memory is slow in this VM
FAILURES = {"crash", "timeout", "init-failed", "illegal-move", "output-limit", "bot-error", "void"}

EXPECTED = {
    "net_redis": "resign",
    "net_postgres": "resign",
    "net_canary": "resign",
    "net_raw": "resign",
    "read_system": "resign",
    "read_project": "resign",
    "read_other_bot": "resign",
    "read_env": "resign",
    "proc_snoop": "resign",
    "signal_others": "resign",
    "syscalls": "resign",
    "write_outside": "resign",
    "fork_bomb": "resign",
    "memory_hog": "resign",
    "disk_filler": "resign",
    "dev_filler": "resign",
    "pty_grab": "resign",
    "inode_bomb": "crash",  # its cgroup counts the kernel memory of its files: killed at its memory limit
    "quit_flood": "resign",
    "detach_linger": "resign",
    "cpu_spin": "timeout",
    "sleep_forever": "timeout",
    "flood_stdout": "output-limit",
    "silent": "init-failed",
    "garbage": "init-failed",
    "illegal_action": "illegal-move",
    "nul_writer": "illegal-move",
    "crash_at_start": "init-failed",
}


def test_every_hostile_bot_has_a_test():
    names = {p.stem for p in (Path(__file__).parent / "hostile").glob("*.py") if not p.stem.startswith("_")}
    assert names == set(EXPECTED)
    assert len(names) >= 20


def time_control(name: str) -> str:
    if name == "inode_bomb":  # a million files or so before the limit: time enough to reach it
        return "move:120000"
    return "move:8000" if name in SLOW_ATTACKS else "move:1000"


def pwned_files(*roots: Path) -> list[Path]:
    return [p for root in roots if root.exists() for p in root.rglob("pwned*")]


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.slow
def test_hostile_bot_is_contained(name, sandbox, hostile, opponent, canary, outside, secret):
    bot, marker = hostile(name)
    opponent_bot, opponent_marker = opponent
    before = tree_digest(outside, bot.directory, opponent_bot.directory)

    record = play_game("tafl9", bot, opponent_bot, tc=time_control(name), sandbox=sandbox, limits=LIMITS,
                       startup_ms=3000)

    white_stderr = record["stderr"]["white"]
    assert (record["winner"], record["reason"]) == ("black", EXPECTED[name]), (record["detail"], white_stderr)
    assert "SUCCEEDED" not in white_stderr, white_stderr
    assert secret not in json.dumps(record)
    assert (outside / "secret.txt").read_text() not in json.dumps(record)
    assert canary.connections == []
    assert processes_with(marker) == [] and processes_with(opponent_marker) == []
    assert zombie_children() == [], [Path(f"/proc/{z}/stat").read_text()[:80] for z in zombie_children()]
    assert tree_digest(outside, bot.directory, opponent_bot.directory) == before
    assert pwned_files(PROJECT / "engines", PROJECT / "runner", outside, Path("/usr"), Path("/etc")) == []
    assert not Path("/pwned").exists()

    # the machine is still fine: the next game plays normally
    again = play_game("tafl9", opponent_bot, opponent_bot, tc="move:1000", sandbox=sandbox, limits=LIMITS)
    assert again["reason"] not in FAILURES, again["detail"]
    assert again["plies"] > 0
    assert processes_with(opponent_marker) == []


ATTACKS_THAT_MUST_REPORT = {
    # the bot got to try, and said the sandbox stopped it: proof the attack really ran
    "net_redis": "ATTACK redis BLOCKED",
    "net_postgres": "ATTACK postgres BLOCKED",
    "net_canary": "ATTACK canary-127.0.0.1 BLOCKED",
    "read_system": "ATTACK read/etc/shadow BLOCKED",
    "read_env": "ATTACK env-own BLOCKED",
    "fork_bomb": "ATTACK fork-bomb BLOCKED",
    "memory_hog": "ATTACK memory-hog BLOCKED",
    "disk_filler": "ATTACK disk-fill-workdir BLOCKED",
    "syscalls": "ATTACK clone-newuser BLOCKED",
    "write_outside": "ATTACK write-/opt/tabula/engines/__init__.py BLOCKED",
    "pty_grab": "ATTACK pty BLOCKED errno=2 after 0 terminals",  # no /dev/ptmx at all
}


@pytest.mark.parametrize("name", sorted(ATTACKS_THAT_MUST_REPORT))
def test_hostile_bot_really_attacked(name, sandbox, hostile, opponent):
    bot, marker = hostile(name)
    opponent_bot, _ = opponent
    record = play_game("tafl9", bot, opponent_bot, tc=time_control(name), sandbox=sandbox, limits=LIMITS,
                       startup_ms=3000)
    assert ATTACKS_THAT_MUST_REPORT[name] in record["stderr"]["white"], record["stderr"]["white"]
    assert processes_with(marker) == []


def test_dev_and_dev_shm_are_capped(sandbox, hostile, opponent):
    # /dev/shm is a tmpfs of the /tmp size, /dev itself is read-only: neither can fill the host's memory
    bot, _ = hostile("dev_filler")
    record = play_game("tafl9", bot, opponent[0], tc="move:8000", sandbox=sandbox, limits=LIMITS, startup_ms=3000)
    stderr = record["stderr"]["white"]
    shm = re.search(r"ATTACK dev-shm-fill BLOCKED errno=28 after (\d+) MiB", stderr)
    assert shm and int(shm.group(1)) <= LIMITS.tmp_bytes >> 20, stderr
    assert "ATTACK dev-fill BLOCKED errno=30 after 0 MiB" in stderr, stderr


def test_control_bytes_from_a_bot_are_stored_escaped(sandbox, hostile, opponent):
    # NUL on stderr, in an info line and in its action: the record keeps them as \x00 text, so any
    # database stores it, and still replays
    bot, _ = hostile("nul_writer")
    record = play_game("tafl9", bot, opponent[0], sandbox=sandbox, limits=LIMITS, startup_ms=3000)
    assert (record["winner"], record["reason"], record["detail"]) == ("black", "illegal-move", "a1\\x00-a2")
    assert "before\\x00after \\x1b[31mred\\x07\n" in record["stderr"]["white"]
    assert any(line.endswith("w< info nul\\x00here \\x01\\x7f") for line in record["log"]), record["log"]
    texts = [record["detail"], *record["stderr"].values(), *record["log"]]
    assert [text for text in texts if UNSAFE_CHARS.search(text)] == []
    verify_record(record)


@pytest.mark.parametrize("name", ["quit_flood", "flood_stdout"])
@pytest.mark.slow
def test_what_a_done_bot_keeps_writing_is_not_kept(name, sandbox, hostile, opponent):
    # quit_flood writes up to 256 MiB without a newline after quit: the runner stops reading a bot once
    # it is told gameover (or broke a cap), so what it held at any time stays small
    bot, marker = hostile(name)
    tracemalloc.start()
    try:
        record = play_game("tafl9", bot, opponent[0], sandbox=sandbox, limits=LIMITS, startup_ms=3000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (record["winner"], record["reason"]) == ("black", EXPECTED[name])
    assert peak < 8 << 20, f"the runner held {peak >> 20} MiB at its peak"
    assert processes_with(marker) == []
