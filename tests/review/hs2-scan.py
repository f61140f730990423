#!/usr/bin/env python3
"""Review h-style2: the measurable part of the second style review, run
against the tree it sits in. Reads files only; builds and runs nothing.

    python3 tests/review/hs2-scan.py [TOP]

Prints one line per finding, prefixed with the check's name:
  size        source files over the style's 800 lines (review scripts and docs
              left out)
  unused-api  sv_ functions a header exports that no other file calls
  errno-table the C errno-name tables and the name each gives errno 95
  import      Python import cycles in scenarios/tools and initramfs/host,
              counting imports inside functions
  runner      Python test files that do not run on unittest
  twice       a kernel list and a record magic written in more than one place
Exit status 0 always: a line is a place to look, not a verdict."""

import ast
import glob
import os
import re
import subprocess
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def tracked():
    out = subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True, text=True,
                         check=True).stdout.split()
    return [p for p in out if os.path.isfile(os.path.join(TOP, p))]


def read(rel):
    with open(os.path.join(TOP, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def sizes(files):
    for rel in files:
        if rel.startswith(("tests/review/", "docs/")) or not rel.endswith(
                (".c", ".h", ".py", ".sh")) and rel != "initramfs/guest/init":
            continue
        n = read(rel).count("\n")
        if n > 800:
            print(f"size {rel}: {n} lines")


def unused_api():
    cs = glob.glob(os.path.join(TOP, "supervisor", "*.c"))
    users = cs + glob.glob(os.path.join(TOP, "supervisor", "hostprofile", "*.c")) + \
        glob.glob(os.path.join(TOP, "tests", "unit", "*.c")) + \
        glob.glob(os.path.join(TOP, "tests", "fuzz", "*.c")) + \
        glob.glob(os.path.join(TOP, "tests", "filter", "*.c"))
    text = {p: open(p, encoding="utf-8").read() for p in users}
    for h in sorted(glob.glob(os.path.join(TOP, "supervisor", "*.h"))):
        for fn in sorted(set(re.findall(r"\b(sv_[a-z0-9_]+)\(", open(h, encoding="utf-8").read()))):
            defs = [p for p in cs if re.search(r"^[a-z].*\b%s\(" % fn, text[p], re.M)]
            if not defs:
                continue
            others = [p for p in users if p != defs[0] and re.search(r"\b%s\b" % fn, text[p])]
            if not others:
                print(f"unused-api {fn}: defined in {os.path.relpath(defs[0], TOP)}, "
                      f"called nowhere else (static, or dead)")


def errno_tables():
    for rel in ("supervisor/errnames.c", "initramfs/guest/names.c", "tests/agents/agentlib.c"):
        src = read(rel)
        names = re.findall(r"\bE([A-Z0-9]+)\b", src)
        ordered = [n for n in names if n in ("NOTSUP", "OPNOTSUPP")]
        entries = len(set(re.findall(r"[{(]\s*\"?(E[A-Z0-9]+)\"?\s*[,)]", src)))
        print(f"errno-table {rel}: {entries} names, errno 95 printed as "
              f"E{ordered[0] if ordered else '(a number)'}")


def import_cycles():
    for d in ("scenarios/tools", "initramfs/host"):
        full = os.path.join(TOP, d)
        mods = {f[:-3] for f in os.listdir(full) if f.endswith(".py")}
        graph = {}
        for m in mods:
            deps = set()
            for n in ast.walk(ast.parse(read(f"{d}/{m}.py"))):
                if isinstance(n, ast.Import):
                    deps |= {a.name for a in n.names}
                elif isinstance(n, ast.ImportFrom) and n.module:
                    deps.add(n.module)
            graph[m] = (deps & mods) - {m}
        for a in sorted(graph):
            for b in sorted(graph[a]):
                if a < b and a in graph[b]:
                    print(f"import {d}: {a} <-> {b}")


def runners(files):
    for rel in files:
        base = os.path.basename(rel)
        if rel.startswith("tests/review/") or not (base.startswith("test_") and
                                                   rel.endswith(".py")):
            continue
        if "unittest.TestCase" not in read(rel):
            print(f"runner {rel}: its own runner, not unittest")


def twice():
    src = read("scenarios/tools/scenario.py")
    m = re.search(r"PLANNED_KERNELS = \(([^)]*)\)", src)
    if m:
        planned = re.findall(r'"([^"]+)"', m.group(1))
        live = subprocess.run([os.path.join(TOP, "kernel-configs", "kernels.sh"), "names"],
                              capture_output=True, text=True, check=False).stdout.split()
        print(f"twice scenario.py PLANNED_KERNELS: {len(planned)} names, "
              f"{len(set(planned) - set(live))} not in kernels.sh names")
    magic = "egress-supervisor-report-record/1"
    where = [rel for rel in tracked() if not rel.startswith(("tests/review/", "docs/"))
             and rel.endswith((".c", ".h", ".py")) and magic in read(rel)]
    print(f"twice record magic {magic}: in {len(where)} source files: {' '.join(where)}")


def main():
    files = tracked()
    sizes(files)
    unused_api()
    errno_tables()
    import_cycles()
    runners(files)
    twice()
    return 0


if __name__ == "__main__":
    sys.exit(main())
