"""A bot's build: run once per version, bounded in time, log and output, its output treated as hostile.

Every hostile build checks containment (a BadBot naming the problem, the worker holding no more
than the caps, nothing written outside the bot's directory, the build killed at its time limit)
and that the host is as before: no process of the build left, no unreaped child, no cgroup, no
scratch directory, the bot's files and a world-writable directory outside unchanged.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
import uuid
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from runner.bots import BadBot, load_bot
from runner.build import output_limits
from runner.bundle import _tar_budget
from runner.sandbox import Limits, open_sandbox

from .conftest import PROJECT, processes_with, tree_digest, zombie_children

LIMITS = Limits(build_timeout_s=4, build_log_bytes=1000, build_output_bytes=1 << 20, build_output_entries=1000,
                disk_bytes=64 << 20)
OUTPUT_CAP = _tar_budget(output_limits(LIMITS))
STAMP = "head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \\n' > stamp.txt"


@pytest.fixture
def trusted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_sandbox(trusted=True)


def write_manifest(directory: Path, build: str, run: str = "python3 main.py") -> None:
    """A manifest whose build is a script of the bot's own: a manifest may name only the bot's files,
    so a build that touches /dev or an outside path says so in a script, as a stranger's would."""
    (directory / "build.sh").write_text(build + "\n")
    (directory / "bot.toml").write_text(f"run = {json.dumps(run)}\nbuild = \"sh build.sh\"\n")


@pytest.fixture
def make_bot(tmp_path):
    """make_bot(build, script=None, **files) -> (Bot, marker), in a directory named after a fresh marker.

    ``script`` is written as ``<marker>.py``, which ``{script}`` in ``build`` names: every process
    it forks carries the marker in its command line. ``a__py=`` writes ``a.py``.
    """

    def make(build: str, script: str | None = None, **files: str):
        marker = "build_" + uuid.uuid4().hex[:10]
        directory = tmp_path / marker
        directory.mkdir()
        build = build.replace("{script}", f"{marker}.py").replace("{marker}", marker)
        write_manifest(directory, build)
        (directory / "main.py").write_text("print('bgtp 1 name=built', flush=True)\n")
        if script is not None:
            (directory / f"{marker}.py").write_text(script)
        for name, text in files.items():
            (directory / name.replace("__", ".")).write_text(text)
        return load_bot(directory), marker

    return make


def scratch_dirs(bot) -> list[Path]:
    return list((Path(tempfile.gettempdir()) / "tabula-bots").glob(f"{os.getpid()}-{bot.name}-*"))


def cgroups_left() -> list[Path]:
    found = []
    for root in Path("/sys/fs/cgroup").glob("*"):
        found += [p for p in root.rglob(f"tabula-*-{os.getpid()}") if p.is_dir()] if root.is_dir() else []
    return found


