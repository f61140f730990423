#!/usr/bin/env python3
"""Supervisor bundles (initramfs/host/bundle.py) and how a cell is judged by
one (cell_result.py): manifests and their FILE:LINE errors, digests, staging,
exit statuses per manifest, a bundle without a report judged by what
happened, the report's errno promise, supervisor-hang, and a guest whose
bundle is not the one evaluated with. No VM.

    python3 -m unittest initramfs/tests/test_bundle.py
"""
import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "host"))
import bundle as B  # noqa: E402
import cell_result as CR  # noqa: E402
import oracle as O  # noqa: E402
from test_cell_result import INIT_LINE, NONCE, report, section  # noqa: E402

CELL_RESULT = os.path.join(HERE, "..", "host", "cell_result.py")
GOOD_CONF = """# a double
name = double
entry = run.sh
file = run.sh
file = lib/data
exit.pass = 0
exit.fail = 10 11
exit.capability-error = 20
report = none
"""


def make_bundle(conf=GOOD_CONF, files=(("run.sh", 0o755), ("lib/data", 0o600))):
    d = tempfile.mkdtemp()
    for rel, mode in files:
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(f"content of {rel}\n")
        os.chmod(p, mode)
    with open(os.path.join(d, "bundle.conf"), "w") as f:
        f.write(conf)
    return d


class Manifest(unittest.TestCase):
    def errors(self, conf):
        d = make_bundle(conf)
        with self.assertRaises(B.BundleError) as cm:
            B.load(d)
        return str(cm.exception), os.path.join(d, "bundle.conf")

    def test_good_manifest_loads_with_exit_statuses_and_every_file_hashed(self):
        b = B.load(make_bundle())
        self.assertEqual((b["name"], b["entry"], b["report"]), ("double", "run.sh", "none"))
        self.assertEqual(b["exit"], {0: "pass", 10: "fail", 11: "fail", 20: "capability-error"})
        self.assertEqual(sorted(f["path"] for f in b["files"]), ["lib/data", "run.sh"])
        self.assertEqual(len(b["digest"]), 64)

    def test_bad_lines_are_reported_with_file_and_line(self):
        conf = GOOD_CONF.replace("file = lib/data", "file = ../etc/passwd") \
            .replace("report = none", "report = sometimes").replace("exit.pass = 0", "exit.pass = 2")
        msg, path = self.errors(conf + "colour = blue\nname = again\n")
        for want in (f"{path}:5: file = '../etc/passwd'", f"{path}:6: exit.pass: 2: reserved",
                     f"{path}:9: report: 'sometimes'", f"{path}:10: unknown key 'colour'",
                     f"{path}:11: name given twice"):
            self.assertIn(want, msg)

    def test_absolute_file_and_overlapping_exits_and_foreign_entry_are_refused(self):
        conf = GOOD_CONF.replace("file = lib/data", "file = /bin/sh") \
            .replace("exit.capability-error = 20", "exit.capability-error = 10") \
            .replace("entry = run.sh", "entry = other.sh")
        msg, path = self.errors(conf)
        self.assertIn(f"{path}:5: file = '/bin/sh'", msg)
        self.assertIn("exit status 10 is both fail and capability-error", msg)
        self.assertIn(f"{path}:3: entry = other.sh is not one of the `file =` lines", msg)

    def test_missing_keys_and_files_are_refused(self):
        msg, _ = self.errors("name = x\nfile = run.sh\n")
        for key in ("entry", "report", "exit.pass"):
            self.assertIn(f"missing `{key} = ...`", msg)
        d = make_bundle(files=(("run.sh", 0o755),))
        with self.assertRaises(B.BundleError) as cm:
            B.load(d)
        self.assertIn("file = lib/data: not a regular file", str(cm.exception))

    def test_design_traits_are_declared_or_default_to_ours(self):
        # No `design` line: judged as ours, every trait (the doubles that
        # wrap our supervisor); `none` and a list as written, in the
        # contract's order.
        self.assertEqual(B.load(make_bundle())["design"], list(B.OUR_DESIGN))
        b = B.load(make_bundle(GOOD_CONF + "design = none\n"))
        self.assertEqual((b["design"], B.record(b)["design"]), ([], []))
        b = B.load(make_bundle(GOOD_CONF + "design = tree-wait, ptrace-probe\n"))
        self.assertEqual(b["design"], ["ptrace-probe", "tree-wait"])
        msg, path = self.errors(GOOD_CONF + "design = ptrace\n")
        self.assertIn(f"{path}:10: design: 'ptrace': want `none` or traits of", msg)
        msg, _ = self.errors(GOOD_CONF + "design = landlock landlock\n")
        self.assertIn("given twice", msg)
        # The manifest is hashed: another design is another bundle.
        self.assertNotEqual(B.load(make_bundle())["digest"],
                            B.load(make_bundle(GOOD_CONF + "design = none\n"))["digest"])

    def test_entry_without_execute_bit_is_refused(self):
        d = make_bundle(files=(("run.sh", 0o644), ("lib/data", 0o644)))
        with self.assertRaises(B.BundleError) as cm:
            B.load(d)
        self.assertIn("entry run.sh is not executable", str(cm.exception))

    def test_directory_without_manifest_is_refused(self):
        with self.assertRaises(B.BundleError) as cm:
            B.load(tempfile.mkdtemp())
        self.assertIn("bundle.conf:1: no manifest", str(cm.exception))

    def test_check_command_exits_2_with_the_errors(self):
        d = make_bundle(GOOD_CONF + "bogus\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "..", "host", "bundle.py"),
                            "check", d], capture_output=True, text=True, check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bundle.conf:10: want `key = value`", r.stderr)


