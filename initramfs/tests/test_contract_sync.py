#!/usr/bin/env python3
"""Constants the host's contract (initramfs/host/contract.py) shares with C
code it cannot import, held in step (review h-style2, item 9): a change to
one side that the other does not follow fails here, not as a wrong outcome
in a run.

    python3 -m unittest initramfs/tests/test_contract_sync.py
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "initramfs", "host"))
import contract  # noqa: E402


def read(rel):
    with open(os.path.join(TOP, rel), encoding="utf-8") as f:
        return f.read()


class ContractSync(unittest.TestCase):
    def test_sort_probe_ports_are_the_supervisors(self):
        # The oracle accepts a refused sort probe only on the ports the
        # supervisor treats as one (supervisor/call.c, sort_probe_ports).
        m = re.search(r"sort_probe_ports\[\]\s*=\s*\{([^}]*)\}", read("supervisor/call.c"))
        self.assertIsNotNone(m, "supervisor/call.c has no sort_probe_ports table")
        ports = tuple(int(x) for x in m.group(1).replace(" ", "").split(",") if x)
        self.assertEqual(tuple(sorted(ports)), tuple(sorted(contract.SORT_PROBE_PORTS)))

    def test_every_feature_is_one_the_guest_probes_and_no_other(self):
        # egress-features prints NAME=yes|no lines; the host reads the
        # names in FEATURES (requires=, the summary's per-kernel table).
        src = read("initramfs/guest/features.c")
        printed = set(re.findall(r'"([a-z_0-9]+)=(?:yes|no)', src))
        named = set(re.findall(r'\bprint_child\(\s*"([a-z_0-9]+)"', src))
        literal = set(re.findall(r'"([a-z_0-9]+)"', src))
        for f in contract.FEATURES:
            self.assertIn(f, literal | printed, "feature %s is never probed by features.c" % f)
        for f in printed | named:
            self.assertIn(f, contract.FEATURES, "features.c prints %s, which FEATURES lacks" % f)


if __name__ == "__main__":
    unittest.main()
