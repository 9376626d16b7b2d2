"""The sandbox used directly: environment, isolation, builds, suspend, whole-tree kill, refusal."""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import time

import pytest

from runner import sandbox as sandbox_module
from runner.bots import BadBot, load_bot
from runner.sandbox import Limits, SandboxError, open_sandbox, seccomp_program
from runner.sandbox.base import owned_tempdir

from .conftest import HOSTILE, make_bot_dir, processes_with, zombie_children


def read_line(proc, timeout=10.0) -> bytes:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no line from the bot in time"
    line = b""
    while not line.endswith(b"\n"):
        chunk = proc.stdout.read(1)
        if not chunk:
            break
        line += chunk
    return line


def script_bot(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return load_bot(path)


def start(sandbox, bot, limits=Limits(), env=None):
    return sandbox.spawn(sandbox.prepare(bot, limits), bot, limits, env or {})


ENV_BOT = """
import json, os, sys
print(json.dumps(dict(os.environ)), flush=True)
print(json.dumps({"cwd": os.getcwd(), "files": sorted(os.listdir(".")), "root": sorted(os.listdir("/")),
                  "uid": os.getuid(), "python": sys.executable}), flush=True)
sys.stdin.read()
"""


def test_environment_is_exactly_bgtp_plus_the_callers(sandbox, tmp_path, secret):
    bot = script_bot(tmp_path, "envbot", ENV_BOT)
    with start(sandbox, bot, env={"TABULA_GAME": "tafl9"}) as proc:
        env = json.loads(read_line(proc))
        view = json.loads(read_line(proc))
    assert env["BGTP_VERSION"] == "1" and env["TABULA_GAME"] == "tafl9"
    assert secret not in json.dumps(env)
    assert set(env) <= {"BGTP_VERSION", "TABULA_GAME", "PATH", "HOME", "PYTHONPATH",
                        "PYTHONDONTWRITEBYTECODE", "LANG", "PWD", "SHLVL", "_"}
    assert env["PYTHONPATH"] == "/opt/tabula"
    assert view["cwd"] == "/bot" and view["files"] == ["envbot.py"]  # not its neighbours on the host
    assert view["python"] == "/usr/bin/python3"
    assert set(view["root"]) <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt",
                                 "proc", "dev", "tmp", "bot"}


def test_bad_env_is_refused_before_anything_starts(sandbox, tmp_path):
    bot = script_bot(tmp_path, "envbot", ENV_BOT)
    workdir = sandbox.prepare(bot, Limits())
    with pytest.raises(ValueError, match="bad environment variable"):
        sandbox.spawn(workdir, bot, Limits(), {"A=B": "x"})
    workdir.remove()


def test_the_referee_library_is_the_sdk_and_read_only(sandbox, tmp_path):
    bot = script_bot(tmp_path, "sdk", """
import engines, sys
pos = engines.get_game("tafl9").initial()
print(len(pos.legal_moves()), engines.__file__, flush=True)
try:
    open(engines.__file__, "a")
    print("writable", flush=True)
except OSError as error:
    print("readonly", error.errno, flush=True)
""")
    with start(sandbox, bot) as proc:
        count, where = read_line(proc).split()
        verdict = read_line(proc).split()[0]
    assert int(count) > 0 and where == b"/opt/tabula/engines/__init__.py"
    assert verdict == b"readonly"


def test_a_bot_sees_the_bots_library_and_nothing_of_the_host(sandbox, tmp_path):
    """The runner (sandbox, match runner, manifests, bundles) is never mounted: only ``engines`` is."""
    bot = script_bot(tmp_path, "host", """
import importlib, json, os
found = {}
for name in ("runner", "runner.sandbox", "engines.sandbox", "engines.match", "engines.bots", "engines.bundle",
             "tournaments", "config"):
    try:
        importlib.import_module(name)
        found[name] = "imported"
    except ImportError as error:
        found[name] = type(error).__name__
from engines import get_game
from engines.botkit import Clock, Greedy
position = get_game("shatra").initial()
found["botkit"] = Greedy(lambda p: 0.0)(position, position.legal_moves(), Clock(1000.0)) in position.legal_moves()
found["opt"] = sorted(os.listdir("/opt/tabula"))
found["sdk"] = sorted(os.listdir("/opt/tabula/engines"))
print(json.dumps(found), flush=True)
""")
    with start(sandbox, bot) as proc:
        found = json.loads(read_line(proc))
    for host_module in ("runner", "runner.sandbox", "engines.sandbox", "engines.match", "engines.bots",
                        "engines.bundle", "tournaments", "config"):
        assert found[host_module] == "ModuleNotFoundError", host_module
    assert found["botkit"] is True
    assert found["opt"] == ["bot", "engines"]
    assert {"__init__.py", "botkit.py", "core.py", "record.py"} <= set(found["sdk"])
    assert not {"sandbox.py", "match.py", "bots.py", "bundle.py", "build.py", "localmatch.py"} & set(found["sdk"])


