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
        out += section("report", report if isinstance(report, bytes) else json.dumps(report).encode())
    out += extra + f"@@egress-end v1 nonce={nonce}\n"
    return out.replace("\n", "\r\n")  # what an unraw tty would do


def frame_with_meta(cell_text, status, rep, sha):
    """A frame whose meta says cell_sha256=SHA (its own section digest right)."""
    good = hashlib.sha256(cell_text).hexdigest()
    text = frame(cell_text, status, rep).replace("\r\n", "\n")
    meta = (f"nonce={NONCE}\ncell={CELL}\nkernel_release=6.1.0-test\nuptime_init=1.20\n"
            f"cell_sha256={good}\n").encode()
    start = text.index("@@section meta ")
    end = text.index("@@end meta\n") + len("@@end meta\n")
    return (text[:start] + section("meta", meta.replace(good.encode(), sha.encode()))
            + text[end:]).replace("\n", "\r\n")


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

    def test_frame_without_cell_section_is_never_judged(self):
        # The third review's forgery: meta, status and a pass report, but no
        # cell section, so the oracle would judge against no policy at all.
        def no_cell(c):
            text = frame(c, ran(0), report("pass"))
            start = text.index("@@section cell ")
            end = text.index("@@end cell\r\n") + len("@@end cell\r\n")
            return text[:start] + text[end:]
        r = self.run_cell("fail", no_cell)
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("not init's", r["reason"])

    def test_frame_without_cell_digest_is_never_judged(self):
        r = self.run_cell("fail", lambda c: frame_with_meta(c, ran(1), report("fail"), sha=""))
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("not init's", r["reason"])

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

    def test_panic_line_beside_a_complete_frame_is_no_panic(self):
        # Review h-attack39: a root agent made the kernel print a forged
        # "Kernel panic - not syncing" (a file name in a warning); the
        # complete frame decides, and its false green is not hidden.
        r = self.run_cell("fail", lambda c: frame(c, ran(0), report("pass")),
                          console=INIT_LINE + "[ 1.0] Kernel panic - not syncing: forged\n")
        self.assertEqual(r["outcome"], "false-green")

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


sys.path.insert(0, os.path.join(HERE, "..", "host"))
import oracle as O  # noqa: E402

ORACLE_CELL = """scenario=o
cell=o+k
agent_arg=/agents/x
allow=198.51.100.7:443
allow=198.51.100.7:53
allow=198.51.100.0/24:400-500
allow=[2001:db8::]/32
sink=tcp 198.51.100.7:443
sink=udp 198.51.100.7:53
sink=tcp 203.0.113.5:443
sink=udp 203.0.113.5:53
sink=tcp [2001:db8::5]:443
sink=tcp 127.0.0.1:9
expect=fail
"""


def att(call, dest, result=-1, err="EACCES", **kw):
    return dict(agent="x", pid=1, call=call, dest=dest, result=result, errno=err, **kw)


def ev(syscall, dest, bucket, action="errno", err="EACCES", result=-1, **kw):
    return dict(syscall=syscall, dest=dest, bucket=bucket, action=action, errno=err,
                result=result, **kw)


def okev(syscall, dest, err=None, result=0):
    return ev(syscall, dest, "allowed", "performed", err, result)


def tcp(dest):
    return dict(proto="tcp", event="accept", dest=dest, peer="127.0.0.1:1", bytes=0)


def udp(dest):
    return dict(proto="udp", event="datagram", dest=dest, peer="127.0.0.1:1", bytes=4)


def lines(objs):
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


MMSG = "198.51.100.7:53,203.0.113.5:53"
MMSG_EV = ev("sendmmsg", MMSG, "denied", "performed", None, 1, messages=[
    dict(dest="198.51.100.7:53", decision="allowed"),
    dict(dest="203.0.113.5:53", decision="denied", errno="EACCES")])