def refused(sandbox, bot, limits=LIMITS) -> tuple[str, float, int]:
    """prepare's BadBot message, the seconds it took, and the worker's peak Python memory meanwhile."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(BadBot) as caught:
            sandbox.prepare(bot, limits)
        return str(caught.value), time.monotonic() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def assert_host_as_before(bot, marker, outside, before):
    assert processes_with(marker) == []
    assert zombie_children() == []
    assert cgroups_left() == []
    assert scratch_dirs(bot) == []
    assert tree_digest(outside, bot.directory) == before
    assert not list(Path(tempfile.gettempdir(), "tabula-bots").rglob("escaped*"))
    assert not list(bot.directory.parent.rglob("escaped*")) and not Path("/escaped").exists()


# --- once per version -------------------------------------------------------------------------------


def test_a_version_is_built_once_and_its_result_kept(sandbox, make_bot):
    bot, _ = make_bot(STAMP)
    first = sandbox.prepare(bot, LIMITS)
    second = sandbox.prepare(bot, LIMITS)
    try:
        stamp = (first.path / "stamp.txt").read_text()
        assert len(stamp) == 16 and (second.path / "stamp.txt").read_text() == stamp
        assert sorted(p.name for p in second.path.iterdir()) == ["bot.toml", "build.sh", "main.py", "stamp.txt"]
        assert not (bot.directory / "stamp.txt").exists()  # the bot's own files are untouched
    finally:
        first.remove()
        second.remove()
    (bot.directory / "main.py").write_text("print('bgtp 1 name=changed', flush=True)\n")
    changed = sandbox.prepare(bot, LIMITS)  # other files: another version, built again
    assert (changed.path / "stamp.txt").read_text() != stamp
    changed.remove()


def test_a_failed_build_is_kept_too(sandbox, make_bot):
    bot, _ = make_bot("sleep 1; echo cannot compile engine.c; exit 3")
    with pytest.raises(BadBot, match=r"(?s)exit 3.*cannot compile engine\.c"):
        sandbox.prepare(bot, LIMITS)
    started = time.monotonic()
    with pytest.raises(BadBot, match=r"(?s)exit 3.*cannot compile engine\.c"):
        sandbox.prepare(bot, LIMITS)
    assert time.monotonic() - started < 0.5  # not built again


def test_builds_kept_in_a_directory_serve_later_processes(make_bot, tmp_path):
    bot, _ = make_bot(STAMP)
    builds = tmp_path / "builds"
    first = open_sandbox(builds=builds).prepare(bot, LIMITS)
    kept = list(builds.glob("*.bundle"))
    assert len(kept) == 1
    second = open_sandbox(builds=builds).prepare(bot, LIMITS)  # a new sandbox, as in another worker
    assert (second.path / "stamp.txt").read_text() == (first.path / "stamp.txt").read_text()
    kept[0].write_bytes(kept[0].read_bytes()[:-3])  # a damaged store is built again, never trusted
    third = open_sandbox(builds=builds).prepare(bot, LIMITS)
    assert (third.path / "stamp.txt").read_text() != (first.path / "stamp.txt").read_text()
    for workdir in (first, second, third):
        workdir.remove()


def test_the_service_keeps_builds_under_the_bot_cache(settings, make_bot):
    from tournaments import referee

    bot, _ = make_bot(STAMP)
    referee.open_sandbox().prepare(bot, LIMITS).remove()
    assert len(list((Path(settings.ARENA["BOT_CACHE_DIR"]) / "builds").glob("*.bundle"))) == 1


def test_a_local_match_builds_each_bot_once(tmp_path, make_bot):
    bot, _ = make_bot(STAMP)
    shutil.copy(PROJECT / "tests" / "bots" / "first_bot.py", bot.directory / "main.py")
    write_manifest(bot.directory, STAMP, run="sh -c 'cat stamp.txt >&2; exec python3 main.py'")
    records = tmp_path / "records.jsonl"
    result = run_match(["--records", str(records), str(bot.directory), str(PROJECT / "tests/bots/first_bot.py")])
    assert result.returncode == 0, result.stderr
    games = [json.loads(line) for line in records.read_text().splitlines()]
    stamps = {game["stderr"][side] for game in games for side in ("white", "black") if game[side] == bot.name}
    assert len(games) == 4 and len(stamps) == 1 and re.fullmatch(r"[0-9a-f]{16}", stamps.pop().strip())


def run_match(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runner", "match", "--game", "tafl9", "--games", "4",
                           "--tc", "move:1000", *args], cwd=PROJECT, env={**os.environ, "PYTHONPATH": str(PROJECT)},
                          capture_output=True, text=True, timeout=120)


# --- hostile builds -----------------------------------------------------------------------------------


def log_tail(message: str) -> str:
    return message.split("log tail:\n", 1)[1]


@pytest.mark.slow
def test_a_build_flooding_its_log_leaves_only_the_tail(sandbox, make_bot, outside):
    bot, marker = make_bot("head -c 300000000 /dev/zero | tr '\\0' x; echo; echo the-last-line; exit 1")
    before = tree_digest(outside, bot.directory)
    message, seconds, peak = refused(sandbox, bot, replace(LIMITS, build_timeout_s=30))
    assert "failed (exit 1)" in message and message.endswith("xxx\nthe-last-line\n")
    assert len(log_tail(message)) == 1000  # 300 MB went through the worker; the tail is all it kept
    assert peak < 2 << 20 and seconds < 30
    assert_host_as_before(bot, marker, outside, before)


FOREVER = """
import os, time
if os.fork() == 0:  # a child in its own session, left behind
    os.setsid()
    time.sleep(1000)
