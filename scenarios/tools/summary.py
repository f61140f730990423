#!/usr/bin/env python3
"""What a run's cells add up to, written the same by a run (matrix.py) and
by the merge of its shards (shards.py): the features each kernel's guests
read of themselves, the outcome table and junit.xml. Imports only the
shared vocabulary (initramfs/host/contract.py), so neither of its users has
to import the other. Python 3 standard library only."""

import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import contract as C  # noqa: E402 - OUTCOMES and FEATURES, one copy


def kernel_features(cells, kernel):
    """What the booted guests of KERNEL's cells read of themselves (features.c
    inside each guest, not the .config): per feature, how many cells saw each
    (available, detail) and whether they all agree. One kernel image should
    read the same at every boot; a difference is reported, never averaged."""
    mine = [c for c in cells if c["kernel"] == kernel]
    read = [c for c in mine if isinstance(c.get("features"), dict)]
    out = {"cells": len(mine), "cells_read": len(read), "features": {}}
    for name in C.FEATURES:
        seen = {}
        for c in read:
            v = c["features"].get(name)
            key = ("not reported", "") if not isinstance(v, dict) else \
                ("yes" if v.get("available") else "no", str(v.get("detail", "")))
            seen[key] = seen.get(key, 0) + 1
        values = [{"available": k[0], "detail": k[1], "cells": n}
                  for k, n in sorted(seen.items(), key=lambda kv: -kv[1])]
        out["features"][name] = {"agree": len(values) == 1, "values": values}
    return out


def features_line(kf):
    """One line per kernel: feature=yes, feature=NO(detail), or every value
    seen with its cell count when boots disagree."""
    if not kf["cells_read"]:
        return "not read (no cell got far enough to report features)"
    parts = []
    for name in C.FEATURES:
        f = kf["features"][name]
        if f["agree"]:
            v = f["values"][0]
            detail = f"({v['detail']})" if v["detail"] else ""
            parts.append(f"{name}=yes" if v["available"] == "yes"
                         else f"{name}={v['available'].upper().replace(' ', '-')}{detail}")
        else:
            seen = ", ".join(f"{v['available']}({v['detail']}) x{v['cells']}"
                             for v in f["values"])
            parts.append(f"{name}=DIFFERS[{seen}]")
    return " ".join(parts) + f"  [{kf['cells_read']}/{kf['cells']} cells]"


def table(cells, kernels):
    """The text table a run prints: a row per scenario cell, a column per
    kernel, every outcome but ok and skipped in capitals."""
    rows = []
    for c in cells:
        if c["scenario_cell"] not in rows:
            rows.append(c["scenario_cell"])
    by = {(c["scenario_cell"], c["kernel"]): c for c in cells}
    kcols = [k for k in kernels if any(c["kernel"] == k for c in cells)]
    w0 = max([len(r) for r in rows] + [8])
    widths = [max(len(k), 12) for k in kcols]
    lines = ["scenario cell".ljust(w0) + "  " + "  ".join(k.ljust(w) for k, w in
                                                      zip(kcols, widths))]
    for r in rows:
        cols = []
        for k, w in zip(kcols, widths):
            c = by.get((r, k))
            o = c["outcome"] if c else "-"
            cols.append((o if o in C.GOOD_OUTCOMES or o == "-" else o.upper()).ljust(w))
        lines.append(r.ljust(w0) + "  " + "  ".join(cols))
    return "\n".join(line.rstrip() for line in lines)


def write_junit(path, cells, wall, accel):
    """junit.xml of a run's cells: a mismatch or a loud outcome is a failure,
    any other outcome but ok and skipped an error."""
    failing = ("mismatch",) + C.LOUD_OUTCOMES
    suite = ET.Element("testsuite", name="egress-matrix", tests=str(len(cells)),
                       failures=str(sum(c["outcome"] in failing for c in cells)),
                       errors=str(sum(c["outcome"] not in ("ok", "skipped") + failing
                                      for c in cells)),
                       skipped=str(sum(c["outcome"] == "skipped" for c in cells)),
                       time=f"{wall:.1f}")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="accelerator", value=str(accel["accelerator"]))
    ET.SubElement(props, "property", name="accelerator_reason", value=accel["reason"])
    for c in cells:
        tc = ET.SubElement(suite, "testcase", classname=c["kernel"], name=c["scenario_cell"],
                           time=f"{c['wall_s'] or 0:.1f}")
        o = c["outcome"]
        body = (f"expected: {c['expected']} ({c['expected_why']})\ngot: {c['got']}\n"
                f"outcome: {o}\nreason: {c['reason']}\nrerun: {c['rerun']}\n"
                + (f"run-vm.sh: {c['runner_rerun']}\n" if c["runner_rerun"] else "")
                + (f"splats: {c['splats']}\n" if c["splats"] else ""))
        if o == "skipped":
            ET.SubElement(tc, "skipped", message=c["reason"] or "skipped")
        elif o in failing:
            ET.SubElement(tc, "failure", type=o, message=f"{o}: expected {c['expected']}, "
                          f"got {c['got']}; rerun: {c['rerun']}").text = body
        elif o != "ok":
            ET.SubElement(tc, "error", type=o, message=f"{o}: expected {c['expected']}, "
                          f"got {c['got']}: {c['reason']}; rerun: {c['rerun']}").text = body
        ET.SubElement(tc, "system-out").text = body
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