# name: (cell extra, agent log, sink log or None, report verdict, events,
#        agent exit, expected problem fragment or None when they agree)
ORACLE_CASES = {
    "starter_fail_agrees": (
        "", [att("connect", "127.0.0.1:8080", 0, None), att("connect", "203.0.113.5:443")],
        [], "fail", [okev("connect", "127.0.0.1:8080"), ev("connect", "203.0.113.5:443", "denied")],
        0, None),
    "undeclared_arrival_is_caught": (
        "", [att("connect", "203.0.113.5:443", 0, None)], [tcp("203.0.113.5:443")], "fail",
        [ev("connect", "203.0.113.5:443", "denied")], 0, "undeclared 203.0.113.5:443 arrived"),
    "undeclared_datagram_is_caught": (
        "", [att("sendto", "203.0.113.5:53")], [udp("203.0.113.5:53")], "fail",
        [ev("sendto", "203.0.113.5:53", "denied")], 0, "undeclared 203.0.113.5:53 arrived"),
    "performed_but_not_arrived_is_caught": (
        "", [att("connect", "198.51.100.7:443", 0, None)], [], "pass",
        [okev("connect", "198.51.100.7:443")], 0, "sink saw 0 arrival"),
    "einprogress_connect_must_arrive": (
        "", [att("connect", "198.51.100.7:443", -1, "EINPROGRESS")], [], "pass",
        [okev("connect", "198.51.100.7:443", "EINPROGRESS", -1)], 0, "sink saw 0"),
    "performed_twice_arrived_once_is_caught": (
        "", [], [tcp("198.51.100.7:443")], "pass",
        [okev("connect", "198.51.100.7:443"), okev("connect", "198.51.100.7:443")], 0,
        "performed 2 call(s)"),
    "performed_and_arrived_agrees": (
        "", [att("connect", "198.51.100.7:443", 0, None)], [tcp("198.51.100.7:443")], "pass",
        [okev("connect", "198.51.100.7:443")], 0, None),
    "refused_connect_need_not_arrive": (
        "", [], [], "pass", [okev("connect", "198.51.100.7:443", "ECONNREFUSED", -1)], 0, None),
    "udp_connect_sends_nothing": (
        "", [att("connect", "198.51.100.7:53", 0, None)], [], "pass",
        [okev("connect", "198.51.100.7:53")], 0, None),
    "undeclared_try_without_denial_is_caught": (
        "", [att("connect", "203.0.113.5:443")], [], "fail",
        [ev("connect", "198.51.100.9:9", "denied")], 0, "lists no denial for it"),
    "refused_sort_probe_counts_as_seen": (
        "", [att("connect", "203.0.113.5:0")], [], "pass",
        [ev("connect", "203.0.113.5:0", "neutralized", reason="sort-probe")], 0, None),
    "refused_sort_probe_on_port_9_counts_as_seen": (
        "", [att("connect", "203.0.113.5:9"), att("send", None, -1, "EDESTADDRREQ")], [], "pass",
        [ev("connect", "203.0.113.5:9", "neutralized", reason="sort-probe")], 0, None),
    # Review h-realprog5: glibc's probe of a passive lookup, any port.
    "refused_unspecified_probe_counts_as_seen": (
        "", [att("connect", "0.0.0.0:40001"), att("send", None, -1, "EDESTADDRREQ")], [], "pass",
        [ev("connect", "0.0.0.0:40001", "neutralized", reason="sort-probe")], 0, None),
    "neutralized_connect_to_another_address_on_its_port_is_no_refusal": (
        "", [att("connect", "203.0.113.5:40001")], [], "pass",
        [ev("connect", "203.0.113.5:40001", "neutralized", reason="sort-probe")], 0,
        "lists no denial for it"),
    "unspecified_probe_the_agent_saw_succeed_is_no_refusal": (
        "", [att("connect", "0.0.0.0:40001", 0, None)], [], "pass",
        [ev("connect", "0.0.0.0:40001", "neutralized", reason="sort-probe")], 0,
        "lists no denial for it"),
    # Review h-attack46: a neutralized label alone is no refusal.
    "neutralized_sendto_the_agent_saw_succeed_is_no_refusal": (
        "", [att("sendto", "203.0.113.5:53", 6, None)], [], "pass",
        [ev("sendto", "203.0.113.5:53", "neutralized")], 0, "lists no denial for it"),
    "neutralized_tcp_connect_to_443_is_no_refusal": (
        "", [att("connect", "203.0.113.5:443")], [], "pass",
        [ev("connect", "203.0.113.5:443", "neutralized")], 0, "lists no denial for it"),
    "sort_probe_the_agent_saw_succeed_is_no_refusal": (
        "", [att("connect", "203.0.113.5:9", 0, None)], [], "pass",
        [ev("connect", "203.0.113.5:9", "neutralized", reason="sort-probe")], 0,
        "lists no denial for it"),
    "neutralized_without_errno_is_no_refusal": (
        "", [att("connect", "203.0.113.5:0")], [], "pass",
        [ev("connect", "203.0.113.5:0", "neutralized", "performed", None, 0)], 0,
        "lists no denial for it"),
    "undeclared_try_with_capability_error_is_not_judged": (
        "", [att("connect", "203.0.113.5:443", -1, "EPERM")], [], "capability-error",
        [], 0, None),
    "capability_error_still_needs_no_undeclared_arrival": (
        "", [att("connect", "203.0.113.5:443", 0, None)], [tcp("203.0.113.5:443")],
        "capability-error", [], 0, "undeclared 203.0.113.5:443 arrived"),
    "mapped_v6_judged_as_ipv4": (
        "", [att("connect", "[::ffff:203.0.113.5]:443")], [], "fail",
        [ev("connect", "203.0.113.5:443", "denied")], 0, None),
    "mapped_v6_declared_arrival_is_declared": (
        "", [att("connect", "[::ffff:198.51.100.7]:443", 0, None)], [tcp("198.51.100.7:443")],
        "pass", [okev("connect", "198.51.100.7:443")], 0, None),
    "mapped_v6_undeclared_without_denial_is_caught": (
        "", [att("connect", "[::ffff:203.0.113.5]:443", 0, None)], [], "pass",
        [okev("connect", "203.0.113.5:443")], 0, "tried undeclared 203.0.113.5:443"),
    "loopback_no_makes_loopback_undeclared": (
        "loopback=no\n", [], [tcp("127.0.0.1:9")], "pass", [], 0,
        "undeclared 127.0.0.1:9 arrived"),
    "loopback_default_declares_127_8": (
        "", [], [tcp("127.0.0.1:9")], "pass", [okev("connect", "127.0.0.1:9")], 0, None),
    "prefix_and_port_range_declare": (
        "", [att("connect", "198.51.100.9:450", 0, None)], [], "pass",
        [okev("connect", "198.51.100.9:450")], 0, None),
    "outside_port_range_is_undeclared": (
        "", [att("connect", "198.51.100.9:501")], [], "pass", [], 0,
        "tried undeclared 198.51.100.9:501"),
    "ipv6_prefix_declares": (
        "", [], [tcp("[2001:db8::5]:443")], "pass", [okev("connect", "[2001:db8::5]:443")], 0,
        None),
    "sendmmsg_declared_first_agrees": (
        "", [att("sendmmsg", MMSG, 1, None)], [udp("198.51.100.7:53")], "fail", [MMSG_EV], 0,
        None),
    "held_sends_are_no_deliveries": (
        "", [att("sendto", "198.51.100.7:53", 4, None, held="probe"),
             att("sendto", "198.51.100.7:53", 4, None, held="more"),
             att("sendto", "198.51.100.7:53", 4, None)], [udp("198.51.100.7:53")], "pass",
        [ev("sendto", "198.51.100.7:53", "allowed", "performed", None, 4, held=True),
         ev("sendto", "198.51.100.7:53", "allowed", "performed", None, 4, held=True),
         okev("sendto", "198.51.100.7:53", result=4)], 0, None),
    # A report that promises to mark held sends (ours: mutant held-unmarked
    # breaks the promise) is held to its marks.
    "unmarked_send_not_arrived_is_caught": (
        "", [att("sendto", "198.51.100.7:53", 4, None, held="more"),
             att("sendto", "198.51.100.7:53", 4, None)], [udp("198.51.100.7:53")], "pass",
        [okev("sendto", "198.51.100.7:53", result=4), okev("sendto", "198.51.100.7:53", result=4)],
        0, "performed 2 call(s) to 198.51.100.7:53 with success but the sink saw 1",
        {"supervisor": {"marks_held": True}}),
    # One without the promise (held is optional, review h-foreign3 finding
    # 7): the agent's own log says which sends the kernel kept back.
    "held_send_the_agent_logged_is_no_delivery_without_the_promise": (
        "", [att("sendto", "198.51.100.7:53", 4, None, held="more"),
             att("sendto", "198.51.100.7:53", 4, None)], [udp("198.51.100.7:53")], "pass",
        [okev("sendto", "198.51.100.7:53", result=4), okev("sendto", "198.51.100.7:53", result=4)],
        0, None),
    "agent_held_sends_never_excuse_the_unheld_one": (
        "", [att("sendto", "198.51.100.7:53", 4, None, held="probe"),
             att("sendto", "198.51.100.7:53", 4, None)], [], "pass",
        [okev("sendto", "198.51.100.7:53", result=4), okev("sendto", "198.51.100.7:53", result=4)],
        0, "sink saw 0"),
    "held_send_that_failed_in_the_agent_excuses_nothing": (
        "", [att("sendto", "198.51.100.7:53", -1, "EMSGSIZE", held="cork"),
             att("sendto", "198.51.100.7:53", 4, None)], [udp("198.51.100.7:53")], "pass",
        [okev("sendto", "198.51.100.7:53", result=4), okev("sendto", "198.51.100.7:53", result=4)],
        0, "performed 2 call(s)"),
    # A connect interrupted in the agent may be performed on the socket
    # number it reuses next, whose own connect then returns 0 for the same
    # handshake (review h-foreign3 finding 6): one arrival for two calls.
    "interrupted_connect_may_share_its_successor_handshake": (
        "", [att("connect", "198.51.100.7:443", -1, "EINTR"),
             att("connect", "198.51.100.7:443", 0, None)], [tcp("198.51.100.7:443")], "pass",
        [okev("connect", "198.51.100.7:443"), okev("connect", "198.51.100.7:443")], 0, None),
    "every_connect_the_agent_saw_succeed_is_owed": (
        "", [att("connect", "198.51.100.7:443", -1, "EINTR"),
             att("connect", "198.51.100.7:443", 0, None),
             att("connect", "198.51.100.7:443", 0, None)], [tcp("198.51.100.7:443")], "pass",
        [okev("connect", "198.51.100.7:443")] * 3, 0, "2 of them owed an arrival"),
    "interrupts_excuse_one_performed_connect_each_at_most": (
        "", [att("connect", "198.51.100.7:443", -1, "EINTR")], [], "pass",
        [okev("connect", "198.51.100.7:443")] * 2, 0, "1 of them owed an arrival"),
    "sendmmsg_declared_message_lost_is_caught": (
        "", [att("sendmmsg", MMSG, 1, None)], [], "fail", [MMSG_EV], 0,
        "198.51.100.7:53 with success but the sink saw 0"),
    "sendmmsg_undeclared_message_not_denied_is_caught": (
        "", [att("sendmmsg", MMSG, 2, None)], [udp("198.51.100.7:53")], "fail",
        [dict(MMSG_EV, messages=MMSG_EV["messages"][:1])], 0, "tried undeclared 203.0.113.5:53"),
    "broken_name_modes_are_not_inet_attempts": (
        "", [att("sendmsg", "203.0.113.5:53", mode="bad-family"),
             att("sendmsg", "203.0.113.5:53", mode="short")], [], "fail",
        [ev("sendmsg", "family=5", "denied")], 0, None),
    "non_attempt_calls_are_ignored": (
        "", [att("socket", "203.0.113.5:443", 3, None), att("connect_summary", "203.0.113.5:443")],
        [], "pass", [], 0, None),
    "foreign_abi_denial_by_dest": (
        "", [att("socketcall_connect", "203.0.113.5:443"), att("x32_connect", "203.0.113.5:443")],
        [], "fail", [ev("socketcall", "203.0.113.5:443", "denied", reason="foreign-abi")], 0, None),
    "io_uring_connect_that_happened_is_caught": (
        "", [att("io_uring_setup", None, 5, None), att("io_uring_connect", "203.0.113.5:443", 0, None)],
        [tcp("203.0.113.5:443")], "pass",
        [ev("io_uring_setup", None, "neutralized", err="ENOSYS")], 0, "arrived at the sink"),
    "expect_agent_exit_differs_is_caught": (
        "expect_agent_exit=0\n", [], [], "pass", [], 1, "expect_agent_exit=0"),
    "expect_agent_exit_killed_is_caught": (
        "expect_agent_exit=0\n", [], [], "pass", [], None, "exit_code is None"),
    "expect_agent_exit_matches": ("expect_agent_exit=3\n", [], [], "pass", [], 3, None),
    "missing_sink_log_is_caught": ("", [], None, "pass", [], 0, "no sink_log"),
    "agent_log_garbage_is_caught": ("", b"{not json\n", [], "pass", [], 0,
                                    "agent_log line 1 is not JSON"),
}


