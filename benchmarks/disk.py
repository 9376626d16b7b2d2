"""Where an upload's bytes go on disk, and whether the worker's copies stay within their bound.

    python3 benchmarks/disk.py                # 100 versions of a starter kit, smoke-tested, then the bots deleted
    python3 benchmarks/disk.py --versions 20 --kit tafl9-search --book 200000   # a compressible file in each

Runs in a scratch directory (a fresh SQLite database, media root and bot cache, all removed after), uploads
``--versions`` versions of a starter kit through ``upload_version`` (each differs by one comment, as new
versions do), unpacks each as a worker would (``referee.version_files``) and builds it, then prints the disk
used (``du``: allocated blocks, not file sizes) by each kind of stored file, as a multiple of the uploaded
bytes; finally deletes the bots and prints what is left.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def du(paths) -> int:
    """Allocated bytes of ``paths`` (what ``du`` reports), 0 for none."""
    paths = [str(path) for path in paths if Path(path).exists()]
    if not paths:
        return 0
    done = subprocess.run(["du", "-s", "-B1", "-c", *paths], capture_output=True, text=True, check=True)
    return int(done.stdout.splitlines()[-1].split()[0])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--kit", default="tafl9-search")
    parser.add_argument("--cache-bytes", type=int, default=None, help="ARENA_BOT_CACHE_BYTES for the run")
    parser.add_argument("--book", type=int, default=0, help="add an opening book of this many (compressible) bytes")
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (2 versions): that it runs, not its figures")
    args = parser.parse_args(argv)
    if args.quick:
        args.versions = 2

    scratch = Path(tempfile.mkdtemp(prefix="arena-disk-"))
    os.environ.update(ARENA_VAR_DIR=str(scratch), DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
                      MEDIA_ROOT=str(scratch / "media"), ARENA_BOT_CACHE_DIR=str(scratch / "bots"),
                      ARENA_SANDBOX_TRUSTED="1", DJANGO_SETTINGS_MODULE="config.settings")
    if args.cache_bytes is not None:
        os.environ["ARENA_BOT_CACHE_BYTES"] = str(args.cache_bytes)
    try:
        run(args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(args, scratch: Path) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    from tournaments import referee
    from tournaments.services import create_bot, create_player, delete_bot, upload_version
    from web.starters import kit_zip

    call_command("migrate", verbosity=0)
    owner = create_player(username="bench", password=None)
    owner.is_staff = True  # no storage quota: the figures are about where bytes go
    owner.save()
    base = kit_zip(args.kit)
    bots = [create_bot(owner, args.kit.split("-")[0], f"bench-{n}") for n in range((args.versions + 9) // 10)]
    uploaded = 0
    sandbox = referee.open_sandbox(trusted=True)
    for number in range(args.versions):
        # a different file each time, as new versions are: one more file with its number in it
        import io
        import zipfile

        buffer = io.BytesIO(base)
        with zipfile.ZipFile(buffer, "a", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("version.txt", f"version {number}\n")
            if args.book:  # text compresses well: this is where a zip's bytes multiply once unpacked
                archive.writestr("book.txt", (b"e4 e5 Nf3 Nc6 Bb5 a6\n" * (args.book // 21 + 1))[:args.book])
        content = buffer.getvalue()
        uploaded += len(content)
        version = upload_version(bots[number % len(bots)], SimpleUploadedFile("bot.zip", content))
        with referee.version_files(version) as _:
            bot = referee.load_version(version)
            sandbox.prepare(bot, referee.limits()).remove()  # the build, kept under builds/ as a worker does

    media, cache = Path(settings.MEDIA_ROOT), Path(settings.ARENA["BOT_CACHE_DIR"])
    rows = [
        ("uploaded (file sizes)", None, uploaded),
        ("media: originals", None, du(media.rglob("original.*"))),
        ("media: bundles", None, du(media.rglob("files.bundle"))),
        ("cache: unpacked trees", None, du(p for p in cache.iterdir() if p.is_dir() and p.name != "builds")),
        ("cache: builds", None, du([cache / "builds"])),
    ]
    total = sum(row[2] for row in rows[1:])
    print(f"{args.versions} versions of {args.kit} ({len(base)} bytes zipped); "
          f"cache bound {settings.ARENA.get('BOT_CACHE_BYTES')} bytes")
    for name, _, size in rows:
        print(f"  {name:24} {size:>12,} bytes  {size / uploaded:6.1f}x the upload")
    print(f"  {'all stored':24} {total:>12,} bytes  {total / uploaded:6.1f}x the upload")
    for bot in bots:
        delete_bot(bot)
    left = [p for p in list(media.rglob("*")) + list(cache.rglob("*")) if p.is_file()]
    print(f"after deleting the bots: {len(left)} files left, {du(left):,} bytes")


if __name__ == "__main__":
    main()