while True:
    print("still building", flush=True)
    time.sleep(0.01)
"""


@pytest.mark.parametrize("which", ["bubblewrap", "trusted"])
@pytest.mark.slow
def test_a_build_that_runs_forever_is_killed_at_its_time_limit(which, sandbox, trusted, make_bot, outside):
    chosen = sandbox if which == "bubblewrap" else trusted
    script = FOREVER if which == "bubblewrap" else FOREVER.replace("os.setsid()", "pass")  # trusted: its group
    bot, marker = make_bot("python3 {script}", script)
    before = tree_digest(outside, bot.directory)
    message, seconds, peak = refused(chosen, bot, replace(LIMITS, build_timeout_s=2, build_log_bytes=200))
    assert "timed out after 2 s" in message and message.endswith("still building\n")
    assert len(log_tail(message)) <= 200
    assert 2 <= seconds < 6 and peak < 1 << 20
    assert_host_as_before(bot, marker, outside, before)


@pytest.mark.parametrize("which", ["bubblewrap", "trusted"])
@pytest.mark.slow
def test_a_build_flooding_its_log_forever_is_killed_with_only_the_tail_kept(which, sandbox, trusted, make_bot,
                                                                           outside):
    bot, marker = make_bot("yes {marker}")
    before = tree_digest(outside, bot.directory)
    chosen = sandbox if which == "bubblewrap" else trusted
    message, seconds, peak = refused(chosen, bot, replace(LIMITS, build_timeout_s=2, build_log_bytes=500))
    assert "timed out after 2 s" in message and marker in message and len(log_tail(message)) <= 500
    assert 2 <= seconds < 6 and peak < 1 << 20
    assert_host_as_before(bot, marker, outside, before)


@pytest.mark.parametrize("which", ["bubblewrap", "trusted"])
@pytest.mark.slow
def test_a_build_forking_as_it_is_killed_leaves_no_zombie(which, sandbox, trusted, make_bot, outside):
    """A child forked just before the kill dies after its parent and comes back to us (a subreaper):
    it must be reaped too, whichever instant the time limit falls on."""
    bot, marker = make_bot("while true; do sh -c 'true {marker}'; done")
    before = tree_digest(outside, bot.directory)
    chosen = sandbox if which == "bubblewrap" else trusted
    for _ in range(30):
        chosen.builds = type(chosen.builds)(None)  # build again: a refusal is remembered per version
        message, _, _ = refused(chosen, bot, replace(LIMITS, build_timeout_s=0.05))
        assert "timed out" in message
    assert_host_as_before(bot, marker, outside, before)


MANY_FILES = """
import os
for d in range(300):
    os.mkdir(f"d{d}")
    for i in range(1000):
        os.close(os.open(f"d{d}/f{i}", os.O_CREAT | os.O_WRONLY))
"""


@pytest.mark.slow
def test_a_build_writing_300000_files_is_stopped_at_the_output_cap(sandbox, make_bot, outside):
    bot, marker = make_bot("python3 {script}", MANY_FILES)
    before = tree_digest(outside, bot.directory)
    message, seconds, peak = refused(sandbox, bot, replace(LIMITS, build_timeout_s=40))
    assert f"output is over {OUTPUT_CAP} bytes, more than 1000 files and directories" in message
    assert seconds < 50 and peak < 3 * OUTPUT_CAP
    assert_host_as_before(bot, marker, outside, before)


def test_a_build_with_too_many_files_under_the_byte_cap_is_refused_by_count(sandbox, make_bot, outside):
    bot, marker = make_bot("mkdir d; cd d; seq 1500 | xargs touch")
    before = tree_digest(outside, bot.directory)
    message, _, _ = refused(sandbox, bot)
    assert "output is refused: the archive holds more than 1000 files and directories" in message
    assert_host_as_before(bot, marker, outside, before)


def test_a_build_nesting_too_deep_is_refused(sandbox, make_bot, outside):
    bot, marker = make_bot("mkdir -p " + "/".join(["d"] * 40))
    before = tree_digest(outside, bot.directory)
    message, _, _ = refused(sandbox, bot)
    assert "more than 32 directories deep" in message
    assert_host_as_before(bot, marker, outside, before)


def test_sparse_files_count_at_their_full_size(sandbox, make_bot, outside):
    # 200 MB each of nothing on the disk: tar streams every zero, and the cap counts them
    bot, marker = make_bot("truncate -s 200M a.bin b.bin c.bin")
    before = tree_digest(outside, bot.directory)
    message, seconds, peak = refused(sandbox, bot)
    assert f"output is over {OUTPUT_CAP} bytes" in message and "sparse files count at their full size" in message
    assert seconds < LIMITS.build_timeout_s and peak < 3 * OUTPUT_CAP
    assert_host_as_before(bot, marker, outside, before)


def test_a_sparse_file_just_over_the_byte_cap_is_refused_by_size(sandbox, make_bot, outside):
    bot, marker = make_bot("truncate -s 1100K a.bin")
    before = tree_digest(outside, bot.directory)
    message, _, _ = refused(sandbox, bot)
    assert "the files add up to more than 1048576 bytes" in message
    assert_host_as_before(bot, marker, outside, before)


# What a build can reach of the worker: the pipes its launcher (the shell named tabula-build) holds
# and it does not, i.e. the channel its output comes back on. Only its own ancestors are looked at,
# so the trusted runs (no PID namespace) touch nothing else on the machine.
FIND_PIPES = """
import os, stat, sys