class Oracle(unittest.TestCase):
    """oracle_check() from tables: each case must agree or be caught."""

    def test_oracle_table(self):
        for name, case in ORACLE_CASES.items():
            extra, alog, slog, verdict, events, code, want = case[:7]
            with self.subTest(name):
                sec = {"cell": (ORACLE_CELL + extra).encode(),
                       "agent_log": alog if isinstance(alog, bytes) else lines(alog)}
                if slog is not None:
                    sec["sink_log"] = lines(slog)
                rep = {"verdict": verdict, "events": events,
                       "agent": {"exit_code": code, "signal": None if code is not None else "SIGKILL"}}
                rep.update(case[7] if len(case) > 7 else {})
                got = O.oracle_check("o+k", sec, rep)
                if want is None:
                    self.assertIsNone(got, name)
                else:
                    self.assertIsNotNone(got, f"{name}: not caught")
                    self.assertIn(want, got, name)

    def test_agent_not_run_after_failed_probe_has_no_exit_to_check(self):
        sec = {"cell": (ORACLE_CELL + "expect_agent_exit=0\n").encode(), "agent_log": b"",
               "sink_log": b""}
        rep = {"verdict": "capability-error", "events": [], "probe": {"result": "failed"},
               "agent": {"pid": 0, "exit_code": None, "signal": None}}
        self.assertIsNone(O.oracle_check("o+k", sec, rep))

    def test_attempts_logged_though_the_agent_was_not_run_are_caught(self):
        sec = {"cell": ORACLE_CELL.encode(),
               "agent_log": lines([att("connect", "203.0.113.5:443")]), "sink_log": b""}
        rep = {"verdict": "capability-error", "events": [], "probe": {"result": "failed"},
               "agent": {"pid": 0, "exit_code": None, "signal": None}}
        got = O.oracle_check("o+k", sec, rep)
        self.assertIsNotNone(got)
        self.assertIn("the agent was not run", got)

    def test_input_typed_into_the_callers_terminal_is_caught(self):
        base = {"cell": ORACLE_CELL.encode(), "agent_log": b"", "sink_log": b""}
        rep = {"verdict": "pass", "events": [], "agent": {"exit_code": 0, "signal": None}}
        self.assertIsNone(O.oracle_check("o+k", base, rep))
        got = O.oracle_check("o+k", dict(base, tty_input=b"/agents/connect-tcp x\n"), rep)
        self.assertIsNotNone(got)
        self.assertIn("typed into the caller's terminal", got)

    def test_parse_dest_normalizes(self):
        self.assertEqual(O.dest_text(O.parse_dest("[::ffff:192.0.2.1]:80")), "192.0.2.1:80")
        self.assertEqual(O.dest_text(O.parse_dest("[2001:DB8::1]:53")), "[2001:db8::1]:53")
        for bad in ("unix:/x", "unspec", None, "family=5", "[nope]:1", "1.2.3.4"):
            self.assertIsNone(O.parse_dest(bad), bad)


