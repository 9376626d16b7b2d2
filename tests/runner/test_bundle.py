"""runner.bundle on damaged and hostile archives: only ever BadFiles, in bounded time.

The archive shapes of issue 9 are tried through the upload API (tests/api/test_upload_attacks.py);
here are the parser's own corners, found by mutating good archives.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import struct
import tarfile
import time
import zipfile

import pytest

from runner.bundle import BUNDLE_MAGIC, BadFiles, Entry, pack, read_tar, read_tar_gz, read_zip, unpack, write_tree

MANIFEST = b'run = "python3 main.py"\n'


def block(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, size: int | None = None, **fields) -> bytes:
    """One tar header (ustar) and its padded data, written by hand so that any field can lie."""
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, len(data) if size is None else size
    for field, value in fields.items():
        setattr(info, field, value)
    return info.tobuf(tarfile.USTAR_FORMAT) + data + b"\0" * (-len(data) % 512)


def pax(records: bytes) -> bytes:
    return block("././@PaxHeader", records, tarfile.XHDTYPE)


def zip_of(files, compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in files:
            archive.writestr(name, data)
    return buffer.getvalue()


def central_offset(content: bytes) -> int:
    return content.index(b"PK\x01\x02")


def test_a_good_tar_and_zip_read_alike():
    tar = block("bot.toml", MANIFEST) + block("src/", kind=tarfile.DIRTYPE) \
        + block("src/main.py", b"print(1)\n", mode=0o755) + b"\0" * 1024
    expected = [Entry("bot.toml", MANIFEST), Entry("src", None), Entry("src/main.py", b"print(1)\n", True)]
    assert read_tar_gz(gzip.compress(tar)) == expected
    assert [entry.name for entry in read_zip(zip_of([("bot.toml", MANIFEST), ("src/main.py", b"print(1)\n")]))] \
        == ["bot.toml", "src", "src/main.py"]


def test_a_zip_needing_an_unknown_version_is_refused():
    content = bytearray(zip_of([("bot.toml", MANIFEST)]))
    struct.pack_into("<H", content, central_offset(content) + 6, 99)  # "version needed to extract"
    with pytest.raises(BadFiles, match="not a readable zip archive: zip file version 9.9"):
        read_zip(bytes(content))


def test_a_zip_entry_with_an_empty_name_is_refused():
    with pytest.raises(BadFiles, match="empty name"):
        read_zip(_shrink_central_name(zip_of([("x", b"data")])))


def _shrink_central_name(content: bytes) -> bytes:
    """The zip of one entry named "x", its central directory naming it "" instead."""
    at = central_offset(content)
    central = bytearray(content[at:])
    struct.pack_into("<H", central, 28, 0)  # file name length
    del central[46:47]  # the name
    end = central.index(b"PK\x05\x06")
    struct.pack_into("<L", central, end + 12, end)  # the directory's size
    return content[:at] + bytes(central)


def test_a_damaged_lzma_member_is_refused():
    content = bytearray(zip_of([("bot.toml", MANIFEST * 20)], zipfile.ZIP_LZMA))
    data = 30 + len("bot.toml")  # past the local header and the name: 4 bytes, then the LZMA properties
    content[data + 4:data + 9] = b"\xff" * 5
    with pytest.raises(BadFiles, match="cannot be read"):
        read_zip(bytes(content))


def test_a_bad_gnu_sparse_map_is_refused():
    tar = pax(b"22 GNU.sparse.map=0,x\n" + b"21 GNU.sparse.size=3\n") + block("s", b"abc") + b"\0" * 1024
    with pytest.raises(BadFiles, match="not a readable tar"):
        read_tar(tar)


def test_an_old_gnu_sparse_header_cut_short_is_refused():
    header = bytearray(block("s", kind=tarfile.GNUTYPE_SPARSE))
    header[482] = 1  # "more sparse headers follow", and none does
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % sum(header)
    with pytest.raises(BadFiles, match="not a readable tar"):
        read_tar(bytes(header))


@pytest.mark.parametrize("header, problem", [
    (pax(b"2 " * 2000 + b"="), "damaged pax header"),  # tarfile's record loop: quadratic
    (pax(b"1" * 4000 + b" "), "run of more than 32 digits"),  # its hdrcharset search: quadratic
    (pax(b"2 " * 500_000 + b"="), "header of 1000001 bytes"),
    (block("././@LongLink", b"n" * 5000, tarfile.GNUTYPE_LONGNAME), "header of 5000 bytes"),
    (b"".join(pax(b"9 a=bcde\n") for _ in range(600)), "more than 4 extended"),  # chained without a member
], ids=["records", "digits", "huge", "long name", "chain"])
def test_extended_headers_are_bounded_before_tarfile_parses_them(header, problem):
    tar = header + block("main.py", b"x") + b"\0" * 1024
    started = time.process_time()
    with pytest.raises(BadFiles, match=problem):
        read_tar_gz(gzip.compress(tar))
    assert time.process_time() - started < 0.5


def test_a_deeply_nested_bundle_index_is_refused():
    with pytest.raises(BadFiles, match="index cannot be read"):
        unpack(BUNDLE_MAGIC + b"[" * 100_000 + b"\n")


def test_a_bundle_whose_index_names_a_climb_is_refused():
    forged = BUNDLE_MAGIC + json.dumps([["../x", "f", 1, False]]).encode() + b"\nx"
    with pytest.raises(BadFiles, match="climbs out"):
        unpack(forged)
    assert unpack(pack([Entry("a", None), Entry("a/b", b"x", True)])) == [Entry("a", None), Entry("a/b", b"x", True)]


def test_write_tree_never_follows_a_link_it_finds(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "a")  # planted: write_tree creates, it never reuses
    with pytest.raises(OSError):
        write_tree([Entry("a/x", b"owned")], root)
    with pytest.raises(OSError):
        write_tree([Entry("a", b"owned")], root)
    assert list(outside.iterdir()) == []


def _mutants(seed: int, base: bytes, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        data = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(max(len(data), 1))
            choice = rng.random()
            if choice < 0.6:
                data[at] = rng.randrange(256)
            elif choice < 0.8:
                del data[at:at + rng.randint(1, 64)]
            else:
                data[at:at + 8] = rng.choice([b"99999999", b"0", b"/", b"..", b"\0"])
        yield bytes(data)


def _tar(tar_format) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tar_format) as archive:
        for name, data in (("bot.toml", MANIFEST), ("dir/main.py", b"print(1)\n" * 30), ("x" * 120 + "/y", b"z")):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1.5  # a float mtime: a pax header in PAX_FORMAT
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


SEEDS = {
    "gnu tar": (read_tar, _tar(tarfile.GNU_FORMAT)),
    "pax tar": (read_tar, _tar(tarfile.PAX_FORMAT)),
    "tar.gz": (read_tar_gz, gzip.compress(_tar(tarfile.PAX_FORMAT))),
    "zip": (read_zip, zip_of([("bot.toml", MANIFEST), ("dir/main.py", b"print(1)\n" * 30)])),
    "lzma zip": (read_zip, zip_of([("bot.toml", MANIFEST * 20)], zipfile.ZIP_LZMA)),
    "bzip2 zip": (read_zip, zip_of([("bot.toml", MANIFEST * 20)], zipfile.ZIP_BZIP2)),
    "bundle": (unpack, pack([Entry("bot.toml", MANIFEST), Entry("d", None), Entry("d/m.py", b"1", True)])),
}


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_damaged_archives_raise_only_bad_files(kind):
    reader, base = SEEDS[kind]
    for mutant in _mutants(sum(map(ord, kind)), base, 1500):
        try:
            reader(mutant)
        except BadFiles:
            pass
