#!/usr/bin/env python3
"""Shards of a matrix run and their merge (issue 15).

`make matrix SHARD=I/N` runs shard I of N: a deterministic part of the
selected cells, balanced by expected cost, the same on every machine for the
same inputs (scenario files, filters, kernels). Each shard is an ordinary run
directory whose summary.json says which shard it is and which selection it
was cut from. `make matrix-merge RUNS='dir...' OUT=dir` (this file's `merge`
command) puts N shards back into one summary.json, junit.xml, index.html and
cells/ tree, and refuses (exit 2) shards that do not belong together.

    shards.py merge --out DIR RUN_DIR...
    shards.py plan --shards N --cells FILE   (one `cell-id timeout` a line:
                                              prints `shard cell-id`)

Partitioning works on units, not cells: today a unit is one cell; when one
boot runs a batch of cells (issue 14) the unit becomes the batch, and a batch
is never split across shards. Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary as SUM  # noqa: E402 - the junit writer and feature table, one copy
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import contract as C  # noqa: E402 - OUTCOMES, one copy

SHARD_FORMAT = "egress-matrix-shard/1"

# The expected cost of one cell, in milliseconds (integers, so that the
# partition is the same on every machine). A cell is one boot plus its work:
# the boot floors measured in docs/scenarios.md are 1.9-5.7 s, the middle is
# about 3 s; a cell's own work grows with the timeout its scenario declares
# (the default 60 s timeout goes with about 2 s of work, the 120-300 s ones
# are the load and storm scenarios). Only the ratios matter for balance.
BOOT_COST_MS = 3000
WORK_MS_PER_TIMEOUT_S = 33


class ShardError(Exception):
    """Shards that cannot be run or merged; the message says why."""


def parse(text):
    """(index, count) from "I/N" with 1 <= I <= N; (1, 1) for "". Raises
    ShardError naming the accepted form."""
    if not text:
        return (1, 1)
    i, sep, n = text.partition("/")
    if not sep or not i.isdigit() or not n.isdigit() or not 1 <= int(i) <= int(n):
        raise ShardError(f"SHARD must be I/N with 1 <= I <= N (e.g. SHARD=2/3), not {text!r}")
    return (int(i), int(n))


def cell_cost_ms(timeout_s):
    """Expected milliseconds of one cell whose scenario declares timeout_s."""
    return BOOT_COST_MS + WORK_MS_PER_TIMEOUT_S * int(timeout_s)


def partition(units, count):
    """Assign units to `count` shards, balanced by cost: [(key, cost_ms)] ->
    {key: shard index 1..count}. Longest first onto the least loaded shard
    (ties: the lower shard index; equal costs: the lower key), so the result
    depends only on the keys and costs, never on their order or the machine.
    Keys must be unique (ValueError otherwise)."""
    keys = [k for k, _ in units]
    if len(set(keys)) != len(keys):
        raise ValueError("partition: duplicate unit keys")
    load = [0] * count
    out = {}
    for key, cost in sorted(units, key=lambda u: (-int(u[1]), u[0])):
        i = min(range(count), key=lambda j: (load[j], j))
        load[i] += int(cost)
        out[key] = i + 1
    return out


def unit_of(cell_id):
    """The unit a cell belongs to: itself, until boots run batches (issue 14
    makes this the batch id, and the partition keeps batches whole)."""
    return cell_id


def select(cells, index, count):
    """The cells of shard index/count, in their original order. `cells` are
    (cell_id, timeout_s) pairs; a unit's cost is the sum of its cells'."""
    costs = {}
    for cid, timeout in cells:
        costs[unit_of(cid)] = costs.get(unit_of(cid), 0) + cell_cost_ms(timeout)
    where = partition(sorted(costs.items()), count)
    return [cid for cid, _ in cells if where[unit_of(cid)] == index]


def digest(items):
    """sha256 over a list of strings (one a line)."""
    return hashlib.sha256("".join(f"{s}\n" for s in items).encode()).hexdigest()


def scenario_set_digest(paths):
    """sha256 over the scenario files a run loaded (name and content): two
    shards judged against different expectations must not be merged."""
    h = hashlib.sha256()
    for p in sorted(paths, key=os.path.basename):
        with open(p, "rb") as f:
            data = f.read()
        h.update(f"{os.path.basename(p)} {len(data)}\n".encode() + data)
    return h.hexdigest()


def source_commit(top):
    """{"head": sha or None, "dirty": bool or None, "diff_sha256": sha256 of
    `git diff HEAD` or None when clean} of the tree at `top` (git; None where
    it is not a git checkout). Two shards of one dirty tree merge only when
    their uncommitted changes are the same."""
    def git(*args):
        try:
            res = subprocess.run(["git", "-C", top, *args], capture_output=True, text=True,
                                 check=False)
        except OSError:
            return None
        return res.stdout if res.returncode == 0 else None
    head = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    dirty = bool(status.strip()) if status is not None else None
    diff = git("diff", "HEAD") if dirty else None
    return {"head": head.strip() if head else None, "dirty": dirty,
            "diff_sha256": hashlib.sha256(diff.encode()).hexdigest() if diff else None}


def record(index, count, selection, scenarios_sha256, commit):
    """The `shard` block of summary.json: which shard, of how many, cut from
    which selection (every selected cell id before sharding, in run order)."""
    return {"format": SHARD_FORMAT, "index": index, "count": count,
            "selection": list(selection), "selection_sha256": digest(selection),
            "scenarios_sha256": scenarios_sha256, "commit": commit,
            "cost_model": f"{BOOT_COST_MS} ms + {WORK_MS_PER_TIMEOUT_S} ms x timeout_s"}


# ---------------------------------------------------------------- merge

def load_run(d):
    path = os.path.join(d, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        raise ShardError(f"{path}: cannot read: {e}") from None
    if not isinstance(s, dict) or not isinstance(s.get("shard"), dict) or \
            not isinstance(s.get("cells"), list):
        raise ShardError(f"{path}: not a matrix run with a shard record (made before "
                         f"shards existed, or not a summary.json)")
    return s


def check_compatible(runs):
    """Raise ShardError unless the runs are the shards 1..N of one selection
    on one commit, supervisor, kernel set and scenario set."""
    if not runs:
        raise ShardError("no shard given (RUNS='dir...')")
    first_dir, first = runs[0]

    def same(what, get):
        want = get(first)
        for d, s in runs[1:]:
            if get(s) != want:
                raise ShardError(f"{what} differs: {first_dir} has {want!r}, {d} has "
                                 f"{get(s)!r}: these shards are not of one run")
    same("shard count", lambda s: s["shard"].get("count"))
    same("commit", lambda s: s["shard"].get("commit"))
    same("supervisor sha256", lambda s: (s.get("supervisor") or {}).get("sha256"))
    same("kernels (name: sha256)", lambda s: {k: v.get("sha256") for k, v in
                                             (s.get("kernels") or {}).items()})
    same("scenario files (sha256)", lambda s: s["shard"].get("scenarios_sha256"))
    same("cell selection (sha256 of every selected cell id)",
         lambda s: s["shard"].get("selection_sha256"))
    count = first["shard"]["count"]
    seen = {}
    for d, s in runs:
        i = s["shard"].get("index")
        if i in seen:
            raise ShardError(f"shard {i}/{count} given twice: {seen[i]} and {d}")
        seen[i] = d
    missing = [i for i in range(1, count + 1) if i not in seen]
    if missing:
        raise ShardError(f"missing shard(s) {', '.join(f'{i}/{count}' for i in missing)} "
                         f"(have {', '.join(f'{i}/{count}' for i in sorted(seen))})")
    got = {}
    for d, s in runs:
        for c in s["cells"]:
            if c["cell"] in got:
                raise ShardError(f"cell {c['cell']} is in two shards: {got[c['cell']]} and {d}")
            got[c["cell"]] = d
    want = set(first["shard"]["selection"])
    if set(got) != want:
        lost = sorted(want - set(got))
        extra = sorted(set(got) - want)
        raise ShardError(f"the shards' cells are not their selection: missing "
                         f"{lost[:5]}{'...' if len(lost) > 5 else ''}, not selected "
                         f"{extra[:5]}{'...' if len(extra) > 5 else ''}")


def merge(dirs, out):
    """Merge the shard run directories `dirs` into `out` (created; must not
    exist): summary.json, junit.xml, cells/, kernels/ and index.html. Returns the merged summary. Raises ShardError when the shards do not
    belong together."""
    runs = [(d, load_run(d)) for d in dirs]
    check_compatible(runs)
    if os.path.exists(out):
        raise ShardError(f"{out} exists: choose another OUT")
    runs.sort(key=lambda r: r[1]["shard"]["index"])
    first = runs[0][1]
    order = {cid: n for n, cid in enumerate(first["shard"]["selection"])}
    cells = sorted((c for _, s in runs for c in s["cells"]), key=lambda c: order[c["cell"]])
    os.makedirs(os.path.join(out, "cells"))
    os.makedirs(os.path.join(out, "kernels"))
    for d, s in runs:
        for c in s["cells"]:
            src = os.path.join(d, c.get("dir") or os.path.join("cells", c["cell"]))
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(out, "cells", c["cell"]), symlinks=True)
            c["dir"] = os.path.join("cells", c["cell"])
        kd = os.path.join(d, "kernels")
        for name in sorted(os.listdir(kd)) if os.path.isdir(kd) else []:
            dst = os.path.join(out, "kernels", name)
            if not os.path.exists(dst):
                shutil.copy2(os.path.join(kd, name), dst)
    kernels = list(first.get("kernels") or {})
    merged = dict(first)
    merged.update({
        "run_id": os.path.basename(os.path.abspath(out)),
        "started": min(s.get("started") or "" for _, s in runs),
        "kernels": {k: dict(first["kernels"][k],
                            features_in_guest=SUM.kernel_features(cells, k))
                    for k in kernels},
        "floor_s": {k: v for _, s in runs for k, v in (s.get("floor_s") or {}).items()},
        "floor_samples_s": {}, "floor_note": "merged from shards: see merged_from",
        # Shards run side by side: the merged run took as long as its slowest.
        "cells_wall_s": max(s.get("cells_wall_s") or 0 for _, s in runs),
        "total_wall_s": max(s.get("total_wall_s") or 0 for _, s in runs),
        "ideal_s": None, "wall_over_floor": None,
        "counts": {o: sum(c["outcome"] == o for c in cells) for o in C.OUTCOMES},
        "cells": cells,
        "shard": dict(first["shard"], index=None, merged=True),
        "merged_from": [{"dir": os.path.abspath(d), "run_id": s.get("run_id"),
                         "shard": f"{s['shard']['index']}/{s['shard']['count']}",
                         "cells": len(s["cells"]), "accelerator": s.get("accelerator"),
                         "cells_wall_s": s.get("cells_wall_s"),
                         "total_wall_s": s.get("total_wall_s")} for d, s in runs],
    })
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    SUM.write_junit(os.path.join(out, "junit.xml"), cells, merged["cells_wall_s"],
                    merged.get("accelerator") or {"accelerator": None, "reason": ""})
    return merged


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge")
    m.add_argument("--out", required=True)
    m.add_argument("--base", default="", help="a run to compare the merged run with")
    m.add_argument("runs", nargs="*")
    p = sub.add_parser("plan")
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--cells", required=True)
    opts = ap.parse_args(argv)
    if opts.cmd == "plan":
        with open(opts.cells, encoding="utf-8") as f:
            cells = [(a, int(b)) for a, b in (line.split() for line in f if line.strip())]
        for i in range(1, opts.shards + 1):
            for cid in select(cells, i, opts.shards):
                print(f"{i} {cid}")
        return 0
    import report_html  # noqa: E402
    import matrix_diff  # noqa: E402
    try:
        merged = merge(opts.runs, os.path.abspath(opts.out))
    except ShardError as e:
        print(f"matrix-merge: refused: {e}", file=sys.stderr)
        return 2
    diff = None
    if opts.base:
        try:
            diff = matrix_diff.diff(matrix_diff.load(opts.base), merged)
        except matrix_diff.DiffError as e:
            print(f"matrix-merge: BASE: {e}", file=sys.stderr)
            return 2
    report_html.write(os.path.abspath(opts.out), merged, C.OUTCOMES, diff)
    bad = [c for c in merged["cells"] if c["outcome"] not in C.GOOD_OUTCOMES]
    parts = [f"{n} {o}" for o, n in merged["counts"].items() if n]
    print(f"matrix-merge: {len(opts.runs)} shards -> {opts.out}: {len(merged['cells'])} "
          f"cells: {', '.join(parts)}; {len(bad)} not ok")
    for c in bad:
        print(f"{c['outcome'].upper()}: {c['cell']}: expected {c['expected']}, got "
              f"{c['got']}: {c['reason']}\n    rerun: {c['rerun']}")
    if diff:
        print(matrix_diff.text(diff))
    print(f"matrix: {merged['counts']['ok']} passed, {len(bad)} failed, "
          f"{merged['counts']['skipped']} skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
