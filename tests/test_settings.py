"""One place for settings: config/settings.py reads every one from the environment, docs/settings.md lists them.

Read from the source: no module of the project outside config/ reads the environment or changes a setting
while it runs; every variable config/settings.py reads has its row in docs/settings.md, and the table names
nothing else.
"""

from __future__ import annotations

import ast
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import knobs
from knobs.__main__ import with_tables

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "runner", "knobs", "ratings", "tournaments", "workers", "hooks", "api", "web", "ops", "seeds")
ENV_READERS = {"env_bool", "env_int", "env_list", "env_number", "env_path", "env_str"}
# What may touch os.environ outside config/, and why. `manage.py arena` hands its own environment on to the
# web server, workers and beat it starts (their settings are read by config/settings.py in each of them).
PASSES_ENVIRONMENT_ON = {"ops/management/commands/arena.py"}


def modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def environment_reads(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv", "putenv", "unsetenv"):
            found.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {alias.name}") for alias in node.names
                      if alias.name in ("environ", "environb", "getenv", "putenv", "unsetenv")]
    return found


def setting_changes(tree: ast.AST) -> list[tuple[int, str]]:
    """``settings.X = …``, ``settings.X[k] = …``, ``settings.X.update(…)``, ``app.conf.… = …``,
    ``setattr(settings, …)``, and ``getattr(settings, …)`` (a setting config/settings.py may not define)."""

    def names_settings(node: ast.AST) -> bool:  # settings.X… or ….conf.X… (a local dict named settings is not)
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "settings":
                return True
            node = node.value
            if isinstance(node, ast.Attribute) and node.attr == "conf":
                return True
        return False

    found = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        found += [(node.lineno, ast.unparse(target)) for target in targets if names_settings(target)]
        if isinstance(node, ast.Call):
            call = node.func
            if isinstance(call, ast.Attribute) and call.attr in ("update", "setdefault", "pop", "clear") \
                    and names_settings(ast.Attribute(value=call.value, attr="x")):
                found.append((node.lineno, ast.unparse(node)))
            # setattr changes a setting; getattr with a default reads one config/settings.py may not define
            if isinstance(call, ast.Name) and call.id in ("setattr", "getattr") and node.args \
                    and ast.unparse(node.args[0]) in ("settings", "app.conf"):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_outside_config_reads_the_environment():
    problems = []
    for path in modules():
        name = str(path.relative_to(ROOT))
        if name in PASSES_ENVIRONMENT_ON:
            continue
        problems += [f"{name}:{line}: {what}" for line, what in environment_reads(ast.parse(path.read_text()))]
    assert problems == [], "read settings from django.conf.settings (config/settings.py reads the environment)"


@pytest.mark.slow
def test_no_module_changes_settings_while_it_runs_or_reads_one_config_does_not_define():
    problems = []
    for path in [*modules(), *(ROOT / "config").glob("*.py")]:
        if path.name == "settings.py" and path.parent.name == "config":
            continue
        name = str(path.relative_to(ROOT))
        problems += [f"{name}:{line}: {what}" for line, what in setting_changes(ast.parse(path.read_text()))]
    assert problems == []


# The match path, being moved into play/ by another branch: it reads knobs.arena once it lands (then empty this).
READS_ARENA_DIRECTLY: set[str] = set()  # none: every module reads knobs.arena


