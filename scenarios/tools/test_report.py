#!/usr/bin/env python3
"""Tests of the run report, run-to-run comparison and shards (issue 15):
shards.py, matrix_diff.py, report_html.py, and matrix.py's SHARD/BASE hooks,
with a fake per-cell runner in place of run-vm.sh (no VM boots; the initramfs
is really built and the kernels really looked up, as in test_matrix.py).
Run: python3 scenarios/tools/test_report.py. Needs: make supervisor agents
initramfs-guest, and the debian-6.1-cloud and debian-6.12 kernels.
Ends with `N passed, N failed`."""

import html
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix  # noqa: E402
import matrix_diff  # noqa: E402
import report_html  # noqa: E402
import shards  # noqa: E402

# The fake runner. FAKE_MODE=clean: every cell gets its compiled verdict.
# FAKE_MODE=mutant: a supervisor that cannot see: nocap cells say pass
# (a false green), uid1000 cells say fail where capability-error was due.
# Otherwise ("lying", the default): root right, nocap claims ok for pass,
# uid1000 writes no cell.json (infra-error).
FAKE = r'''#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1, 2)}
cell = {}
for line in open(opt["--cell-file"]):
    if line.strip() and not line.startswith("#"):
        k, _, v = line.rstrip("\n").partition("=")
        cell.setdefault(k, v)
cid, want, mode = cell["cell"], cell["expect"], os.environ.get("FAKE_MODE", "lying")
got, outcome = want, "ok"
if mode == "lying":
    if "user=uid1000" in cid:
        sys.exit(1)
    if "user=nocap" in cid:
        got = "pass"
elif mode == "mutant":
    if "user=nocap" in cid and want != "pass":
        got, outcome = "pass", "mismatch"
    elif "user=uid1000" in cid and want == "capability-error":
        got, outcome = "fail", "mismatch"
feats = {"seccomp_notify": {"available": True, "detail": "listener ok"},
         "x32": {"available": False, "detail": "ENOSYS"}}
out = opt["--out"]
json.dump({"cell": cid, "scenario": cell["scenario"], "expected": want, "got": got,
           "outcome": outcome, "reason": "" if outcome == "ok" else "fake: got " + got,
           "supervisor_exit": 0, "qemu_cmdline": "qemu-system-x86_64 -fake",
           "qemu_version": "fake", "accelerator": "tcg", "accelerator_reason": "fake",
           "boot_s": 1.0, "run_s": 0.5, "splats": [], "features": feats,
           "oracle": {"problems": [], "attempts": 1, "arrivals": 1}},
          open(os.path.join(out, "cell.json"), "w"))
json.dump({"verdict": got, "reason": "fake", "complete": True,
           "counts": {"trapped": 1, "denied": 0},
           "events": [{"bucket": "allowed", "syscall": "connect", "dest": "127.0.0.1:8080"}]},
          open(os.path.join(out, "report.json"), "w"))
open(os.path.join(out, "console.log"), "w").write("fake console\n")
'''

KERNELS = "debian-6.1-cloud"
SCEN = "starter-undeclared.ptrace_scope=2,* starter-declared.ptrace_scope=1,* nodump"
TMP = {}


def tmpdir():
    if "d" not in TMP:
        TMP["d"] = tempfile.mkdtemp(prefix="report-test-")
        fake = os.path.join(TMP["d"], "fake-run-vm")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(FAKE)
        os.chmod(fake, 0o755)
    return TMP["d"]


RUNS = {}


