#!/usr/bin/env python3
"""ha67-prefix.py: hostile review h-attack67, finding 2. Which prefixes of an
exported filter (filter-export's raw BPF) the kernel's classic-BPF check
would accept: the last instruction a return, every jump inside the prefix.
A truncated export (a short write under RLIMIT_FSIZE) loads only if one is.
  make BUILD=$PWD/build $PWD/build/filter/filter-export
  build/filter/filter-export [--root|--judged] /tmp/f.bpf
  tests/review/ha67-prefix.py /tmp/f.bpf
"""
import struct
import sys


def main():
    data = open(sys.argv[1], "rb").read()
    ins = [struct.unpack("<HBBI", data[i:i + 8]) for i in range(0, len(data), 8)]
    ok = []
    for k in range(1, len(ins)):
        if ins[k - 1][0] not in (0x06, 0x16):  # BPF_RET|BPF_K, BPF_RET|BPF_A
            continue
        good = True
        for pc in range(k):
            code, jt, jf, imm = ins[pc]
            if code & 7 != 5:  # not BPF_JMP
                continue
            targets = [pc + 1 + imm] if code & 0xf0 == 0 else [pc + 1 + jt, pc + 1 + jf]
            if any(t >= k for t in targets):
                good = False
                break
        if good:
            ok.append(k)
    print("%d instructions; prefixes the kernel would accept: %s" % (len(ins), ok or "none"))


if __name__ == "__main__":
    main()
