#!/usr/bin/env python3
"""Outcome decisions of initramfs/host/cell_result.py, from synthetic guest
output (no VM): every outcome, and every way a result can fail to prove itself.

    python3 -m unittest initramfs/tests/test_cell_result.py
"""
import base64
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CELL_RESULT = os.path.join(HERE, "..", "host", "cell_result.py")
NONCE = "00112233445566778899aabbccddeeff"
CELL = "demo.ptrace_scope=1,user=root+debian-6.1"
INIT_LINE = "egress-init: started at uptime 1.20\n"


def section(name, data):
    body = base64.encodebytes(gzip.compress(data, mtime=0)).decode()
    return (f"@@section {name} {len(data)} {hashlib.sha256(data).hexdigest()} gzip\n"
            f"{body}@@end {name}\n")


def frame(cell_text, status, report=None, nonce=NONCE, cell=CELL, extra=""):
    meta = (f"nonce={nonce}\ncell={cell}\nkernel_release=6.1.0-test\nuptime_init=1.20\n"
            f"cell_sha256={hashlib.sha256(cell_text).hexdigest()}\n").encode()
    out = f"\n@@egress-result v1 nonce={nonce} cell={cell}\n"
    out += section("meta", meta) + section("status", status.encode())
    out += section("features", b"seccomp_notify=yes listener ok\nx32=no ENOSYS\n")
    out += section("preconditions", b"pass sysctl:kernel.yama.ptrace_scope want=1 got=1\n")
    out += section("cell", cell_text)
    if report is not None:
        out += section("report", json.dumps(report).encode())
    out += extra + f"@@egress-end v1 nonce={nonce}\n"
    return out.replace("\n", "\r\n")  # what an unraw tty would do


def ran(code):
    return f"status=ran\nreason=supervisor exited with status {code}\nsupervisor_exit={code}\n"


def report(verdict, complete=True):
    return {"format": "egress-supervisor-report/1", "complete": complete, "verdict": verdict}