def fake_run(run_id, mode="clean", shard="", base="", kernels=KERNELS, scen=SCEN):
    """A matrix.py run against the fake runner; (rc, stdout, run dir)."""
    if run_id in RUNS:
        return RUNS[run_id]
    d = tmpdir()
    argv = [sys.executable, os.path.join(HERE, "matrix.py"), "--runner",
            os.path.join(d, "fake-run-vm"), "--results", d, "--run-id", run_id,
            "--floor", "0.5", "--accel", "tcg", "--kernels", kernels, "--jobs", "2",
            "--scenarios", scen,
            # The fake runner answers `run-vm.sh cell` only: batches have
            # their own self-test (test_matrix.py); these are about reports.
            "--isolation", "boot"]
    if shard:
        argv += ["--shard", shard]
    if base:
        argv += ["--base", base]
    res = subprocess.run(argv, capture_output=True, text=True, check=False,
                         env=dict(os.environ, FAKE_MODE=mode))
    if not os.path.isfile(os.path.join(d, run_id, "summary.json")):
        raise AssertionError(f"{run_id}: no summary.json: rc {res.returncode}: "
                             f"{res.stderr[-2000:]}")
    RUNS[run_id] = (res.returncode, res.stdout, os.path.join(d, run_id))
    return RUNS[run_id]


def summary(d):
    with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
        return json.load(f)


TOP = os.path.abspath(os.path.join(HERE, "..", ".."))


def merge_cli(out, *dirs):
    """make matrix-merge, as the CI workflow runs it."""
    return subprocess.run(["make", "-C", TOP, "--no-print-directory", "matrix-merge",
                           f"RUNS={' '.join(dirs)}", f"OUT={out}"],
                          capture_output=True, text=True, check=False)


def diff_cli(base, new):
    """make matrix-diff: a regression is make's exit 2 with 'Error 1'."""
    return subprocess.run(["make", "-C", TOP, "--no-print-directory", "matrix-diff",
                           f"BASE={base}", f"NEW={new}"],
                          capture_output=True, text=True, check=False)


def cell_view(s):
    keys = ("cell", "kernel", "scenario_cell", "outcome", "expected", "expected_why",
            "expected_from", "got")
    return [{k: c.get(k) for k in keys} for c in s["cells"]]


class Partition(unittest.TestCase):
    def test_partition_is_independent_of_input_order(self):
        units = [(f"c{i}", 3000 + 100 * (i % 7)) for i in range(50)]
        a = shards.partition(units, 3)
        b = shards.partition(list(reversed(units)), 3)
        self.assertEqual(a, b)

    def test_partition_balances_cost_within_the_largest_unit(self):
        units = [(f"c{i}", c) for i, c in enumerate([9000, 5000, 5000, 4000, 3000, 3000,
                                                      3000, 2000, 2000, 1000])]
        where = shards.partition(units, 3)
        load = [sum(c for k, c in units if where[k] == i) for i in (1, 2, 3)]
        self.assertLessEqual(max(load) - min(load), 9000)
        self.assertEqual(sum(load), sum(c for _, c in units))

    def test_select_covers_every_cell_exactly_once_for_each_shard_count(self):
        cells = [(f"s{i}+k{i % 3}", 60 if i % 5 else 300) for i in range(40)]
        for n in (1, 2, 3, 7, 41):
            got = [c for i in range(1, n + 1) for c in shards.select(cells, i, n)]
            self.assertEqual(sorted(got), sorted(c for c, _ in cells), n)

    def test_select_keeps_the_run_order_inside_a_shard(self):
        cells = [(f"c{i:02d}", 60) for i in range(10)]
        part = shards.select(cells, 2, 3)
        self.assertEqual(part, sorted(part))

    def test_shard_spec_rejected_when_out_of_range_or_malformed(self):
        for bad in ("0/2", "3/2", "1", "a/b", "1/0", "-1/2"):
            with self.assertRaises(shards.ShardError, msg=bad):
                shards.parse(bad)
        self.assertEqual(shards.parse(""), (1, 1))
        self.assertEqual(shards.parse("2/3"), (2, 3))

    def test_duplicate_units_rejected(self):
        with self.assertRaises(ValueError):
            shards.partition([("a", 1), ("a", 2)], 2)


def S(cells, sup="s1", kernels=None, run="r"):
    return {"run_id": run, "supervisor": {"sha256": sup},
            "kernels": kernels or {"k": {"sha256": "kk", "features_in_guest": {}}},
            "cells": [{"cell": c, "outcome": o, "expected": "fail"} for c, o in cells]}


