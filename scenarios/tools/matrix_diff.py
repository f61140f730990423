#!/usr/bin/env python3
"""Run-to-run comparison of two matrix runs (issue 15).

    matrix_diff.py BASE NEW       (each a results/<run> directory or its summary.json)

Prints what changed between BASE and NEW: cells that changed outcome, cells
added or gone, expectations that changed, kernels whose in-guest features
changed, supervisor and kernel sha256 changes. Exit status: 1 when something
regressed, 0 otherwise, 2 when a run cannot be read. Python 3 standard
library only.

A regression is a cell of NEW that is neither ok nor skipped where BASE had it
with another outcome (ok -> mismatch, ok -> timeout, mismatch -> false-green,
...), a cell that was ok and is now skipped (it stopped being checked), or a
cell new in NEW that is not ok/skipped. A cell gone from NEW is listed but is
not a regression by itself: filters choose cells.
"""

import json
import os
import sys

GOOD = ("ok", "skipped")
LOUD = ("false-green", "oracle-mismatch")


class DiffError(Exception):
    """A run that cannot be compared; the message names it."""


def load(path):
    """The summary.json of a run directory (or the file itself)."""
    p = os.path.join(path, "summary.json") if os.path.isdir(path) else path
    try:
        with open(p, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise DiffError(f"{p}: cannot read: {e}") from None
    if not isinstance(s, dict) or not isinstance(s.get("cells"), list):
        raise DiffError(f"{p}: not a matrix summary.json (no cells)")
    return s


def _kind(base, new):
    """'regressed', 'improved' or 'changed' for an outcome change."""
    if new not in GOOD:
        return "regressed"
    if base == "ok" and new == "skipped":
        return "regressed"
    if base not in GOOD:
        return "improved"
    return "changed"


def _features(kernel):
    """{feature: sorted [(available, detail)]} a kernel's guests read."""
    fig = (kernel or {}).get("features_in_guest") or {}
    return {name: sorted((v.get("available"), v.get("detail")) for v in f.get("values", []))
            for name, f in (fig.get("features") or {}).items()}


def diff(base, new):
    """The comparison of two summaries as a dict (see `text` for its meaning):
    changed, added, gone, expectation, features, kernel_sha, supervisor,
    regressions (a count) and by_cell ({cell id: kind} for the report)."""
    b = {c["cell"]: c for c in base["cells"]}
    n = {c["cell"]: c for c in new["cells"]}
    out = {"base": base.get("run_id"), "new": new.get("run_id"), "changed": [], "added": [],
           "gone": [], "expectation": [], "features": [], "kernel_sha": [],
           "supervisor": None, "by_cell": {}}
    for cid, c in n.items():
        if cid not in b:
            kind = "regressed" if c["outcome"] not in GOOD else "added"
            out["added"].append({"cell": cid, "outcome": c["outcome"], "kind": kind,
                                 "reason": c.get("reason")})
            out["by_cell"][cid] = kind
            continue
        o = b[cid]
        if o["outcome"] != c["outcome"]:
            kind = _kind(o["outcome"], c["outcome"])
            out["changed"].append({"cell": cid, "from": o["outcome"], "to": c["outcome"],
                                   "kind": kind, "reason": c.get("reason"),
                                   "rerun": c.get("rerun")})
            out["by_cell"][cid] = kind
        if o.get("expected") != c.get("expected"):
            out["expectation"].append({"cell": cid, "from": o.get("expected"),
                                       "to": c.get("expected"),
                                       "why": c.get("expected_why")})
    out["gone"] = [{"cell": cid, "outcome": b[cid]["outcome"]} for cid in b if cid not in n]
    bk, nk = base.get("kernels") or {}, new.get("kernels") or {}
    for k in sorted(set(bk) & set(nk)):
        if (bk[k] or {}).get("sha256") != (nk[k] or {}).get("sha256"):
            out["kernel_sha"].append({"kernel": k, "from": bk[k].get("sha256"),
                                      "to": nk[k].get("sha256")})
        fb, fn = _features(bk[k]), _features(nk[k])
        for name in sorted(set(fb) | set(fn)):
            if fb.get(name) != fn.get(name):
                out["features"].append({"kernel": k, "feature": name,
                                        "from": fb.get(name), "to": fn.get(name)})
    sb = (base.get("supervisor") or {}).get("sha256")
    sn = (new.get("supervisor") or {}).get("sha256")
    if sb != sn:
        out["supervisor"] = {"from": sb, "to": sn}
    out["regressions"] = sum(x["kind"] == "regressed" for x in out["changed"] + out["added"])
    return out


def _vals(v):
    return ", ".join(f"{a}({d})" if d else str(a) for a, d in v) if v else "not read"


def text(d):
    """The comparison as lines of text, regressions first, loudest first."""
    lines = [f"matrix-diff: base {d['base']} -> new {d['new']}"]
    if d["supervisor"]:
        lines.append(f"  supervisor sha256 changed: {d['supervisor']['from']} -> "
                     f"{d['supervisor']['to']}")
    for k in d["kernel_sha"]:
        lines.append(f"  kernel {k['kernel']} sha256 changed: {k['from']} -> {k['to']}")
    ch = sorted(d["changed"], key=lambda x: (x["kind"] != "regressed", x["to"] not in LOUD,
                                             x["cell"]))
    for x in ch:
        mark = "REGRESSED" if x["kind"] == "regressed" else x["kind"]
        loud = "  <-- FALSE GREEN" if x["to"] == "false-green" else ""
        lines.append(f"  {mark}: {x['cell']}: {x['from']} -> {x['to']}{loud}"
                     + (f": {x['reason']}" if x["reason"] and x["to"] != "ok" else ""))
    for x in d["added"]:
        mark = "REGRESSED (new cell)" if x["kind"] == "regressed" else "added"
        lines.append(f"  {mark}: {x['cell']}: {x['outcome']}")
    for x in d["gone"]:
        lines.append(f"  gone: {x['cell']} (was {x['outcome']})")
    for x in d["expectation"]:
        lines.append(f"  expectation changed: {x['cell']}: {x['from']} -> {x['to']}")
    for x in d["features"]:
        lines.append(f"  features of {x['kernel']} changed: {x['feature']}: "
                     f"{_vals(x['from'])} -> {_vals(x['to'])}")
    nothing = not any(d[k] for k in ("changed", "added", "gone", "expectation", "features",
                                     "kernel_sha")) and not d["supervisor"]
    if nothing:
        lines.append("  no difference in cells, outcomes, expectations, features or sha256s")
    lines.append(f"matrix-diff: {d['regressions']} regressed, "
                 f"{sum(x['kind'] == 'improved' for x in d['changed'])} improved, "
                 f"{len(d['added'])} added, {len(d['gone'])} gone")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: matrix_diff.py BASE NEW (run directories; make matrix-diff "
              "BASE=results/a NEW=results/b)", file=sys.stderr)
        return 2
    try:
        d = diff(load(argv[0]), load(argv[1]))
    except DiffError as e:
        print(f"matrix-diff: {e}", file=sys.stderr)
        return 2
    print(text(d))
    return 1 if d["regressions"] else 0


if __name__ == "__main__":
    sys.exit(main())
