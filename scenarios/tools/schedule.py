#!/usr/bin/env python3
"""Running the matrix's cells (matrix.py): the batches of an ISOLATION=batch
run, one `run-vm.sh cell|batch` child per boot, JOBS at once, and the judging
of what each child wrote. Every child runs in a process group of its own, so
a run that times a child out, or is told to stop (SIGTERM, SIGINT, SIGHUP:
a cancelled CI job), ends the whole group (run-vm.sh, the cell runner and
QEMU), and the cells it never decided are `not-run`, not lost: matrix.py
still writes the summary of what the run saw.
Python 3 standard library only.
"""

import concurrent.futures
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "initramfs", "host"))
import contract as C  # noqa: E402 - initramfs/host/contract.py

OUTCOMES, GOOD_OUTCOMES = C.OUTCOMES, C.GOOD_OUTCOMES
# Seconds `run-vm.sh cell` may take beyond the cell's own timeout before this
# runner gives up on it (booting on a loaded machine, building nothing): past
# that the runner itself is broken, an infra-error.
RUNNER_GRACE_S = 180
# Seconds a stopped run's children get between SIGTERM and SIGKILL: a batch
# ends its guest (launcher.stop: up to 5 s) and decides what it framed.
STOP_GRACE_S = 20


def fmt_s(sec):
    sec = int(round(sec))
    return f"{sec // 60}m{sec % 60:02d}s" if sec >= 60 else f"{sec}s"


# A batch boot's most cells: its kernel command line (about 7 bytes a cell)
# stays far below x86's 2048 bytes, and a panic reruns at most this many.
MAX_BATCH_CELLS = 48


class Children:
    """The run's `run-vm.sh` children, each in a process group of its own,
    and whether the run was told to stop. One per run (opts.children)."""

    def __init__(self):
        self.signal = None   # the name of the signal that stopped the run
        self.lock = threading.Lock()
        self.live = set()

    def run(self, argv, logf, timeout):
        """Runs argv (output to logf) in a new process group. Returns its
        exit status, or None when it ran past timeout or the run was
        stopped (its group is then ended, SIGTERM then SIGKILL). A stopped
        run starts nothing. Raises OSError when argv cannot be run."""
        with self.lock:
            # Under the lock: a stop() between this check and Popen would
            # miss the new child.
            if self.signal:
                return None
            p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            self.live.add(p)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            end_group(p)
            rc = None
        # QEMU and the cell runner share the group: whatever the leader left
        # behind goes with it.
        kill_group(p.pid, signal.SIGKILL)
        with self.lock:
            self.live.discard(p)
        return None if self.signal else rc

    def stop(self, signum):
        """The signal handler's half: record the signal, SIGTERM every live
        group, SIGKILL what is left of them STOP_GRACE_S later."""
        self.signal = signal.Signals(signum).name
        with self.lock:
            groups = [p.pid for p in self.live]
        for pgid in groups:
            kill_group(pgid, signal.SIGTERM)
        t = threading.Timer(STOP_GRACE_S, lambda: [kill_group(g, signal.SIGKILL)
                                                   for g in groups])
        t.daemon = True
        t.start()


def kill_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def end_group(p):
    """SIGTERM to p's group, SIGKILL STOP_GRACE_S later; p reaped."""
    kill_group(p.pid, signal.SIGTERM)
    try:
        p.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        kill_group(p.pid, signal.SIGKILL)
        p.wait()


def not_run(cell, why):
    """The result of a cell a stopped run never decided."""
    r = judge(cell, None, why, 0.0)
    r["outcome"] = "not-run"
    return r


def boot_scoped_last(cell):
    """True for a cell that raises kernel.yama.ptrace_scope to 3, which only
    a reboot lowers (the reset after it would fail): such cells share
    batches of their own (plan_batches)."""
    with open(cell["cell_file"], encoding="utf-8") as f:
        return any(ln.strip() == "sysctl=kernel.yama.ptrace_scope=3" for ln in f)