def test_kill_takes_the_whole_tree_including_a_new_session(sandbox, tmp_path):
    bot = load_bot(make_bot_dir(tmp_path, HOSTILE / "detach_linger.py", {}, "linger_marker_x1"))
    proc = start(sandbox, bot)
    proc.stdin.write(b"bgtp 1\nnewgame id=1 game=tafl9 side=white tc=move:1000\ngo side=white ply=1\n")
    assert read_line(proc).startswith(b"bgtp 1")
    assert read_line(proc) == b"ready\n"
    assert read_line(proc) == b"resign\n"
    assert len(processes_with("linger_marker_x1")) >= 2  # the bot and its daemon
    workdir = proc.workdir.path
    proc.kill()
    proc.kill()  # idempotent
    assert processes_with("linger_marker_x1") == []
    assert zombie_children() == []
    assert not workdir.exists()
    assert proc.poll() is not None


def test_suspend_stops_the_whole_bot_and_resume_restarts_it(sandbox, tmp_path):
    bot = script_bot(tmp_path, "ticker", """
import time
while True:
    print(time.monotonic(), flush=True)
    time.sleep(0.01)
""")
    with start(sandbox, bot) as proc:
        read_line(proc)
        proc.suspend()
        time.sleep(0.1)
        while select.select([proc.stdout], [], [], 0)[0]:  # drain what was written before the freeze
            os.read(proc.stdout.fileno(), 65536)
        assert select.select([proc.stdout], [], [], 0.4)[0] == []
        proc.resume()
        assert read_line(proc, timeout=5)


def test_build_runs_once_offline_inside_the_sandbox(sandbox, tmp_path):
    (tmp_path / "bot").mkdir()
    directory = tmp_path / "bot"
    (directory / "bot.toml").write_text('run = "python3 built.py"\nbuild = "sh build.sh"\n')
    (directory / "build.sh").write_text(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 5432))' 2>/dev/null && exit 3\n"
        "echo 'print(42, flush=True)' > built.py\n")
    bot = load_bot(directory)
    workdir = sandbox.prepare(bot, Limits())
    assert (workdir.path / "built.py").is_file()
    assert not (directory / "built.py").exists()  # the bot's own files are untouched
    with sandbox.spawn(workdir, bot, Limits(), {}) as proc:
        assert read_line(proc) == b"42\n"


def test_failed_build_is_bad_bot_with_the_log_tail(sandbox, tmp_path):
    (tmp_path / "bot.toml").write_text('run = "./engine"\nbuild = "echo compiling engine.c; exit 4"\n')
    with pytest.raises(BadBot, match=r"(?s)exit 4.*compiling engine\.c"):
        sandbox.prepare(load_bot(tmp_path), Limits())


def test_build_cannot_exceed_the_disk_cap(sandbox, tmp_path):
    (tmp_path / "build.sh").write_text("head -c 50000000 /dev/zero > big.bin\n")
    (tmp_path / "bot.toml").write_text('run = "./engine"\nbuild = "sh build.sh"\n')
    with pytest.raises(BadBot, match="failed"):
        sandbox.prepare(load_bot(tmp_path), Limits(disk_bytes=8 << 20))


def test_build_timeout(sandbox, tmp_path):
    (tmp_path / "bot.toml").write_text('run = "./engine"\nbuild = "sleep 30"\n')
    started = time.monotonic()
    with pytest.raises(BadBot, match="timed out"):
        sandbox.prepare(load_bot(tmp_path), Limits(build_timeout_s=1))
    assert time.monotonic() - started < 10
    assert zombie_children() == []


def test_cgroup_holds_the_bot_when_the_host_offers_one(sandbox, tmp_path):
    if not (sandbox.cgroups.v1 or sandbox.cgroups.v2):
        pytest.skip("no cgroups here (not root)")
    bot = script_bot(tmp_path, "idle", "import sys\nprint('up', flush=True)\nsys.stdin.read()\n")
    limits = Limits(memory_bytes=300 << 20, processes=40)
    with start(sandbox, bot, limits) as proc:
        read_line(proc)
        assert proc.pid in proc.cgroup.pids()
        for directory in proc.cgroup.dirs:
            if (directory / "memory.limit_in_bytes").exists():
                assert int((directory / "memory.limit_in_bytes").read_text()) == 300 << 20
            if (directory / "pids.max").exists():
                assert (directory / "pids.max").read_text().strip() == "40"
        dirs = list(proc.cgroup.dirs)
    assert not any(d.exists() for d in dirs)