class CellOutcome(unittest.TestCase):
    def run_cell(self, expect="fail", result="", console=INIT_LINE, qemu_rc=0, timed_out=0,
                 nonce=NONCE, cell_text=None, mask=False):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d], check=True))
        if cell_text is None:
            cell_text = (f"scenario=demo\ncell={CELL}\nagent_arg=/agents/x\nexpect={expect}\n"
                         + ("mask=pidfd_getfd:ENOSYS\n" if mask else "")).encode()
        paths = {n: os.path.join(d, n) for n in ("c.cell", "vmlinuz", "initrd")}
        with open(paths["c.cell"], "wb") as f:
            f.write(cell_text)
        for n in ("vmlinuz", "initrd"):
            with open(paths[n], "wb") as f:
                f.write(n.encode())
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write(console)
        with open(os.path.join(d, "result.raw"), "w") as f:
            f.write(result if not callable(result) else result(cell_text))
        subprocess.run([sys.executable, CELL_RESULT, "evaluate", "--out", d, "--cell-file",
                        paths["c.cell"], "--nonce", nonce, "--kernel", paths["vmlinuz"],
                        "--initrd", paths["initrd"], "--qemu-version", "QEMU 7.2",
                        "--accel", "tcg", "--qemu-cmdline", "qemu ...", "--rerun", "run-vm.sh ...",
                        "--qemu-rc", str(qemu_rc), "--timed-out", str(timed_out),
                        "--timeout", "60", "--run-s", "3.5"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "cell.json")) as f:
            return json.load(f)

    def test_verdict_as_expected_is_ok(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail")))
        self.assertEqual((r["outcome"], r["got"], r["supervisor_exit"], r["boot_s"]),
                         ("ok", "fail", 1, 1.2))

    def test_pass_when_fail_expected_is_false_green(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(0), report("pass")))
        self.assertEqual(r["outcome"], "false-green")

    def test_other_verdict_is_mismatch(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(3), report("capability-error")))
        self.assertEqual(r["outcome"], "mismatch")

    def test_exit_status_disagreeing_with_report_claiming_pass_is_false_green(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("pass")))
        self.assertEqual(r["outcome"], "false-green")

    def test_missing_report_takes_verdict_from_exit_status(self):
        r = self.run_cell("capability-error", lambda c: frame(c, ran(3)))
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))
        self.assertIn("no report", r["reason"])

    def test_supervisor_killed_without_report_is_not_ok(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(137)))
        self.assertEqual((r["outcome"], r["got"]), ("mismatch", None))

    def test_other_nonce_is_infra_error(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail"), nonce="ab" * 16))
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("nonce", r["reason"])

    def test_qemu_exit_0_without_result_is_never_ok(self):
        r = self.run_cell("pass", "", console=INIT_LINE + "reboot: Power down\n")
        self.assertEqual(r["outcome"], "infra-error")

    def test_truncated_frame_is_infra_error(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail")).split("@@egress-end")[0])
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("truncated", r["reason"])

    def test_corrupted_section_is_infra_error(self):
        def corrupt(c):
            text = frame(c, ran(1), report("fail"))
            i = text.index("@@section status")
            j = text.index("\n", text.index("\n", i) + 1)  # first base64 line of status
            return text[:j - 6] + ("A" if text[j - 6] != "A" else "B") + text[j - 5:]
        r = self.run_cell("fail", corrupt)
        self.assertEqual(r["outcome"], "infra-error")

    def test_two_frames_are_infra_error(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail")) * 2)
        self.assertEqual(r["outcome"], "infra-error")

    def test_result_for_other_cell_is_infra_error(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail"), cell="other"))
        self.assertEqual(r["outcome"], "infra-error")

    def test_stale_cell_file_in_initramfs_is_infra_error(self):
        r = self.run_cell("fail", lambda c: frame(c + b"# edited\n", ran(1), report("fail")))
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("differs", r["reason"])

    def test_no_init_marker_is_boot_fail(self):
        r = self.run_cell("fail", "", console="Linux version 6.1\n")
        self.assertEqual(r["outcome"], "boot-fail")

    def test_panic_on_console_is_panic(self):
        r = self.run_cell("fail", "", console="Kernel panic - not syncing: Attempted to kill init!\n")
        self.assertEqual(r["outcome"], "panic")
        self.assertTrue(r["splats"])

    def test_timeout_is_timeout(self):
        r = self.run_cell("fail", "", timed_out=1, qemu_rc=124)
        self.assertEqual(r["outcome"], "timeout")

    def test_qemu_failing_to_start_is_infra_error(self):
        r = self.run_cell("fail", "", console="", qemu_rc=1)
        self.assertEqual(r["outcome"], "infra-error")

    def test_guest_skip_keeps_reason(self):
        st = "status=skipped\nreason=requires x32: kernel 6.1 says x32=no ENOSYS\n"
        r = self.run_cell("fail", lambda c: frame(c, st))
        self.assertEqual((r["outcome"], r["reason"]),
                         ("skipped", "requires x32: kernel 6.1 says x32=no ENOSYS"))

    def test_guest_precondition_error_is_kept(self):
        st = "status=precondition-error\nreason=fail sysctl:kernel.yama.ptrace_scope want=2 got=1\n"
        r = self.run_cell("fail", lambda c: frame(c, st))
        self.assertEqual(r["outcome"], "precondition-error")

    def test_mask_is_labelled_an_emulation(self):
        r = self.run_cell("capability-error",
                          lambda c: frame(c, ran(3), report("capability-error")), mask=True)
        self.assertEqual(r["emulations"], ["syscall mask pidfd_getfd:ENOSYS (emulation)"])

    def test_splats_in_dmesg_are_reported(self):
        dmesg = section("dmesg", b"[ 1.0] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1\n")
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail"), extra=dmesg))
        self.assertEqual((r["outcome"], len(r["splats"])), ("ok", 1))


if __name__ == "__main__":
    prog = unittest.main(exit=False, verbosity=2)
    res = prog.result
    failed = len(res.failures) + len(res.errors)
    print(f"{res.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
