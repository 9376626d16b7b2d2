"""Uploading a bot version: read the file once into a checked list of files, store the file once;
smoke-test it in the sandbox."""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
from datetime import timedelta
from pathlib import PurePosixPath

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max, Q, Sum
from django.utils import timezone

from engines.record import safe_text
from knobs import arena
from runner.bots import NAME_CHARS, BadBot, check_bot_files
from runner.bundle import BadFiles, Entry, check_name, read_tar_gz, read_zip

from .. import events
from ..models import Bot, BotVersion
from ..referee import BotFailure, file_limits, smoke_test
from .bots import unpin_if_pinned
from .matches import cancel_queued_matches_of
from .worker_time import check_budget, expected_smoke_seconds

log = logging.getLogger(__name__)



def _refuse(message: str) -> ValidationError:
    return ValidationError({"file": [message]})


def upload_kind(filename: str) -> str:
    lower = filename.lower()
    if lower.endswith(".py"):
        return BotVersion.Kind.PYTHON
    if lower.endswith(".zip"):
        return BotVersion.Kind.ZIP
    if lower.endswith(".tar.gz") or lower.endswith(".tgz"):
        return BotVersion.Kind.TAR_GZ
    raise _refuse(f"{filename!r}: a bot is a single .py file, or a .zip or .tar.gz archive with a bot.toml")


def _read_upload(uploaded) -> bytes:
    limit = arena.UPLOAD_MAX_BYTES
    size = getattr(uploaded, "size", None)
    if size is not None and size > limit:
        raise _refuse(f"the file is {size} bytes; the limit is {limit}")
    if hasattr(uploaded, "seek"):
        uploaded.seek(0)
    content = uploaded.read(limit + 1)
    if len(content) > limit:
        raise _refuse(f"the file is larger than the limit of {limit} bytes")
    if not content:
        raise _refuse("the file is empty")
    return content


# compile() in a child that limits itself before it reads the source: a hostile file (a megabyte of
# one expression, deep nesting) takes seconds and gigabytes to compile, which the web process must
# not give. Exit 3 is "does not compile", with the reason on stdout.
_COMPILE = """\
import resource, sys
cpu, memory = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
try:
    compile(sys.stdin.buffer.read(), sys.argv[3], "exec", dont_inherit=True)
except (SyntaxError, ValueError) as error:
    sys.stdout.write(str(error)[:500])
    sys.exit(3)
"""


def _check_syntax(filename: str, content: bytes) -> None:
    cpu, memory = arena.UPLOAD_PY_CHECK_CPU_SECONDS, arena.UPLOAD_PY_CHECK_MEMORY_BYTES
    too_much = _refuse(f"{filename}: compiling it takes more than {cpu} s of CPU or {memory >> 20} MB of memory")
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _COMPILE, str(cpu), str(memory), filename],
                              input=content, capture_output=True, timeout=cpu + 5)
    except subprocess.TimeoutExpired:
        raise too_much from None
    if done.returncode == 3:
        raise _refuse(f"{filename}: does not compile: {done.stdout.decode('utf-8', 'replace')}")
    if done.returncode != 0:
        raise too_much


def _python_files(filename: str, content: bytes) -> list[Entry]:
    """A one-file bot as a list of one file, after its name, size, encoding and syntax are checked."""
    if NAME_CHARS.search(filename):
        raise _refuse(f"{filename!r}: a bot file name may use only letters, digits, '_', '.' and '-'")
    limit = arena.UPLOAD_MAX_PY_BYTES
    if len(content) > limit:
        raise _refuse(f"a .py bot may have at most {limit} bytes; this one has {len(content)}")
    try:
        check_name(filename)
        content.decode("utf-8")
    except BadFiles as error:
        raise _refuse(str(error)) from None
    except UnicodeDecodeError:
        raise _refuse("a .py bot must be UTF-8 text") from None
    _check_syntax(filename, content)
    return [Entry(filename, content)]


READERS = {BotVersion.Kind.ZIP: read_zip, BotVersion.Kind.TAR_GZ: read_tar_gz}


def validate_upload(filename: str, content: bytes, game_id: str) -> tuple[str, list[Entry]]:
    """The kind of a valid upload for a bot of ``game_id`` and its checked list of files (the one reading of
    the archive); raises ValidationError (field ``file``) naming the problem."""
    kind = upload_kind(filename)
    if kind == BotVersion.Kind.PYTHON:
        return kind, _python_files(filename, content)
    try:
        entries = READERS[kind](content, file_limits())
        games = check_bot_files({entry.name: entry.data for entry in entries if not entry.is_dir})
    except (BadFiles, BadBot) as error:
        raise _refuse(str(error)) from None
    if games is not None and game_id not in games:
        raise _refuse(f"its manifest says it plays {', '.join(games)}; this is a {game_id} bot")
    return kind, entries


def storage_used(owner) -> int:
    """The bytes the player's versions take in storage: each version's file, stored once."""
    return BotVersion.objects.filter(bot__owner=owner).aggregate(total=Sum("size"))["total"] or 0


def storage_quota(owner) -> int | None:
    """What the player's versions may take, or None: no limit (staff)."""
    return None if owner.is_staff else arena.PLAYER_STORAGE_BYTES