def arena_reads(tree: ast.AST) -> list[int]:
    """The lines that read ``settings.ARENA`` (knobs.arena reads it typed, for everyone else)."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "ARENA"
            and ast.unparse(node.value) == "settings"]


def test_the_arenas_settings_are_read_through_knobs():
    problems = []
    for path in modules():
        name = str(path.relative_to(ROOT))
        if name.startswith("knobs/") or "migrations" in path.parts or name in READS_ARENA_DIRECTLY:
            continue
        problems += [f"{name}:{line}" for line in arena_reads(ast.parse(path.read_text()))]
    assert arena_reads(ast.parse("x = settings.ARENA['K']\ny = django.conf.settings.ARENA\n")) == [1]
    assert problems == [], "read knobs.arena.NAME, typed"


def test_the_checks_see_what_they_look_for():
    source = ("import os\nfrom os import getenv\nx = os.environ.get('A')\n"
              "settings.ARENA = {}\nsettings.ARENA['K'] = 1\napp.conf.beat_schedule = {}\n"
              "settings = {}\nsettings['rule'] = 1\n"
              "sender.conf.update(a=1)\nsetattr(settings, 'DEBUG', True)\n"
              "rates = getattr(settings, 'ARENA_THROTTLE_RATES', {})\n")
    tree = ast.parse(source)
    assert [line for line, _ in environment_reads(tree)] == [2, 3]
    assert [line for line, _ in setting_changes(tree)] == [4, 5, 6, 9, 10, 11]  # not the local dict (7, 8)


def variables_read() -> set[str]:
    """Every environment variable config/settings.py reads: by name, and the declared knobs' (``ARENA_*``)."""
    names = {knob.variable for knob in knobs.KNOBS if knob.environment}
    for node in ast.walk(ast.parse((ROOT / "config" / "settings.py").read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = ast.unparse(node.func)
            if function in ENV_READERS or function == "os.environ.get":
                names.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ" \
                and isinstance(node.slice, ast.Constant):
            names.add(node.slice.value)
    return names


def test_every_setting_has_its_row_in_docs_settings_md():
    table = (ROOT / "docs" / "settings.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", table, flags=re.MULTILINE))
    read = variables_read()
    assert len(read) > 60  # the reading functions are recognised
    assert sorted(read - documented) == [], "add a row to docs/settings.md"
    assert sorted(documented - read) == [], "docs/settings.md names a variable nobody reads"
    assert "docs/settings.md" in (ROOT / "README.md").read_text()


def test_the_arena_tables_in_docs_settings_md_are_generated_from_the_declarations():
    text = (ROOT / "docs" / "settings.md").read_text()
    assert with_tables(text) == text, "run python -m knobs"
    assert "| `ARENA_ELO_START` | `1500` | any | a new version's Elo |" in text


def test_the_settings_are_built_from_the_declarations_and_read_typed():
    from django.conf import settings

    assert list(settings.ARENA) == [knob.name for knob in knobs.KNOBS]
    assert all(isinstance(settings.ARENA[knob.name], knob.kind) for knob in knobs.KNOBS)
    assert knobs.arena.ELO_START == knobs.START == 1500 and knobs.Arena.ELO_K.variable == "ARENA_ELO_K"
    assert knobs.arena.HEARTBEAT_SECONDS == settings.ARENA["MATCH_LEASE_SECONDS"] / 4


def test_the_typed_reader_sees_a_tests_override(settings):
    settings.ARENA = {**settings.ARENA, "ELO_K": 7}
    assert knobs.arena.ELO_K == 7 and knobs.arena["ELO_K"] == 7


def test_a_value_outside_its_range_is_named():
    assert knobs.range_problems({"LADDER_SHARE": 2, "MATCH_MAX_ATTEMPTS": 0, "ELO_K": 20}) == [
        "ARENA_MATCH_MAX_ATTEMPTS must be at least 1, got 0", "ARENA_LADDER_SHARE must be from 0 to 1, got 2"]


def load_settings(**env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    code = "import django; django.setup(); from django.conf import settings; print(settings.ARENA['SCAVENGE_SECONDS'])"
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("ARENA_SCAVENGE_SECONDS", "often", "ARENA_SCAVENGE_SECONDS must be a number, got 'often'"),
    ("ARENA_LADDER_QUEUED_PER_GAME", "2.5", "ARENA_LADDER_QUEUED_PER_GAME must be an integer, got '2.5'"),
    ("ARENA_ELO_K", "x", "ARENA_ELO_K must be an integer, got 'x'"),
    ("ARENA_LADDER_SHARE", "2", "ARENA_LADDER_SHARE must be from 0 to 1, got 2.0"),
    ("ARENA_ELO_K", "-1", "ARENA_ELO_K must be at least 0, got -1"),
])
@pytest.mark.slow
def test_a_bad_value_stops_the_settings_by_name(name, value, message):
    result = load_settings(**{name: value})
    assert result.returncode != 0 and message in result.stderr


@pytest.mark.slow
def test_the_workers_knobs_come_from_the_environment_through_the_settings():
    result = load_settings(ARENA_SCAVENGE_SECONDS="7")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "7.0"


@pytest.mark.slow
def test_a_postgresql_server_that_never_answers_is_given_up_on_after_the_connect_timeout():
    """A listener on loopback that accepts and stays silent: without connect_timeout libpq waits for ever."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"postgres://arena@127.0.0.1:{silent.getsockname()[1]}/arena"
        code = ("import django, time; django.setup(); from django.db import connection\n"
                "started = time.monotonic()\n"
                "try:\n    connection.ensure_connection()\n"
                "except Exception as error:\n    print(type(error).__name__, round(time.monotonic() - started))\n")
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url,
               "DATABASE_CONNECT_TIMEOUT": "2"}
        result = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                                timeout=60)
    assert result.returncode == 0, result.stderr
    error, seconds = result.stdout.split()
    assert error == "OperationalError" and 2 <= int(seconds) <= 10


@pytest.mark.slow
def test_database_url_options_win_over_the_defaults():
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(sorted(settings.DATABASES['default']['OPTIONS'].items()))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "DATABASE_URL": "postgres://arena@127.0.0.1:5432/arena?connect_timeout=3"}
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "('connect_timeout', 3)" in result.stdout and "('keepalives', 1)" in result.stdout
