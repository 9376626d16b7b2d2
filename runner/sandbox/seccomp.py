"""The seccomp filter every sandboxed bot runs under: a classic BPF program, built without libseccomp."""

from __future__ import annotations

import platform
import struct

from .base import SandboxError

AF_UNIX = 1
EACCES, EPERM, ENOSYS = 13, 1, 38
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_KILL_PROCESS = 0x80000000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_JSET_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

# Denied with EPERM: ways out of the sandbox or into the kernel's soft spots. Numbers from
# asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64).
DENIED_SYSCALLS = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "mount": 165, "umount2": 166, "unshare": 272, "setns": 308, "pivot_root": 155,
        "chroot": 161, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "process_vm_readv": 310, "process_vm_writev": 311, "kexec_load": 246,
        "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "open_by_handle_at": 304,
        "name_to_handle_at": 303, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "move_mount": 429,
        "open_tree": 428, "fspick": 433, "mount_setattr": 442, "quotactl": 179, "syslog": 103,
        "kcmp": 312, "pidfd_getfd": 438, "process_madvise": 440, "iopl": 172, "ioperm": 173,
        "lookup_dcookie": 212, "vhangup": 153, "settimeofday": 164, "clock_settime": 227,
        "adjtimex": 159, "sethostname": 170, "setdomainname": 171,
    }, {"socket": 41, "clone": 56, "clone3": 435}),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "mount": 40, "umount2": 39, "unshare": 97, "setns": 268, "pivot_root": 41,
        "chroot": 51, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "process_vm_readv": 270, "process_vm_writev": 271, "kexec_load": 104,
        "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "open_by_handle_at": 265,
        "name_to_handle_at": 264, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "move_mount": 429,
        "open_tree": 428, "fspick": 433, "mount_setattr": 442, "quotactl": 60, "syslog": 116,
        "kcmp": 272, "pidfd_getfd": 438, "process_madvise": 440, "vhangup": 58, "settimeofday": 170,
        "clock_settime": 112, "adjtimex": 171, "sethostname": 161, "setdomainname": 162,
    }, {"socket": 198, "clone": 220, "clone3": 435}),
}


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def seccomp_program(machine: str | None = None) -> bytes:
    """The filter bwrap loads with ``--seccomp FD`` (struct sock_filter[], native byte order).

    socket() is allowed only for AF_UNIX (EACCES otherwise); clone() may not make
    namespaces; clone3 gets ENOSYS so glibc falls back to clone; the denied list
    gets EPERM; a foreign ABI is killed.
    """
    machine = machine or platform.machine()
    if machine not in DENIED_SYSCALLS:
        raise SandboxError(f"no seccomp syscall table for machine {machine!r}; "
                           f"known: {', '.join(DENIED_SYSCALLS)}")
    audit_arch, denied, special = DENIED_SYSCALLS[machine]
    numbers = sorted(set(denied.values()))
    errno_eperm = _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EPERM)
    n = len(numbers)
    tail = [
        _bpf(BPF_JEQ_K, special["clone3"], jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | ENOSYS),
        _bpf(BPF_JEQ_K, special["socket"], jt=2, jf=0),
        _bpf(BPF_JEQ_K, special["clone"], jt=5, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
        # socket(domain, ...): domain is args[0], its low 32 bits at offset 16 (little endian)
        _bpf(BPF_LD_W_ABS, 16),
        _bpf(BPF_JEQ_K, AF_UNIX, jt=1, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EACCES),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
        # clone(flags, ...): no new namespaces (bwrap < 0.8 has no --disable-userns)
        _bpf(BPF_LD_W_ABS, 16),
        _bpf(BPF_JSET_K, CLONE_NAMESPACES, jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EPERM),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
    ]
    # each JEQ jumps over the rest of the JEQs and the tail, to errno_eperm
    body = [_bpf(BPF_JEQ_K, number, jt=(n - 1 - i) + len(tail), jf=0) for i, number in enumerate(numbers)]
    header = [
        _bpf(BPF_LD_W_ABS, 4),  # seccomp_data.arch
        _bpf(BPF_JEQ_K, audit_arch, jt=1, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
        _bpf(BPF_LD_W_ABS, 0),  # seccomp_data.nr
        _bpf(BPF_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
    ]
    return b"".join(header + body + tail + [errno_eperm])