ORACLE_E2E_CELL = (f"scenario=demo\ncell={CELL}\nagent_arg=/agents/x\nexpect=fail\n"
                   "sink=tcp 203.0.113.5:443\n").encode()


class OracleOutcome(unittest.TestCase):
    """The oracle and kill_supervisor_after through the whole evaluate path."""
    run_cell = CellOutcome.run_cell

    def test_undeclared_arrival_is_oracle_mismatch(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", lines([tcp("203.0.113.5:443")]))
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra),
                          cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "oracle-mismatch")
        self.assertIn("undeclared 203.0.113.5:443 arrived", r["reason"])
        self.assertEqual(r["oracle"]["arrivals"], 1)

    def test_timeout_with_an_undeclared_arrival_is_oracle_mismatch(self):
        """Hostile review h-attack58: an agent that leaves a stopped child
        makes the run wait until the guest's watchdog kills the supervisor
        (status timeout): the frame is complete, and an undeclared arrival
        in its sink_log is an escape, not a timeout."""
        extra = section("agent_log", b"") + section("sink_log", lines([tcp("203.0.113.5:443")]))
        st = "status=timeout\nreason=the supervisor did not finish within 40 s\n"
        r = self.run_cell(result=lambda c: frame(c, st, extra=extra), cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "oracle-mismatch")
        self.assertIn("undeclared 203.0.113.5:443 arrived", r["reason"])
        self.assertIn("did not finish", r["reason"])

    def test_timeout_with_nothing_escaped_stays_timeout(self):
        extra = section("agent_log", b"") + section("sink_log", b"")
        st = "status=timeout\nreason=the supervisor did not finish within 40 s\n"
        r = self.run_cell(result=lambda c: frame(c, st, extra=extra), cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "timeout")

    def test_supervisor_hang_with_an_undeclared_arrival_is_oracle_mismatch(self):
        extra = section("sink_log", lines([tcp("203.0.113.5:443")]))
        extra += section("survivors", b"123 S sleeper\n")
        st = "status=supervisor-hang\nreason=the supervisor waited on a frozen cgroup\n"
        r = self.run_cell(result=lambda c: frame(c, st, extra=extra), cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "oracle-mismatch")
        self.assertIn("undeclared 203.0.113.5:443 arrived", r["reason"])

    def test_supervisor_hang_whose_tree_survived_the_guests_kill_stays_supervisor_hang(self):
        """The guest's hang monitor kills a hung supervisor; what it left
        running is the hang's consequence (the matrix self-test's
        hang-blind cell), not an escape to judge here."""
        extra = section("sink_log", b"") + section("survivors", b"123 S sleeper\n")
        st = "status=supervisor-hang\nreason=the supervisor waited on a frozen cgroup\n"
        r = self.run_cell(result=lambda c: frame(c, st, extra=extra), cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "supervisor-hang")

    def test_oracle_agreeing_is_ok(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"")
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra),
                          cell_text=ORACLE_E2E_CELL)
        self.assertEqual((r["outcome"], r["oracle"]["problems"]), ("ok", []))

    def test_sink_that_lost_records_is_infra_error(self):
        """Hostile review h-attack34: an agent filled the sink's file system,
        so the undeclared arrival is missing from sink_log. The sink said so
        (sink_err); even with a status that says ran and a report that agrees
        with everything, the cell is never judged on a record with holes."""
        err = (b"egress-sink: cannot write a record (tcp accept 203.0.113.5:443): "
               b"No space left on device\n"
               b"egress-sink: records lost: 1 record(s) could not be written to "
               b"/run/egress-sink/sink.log (first: No space left on device): the record "
               b"is not the ground truth\n")
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"") + section("sink_err", err)
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra),
                          cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("not the ground truth", r["reason"])
        self.assertIn("records lost: 1 record(s)", r["reason"])
        # The same frame without sink_err is judged (and ok): the section
        # alone made the difference.
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"")
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra),
                          cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "ok")

    def test_any_sink_stderr_is_infra_error(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"")
        extra += section("sink_err", b"egress-sink: accept on 203.0.113.5:443: Too many open files\n")
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra),
                          cell_text=ORACLE_E2E_CELL)
        self.assertEqual(r["outcome"], "infra-error")
        self.assertIn("accept on 203.0.113.5:443", r["reason"])

    def test_killed_supervisor_with_provisional_report_is_ok(self):
        cell = ORACLE_E2E_CELL.replace(b"expect=fail", b"expect=capability-error") + \
            b"kill_supervisor_after=2\n"
        st = ran(137) + "supervisor_killed=SIGKILL after 2 s\n"
        extra = section("sink_log", b"")
        r = self.run_cell(result=lambda c: frame(c, st, report("capability-error", complete=False),
                                                 extra=extra), cell_text=cell)
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))
        self.assertIn("provisional", r["reason"])

    def test_killed_supervisor_without_report_is_never_ok(self):
        cell = ORACLE_E2E_CELL.replace(b"expect=fail", b"expect=capability-error") + \
            b"kill_supervisor_after=2\n"
        st = ran(137) + "supervisor_killed=SIGKILL after 2 s\n"
        r = self.run_cell(result=lambda c: frame(c, st, extra=section("sink_log", b"")),
                          cell_text=cell)
        self.assertEqual(r["outcome"], "mismatch")
        self.assertIn("left no report", r["reason"])


