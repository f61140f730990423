"""egress-sink (initramfs/guest/sink.c) keeps its UDP endpoints to itself: a
second socket of another uid that sets SO_REUSEADDR cannot bind the same
address and port, so every datagram sent there is the sink's to record.
Hostile review h-attack71 (tests/review/ha71-guest.sh): the sink set
SO_REUSEADDR on every endpoint, so the agent (bind is never trapped) bound a
UDP endpoint beside it with SO_REUSEADDR, the kernel handed each later
datagram to the newest socket, the agent's, and the sink recorded none: an
undeclared arrival left the cell ok (root 5 of 5 on debian-6.1-cloud).

Run natively, as root, in a network namespace of its own (`unshare -n`: a
private lo) with a thief of uid 1000, on IPv4 and IPv6. The sink built with
GUEST_MUTANT_SINK_UDP_REUSEADDR (the old behaviour) lets the thief bind and
loses the datagrams, and the test checks that it does."""
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

V4, V6 = ("192.0.2.1", 5312), ("2001:db8::1", 5312)
TCP4 = ("192.0.2.1", 4442)
ENDPOINTS = ["udp", "192.0.2.1:5312", "udp", "[2001:db8::1]:5312", "tcp", "192.0.2.1:4442"]


def thief_bind(fam, addr):
    """A socket of uid 1000 with SO_REUSEADDR bound to ADDR: (socket or
    None, errno name)."""
    s = socket.socket(fam, socket.SOCK_DGRAM if addr != TCP4 else socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(addr)
    except OSError as e:
        s.close()
        return None, os.strerror(e.errno)
    return s, "bound"


def inside(sink, d):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", "192.0.2.1/32", "dev", "lo"], check=True)
    subprocess.run(["ip", "-6", "addr", "add", "2001:db8::1/128", "dev", "lo", "nodad"],
                   check=True)
    p, log, err_path = start_sink(sink, d, ENDPOINTS)
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.setgroups([])
        os.setgid(1000)
        os.setuid(1000)
        held = []
        res = {}
        for name, fam, addr in (("v4", socket.AF_INET, V4), ("v6", socket.AF_INET6, V6),
                                ("tcp", socket.AF_INET, TCP4)):
            s, res[name] = thief_bind(fam, addr)
            held.append(s)
        os.write(wr, json.dumps(res).encode())
        os.close(wr)
        signal.pause()
        os._exit(0)
    os.close(wr)
    with os.fdopen(rd, "rb") as f:
        binds = json.loads(f.read())
    for fam, addr in ((socket.AF_INET, V4), (socket.AF_INET6, V6)):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        for _ in range(3):
            s.sendto(b"exfiltrated", addr)
        s.close()
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=20)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    with open(log, "rb") as f:
        data = f.read().decode(errors="replace")
    with open(err_path, "rb") as f:
        stderr = f.read().decode(errors="replace")
    datagrams = [json.loads(ln)["dest"] for ln in data.splitlines()
                 if json.loads(ln).get("event") == "datagram"]
    json.dump({"rc": rc, "stderr": stderr, "binds": binds, "datagrams": datagrams}, sys.stdout)


class SinkSteal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_host("a network namespace needs CAP_SYS_ADMIN", ("unshare", "ip"),
                     ["unshare", "-n", "true"], "no network namespace")
        cls.tmp, cls.sinks = build_sinks("sink-steal-test.", "GUEST_MUTANT_SINK_UDP_REUSEADDR")
        os.chmod(cls.tmp, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_inside(self, sink):
        d = tempfile.mkdtemp(dir=self.tmp)
        r = subprocess.run(["unshare", "-n", sys.executable, os.path.abspath(__file__),
                            "--inside", self.sinks[sink], d],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return json.loads(r.stdout)

    def test_no_other_socket_binds_an_endpoint_and_every_datagram_is_recorded(self):
        out = self.run_inside("sink")
        self.assertEqual((out["rc"], out["stderr"]), (0, ""))
        self.assertEqual(out["binds"], {"v4": "Address already in use",
                                        "v6": "Address already in use",
                                        "tcp": "Address already in use"})
        self.assertEqual(sorted(out["datagrams"]),
                         ["192.0.2.1:5312"] * 3 + ["[2001:db8::1]:5312"] * 3)

    def test_mutant_with_reuseaddr_loses_the_datagrams_to_the_thief(self):
        out = self.run_inside("mutant")
        self.assertEqual(out["binds"], {"v4": "bound", "v6": "bound",
                                        "tcp": "Address already in use"})
        self.assertEqual(out["datagrams"], [])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--inside":
        inside(sys.argv[2], sys.argv[3])
    else:
        unittest.main()
