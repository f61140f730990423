#!/usr/bin/env python3
"""make bundle-smoke: qualifies the test-double bundles through the real
matrix (run-vm.sh matrix, SUPERVISOR=DIR) on debian-6.1-cloud, a few cells
each, and checks each cell's outcome against the one derived by hand:

- refusing (ECONNREFUSED denials, no report, exits 0/10/20) is ok wherever
  our supervisor is: it is correct, only its errno and its manners differ.
- hang-blind waits forever where it cannot read the agent: supervisor-hang,
  within HANG_S (15 s) plus the poll, well before the cell's deadline.
- leaky runs the agent unmediated and says fail: the undeclared connect
  reaches the sink, so the oracle refuses it (oracle-mismatch).
- passthrough contains nothing and says pass: cgroup-leave's child moves
  itself to the cgroup2 root and outlives it, which the guest's survivors
  check must find outside the cell's cgroup (review h-attack71: it looked
  only inside; the cell was ok), also as a zombie leader with a live
  thread, as a chain of forks, behind a mount over its /proc/PID, and as a
  core_pattern helper the kernel started (review h-attack74; until stop 44
  these were only in the review's own cells: review h-docaudit).

Prints `ok NAME` / `FAIL NAME: why` per check and `N passed, N failed`.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import time

TOP = os.environ["TOP"]
BUILD = os.environ["BUILD"]
KERNEL = "debian-6.1-cloud"
# (bundle, {cell: (wanted outcome, why)})
PLAN = [
    ("refusing", {
        "starter-undeclared.ptrace_scope=1,user=uid1000": (
            "ok", "fail: the descendant rule admits it, the undeclared connect is refused "
                  "(ECONNREFUSED) and nothing arrives"),
        "starter-declared.ptrace_scope=2,user=root": (
            "ok", "pass: root keeps CAP_SYS_PTRACE; the declared traffic arrives"),
        "starter-undeclared.ptrace_scope=2,user=nocap": (
            "ok", "capability-error (exit 20): no CAP_SYS_PTRACE under scope 2"),
    }),
    ("hang-blind", {
        "starter-undeclared.ptrace_scope=2,user=nocap": (
            "supervisor-hang", "it cannot read the agent and waits forever: no CPU used"),
    }),
    ("leaky", {
        "starter-undeclared.ptrace_scope=1,user=uid1000": (
            "oracle-mismatch", "says fail as expected, but 203.0.113.5:443 arrived at the sink"),
    }),
    ("passthrough", {
        "cgroup-leave": (
            "oracle-mismatch", "says pass, but the agent's child left the cell's cgroup and "
                               "outlived the run: a survivor found outside it"),
        "cgroup-leave-zleader": (
            "oracle-mismatch", "the same child with its leader a zombie and a thread alive "
                               "(review h-attack74: skipped as dead)"),
        "cgroup-leave-chain": (
            "oracle-mismatch", "the same child forking to new pids every 5 ms (review "
                               "h-attack74: it outran the walk)"),
        "cgroup-leave-cover": (
            "oracle-mismatch", "the same child with an empty tmpfs over its /proc/PID in "
                               "init's mount namespace (review h-attack74: skipped as unreadable)"),
        "core-pattern-linger": (
            "oracle-mismatch", "a core_pattern helper the kernel started as kthreadd's child "
                               "lives on (review h-attack74: skipped as a kernel thread's)"),
        "result-port-forge-declared": (
            "ok", "the guest's own /dev (no serial port) and nodev mounts stop the forgery "
                  "where nothing else does: the control of make mutants's shared-dev kill"),
    }),
]
# A cell whose wanted outcome must also have this reason (not any mismatch).
WANT_REASON = {("passthrough", c): "outlived the supervisor"
               for c in ("cgroup-leave", "cgroup-leave-zleader", "cgroup-leave-chain",
                         "cgroup-leave-cover", "core-pattern-linger")}


def run(bundle, cells):
    """One matrix run of `bundle` on `cells`: (summary or None, seconds,
    its output). Two run side by side (main): each writes only its own
    results/<run id>, and its output is kept to be printed whole."""
    run_id = f"bundle-smoke-{bundle}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    env = dict(os.environ, KERNELS=KERNEL, SCENARIOS=" ".join(sorted(cells)), JOBS="1",
               FLOOR="3", RUN_ID=run_id, SUPERVISOR=os.path.join(BUILD, "bundles", bundle))
    t0 = time.monotonic()
    res = subprocess.run([os.path.join(TOP, "run-vm.sh"), "matrix"], env=env, check=False,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    took = time.monotonic() - t0
    path = os.path.join(TOP, "results", run_id, "summary.json")
    if not os.path.exists(path):
        return None, took, res.stdout
    with open(path, encoding="utf-8") as f:
        return json.load(f), took, res.stdout


def main():
    passed = failed = 0
    # Two runs at a time, one VM each (JOBS=1): most of a small run is its
    # own set-up and hang-blind's 15 s wait, which the other overlaps. The
    # run ids differ by bundle; results are read in PLAN's order.
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        runs = [pool.submit(run, bundle, cells) for bundle, cells in PLAN]
        results = [r.result() for r in runs]
    print(f"bundle-smoke: {len(PLAN)} runs, two at a time, in {time.monotonic() - t0:.0f} s")
    for (bundle, cells), (summary, took, output) in zip(PLAN, results):
        print(f"--- bundle {bundle}: the matrix's output")
        print(output, end="" if output.endswith("\n") else "\n")
        print(f"bundle {bundle}: {len(cells)} cell(s) in {took:.0f} s")
        if summary is None:
            print(f"FAIL bundle_{bundle}_ran: no summary.json")
            failed += 1
            continue
        rec = summary.get("bundle") or {}
        if rec.get("name") == bundle and rec.get("digest") and rec.get("files"):
            print(f"ok bundle_{bundle}_recorded_by_sha256 ({rec['digest'][:16]}...)")
            passed += 1
        else:
            print(f"FAIL bundle_{bundle}_recorded_by_sha256: {rec!r}")
            failed += 1
        got = {c.get("scenario_cell"): c for c in summary.get("cells", [])}
        for cell, (want, why) in sorted(cells.items()):
            c = got.get(cell) or {}
            name = f"{bundle}_{cell}_is_{want}"
            reason_ok = WANT_REASON.get((bundle, cell), "") in (c.get("reason") or "")
            if c.get("outcome") == want and reason_ok:
                print(f"ok {name} ({why}; run {c.get('run_s')} s)")
                passed += 1
            else:
                print(f"FAIL {name}: got {c.get('outcome')!r}: {c.get('reason')!r}")
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
