#!/usr/bin/env python3
"""mask.py NR ARG0|- ERRNO PROG ARGS...: as uid/gid 1000, a seccomp filter answering
syscall NR (with first argument ARG0 when not '-') with ERRNO, then exec PROG."""
import os, sys
sys.path.insert(0, "/work/h-attack8/tests/hostprofile")
import seccomp_mask as M
nr, arg0, err = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
os.setgroups([]); os.setresgid(1000, 1000, 1000); os.setresuid(1000, 1000, 1000)
ld, jeq, ret = 0x20, 0x15, 0x06
a = [M.bpf(ld, 0, 0, 16), M.bpf(jeq, 1, 0, int(arg0))] if arg0 != "-" else [M.bpf(0x05, 0, 0, 1)]
prog = [M.bpf(ld, 0, 0, 4), M.bpf(jeq, 0, len(a) + 2, M.AUDIT_ARCH_X86_64),
        M.bpf(ld, 0, 0, 0), M.bpf(jeq, 0, len(a), nr)] + a + [
        M.bpf(ret, 0, 0, M.SECCOMP_RET_ALLOW),
        M.bpf(ret, 0, 0, M.SECCOMP_RET_ERRNO | err)]
M.install(b"".join(prog))
os.execv(sys.argv[4], sys.argv[4:])
