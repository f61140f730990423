#!/usr/bin/env python3
"""Self-test of matrix.py's judging and reporting, with a fake per-cell
runner in place of run-vm.sh (no VM boots; the initramfs is really built and
the kernel really looked up). Run: python3 scenarios/tools/test_matrix.py
Needs: make supervisor agents initramfs-guest, and the debian-6.1-cloud kernel.
Ends with `N passed, N failed`."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))

# The fake runner: behaves by the cell's user axis.
#   root    -> the right verdict, outcome ok
#   nocap   -> claims ok but got pass: matrix.py must call it a false green
#   uid1000 -> exits 1 without cell.json: an infra-error, never ok
# `batch` (ISOLATION=batch, the default) lies the same way for every cell of
# its plan and says each was decided in its boot.
FAKE = r'''#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
assert a[0] in ("cell", "batch"), a
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1, 2)}
if a[0] == "batch":
    plan = json.load(open(opt["--plan"]))["cells"]
    todo = [(c["cell_file"], c["out"]) for c in plan]
else:
    todo = [(opt["--cell-file"], opt["--out"])]
entries = []
for cell_file, out in todo:
  cell = {}
  for line in open(cell_file):
    if line.strip() and not line.startswith("#"):
        k, _, v = line.rstrip("\n").partition("=")
        cell.setdefault(k, v)
  cid = cell["cell"]
  entries.append({"cell": cid, "state": "decided"})
  if "user=uid1000" in cid:
    if a[0] == "cell":
        sys.exit(1)
    continue
  got = "pass" if "user=nocap" in cid else cell["expect"]
  # Two boots of one kernel that read pidfd_getfd differently: reported.
  feats = {"seccomp_notify": {"available": True, "detail": "listener ok"},
           "pidfd_getfd": {"available": "user=nocap" not in cid,
                           "detail": "ENOSYS" if "user=nocap" in cid else "ok"},
           "x32": {"available": False, "detail": "ENOSYS"}}
  json.dump({"cell": cid, "scenario": cell["scenario"], "expected": cell["expect"],
           "got": got, "outcome": "ok", "reason": "", "supervisor_exit": 0,
           "qemu_cmdline": "qemu-system-x86_64 -fake", "qemu_version": "fake",
           "accelerator": "tcg", "boot_s": 1.0, "run_s": 0.5, "splats": [],
           "features": feats},
          open(os.path.join(out, "cell.json"), "w"))
if a[0] == "batch":
    json.dump({"cells": entries, "nonce": "0" * 32, "rerun": "fake batch"},
              open(os.path.join(opt["--out"], "batch.json"), "w"))
'''

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


STATE = {}


def run_once():
    if STATE:
        return STATE
    tmp = tempfile.mkdtemp(prefix="matrix-selftest-")
    fake = os.path.join(tmp, "fake-run-vm")
    with open(fake, "w", encoding="utf-8") as f:
        f.write(FAKE)
    os.chmod(fake, 0o755)
    res = subprocess.run([sys.executable, os.path.join(HERE, "matrix.py"), "--runner", fake,
                          "--results", tmp, "--run-id", "t", "--floor", "0.5", "--accel", "tcg",
                          "--kernels", "debian-6.1-cloud", "--jobs", "2",
                          "--scenarios", "starter-undeclared.ptrace_scope=2,*"],
                         capture_output=True, text=True, check=False)
    STATE.update(rc=res.returncode, out=res.stdout, err=res.stderr,
                 dir=os.path.join(tmp, "t"), tmp=tmp)
    return STATE


@test
def matrix_exits_nonzero_when_a_cell_is_not_ok():
    s = run_once()
    assert s["rc"] == 1, (s["rc"], s["err"][-2000:])


@test
def runner_claiming_ok_for_pass_is_a_false_green():
    s = run_once()
    summ = json.load(open(os.path.join(s["dir"], "summary.json"), encoding="utf-8"))
    by = {c["scenario_cell"]: c for c in summ["cells"]}
    assert by["starter-undeclared.ptrace_scope=2,user=nocap"]["outcome"] == "false-green"
    assert by["starter-undeclared.ptrace_scope=2,user=root"]["outcome"] == "ok"
    assert by["starter-undeclared.ptrace_scope=2,user=uid1000"]["outcome"] == "infra-error"
    assert "FALSE GREEN" in s["out"] and s["out"].rfind("FALSE GREEN") > \
        s["out"].rfind("INFRA-ERROR"), "false greens must be printed last"


@test
def runner_ok_stands_only_for_a_verdict_the_cell_allows():
    """finished= and untried= (docs/scenarios.md) let cell_result call a
    verdict other than expect ok on the ground truth; the matrix's check of
    the runner admits exactly those, and nothing else."""
    import schedule  # noqa: E402 - the module under test, only for this pure function
    cell = {"id": "c+k", "expected": "fail", "expected_also": ["pass"]}
    data = {"cell": "c+k", "outcome": "ok", "got": "pass", "expected": "fail",
            "reason": "verdict pass for expected fail (expect_untried=pass)"}
    assert schedule.judge(cell, data, "", 1.0)["outcome"] == "ok"
    assert schedule.judge(dict(cell, expected_also=[]), data, "", 1.0)["outcome"] == \
        "false-green"
    other = dict(data, got="capability-error")
    assert schedule.judge(cell, other, "", 1.0)["outcome"] == "mismatch"


@test
def summary_carries_the_per_cell_fields():
    s = run_once()
    summ = json.load(open(os.path.join(s["dir"], "summary.json"), encoding="utf-8"))
    c = summ["cells"][0]
    for k in ("kernel", "kernel_version", "kernel_sha256", "qemu_version", "accelerator",
              "qemu_cmdline", "boot_s", "run_s", "expected", "got", "outcome", "reason",
              "rerun"):
        assert k in c, k
    assert len(c["kernel_sha256"]) == 64
    assert summ["wall_over_floor"] is not None


@test
def junit_has_one_testcase_per_cell_with_rerun():
    s = run_once()
    root = ET.parse(os.path.join(s["dir"], "junit.xml")).getroot()
    cases = root.findall("testcase")
    assert len(cases) == 3, len(cases)
    fails = [tc for tc in cases if tc.find("failure") is not None]
    errs = [tc for tc in cases if tc.find("error") is not None]
    assert len(fails) == 1 and len(errs) == 1, (len(fails), len(errs))
    msg = fails[0].find("failure").get("message")
    assert "expected capability-error, got pass" in msg and "make matrix KERNELS=" in msg, msg


@test
def summary_records_the_batches_and_each_cells_position():
    s = run_once()
    summ = json.load(open(os.path.join(s["dir"], "summary.json"), encoding="utf-8"))
    assert summ["isolation"] == "batch", summ["isolation"]
    planned = [cid for b in summ["batches"] for cid in b["cells"]]
    assert sorted(planned) == sorted(c["cell"] for c in summ["cells"]), planned
    assert summ["boots"] == len(summ["batches"]) >= 1, summ["boots"]
    for c in summ["cells"]:
        b = next(b for b in summ["batches"] if b["batch"] == c["batch"])
        assert b["cells"][c["position"] - 1] == c["cell"], (c, b)
        assert "ISOLATION=boot" in c["rerun"], c["rerun"]


def fake_cell(cid, kernel="k", timeout="60", isolation="batch", ptrace3=False):
    return {"id": cid, "scenario_cell": cid.rsplit("+", 1)[0], "kernel": kernel,
            "timeout": timeout, "isolation": isolation, "ptrace3": ptrace3,
            "cost": int(timeout)}


def earlier_summary(tmp, name, times):
    """results/<name>/summary.json of an earlier run: {cell id: guest_s}."""
    os.makedirs(os.path.join(tmp, name))
    cells = [{"cell": cid, "scenario_cell": cid.rsplit("+", 1)[0], "guest_s": sec}
             for cid, sec in times.items()]
    with open(os.path.join(tmp, name, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"cells": cells}, f)
    return os.path.join(tmp, name)


@test
def batches_are_sized_by_an_earlier_runs_guest_times_not_by_declared_timeouts():
    sys.path.insert(0, HERE)
    import schedule  # noqa: E402
    # Declared as pid-chain and threads-load are: the long-timeout cell is
    # quick, the short-timeout one does most of the work.
    cells = ([fake_cell("long+k", timeout="900"), fake_cell("heavy+k", timeout="240"),
              fake_cell("new+k", timeout="90")] +
             [fake_cell(f"c{i:02d}+k", timeout="90") for i in range(20)])
    real = {c["id"]: 0.5 for c in cells}
    real.update({"long+k": 3.0, "heavy+k": 10.0})
    loads = [sum(real[c["id"]] for c in b) for b in schedule.plan_batches(cells, 2)]
    assert len(loads) == 2 and max(loads) - min(loads) > 3.0, loads
    tmp = tempfile.mkdtemp(prefix="costs-")
    try:
        times = {f"c{i:02d}+k": 0.5 for i in range(20)}
        times.update({"long+k": 3.0, "heavy+other": 10.0})
        run = earlier_summary(tmp, "r1", times)
        path, known, notes = schedule.size_batches(cells, run, tmp)
        assert path == os.path.join(run, "summary.json") and notes == [], (path, notes)
        cost = {c["id"]: c["cost"] for c in cells}
        # its own time; its scenario cell's on another kernel; a timeout
        # scaled by the median time/timeout (0.5/90) of the known cells
        assert known == 22, known
        assert cost["long+k"] == 3.0 + schedule.CELL_OVERHEAD_S, cost
        assert cost["heavy+k"] == 10.0 + schedule.CELL_OVERHEAD_S, cost
        assert cost["new+k"] == round(0.5 + schedule.CELL_OVERHEAD_S, 3), cost
        loads = [sum(real[c["id"]] for c in b) for b in schedule.plan_batches(cells, 2)]
        assert len(loads) == 2 and max(loads) - min(loads) < 3.0, loads
        # auto: the newest run that gives times, by its own name (not the
        # results/latest link); a broken one is passed over
        os.symlink("r1", os.path.join(tmp, "latest"))
        os.makedirs(os.path.join(tmp, "broken"))
        with open(os.path.join(tmp, "broken", "summary.json"), "w", encoding="utf-8") as f:
            f.write("{")
        path, _, notes = schedule.size_batches(cells, "auto", tmp)
        assert path == os.path.join(run, "summary.json"), path
        assert len(notes) == 1 and "broken" in notes[0], notes
        assert schedule.size_batches(cells, "none", tmp)[0] is None
        assert cells[0]["cost"] == 900, cells[0]
        try:
            schedule.size_batches(cells, os.path.join(tmp, "broken"), tmp)
        except schedule.CostError as e:
            assert "broken/summary.json" in str(e), e
        else:
            raise AssertionError("a named run with a broken summary sized the batches")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@test
def plan_gives_ptrace_scope_3_cells_batches_of_their_own_and_boot_scoped_cells_a_boot():
    sys.path.insert(0, HERE)
    import schedule  # noqa: E402 - the module under test, only for this pure function
    cells = ([fake_cell(f"c{i}") for i in range(10)] +
             [fake_cell("p3a", ptrace3=True), fake_cell("p3b", ptrace3=True),
              fake_cell("p3c", ptrace3=True), fake_cell("alone", isolation="boot")])
    plan = schedule.plan_batches(cells, 2)
    assert sorted(c["id"] for b in plan for c in b) == sorted(c["id"] for c in cells)
    assert [b for b in plan if [c["id"] for c in b] == ["alone"]], plan
    for b in plan:
        assert len({c["ptrace3"] for c in b}) == 1, [c["id"] for c in b]
        assert [c["id"] for c in b] == sorted(c["id"] for c in b), [c["id"] for c in b]
    big = [b for b in plan if len(b) > 1 and not b[0]["ptrace3"]]
    assert len(big) == 2 and abs(len(big[0]) - len(big[1])) <= 1, [len(b) for b in plan]


@test
def plan_keeps_batches_within_the_command_line():
    sys.path.insert(0, HERE)
    import schedule  # noqa: E402
    plan = schedule.plan_batches([fake_cell(f"c{i:03d}") for i in range(130)], 1)
    assert all(len(b) <= schedule.MAX_BATCH_CELLS for b in plan), [len(b) for b in plan]
    assert len(plan) == 3, [len(b) for b in plan]


@test
def count_line_for_run_suites():
    s = run_once()
    assert "matrix: 1 passed, 2 failed, 0 skipped" in s["out"], s["out"][-500:]


@test
def kernel_config_is_kept():
    s = run_once()
    assert os.path.getsize(os.path.join(s["dir"], "kernels", "debian-6.1-cloud.config")) > 0


@test
def kernel_features_are_read_from_the_guests_and_differences_reported():
    s = run_once()
    summ = json.load(open(os.path.join(s["dir"], "summary.json"), encoding="utf-8"))
    kf = summ["kernels"]["debian-6.1-cloud"]["features_in_guest"]
    # uid1000's cell wrote no cell.json: 3 cells, 2 read.
    assert (kf["cells"], kf["cells_read"]) == (3, 2), kf
    assert kf["features"]["x32"] == {"agree": True, "values": [
        {"available": "no", "detail": "ENOSYS", "cells": 2}]}, kf["features"]["x32"]
    assert not kf["features"]["pidfd_getfd"]["agree"]
    # A feature no guest reported is said so, not taken as absent.
    assert kf["features"]["yama"]["values"][0]["available"] == "not reported"
    assert "FEATURES DIFFER between boots of debian-6.1-cloud: pidfd_getfd" in s["out"]
    line = [x for x in s["out"].splitlines() if x.strip().startswith("debian-6.1-cloud ")][0]
    assert "seccomp_notify=yes" in line and "x32=NO(ENOSYS)" in line and \
        "pidfd_getfd=DIFFERS[" in line and "[2/3 cells]" in line and \
        " yama=NOT-REPORTED " in line, line


@test
def accelerator_choice_reaches_summary_cells_and_junit():
    s = run_once()
    summ = json.load(open(os.path.join(s["dir"], "summary.json"), encoding="utf-8"))
    assert summ["accelerator"]["accelerator"] == "tcg", summ["accelerator"]
    assert summ["accelerator"]["reason"] == "forced by ACCEL=tcg", summ["accelerator"]
    assert "accelerator: tcg (forced by ACCEL=tcg)" in s["out"], s["out"][:500]
    props = {p.get("name"): p.get("value") for p in
             ET.parse(os.path.join(s["dir"], "junit.xml")).getroot().iter("property")}
    assert props.get("accelerator") == "tcg", props
    assert props.get("accelerator_reason") == "forced by ACCEL=tcg", props


# A QEMU whose KVM aborts as this project's CI machine's does.
KVM_ABORTS = """#!/bin/sh
[ "$1" = --version ] && { echo 'QEMU emulator version 0.0.0 (fake)'; exit 0; }
echo 'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69' >&2
kill -ABRT $$
"""


@test
def forced_kvm_that_cannot_boot_stops_the_run_at_setup():
    tmp = tempfile.mkdtemp(prefix="matrix-selftest-kvm-")
    try:
        fake = os.path.join(tmp, "qemu")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(KVM_ABORTS)
        os.chmod(fake, 0o755)
        res = subprocess.run([sys.executable, os.path.join(HERE, "matrix.py"),
                              "--results", tmp, "--run-id", "k", "--floor", "0.5",
                              "--kernels", "debian-6.1-cloud", "--accel", "kvm",
                              "--scenarios", "starter-undeclared.ptrace_scope=2,user=root"],
                             capture_output=True, text=True, check=False,
                             env=dict(os.environ, QEMU=fake))
        assert res.returncode == 2, (res.returncode, res.stderr[-1500:])
        assert "ACCEL=kvm but KVM cannot boot a guest here" in res.stderr, res.stderr[-1500:]
        assert "failed to set MSR" in res.stderr, res.stderr[-1500:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@test
def host_cell_whose_guest_differs_from_the_profile_is_a_precondition_error():
    sys.path.insert(0, HERE)
    import matrix  # noqa: E402 - the module under test, only for this function
    import hostprofile  # noqa: E402
    prof = hostprofile.load(os.path.join(matrix.HOSTS_DIR, "yama2-hardened.profile"))
    tmp = tempfile.mkdtemp(prefix="matrix-selftest-host-")
    os.makedirs(os.path.join(tmp, "guest"))

    def judged(guest, probe):
        report = {"probe": probe} if probe is not None else None
        for name, data in (("guest/guest_profile", guest), ("report.json", report)):
            path = os.path.join(tmp, name)
            if data is None:
                if os.path.exists(path):
                    os.unlink(path)
                continue
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f)
        cell = {"dir": tmp, "outcome": "ok", "reason": "verdict capability-error as expected"}
        matrix.distrust_unlike_host(cell, prof)
        return cell

    try:
        same = json.loads(json.dumps(prof))
        probe = dict(prof["probes"]["child"])
        assert judged(same, probe)["outcome"] == "ok"
        # No guest profile: nothing was compared, never believed.
        cell = judged(None, probe)
        assert cell["outcome"] == "precondition-error" and "no profile of its own" in \
            cell["reason"], cell
        # A non-dumpable child the guest could read: named by target.
        other = json.loads(json.dumps(prof))
        other["probes"]["child_nodump"]["proc_mem"] = "ok"
        cell = judged(other, probe)
        assert "host: proc_mem EACCES on the child_nodump; guest: ok" in cell["reason"], cell
        # The supervisor's own probe differing from the host's child.
        cell = judged(same, dict(probe, process_vm_readv="ok"))
        assert "host: process_vm_readv EPERM on the child; guest: ok" in cell["reason"], cell
        # A supervisor that writes no report of ours: the profile alone decides.
        assert judged(same, None)["outcome"] == "ok"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@test
def features_line_says_when_no_guest_reported():
    sys.path.insert(0, HERE)
    import summary  # noqa: E402 - the module under test, only for this pure function

    kf = summary.kernel_features([{"kernel": "k", "features": None}], "k")
    assert summary.features_line(kf).startswith("not read"), summary.features_line(kf)


# A runner that decides every cell but uid1000's, where it starts a child
# (QEMU's stand-in, in its process group) and waits: the matrix is then told
# to stop. `batch` writes batch.json on SIGTERM as batch_run does (the cells
# it decided, the rest to run again).
FAKE_STOPPABLE = r"""#!/usr/bin/env python3
import json, os, signal, subprocess, sys, time
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1, 2)}
if a[0] == "batch":
    plan = json.load(open(opt["--plan"]))["cells"]
    todo = [(c["cell_file"], c["out"]) for c in plan]
