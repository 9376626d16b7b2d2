"""Sandboxed bot start-up: spawn to handshake reply, against a bare ``bwrap ... true``.

    python3 benchmarks/sandbox_start.py [--runs 50]

Prints the median (and p90) in ms over ``--runs`` runs, after one warm-up each:
  bare bwrap true        : bwrap --unshare-all --die-with-parent --ro-bind /usr ... /usr/bin/true
  sandbox, true          : the full sandbox (launcher, cgroups, rlimits, seccomp) running /bin/true
  sandbox, python bot    : prepare + spawn + BGTP handshake reply from a Python bot
  trusted, python bot    : the same bot as a bare subprocess (no isolation), for comparison
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.bots import load_bot  # noqa: E402
from engines.sandbox import Limits, open_sandbox  # noqa: E402

HANDSHAKE_BOT = """import sys
for line in sys.stdin:
    if line.startswith("bgtp"):
        print("bgtp 1 name=bench", flush=True)
"""


def bare_bwrap(bwrap: str) -> float:
    command = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
               "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
               "--symlink", "usr/bin", "/bin",
               "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "/usr/bin/true"]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def sandboxed_true(sandbox, bot, limits) -> float:
    started = time.perf_counter()
    proc = sandbox.spawn(sandbox.prepare(bot, limits), bot, limits, {})
    proc.popen.wait()
    proc.kill()
    return time.perf_counter() - started


def handshake(sandbox, bot, limits) -> float:
    started = time.perf_counter()
    proc = sandbox.spawn(sandbox.prepare(bot, limits), bot, limits, {})
    proc.stdin.write(b"bgtp 1\n")
    reply = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    proc.kill()
    assert reply.startswith(b"bgtp 1"), reply
    return elapsed


def measure(label: str, runs: int, action) -> None:
    action()  # warm-up
    samples = sorted(action() * 1000 for _ in range(runs))
    p90 = samples[min(len(samples) - 1, int(len(samples) * 0.9))]
    print(f"{label:<24} median {statistics.median(samples):7.1f} ms   p90 {p90:7.1f} ms   (n={runs})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    sandbox = open_sandbox()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trusted = open_sandbox(trusted=True)
    print(sandbox.describe())
    limits = Limits()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        (scratch / "true_bot").mkdir()
        (scratch / "true_bot" / "bot.json").write_text('{"run": "/bin/true"}')
        true_bot = load_bot(scratch / "true_bot")
        (scratch / "bench_bot.py").write_text(HANDSHAKE_BOT)
        python_bot = load_bot(scratch / "bench_bot.py")
        measure("bare bwrap true", runs, lambda: bare_bwrap(sandbox.bwrap))
        measure("sandbox, true", runs, lambda: sandboxed_true(sandbox, true_bot, limits))
        measure("sandbox, python bot", runs, lambda: handshake(sandbox, python_bot, limits))
        measure("trusted, python bot", runs, lambda: handshake(trusted, python_bot, limits))


if __name__ == "__main__":
    main()
