"""The sandbox every untrusted bot runs in.

Interface (the match runner uses only this)::

    sandbox = open_sandbox()                 # bubblewrap, or SandboxError: untrusted bots never run bare
    sandbox = open_sandbox(trusted=True)     # bare subprocesses, with a loud warning: one's own bots only
    sandbox = open_sandbox(builds=directory) # build results also kept as files there, for later processes
    workdir = sandbox.prepare(bot, limits)   # private copy of the bot's files, or of its build's result:
                                             # bot.build runs once per version and sandbox (offline, in the
                                             # sandbox, runner.build); BadBot with the log tail on failure
    proc = sandbox.spawn(workdir, bot, limits, env={})   # env: BGTP_VERSION=1 + env, nothing else
    proc.pid                                 # host pid of the sandbox (bwrap); signals to it end the bot
    proc.stdin / proc.stdout / proc.stderr   # binary, unbuffered pipes; select() on stdout/stderr
    proc.poll()                              # the bot's exit code (bwrap passes it on) or None
    proc.suspend(); proc.resume()            # freeze / thaw the whole tree (cgroup freezer, else SIGSTOP)
    proc.kill()                              # whole tree killed and reaped, cgroups and workdir removed;
                                             # idempotent; also ``with proc: ...``

``Limits`` holds every resource limit (memory, CPU seconds, processes, disk,
/tmp, open files, file size, and the build's time, log tail and output caps). One workdir serves one spawn:
``kill`` removes it. ``sandbox.name`` is "bubblewrap" or "trusted";
``sandbox.describe()`` says what the host offered.

Spawning from a thread: bubblewrap's ``--die-with-parent`` ties the sandbox to
the *thread* that spawned it, so spawn from a thread that outlives the game.
Opening the bubblewrap sandbox makes this process a child subreaper, so the
orphans of a bot's tree come back to it and ``kill`` reaps them.

What each bot gets from the bubblewrap sandbox:
- its own user, PID, network (no loopback service of the host is reachable),
  IPC, UTS and cgroup namespaces; no new user namespaces inside;
- a read-only ``/usr`` (so ``python3`` is ``/usr/bin/python3``), the dynamic
  loader cache, and nothing else of the host: no /home, /root, /etc secrets,
  project tree, other bots;
- the bot's library (``engines``, the bot SDK) read-only at ``/opt/tabula/engines``
  with ``PYTHONPATH=/opt/tabula``; never this host package (``runner``);
- ``/bot``, its working directory: a tmpfs of ``disk_bytes`` holding a copy of
  the prepared workdir (which stays read-only at ``/opt/tabula/bot``);
  ``/tmp``: a tmpfs of ``tmp_bytes``;
- rlimits: address space, CPU seconds, file size, open files, no core dumps,
  and processes when it has its own uid;
- a seccomp filter (built here, no libseccomp): sockets only for AF_UNIX; no
  ptrace, mount, namespaces, bpf, keyctl, io_uring, module or clock changes;
- as root: a dedicated uid per bot, and cgroup memory and pids limits (v1 or
  v2, whichever the host offers), ``cgroup.kill``/``cgroup.freeze`` with v2.
Without root there are no cgroups: the rlimits and the PID namespace remain.
The trusted sandbox gives none of this; its ``kill`` covers the process group.

Modules: ``base`` (limits, workdirs, the bot process, the trusted sandbox), ``bubblewrap``,
``seccomp`` (the filter), ``cgroups``, ``proctree`` (a bot's processes as /proc shows them).
"""

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
