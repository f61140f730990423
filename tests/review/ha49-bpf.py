#!/usr/bin/env python3
"""ha49-bpf.py: hostile review h-attack49. Simulates filter.c's
fchroot_foreign program (copied instruction by instruction from 6cf9e2b)
over every (arch, nr) pair that matters and prints the action for each.
Expected: ERRNO(ENOSYS) only for i386 472 and x86_64 472|0x40000000 (x32),
ALLOW for everything else, including native 472 (left to the listener)."""
import itertools

LD_ABS, JEQ, RET = "ld", "jeq", "ret"
ARCH_OFF, NR_OFF = 4, 0
I386, X86_64 = 0x40000003, 0xC000003E
X32 = 0x40000000
ERRNO, ALLOW = 0x00050000, 0x7FFF0000
ENOSYS = 38
PROG = [
    (LD_ABS, ARCH_OFF),
    (JEQ, I386, 0, 2),
    (LD_ABS, NR_OFF),
    (JEQ, 472, 3, 4),
    (JEQ, X86_64, 0, 3),
    (LD_ABS, NR_OFF),
    (JEQ, 472 | X32, 0, 1),
    (RET, ERRNO | ENOSYS),
    (RET, ALLOW),
]

def run(arch, nr):
    pc, acc = 0, 0
    while True:
        ins = PROG[pc]
        if ins[0] == LD_ABS:
            acc = arch if ins[1] == ARCH_OFF else nr
            pc += 1
        elif ins[0] == JEQ:
            pc += 1 + (ins[2] if acc == ins[1] else ins[3])
        else:
            return ins[1]
        assert pc < len(PROG), "jump out of program"

bad = 0
for arch, nr in itertools.product(
        [I386, X86_64, 0xC00000B7, 0, 0xFFFFFFFF],
        [0, 1, 161, 155, 471, 472, 473, 472 | X32, 161 | X32, 0xFFFFFFFF, 472 + 512]):
    want = ERRNO | ENOSYS if (arch, nr) in ((I386, 472), (X86_64, 472 | X32)) else ALLOW
    got = run(arch, nr)
    if got != want:
        bad += 1
    print(f"arch {arch:#010x} nr {nr:#010x}: {'ERRNO' if got != ALLOW else 'ALLOW'}"
          f"{'' if got == want else '  <-- WRONG'}")
print("ha49-bpf:", "HELD" if bad == 0 else f"{bad} WRONG")
