"""A bot's files as one checked list: read once from an archive, written to disk by our own code."""

from __future__ import annotations

import io
import json
import lzma
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


class BadFiles(ValueError):
    """An archive or a list of files that is refused; the message names the problem."""


@dataclass(frozen=True)
class FileLimits:
    max_entries: int = 200
    max_bytes: int = 50 << 20  # all files' sizes added up
    max_ratio: int | None = 100  # unpacked to packed, for compressed input; None: not checked
    max_depth: int = 32
    max_part_bytes: int = 255  # one component of a name, as UTF-8
    max_name_bytes: int = 1024


@dataclass(frozen=True)
class Entry:
    name: str  # a relative POSIX path, checked by ``check_name``
    data: bytes | None  # None for a directory
    executable: bool = False

    @property
    def is_dir(self) -> bool:
        return self.data is None


def check_name(raw: str, limits: FileLimits = FileLimits()) -> str:
    """``raw`` as a safe relative name, or BadFiles. One leading ``./`` (what ``tar -C dir .``
    writes) is the archive's root and is dropped; ``.`` or ``..`` anywhere else is refused."""
    if not isinstance(raw, str) or not raw:
        raise BadFiles("an entry has an empty name")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in raw):
        raise BadFiles(f"entry {raw!r} has a control character (NUL, newline, ...) in its name")
    if "\\" in raw:
        raise BadFiles(f"entry {raw!r} has a backslash in its name")
    if raw.startswith("/"):
        raise BadFiles(f"entry {raw!r} has an absolute path")
    name = raw[2:] if raw.startswith("./") else raw
    name = name[:-1] if name.endswith("/") else name
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) > limits.max_name_bytes:
        raise BadFiles(f"entry {raw[:60]!r}...: a name may have at most {limits.max_name_bytes} bytes")
    parts = name.split("/")
    if len(parts) > limits.max_depth:
        raise BadFiles(f"entry {raw[:60]!r}...: more than {limits.max_depth} directories deep")
    for part in parts:
        if part == "..":
            raise BadFiles(f"entry {raw!r} climbs out of its directory ('..')")
        if part in ("", "."):
            raise BadFiles(f"entry {raw!r}: empty or '.' parts are not allowed in a name")
        if len(part.encode("utf-8", "surrogateescape")) > limits.max_part_bytes:
            raise BadFiles(f"entry {raw[:60]!r}...: a name part may have at most {limits.max_part_bytes} bytes")
    return name


class _Collector:
    """Gathers entries, refusing duplicates, a name that is both a file and a directory, and
    anything over the limits, before the data of an entry is read."""

    def __init__(self, limits: FileLimits, packed_bytes: int | None = None) -> None:
        self.limits = limits
        self.packed = packed_bytes
        self.listed: set[str] = set()
        self.files: dict[str, Entry] = {}
        self.dirs: set[str] = set()  # named, or implied by a deeper entry
        self.bytes = 0

    def _claim(self, raw: str, is_dir: bool) -> str | None:
        if raw in ("./", ".") and is_dir:
            return None  # the archive's own root
        name = check_name(raw, self.limits)
        if name in self.listed:
            raise BadFiles(f"entry {name!r} appears twice")
        parts = name.split("/")
        parents = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        if (name in self.dirs and not is_dir) or any(parent in self.files for parent in parents):
            raise BadFiles(f"entry {name!r} is both a file and a directory")
        self.listed.add(name)
        if len(self.listed) > self.limits.max_entries:
            raise BadFiles(f"the archive holds more than {self.limits.max_entries} files and directories")
        self.dirs.update(parents)
        return name

    def add_dir(self, raw: str) -> None:
        name = self._claim(raw, is_dir=True)
        if name is not None:
            self.dirs.add(name)

    def add_file(self, raw: str, size: int, read: Callable[[], bytes], executable: bool) -> None:
        name = self._claim(raw, is_dir=False)
        if name is None:
            raise BadFiles(f"entry {raw!r} is both a file and a directory")
        self.bytes += size
        if self.bytes > self.limits.max_bytes:
            raise BadFiles(f"the files add up to more than {self.limits.max_bytes} bytes (at {name!r})")
        ratio = self.limits.max_ratio
        if ratio and self.packed is not None and self.bytes > ratio * max(self.packed, 1) \
                and self.bytes > 1 << 20:
            raise BadFiles(f"the compression ratio is over {ratio}:1 (a bomb?)")
        data = read()
        if len(data) != size:
            raise BadFiles(f"entry {name!r} holds {len(data)} bytes, not the {size} it declares")
        self.files[name] = Entry(name, data, executable)

    def entries(self) -> list[Entry]:
        """Directories (named or implied by a file) and files, each parent before its children."""
        rows = [Entry(name, None) for name in self.dirs] + list(self.files.values())
        return sorted(rows, key=lambda entry: entry.name.split("/"))


