"""Fixtures for the sandbox suites: the sandbox itself, hostile bots, a canary server, survivor checks.

Bubblewrap missing: the tests FAIL when ``CI`` is set and are skipped otherwise.
Nothing here aims at any address but loopback.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import threading
import uuid
from pathlib import Path

import pytest

from runner.bots import load_bot
from runner.sandbox import SandboxError, open_sandbox

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "hostile"
PROJECT = HERE.parent.parent
SECRET_ENV = "TABULA_SANDBOX_TEST_SECRET"


@pytest.fixture(scope="session")
def sandbox():
    try:
        return open_sandbox()
    except SandboxError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox suite, but: {error}")
        pytest.skip(f"no sandbox on this machine: {error}")


@pytest.fixture
def secret(monkeypatch):
    """A secret in the worker's environment, as a Celery worker would hold one."""
    value = "s3cr3t-" + uuid.uuid4().hex
    monkeypatch.setenv(SECRET_ENV, value)
    return value


class Canary:
    """A TCP server on loopback that records every connection it gets."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections: list[bytes] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(0.5)
                try:
                    self.connections.append(conn.recv(64))
                except OSError:
                    self.connections.append(b"")

    def close(self) -> None:
        self.running = False
        self.thread.join(2)
        self.server.close()


@pytest.fixture
def canary():
    server = Canary()
    yield server
    server.close()


@pytest.fixture
def outside(tmp_path):
    """Host paths no bot may read or change: a secret file and a directory."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.txt").write_text("outside-secret-" + uuid.uuid4().hex)
    os.chmod(tmp_path, 0o755)
    os.chmod(directory, 0o777)  # writable by anyone: only the sandbox keeps bots out
    return directory


def make_bot_dir(tmp_path: Path, main: Path, targets: dict, marker: str) -> Path:
    """A bot directory whose every process carries ``marker`` in its command line."""
    directory = tmp_path / marker
    directory.mkdir()
    shutil.copy(main, directory / f"{marker}.py")
    shutil.copy(HOSTILE / "_bgtp.py", directory / "_bgtp.py")
    (directory / "targets.json").write_text(json.dumps(targets))
    (directory / "bot.toml").write_text(f'run = "python3 {marker}.py"\n')
    return directory


@pytest.fixture
def opponent(tmp_path):
    marker = "opponent_" + uuid.uuid4().hex[:8]
    directory = tmp_path / marker
    directory.mkdir()
    shutil.copy(PROJECT / "tests" / "bots" / "random_bot.py", directory / f"{marker}.py")  # the shared test bot
    (directory / "bot.toml").write_text(f'run = "python3 {marker}.py"\n')
    return load_bot(directory), marker


@pytest.fixture
def hostile(tmp_path, canary, outside, opponent):
    """hostile("fork_bomb") -> (Bot, marker), with targets pointing at everything it must not reach."""
    opponent_bot, _ = opponent

    def build(name: str):
        marker = f"hostile_{name}_{uuid.uuid4().hex[:8]}"
        targets = {
            "canary_port": canary.port,
            "project": str(PROJECT),
            "project_file": str(PROJECT / "pyproject.toml"),
            "shared": str(PROJECT.parent / "shared"),
            "secret_file": str(outside / "secret.txt"),
            "outside_dir": str(outside),
            "other_bot": str(opponent_bot.directory),
            "test_pid": os.getpid(),
        }
        return load_bot(make_bot_dir(tmp_path, HOSTILE / f"{name}.py", targets, marker)), marker

    return build


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker`` (zombies have none; see zombie_children)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


def zombie_children() -> list[int]:
    """Our own children that died and were never reaped."""
    zombies = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] == "Z" and int(fields[1]) == me:
                zombies.append(int(entry))
    return zombies


def tree_digest(*roots: Path) -> str:
    """A digest of every name, size and content under ``roots`` (to prove nothing changed)."""
    digest = hashlib.sha256()
    for root in roots:
        for directory, dirs, files in sorted(os.walk(root)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = Path(directory) / name
                digest.update(str(path).encode())
                if not path.is_symlink():
                    digest.update(path.read_bytes())
    return digest.hexdigest()