class Digest(unittest.TestCase):
    def test_digest_changes_with_any_file_mode_or_manifest(self):
        d = make_bundle()
        base = B.load(d)["digest"]
        with open(os.path.join(d, "lib/data"), "a") as f:
            f.write("x")
        self.assertNotEqual(B.load(d)["digest"], base)
        d = make_bundle()
        os.chmod(os.path.join(d, "lib/data"), 0o640)
        self.assertNotEqual(B.load(d)["digest"], base)
        d = make_bundle(GOOD_CONF + "# a comment\n")
        self.assertNotEqual(B.load(d)["digest"], base)
        self.assertEqual(B.load(make_bundle())["digest"], base)

    def test_file_is_an_implicit_bundle_with_exit_0_1_3_and_a_report(self):
        d = tempfile.mkdtemp()
        p = os.path.join(d, "egress-supervisor")
        with open(p, "w") as f:
            f.write("binary")
        os.chmod(p, 0o755)
        b = B.load(p)
        self.assertEqual((b["kind"], b["entry"], b["report"]), ("file", "egress-supervisor",
                                                               "appliance-v1"))
        self.assertEqual(b["exit"], {0: "pass", 1: "fail", 3: "capability-error"})
        self.assertEqual(b["design"], list(B.OUR_DESIGN))
        os.chmod(p, 0o644)
        with self.assertRaises(B.BundleError):
            B.load(p)

    def test_stage_keeps_modes_and_writes_the_guest_env(self):
        b = B.load(make_bundle())
        root = tempfile.mkdtemp()
        B.stage(b, root)
        mode = stat.S_IMODE(os.stat(os.path.join(root, "opt/supervisor/lib/data")).st_mode)
        self.assertEqual(mode, 0o600)
        with open(os.path.join(root, "etc/egress/bundle.env")) as f:
            env = dict(ln.split("=", 1) for ln in f.read().splitlines())
        self.assertEqual(env, {"BUNDLE_NAME": "double", "BUNDLE_ENTRY": "/opt/supervisor/run.sh",
                               "BUNDLE_REPORT": "none", "BUNDLE_DIGEST": b["digest"]})


CELL = b"""scenario=s
cell=s+k
agent_arg=/agents/x
allow=198.51.100.7:443
sink=tcp 198.51.100.7:443
sink=tcp 203.0.113.5:443
expect=fail
"""


def log(*entries):
    return ("\n".join(json.dumps(e) for e in entries) + "\n").encode()


def att(dest, result, err):
    return {"call": "connect", "dest": dest, "result": result, "errno": err}


def arrival(dest):
    return {"proto": "tcp", "event": "accept", "dest": dest, "peer": "x"}