# --- zip ------------------------------------------------------------------------------------------

_LOCAL = struct.Struct("<4s5H3L2H")
_END = struct.Struct("<4s4H2LH")


def read_zip(content: bytes, limits: FileLimits = FileLimits()) -> list[Entry]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, ValueError, OSError, EOFError) as error:
        raise BadFiles(f"not a readable zip archive: {error}") from None
    _check_zip_layout(content, archive, infos)
    collector = _Collector(limits, len(content))
    for info in infos:
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)  # 0 when the archiver wrote no Unix mode
        if kind == stat.S_IFLNK:
            raise BadFiles(f"entry {info.filename!r} is a symbolic link")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise BadFiles(f"entry {info.filename!r} is a device, fifo or other special file")
        if info.flag_bits & 0x1:
            raise BadFiles(f"entry {info.filename!r} is encrypted")
        if info.filename.endswith("/") or kind == stat.S_IFDIR:  # not is_dir(): it fails on an empty name
            collector.add_dir(info.filename)
        else:
            collector.add_file(info.filename, info.file_size, lambda info=info: _read_member(archive, info),
                               executable=bool(mode & 0o111))
    return collector.entries()


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    try:
        with archive.open(info) as member:
            return member.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, NotImplementedError, OSError, RuntimeError, EOFError,
            ValueError) as error:
        raise BadFiles(f"entry {info.filename!r} cannot be read: {error}") from None


def _check_zip_layout(content: bytes, archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo]) -> None:
    """Every byte accounted for: entries back to back from byte 0, then the central directory, then
    its end record and comment. Bytes before, between or after (a second archive glued on, data
    only one reader sees) are refused."""
    offset = 0
    for info in sorted(infos, key=lambda info: info.header_offset):
        if info.header_offset != offset:
            raise BadFiles("the zip has data before or between its entries (concatenated archives?)")
        header = content[offset:offset + _LOCAL.size]
        if len(header) < _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise BadFiles(f"entry {info.filename!r} has no local header where the directory says")
        flags, name_length, extra_length = header[6:8], header[26:28], header[28:30]
        offset += _LOCAL.size + int.from_bytes(name_length, "little") + int.from_bytes(extra_length, "little")
        offset += info.compress_size
        if int.from_bytes(flags, "little") & 0x8:  # a data descriptor follows, signed or not
            offset += 16 if content[offset:offset + 4] == b"PK\x07\x08" else 12
    if offset != archive.start_dir:
        raise BadFiles("the zip has data between its entries and its directory")
    end_at = len(content) - _END.size - len(archive.comment)
    if end_at < 0 or content[end_at:end_at + 4] != b"PK\x05\x06":
        raise BadFiles("the zip has data after its end record (concatenated archives?)")
    _, disk, cd_disk, on_disk, total, cd_size, cd_offset, _ = _END.unpack_from(content, end_at)
    if (disk, cd_disk) != (0, 0) or on_disk != total or total != len(infos) \
            or cd_offset != archive.start_dir or cd_offset + cd_size != end_at:
        raise BadFiles("the zip's directory does not match its entries (zip64, split or glued archives "
                       "are not accepted)")


# --- tar, tar.gz ----------------------------------------------------------------------------------

def read_tar_gz(content: bytes, limits: FileLimits = FileLimits()) -> list[Entry]:
    return read_tar(_gunzip(content, limits), limits, packed_bytes=len(content))


