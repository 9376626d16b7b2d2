"""Uploads: every bad file is refused with a reason naming the problem, and nothing is stored."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from runner.bundle import Entry
from tests.support import BOTS
from tournaments.models import BotVersion
from tournaments.services import upload_version

from .conftest import zip_bytes

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
    from tournaments.referee import stored_entries

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
    assert (zipped.kind, zipped.filename) == ("zip", "alpha.zip")
    assert (tarred.kind, tarred.filename) == ("tar.gz", "alpha.tar.gz")


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


# --- disk stays bounded (issue 18) -----------------------------------------------------------------

def kit(number: int) -> bytes:
    """A zip bot, a different file for each ``number`` (as successive versions are)."""
    return zip_bytes([MANIFEST, MAIN, ("version.txt", f"version {number}\n".encode())])


def cache_trees(settings) -> list[str]:
    root = settings.ARENA["BOT_CACHE_DIR"]
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.exists() else []


@pytest.mark.slow
def test_a_hundred_versions_keep_the_cache_within_its_bound_and_deleting_the_bots_leaves_nothing(
        make_bot, settings, django_capture_on_commit_callbacks):
    from tournaments.referee import bot_cache, load_version, version_files
    from tournaments.services import delete_bot

    bound = 64 * 1024  # a handful of small trees (each file takes a block or more)
    settings.ARENA = {**settings.ARENA, "BOT_CACHE_BYTES": bound}
    bots = [make_bot(f"bot-{n}") for n in range(10)]
    sizes = []
    for number in range(100):
        version = upload_version(bots[number % 10], SimpleUploadedFile("bot.zip", kit(number)))
        with version_files(version) as tree:
            assert (tree / "version.txt").read_text() == f"version {number}\n"
            assert load_version(version).run == "python3 main.py"
        sizes.append(bot_cache().size())
    assert max(sizes) <= bound and len(cache_trees(settings)) > 1
    # stored once: each version's file as sent, nothing else
    assert len(stored_files(settings)) == 100 and all(p.name == "original.zip" for p in stored_files(settings))

    with django_capture_on_commit_callbacks(execute=True):
        for bot in bots:
            delete_bot(bot)
    assert stored_files(settings) == []
    root = settings.ARENA["BOT_CACHE_DIR"]
    assert [p.name for p in root.rglob("*")] == []


def test_the_least_recently_used_tree_goes_first_and_one_in_use_never(make_bot, settings):
    from tournaments.referee import bot_cache, cache_key, version_files

    bot = make_bot("alpha")
    versions = [upload_version(bot, SimpleUploadedFile("bot.zip", kit(number))) for number in range(4)]
    for version in versions[:3]:
        with version_files(version):
            pass
    one_tree = bot_cache().size() // 3
    settings.ARENA = {**settings.ARENA, "BOT_CACHE_BYTES": 3 * one_tree}
    with version_files(versions[0]):  # used again: now the most recent, and held while v4 comes in
        with version_files(versions[3]):
            pass
        keys = set(cache_trees(settings))
        assert cache_key(versions[1]) not in keys  # the least recently used went
        assert {cache_key(versions[0]), cache_key(versions[2]), cache_key(versions[3])} <= keys

        settings.ARENA = {**settings.ARENA, "BOT_CACHE_BYTES": 0}  # everything must go, but v1 is in use
        bot_cache().trim()
        assert cache_trees(settings) == [cache_key(versions[0])]
    bot_cache().trim()
    assert cache_trees(settings) == []


def test_a_tree_another_process_holds_is_not_evicted(make_bot, settings):
    """The lock is the file's, not this process's: a worker playing a game elsewhere keeps its tree."""
    from tournaments.referee import bot_cache, cache_key, version_files

    version = upload_version(make_bot("alpha"), SimpleUploadedFile("bot.zip", kit(1)))
    with version_files(version):
        pass
    lock = settings.ARENA["BOT_CACHE_DIR"] / f"{cache_key(version)}.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\n"
         "fcntl.flock(fd, fcntl.LOCK_SH)\nprint('held', flush=True)\nsys.stdin.read()", str(lock)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        settings.ARENA = {**settings.ARENA, "BOT_CACHE_BYTES": 0}
        bot_cache().trim()
        assert cache_trees(settings) == [cache_key(version)]
    finally:
        holder.communicate("")
    bot_cache().trim()
    assert cache_trees(settings) == []


def test_a_worker_drops_the_trees_of_versions_deleted_elsewhere(make_bot, settings):
    """A worker whose disk the web process cannot reach learns of deletions at its next trim."""
    from tournaments.referee import cache_key, version_files

    first, second = (upload_version(make_bot(name), SimpleUploadedFile("bot.zip", kit(n)))
                     for n, name in enumerate(["alpha", "beta"]))
    with version_files(first):
        pass
    BotVersion.objects.filter(pk=first.pk).delete()  # state: damaged (deleted behind this worker's back)
    with version_files(second):
        pass
    assert cache_trees(settings) == [cache_key(second)]


def test_a_stored_file_that_changed_since_its_upload_is_refused(make_bot, settings):
    from runner.bots import BadBot
    from tournaments.referee import bot_directory

    version = upload_version(make_bot("alpha"), SimpleUploadedFile("bot.zip", kit(1)))
    (settings.MEDIA_ROOT / version.original.name).write_bytes(kit(2))  # swapped in storage
    with pytest.raises(BadBot, match="does not match its checksum"):
        bot_directory(version)
    assert cache_trees(settings) == [] and list(settings.ARENA["BOT_CACHE_DIR"].iterdir()) == []


def test_an_upload_over_the_players_quota_is_refused_naming_it_and_keeps_nothing(make_bot, player, settings):
    first = kit(1)
    settings.ARENA = {**settings.ARENA, "PLAYER_STORAGE_BYTES": len(first) + 100}
    upload_version(make_bot("alpha"), SimpleUploadedFile("bot.zip", first))
    second = kit(2)
    with pytest.raises(ValidationError) as refused:
        upload_version(make_bot("beta"), SimpleUploadedFile("bot.zip", second))  # another bot: the same quota
    message = refused.value.message_dict["file"][0]
    assert f"quota of {len(first) + 100} bytes" in message
    assert f"take {len(first)} bytes" in message and f"upload is {len(second)} bytes" in message
    assert BotVersion.objects.count() == 1 and len(stored_files(settings)) == 1

    player.is_staff = True  # operators have no quota
    player.save()  # state: admin (operators have no quota)
    upload_version(make_bot("gamma"), SimpleUploadedFile("bot.zip", second))
    assert BotVersion.objects.count() == 2


def test_a_versions_build_goes_with_its_tree(make_bot, settings, django_capture_on_commit_callbacks):
    """The build result kept under builds/ is part of its tree: deleted with its bot, evicted with it."""
    from tournaments.referee import bot_cache, limits, loaded_versions, open_sandbox
    from tournaments.services import delete_bot

    manifest = ("bot.toml", b'run = "python3 main.py"\nbuild = "sh build.sh"\n')
    bots = [make_bot(name) for name in ("alpha", "beta")]
    for number, bot in enumerate(bots):
        content = zip_bytes([manifest, MAIN, ("build.sh", f"echo {number} > built.txt\n".encode())])
        version = upload_version(bot, SimpleUploadedFile("bot.zip", content))
        with loaded_versions(version) as (runner_bot,):
            open_sandbox().prepare(runner_bot, limits()).remove()
    builds = settings.ARENA["BOT_CACHE_DIR"] / "builds"
    assert len(list(builds.glob("*.bundle"))) == 2

    with django_capture_on_commit_callbacks(execute=True):
        delete_bot(bots[0])
    assert len(list(builds.glob("*.bundle"))) == 1 and len(cache_trees(settings)) == 2  # beta's, and builds/

    settings.ARENA = {**settings.ARENA, "BOT_CACHE_BYTES": 0}
    assert bot_cache().trim() == 0  # evicted: beta's tree and its build
    assert list(builds.iterdir()) == [] and cache_trees(settings) == ["builds"]


def test_drop_bundles_frees_the_second_copy_of_older_versions(make_bot, settings,
                                                              django_capture_on_commit_callbacks):
    """A version from before issue 18 kept a bundle beside its upload: the command drops it, and the worker
    then reads the upload; one whose upload does not match its checksum keeps its bundle."""
    from django.core.files.base import ContentFile
    from django.core.management import call_command

    from runner.bundle import pack, read_zip
    from tournaments.referee import stored_entries

    old, damaged = (upload_version(make_bot(name), SimpleUploadedFile("bot.zip", kit(n)))
                    for n, name in enumerate(["alpha", "beta"]))
    for version in (old, damaged):  # as uploads stored them before
        version.file.save("files.bundle", ContentFile(pack(read_zip(kit(0 if version is old else 1)))))
    (settings.MEDIA_ROOT / damaged.original.name).write_bytes(b"not the upload")
    output = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("drop_bundles", stdout=output)
    assert "dropped 1 bundles" in output.getvalue() and "kept 1" in output.getvalue()
    old.refresh_from_db()
    damaged.refresh_from_db()
    assert not old.file and damaged.file
    assert sorted(p.name for p in stored_files(settings)) == ["files.bundle", "original.zip", "original.zip"]
    assert [entry.name for entry in stored_entries(old)] == ["bot.toml", "main.py", "version.txt"]
