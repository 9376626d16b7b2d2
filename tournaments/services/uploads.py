"""Uploading a bot version: validate the file completely, then store it; smoke-test it in the sandbox.

Every check runs before anything is written, so a refused upload leaves no file and no row.
"""

from __future__ import annotations

import hashlib
import io
import logging
import stat
import tarfile
import tempfile
import zipfile
import zlib
from datetime import timedelta
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from engines.bots import MANIFESTS, NAME_CHARS, BadBot, load_bot
from engines.record import safe_text

from ..models import Bot, BotVersion

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
    limit = settings.ARENA["UPLOAD_MAX_BYTES"]
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


def _check_member_name(name: str) -> None:
    if not name or "\0" in name:
        raise _refuse("archive has an entry with an empty or NUL name")
    if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        raise _refuse(f"archive entry {name!r} has an absolute path")
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        raise _refuse(f"archive entry {name!r} climbs out of the bot's directory ('..')")


class _Budget:
    """Counts files and unpacked bytes against the limits, so a bomb is refused before it lands."""

    def __init__(self, compressed_size: int):
        self.max_files = settings.ARENA["UPLOAD_MAX_FILES"]
        self.max_bytes = settings.ARENA["UPLOAD_MAX_UNPACKED_BYTES"]
        self.max_ratio = settings.ARENA["UPLOAD_MAX_RATIO"]
        self.compressed = max(compressed_size, 1)
        self.files = 0
        self.bytes = 0

    def add(self, name: str, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > self.max_files:
            raise _refuse(f"archive holds more than {self.max_files} files")
        if self.bytes > self.max_bytes:
            raise _refuse(f"archive unpacks to more than {self.max_bytes} bytes (at {name!r})")
        if self.bytes > self.max_ratio * self.compressed and self.bytes > 1024 * 1024:
            raise _refuse(f"archive compression ratio is over {self.max_ratio}:1 (a zip bomb?)")


def _zip_entries(content: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as error:
        raise _refuse(f"not a readable zip archive: {error}") from None
    budget = _Budget(len(content))
    for info in infos:
        _check_member_name(info.filename)
        file_type = stat.S_IFMT(info.external_attr >> 16)  # 0 when the archiver wrote no Unix mode
        if file_type == stat.S_IFLNK:
            raise _refuse(f"archive entry {info.filename!r} is a symbolic link")
        if file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise _refuse(f"archive entry {info.filename!r} is a device or other special file")
        if info.flag_bits & 0x1:
            raise _refuse(f"archive entry {info.filename!r} is encrypted")
        budget.add(info.filename, info.file_size)
    files = {}
    for info in infos:
        if info.is_dir():
            continue
        try:
            with archive.open(info) as member:
                data = member.read(info.file_size + 1)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, RuntimeError) as error:
            raise _refuse(f"archive entry {info.filename!r} cannot be read: {error}") from None
        if len(data) != info.file_size:
            raise _refuse(f"archive entry {info.filename!r} unpacks to a different size than it declares")
        files[info.filename] = data
    return files


def _gunzip(content: bytes, budget: _Budget) -> bytes:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = bytearray()
    source = memoryview(content)
    step = 64 * 1024
    try:
        for start in range(0, len(content), step):
            chunk = source[start:start + step]
            while chunk:
                out += decompressor.decompress(chunk, step)
                chunk = decompressor.unconsumed_tail
                # The tar stream is a little larger than its files; allow for headers and padding.
                if len(out) > budget.max_bytes + 1024 * (budget.max_files + 2) + 10240:
                    raise _refuse(f"archive unpacks to more than {budget.max_bytes} bytes")
                if len(out) > budget.max_ratio * budget.compressed and len(out) > 2 * 1024 * 1024:
                    raise _refuse(f"archive compression ratio is over {budget.max_ratio}:1 (a gzip bomb?)")
        out += decompressor.flush()
    except zlib.error as error:
        raise _refuse(f"not a readable .tar.gz archive: {error}") from None
    return bytes(out)


def _tar_entries(content: bytes) -> dict[str, bytes]:
    budget = _Budget(len(content))
    raw = _gunzip(content, budget)
    try:
        archive = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")
        members = archive.getmembers()
    except (tarfile.TarError, OSError, EOFError) as error:
        raise _refuse(f"not a readable .tar.gz archive: {error}") from None
    files = {}
    for member in members:
        _check_member_name(member.name)
        if member.issym():
            raise _refuse(f"archive entry {member.name!r} is a symbolic link")
        if member.islnk():
            raise _refuse(f"archive entry {member.name!r} is a hard link")
        if member.isdev() or member.isfifo():
            raise _refuse(f"archive entry {member.name!r} is a device or fifo")
        if not (member.isfile() or member.isdir()):
            raise _refuse(f"archive entry {member.name!r} is not a regular file or directory")
        budget.add(member.name, member.size)
        if member.isfile():
            files[member.name] = archive.extractfile(member).read()
    return files


def _check_bot_files(files: dict[str, bytes]) -> None:
    """Write the validated files to a scratch directory and let ``load_bot`` judge the manifest."""
    names = {PurePosixPath(name.replace("\\", "/")).as_posix().lstrip("./") for name in files}
    if not any(manifest in names for manifest in MANIFESTS):
        raise _refuse("archive has no bot.toml (or bot.json) at its top level")
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as scratch:
        root = Path(scratch)
        for name, data in files.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            load_bot(root)
        except BadBot as error:
            raise _refuse(str(error).replace(scratch, "<upload>")) from None


def _check_python(filename: str, content: bytes) -> None:
    if NAME_CHARS.search(filename):
        raise _refuse(f"{filename!r}: a bot file name may use only letters, digits, '_', '.' and '-'")
    try:
        source = content.decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse("a .py bot must be UTF-8 text") from None
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        raise _refuse(f"{filename}: does not compile: {error}") from None


def validate_upload(filename: str, content: bytes) -> str:
    """The kind of a valid upload; raises ValidationError (field ``file``) naming the problem."""
    kind = upload_kind(filename)
    if kind == BotVersion.Kind.PYTHON:
        _check_python(filename, content)
    elif kind == BotVersion.Kind.ZIP:
        _check_bot_files(_zip_entries(content))
    else:
        _check_bot_files(_tar_entries(content))
    return kind


def upload_version(bot: Bot, uploaded) -> BotVersion:
    """Store ``uploaded`` (a Django UploadedFile or any object with ``name`` and ``read``) as the
    bot's next version, status pending. Refused uploads raise ValidationError and store nothing."""
    filename = PurePosixPath(str(getattr(uploaded, "name", "") or "").replace("\\", "/")).name
    if not filename:
        raise _refuse("the upload has no file name")
    content = _read_upload(uploaded)
    kind = validate_upload(filename, content)
    if kind != BotVersion.Kind.PYTHON:
        filename = "bot.zip" if kind == BotVersion.Kind.ZIP else "bot.tar.gz"
    digest = hashlib.sha256(content).hexdigest()
    version = None
    try:
        with transaction.atomic():
            Bot.objects.select_for_update().filter(pk=bot.pk).get()
            number = (BotVersion.objects.filter(bot=bot).aggregate(n=Max("number"))["n"] or 0) + 1
            version = BotVersion(bot=bot, number=number, filename=filename, kind=kind, sha256=digest,
                                 size=len(content))
            version.file.save(filename, ContentFile(content), save=False)
            version.save()
    except BaseException:
        if version is not None and version.file.name:
            version.file.storage.delete(version.file.name)
        raise
    return version


def smoke_test_version(version_id: int) -> BotVersion:
    """Handshake and one ``go`` in the sandbox: pending → ready, or rejected with the reason.

    A version already judged is left alone (the task may run twice). A sandbox failure raises
    ``InfrastructureError`` and leaves the version pending, to be tried again.
    """
    from ..referee import BotFailure, smoke_test

    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.status != BotVersion.Status.PENDING:
        return version
    try:
        smoke_test(version)
    except BotFailure as failure:
        status, reason = BotVersion.Status.REJECTED, safe_text(str(failure))[:2000] or "smoke test failed"
    else:
        status, reason = BotVersion.Status.READY, ""
    BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
        status=status, reject_reason=reason, checked_at=timezone.now())
    version.refresh_from_db()
    log.info("bot version %s: %s %s", version.pk, version.status, reason)
    return version


def set_version_disabled(version: BotVersion, disabled: bool) -> BotVersion:
    """Operator action: a disabled version never plays; its queued matches are cancelled."""
    from .matches import cancel_queued_matches_of

    with transaction.atomic():
        BotVersion.objects.filter(pk=version.pk).update(is_disabled=disabled)
        if disabled:
            cancel_queued_matches_of(version)
    version.refresh_from_db()
    return version


# A smoke test is bounded by the bot's build (up to 300 s) and its start and first move; a worker
# that took one and died leaves it to the next after this long.
SMOKE_LEASE_SECONDS = 660


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