def _tar_budget(limits: FileLimits) -> int:
    """The most bytes a tar of files within the limits can take: data, a header and padding each,
    long-name headers, and the end blocks."""
    return limits.max_bytes + limits.max_entries * (3 * 512 + limits.max_name_bytes + 512) + 20 * 512


def _gunzip(content: bytes, limits: FileLimits) -> bytes:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    budget = _tar_budget(limits)
    out = bytearray()
    try:
        out += decompressor.decompress(content, budget + 1)
        if len(out) > budget:
            raise BadFiles(f"the archive unpacks to more than {limits.max_bytes} bytes")
        if limits.max_ratio and len(out) > limits.max_ratio * len(content) and len(out) > 2 << 20:
            raise BadFiles(f"the compression ratio is over {limits.max_ratio}:1 (a gzip bomb?)")
    except zlib.error as error:
        raise BadFiles(f"not a readable .tar.gz archive: {error}") from None
    if not decompressor.eof:
        raise BadFiles("not a readable .tar.gz archive: the gzip stream is truncated")
    if decompressor.unused_data:
        raise BadFiles("the .tar.gz has data after its first gzip member (concatenated archives "
                       "are not accepted)")
    return bytes(out)


def read_tar(raw: bytes, limits: FileLimits = FileLimits(), packed_bytes: int | None = None) -> list[Entry]:
    """The entries of an uncompressed tar held in memory (an upload's, or a build's output)."""
    if len(raw) > _tar_budget(limits):
        raise BadFiles(f"the archive is larger than {limits.max_bytes} bytes of files can make")
    collector = _Collector(limits, packed_bytes)
    try:
        archive = _Tar(fileobj=io.BytesIO(raw), mode="r")
        for member in archive:
            _add_tar_member(collector, archive, member)
    except BadFiles:
        raise
    # ValueError: a bad GNU sparse map; IndexError: an old GNU sparse header cut short;
    # RecursionError: extended headers chained one after another.
    except (tarfile.TarError, OSError, EOFError, ValueError, IndexError, RecursionError) as error:
        raise BadFiles(f"not a readable tar archive: {error}") from None
    if raw[archive.offset:].strip(b"\0"):
        raise BadFiles("the tar has data after its end (concatenated archives or a damaged header)")
    return collector.entries()


_MAX_EXTENDED = 4096  # one pax or GNU long-name header: a 1,024-byte name and a few fields fit
_MAX_CHAINED = 4  # extended headers before one member: GNU long name and link, pax global and own


class _TarInfo(tarfile.TarInfo):
    """tarfile's member header, with the extended headers (pax, GNU long names) bounded before tarfile
    parses them: Python 3.11.7 parses a pax header in time quadratic in its size (CVE-2024-6232, and
    its ``<length> <key>=`` record loop), and reads a run of such headers by recursion."""

    def _proc_builtin(self, archive):
        archive.chained = 0  # a member: the run of extended headers before it ends
        return super()._proc_builtin(archive)

    def _proc_pax(self, archive):
        _check_pax(self._extended_header(archive))
        return super()._proc_pax(archive)

    def _proc_gnulong(self, archive):
        self._extended_header(archive)
        return super()._proc_gnulong(archive)

    def _extended_header(self, archive) -> bytes:
        archive.chained += 1
        if archive.chained > _MAX_CHAINED:
            raise BadFiles(f"the tar has more than {_MAX_CHAINED} extended (pax or long-name) headers in a row")
        if self.size > _MAX_EXTENDED:
            raise BadFiles(f"the tar has an extended (pax or long-name) header of {self.size} bytes; "
                           f"at most {_MAX_EXTENDED} are accepted")
        start = archive.fileobj.tell()
        data = archive.fileobj.read(self.size)
        archive.fileobj.seek(start)
        return data


class _Tar(tarfile.TarFile):
    tarinfo = _TarInfo
    chained = 0


def _check_pax(data: bytes) -> None:
    """Refuse what tarfile's regular expressions would take quadratic time on: a pax header that is
    not a plain run of ``<length> <key>=<value>\\n`` records, or that holds a long run of digits."""
    if re.search(rb"\d{33}", data):
        raise BadFiles("the tar has a pax header with a run of more than 32 digits")
    pos = 0
    while pos < len(data):
        length, space, _ = data[pos:pos + 12].partition(b" ")
        end = pos + int(length) if space and length.isdigit() else pos
        if not pos < end <= len(data) or data[end - 1:end] != b"\n" or b"=" not in data[pos:end]:
            raise BadFiles("the tar has a damaged pax header")
        pos = end


