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
fail.

The repair (rs_net_repair) puts back what a cell added: addresses and the
routes that went with them, and routes of its own (dont-route's unreachable
host route and its fallback default route, an IPv6 route), so that such a
cell can share a boot; a boot route the cell deleted is not put back, and
the read-back differs. GUEST_MUTANT_ROUTES_KEPT leaves the cell's routes.
Qdiscs of every link likewise (a clsact qdisc and its filters, a root qdisc
on lo in place of noqueue: netlink-deputy's kind); GUEST_MUTANT_QDISC_BLIND
does not dump them, so a clsact qdisc left behind goes unseen. A route is
every attribute but the kernel's counters (GUEST_MUTANT_ROUTE_ALLOWLIST:
the allow-list that left out RTA_ENCAP and RTA_FLOW)."""
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

    def repaired(self, changes, *defines):
        """(boot, after the repair, what it said) for CHANGES made after the
        boot's snapshot in a namespace of its own."""
        binary = os.path.join(self.tmp, "snap")
        build(binary, *defines)
        script = ("set -e\nip link set lo up\n\"$1\" >\"$2/boot\"\n" + changes +
                  "\"$1\" repair \"$2/boot\" >\"$2/after\" 2>\"$2/done\"\n")
        subprocess.run(["unshare", "-n", "sh", "-c", script, "sh", binary, self.tmp], check=True)
        with open(os.path.join(self.tmp, "boot")) as b, \
                open(os.path.join(self.tmp, "after")) as a, \
                open(os.path.join(self.tmp, "done")) as d:
            return b.read(), a.read(), d.read()

    ROUTES = ("ip addr add 192.0.2.9/24 dev lo\n"
              "ip route add unreachable 198.51.100.7/32\n"
              "ip route add default dev lo metric 500\n"
              "ip -6 route add 2001:db8:5::/64 dev lo\n"
              "ip route add 203.0.113.0/24 dev lo table 7\n")

    def test_routes_a_cell_added_are_removed(self):
        boot, after, done = self.repaired(self.ROUTES)
        self.assertEqual(boot, after, done)
        self.assertIn("192.0.2.9", done)
        self.assertIn("198.51.100.7", done)
        self.assertNotIn("(refused)", done)

    def test_a_boot_route_deleted_is_not_put_back(self):
        boot, after, done = self.repaired("ip -6 route del local ::1 table local\n")
        self.assertNotEqual(boot, after, done)

    CHANGED = ("ip route replace local 127.0.0.1 dev lo table local realm 5 proto kernel "
               "scope host src 127.0.0.1\n")

    def test_a_boot_route_changed_in_an_attribute_ip_shows_is_not_taken_for_the_boot(self):
        # Review h-attack60 finding 2: a boot route replaced with a seg6
        # encapsulation (here a realm, RTA_FLOW: built in everywhere) read
        # as the boot's. It is a route the boot did not have now, deleted,
        # and the boot's is missing: the read-back differs.
        boot, after, done = self.repaired(self.CHANGED)
        self.assertNotEqual(boot, after, done)
        self.assertIn("127.0.0.1", done)

    def test_route_allowlist_build_takes_it_for_the_boot(self):
        boot, after, done = self.repaired(self.CHANGED, "-DGUEST_MUTANT_ROUTE_ALLOWLIST")
        self.assertEqual(boot, after, done)

    def test_routes_kept_build_leaves_them(self):
        boot, after, done = self.repaired(self.ROUTES, "-DGUEST_MUTANT_ROUTES_KEPT")
        self.assertNotEqual(boot, after, done)
        self.assertIn("198.51.100.7", after)

    QDISCS = ("tc qdisc add dev lo clsact\n"
              "tc filter add dev lo egress u32 match u32 0 0 classid 1:1\n"
              "tc qdisc replace dev lo root pfifo\n")

    def test_qdiscs_a_cell_added_are_removed_with_their_filters(self):
        if not shutil.which("tc"):
            self.skipTest("needs iproute2's tc")
        boot, after, done = self.repaired(self.QDISCS)
        self.assertEqual(boot, after, done)
        self.assertIn("1=clsact", done)
        self.assertIn("1=pfifo", done)

    def test_qdisc_blind_build_does_not_see_them(self):
        if not shutil.which("tc"):
            self.skipTest("needs iproute2's tc")
        boot, after, done = self.repaired("tc qdisc add dev lo clsact\n",
                                          "-DGUEST_MUTANT_QDISC_BLIND")
        self.assertEqual(boot, after, done)
        self.assertNotIn("clsact", done)

    def test_blind_build_does_not_see_them(self):
        before, after = self.snapshots("-DGUEST_MUTANT_NET_PROXY_BLIND")
        self.assertEqual(before, after)


if __name__ == "__main__":
    unittest.main()
