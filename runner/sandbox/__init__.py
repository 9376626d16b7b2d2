"""The sandbox every untrusted bot runs in."""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

from .base import BotProcess, Limits, Sandbox, SandboxError, TrustedSandbox, Workdir, sweep_workdirs
from .bubblewrap import BubblewrapSandbox, probe_host
from .cgroups import CgroupHost
from .seccomp import seccomp_program

__all__ = [
    "BotProcess", "BubblewrapSandbox", "Limits", "Sandbox", "SandboxError", "TrustedSandbox", "Workdir",
    "open_sandbox", "seccomp_program", "sweep_workdirs",
]


def _find_bwrap() -> str | None:
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap", "/usr/local/bin/bwrap")
                                          if os.access(p, os.X_OK)), None)


def open_sandbox(trusted: bool = False, builds: Path | None = None) -> Sandbox:
    """The bubblewrap sandbox, or ``SandboxError``; ``trusted=True``: no sandbox, loudly.

    ``builds``: a directory where each version's build result is kept for later processes
    (else it is kept in memory for this sandbox object's life)."""
    sweep_workdirs()
    if trusted:
        message = ("TRUSTED MODE: bots run as bare subprocesses with NO sandbox "
                   "(no network, file or process isolation). Use only for your own bots.")
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        print(f"WARNING: {message}", file=sys.stderr, flush=True)
        return TrustedSandbox(builds)
    if not sys.platform.startswith("linux"):
        raise SandboxError(f"the bot sandbox needs Linux (bubblewrap); this is {sys.platform}. "
                           "Untrusted bots are refused; use trusted mode for your own bots.")
    bwrap = _find_bwrap()
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed, so untrusted bots are refused. "
                           "Install it with scripts/install-system-deps.sh (apt-get install bubblewrap).")
    for tool in ("/bin/sh",) + (("/usr/bin/setpriv",) if os.geteuid() == 0 else ()):
        if not os.access(tool, os.X_OK):
            raise SandboxError(f"{tool} is missing (util-linux); run scripts/install-system-deps.sh")
    sandbox = BubblewrapSandbox(bwrap, CgroupHost.detect(), builds)
    probe_host(sandbox)
    return sandbox
