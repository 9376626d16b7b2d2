"""Read the opponent's files, by host path and by looking around the sandbox."""
import os

from _bgtp import TARGETS, attempt, resign, until_go


def read_other():
    path = TARGETS["other_bot"]
    return os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(4096)


def look_around():
    found = []
    for root in ("/opt", "/tmp", "/bot", "/"):
        for directory, dirs, files in os.walk(root):
            if directory == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys", "usr", "dev")]
            found += [os.path.join(directory, f) for f in files if "opponent" in f]
    return found


until_go()
attempt("read-other-bot", read_other)
attempt("find-other-bot", look_around)
resign()