class Diff(unittest.TestCase):
    def test_ok_to_mismatch_timeout_and_false_green_are_regressions(self):
        d = matrix_diff.diff(S([("a", "ok"), ("b", "ok"), ("c", "mismatch"), ("d", "ok")]),
                             S([("a", "mismatch"), ("b", "timeout"), ("c", "false-green"),
                                ("d", "ok")]))
        self.assertEqual(d["regressions"], 3)
        self.assertEqual(d["by_cell"], {"a": "regressed", "b": "regressed", "c": "regressed"})
        self.assertIn("FALSE GREEN", matrix_diff.text(d))

    def test_two_identical_runs_have_no_regression(self):
        d = matrix_diff.diff(S([("a", "ok"), ("b", "skipped")]),
                             S([("a", "ok"), ("b", "skipped")]))
        self.assertEqual(d["regressions"], 0)
        self.assertIn("no difference", matrix_diff.text(d))

    def test_fixed_cell_is_an_improvement_not_a_regression(self):
        d = matrix_diff.diff(S([("a", "mismatch")]), S([("a", "ok")]))
        self.assertEqual((d["regressions"], d["changed"][0]["kind"]), (0, "improved"))

    def test_ok_to_skipped_regresses_and_gone_cells_do_not(self):
        d = matrix_diff.diff(S([("a", "ok"), ("g", "ok")]), S([("a", "skipped")]))
        self.assertEqual(d["regressions"], 1)
        self.assertEqual(d["gone"], [{"cell": "g", "outcome": "ok"}])

    def test_added_cell_that_is_not_ok_regresses(self):
        d = matrix_diff.diff(S([]), S([("n", "false-green"), ("m", "ok")]))
        self.assertEqual(d["regressions"], 1)

    def test_sha256_and_feature_changes_are_reported(self):
        fk = {"features": {"x32": {"values": [{"available": "yes", "detail": "ok"}]}}}
        fn = {"features": {"x32": {"values": [{"available": "no", "detail": "ENOSYS"}]}}}
        d = matrix_diff.diff(S([], kernels={"k": {"sha256": "a", "features_in_guest": fk}}),
                             S([], sup="s2",
                               kernels={"k": {"sha256": "b", "features_in_guest": fn}}))
        t = matrix_diff.text(d)
        self.assertIn("supervisor sha256 changed: s1 -> s2", t)
        self.assertIn("kernel k sha256 changed: a -> b", t)
        self.assertIn("features of k changed: x32: yes(ok) -> no(ENOSYS)", t)


HOSTILE = '"><img src=x onerror=alert(1)></script><script>window.pwned=1</script>&amp;'


class Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.scripts = [], [], []
        self._in_script = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v) for k, v in attrs]
        if tag == "script":
            self._in_script = dict(attrs).get("type", "")
            self.scripts.append([self._in_script, ""])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            self.scripts[-1][1] += data


