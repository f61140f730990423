#!/usr/bin/env python3
"""The same cells both ways in one run: ISOLATION=boot, then ISOLATION=batch
(matrix.py twice, one kernel), compared cell by cell (issue 14). The batch
half's batches are sized by the boot half's guest times (COSTS), as a
nightly run's are by the run before it.

    bench_matrix.py bench [--kernel K] [--scenarios GLOBS] [--jobs N] [--min-cells 64]
        prints wall per cell per mode, the ratio, the boots, and the shares
        of VM time spent in boots, guest work and host work; exit 1 when
        any cell's outcome differs between the modes
    bench_matrix.py panic [--kernel K]
        a cell that panics the kernel (scenarios/tests/panic-mid-batch) in
        the middle of a batch: its outcome is panic, it costs one reboot,
        and every other cell's outcome is the one it has in boot mode

    bench_matrix.py reset [--kernel K] [--expect-blind]
        the reset's checks can still fail: a cell that leaves repairable
        state behind (scenarios/tests/reset-plant-1-repairable) must be put
        back and the next reset pass, naming each repair; the next cell
        (reset-plant-2-leftovers) leaves one thing per check that no reset
        may pass, and the reset after it must fail each of those checks and
        end the batch (the cells after it run in a fresh boot); with
        --expect-blind (GUEST_BIN: egress-reset built with
        GUEST_MUTANT_RESET_BLIND, every comparison with the boot passing) the
        test must fail, naming every check that compares with the boot

    bench_matrix.py report RESULTS/BATCH-RUN RESULTS/BOOT-RUN
        the same comparison of two runs made already

The environment (ACCEL, FLOOR, SUPERVISOR) reaches matrix.py as for `make
matrix`. Results in results/<run>-batch and results/<run>-boot. Python 3
standard library only.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
# The panic test's neighbours: cells that sort before and after the panic
# cell by id, so that the crash lands in the middle of one batch (JOBS=1).
PANIC_SCENARIOS = ("no-network.ptrace_scope=2,user=root panic-mid-batch "
                   "starter-undeclared.ptrace_scope=2,*")


def run_matrix(mode, run_id, kernel, scenarios, jobs, results, extra=None, costs="none"):
    """matrix.py's summary of one half. The panic and reset tests size
    their one batch by timeouts (costs none): nothing earlier should move
    their cells."""
    argv = [sys.executable, os.path.join(HERE, "matrix.py"), "--kernels", kernel,
            "--scenarios", scenarios, "--jobs", str(jobs), "--isolation", mode,
            "--run-id", f"{run_id}-{mode}", "--results", results, "--costs", costs]
    if extra:
        argv += ["--extra-scenarios", extra]
    env = dict(os.environ, FLOOR=os.environ.get("FLOOR") or "3")
    print(f"bench: {' '.join(argv[1:])}", flush=True)
    res = subprocess.run(argv, env=env, check=False, stdout=subprocess.PIPE, text=True)
    tail = [ln for ln in res.stdout.splitlines() if ln.startswith(("matrix", "wall"))]
    print("\n".join(f"  {ln}" for ln in tail), flush=True)
    path = os.path.join(results, f"{run_id}-{mode}", "summary.json")
    if not os.path.exists(path):
        raise SystemExit(f"bench: matrix ({mode}) exited {res.returncode} without {path}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def shares(summ):
    """VM seconds split into boots, guest work, host work (and the rest:
    resets between cells, the result's transfer, power-off, waiting)."""
    cells = summ["cells"]
    if summ["isolation"] == "batch":
        boot = sum(b.get("boot_s") or 0 for b in summ["batches"])
        host = sum(b.get("host_cpu_s") or 0 for b in summ["batches"])
    else:
        boot = sum(c.get("boot_s") or 0 for c in cells)
        host = sum(c.get("host_cpu_s") or 0 for c in cells)
    guest = sum(c.get("guest_s") or 0 for c in cells)
    vm = summ["cells_wall_s"] * max(1, min(summ["jobs"], len(cells)))
    return {"vm_s": vm, "boot_s": boot, "guest_s": guest, "host_s": host,
            "other_s": max(0.0, vm - boot - guest - host)}


def differences(a, b):
    ob = {c["cell"]: c for c in b["cells"]}
    out = []
    for c in a["cells"]:
        o = ob.get(c["cell"])
        if o is None or o["outcome"] != c["outcome"]:
            out.append(f"{c['cell']}: {a['isolation']} {c['outcome']} ({c['reason']}) / "
                       f"{b['isolation']} {o['outcome'] if o else 'absent'}"
                       f" ({o['reason'] if o else ''})")
    return out


def report(batch, boot):
    n = len(batch["cells"])
    print(f"\nbench: {n} cells on {', '.join(batch['kernels'])}, JOBS={batch['jobs']}; "
          f"batches sized by {batch.get('costs_from') or 'declared timeouts'}")
    for s in (batch, boot):
        sh = shares(s)
        vm = sh["vm_s"] or 1
        host_cell = sh["host_s"] / max(1, len(s["cells"]))
        print(f"  {s['isolation']:5s}: wall {s['cells_wall_s']:.1f} s, "
              f"{s['cells_wall_s'] / max(1, n):.2f} s per cell, {s['boots']} boots; "
              f"of {vm:.0f} VM-seconds: boots {100 * sh['boot_s'] / vm:.0f}%, guest work "
              f"{100 * sh['guest_s'] / vm:.0f}%, host work {100 * sh['host_s'] / vm:.0f}% "
              f"({host_cell:.3f} s CPU per cell), other {100 * sh['other_s'] / vm:.0f}%")
    ratio = boot["cells_wall_s"] / batch["cells_wall_s"] if batch["cells_wall_s"] else 0
    print(f"  ratio boot/batch: {ratio:.2f}x (target >= 4x)")
    diff = differences(batch, boot)
    for d in diff:
        print(f"  OUTCOME DIFFERS: {d}")
    print(f"bench: {n - len(diff)} cells alike, {len(diff)} differ")
    return 1 if diff else 0


def cmd_bench(a):
    boot = run_matrix("boot", a.run_id, a.kernel, a.scenarios, a.jobs, a.results)
    batch = run_matrix("batch", a.run_id, a.kernel, a.scenarios, a.jobs, a.results,
                       costs=os.path.join(a.results, f"{a.run_id}-boot"))
    if len(batch["cells"]) < a.min_cells:
        print(f"bench: only {len(batch['cells'])} cells (want >= {a.min_cells}): widen "
              f"SCENARIOS", file=sys.stderr)
    return report(batch, boot)


def cmd_panic(a):
    extra = os.path.join(TOP, "scenarios", "tests")
    batch = run_matrix("batch", a.run_id, a.kernel, PANIC_SCENARIOS, 1, a.results, extra)
    boot = run_matrix("boot", a.run_id, a.kernel, PANIC_SCENARIOS, 1, a.results, extra)
    failures = []
    panics = [c for c in batch["cells"] if c["scenario"] == "panic-mid-batch"]
    first = batch["batches"][0] if batch["batches"] else {"cells": []}
    if not panics or panics[0]["outcome"] != "panic":
        failures.append(f"the panic cell's outcome is {panics[0]['outcome'] if panics else None}")
    elif panics[0]["cell"] not in first["cells"][1:-1]:
        failures.append(f"the panic cell is not in the middle of the first batch: {first['cells']}")
    if batch["boots"] != 2:
        failures.append(f"{batch['boots']} boots in batch mode (want 2: the batch and one "
                        f"fresh boot for the cells after the panic)")
    failures += [f"outcome differs: {d}" for d in differences(batch, boot)]
    for f in failures:
        print(f"not ok: {f}")
    print(f"batch-panic: {'ok' if not failures else 'FAILED'}: {len(batch['cells'])} cells, "
          f"{batch['boots']} boots in batch mode, {boot['boots']} in boot mode")
    return 1 if failures else 0


# The reset test's cells in id order: a neighbour, the two plant cells, a
# neighbour that must run in a fresh boot after the failed reset.
RESET_SCENARIOS = ("no-network.ptrace_scope=2,user=root reset-plant-* "
                   "starter-undeclared.ptrace_scope=2,user=root")
# What the reset after reset-plant-1-repairable must say it put back (every
# string in its pass line).
RESET_REPAIRS = {
    "sysctl": ("net/ipv4/ip_default_ttl",),
    "network": ("192.0.2.200", "1=192.0.2.201", "1=2001:db8::201", "neigh family=2 ",
                "1=198.51.100.204", "6=f8010000"),
    "rootfs": ("/sbin/egress-planted", "/egress-planted-dir"),
    "mounts": ("/tmp/egress-planted-mnt",),
    "dev": ("/dev/egress-planted",),
    "cgroups": ("/sys/fs/cgroup/egress-planted-empty",),
    "cgroup-owner": ("(1 given back)",),
    "bpf": ("detached: prog",),
    "xfrm": ("flushed",),
    "init": ("restored: rlimit 7 ", "; nice 0"),
    "knobs": ("egress-cell/cgroup.max.descendants",),
    "clock": ("restored: clock",),
}
# The checks the reset after reset-plant-2-leftovers must fail (init-seccomp
# cannot be planted from a service: no process but init can filter init).
RESET_FAILS = ("processes", "cgroups", "mounts", "tmp", "dev", "rootfs", "network", "modules",
               "sysctl", "ipc", "bpf", "keys")


def reset_lines(text):
    """{check: (verdict, line)} of a reset's lines."""
    out = {}
    for line in text.splitlines():
        verdict, _, rest = line.partition(" reset:")
        name = rest.split(" ", 1)[0]
        if verdict in ("pass", "fail") and name:
            out.setdefault(name, (verdict, line))
    return out


# Checks that a checker whose every comparison with the boot passes
# (egress-reset built with GUEST_MUTANT_RESET_BLIND) still passes: processes
# compares with nothing, cgroup-owner gives back whatever it finds.
RESET_BLIND_SURVIVES = ("processes", "cgroup-owner")


def cmd_reset(a):
    extra = os.path.join(TOP, "scenarios", "tests")
    batch = run_matrix("batch", a.run_id, a.kernel, RESET_SCENARIOS, 1, a.results, extra)
    cells = {c["scenario"]: c for c in batch["cells"]}
    failures = []
    after = cells.get("reset-plant-2-leftovers")
    if not after:
        failures.append("no reset-plant-2-leftovers cell")
    else:
        path = os.path.join(a.results, f"{a.run_id}-batch", "cells", after["cell"], "guest",
                            "reset")
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        got = reset_lines(text)
        for name, wants in RESET_REPAIRS.items():
            verdict, line = got.get(name, (None, ""))
            for want in wants:
                if verdict != "pass" or want not in line:
                    failures.append(f"repairable: reset:{name} is not a pass naming {want}: "
                                    f"{line or 'absent'}")
        for name, (verdict, line) in got.items():
            if verdict != "pass":
                failures.append(f"repairable: {line}")
    ends = [b for b in batch["batches"]
            if isinstance(b.get("end"), dict) and b["end"].get("status") == "reset-failed"]
    if len(ends) != 1:
        failures.append(f"{len(ends)} batches ended by a failed reset (want 1)")
    else:
        got = reset_lines(ends[0]["end"].get("detail") or "")
        for name in RESET_FAILS:
            verdict, line = got.get(name, (None, ""))
            if verdict != "fail":
                failures.append(f"leftovers: reset:{name} did not fail: {line or 'absent'}")
    if batch["boots"] != 2:
        failures.append(f"{batch['boots']} boots (want 2: the batch, and one fresh boot for "
                        f"the cell after the failed reset)")
    for f in failures:
        print(f"not ok: {f}")
    print(f"batch-reset: {'ok' if not failures else 'FAILED'}: {len(batch['cells'])} cells, "
          f"{batch['boots']} boots, {len(RESET_REPAIRS)} repairs and {len(RESET_FAILS)} "
          f"refusals checked")
    if a.expect_blind:
        # The test against the blind checker: every check that compares with
        # the boot must be among the failures, named.
        named = {f.split("reset:", 1)[1].split(" ", 1)[0] for f in failures if "reset:" in f}
        want = (set(RESET_REPAIRS) | set(RESET_FAILS)) - set(RESET_BLIND_SURVIVES)
        missed = sorted(want - named)
        print(f"batch-reset (blind checker): {len(want) - len(missed)} of {len(want)} checks "
              f"caught{': not caught: ' + ', '.join(missed) if missed else ''}")
        return 1 if missed else 0
    return 1 if failures else 0


def load(run_dir):
    with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
        return json.load(f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("report")
    p.add_argument("batch_run")
    p.add_argument("boot_run")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for name in ("bench", "panic", "reset"):
        p = sub.add_parser(name)
        p.add_argument("--kernel", default=os.environ.get("KERNELS") or "debian-6.1-cloud")
        p.add_argument("--run-id", default=os.environ.get("RUN_ID") or f"{name}-{stamp}")
        p.add_argument("--results", default=os.path.join(TOP, "results"))
        if name == "reset":
            p.add_argument("--expect-blind", action="store_true",
                           help="GUEST_BIN is the blind checker: exit 0 only when the test "
                                "fails on every check that compares with the boot")
        if name == "bench":
            p.add_argument("--scenarios", default=os.environ.get("SCENARIOS", ""))
            p.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS") or 2))
            p.add_argument("--min-cells", type=int, default=64)
    a = ap.parse_args(argv)
    if a.cmd == "report":
        return report(load(a.batch_run), load(a.boot_run))
    return {"bench": cmd_bench, "panic": cmd_panic, "reset": cmd_reset}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