def _check_quota(owner, size: int) -> None:
    quota = storage_quota(owner)
    if quota is None:
        return
    used = storage_used(owner)
    if used + size > quota:
        raise _refuse(f"over your storage quota of {quota} bytes: your versions take {used} bytes and this "
                      f"upload is {size} bytes; delete a bot you no longer need to make room")


def archive_label(filename: str) -> str:
    """An archive keeps its owner's name, as a label only (nothing runs by it; a .py file's name is checked
    instead, since it is run): characters outside the bot-file rule become ``_``, and it stays short."""
    suffix = ".tar.gz" if filename.lower().endswith(".tar.gz") else filename[filename.rindex("."):]
    stem = NAME_CHARS.sub("_", filename[: -len(suffix)]).strip("._")[:100] or "bot"
    return stem + suffix.lower()


def upload_version(bot: Bot, uploaded) -> BotVersion:
    """Store ``uploaded`` (a Django UploadedFile or any object with ``name`` and ``read``) as the
    bot's next version, status pending. Refused uploads raise ValidationError and store nothing."""
    filename = PurePosixPath(str(getattr(uploaded, "name", "") or "").replace("\\", "/")).name
    if not filename:
        raise _refuse("the upload has no file name")
    content = _read_upload(uploaded)
    kind, _ = validate_upload(filename, content, bot.game)
    if kind != BotVersion.Kind.PYTHON:
        filename = archive_label(filename)
    digest = hashlib.sha256(content).hexdigest()
    version = None
    try:
        with transaction.atomic():
            # the owner's row first: two uploads of one player (to any of their bots) pass the quota one by one
            get_user_model().objects.select_for_update().filter(pk=bot.owner_id).get()
            Bot.objects.select_for_update().filter(pk=bot.pk).get()
            _check_quota(bot.owner, len(content))
            check_budget(bot.owner, expected_smoke_seconds(), "this upload's smoke test")
            number = (BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0) + 1
            version = BotVersion(bot=bot, number=number, filename=filename, kind=kind, sha256=digest,
                                 size=len(content))
            version.original.save(filename, ContentFile(content), save=False)  # the one stored copy
            version.save()
    except BaseException:
        if version is not None and version.original.name:
            version.original.storage.delete(version.original.name)
        raise
    return version


def smoke_test_version(version_id: int, trusted: bool = False) -> BotVersion:
    """Handshake and one ``go`` in the sandbox: pending → ready, or rejected with the reason.

    A version already judged is left alone (the task may run twice). A sandbox failure raises
    ``InfrastructureError`` and leaves the version pending, to be tried again. ``trusted``: run it without
    the sandbox (``referee.open_sandbox``).
    """
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version
    try:
        smoke_test(version, trusted)
    except BotFailure as failure:
        status, reason = BotVersion.Status.REJECTED, safe_text(str(failure))[:2000] or "smoke test failed"
        stderr = failure.stderr
    else:
        status, reason, stderr = BotVersion.Status.READY, "", ""
    judged = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
        status=status, reject_reason=reason, reject_stderr=stderr, checked_at=timezone.now())
    if judged:  # a bulk update sends no save signal: the event is what tells the pages
        events.emit(events.VersionJudged(version.pk, version.bot_id, version.bot.game, status))
    version.refresh_from_db()
    log.info("bot version %s: %s %s", version.pk, version.status, reason)
    return version


def set_version_disabled(version: BotVersion, disabled: bool) -> BotVersion:
    """Operator action: a disabled version never plays; its queued matches are cancelled and it stops being
    its bot's pinned version. Saved (not updated in bulk) so that public pages are renewed."""
    with transaction.atomic():
        version = BotVersion.objects.select_for_update().select_related("bot").get(pk=version.pk)
        version.is_disabled = disabled
        version.save(update_fields=["is_disabled"])
        if disabled:
            unpin_if_pinned(version)
            cancel_queued_matches_of(version)
    return version


# A smoke test is bounded by the bot's build (up to 300 s) and its start and first move; a worker
# that took one and died leaves it to the next after this long.
SMOKE_LEASE_SECONDS = 660


def release_smoke_test(version_id: int) -> None:
    """Give back a claimed smoke test that was not run to its end (its worker is stopping): the next worker takes
    it at once rather than after its lease."""
    BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(smoke_started_at=None)


def claim_smoke_test(now=None) -> int | None:
    """Take the smoke test of the oldest pending version no live worker holds: its id, or None.

    A conditional update: of two workers that pick the same version, one gets it and the other tries
    the next. Pending versions are few, so a handful of tries always suffices.
    """
    now = now or timezone.now()
    free = Q(smoke_started_at__isnull=True) | Q(smoke_started_at__lt=now - timedelta(seconds=SMOKE_LEASE_SECONDS))
    waiting = BotVersion.objects.filter(free, status=BotVersion.Status.PENDING).order_by("uploaded_at", "pk")
    for version_id in waiting.values_list("pk", flat=True)[:20]:
        if BotVersion.objects.filter(free, pk=version_id, status=BotVersion.Status.PENDING).update(
                smoke_started_at=now):
            return version_id
    return None