def hostile_summary(rdir):
    cid = "x.y=" + HOSTILE + "+k" + HOSTILE
    cd = os.path.join(rdir, "cells", "evil")
    os.makedirs(os.path.join(cd, "guest"))
    with open(os.path.join(cd, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"verdict": HOSTILE, "reason": HOSTILE, "counts": {HOSTILE: 1},
                   "events": [{"bucket": HOSTILE, "dest": HOSTILE}]}, f)
    with open(os.path.join(cd, "guest", "a" + HOSTILE.replace("/", "_")), "w") as f:
        f.write("x")
    k = "k" + HOSTILE
    cell = {"cell": cid, "scenario_cell": "x.y=" + HOSTILE, "kernel": k,
            "outcome": "false-green", "expected": HOSTILE, "expected_why": HOSTILE,
            "expected_from": HOSTILE, "got": "pass", "reason": HOSTILE, "rerun": HOSTILE,
            "features": {HOSTILE: {"available": True, "detail": HOSTILE}},
            "preconditions": [{"status": HOSTILE, "name": HOSTILE, "detail": HOSTILE}],
            "splats": [HOSTILE], "dir": "cells/evil"}
    other = dict(cell, cell="y+" + k, scenario_cell="y", outcome=HOSTILE,
                 dir="../../etc")
    return {"run_id": HOSTILE, "supervisor": {"path": HOSTILE, "sha256": HOSTILE},
            "filters": {"kernels": HOSTILE, "scenarios": HOSTILE},
            "accelerator": {"accelerator": HOSTILE, "reason": HOSTILE, "mode": HOSTILE,
                            "canary": [{"accelerator": HOSTILE, "detail": HOSTILE}]},
            "kernels": {k: {"sha256": HOSTILE, "version": HOSTILE, "description": HOSTILE,
                            "features_in_guest": {"features": {HOSTILE: {
                                "agree": False, "values": [{"available": HOSTILE}]}}}}},
            "shard": {"index": 1, "count": 1, "commit": {"head": HOSTILE}},
            "counts": {HOSTILE: 1}, "cells": [cell, other],
            "reset_failures": [{"kernel": HOSTILE, "batch": HOSTILE, "after": HOSTILE,
                                "detail": HOSTILE}]}


class Report(unittest.TestCase):
    def test_hostile_values_never_become_markup(self):
        rdir = tempfile.mkdtemp(prefix="report-xss-", dir=tmpdir())
        s = hostile_summary(rdir)
        d = matrix_diff.diff(dict(s, cells=[]), s)
        page = report_html.render(rdir, s, matrix.OUTCOMES, d)
        p = Collect()
        p.feed(page)
        self.assertNotIn("img", p.tags)
        self.assertFalse([a for a in p.attrs if a[1].startswith("on")], "event handler attr")
        self.assertEqual([t for t, _ in p.scripts], ["application/json", ""])
        self.assertEqual(p.scripts[1][1].strip(), report_html.JS.strip())
        blob = json.loads(p.scripts[0][1])
        self.assertEqual(blob["cells"][0]["reason"], HOSTILE)
        hrefs = [v for t, k, v in p.attrs if k == "href"]
        self.assertEqual(hrefs, [], "links are made by the script, from cells/ paths only")
        files = blob["cells"][0]["files"]
        self.assertTrue(all(h.startswith("cells/evil/") and ".." not in h for _, h in files))
        self.assertEqual(blob["cells"][1]["files"], [], "a dir outside cells/ gets no links")

    def test_failed_resets_are_listed_on_the_page(self):
        rdir = tempfile.mkdtemp(prefix="report-resets-", dir=tmpdir())
        s = hostile_summary(rdir)
        page = html.unescape(report_html.render(rdir, s, matrix.OUTCOMES))
        self.assertIn("1 RESET FAILED: isolation", page)
        self.assertIn("after " + HOSTILE, page)
        page = report_html.render(rdir, dict(s, reset_failures=[]), matrix.OUTCOMES)
        self.assertNotIn("RESET FAILED", page)

    def test_csp_allows_only_the_pages_own_script_and_style(self):
        rdir = tempfile.mkdtemp(prefix="report-csp-", dir=tmpdir())
        page = report_html.render(rdir, hostile_summary(rdir), matrix.OUTCOMES)
        page = html.unescape(page)
        self.assertTrue("default-src 'none'; script-src 'sha256-" in page)
        self.assertFalse("unsafe-inline" in page)


