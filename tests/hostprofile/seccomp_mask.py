"""A container-style seccomp mask for tests: a preexec_fn that answers
chosen x86_64 syscalls with EPERM, as a container runtime's profile does
(Docker's default without CAP_SYS_PTRACE refuses pidfd_getfd, and
process_vm_readv only on kernels before 4.8; without CAP_SYS_ADMIN,
unshare). Shared by the host profile tests and the
integration tests. Python 3 standard library only."""

import ctypes
import struct

# x86_64 numbers and the seccomp constants the mask needs.
NR_PROCESS_VM_READV, NR_PIDFD_GETFD, NR_UNSHARE, NR_CLONE = 310, 438, 272, 56
CLONE_NEWPID = 0x20000000
AUDIT_ARCH_X86_64 = 0xC000003E
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
EPERM = 1


def install(prog):
    """Installs the classic BPF program PROG (bytes) as a seccomp filter on
    the calling process, with no_new_privs."""
    buf = ctypes.create_string_buffer(prog)

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fp = Fprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fp), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "installing the mask")


def bpf(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k)


def newpid_mask():
    """preexec_fn: unshare and clone with CLONE_NEWPID answered EPERM, and
    nothing else: a host that lets a user namespace be made and refuses
    what it gives, as Ubuntu's apparmor_restrict_unprivileged_userns does
    (there by denying the capabilities inside)."""
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    install(b"".join([
        bpf(ld, 0, 0, 4),                        # arch
        bpf(jeq, 0, 5, AUDIT_ARCH_X86_64),
        bpf(ld, 0, 0, 0),                        # nr
        bpf(jeq, 1, 0, NR_UNSHARE),
        bpf(jeq, 0, 2, NR_CLONE),
        bpf(ld, 0, 0, 16),                       # flags, low word
        bpf(jset, 1, 0, CLONE_NEWPID),
        bpf(ret, 0, 0, SECCOMP_RET_ALLOW),
        bpf(ret, 0, 0, SECCOMP_RET_ERRNO | EPERM),
    ]))


def container_mask(nrs=(NR_PIDFD_GETFD, NR_PROCESS_VM_READV)):
    """preexec_fn: a filter answering the syscalls NRS with EPERM (by
    default pidfd_getfd and process_vm_readv: a profile stricter than
    Docker's default, which refuses the first without CAP_SYS_PTRACE and
    the second only before Linux 4.8)."""
    ld, jeq, ret = 0x20, 0x15, 0x06
    n = len(nrs)
    prog = b"".join([
        bpf(ld, 0, 0, 4),                        # arch
        bpf(jeq, 0, n + 2, AUDIT_ARCH_X86_64),
        bpf(ld, 0, 0, 0),                        # nr
    ] + [bpf(jeq, n - i, 0, nr) for i, nr in enumerate(nrs)] + [
        bpf(ret, 0, 0, SECCOMP_RET_ALLOW),
        bpf(ret, 0, 0, SECCOMP_RET_ERRNO | EPERM),
    ])
    install(prog)