else:
    todo = [(opt["--cell-file"], opt["--out"])]
entries = []
def stopped(signum, _f):
    if a[0] == "batch":
        done = {e["cell"] for e in entries}
        json.dump({"cells": entries + [{"cell": c, "state": "rerun", "reason": "stopped"}
                                       for c in ids if c not in done], "nonce": "0" * 32,
                   "rerun": "fake"}, open(os.path.join(opt["--out"], "batch.json"), "w"))
    sys.exit(128 + signum)
signal.signal(signal.SIGTERM, stopped)
ids = []
for cell_file, out in todo:
    cell = dict(l.rstrip("\n").partition("=")[::2] for l in open(cell_file)
                if l.strip() and not l.startswith("#"))
    ids.append(cell["cell"])
for (cell_file, out), cid in zip(todo, ids):
    cell = dict(l.rstrip("\n").partition("=")[::2] for l in open(cell_file)
                if l.strip() and not l.startswith("#"))
    if "user=uid1000" in cid:
        child = subprocess.Popen(["sleep", "300"])
        with open(os.path.join(os.environ["STOP_DIR"], "child.pid"), "w") as f:
            f.write(str(child.pid))
        time.sleep(300)
    json.dump({"cell": cid, "scenario": cell["scenario"], "expected": cell["expect"],
               "got": cell["expect"], "outcome": "ok", "reason": "", "supervisor_exit": 0,
               "qemu_cmdline": "fake", "qemu_version": "fake", "accelerator": "tcg",
               "boot_s": 1.0, "run_s": 0.5, "splats": [], "features": {}},
              open(os.path.join(out, "cell.json"), "w"))
    entries.append({"cell": cid, "state": "decided"})
