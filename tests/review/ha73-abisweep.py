#!/usr/bin/env python3
"""ha73-abisweep.py: hostile review h-attack73, question 2. After cd78631
each foreign ABI has its own context merged into one filter
(sv_filter_build): was a rule lost in the merge? Exports the filter
(plain, --root, --judged), runs every syscall of unistd_32.h and
unistd_x32.h through libseccomp's scmp_bpf_sim with 14 argument vectors,
and prints each (name, args) where i386 and x32 answer differently. The
expected differences are x32's whole-notify pointer calls (add_key,
request_key, keyctl 23) and nothing else.
    make build/filter/filter-export build/filter/scmp_bpf_sim   (absolute paths)
    tests/review/ha73-abisweep.py
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXP = os.path.join(TOP, "build/filter/filter-export")
SIM = os.path.join(TOP, "build/filter/scmp_bpf_sim")
HI = 1 << 32
VECS = [[0] * 6, [1] * 6, [HI] * 6, [HI | 1] * 6, [0xffffffff] * 6, [23, 1, 1, 1, 1, 1],
        [23, 0, 0, 0, 0, 0], [2, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0x10000000] * 6,
        [0x7e020000] * 6, [0x40] * 6, [0x10] * 6, [41, 0, 0, 0, 0, 0]]


def table(name, base=0):
    out = {}
    with open(os.path.join(TOP, "build/kheaders/asm", name)) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+\(?(?:__X32_SYSCALL_BIT \+ )?(\d+)", line)
            if m:
                out[m.group(1)] = int(m.group(2)) + base
    return out


def sim(bpf, arch, nr, args):
    cmd = [SIM, "-f", bpf, "-a", arch, "-s", str(nr)]
    for i, v in enumerate(args):
        cmd += ["-%d" % i, str(v)]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def main():
    i386, x32 = table("unistd_32.h"), table("unistd_x32.h", 0x40000000)
    unexpected = 0
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("", "--root", "--judged"):
            bpf = os.path.join(tmp, "f%s.bpf" % mode)
            subprocess.run([EXP] + ([mode] if mode else []) + [bpf], check=True, capture_output=True)
            for name in sorted(set(i386) & set(x32)):
                for args in VECS:
                    a, b = sim(bpf, "x86", i386[name], args), sim(bpf, "x32", x32[name], args)
                    if a != b:
                        expected = name in ("add_key", "request_key") or (name == "keyctl" and args[0] == 23)
                        unexpected += not expected
                        print("%s %s %s x86 %s x32 %s%s" % (mode or "plain", name, args, a, b,
                                                          "" if expected else "  UNEXPECTED"))
    print("%d unexpected" % unexpected)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
