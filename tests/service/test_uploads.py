"""Uploads: every bad file is refused with a reason naming the problem, and nothing is stored."""

from __future__ import annotations

import hashlib
import io
import tarfile
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from runner.bundle import Entry
from tournaments.models import BotVersion
from tournaments.referee import stored_entries
from tournaments.services import upload_version

from .conftest import BOTS, zip_bytes

pytestmark = pytest.mark.django_db

MANIFEST = ("bot.toml", b'run = "python3 main.py"\n')
MAIN = ("main.py", (BOTS / "random_bot.py").read_bytes())


def tar_gz(members) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def tar_file(name: str, data: bytes):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def tar_special(name: str, kind: bytes, linkname: str = ""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def symlink_zip_entry() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("main.py")
    info.external_attr = (0o120777 << 16)
    return info


def stored_files(settings) -> list:
    root = settings.MEDIA_ROOT
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def test_single_python_file(make_bot, settings):
    content = (BOTS / "random_bot.py").read_bytes()
    version = upload_version(make_bot("alpha"), SimpleUploadedFile("random_bot.py", content))
    assert (version.number, version.kind, version.status, version.size) == (1, "py", "pending", len(content))
    assert version.sha256 == hashlib.sha256(content).hexdigest()
    assert stored_entries(version) == [Entry("random_bot.py", content)]  # what the worker writes
    second = upload_version(version.bot, SimpleUploadedFile("random_bot.py", content))
    # each version: the upload as sent, stored once; the owner downloads it and the worker reads it
    assert second.number == 2 and sorted(p.name for p in stored_files(settings)) == ["original.py", "original.py"]
    assert not second.file
    with second.original.open("rb") as original:
        assert original.read() == content


def test_zip_and_tar_gz_with_manifest(make_bot):
    bot = make_bot("alpha")
    zipped = upload_version(bot, SimpleUploadedFile("alpha.zip", zip_bytes([MANIFEST, MAIN])))
    tarred = upload_version(bot, SimpleUploadedFile("alpha.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file(*MAIN)])))
    assert (zipped.kind, zipped.filename, tarred.kind, tarred.filename) == ("zip", "bot.zip", "tar.gz", "bot.tar.gz")


BOMB = zip_bytes([MANIFEST, MAIN, ("padding.txt", b"\0" * (20 * 1024 * 1024))])

BAD_UPLOADS = {
    "wrong extension": ("bot.exe", b"MZ", "single .py file"),
    "empty": ("bot.py", b"", "empty"),
    "syntax error": ("bot.py", b"def (:\n", "does not compile"),
    "bad python name": ("my bot.py", b"print(1)\n", "file name"),
    "not a zip": ("bot.zip", b"PK garbage", "not a readable zip"),
    "zip dot-dot": ("bot.zip", zip_bytes([MANIFEST, MAIN, ("../evil.py", b"x")]), "climbs out"),
    "zip absolute": ("bot.zip", zip_bytes([MANIFEST, MAIN, ("/etc/evil", b"x")]), "absolute path"),
    "zip symlink": ("bot.zip", zip_bytes([MANIFEST, symlink_zip_entry()]), "symbolic link"),
    "zip without manifest": ("bot.zip", zip_bytes([MAIN]), "no bot.toml"),
    "zip bad manifest": ("bot.zip", zip_bytes([("bot.toml", b"run = [1"), MAIN]), "cannot parse"),
    "zip manifest names a missing file": ("bot.zip", zip_bytes([MANIFEST]), "not in the bot's directory"),
    "zip bomb": ("bot.zip", BOMB, "ratio"),
    "zip too many files": ("bot.zip", zip_bytes([MANIFEST, MAIN] + [(f"f{i}", b"") for i in range(300)]),
                           "more than 200 files"),
    "tar dot-dot": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file(*MAIN), tar_file("../x", b"x")]),
                    "climbs out"),
    "tar absolute": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file("/tmp/x", b"x")]), "absolute path"),
    "tar symlink": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_special("main.py", tarfile.SYMTYPE, "/etc/passwd")]),
                    "symbolic link"),
    "tar hard link": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_special("main.py", tarfile.LNKTYPE, "bot.toml")]),
                      "hard link"),
    "tar device": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file(*MAIN), tar_special("dev", tarfile.CHRTYPE)]),
                   "device"),
    "tar fifo": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file(*MAIN), tar_special("pipe", tarfile.FIFOTYPE)]),
                 "device or fifo"),
    "gzip bomb": ("bot.tar.gz", tar_gz([tar_file(*MANIFEST), tar_file(*MAIN),
                                        tar_file("pad", b"\0" * (20 * 1024 * 1024))]), "ratio"),
    "not a tar": ("bot.tar.gz", b"\x1f\x8b\x08garbage", "not a readable"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_bad_upload_is_refused_and_nothing_stored(case, make_bot, settings):
    name, content, message = BAD_UPLOADS[case]
    bot = make_bot("alpha")
    with pytest.raises(ValidationError) as refused:
        upload_version(bot, SimpleUploadedFile(name, content))
    assert "file" in refused.value.message_dict
    assert message in " ".join(refused.value.message_dict["file"])
    assert BotVersion.objects.count() == 0
    assert stored_files(settings) == []


def test_size_limits(make_bot, settings):
    settings.ARENA = {**settings.ARENA, "UPLOAD_MAX_BYTES": 100, "UPLOAD_MAX_UNPACKED_BYTES": 1000}
    bot = make_bot("alpha")
    with pytest.raises(ValidationError, match="limit is 100"):
        upload_version(bot, SimpleUploadedFile("bot.py", b"#" * 101))
    settings.ARENA = {**settings.ARENA, "UPLOAD_MAX_BYTES": 10_000}
    big = zip_bytes([MANIFEST, MAIN, ("data.bin", bytes(range(256)) * 8)])
    with pytest.raises(ValidationError, match="more than 1000 bytes"):
        upload_version(bot, SimpleUploadedFile("bot.zip", big))
    assert BotVersion.objects.count() == 0 and stored_files(settings) == []
