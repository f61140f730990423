#!/usr/bin/env python3
"""Checks of .github/workflows/matrix.yml, which cannot run on this machine:
yamllint (Debian's package) for the syntax, @action-validator/cli (npm, under
build/) for GitHub's workflow schema, then its structure (a matrix over
shards whose count matches SHARD_COUNT, the kernel cache keyed by the lock
file and the variant configs, artifacts per shard, a merge job that publishes
the report and fails on any non-ok cell, a nightly schedule), and that every
command it runs is a make target `make test` runs, with SHARD reaching the
matrix runner. Needs yamllint, python3-yaml and the validator (make
workflow-test installs them: YAML has no parser in the standard library).
Ends with `N passed, N failed`."""

import os
import re
import subprocess
import sys
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
WF = os.path.join(TOP, ".github", "workflows", "matrix.yml")
# Lines up to 200 columns (hashFiles lists); `on:` is GitHub's key, not a boolean.
LINT = ("{extends: default, rules: {line-length: {max: 200}, "
        "truthy: {check-keys: false}, document-start: disable}}")


def load():
    with open(WF, encoding="utf-8") as f:
        return yaml.safe_load(f)


def steps(job):
    return load()["jobs"][job]["steps"]


def suite_targets():
    """The make targets tests/run-suites.sh knows, and the SUITES make test runs."""
    with open(os.path.join(TOP, "tests", "run-suites.sh"), encoding="utf-8") as f:
        table = dict(re.findall(r"^\s*\[([a-z-]+)\]=([a-z-]+)$", f.read(), re.M))
    with open(os.path.join(TOP, "tests", "tests.mk"), encoding="utf-8") as f:
        suites = re.search(r"^SUITES \?= (.*)$", f.read(), re.M).group(1).split()
    return {table[s] for s in suites if s in table}


