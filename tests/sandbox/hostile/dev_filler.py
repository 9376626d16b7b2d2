"""Write up to 256 MiB into /dev/shm and into /dev itself (tmpfs mounts the sandbox makes)."""
import os

from _bgtp import report, resign, until_go

BLOCK, CEILING = 1 << 20, 256 << 20


def fill(attack, path):
    written = 0
    block = b"\1" * BLOCK
    try:
        with open(path, "wb", buffering=0) as handle:
            while written < CEILING:
                written += handle.write(block)
    except OSError as error:
        report(attack, f"BLOCKED errno={error.errno} after {written >> 20} MiB")
    else:
        report(attack, f"SUCCEEDED {written >> 20} MiB written to {path}")
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


until_go()
fill("dev-shm-fill", "/dev/shm/filler.bin")
fill("dev-fill", "/dev/filler.bin")
resign()