class Setup(unittest.TestCase):
    def run_matrix(self, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, "matrix.py"), "--results",
                               tmpdir(), "--run-id", "never", "--accel", "tcg", *args],
                              capture_output=True, text=True, check=False)

    def test_bad_shard_stops_the_run_at_setup(self):
        res = self.run_matrix("--shard", "3/2")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("SHARD must be I/N with 1 <= I <= N", res.stderr)
        self.assertFalse(os.path.exists(os.path.join(tmpdir(), "never")))

    def test_base_without_summary_stops_the_run_at_setup(self):
        res = self.run_matrix("--base", os.path.join(tmpdir(), "no-such-run"))
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("has no summary.json", res.stderr)

    def test_costs_without_summary_stops_the_run_at_setup(self):
        res = self.run_matrix("--costs", os.path.join(tmpdir(), "no-such-run"))
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("COSTS=", res.stderr)
        self.assertIn("has no summary.json", res.stderr)

    def test_list_shows_only_the_shards_cells(self):
        cells = []
        for i in (1, 2, 3):
            res = self.run_matrix("--list", "--kernels", KERNELS, "--scenarios", SCEN,
                                  "--shard", f"{i}/3")
            self.assertEqual(res.returncode, 0, res.stderr)
            cells += [x.split()[0] for x in res.stdout.splitlines() if "+" in x.split()[0]]
        res = self.run_matrix("--list", "--kernels", KERNELS, "--scenarios", SCEN)
        whole = [x.split()[0] for x in res.stdout.splitlines() if "+" in x.split()[0]]
        self.assertEqual(sorted(cells), sorted(whole))
        self.assertEqual(len(whole), 9)


