#!/usr/bin/env python3
"""Review h-foreign3: the oracle's disagreements for finished cells, from a
tree's cell_result.py (default this tree's; --tree another, e.g. one with
tests/review/hf3-fixes.diff applied). Reads results/RUN/cells/*/guest/*
(the sections the host wrote) and the report the bundle wrote there.

    python3 tests/review/hf3-rejudge.py [--tree DIR] results/hf3-killer-612 ...
"""
import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--report", default="appliance-v1", choices=("appliance-v1", "none"))
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.tree, "initramfs", "host"))
    import cell_result as C  # noqa: E402
    for run in a.runs:
        cells = os.path.join(run, "cells")
        for cell in sorted(os.listdir(cells)):
            g = os.path.join(cells, cell, "guest")
            if not os.path.isdir(g):
                continue
            sec = {}
            for name in os.listdir(g):
                with open(os.path.join(g, name), "rb") as f:
                    sec[name] = f.read()
            report = C.load_report(sec)[0] if a.report != "none" else None
            verdict = report.get("verdict") if report else None
            facts = C.oracle_evaluate(sec.get("cell", b""), dict(sec, _verdict=verdict),
                                      report, a.report)
            probs = facts["problems"]
            print(f"{cell}: {'; '.join(probs)[:200] if probs else 'oracle agrees'}")


if __name__ == "__main__":
    main()
