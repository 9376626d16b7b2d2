"""docker-compose.yml is safe by default: no SECRET_KEY fallback, DEBUG off, no privileged container,
and `manage.py check --deploy` passes with the environment it gives the web process."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
VARIABLE = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error}, for the values this file uses."""
    def one(match: re.Match) -> str:
        name, operator, argument = match.groups()
        if env.get(name):
            return env[name]
        if operator == ":?":
            raise LookupError(f"{name}: {argument}")
        return argument if operator == ":-" else ""
    return VARIABLE.sub(one, value)


def services() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def web_environment(env: dict[str, str]) -> dict[str, str]:
    return {name: interpolate(str(value), env) for name, value in services()["web"]["environment"].items()}


def test_compose_has_no_secret_key_fallback_and_debug_off():
    for name in ("web", "worker", "beat"):
        environment = services()[name]["environment"]
        assert environment["DEBUG"] == "0"
        assert ":?" in environment["SECRET_KEY"]  # compose refuses to start without one
    try:
        web_environment({})
    except LookupError as refusal:
        assert "SECRET_KEY" in str(refusal)
    else:
        raise AssertionError("the compose environment has a SECRET_KEY without one being given")


def test_no_service_is_privileged():
    for name, service in services().items():
        assert not service.get("privileged"), name
    worker = services()["worker"]
    # docs/deployment.md says why each; SYS_ADMIN and SETPCAP only for the entry, which drops both before the worker
    assert set(worker["cap_add"]) == {"SETUID", "SETGID", "KILL", "SYS_ADMIN", "SETPCAP"}
    assert worker["entrypoint"] == ["/app/scripts/worker-entry"]
    assert "--bounding-set=-sys_admin,-setpcap" in (ROOT / "scripts" / "worker-entry").read_text()
    assert services()["worker"]["cap_drop"] == ["ALL"]


def test_check_deploy_passes_with_the_compose_environment():
    environment = web_environment({"SECRET_KEY": secrets.token_urlsafe(50)})
    environment["PATH"] = os.environ["PATH"]
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def consumed_queues(command: list[str]) -> set[str]:
    """The queues a compose service's Celery worker reads: its -Q, else every queue less its -X."""
    from django.conf import settings

    every = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    option = dict(zip(command, command[1:]))
    if "-Q" in option:
        return set(option["-Q"].split(","))
    return every - set(option.get("-X", "").split(","))


def test_housekeeping_and_webhooks_each_have_a_process_that_plays_no_matches():
    """A worker that plays claims its next match itself and reads no message meanwhile (workers.playing), so with
    every match worker busy the housekeeping queue (ladder, scavenger, refits, smoke tests) would wait: a process
    that reads it and not the matches' queue must exist, as the quick start's control worker."""
    workers = {name: consumed_queues(service["command"]) for name, service in services().items()
               if isinstance(service.get("command"), list) and service["command"][:4] == ["celery", "-A", "config",
                                                                                          "worker"]}
    for queue in ("arena.control", "arena.hooks"):
        assert any(queue in queues and "celery" not in queues for queues in workers.values()), (queue, workers)
    assert any("celery" in queues for queues in workers.values())  # and somebody plays the matches