def top_exit(code=0):
    return dict(agent="x", pid=1, call="exit", dest=None, result=code, errno=None, top=True)


class DesignNeutral(unittest.TestCase):
    """docs/supervisor-contract.md "Verdicts a design may change": a verdict
    for a supervisor that ended before the cell's kill (expect_finished), and
    pass accepted where the agent ran and tried nothing (expect_untried)."""
    run_cell = CellOutcome.run_cell
    KILLED = ran(137) + "supervisor_killed=SIGKILL after 2 s\n"

    def cell(self, expect, more=""):
        return (ORACLE_E2E_CELL.replace(b"expect=fail", b"expect=" + expect.encode())
                + more.encode())

    def test_supervisor_that_finished_before_its_kill_is_judged_by_expect_finished(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"")
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        cell = self.cell("capability-error", "kill_supervisor_after=4\nexpect_finished=fail\n")
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra), cell_text=cell)
        self.assertEqual((r["outcome"], r["got"]), ("ok", "fail"))
        self.assertIn("expect_finished=fail", r["reason"])

    def test_finished_pass_where_finished_fail_is_due_is_false_green(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443", 0, None)]))
        extra += section("sink_log", b"")
        cell = self.cell("capability-error", "kill_supervisor_after=4\nexpect_finished=fail\n")
        r = self.run_cell(result=lambda c: frame(c, ran(0), report("pass"), extra=extra),
                          cell_text=cell)
        self.assertEqual(r["outcome"], "false-green")

    def test_finished_fail_that_left_the_agent_running_is_oracle_mismatch(self):
        extra = section("agent_log", lines([att("connect", "203.0.113.5:443")]))
        extra += section("sink_log", b"") + section("survivors", b"42 threads-load\n")
        rep = dict(report("fail"), events=[ev("connect", "203.0.113.5:443", "denied")])
        cell = self.cell("capability-error", "kill_supervisor_after=4\nexpect_finished=fail\n")
        r = self.run_cell(result=lambda c: frame(c, ran(1), rep, extra=extra), cell_text=cell)
        self.assertEqual(r["outcome"], "oracle-mismatch")
        self.assertIn("outlived", r["reason"])

    def test_kill_that_landed_keeps_expect(self):
        cell = self.cell("capability-error", "kill_supervisor_after=2\nexpect_finished=fail\n")
        r = self.run_cell(result=lambda c: frame(c, self.KILLED,
                                                 report("capability-error", complete=False),
                                                 extra=section("sink_log", b"")), cell_text=cell)
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))
        self.assertNotIn("expect_finished", r["reason"])

    def test_expect_finished_without_a_kill_in_the_cell_is_ignored(self):
        extra = section("agent_log", b"") + section("sink_log", b"")
        cell = self.cell("capability-error", "expect_finished=fail\n")
        r = self.run_cell(result=lambda c: frame(c, ran(1), report("fail"), extra=extra),
                          cell_text=cell)
        self.assertEqual(r["outcome"], "mismatch")

    def untried(self, alog, slog=b"", expect="fail", more="", rep=None):
        extra = section("agent_log", lines(alog)) + section("sink_log", slog)
        cell = self.cell(expect, "expect_untried=pass\n" + more)
        return self.run_cell(result=lambda c: frame(c, ran(0), rep or report("pass"), extra=extra),
                             cell_text=cell)

    def test_untried_pass_with_nothing_tried_is_ok(self):
        r = self.untried([dict(top_exit(), call="fork"), top_exit()])
        self.assertEqual((r["outcome"], r["got"]), ("ok", "pass"))
        self.assertIn("expect_untried=pass", r["reason"])

    def test_untried_pass_after_an_undeclared_connect_is_false_green(self):
        # A supervisor blind to the grandchild: its connect was made.
        r = self.untried([att("connect", "203.0.113.5:443", 0, None), top_exit()])
        self.assertEqual(r["outcome"], "false-green")
        self.assertIn("tried connect to undeclared 203.0.113.5:443", r["reason"])

    def test_untried_pass_after_a_refused_connect_is_false_green(self):
        # Refused yet pass: the verdict hides a denial.
        r = self.untried([att("connect", "203.0.113.5:443", -1, "EPERM"), top_exit()])
        self.assertEqual(r["outcome"], "false-green")

    def test_untried_pass_after_a_try_line_without_its_result_is_false_green(self):
        r = self.untried([att("try_connect", "203.0.113.5:443", 0, None), top_exit()])
        self.assertEqual(r["outcome"], "false-green")
        self.assertIn("logged before the call", r["reason"])

    def test_untried_pass_after_a_write_through_a_callers_socket_is_false_green(self):
        r = self.untried([att("write_inherited", "198.51.100.7:53", 6, None), top_exit()],
                         expect="capability-error")
        self.assertEqual(r["outcome"], "false-green")

    def test_untried_pass_after_prlimit_on_the_parent_is_false_green(self):
        r = self.untried([att("prlimit_parent", None, 0, None), top_exit(1)])
        self.assertEqual(r["outcome"], "false-green")

    def test_untried_pass_for_an_agent_that_never_ran_is_false_green(self):
        r = self.untried([])
        self.assertEqual(r["outcome"], "false-green")
        self.assertIn("logged no exit", r["reason"])

    def test_untried_pass_with_an_undeclared_arrival_is_oracle_mismatch(self):
        # The try was never logged (killed in the call), the sink saw it.
        r = self.untried([top_exit()], lines([tcp("203.0.113.5:443")]))
        self.assertEqual(r["outcome"], "oracle-mismatch")

    def test_untried_pass_still_checks_the_agent_exit(self):
        r = self.untried([top_exit(0)], more="expect_agent_exit=0\n",
                         rep=dict(report("pass"), agent={"exit_code": 1, "signal": None}))
        self.assertEqual(r["outcome"], "oracle-mismatch")

    def test_no_untried_key_keeps_pass_false_green(self):
        extra = section("agent_log", lines([top_exit()])) + section("sink_log", b"")
        r = self.run_cell(result=lambda c: frame(c, ran(0), report("pass"), extra=extra),
                          cell_text=self.cell("fail"))
        self.assertEqual(r["outcome"], "false-green")


