"""Forbidden system calls: ptrace the parent, new namespaces by unshare and clone, mount, chroot."""
import ctypes
import os
import platform

from _bgtp import attempt, resign, until_go

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
PTRACE_ATTACH = 16
SIGCHLD = 17
CLONE_NR = {"x86_64": 56, "aarch64": 220}.get(platform.machine())


def call(name, *args):
    def action():
        if getattr(libc, name)(*args) == -1:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))
        return f"{name} succeeded"
    return action


def clone_into_new_user_namespace():
    pid = libc.syscall(CLONE_NR, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:  # the child of a raw clone: leave at once
        os._exit(0)
    if pid == -1:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    os.waitpid(pid, 0)
    return "cloned a child into a new user namespace"


until_go()
attempt("ptrace-parent", call("ptrace", PTRACE_ATTACH, os.getppid(), None, None))
attempt("unshare-userns", call("unshare", CLONE_NEWUSER))
attempt("unshare-netns", call("unshare", CLONE_NEWNET))
if CLONE_NR is not None:
    attempt("clone-newuser", clone_into_new_user_namespace)
attempt("mount-tmpfs", call("mount", b"none", b"/tmp", b"tmpfs", 0, None))
attempt("chroot", call("chroot", b"/tmp"))
resign()