def open_output_pipes():
    own = {os.fstat(fd).st_ino for fd in (1, 2)}
    found, pid = {}, os.getppid()
    while pid > 1:
        if b"tabula-build" in open(f"/proc/{pid}/cmdline", "rb").read():
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    info = os.stat(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if stat.S_ISFIFO(info.st_mode) and info.st_ino not in own:
                    found.setdefault(info.st_ino, f"/proc/{pid}/fd/{fd}")
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    pipes = []
    for path in found.values():
        try:
            pipes.append(open(path, "wb", buffering=0))
        except PermissionError:  # the worker's pipe, owned by root, and this build has its own uid
            print("output pipe BLOCKED:", path, file=sys.stderr)
    if not pipes:
        sys.exit(f"no output pipe opened (found {len(found)})")
    return pipes
"""
PIPE_WRITER = FIND_PIPES + """
for pipe in open_output_pipes():
    pipe.write(open("crafted.tar", "rb").read())
"""


def crafted_tar(kind: str, outside: Path) -> bytes:
    """A tar no honest ``tar -cf - .`` of /bot writes: what a build could push into the output pipe."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        def add(name, data=b"", **fields):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            for key, value in fields.items():
                setattr(info, key, value)
            archive.addfile(info, io.BytesIO(data))

        if kind == "dotdot":
            add("./../escaped-dotdot", b"pwned")
        elif kind == "absolute":
            add(str(outside / "escaped-absolute"), b"pwned")
        elif kind == "symlink":
            add("./link", type=tarfile.SYMTYPE, linkname=str(outside))
            add("./link/escaped-symlink", b"pwned")
        elif kind == "hardlink":
            add("./escaped-hardlink", type=tarfile.LNKTYPE, linkname="/etc/passwd")
        elif kind == "device":
            add("./escaped-device", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        elif kind == "sparse":
            add("./escaped-sparse", b"x" * 512, type=tarfile.GNUTYPE_SPARSE)
        else:  # harmless files, and the end of the archive: then comes tar's own
            add("./other.txt", b"harmless")
    return buffer.getvalue()


def pipe_attack(sandbox, bot, problem: str) -> str:
    """The build's attempt on the worker's output pipe: refused for ``problem`` when it got through;
    run as root, the bot's own uid cannot even open the pipe (it is the worker's), which ends the build."""
    message, _, _ = refused(sandbox, bot)
    if "output pipe BLOCKED" in message:
        assert sandbox.root, message
        assert "no output pipe opened (found 1)" in message
    else:
        assert "the build's output is refused" in message and re.search(problem, message), message
    return message


@pytest.mark.parametrize("kind, problem", [
    ("dotdot", r"climbs out of its directory"),
    ("absolute", "has an absolute path"),
    ("symlink", "is a symbolic link"),
    ("hardlink", "is a hard link"),
    ("device", "is a device or fifo"),
    ("sparse", "is a sparse file"),
    ("complete", "data after its end"),
])
def test_a_build_writing_into_the_output_pipe_is_refused(kind, problem, sandbox, make_bot, outside):
    bot, marker = make_bot("python3 {script}", PIPE_WRITER)
    (bot.directory / "crafted.tar").write_bytes(crafted_tar(kind, outside))
    before = tree_digest(outside, bot.directory)
    pipe_attack(sandbox, bot, problem)
    assert_host_as_before(bot, marker, outside, before)


@pytest.mark.parametrize("build, problem", [
    ("ln -s /etc escaped-link", "is a symbolic link"),
    ("echo x > a; ln a escaped-hardlink", "is a hard link"),
    ("mkfifo escaped-fifo", "is a device or fifo"),
])
def test_a_build_leaving_links_or_fifos_is_refused(build, problem, sandbox, make_bot, outside):
    bot, marker = make_bot(build)
    before = tree_digest(outside, bot.directory)
    message, _, _ = refused(sandbox, bot)
    assert "the build's output is refused" in message and problem in message, message
    assert_host_as_before(bot, marker, outside, before)


FLOOD_WRITER = FIND_PIPES + """
pipe = open_output_pipes()[0]
if os.fork() == 0:  # left behind: floods the output pipe while tar writes the real archive
    os.setsid()
    while True:
        pipe.write(b"tabula" * 10000)
"""


def test_a_process_left_flooding_the_output_pipe_is_contained(sandbox, make_bot, outside):
    bot, marker = make_bot("python3 {script}", FLOOD_WRITER)
    before = tree_digest(outside, bot.directory)
    message, seconds, peak = refused(sandbox, bot)
    assert re.search(f"output is over {OUTPUT_CAP} bytes|output is refused|output pipe BLOCKED", message), message
    assert seconds < LIMITS.build_timeout_s and peak < 3 * OUTPUT_CAP
    assert_host_as_before(bot, marker, outside, before)


HOLDER = FIND_PIPES + """
import time
try:
    held = open_output_pipes()
except SystemExit:  # blocked: the log pipe it inherits is still held below
    held = []
if os.fork() == 0:  # left behind, quiet, holding the output pipe and the log (its stdout)
    os.setsid()
    time.sleep(1000)
open("built.txt", "w").write("built")
"""


@pytest.mark.parametrize("which", ["bubblewrap", "trusted"])
def test_a_process_left_holding_the_pipes_does_not_keep_the_worker_waiting(which, sandbox, trusted, make_bot,
                                                                        outside):
    chosen = sandbox if which == "bubblewrap" else trusted
    script = HOLDER if which == "bubblewrap" else HOLDER.replace("os.setsid()", "pass")  # trusted: its group
    bot, marker = make_bot("python3 {script}", script)
    before = tree_digest(outside, bot.directory)
    started = time.monotonic()
    workdir = chosen.prepare(bot, replace(LIMITS, build_timeout_s=10))
    assert time.monotonic() - started < 5
    assert (workdir.path / "built.txt").read_text() == "built"
    workdir.remove()
    assert_host_as_before(bot, marker, outside, before)


def test_limits_refuse_nonsense_build_caps():
    for name in ("build_log_bytes", "build_output_bytes", "build_output_entries"):
        with pytest.raises(ValueError, match=name):
            Limits(**{name: 0})


# --- without root: a bot author's machine ------------------------------------------------------------
# The build runs as the author's own uid, so it can open the worker's output pipe: every attack on
# it gets through to the parsing, which must refuse it. Run with the system's python3 as uid 65534.

AUTHOR = ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]


@pytest.fixture
def author_home(sandbox):
    if os.geteuid() != 0 or not Path(AUTHOR[0]).exists() or not Path("/usr/bin/python3").exists():
        pytest.skip("needs root to become an ordinary user (setpriv) and a system python3")
    home = Path(tempfile.mkdtemp(prefix="tabula-author-"))  # the author's own directory, not root's
    (home / "outside").mkdir()
    (home / "tmp").mkdir()
    yield home
    shutil.rmtree(home, ignore_errors=True)


def as_author(home: Path, args: list[str]) -> subprocess.CompletedProcess:
    subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROJECT), "TMPDIR": str(home / "tmp"), "HOME": str(home)}
    return subprocess.run([*AUTHOR, "/usr/bin/python3", *args], cwd=PROJECT, env=env, capture_output=True,
                          text=True, timeout=120)