def cost(cell):
    """A cell's estimated cost (estimate_costs), in the run's one unit."""
    return cell["cost"]


# What a batch cell costs beyond its own guest work: the reset before it and
# its frame's transfer (medians 0.15 s and 0.10 s a cell on debian-6.1-cloud
# under TCG, docs/scenarios.md). Added to a cost taken from an earlier run.
CELL_OVERHEAD_S = 0.25


class CostError(Exception):
    """An earlier run's summary that cannot give costs (named in the text)."""


def earlier_guest_seconds(summary_path):
    """{cell id: (scenario cell, guest seconds)} of the cells an earlier
    run decided with a guest time (summary.json's guest_s). Raises
    CostError naming the file when it cannot be read or has none."""
    try:
        with open(summary_path, encoding="utf-8") as f:
            summ = json.load(f)
        out = {c["cell"]: (c["scenario_cell"], float(c["guest_s"]))
               for c in summ["cells"] if c.get("guest_s") is not None}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CostError(f"{summary_path}: not a matrix summary with cells ({e})") from None
    if not out:
        raise CostError(f"{summary_path}: no cell has a guest time")
    return out


def size_batches(cells, costs, results_dir):
    """Sets every cell's cost (estimate_costs) from the run COSTS names:
    "none" (the declared timeouts), a results/<run> directory, or "auto"
    (the newest summary.json under results_dir that gives times; the run
    being made has none yet). Returns (the summary used or None, how many
    cells it knew, [notes on the runs passed over]). Raises CostError
    when a named run cannot give costs."""
    notes = []
    if costs == "none":
        return None, estimate_costs(cells, None), notes
    if costs != "auto":
        path = os.path.join(costs, "summary.json")
        return path, estimate_costs(cells, earlier_guest_seconds(path)), notes
    try:
        runs = [os.path.join(results_dir, d, "summary.json") for d in os.listdir(results_dir)]
    except FileNotFoundError:
        runs = []
    # results/latest is a link to one of them: each run once, by its own name.
    runs = sorted({os.path.realpath(p) for p in runs if os.path.isfile(p)},
                  key=os.path.getmtime, reverse=True)
    for path in runs:
        try:
            earlier = earlier_guest_seconds(path)
        except CostError as e:
            notes.append(f"costs: passed over {e}")
            continue
        return path, estimate_costs(cells, earlier), notes
    return None, estimate_costs(cells, None), notes


def estimate_costs(cells, earlier):
    """Sets every cell's "cost", the guest seconds plan_batches balances.
    With an earlier run's times (earlier_guest_seconds, or None): the
    cell's own earlier time, else the median of its scenario cell's on
    other kernels, else its declared timeout scaled by the median
    time/timeout of the cells that have one; each plus CELL_OVERHEAD_S.
    Without: the declared timeout (a bound, not a duration: pid-chain
    declares 900 s for a few seconds' work, so batches come out uneven).
    Returns how many cells had a time of their own or of their scenario
    cell's."""
    if not earlier:
        for c in cells:
            c["cost"] = int(c["timeout"])
        return 0
    by_scell = {}
    for scell, sec in earlier.values():
        by_scell.setdefault(scell, []).append(sec)
    known, ratios = {}, []
    for c in cells:
        if c["id"] in earlier:
            known[c["id"]] = earlier[c["id"]][1]
        elif c.get("scenario_cell") in by_scell:
            known[c["id"]] = statistics.median(by_scell[c["scenario_cell"]])
        if c["id"] in known:
            ratios.append(known[c["id"]] / int(c["timeout"]))
    if not known:
        return estimate_costs(cells, None)
    scale = statistics.median(ratios)
    for c in cells:
        sec = known.get(c["id"], int(c["timeout"]) * scale)
        c["cost"] = round(sec + CELL_OVERHEAD_S, 3)
    return len(known)