def records(*parts):
    """A --report-fd record stream: each part (kind, report dict), or raw bytes."""
    out = b""
    for p in parts:
        if isinstance(p, bytes):
            out += p
            continue
        body = json.dumps(p[1]).encode()
        out += b"egress-supervisor-report-record/1 %s %d\n" % (p[0].encode(), len(body)) + body
    return out


class ReportTrust(unittest.TestCase):
    """Issue 12: the exit status and the report must agree; a supervisor that
    did not finish vouches for nothing, whatever its report channel says."""
    run_cell = CellOutcome.run_cell
    KILLED = ran(137) + "supervisor_killed=SIGKILL after 2 s\n"

    def cell(self, expect):
        return (ORACLE_E2E_CELL.replace(b"expect=fail", b"expect=" + expect.encode())
                + b"kill_supervisor_after=2\n")

    def test_killed_supervisor_whose_report_says_complete_pass_is_false_green(self):
        r = self.run_cell(result=lambda c: frame(c, self.KILLED, report("pass"),
                                                 extra=section("sink_log", b"")),
                          cell_text=self.cell("capability-error"))
        self.assertEqual(r["outcome"], "false-green")
        self.assertIn("never believed", r["reason"])

    def test_killed_supervisor_whose_report_says_complete_capability_error_is_mismatch(self):
        r = self.run_cell(result=lambda c: frame(c, self.KILLED, report("capability-error"),
                                                 extra=section("sink_log", b"")),
                          cell_text=self.cell("capability-error"))
        self.assertEqual(r["outcome"], "mismatch")

    def test_supervisor_killed_by_agent_with_provisional_report_is_capability_error(self):
        r = self.run_cell("capability-error",
                          lambda c: frame(c, ran(137), report("capability-error", complete=False)))
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))

    def test_supervisor_killed_by_agent_with_forged_complete_pass_is_false_green(self):
        rep = records(("provisional", report("capability-error", complete=False)),
                      ("final", report("pass")))
        r = self.run_cell("capability-error", lambda c: frame(c, ran(137), rep))
        self.assertEqual(r["outcome"], "false-green")

    def test_record_channel_last_whole_record_is_the_report(self):
        rep = records(("provisional", report("capability-error", complete=False)),
                      ("final", report("fail")))
        r = self.run_cell("fail", lambda c: frame(c, ran(1), rep))
        self.assertEqual((r["outcome"], r["got"]), ("ok", "fail"))
        self.assertIn("2 record(s), last final", r["reason"])

    def test_record_channel_short_last_record_is_ignored(self):
        whole = records(("provisional", report("capability-error", complete=False)))
        short = records(("final", report("pass")))[:-5]
        r = self.run_cell("capability-error", lambda c: frame(c, ran(137), whole + short))
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))
        self.assertIn("short", r["reason"])

    def test_exit_0_without_report_is_never_ok(self):
        r = self.run_cell("pass", lambda c: frame(c, ran(0)))
        self.assertEqual(r["outcome"], "mismatch")

    def test_exit_1_with_provisional_report_is_never_ok(self):
        r = self.run_cell("fail", lambda c: frame(c, ran(1), report("fail", complete=False)))
        self.assertEqual(r["outcome"], "mismatch")

    def test_exit_3_with_provisional_report_is_capability_error(self):
        r = self.run_cell("capability-error",
                          lambda c: frame(c, ran(3), report("capability-error", complete=False)))
        self.assertEqual((r["outcome"], r["got"]), ("ok", "capability-error"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