class FakeRuns(unittest.TestCase):
    def test_every_run_writes_an_index_with_every_cell_and_its_outcome(self):
        rc, out, d = fake_run("lying", mode="lying")
        self.assertEqual(rc, 1)
        page = open(os.path.join(d, "index.html"), encoding="utf-8").read()
        s = summary(d)
        p = Collect()
        p.feed(page)
        got = {}
        for t, k, v in p.attrs:
            if t == "button" and k == "data-cell":
                cur = v
            if t == "button" and k == "data-outcome":
                got[cur] = v
        self.assertEqual(got, {c["cell"]: c["outcome"] for c in s["cells"]})
        self.assertIn("false-green", got.values())
        self.assertIn('<section id="loud">', page)
        self.assertIn("report: " + os.path.join(d, "index.html"), out)

    def test_merge_of_n_shards_equals_the_unsharded_run_for_1_2_3(self):
        _, _, whole = fake_run("whole", mode="lying")
        ws = summary(whole)
        self.assertEqual(len(ws["cells"]), 9)
        for n in (1, 2, 3):
            dirs = [fake_run(f"s{i}of{n}", mode="lying", shard=f"{i}/{n}")[2]
                    for i in range(1, n + 1)]
            sizes = [len(summary(x)["cells"]) for x in dirs]
            self.assertTrue(all(sizes), (n, sizes))
            out = os.path.join(tmpdir(), f"merged{n}")
            res = merge_cli(out, *reversed(dirs))
            # The lying cells are not ok: merge's exit 1 (make's 2, "Error 1").
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertIn("Error 1", res.stderr)
            ms = summary(out)
            self.assertEqual(cell_view(ms), cell_view(ws), n)
            self.assertEqual(ms["counts"], ws["counts"], n)
            self.assertEqual(ms["kernels"]["debian-6.1-cloud"]["features_in_guest"],
                             ws["kernels"]["debian-6.1-cloud"]["features_in_guest"])
            self.assertTrue(os.path.isfile(os.path.join(out, "index.html")))
            jx = open(os.path.join(out, "junit.xml"), encoding="utf-8").read()
            self.assertEqual(jx.count("<testcase "), len(ws["cells"]))
            for c in ms["cells"]:   # uid1000's fake wrote only run-vm.log
                self.assertTrue(os.path.isfile(os.path.join(out, c["dir"], "run-vm.log")))
            self.assertIn(f"matrix: {ws['counts']['ok']} passed", res.stdout)

    def test_shards_of_one_selection_are_disjoint_and_marked(self):
        dirs = [fake_run(f"s{i}of3", mode="lying", shard=f"{i}/3")[2] for i in (1, 2, 3)]
        ids = [c["cell"] for d in dirs for c in summary(d)["cells"]]
        self.assertEqual(len(ids), len(set(ids)))
        for i, d in enumerate(dirs, 1):
            sh = summary(d)["shard"]
            self.assertEqual((sh["index"], sh["count"]), (i, 3))

    def test_merge_refuses_missing_duplicated_and_mismatched_shards(self):
        s1, s2 = fake_run("s1of2", mode="lying", shard="1/2")[2], \
            fake_run("s2of2", mode="lying", shard="2/2")[2]
        s13 = fake_run("s1of3", mode="lying", shard="1/3")[2]
        cases = {"missing shard(s) 2/2": [s1], "given twice": [s1, s1, s2],
                 "shard count differs": [s1, s13]}
        for field, change in (("commit", ("shard", "commit", {"head": "0" * 40})),
                              ("supervisor sha256", ("supervisor", "sha256", "f" * 64)),
                              ("kernels (name: sha256)", ("kernels", "debian-6.1-cloud", {"sha256": "e" * 64})),
                              ("scenario files (sha256)", ("shard", "scenarios_sha256", "d" * 64)),
                              ("cell selection (sha256 of every selected cell id)", ("shard", "selection_sha256", "c" * 64))):
            t = os.path.join(tmpdir(), "tamper-" + field.replace(" ", "-"))
            shutil.copytree(s2, t, symlinks=True)
            js = summary(t)
            js[change[0]][change[1]] = change[2]
            with open(os.path.join(t, "summary.json"), "w", encoding="utf-8") as f:
                json.dump(js, f)
            cases[field + " differs"] = [s1, t]
        for want, dirs in cases.items():
            out = os.path.join(tmpdir(), "refused")
            res = merge_cli(out, *dirs)
            self.assertEqual(res.returncode, 2, (want, res.stdout, res.stderr))
            self.assertIn("Error 2", res.stderr)
            self.assertIn("matrix-merge: refused: ", res.stderr)
            self.assertIn(want, res.stderr)
            self.assertFalse(os.path.exists(out), want)

    def test_diff_of_two_clean_runs_exits_0_and_of_clean_vs_mutant_exits_1(self):
        a, b = fake_run("clean-a")[2], fake_run("clean-b")[2]
        m = fake_run("mutant", mode="mutant")[2]
        tool = [sys.executable, os.path.join(HERE, "matrix_diff.py")]
        res = subprocess.run(tool + [a, b], capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertIn("0 regressed", res.stdout)
        res = subprocess.run(tool + [a, m], capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 1, res.stdout)
        killed = [c["cell"] for c in summary(m)["cells"] if c["outcome"] != "ok"]
        self.assertTrue(killed)
        for cid in killed:
            self.assertIn(f"REGRESSED: {cid}: ok -> ", res.stdout)
        self.assertIn("<-- FALSE GREEN", res.stdout)
        res = subprocess.run(tool + [a, os.path.join(tmpdir(), "nothing")],
                             capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 2)
        res = diff_cli(a, b)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        res = diff_cli(a, m)
        self.assertEqual(res.returncode, 2, res.stdout)
        self.assertIn("Error 1", res.stderr)
        self.assertIn("REGRESSED: ", res.stdout)

    def test_base_given_to_the_matrix_shows_regressions_in_text_and_report(self):
        a = fake_run("clean-a")[2]
        rc, out, d = fake_run("mutant-vs-base", mode="mutant", base=a)
        self.assertEqual(rc, 1)
        self.assertIn("matrix-diff: base clean-a -> new mutant-vs-base", out)
        page = open(os.path.join(d, "index.html"), encoding="utf-8").read()
        n = summary(d)["cells"]
        bad = sum(c["outcome"] != "ok" for c in n)
        self.assertIn(f'id="regressions">{bad} regressed', page)
        self.assertEqual(page.count('data-change="regressed"'), bad)


def main():
    suite = unittest.TestLoader().loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    if failed:
        print(f"the runs are kept in {TMP.get('d')}")
    elif "d" in TMP:
        shutil.rmtree(TMP["d"], ignore_errors=True)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
