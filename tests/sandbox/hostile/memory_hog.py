"""Allocate and touch up to 4 GiB in 128 MiB pieces."""
from _bgtp import attempt, resign, until_go

CHUNK, CEILING = 128 << 20, 4 << 30


def hog():
    held = []
    while len(held) * CHUNK < CEILING:
        held.append(bytearray(b"\1") * CHUNK)  # written, so the pages are really touched
    return f"{len(held) * CHUNK >> 20} MiB allocated"


until_go()
attempt("memory-hog", hog)
resign()
