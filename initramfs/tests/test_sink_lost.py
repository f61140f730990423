"""egress-sink (initramfs/guest/sink.c) when its log cannot be written: every
record it could not write whole (ENOSPC, a short write) is counted, said on
stderr ("records lost") and the sink exits 4, also when its stderr is on
the file system that failed; the guest's init turns that into infra-error
(docs/guest.md "The sink's files"). Hostile review h-attack34, finding 5:
an agent that filled the guest's one /tmp made the sink lose the record of
its undeclared arrival, and the sink exited 0.

Run natively, as root, in a network and mount namespace of its own
(`unshare -n -m`: a private lo, a private mount table) with the sink's
files on a tiny tmpfs (64 KiB) that the test fills, as the agent did. The
sink built with GUEST_MUTANT_SINK_IGNORES_LOST (the old behaviour: said on
stderr only, exit 0) must exit 0: the check can fail."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

from sinkbuild import build_sinks, require_host, start_sink


UDP4, TCP4 = ("127.0.0.1", 5311), ("127.0.0.1", 4441)
ENDPOINTS = ["udp", "127.0.0.1:5311", "tcp", "127.0.0.1:4441"]
PAGE = 4096


def fill(d):
    """Fills the tmpfs at D (what the agent did); returns the filler's path."""
    junk = os.path.join(d, "junk")
    fd = os.open(junk, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while os.write(fd, b"\0" * PAGE) == PAGE:
            pass
    except OSError:
        pass
    os.close(fd)
    return junk


def send(datagrams, connects):
    for _ in range(datagrams):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"exfiltrated", UDP4)
        s.close()
    for _ in range(connects):
        c = socket.create_connection(TCP4)
        c.sendall(b"exfiltrated\n")
        c.close()


def case_run(case, sink, d):
    """One run of the sink with its files on a 64 KiB tmpfs at D.
    room: nothing filled (control). full: the tmpfs is filled after the
    sink is ready, so every record fails (ENOSPC), its stderr elsewhere.
    full-err: the same with its stderr on the full tmpfs too. page: one
    page left free, so a record crosses the page's end (a short write)."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "sink-test", d],
                   check=True)
    err_path = os.path.join(d if case == "full-err" else os.path.dirname(d), case + ".err")
    p, log, _ = start_sink(sink, d, ENDPOINTS, err_path)
    page = None
    if case == "page":
        page = os.path.join(d, "page")
        with open(page, "wb") as f:
            f.write(b"\0" * PAGE)
    if case != "room":
        fill(d)
    if page:
        os.unlink(page)
    # A page holds about 37 datagram records: 60 overflow it.
    send(60 if case == "page" else 3, 0 if case == "page" else 2)
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=20)
    with open(log, "rb") as f:
        data = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    json.dump({"rc": rc, "log": data.decode(errors="replace"), "stderr": stderr},
              sys.stdout)


class SinkLost(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_host("a network and mount namespace and a tmpfs need CAP_SYS_ADMIN",
                     ("unshare", "ip", "mount"), ["unshare", "-n", "-m", "true"],
                     "no network and mount namespace")
        cls.tmp, cls.sinks = build_sinks("sink-lost-test.", "GUEST_MUTANT_SINK_IGNORES_LOST")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_inside(self, case, sink="sink"):
        d = tempfile.mkdtemp(dir=self.tmp)
        r = subprocess.run(["unshare", "-n", "-m", sys.executable, os.path.abspath(__file__),
                            "--inside", case, self.sinks[sink], d],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return json.loads(r.stdout)

    def test_room_records_everything_and_exits_0(self):
        out = self.run_inside("room")
        self.assertEqual((out["rc"], out["stderr"]), (0, ""))
        events = sorted(json.loads(ln)["event"] for ln in out["log"].splitlines())
        self.assertEqual(events, ["accept"] * 2 + ["datagram"] * 3 + ["end"] * 2)

    def test_full_log_is_said_and_exit_4(self):
        out = self.run_inside("full")
        self.assertEqual(out["rc"], 4, out["stderr"])
        self.assertEqual(out["log"], "")
        self.assertIn("egress-sink: cannot write a record (udp datagram 127.0.0.1:5311): "
                      "No space left on device", out["stderr"])
        # 3 datagrams, 2 accepts, 2 ends.
        self.assertIn("egress-sink: records lost: 7 record(s) could not be written",
                      out["stderr"])

    def test_full_log_with_its_stderr_there_too_is_exit_4(self):
        out = self.run_inside("full-err")
        self.assertEqual(out["rc"], 4, out["stderr"])
        self.assertEqual((out["log"], out["stderr"]), ("", ""))

    def test_short_write_is_a_lost_record(self):
        out = self.run_inside("page")
        self.assertEqual(out["rc"], 4, out["stderr"])
        self.assertIn("short write", out["stderr"])
        whole = out["log"].split("\n")[:-1]
        self.assertGreater(len(whole), 0)
        self.assertFalse(out["log"].endswith("\n"), "no torn last line: no short write made")
        lost = int(out["stderr"].split("records lost: ")[1].split()[0])
        self.assertEqual(len(whole) + lost, 60)

    def test_mutant_that_ignores_lost_records_exits_0(self):
        out = self.run_inside("full", "mutant")
        self.assertEqual(out["rc"], 0, out["stderr"])
        self.assertNotIn("records lost", out["stderr"])
        self.assertEqual(out["log"], "")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--inside":
        case_run(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        unittest.main()