def test_seccomp_program_shape():
    program = seccomp_program("x86_64")
    assert len(program) % 8 == 0
    instructions = [struct.unpack("<HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    assert instructions[0] == (0x20, 0, 0, 4)  # load the architecture first
    assert instructions[-1][3] == 0x00050000 | 1  # the last instruction returns EPERM
    assert seccomp_program("aarch64") != program
    with pytest.raises(SandboxError, match="no seccomp syscall table"):
        seccomp_program("sparc")


def test_limits_are_checked():
    with pytest.raises(ValueError, match="memory_bytes"):
        Limits(memory_bytes=0)
    with pytest.raises(ValueError, match="processes"):
        Limits(processes="64")


def test_no_bubblewrap_means_refusal(monkeypatch):
    monkeypatch.setattr(sandbox_module, "_find_bwrap", lambda: None)
    with pytest.raises(SandboxError, match="untrusted bots are refused"):
        open_sandbox()


def test_trusted_mode_says_so_loudly(capsys):
    with pytest.warns(RuntimeWarning, match="NO sandbox"):
        trusted = open_sandbox(trusted=True)
    assert trusted.name == "trusted"
    assert "TRUSTED MODE" in capsys.readouterr().err


def test_trusted_mode_still_kills_its_process_group(tmp_path):
    with pytest.warns(RuntimeWarning):
        trusted = open_sandbox(trusted=True)
    bot = script_bot(tmp_path, "trusted_marker_q7", """
import os, sys, time
if os.fork() == 0:
    time.sleep(60)
print("up", flush=True)
sys.stdin.read()
""")
    proc = start(trusted, bot)
    read_line(proc)
    proc.kill()
    assert processes_with("trusted_marker_q7") == []


def test_run_may_be_a_shell_command_line(sandbox, tmp_path):
    (tmp_path / "main.py").write_text("import sys\nprint('from main', flush=True)\n")
    (tmp_path / "bot.toml").write_text('run = "echo starting >&2; exec python3 main.py"\n')
    bot = load_bot(tmp_path)
    with start(sandbox, bot) as proc:
        assert read_line(proc) == b"from main\n"


def test_cgroup_memory_limit_holds_without_the_address_space_limit(sandbox, tmp_path):
    if "memory" not in sandbox.cgroups.v1 and "memory" not in sandbox.cgroups.v2_controllers:
        pytest.skip("no memory controller for our cgroups")
    bot = script_bot(tmp_path, "hog", """
print("up", flush=True)
held = []
for _ in range(32):                      # 32 x 32 MiB = 1 GiB at most
    held.append(bytearray(b"\\1") * (32 << 20))
print("allocated", len(held) * 32, "MiB", flush=True)
""")
    limits = Limits(memory_bytes=128 << 20, address_space_bytes=4 << 30)
    with start(sandbox, bot, limits) as proc:
        assert read_line(proc) == b"up\n"
        assert proc.popen.wait(60) != 0  # the OOM killer, not a MemoryError
        assert b"allocated" not in proc.stdout.read()


def test_sweep_removes_empty_cgroups_of_dead_workers(sandbox):
    parents = [*sandbox.cgroups.v1.values(), *([sandbox.cgroups.v2] if sandbox.cgroups.v2 else [])]
    if not parents:
        pytest.skip("no cgroups here (not root)")
    dead = _dead_pid()
    left = [parent / f"tabula-crashed-{dead}" for parent in parents]
    mine = parents[0] / f"tabula-alive-{os.getpid()}"
    for directory in [*left, mine]:
        directory.mkdir()
    try:
        sandbox.cgroups.sweep()
        assert not any(d.exists() for d in left)
        assert mine.exists()  # a live worker's cgroup is not touched
    finally:
        for directory in [*left, mine]:
            if directory.exists():
                directory.rmdir()


def test_sweep_removes_the_workdirs_of_dead_workers(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    root = tmp_path / "tabula-bots"
    left = root / f"{_dead_pid()}-crashed-bot-abc"
    mine = owned_tempdir("alive-bot")
    (left / "engines").mkdir(parents=True)
    (left / "engines" / "state").write_text("left by a worker killed mid-game")
    assert sandbox_module.sweep_workdirs() == 1
    assert not left.exists()
    assert mine.exists() and mine.parent == root  # this process's own workdir stays


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_seccomp_alone_refuses_new_namespaces(sandbox, tmp_path):
    """As with bwrap < 0.8, which has no --disable-userns: the clone rule must hold by itself."""
    old_bwrap = sandbox_module.BubblewrapSandbox(sandbox.bwrap, sandbox.cgroups)
    old_bwrap.version = (0, 6)
    bot = load_bot(make_bot_dir(tmp_path, HOSTILE / "syscalls.py", {}, "syscalls_marker"))
    proc = start(old_bwrap, bot)
    proc.stdin.write(b"bgtp 1\nnewgame id=1\ngo side=white ply=1\nquit\n")
    proc.stdin.close()
    proc.popen.wait(30)
    report = proc.stderr.read().decode()
    proc.kill()
    for attack in ("clone-newuser", "unshare-userns", "unshare-netns", "ptrace-parent", "mount-tmpfs"):
        assert f"ATTACK {attack} BLOCKED" in report, report
    assert "SUCCEEDED" not in report