def author_bot(home: Path, name: str, build: str, **files: str | bytes) -> Path:
    directory = home / name
    directory.mkdir()
    shutil.copy(PROJECT / "tests" / "bots" / "first_bot.py", directory / "main.py")
    write_manifest(directory, build)
    for file, content in files.items():
        path = directory / file.replace("__", ".")
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return directory


PREPARE_ALL = """
import json, sys, time
from runner.bots import BadBot, load_bot
from runner.sandbox import Limits, open_sandbox
sandbox, results = open_sandbox(), {}
for path in sys.argv[1:]:
    started = time.monotonic()
    try:
        sandbox.prepare(load_bot(path), Limits(build_timeout_s=4)).remove()
        results[path] = ["built", time.monotonic() - started]
    except BadBot as error:
        results[path] = [str(error), time.monotonic() - started]
print(json.dumps(results))
"""
PIPE_PROBLEMS = {"dotdot": "climbs out of its directory", "absolute": "has an absolute path",
                 "symlink": "is a symbolic link", "hardlink": "is a hard link", "device": "is a device or fifo",
                 "sparse": "is a sparse file", "complete": "data after its end"}


def test_without_root_the_output_pipe_is_reachable_and_every_attack_on_it_refused(author_home):
    outside = author_home / "outside"
    bots = {kind: author_bot(author_home, f"pipe-{kind}", f"touch {outside}/escaped-direct; python3 writer.py",
                             writer__py=PIPE_WRITER, crafted__tar=crafted_tar(kind, outside))
            for kind in PIPE_PROBLEMS}
    flood = author_bot(author_home, "flood", "python3 flood.py", flood__py=FLOOD_WRITER)
    holder = author_bot(author_home, "holder", "python3 holder.py", holder__py=HOLDER)
    before = tree_digest(outside, *bots.values(), flood, holder)

    result = as_author(author_home, ["-c", PREPARE_ALL, *map(str, [*bots.values(), flood, holder])])

    assert result.returncode == 0, result.stderr
    results = json.loads(result.stdout)
    for kind, problem in PIPE_PROBLEMS.items():
        message, _ = results[str(bots[kind])]
        assert "the build's output is refused" in message and problem in message, message
    message, seconds = results[str(flood)]
    assert re.search("output is over .* bytes|output is refused", message) and seconds < 4, message
    assert results[str(holder)][0] == "built" and results[str(holder)][1] < 3
    assert tree_digest(outside, *bots.values(), flood, holder) == before
    assert not list(author_home.rglob("escaped*")) and not list(Path(tempfile.gettempdir()).glob("escaped*"))
    assert processes_with(str(author_home)) == [] and processes_with("flood.py") == []


