#!/usr/bin/env python3
"""The trapped calls are written twice: by name in the filter (filter.c,
filtertab.c, resolved per ABI by libseccomp) and by number in the
receiver's dispatch tables (supervisor/mediate.c: native_table, i386_table,
x32_table). A number that is wrong reaches the wrong handler; a trapped
call with no entry is answered as unknown, a false red. This check ties the
two (review h-style2, item 3):

1. every entry's number is the kernel's for its name and ABI, read from the
   kernel headers the toolchain step installed (asm/unistd_64.h,
   unistd_32.h, unistd_x32.h); a name those headers are too old for must be
   one of NEWER, with the number and the release that added it;
2. every call the filter table's rows say NOTIFY on x86_64, x86 or x32 (by
   name, or by number as some rows write it) has an entry for that ABI.

    dispatch-numbers.py --kheaders DIR --mediate FILE TABLE...

Prints one line per failure and `N checked, N failed`; exits 1 on any.
"""
import argparse
import os
import re
import sys

# Calls newer than the installed headers, or not in any kernel yet: name ->
# (number on x86_64 and x32, number on i386, why it is known).
NEWER = {
    "fchmodat2": (452, 452, "Linux 6.6, syscall_64.tbl and syscall_32.tbl"),
    "fchroot": (472, None, "SV_NR_FCHROOT in supervisor/filter.h: a proposed call, "
                "neutralized in advance (review h-attack49)"),
}
TABLES = {"native_table": "x86_64", "i386_table": "x86", "x32_table": "x32"}
HEADERS = {"x86_64": "unistd_64.h", "x86": "unistd_32.h", "x32": "unistd_x32.h"}
X32_BIT = 0x40000000


def header_numbers(path):
    """name -> number from one asm/unistd_*.h (x32's without its bit)."""
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+\(?(?:__X32_SYSCALL_BIT\s*\+\s*)?(\d+)\)?\s*$",
                         line)
            if m:
                out[m.group(1)] = int(m.group(2))
    return out


def mediate_tables(path):
    """abi -> [(number, name)] from mediate.c, MODE_CALLS_64 expanded."""
    text = open(path).read()
    entry = re.compile(r"\{\s*(\w+)\s*,\s*\"(\w+)\"\s*,\s*\w+\s*\}")
    macro = re.search(r"#define MODE_CALLS_64(.*?)\n\n", text, re.S)
    mode = entry.findall(macro.group(1)) if macro else []
    out = {}
    for table, abi in TABLES.items():
        m = re.search(r"static const struct entry %s\[\] = \{(.*?)\};" % table, text, re.S)
        if not m:
            raise SystemExit("dispatch-numbers.py: %s: no %s" % (path, table))
        body = m.group(1)
        rows = entry.findall(body) + (mode if "MODE_CALLS_64" in body else [])
        out[abi] = [(int(n) if n.isdigit() else None, name, n) for n, name in rows]
    return out


def notify_rows(paths):
    """(abi, call, where) of every NOTIFY row of the filter tables."""
    out = []
    for path in paths:
        with open(path) as f:
            for no, line in enumerate(f, 1):
                words = line.split()
                if len(words) < 4 or words[0].startswith("#") or words[-1] != "NOTIFY":
                    continue
                if words[1] in HEADERS:
                    out.append((words[1], words[2], "%s:%d" % (os.path.basename(path), no)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kheaders", required=True)
    ap.add_argument("--mediate", required=True)
    ap.add_argument("tables", nargs="+")
    a = ap.parse_args()
    kernel = {abi: header_numbers(os.path.join(a.kheaders, "asm", h))
              for abi, h in HEADERS.items()}
    tables = mediate_tables(a.mediate)
    checked = failed = 0

    def fail(msg):
        nonlocal failed
        failed += 1
        print("not ok " + msg)

    for abi, rows in tables.items():
        for number, name, text in rows:
            checked += 1
            want = kernel[abi].get(name)
            if want is None and name in NEWER:
                want = NEWER[name][1 if abi == "x86" else 0]
            if want is None:
                fail("%s %s: the headers have no such call and NEWER does not name it" %
                     (abi, name))
            elif number is None:
                # A macro (SV_NR_FCHROOT): its value is NEWER's.
                if name not in NEWER:
                    fail("%s %s: number %s is no literal and not in NEWER" % (abi, name, text))
            elif number != want:
                fail("%s %s: mediate.c says %d, the kernel %d" % (abi, name, number, want))
    for abi, call, where in notify_rows(a.tables):
        checked += 1
        names = {name for _, name, _ in tables[abi]}
        numbers = {n for n, _, _ in tables[abi] if n is not None}
        if call.isdigit():
            n = int(call)
            if n in numbers or any(NEWER.get(x, (None, None))[0] == n for x in names):
                continue
            fail("%s: %s call %d is trapped but mediate.c has no entry for it" % (where, abi, n))
        elif call not in names:
            fail("%s: %s %s is trapped but mediate.c has no entry for it" % (where, abi, call))
    print("%d checked, %d failed" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
