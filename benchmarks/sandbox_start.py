"""Sandboxed bot start-up: spawn to handshake reply, against a bare ``bwrap ... true``.

    python3 benchmarks/sandbox_start.py [--runs 50] [--quick]

Prints the median (and p90) in ms over ``--runs`` runs, after one warm-up each:
  bare bwrap true        : bwrap --unshare-all --die-with-parent --ro-bind /usr ... /usr/bin/true
  bare bwrap python      : the same bare bwrap running python3 -c pass (python's own start-up)
  sandbox, true          : the full sandbox (cgroups, rlimits, uid, seccomp) running a copy of true, to exit
  sandbox, shell bot     : spawn to BGTP handshake reply from a /bin/sh bot (prepare and kill apart)
  sandbox, python bot    : spawn to handshake reply from a Python bot
  trusted, python bot    : the same Python bot as a bare subprocess (no isolation)
then the target ratios (at most 2x): the shell bot against bare bwrap true, the Python
bot against bare bwrap python (its fair baseline) and, for reference, against bwrap true.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.bots import load_bot  # noqa: E402
from runner.sandbox import Limits, open_sandbox  # noqa: E402

SHELL_BOT = """while read -r line; do
  case "$line" in bgtp*) echo "bgtp 1 name=bench" ;; esac
done
"""
HANDSHAKE_BOT = """import sys
for line in sys.stdin:
    if line.startswith("bgtp"):
        print("bgtp 1 name=bench", flush=True)
"""


def bare_bwrap(bwrap: str, program: list[str]) -> float:
    command = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
               "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
               "--symlink", "usr/bin", "/bin",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", *program]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def sandboxed_true(sandbox, bot, limits) -> float:
    started = time.perf_counter()
    proc = sandbox.spawn(sandbox.prepare(bot, limits), bot, limits, {})
    proc.popen.wait()
    proc.kill()
    return time.perf_counter() - started


def handshake(sandbox, bot, limits, phases: dict[str, list[float]] | None = None) -> float:
    """Spawn to handshake reply; prepare and kill are timed apart into ``phases``."""
    started = time.perf_counter()
    workdir = sandbox.prepare(bot, limits)
    prepared = time.perf_counter()
    proc = sandbox.spawn(workdir, bot, limits, {})
    proc.stdin.write(b"bgtp 1\n")
    reply = proc.stdout.readline()
    replied = time.perf_counter()
    proc.kill()
    assert reply.startswith(b"bgtp 1"), reply
    if phases is not None:
        phases["prepare"].append((prepared - started) * 1000)
        phases["kill"].append((time.perf_counter() - replied) * 1000)
    return replied - prepared


def measure(label: str, runs: int, action) -> float:
    action()  # warm-up
    samples = sorted(action() * 1000 for _ in range(runs))
    p90 = samples[min(len(samples) - 1, int(len(samples) * 0.9))]
    median = statistics.median(samples)
    print(f"{label:<24} median {median:7.1f} ms   p90 {p90:7.1f} ms   (n={runs})")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (2 runs each): that it runs, not its figures")
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    sandbox = open_sandbox()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trusted = open_sandbox(trusted=True)
    print(sandbox.describe())
    limits = Limits()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        (scratch / "true_bot").mkdir()
        # A manifest names only the bot's own files (runner/bots.py), so the bot carries its copy of true.
        shutil.copy("/usr/bin/true", scratch / "true_bot" / "true")
        (scratch / "true_bot" / "bot.json").write_text('{"run": "./true"}')
        true_bot = load_bot(scratch / "true_bot")
        (scratch / "bench_bot.py").write_text(HANDSHAKE_BOT)
        python_bot = load_bot(scratch / "bench_bot.py")
        (scratch / "shell_bot").mkdir()
        (scratch / "shell_bot" / "bot.sh").write_text(SHELL_BOT)
        (scratch / "shell_bot" / "bot.toml").write_text('run = "sh bot.sh"\n')
        shell_bot = load_bot(scratch / "shell_bot")
        bwrap_true = measure("bare bwrap true", runs, lambda: bare_bwrap(sandbox.bwrap, ["/usr/bin/true"]))
        bwrap_python = measure("bare bwrap python", runs,
                               lambda: bare_bwrap(sandbox.bwrap, ["/usr/bin/python3", "-c", "pass"]))
        measure("sandbox, true", runs, lambda: sandboxed_true(sandbox, true_bot, limits))
        shell_phases = {"prepare": [], "kill": []}
        shell = measure("sandbox, shell bot", runs, lambda: handshake(sandbox, shell_bot, limits, shell_phases))
        python_phases = {"prepare": [], "kill": []}
        python = measure("sandbox, python bot", runs,
                         lambda: handshake(sandbox, python_bot, limits, python_phases))
        measure("trusted, python bot", runs, lambda: handshake(trusted, python_bot, limits))
    for label, phases in (("shell bot", shell_phases), ("python bot", python_phases)):
        print(f"{label:<11}: prepare {statistics.median(phases['prepare']):.1f} ms, "
              f"kill {statistics.median(phases['kill']):.1f} ms (median, not in spawn to reply)")
    print(f"target <= 2x: shell bot / bare bwrap true      {shell / bwrap_true:5.2f}x")
    print(f"              python bot / bare bwrap python   {python / bwrap_python:5.2f}x "
          f"(python bot / bare bwrap true {python / bwrap_true:5.2f}x)")

if __name__ == "__main__":
    main()
