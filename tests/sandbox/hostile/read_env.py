"""Look for the worker's environment: our own, and the parent's through /proc."""
import os

from _bgtp import attempt, resign, until_go

ALLOWED = {"BGTP_VERSION", "PATH", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "LANG", "PWD",
           "SHLVL", "_"}


def own_environment():
    return {k: v for k, v in os.environ.items() if k not in ALLOWED}


def ancestors_environment():
    leaked = []
    for pid in ("1", str(os.getppid())):
        try:
            text = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        leaked += [v for v in text.split(b"\0") if v and v.split(b"=")[0].decode() not in ALLOWED]
    return leaked


until_go()
attempt("env-own", own_environment)
attempt("env-ancestors", ancestors_environment)
resign()
