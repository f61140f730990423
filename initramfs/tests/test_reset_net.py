"""The batch reset's network snapshot (initramfs/guest/reset_net.c) sees
what a process with CAP_NET_ADMIN in init's namespace may leave between
cells (a foreign supervisor's set-up, a service): proxy neighbour entries,
which answer for an address on the link (an IPv6 one also joins lo to a
multicast group), and nexthop objects, which routes may name. Review
h-attack46 (finding 3): neither was dumped, so the snapshot was the same
with them and the next cell ran on them.

Run natively, as root, in a network namespace of its own (`unshare -n`), on
this host's kernel, with iproute2's `ip`. The source built with
GUEST_MUTANT_NET_PROXY_BLIND (neither dump) must see nothing: the check can
fail."""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = os.path.join(HERE, "..", "guest")

SCRIPT = """
set -e
ip link set lo up
"$1" >"$2/before"
ip neigh add proxy 192.0.2.8 dev lo
ip -6 neigh add proxy 2001:db8::8 dev lo
ip nexthop add id 7 blackhole
"$1" >"$2/after"
"""


def build(out, *defines):
    cc = shutil.which("gcc") or shutil.which("cc")
    subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-O1", "-I", GUEST, *defines, "-o", out,
                    os.path.join(HERE, "reset-net-snap.c"), os.path.join(GUEST, "reset_net.c"),
                    os.path.join(GUEST, "reset_util.c")], check=True)


class ResetNet(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("unshare"):
            self.skipTest("needs root, iproute2's ip and unshare")
        self.tmp = tempfile.mkdtemp(prefix="reset-net-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def snapshots(self, *defines):
        binary = os.path.join(self.tmp, "snap")
        build(binary, *defines)
        subprocess.run(["unshare", "-n", "sh", "-c", SCRIPT, "sh", binary, self.tmp], check=True)
        with open(os.path.join(self.tmp, "before")) as b, open(os.path.join(self.tmp, "after")) as a:
            return b.read(), a.read()

    def test_proxy_neighbours_and_nexthops_change_the_snapshot(self):
        before, after = self.snapshots()
        added = set(after.splitlines()) - set(before.splitlines())
        self.assertTrue(any(line.startswith("nexthop ") for line in added), added)
        self.assertEqual(sum(line.startswith("neigh ") and " flags=8 " in line for line in added), 2,
                         added)

    def test_blind_build_does_not_see_them(self):
        before, after = self.snapshots("-DGUEST_MUTANT_NET_PROXY_BLIND")
        self.assertEqual(before, after)


if __name__ == "__main__":
    unittest.main()