class JudgedByWhatHappened(unittest.TestCase):
    def oracle(self, agent, sink=(), rep=None, kind="none", verdict="fail"):
        sec = {"agent_log": log(*agent), "sink_log": log(*sink), "_verdict": verdict}
        return O.oracle_evaluate(CELL, sec, rep, kind)["problems"]

    def test_refusal_with_any_errno_and_nothing_arrived_is_a_denial(self):
        self.assertEqual(self.oracle([att("203.0.113.5:443", -1, "ECONNREFUSED")]), [])

    def test_undeclared_call_that_succeeded_without_report_is_caught(self):
        probs = self.oracle([att("203.0.113.5:443", 0, None)], [arrival("203.0.113.5:443")])
        self.assertTrue(any("arrived at the sink" in p for p in probs), probs)
        self.assertTrue(any("succeeded" in p for p in probs), probs)

    def test_sendmmsg_batch_stopped_at_its_undeclared_message_is_a_denial(self):
        batch = {"call": "sendmmsg", "dest": "198.51.100.7:443,203.0.113.5:443", "result": 1,
                 "errno": None}
        self.assertEqual(self.oracle([batch], [arrival("198.51.100.7:443")]), [])
        batch["result"] = 2
        self.assertTrue(self.oracle([batch]), "a batch that sent both is not a denial")

    def test_report_promising_eacces_is_held_to_it(self):
        ev = {"syscall": "connect", "dest": "203.0.113.5:443", "bucket": "denied",
              "action": "errno", "errno": "EACCES"}
        rep = dict(report("fail"), events=[ev],
                   supervisor={"name": "egress-supervisor", "denial_errno": "EACCES"})
        agent = [att("203.0.113.5:443", -1, "EPERM")]
        probs = self.oracle(agent, rep=rep, kind="appliance-v1")
        self.assertTrue(any("promises denials answer EACCES" in p for p in probs), probs)
        agent = [att("203.0.113.5:443", -1, "EACCES")]
        self.assertEqual(self.oracle(agent, rep=rep, kind="appliance-v1"), [])

    def test_report_without_promise_accepts_any_errno(self):
        ev = {"syscall": "connect", "dest": "203.0.113.5:443", "bucket": "denied",
              "action": "errno", "errno": "ECONNREFUSED"}
        rep = dict(report("fail"), events=[ev])
        agent = [att("203.0.113.5:443", -1, "ECONNREFUSED")]
        self.assertEqual(self.oracle(agent, rep=rep, kind="appliance-v1"), [])

    def test_agent_exit_without_report_is_the_status_the_agent_logged(self):
        # Review h-foreign3: a report-less bundle's pass over an agent that
        # exited 1 (its escape worked) was ok: the check needed a report.
        cell = CELL + b"expect_agent_exit=0\n"
        exited = {"call": "exit", "dest": None, "result": 1, "errno": None, "top": True}

        def probs(entries, verdict):
            sec = {"agent_log": log(*entries), "sink_log": log(), "_verdict": verdict}
            return O.oracle_evaluate(cell, sec, None, "none")["problems"]

        self.assertTrue(any("logged exit status 1" in p for p in probs([exited], "pass")))
        self.assertEqual(probs([dict(exited, result=0)], "pass"), [])
        # A child's exit is not the agent's; the last top line is (an exec).
        self.assertTrue(probs([dict(exited, result=0, top=False)], "pass"))
        self.assertEqual(probs([exited, dict(exited, result=0)], "pass"), [])
        # No exit line (killed on a violation, or never run): a pass must
        # show the status it vouches for, a fail need not.
        self.assertTrue(any("logged no exit status" in p for p in probs([], "pass")))
        self.assertEqual(probs([], "fail"), [])

    def test_agent_killed_on_a_violation_has_no_exit_to_compare(self):
        # Review h-foreign3: a kill-on-violation supervisor's fail.
        cell = CELL + b"expect_agent_exit=0\n"
        killed = dict(report("fail"), agent={"pid": 5, "exit_code": None, "signal": 9})
        sec = {"agent_log": log(), "sink_log": log()}
        self.assertEqual(O.oracle_evaluate(cell, sec, killed, "appliance-v1")["problems"], [])
        passed = dict(killed, verdict="pass")
        self.assertTrue(O.oracle_evaluate(cell, sec, passed, "appliance-v1")["problems"])

    def test_manifest_exit_statuses_decide_the_verdict(self):
        b = B.load(make_bundle())
        self.assertEqual(CR.judge_report(10, None, None, "fail", b), ("fail", None))
        self.assertEqual(CR.judge_report(20, None, None, "fail", b), ("capability-error", None))
        # 1 is not in this manifest: it vouches for nothing.
        self.assertEqual(CR.judge_report(1, None, None, "fail", b), ("capability-error", None))


