"""Forbidden system calls: ptrace the parent, unshare a user namespace, mount, keyctl, bpf."""
import ctypes
import os

from _bgtp import attempt, resign, until_go

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
PTRACE_ATTACH = 16


def call(name, *args):
    def action():
        if getattr(libc, name)(*args) == -1:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))
        return f"{name} succeeded"
    return action


until_go()
attempt("ptrace-parent", call("ptrace", PTRACE_ATTACH, os.getppid(), None, None))
attempt("unshare-userns", call("unshare", CLONE_NEWUSER))
attempt("unshare-netns", call("unshare", CLONE_NEWNET))
attempt("mount-tmpfs", call("mount", b"none", b"/tmp", b"tmpfs", 0, None))
attempt("chroot", call("chroot", b"/tmp"))
resign()