def test_without_root_a_local_match_builds_once_and_refuses_a_hostile_build(author_home):
    outside = author_home / "outside"
    good = author_bot(author_home, "good", STAMP)
    write_manifest(good, STAMP, run="sh -c 'cat stamp.txt >&2; exec python3 main.py'")
    evil = author_bot(author_home, "evil", f"touch {outside}/escaped-direct; python3 writer.py",
                      writer__py=PIPE_WRITER, crafted__tar=crafted_tar("dotdot", outside))
    before = tree_digest(outside, good, evil)
    records = author_home / "records.jsonl"

    result = as_author(author_home, ["-m", "runner", "match", "--game", "tafl9", "--games", "4",
                                     "--tc", "move:1000", "--records", str(records), str(good), str(evil)])

    assert result.returncode == 0, result.stderr
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 4
    for game in games:
        evil_side = "white" if game["white"] == "evil" else "black"
        assert game["reason"] == "init-failed" and game["winner"] != evil_side
        assert "climbs out of its directory" in game["detail"], game["detail"]
    stamps = {game["stderr"]["white" if game["white"] == "good" else "black"] for game in games}
    assert len(stamps) == 1  # built once for the whole run
    assert tree_digest(outside, good, evil) == before
    assert not list(author_home.rglob("escaped*")) and not list(Path(tempfile.gettempdir()).glob("escaped*"))
