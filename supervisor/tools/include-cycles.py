#!/usr/bin/env python3
"""Checks that no two modules of supervisor/ include each other, directly or
through others (the style's "no cycles between modules"). A module is a .c
file; its arrows are the project headers it includes (fault.h, the test
seam, and mutant.h, documentation only, are not modules). Prints one TAP-like
line and exits 1 on a cycle, naming it.
    include-cycles.py DIR"""
import os
import re
import sys

SEAMS = {"fault", "mutant"}


def arrows(d):
    out = {}
    for name in sorted(os.listdir(d)):
        if not name.endswith(".c"):
            continue
        mod = name[:-2]
        with open(os.path.join(d, name), encoding="utf-8") as f:
            incs = set(re.findall(r'^#include "(\w+)\.h"', f.read(), re.M))
        out[mod] = sorted(incs - SEAMS - {mod})
    return out


def find_cycle(graph):
    """The first cycle found (a list of modules, first repeated last), or
    None."""
    state = {}

    def visit(n, path):
        state[n] = "open"
        for m in graph.get(n, ()):
            if state.get(m) == "open":
                return path[path.index(m):] + [m]
            if m not in state:
                found = visit(m, path + [m])
                if found:
                    return found
        state[n] = "done"
        return None

    for n in graph:
        if n not in state:
            found = visit(n, [n])
            if found:
                return found
    return None


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2 if len(sys.argv) != 2 else 0
    if not os.path.isdir(sys.argv[1]):
        print(f"include-cycles.py: {sys.argv[1]}: not a directory", file=sys.stderr)
        return 2
    graph = arrows(sys.argv[1])
    cycle = find_cycle(graph)
    if cycle:
        print(f"not ok no_include_cycles: {' -> '.join(cycle)} (split a module by job so "
              "the arrows run one way)")
        return 1
    print(f"ok no_include_cycles ({len(graph)} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