class Outcomes(unittest.TestCase):
    def evaluate(self, result, supervisor, cell_text=CELL):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d], check=True))
        paths = {n: os.path.join(d, n) for n in ("c.cell", "vmlinuz", "initrd")}
        with open(paths["c.cell"], "wb") as f:
            f.write(cell_text)
        for n in ("vmlinuz", "initrd"):
            with open(paths[n], "wb") as f:
                f.write(n.encode())
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write(INIT_LINE)
        with open(os.path.join(d, "result.raw"), "w") as f:
            f.write(result)
        subprocess.run([sys.executable, CELL_RESULT, "evaluate", "--out", d, "--cell-file",
                        paths["c.cell"], "--nonce", NONCE, "--kernel", paths["vmlinuz"],
                        "--initrd", paths["initrd"], "--qemu-version", "QEMU 7.2",
                        "--accel", "tcg", "--qemu-cmdline", "qemu", "--rerun", "x",
                        "--qemu-rc", "0", "--timed-out", "0", "--timeout", "60",
                        "--run-s", "3.5", "--supervisor", supervisor],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "cell.json")) as f:
            return json.load(f)

    def run_bundle(self, b, status, agent, sink=(), rep=None, extra="", digest=None):
        meta = (f"nonce={NONCE}\ncell=s+k\nkernel_release=6.1.0-test\nuptime_init=1.20\n"
                f"cell_sha256={hashlib.sha256(CELL).hexdigest()}\n"
                f"bundle_name={b['name']}\nbundle_digest={digest or b['digest']}\n").encode()
        body = f"\n@@egress-result v1 nonce={NONCE} cell=s+k\n" + section("meta", meta) + \
            section("status", status.encode()) + section("cell", CELL) + \
            section("agent_log", log(*agent)) + section("sink_log", log(*sink)) + extra
        if rep is not None:
            body += section("report", json.dumps(rep).encode())
        return self.evaluate(body + f"@@egress-end v1 nonce={NONCE}\n", b["source"])

    def test_bundle_without_report_refusing_with_econnrefused_is_ok(self):
        b = B.load(make_bundle())
        r = self.run_bundle(b, "status=ran\nreason=x\nsupervisor_exit=10\n",
                            [att("203.0.113.5:443", -1, "ECONNREFUSED")])
        self.assertEqual((r["outcome"], r["got"]), ("ok", "fail"), r["reason"])
        self.assertIn("writes no report", r["reason"])
        self.assertEqual(r["bundle"]["digest"], b["digest"])

    def test_bundle_without_report_letting_undeclared_through_is_oracle_mismatch(self):
        b = B.load(make_bundle())
        r = self.run_bundle(b, "status=ran\nreason=x\nsupervisor_exit=10\n",
                            [att("203.0.113.5:443", 0, None)], [arrival("203.0.113.5:443")])
        self.assertEqual(r["outcome"], "oracle-mismatch", r["reason"])

    def test_bundle_without_report_saying_pass_where_fail_is_due_is_false_green(self):
        b = B.load(make_bundle())
        r = self.run_bundle(b, "status=ran\nreason=x\nsupervisor_exit=0\n",
                            [att("203.0.113.5:443", 0, None)], [arrival("203.0.113.5:443")])
        self.assertEqual(r["outcome"], "false-green", r["reason"])

    def test_guest_hang_status_is_supervisor_hang_with_what_it_saw(self):
        b = B.load(make_bundle())
        hang = section("hang", b"why=no CPU time used for 15 s\nprocess pid=9 state=S\n")
        r = self.run_bundle(b, "status=supervisor-hang\nreason=no CPU time used for 15 s: "
                            "killed\nsupervisor_exit=137\n", [], extra=hang)
        self.assertEqual(r["outcome"], "supervisor-hang")
        self.assertIn("no CPU time used", r["reason"])

    def test_guest_bundle_other_than_the_evaluated_one_is_infra_error(self):
        b = B.load(make_bundle())
        r = self.run_bundle(b, "status=ran\nreason=x\nsupervisor_exit=10\n", [],
                            digest="0" * 64)
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("is not the one evaluated with", r["reason"])


if __name__ == "__main__":
    unittest.main()
