#!/usr/bin/env python3
"""Review h-foreign4: before and after, on the same guest output. For every
cell of finished matrix runs (results/RUN), decides the outcome again with
another tree's cell_result.py (the base commit's, say) from the sections the
host kept (RUN/cells/ID/guest/*), the cell file that tree's scenario.py
compiled for that cell (BASE_CELLS/KERNEL/ID.cell, `scenario.py compile`),
and the run's bundle (its manifest's `design` line dropped: a base tree
knows no such key), and prints it beside the run's own outcome. So a
misjudgement that is gone shows as BEFORE -> NOW on one guest result.

    git archive BASE scenarios initramfs/host kernel-configs | tar -x -C /tmp/base
    python3 /tmp/base/scenarios/tools/scenario.py compile --kernel K \\
        --out /tmp/base-cells/K /tmp/base/scenarios
    python3 tests/review/hf4-rejudge.py --tree /tmp/base --cells /tmp/base-cells \\
        results/hf4-killer-debian-6.1-cloud-c ...
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import types


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--cells", required=True)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.tree, "initramfs", "host"))
    import bundle as B  # noqa: E402 - the other tree's
    import cell_result as C  # noqa: E402
    tmp = tempfile.mkdtemp(prefix="hf4-rejudge.")
    try:
        for run in a.runs:
            with open(os.path.join(run, "summary.json"), encoding="utf-8") as f:
                summary = json.load(f)
            bdir = os.path.join(tmp, os.path.basename(run.rstrip("/")))
            shutil.copytree(os.path.join(run, "bundle"), bdir) if os.path.isdir(
                os.path.join(run, "bundle")) else None
            conf = os.path.join(bdir, "bundle.conf")
            if os.path.exists(conf):
                with open(conf, encoding="utf-8") as f:
                    text = [ln for ln in f if not ln.strip().startswith("design")]
                with open(conf, "w", encoding="utf-8") as f:
                    f.writelines(text)
                bundle = B.load(bdir)
            else:
                bundle = None
            for c in summary["cells"]:
                g = os.path.join(run, c["dir"], "guest")
                base_cell = os.path.join(a.cells, c["kernel"], c["cell"] + ".cell")
                if not os.path.isdir(g) or not os.path.exists(base_cell):
                    print(f"{c['cell']}: {c['outcome']} (not re-judged: no guest output or "
                          "no base cell)")
                    continue
                sec = {}
                for name in os.listdir(g):
                    with open(os.path.join(g, name), "rb") as f:
                        sec[name] = f.read()
                with open(base_cell, "rb") as f:
                    cell_text = f.read()
                sha = hashlib.sha256(cell_text).hexdigest()
                meta = C.kv_lines(sec.get("meta", b""))
                meta["cell_sha256"] = sha
                if bundle:
                    meta["bundle_digest"] = bundle["digest"]
                sec["meta"] = "".join(f"{k}={v}\n" for k, v in meta.items()).encode()
                sec["cell"] = cell_text
                args = types.SimpleNamespace(accel="tcg", timed_out=False, timeout=900,
                                             qemu_rc=0, nonce="n", cell_file=base_cell,
                                             bundle=bundle)
                frame = {"nonce": "n", "cell": c["cell"], "sections": sec}
                expected = C.read_cell_file(base_cell)[0].get("expect")
                out, why, got, _ = C.decide(args, c["cell"], expected, frame, "")
                mark = "   " if out == c["outcome"] else "-> "
                print(f"{c['cell']}: before {out} (expected {expected}, got {got}) {mark}"
                      f"now {c['outcome']} (expected {c['expected']}){'' if out == c['outcome'] else ': ' + why[:160]}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