class Workflow(unittest.TestCase):
    def test_yamllint_accepts_the_workflow(self):
        res = subprocess.run(["yamllint", "-f", "parsable", "-d", LINT, WF],
                             capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_action_validator_accepts_the_workflow_and_rejects_a_broken_one(self):
        tool = os.environ.get("ACTION_VALIDATOR") or "action-validator"
        res = subprocess.run([tool, WF], capture_output=True, text=True, check=False)
        self.assertEqual(res.returncode, 0, res.stdout[-2000:] + res.stderr[-1000:])
        # It must be able to fail: a misspelt key is outside GitHub's schema.
        with open(WF, encoding="utf-8") as f:
            broken = f.read().replace("runs-on:", "runs-onn:", 1)
        path = os.path.join(os.environ.get("BUILD") or os.path.join(TOP, "build"),
                            "workflow-test-broken.yml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(broken)
        res = subprocess.run([tool, path], capture_output=True, text=True, check=False)
        self.assertNotEqual(res.returncode, 0, "action-validator accepted runs-onn")

    def test_nightly_schedule_and_manual_dispatch(self):
        on = load().get("on", load().get(True))
        self.assertRegex(on["schedule"][0]["cron"], r"^\d+ \d+ \* \* \*$")
        self.assertIn("workflow_dispatch", on)

    def test_shard_matrix_matches_the_shard_count(self):
        wf = load()
        n = int(wf["env"]["SHARD_COUNT"])
        self.assertEqual(wf["jobs"]["shard"]["strategy"]["matrix"]["shard"],
                         list(range(1, n + 1)))
        self.assertFalse(wf["jobs"]["shard"]["strategy"]["fail-fast"])
        runs = [s["run"] for s in steps("shard") if "run" in s]
        self.assertIn("make matrix SHARD=${{ matrix.shard }}/${{ env.SHARD_COUNT }} "
                      "RUN_ID=shard-${{ matrix.shard }}", runs)

    def test_kernel_cache_is_keyed_by_the_lock_and_the_variant_configs(self):
        cache = [s for s in steps("shard") if s.get("uses", "").startswith("actions/cache@")]
        self.assertEqual(len(cache), 1)
        with open(os.path.join(TOP, "Makefile"), encoding="utf-8") as f:
            default = re.search(r"^CACHE \?= \$\(or \$\(EGRESS_CACHE\),(.*)\)$", f.read(),
                                re.M).group(1)
        self.assertEqual(cache[0]["with"]["path"], default)
        key = cache[0]["with"]["key"]
        for part in ("kernel-configs/debian-kernels.lock", "kernel-configs/variants/*.config",
                     "kernel-configs/base.config"):
            self.assertIn(f"'{part}'", key)
            if "*" not in part:
                self.assertTrue(os.path.isfile(os.path.join(TOP, part)), part)

    def test_shards_size_batches_by_the_last_merged_runs_guest_times(self):
        # COSTS=auto takes the newest results/*/summary.json: the merge job
        # must save the merged summary where the shard jobs restore it, and
        # the shards' make matrix must come after the restore, without COSTS=.
        def one(job, key, prefix):
            found = [s for s in steps(job) if s.get(key, "").startswith(prefix)]
            self.assertEqual(len(found), 1, (job, prefix))
            return steps(job).index(found[0]), found[0]

        at_rest, rest = one("shard", "uses", "actions/cache/restore@")
        at_run, run = one("shard", "run", "make matrix ")
        self.assertLess(at_rest, at_run)
        self.assertNotIn("COSTS=", run["run"])
        at_mrg, mrg = one("merge", "run", "make matrix-merge ")
        at_save, save = one("merge", "uses", "actions/cache/save@")
        self.assertLess(at_mrg, at_save)
        self.assertIn("always()", save["if"])
        out = re.search(r"OUT=(\S+)", mrg["run"]).group(1)
        self.assertEqual(save["with"]["path"], f"{out}/summary.json")
        self.assertEqual(rest["with"]["path"], save["with"]["path"])
        self.assertTrue(out.startswith("results/") and out.count("/") == 1, out)
        self.assertTrue(save["with"]["key"].startswith(rest["with"]["restore-keys"]))
        with open(os.path.join(TOP, "scenarios", "tools", "matrix.py"), encoding="utf-8") as f:
            self.assertIn('env("COSTS", "") or "auto"', f.read())

    def test_each_shard_uploads_its_run_even_when_cells_fail(self):
        up = [s for s in steps("shard") if s.get("uses", "").startswith("actions/upload-artifact@")]
        self.assertEqual(len(up), 1)
        self.assertEqual(up[0]["if"], "always()")
        self.assertEqual(up[0]["with"]["name"], "shard-${{ matrix.shard }}")

    def test_mutants_job_runs_every_mutant_and_uploads_its_runs(self):
        job = load()["jobs"]["mutants"]
        runs = [s["run"] for s in job["steps"] if "run" in s]
        self.assertIn("make mutants", runs)
        up = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
        self.assertEqual((len(up), up[0]["if"], up[0]["with"]["path"]),
                         (1, "always()", "results/mutants-*"))

    def test_merge_job_publishes_the_report_and_fails_on_a_non_ok_cell(self):
        job = load()["jobs"]["merge"]
        self.assertEqual((job["needs"], job["if"]), ("shard", "always()"))
        st = job["steps"]
        merge = [s for s in st if s.get("run", "").startswith("make matrix-merge ")]
        self.assertEqual(len(merge), 1)
        self.assertTrue(merge[0]["continue-on-error"])
        pub = [s for s in st if s.get("uses", "").startswith("actions/upload-artifact@")]
        self.assertEqual((pub[0]["with"]["name"], pub[0]["if"]), ("matrix-report", "always()"))
        self.assertLess(st.index(merge[0]), st.index(pub[0]))
        last = st[-1]
        self.assertEqual((last["if"], last["run"]),
                         (f"steps.{merge[0]['id']}.outcome != 'success'", "exit 1"))

    def test_every_command_is_a_make_target_that_make_test_runs(self):
        tested = suite_targets()
        # `make matrix` is what vm-smoke runs (run-vm.sh matrix) with its
        # filters; matrix-merge is run through make by test_report.py.
        with open(os.path.join(TOP, "scenarios", "scenarios.mk"), encoding="utf-8") as f:
            mk = f.read()
        self.assertTrue(re.search(r"(?m)^matrix: .*\n\t\$\(SC_MATRIX_ENV\) \$\(TOP\)/run-vm.sh "
                                  r"matrix$", mk), "make matrix's recipe changed")
        self.assertTrue(re.search(r"(?m)^vm-smoke: .*\n\t\$\(SC_MATRIX_ENV\) [^\n]*\\\n"
                                  r"[^\n]*run-vm.sh matrix$", mk), "vm-smoke's recipe changed")
        with open(os.path.join(HERE, "test_report.py"), encoding="utf-8") as f:
            by_report = set(re.findall(r'"make", "-C", TOP, "--no-print-directory", "([a-z-]+)"',
                                       f.read()))
        # `make mutants` runs the script make test's mutants-repro runs,
        # over every mutant instead of the original pair.
        self.assertTrue(re.search(r"(?m)^mutants: (.*)\n\t(.*)/mutants\.py \\\n.*\n"
                                  r"mutants-repro: \1\n\t\2/mutants\.py --repro", mk),
                        "make mutants's or mutants-repro's recipe changed")
        ok = tested | by_report | ({"matrix"} if "vm-smoke" in tested else set()) | \
            ({"mutants"} if "mutants-repro" in tested else set())
        wf = load()
        for job in wf["jobs"].values():
            for s in job["steps"]:
                for cmd in re.split(r"&&|;|\n", s.get("run", "")):
                    words = cmd.split()
                    if not words or words[0] in ("apt-get", "exit"):
                        continue
                    self.assertEqual(words[0], "make", cmd)
                    self.assertIn(words[1], ok, cmd)

    def test_shard_reaches_the_matrix_runner(self):
        res = subprocess.run(["make", "-n", "-C", TOP, "--no-print-directory", "matrix",
                              "SHARD=2/4", "RUN_ID=x", "BASE=results/y"],
                             capture_output=True, text=True, check=False)
        line = [x for x in res.stdout.splitlines() if x.rstrip().endswith("run-vm.sh matrix")]
        self.assertTrue(line, res.stdout[-1500:] + res.stderr[-500:])
        self.assertIn("SHARD='2/4'", line[0])
        self.assertIn("BASE='results/y'", line[0])


def main():
    suite = unittest.TestLoader().loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
