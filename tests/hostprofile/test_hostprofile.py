#!/usr/bin/env python3
"""egress-hostprofile on this machine: the profile's shape, and every probe
answer checked against what the kernel's access rules predict for the
credentials and Yama setting the same profile reports
(shared/reference/kernel-facts.md, "Who may read or act on whom"): as root,
as uid 1000 (no capabilities), and under a container-style seccomp mask
(Docker's default profile without CAP_SYS_PTRACE refuses pidfd_getfd and
process_vm_readv with EPERM).

    HP_BIN=build/egress-hostprofile python3 tests/hostprofile/test_hostprofile.py
"""
import ctypes
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HP_BIN = os.environ.get("HP_BIN") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "egress-hostprofile")
CAP_SYS_PTRACE = 19
PROBES = ("listener", "process_vm_readv", "proc_mem", "pidfd_open", "pidfd_getfd", "id_valid")
ACCESS_CHECKED = ("process_vm_readv", "proc_mem", "pidfd_getfd")

# x86_64 numbers and the seccomp constants the mask needs.
NR_PROCESS_VM_READV, NR_PIDFD_GETFD = 310, 438
AUDIT_ARCH_X86_64 = 0xC000003E
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
EPERM = 1


def container_mask():
    """preexec_fn: a filter answering pidfd_getfd and process_vm_readv with
    EPERM, as Docker's default profile does for a container without
    CAP_SYS_PTRACE."""
    def bpf(code, jt, jf, k):
        return struct.pack("=HBBI", code, jt, jf, k)
    ld, jeq, ret = 0x20, 0x15, 0x06
    prog = b"".join([
        bpf(ld, 0, 0, 4),                        # arch
        bpf(jeq, 0, 4, AUDIT_ARCH_X86_64),
        bpf(ld, 0, 0, 0),                        # nr
        bpf(jeq, 2, 0, NR_PIDFD_GETFD),
        bpf(jeq, 1, 0, NR_PROCESS_VM_READV),
        bpf(ret, 0, 0, SECCOMP_RET_ALLOW),
        bpf(ret, 0, 0, SECCOMP_RET_ERRNO | EPERM),
    ])
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


def profile(argv_prefix=(), preexec=None):
    res = subprocess.run(list(argv_prefix) + [HP_BIN], capture_output=True, text=True,
                         check=False, preexec_fn=preexec, timeout=60)
    if res.returncode != 0:
        raise AssertionError(f"egress-hostprofile exited {res.returncode}: {res.stderr}")
    return json.loads(res.stdout)


def expected(p, target, call):
    """The answer the access rules predict for this profile's own caller
    (capabilities and Yama as it reports them)."""
    cap = int(p["capabilities"]["effective"], 16) >> CAP_SYS_PTRACE & 1
    scope = p["yama_ptrace_scope"]
    refused = "EACCES" if call == "proc_mem" else "EPERM"
    if call not in ACCESS_CHECKED:
        return "ok"
    if scope == 3:
        return refused
    if target == "child_nodump" and not cap:
        return refused
    if scope == 2 and not cap:
        return refused
    if scope == 1 and target == "reparented_grandchild" and not cap:
        return refused
    return "ok"


class Profile(unittest.TestCase):
    def check_probes(self, p, masked=()):
        for target in ("child", "child_nodump", "reparented_grandchild"):
            got = p["probes"][target]
            self.assertEqual(got["start"], "ok", target)
            for call in PROBES:
                want = "EPERM" if call in masked else expected(p, target, call)
                self.assertEqual(got[call], want, f"{target} {call}: {got}")
        self.assertEqual(p["probes"]["reparented_grandchild"]["reparented"], "ok")

    def test_profile_has_the_schema_fields(self):
        p = profile()
        self.assertEqual(p["format"], "egress-hostprofile/1")
        self.assertEqual(p["arch"], "x86_64")
        self.assertEqual(p["kernel"]["release"], os.uname().release)
        self.assertIn(p["kernel"]["config"]["source"],
                      ("/proc/config.gz", f"/boot/config-{os.uname().release}", "unknown"))
        for key in ("lsm", "yama_ptrace_scope", "sysctls", "ids", "capabilities", "securebits",
                    "no_new_privs", "dumpable", "seccomp", "namespaces", "container_hints",
                    "cgroup", "probes"):
            self.assertIn(key, p)
        self.assertEqual(p["ids"]["uid"], [os.getuid()] * 4)
        for call in ("io_uring_setup", "userns"):
            self.assertIn(call, p["probes"])

    def test_root_probes_follow_the_access_rules(self):
        self.check_probes(profile())

    def test_unprivileged_user_probes_follow_the_access_rules(self):
        p = profile(["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups"])
        self.assertEqual(p["ids"]["uid"], [1000] * 4)
        self.assertEqual(p["capabilities"]["effective"], "0000000000000000")
        # Without CAP_SYS_PTRACE a non-dumpable child is never readable.
        self.assertEqual(p["probes"]["child_nodump"]["process_vm_readv"], "EPERM")
        self.check_probes(p)

    def test_container_mask_shows_as_eperm_and_a_filter(self):
        p = profile(preexec=container_mask)
        self.assertEqual(p["seccomp"]["mode"], 2)
        if p["seccomp"]["filters"] is not None:
            self.assertGreaterEqual(p["seccomp"]["filters"], 1)
        self.assertEqual(p["no_new_privs"], 1)
        self.check_probes(p, masked=("process_vm_readv", "pidfd_getfd"))

    def test_bad_invocation_exits_2(self):
        res = subprocess.run([HP_BIN, "--bogus"], capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 2)
        self.assertIn("usage", res.stderr)

    def test_unwritable_output_exits_3_and_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "missing-dir", "p.json")
            res = subprocess.run([HP_BIN, "--output", out], capture_output=True, text=True,
                                 check=False)
            self.assertEqual(res.returncode, 3, res.stderr)
            self.assertIn("cannot create", res.stderr)
            self.assertFalse(os.path.exists(out))

    def test_output_file_is_written_whole(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p.json")
            res = subprocess.run([HP_BIN, "--output", out], capture_output=True, text=True,
                                 check=False)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["format"], "egress-hostprofile/1")
            self.assertEqual(os.listdir(d), ["p.json"])


if __name__ == "__main__":
    prog = unittest.main(exit=False, verbosity=2)
    failed = len(prog.result.failures) + len(prog.result.errors)
    print(f"{prog.result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