def plan_batches(cells, jobs):
    """The boots of an ISOLATION=batch run: [[cell, ...], ...], longest
    first. Per kernel, the cells are spread over batches so that JOBS VMs
    finish together (greedy by cost onto the least-loaded batch), at most
    MAX_BATCH_CELLS each; a scenario with isolation = boot gets a boot per
    cell. Cells that raise kernel.yama.ptrace_scope to 3, which only a
    reboot lowers, share batches of their own, booted with scope 3 set
    before the baseline (batch_run's boot_ptrace_scope), so no reset has to
    lower it. Within a batch the cells run in the order of their ids (the
    same neighbours whatever order the scenarios were loaded in)."""
    alone, groups = [], {}
    for c in cells:
        if c["isolation"] == "boot":
            alone.append([c])
        else:
            groups.setdefault((c["kernel"], c["ptrace3"]), []).append(c)
    total = sum(cost(c) for cs in groups.values() for c in cs) or 1
    out = list(alone)
    for cs in groups.values():
        gcost = sum(cost(c) for c in cs)
        n = max(1, -(-len(cs) // MAX_BATCH_CELLS), round(jobs * gcost / total))
        n = min(n, len(cs))
        bins = [[] for _ in range(n)]
        load = [0] * n
        for c in sorted(cs, key=lambda c: (-cost(c), c["id"])):
            i = min(range(n), key=lambda j: (load[j], len(bins[j])))
            if len(bins[i]) >= MAX_BATCH_CELLS:
                bins.append([])
                load.append(0)
                i = len(bins) - 1
            bins[i].append(c)
            load[i] += cost(c)
        for b in bins:
            if b:
                b.sort(key=lambda c: c["id"])
                out.append(b)
    out.sort(key=lambda b: -sum(cost(c) for c in b))
    return out


def rerun_command(cell, opts):
    parts = ["make", "matrix", f"KERNELS={cell['kernel']}",
             f"SCENARIOS={cell['scenario_cell']}", "ISOLATION=boot"]
    if opts.supervisor_given:
        parts.append(f"SUPERVISOR={opts.supervisor_source}")
    if opts.extra_scenarios:
        parts.append(f"EXTRA_SCENARIOS={opts.extra_scenarios}")
    return shlex.join(parts)


def guest_seconds(d):
    """The guest's own seconds for a cell (uptime at its frame minus uptime
    at its start: its work, the boot and the reset before it excluded), from
    the decoded meta section; None when there is none."""
    try:
        with open(os.path.join(d, "guest", "meta"), encoding="utf-8") as f:
            meta = dict(ln.rstrip("\n").split("=", 1) for ln in f if "=" in ln)
        return round(float(meta["uptime_end"]) - float(meta.get("uptime_cell") or
                                                       meta["uptime_init"]), 3)
    except (OSError, ValueError, KeyError):
        return None


def read_host_cpu(out):
    """The host CPU seconds the runner's own process spent (its host-cpu
    file), or None."""
    try:
        with open(os.path.join(out, "host-cpu"), encoding="utf-8") as f:
            return float(f.read().strip())
    except (OSError, ValueError):
        return None


def run_batch(batch, bid, kinfo, initrd, opts):
    """Boots one batch through run-vm.sh batch. Returns (decided, rerun,
    record): decided [(cell, result)] for the cells this boot decided,
    rerun the cells to run again in a fresh boot (the boot ended before
    them), record the batch for summary.json. Never raises."""
    bdir = os.path.join(opts.rdir, "batches", bid)
    os.makedirs(bdir)
    rec = {"batch": bid, "kernel": kinfo["name"], "cells": [c["id"] for c in batch],
           "boot_dir": os.path.relpath(bdir, opts.rdir), "wall_s": None, "end": None,
           "qemu_exit": None, "nonce": None, "rerun": None, "host_cpu_s": None,
           "boot_s": None}
    if not kinfo["path"]:
        why = f"kernel {kinfo['name']} unavailable: {kinfo['error']}"
        return [(c, judge(c, None, why, 0.0)) for c in batch], [], rec
    plan = {"cells": [{"cell_file": c["cell_file"], "out": c["dir"], "index": c["index"],
                       "timeout": int(c["timeout"])} for c in batch]}
    if all(c["ptrace3"] for c in batch) and not any(c["isolation"] == "boot" for c in batch):
        plan["boot_ptrace_scope"] = 3
        rec["boot_ptrace_scope"] = 3
    with open(os.path.join(bdir, "plan.json"), "w", encoding="utf-8") as f:
        json.dump(plan, f, indent=1)
    argv = [opts.runner, "batch", "--kernel", kinfo["path"], "--initrd", initrd,
            "--plan", os.path.join(bdir, "plan.json"), "--out", bdir,
            "--machine", kinfo["machine"], "--accel", opts.accel_choice["accelerator"],
            "--accel-reason", opts.accel_choice["reason"], "--supervisor", opts.supervisor]
    limit = sum(int(c["timeout"]) for c in batch) + RUNNER_GRACE_S
    t0 = time.monotonic()
    with open(os.path.join(bdir, "run-vm.log"), "w", encoding="utf-8") as logf:
        try:
            rc = opts.children.run(argv, logf, limit)
        except OSError as e:
            return [(c, judge(c, None, f"cannot run run-vm.sh: {e}", 0.0)) for c in batch], \
                [], rec
    wall = time.monotonic() - t0
    rec["wall_s"] = round(wall, 2)
    try:
        with open(os.path.join(bdir, "batch.json"), encoding="utf-8") as f:
            data = json.load(f)
        entries = {e["cell"]: e for e in data["cells"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        if opts.children.signal:
            rec["end"] = f"stopped ({opts.children.signal})"
            why = f"the run was stopped ({opts.children.signal}) while its boot ran"
            return [(c, not_run(c, why)) for c in batch], [], rec
        why = (f"run-vm.sh batch did not finish within {limit}s" if rc is None else
               f"run-vm.sh batch exited {rc} without a usable batch.json ({e}; see "
               f"{os.path.join(bdir, 'run-vm.log')})")
        return [(c, judge(c, None, why, wall / len(batch))) for c in batch], [], rec
    rec.update({k: data.get(k) for k in ("end", "qemu_exit", "nonce", "rerun", "boot_s")})
    rec["host_cpu_s"] = read_host_cpu(bdir)
    decided, rerun = [], []
    for pos, c in enumerate(batch, 1):
        e = entries.get(c["id"]) or {"state": "rerun", "reason": "not in batch.json"}
        c.setdefault("boots", []).append(bid)
        if e.get("state") != "decided":
            c["rerun_reason"] = e.get("reason")
            rerun.append(c)
            continue
        try:
            with open(os.path.join(c["dir"], "cell.json"), encoding="utf-8") as f:
                cdata = json.load(f)
            r = judge(c, cdata, None, cdata.get("run_s") or 0.0)
        except (OSError, ValueError) as err:
            r = judge(c, None, f"run-vm.sh batch decided the cell but its cell.json is "
                      f"unreadable: {err}", 0.0)
        r.update({"batch": bid, "position": pos, "boot_cells": len(batch),
                  "batch_rerun": data.get("rerun"),
                  "host_cpu_s": rec["host_cpu_s"] / len(batch) if rec["host_cpu_s"] else None})
        decided.append((c, r))
    return decided, rerun, rec


def run_cell(cell, kinfo, initrd, opts):
    """Boot one cell through run-vm.sh cell; return its result dict (never
    raises: every failure is an outcome)."""
    out = cell["dir"]
    if not kinfo["path"]:
        return judge(cell, None, f"kernel {kinfo['name']} unavailable: {kinfo['error']}", 0.0)
    timeout = int(cell["timeout"])
    argv = [opts.runner, "cell", "--kernel", kinfo["path"],
            "--initrd", initrd, "--cell-file", cell["cell_file"], "--out", out,
            "--timeout", str(timeout), "--machine", kinfo["machine"],
            "--accel", opts.accel_choice["accelerator"],
            "--accel-reason", opts.accel_choice["reason"], "--supervisor", opts.supervisor]
    t0 = time.monotonic()
    with open(os.path.join(out, "run-vm.log"), "w", encoding="utf-8") as logf:
        try:
            rc = opts.children.run(argv, logf, timeout + RUNNER_GRACE_S)
        except OSError as e:
            return judge(cell, None, f"cannot run run-vm.sh: {e}", time.monotonic() - t0)
    wall = time.monotonic() - t0
    if opts.children.signal:
        return not_run(cell, f"the run was stopped ({opts.children.signal}) before this "
                       f"cell was decided")
    if rc is None:
        return judge(cell, None, f"run-vm.sh cell did not finish within "
                     f"{timeout + RUNNER_GRACE_S}s", wall)
    path = os.path.join(out, "cell.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return judge(cell, None, f"run-vm.sh cell exited {rc} without writing cell.json "
                     f"(see {os.path.join(out, 'run-vm.log')})", wall)
    except (OSError, ValueError) as e:
        return judge(cell, None, f"cell.json unreadable: {e}", wall)
    r = judge(cell, data, None, wall)
    r["host_cpu_s"] = read_host_cpu(out)
    return r


def run_cells(cells, kinfo, opts, progress):
    """Runs every cell, JOBS VMs at once: one boot per cell (ISOLATION=boot)
    or batches (plan_batches), where the cells a boot did not reach (it
    ended in a panic, a hang, a failed reset) run again in a fresh boot.
    Returns the batch records (empty for boot)."""
    def done(c, r):
        c.update(r)
        c["rerun"] = rerun_command(c, opts)
        if r["outcome"] != "not-run":   # a stopped run says so once, not per cell
            progress.step(c, c)

    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        if opts.isolation == "boot":
            futs = {pool.submit(run_cell, c, kinfo[c["kernel"]],
                                kinfo[c["kernel"]].get("initrd"), opts): c for c in cells}
            for fut in concurrent.futures.as_completed(futs):
                # A stopped run's queued cells return at once (Children.run
                # starts nothing), each as not-run.
                done(futs[fut], fut.result())
            return []
        records, n = [], 0
        os.makedirs(os.path.join(opts.rdir, "batches"))

        def submit(batch, rerun_of=None):
            nonlocal n
            n += 1
            bid = f"b{n:03d}"
            k = kinfo[batch[0]["kernel"]]
            fut = pool.submit(run_batch, batch, bid, k, k.get("initrd"), opts)
            pending[fut] = (batch, rerun_of)

        pending = {}
        for b in plan_batches(cells, opts.jobs):
            submit(b)
        while pending:
            finished, _ = concurrent.futures.wait(pending,
                                                  return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in finished:
                _, rerun_of = pending.pop(fut)
                decided, rerun, rec = fut.result()
                rec["rerun_of"] = rerun_of
                rec["boot"] = len(records) + 1
                records.append(rec)
                for c, r in decided:
                    done(c, r)
                if rerun and opts.children.signal:
                    for c in rerun:
                        done(c, not_run(c, f"the run was stopped ({opts.children.signal}) "
                                        f"before a boot decided this cell "
                                        f"({rec['batch']}: {c.get('rerun_reason')})"))
                elif rerun:
                    submit(rerun, rec["batch"])
        return records


def judge(cell, data, infra, wall):
    """The cell's final outcome. The runner's own outcome is taken, then
    checked against what this matrix compiled: a runner that says ok for a
    verdict other than the expected one, or reports another cell, is not
    believed."""
    r = {"outcome": "infra-error", "reason": infra, "got": None, "supervisor_exit": None,
         "batch": None, "position": 1, "boot_cells": 1, "batch_rerun": None,
         "boot_s": None, "run_s": None, "qemu_cmdline": None, "qemu_version": None,
         "accelerator": None, "accelerator_reason": None, "features": None,
         "preconditions": None, "splats": [],
         "runner_rerun": None, "wall_s": round(wall, 2)}
    if data is None:
        return r
    if not isinstance(data, dict):
        r["reason"] = "cell.json is not an object"
        return r
    r.update({"got": data.get("got"), "supervisor_exit": data.get("supervisor_exit"),
              "boot_s": data.get("boot_s"), "run_s": data.get("run_s"),
              "qemu_cmdline": data.get("qemu_cmdline"),
              "qemu_version": data.get("qemu_version"),
              "accelerator": data.get("accelerator"),
              "accelerator_reason": data.get("accelerator_reason"),
              "features": data.get("features"),
              "preconditions": data.get("preconditions"),
              "splats": data.get("splats") or [], "runner_rerun": data.get("rerun"),
              "reason": data.get("reason")})
    outcome = data.get("outcome")
    if outcome not in OUTCOMES or outcome == "not-run":
        r["outcome"] = "infra-error"
        r["reason"] = f"cell.json outcome {outcome!r} is not one of {', '.join(OUTCOMES)}"
        return r
    if data.get("cell") != cell["id"]:
        r["reason"] = f"cell.json is for cell {data.get('cell')!r}, not {cell['id']!r}"
        return r
    if data.get("expected") not in (None, cell["expected"]):
        r["reason"] = (f"run-vm.sh expected {data.get('expected')!r} but the cell file "
                       f"says {cell['expected']!r}")
        return r
    got = data.get("got")
    # A verdict the cell file allows besides expect (finished=, untried=),
    # which cell_result accepts only on the ground truth it checks there.
    also = cell.get("expected_also") or []
    if outcome == "ok" and got != cell["expected"] and got not in also:
        outcome = "false-green" if got == "pass" else "mismatch"
        r["reason"] = f"run-vm.sh said ok but got {got!r}, expected {cell['expected']!r}"
    elif outcome == "mismatch" and got == "pass":
        outcome = "false-green"
        r["reason"] = f"supervisor said pass, expected {cell['expected']}: {r['reason']}"
    r["outcome"] = outcome
    if not r["reason"]:
        r["reason"] = "" if outcome == "ok" else "(run-vm.sh gave no reason)"
    return r


class Progress:
    def __init__(self, total, jobs):
        self.total, self.jobs = total, jobs
        self.done = self.bad = 0
        self.t0 = time.monotonic()
        self.lock = threading.Lock()

    def step(self, cell, result):
        with self.lock:
            self.done += 1
            if result["outcome"] not in GOOD_OUTCOMES:
                self.bad += 1
            el = time.monotonic() - self.t0
            eta = el / self.done * (self.total - self.done)
            mark = "" if result["outcome"] in GOOD_OUTCOMES else "  <--"
            print(f"[{self.done}/{self.total}] failures {self.bad}, elapsed {fmt_s(el)}, "
                  f"eta {fmt_s(eta)}  {cell['kernel']} {cell['scenario_cell']}: "
                  f"{result['outcome']}{mark}", flush=True)


def reset_failures(batches):
    """Each batch that a failed reset ended: {"kernel", "batch", "after" (the
    cell after which the reset ran), "detail"}. A failed reset is handled
    (the cells after it run in fresh boots), but it is a defect of isolation
    (a scenario that leaves what no reset puts back, or a reset that cannot
    take its baseline: every batch of the custom kernels was one cell long
    for a whole stop, and nothing failed)."""
    out = []
    for b in batches:
        end = b.get("end") if isinstance(b.get("end"), dict) else {}
        if end.get("status") != "reset-failed":
            continue
        seq, cells = end.get("seq"), b.get("cells") or []
        # The guest resets only between cells: seq is the cell before it.
        after = cells[seq - 1] if isinstance(seq, int) and 0 < seq <= len(cells) else f"cell {seq}"
        out.append({"kernel": b["kernel"], "batch": b.get("batch"), "after": after,
                    "detail": str(end.get("detail") or "").strip()[:160]})
    return out


def reset_failures_by_kernel(resets):
    """The reset failures grouped by kernel, in order."""
    out = {}
    for r in resets:
        out.setdefault(r["kernel"], []).append(r)
    return out