def _add_tar_member(collector: _Collector, archive: tarfile.TarFile, member: tarfile.TarInfo) -> None:
    name = member.name
    if member.issym():
        raise BadFiles(f"entry {name!r} is a symbolic link")
    if member.islnk():
        raise BadFiles(f"entry {name!r} is a hard link")
    if member.isdev() or member.isfifo():
        raise BadFiles(f"entry {name!r} is a device or fifo")
    if member.issparse():
        raise BadFiles(f"entry {name!r} is a sparse file")
    if member.isdir():
        collector.add_dir(name + "/")
    elif member.isreg():
        collector.add_file(name, member.size, lambda: archive.extractfile(member).read(member.size + 1),
                           executable=bool(member.mode & 0o111))
    else:
        raise BadFiles(f"entry {name!r} is not a regular file or directory")


# --- to disk, and the stored form ---------------------------------------------------------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_tree(entries: list[Entry], root: str | Path) -> None:
    """Create ``entries`` (from this module, parents first) inside the existing directory ``root``.

    Every step goes through a directory descriptor without following links, and no file is
    overwritten, so even a list that did not come from here cannot write outside ``root``.
    """
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        for entry in entries:
            *parents, leaf = check_name(entry.name).split("/")
            parent_fd = _open_dirs(root_fd, parents)
            try:
                if entry.is_dir:
                    os.mkdir(leaf, 0o755, dir_fd=parent_fd)
                else:
                    _write_file(parent_fd, leaf, entry)
            finally:
                if parent_fd != root_fd:
                    os.close(parent_fd)
    finally:
        os.close(root_fd)


def _open_dirs(root_fd: int, parts: list[str]) -> int:
    fd = root_fd
    for part in parts:
        child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        if fd != root_fd:
            os.close(fd)
        fd = child
    return fd


def _write_file(parent_fd: int, leaf: str, entry: Entry) -> None:
    mode = 0o755 if entry.executable else 0o644
    fd = os.open(leaf, _FILE_FLAGS, mode, dir_fd=parent_fd)
    with open(fd, "wb") as file:
        os.fchmod(fd, mode)  # past the umask
        file.write(entry.data)


BUNDLE_MAGIC = b"tabula-bot-files/1\n"


def pack(entries: list[Entry]) -> bytes:
    """The stored form of a checked list: a magic line, a JSON index line, then the files' bytes."""
    index = [[entry.name, "d"] if entry.is_dir else [entry.name, "f", len(entry.data), entry.executable]
             for entry in entries]
    files = b"".join(entry.data for entry in entries if not entry.is_dir)
    return BUNDLE_MAGIC + json.dumps(index, separators=(",", ":")).encode("ascii") + b"\n" + files


def unpack(blob: bytes, limits: FileLimits = FileLimits()) -> list[Entry]:
    """The list ``pack`` stored, checked again: a damaged or tampered store still writes nothing
    outside its directory."""
    if not blob.startswith(BUNDLE_MAGIC):
        raise BadFiles("not a bundle of bot files")
    index_end = blob.find(b"\n", len(BUNDLE_MAGIC))
    try:
        index = json.loads(blob[len(BUNDLE_MAGIC):index_end])
    except (ValueError, RecursionError) as error:
        raise BadFiles(f"the bundle's index cannot be read: {error}") from None
    collector = _Collector(limits)
    offset = index_end + 1
    try:
        for row in index:
            if row[1] == "d":
                collector.add_dir(row[0] + "/")
                continue
            name, _, size, executable = row
            start, offset = offset, offset + int(size)
            collector.add_file(name, size, lambda start=start, end=offset: blob[start:end], bool(executable))
    except BadFiles:
        raise
    except (TypeError, ValueError, IndexError) as error:
        raise BadFiles(f"the bundle's index is damaged: {error}") from None
    if offset != len(blob):
        raise BadFiles("the bundle's files do not match its index")
    return collector.entries()