if a[0] == "batch":
    json.dump({"cells": entries, "nonce": "0" * 32, "rerun": "fake"},
              open(os.path.join(opt["--out"], "batch.json"), "w"))
"""


def stopped_run(isolation):
    """A matrix run of three cells told to stop (SIGTERM) while uid1000's
    boot runs. Returns (exit status, stdout, summary, the runner's child pid)."""
    tmp = tempfile.mkdtemp(prefix=f"matrix-selftest-stop-{isolation}-")
    try:
        fake = os.path.join(tmp, "fake-run-vm")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(FAKE_STOPPABLE)
        os.chmod(fake, 0o755)
        pidf = os.path.join(tmp, "child.pid")
        p = subprocess.Popen([sys.executable, os.path.join(HERE, "matrix.py"), "--runner", fake,
                              "--results", tmp, "--run-id", "s", "--floor", "0.5",
                              "--accel", "tcg", "--kernels", "debian-6.1-cloud", "--jobs", "1",
                              "--isolation", isolation,
                              "--scenarios", "starter-undeclared.ptrace_scope=2,*"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ, STOP_DIR=tmp))
        deadline = time.monotonic() + 120
        while not os.path.exists(pidf) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.2)
        time.sleep(0.3)
        with open(pidf, encoding="utf-8") as f:
            child = int(f.read())
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=60)
        with open(os.path.join(tmp, "s", "summary.json"), encoding="utf-8") as f:
            summ = json.load(f)
        assert os.path.getsize(os.path.join(tmp, "s", "junit.xml")) > 0
        return p.returncode, out, summ, child
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def gone(pid):
    """True when pid no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@test
def stopped_batch_run_keeps_its_decided_cells_and_ends_the_boot():
    rc, out, summ, child = stopped_run("batch")
    by = {c["scenario_cell"].rsplit(",", 1)[1]: c for c in summ["cells"]}
    assert rc == 128 + signal.SIGTERM, (rc, out[-1500:])
    assert summ["stopped"] == "SIGTERM", summ["stopped"]
    assert by["user=root"]["outcome"] == by["user=nocap"]["outcome"] == "ok", out[-1500:]
    assert by["user=uid1000"]["outcome"] == "not-run", by["user=uid1000"]
    assert "stopped (SIGTERM)" in by["user=uid1000"]["reason"], by["user=uid1000"]
    assert "STOPPED by SIGTERM: 1 of 3 cells not run" in out, out[-1500:]
    assert out.rstrip().endswith("matrix: 2 passed, 1 failed, 0 skipped"), out[-500:]
    assert gone(child), f"the runner's child {child} outlived the stopped run"


@test
def stopped_boot_run_starts_nothing_more_and_ends_the_boot():
    rc, out, summ, child = stopped_run("boot")
    outcomes = {c["scenario_cell"].rsplit(",", 1)[1]: c["outcome"] for c in summ["cells"]}
    assert rc == 128 + signal.SIGTERM, (rc, out[-1500:])
    assert outcomes["user=uid1000"] == "not-run", outcomes
    assert set(outcomes.values()) <= {"ok", "not-run"}, outcomes
    assert summ["counts"]["not-run"] == sum(o == "not-run" for o in outcomes.values())
    assert gone(child), f"the runner's child {child} outlived the stopped run"


# A batch runner whose first boot decides its first cell and then fails the
# reset (the guest's batch end says reset-failed after seq 1); every later
# boot decides all its cells. The outcomes stand, and the run still fails:
# isolation was not proven.
FAKE_RESET_FAILS = r"""#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1, 2)}
assert a[0] == "batch", a
plan = json.load(open(opt["--plan"]))["cells"]
mark = os.path.join(os.environ["RESET_DIR"], "failed-once")
fail = not os.path.exists(mark) and len(plan) > 1
open(mark, "a").close()
entries = []
for i, c in enumerate(plan):
    cell = dict(l.rstrip("\n").partition("=")[::2] for l in open(c["cell_file"])
                if l.strip() and not l.startswith("#"))
    if fail and i > 0:
        entries.append({"cell": cell["cell"], "state": "rerun", "reason": "reset failed"})
        continue
    json.dump({"cell": cell["cell"], "scenario": cell["scenario"], "expected": cell["expect"],
               "got": cell["expect"], "outcome": "ok", "reason": "", "supervisor_exit": 0,
               "qemu_cmdline": "fake", "qemu_version": "fake", "accelerator": "tcg",
               "boot_s": 1.0, "run_s": 0.5, "splats": [], "features": {}},
              open(os.path.join(c["out"], "cell.json"), "w"))
    entries.append({"cell": cell["cell"], "state": "decided"})
