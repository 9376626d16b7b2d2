"""Write up to 2 GiB into the working directory, then into /tmp."""
import os

from _bgtp import attempt, resign, until_go

BLOCK, CEILING = 1 << 20, 2 << 30


def fill(directory):
    def action():
        written = 0
        block = os.urandom(BLOCK)
        with open(os.path.join(directory, "filler.bin"), "wb") as handle:
            while written < CEILING:
                handle.write(block)
                handle.flush()
                written += BLOCK
        return f"{written >> 20} MiB written to {directory}"
    return action


until_go()
attempt("disk-fill-workdir", fill("."))
attempt("disk-fill-tmp", fill("/tmp"))
resign()
