"""egress-sink's stop (initramfs/guest/sink.c): it waits for its own marker to
come back over lo before it drains, so what was still queued on lo when it
was told to stop is recorded all the same. Run natively, as root, in a
network namespace of its own (`unshare -n`: a private lo, nothing else)
whose lo has a token bucket (tbf) in front of it, so packets really are
still queued when the stop comes, for hundreds of milliseconds, where in a
guest they are queued for microseconds: what the guest's timing could hide,
the bucket shows every time. The sink built with GUEST_MUTANT_SINK_NO_MARKER
(drain at once, as the guest did after its fixed sleep) must lose some of
it: the check can fail."""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import sinkbuild
from sinkbuild import build_sinks, require_host


TCP4, TCP6 = ("127.0.0.1", 4431), ("::1", 4432)
UDP4, UDP6 = ("127.0.0.1", 5301), ("::1", 5302)
DISCARD = ("127.0.0.1", 5399)  # the filler's own socket: no endpoint of the sink
ENDPOINTS = ["tcp", "127.0.0.1:4431", "tcp", "[::1]:4432", "udp", "127.0.0.1:5301",
             "udp", "[::1]:5302"]
# 1000 bytes a second, a bucket of 1600: the first filler empties it, the
# second queues ~0.3 s, and every packet after it waits its own size in ms.
TBF = ["tbf", "rate", "8kbit", "burst", "1600", "latency", "30s"]


def sh(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def start_sink(sink, d):
    return sinkbuild.start_sink(sink, d, ENDPOINTS)


def stop_sink(p, log, err):
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=10)
    with open(log) as f:
        records = [json.loads(line) for line in f]
    with open(err) as f:
        return {"rc": rc, "records": records, "stderr": f.read()}


def connect(addr, family):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.connect(addr)
    return s


def late_arrivals(sink, d):
    """Everything the sink is to record, most of it still queued on lo when
    the sink gets SIGTERM: a handshake's last ACK (the accept), data on two
    established connections (v4, v6) and a datagram to each UDP endpoint."""
    p, log, err = start_sink(sink, d)
    c1 = connect(TCP4, socket.AF_INET)
    c6 = connect(TCP6, socket.AF_INET6)
    sh("tc", "qdisc", "add", "dev", "lo", "root", *TBF)
    filler = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    filler.bind(DISCARD)
    filler.sendto(b"f" * 1200, DISCARD)
    filler.sendto(b"f" * 600, DISCARD)
    # The SYN queues behind the filler, the SYN-ACK and the client's ACK
    # behind nothing but the empty bucket: connect returns with the ACK
    # still queued, then the rest queues behind it.
    c3 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c3.setblocking(False)
    c3.connect_ex(TCP4)
    if not select.select([], [c3], [], 10)[1] or c3.getsockopt(socket.SOL_SOCKET,
                                                              socket.SO_ERROR):
        raise RuntimeError("the third connection was not made")
    u4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u4.sendto(b"late4", UDP4)
    u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u6.sendto(b"late6", UDP6)
    c1.send(b"late-tcp4")
    c6.send(b"late-tcp6!")
    # The sender is done (as the agent is gone when init stops the sink).
    for s in (c1, c6, c3, u4, u6):
        s.close()
    t0 = time.monotonic()
    out = stop_sink(p, log, err)
    out["stop_ms"] = round((time.monotonic() - t0) * 1000)
    return out


def unproven(sink, d):
    """The marker held back longer than the sink's bound (2 s): behind 4 s
    of filler. The sink must say so and exit 3, and still drain."""
    p, log, err = start_sink(sink, d)
    sh("tc", "qdisc", "add", "dev", "lo", "root", *TBF)
    filler = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    filler.bind(DISCARD)
    for _ in range(5):
        filler.sendto(b"f" * 1000, DISCARD)
    return stop_sink(p, log, err)


def inside(case, sink, d):
    """Runs in the new network namespace: lo up, a small MTU (tbf drops a
    packet larger than its bucket, and lo's is 64 KiB)."""
    sh("ip", "link", "set", "lo", "mtu", "1280", "up")
    out = {"late": late_arrivals, "unproven": unproven}[case](sink, d)
    json.dump(out, sys.stdout)


def summary(records):
    """What the oracle reads (accepts and datagrams, by destination) and the
    bytes each connection's end record gives."""
    arrivals = sorted((r["event"], r["dest"], r["bytes"]) for r in records
                      if r["event"] in ("accept", "datagram"))
    ends = sorted((r["dest"], r["bytes"]) for r in records if r["event"] == "end")
    return arrivals, ends


WANT_ARRIVALS = sorted([("accept", "127.0.0.1:4431", 0), ("accept", "127.0.0.1:4431", 0),
                        ("accept", "[::1]:4432", 0), ("datagram", "127.0.0.1:5301", 5),
                        ("datagram", "[::1]:5302", 5)])
WANT_ENDS = sorted([("127.0.0.1:4431", 9), ("127.0.0.1:4431", 0), ("[::1]:4432", 10)])


class SinkStop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_host("a network namespace and a qdisc on its lo need CAP_SYS_ADMIN and "
                     "CAP_NET_ADMIN", ("unshare", "ip", "tc"),
                     ["unshare", "-n", "tc", "qdisc", "add", "dev", "lo", "root"] + TBF,
                     "no tbf qdisc in a new network namespace")
        cls.tmp, cls.sinks = build_sinks("sink-stop-test.", "GUEST_MUTANT_SINK_NO_MARKER")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_inside(self, case, sink):
        d = tempfile.mkdtemp(dir=self.tmp)
        r = subprocess.run(["unshare", "-n", sys.executable, os.path.abspath(__file__),
                            "--inside", case, self.sinks[sink], d],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        return json.loads(r.stdout)

    def test_stop_records_what_was_still_queued_on_lo(self):
        out = self.run_inside("late", "sink")
        arrivals, ends = summary(out["records"])
        self.assertEqual(out["rc"], 0, out["stderr"])
        self.assertEqual(out["stderr"], "")
        self.assertEqual(arrivals, WANT_ARRIVALS)
        self.assertEqual(ends, WANT_ENDS)

    def test_stop_without_the_marker_loses_what_was_queued(self):
        out = self.run_inside("late", "mutant")
        arrivals, ends = summary(out["records"])
        self.assertEqual(out["rc"], 0, out["stderr"])
        self.assertNotEqual((arrivals, ends), (WANT_ARRIVALS, WANT_ENDS),
                            f"the mutant drained everything in {out['stop_ms']} ms: this "
                            "test no longer shows what the marker is for")

    def test_marker_not_back_within_the_bound_is_said_and_exit_3(self):
        out = self.run_inside("unproven", "sink")
        self.assertEqual(out["rc"], 3, out["stderr"])
        self.assertIn("egress-sink: stop unproven: the stop marker did not come back "
                      "within 2000 ms", out["stderr"])


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--inside":
        inside(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        unittest.main()