end = {"seq": 1, "status": "reset-failed", "detail": "lo addresses differ"} if fail else \
    {"seq": len(plan), "status": "done", "detail": ""}
json.dump({"cells": entries, "nonce": "0" * 32, "rerun": "fake", "end": end},
          open(os.path.join(opt["--out"], "batch.json"), "w"))
"""


@test
def failed_reset_between_cells_fails_the_run_though_every_cell_is_ok():
    tmp = tempfile.mkdtemp(prefix="matrix-selftest-reset-")
    try:
        fake = os.path.join(tmp, "fake-run-vm")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(FAKE_RESET_FAILS)
        os.chmod(fake, 0o755)
        res = subprocess.run([sys.executable, os.path.join(HERE, "matrix.py"), "--runner", fake,
                              "--results", tmp, "--run-id", "r", "--floor", "0.5",
                              "--accel", "tcg", "--kernels", "debian-6.1-cloud", "--jobs", "1",
                              "--scenarios", "starter-undeclared.ptrace_scope=2,*"],
                             capture_output=True, text=True, check=False,
                             env=dict(os.environ, RESET_DIR=tmp))
        with open(os.path.join(tmp, "r", "summary.json"), encoding="utf-8") as f:
            summ = json.load(f)
        first = summ["batches"][0]["cells"][0]
        assert {c["outcome"] for c in summ["cells"]} == {"ok"}, summ["cells"]
        assert res.returncode == 1, (res.returncode, res.stdout[-1500:])
        assert [(r["after"], r["detail"]) for r in summ["reset_failures"]] == \
            [(first, "lo addresses differ")], summ["reset_failures"]
        assert "ISOLATION NOT PROVEN: 1 reset(s)" in res.stdout, res.stdout[-1500:]
        assert "RESET FAILED on debian-6.1-cloud: 1 of" in res.stdout, res.stdout[-1500:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    passed = failed = 0
    for fn in TESTS:
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - report and go on
            failed += 1
            print(f"FAIL {fn.__name__}: {e!r}")
        else:
            passed += 1
            print(f"ok   {fn.__name__}")
    if failed and STATE:
        print(STATE["err"][-3000:])
        print(f"the run is kept in {STATE['tmp']}")
    elif STATE:
        shutil.rmtree(STATE["tmp"], ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
