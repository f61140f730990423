#!/usr/bin/env python3
"""Summarize appliance cells of a results/<run> dir: outcome, the agent's and
supervisor's lines, the sink log, the helper's kernel-log line, the events."""
import json, pathlib, sys
for run in sys.argv[1:]:
    for c in sorted(pathlib.Path(run, "cells").iterdir()):
        g = c / "guest"
        cell = json.loads((c / "cell.json").read_text()) if (c / "cell.json").exists() else {}
        print(f"== {c.name}: outcome {cell.get('outcome')} (expected {cell.get('expected')}, got {cell.get('got')}) {cell.get('reason') or ''}")
        for name in ("supervisor_log",):
            for l in (g / name).read_text(errors="replace").splitlines() if (g / name).exists() else []:
                if not l.startswith("envexec:"): print("   |", l)
        sink = (g / "sink_log").read_text().strip() if (g / "sink_log").exists() else ""
        print("   sink:", sink or "nothing")
        if (g / "dmesg").exists():
            for l in (g / "dmesg").read_text(errors="replace").splitlines():
                if "HELPER-" in l: print("   dmesg:", l)
        try:
            r = json.loads((c / "report.json").read_text())
            for e in r.get("events", []):
                print(f"   ev {e['syscall']} abi={e['abi']} dest={e.get('dest')} {e['bucket']} {e['reason']} {e['action']}")
        except Exception as ex:
            print("   report:", ex)
