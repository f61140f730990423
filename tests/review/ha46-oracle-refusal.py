#!/usr/bin/env python3
"""Review h-attack46 finding 2: the oracle's check 3 takes any report event
in bucket `neutralized` with a `dest` and an `errno` as a refusal
(initramfs/host/cell_result.py reported_refusals, ad83d7f), without looking
at what the agent saw. A wrong supervisor (a foreign one through its
adapter, or ours with a bug) that PERFORMS an undeclared call and writes
`bucket: neutralized, errno: EACCES` in its report is judged `ok` wherever
the destination has no sink: the very case check 3 exists for.

    python3 tests/review/ha46-oracle-refusal.py   # exit 0: every leg reproduced

Each leg prints the oracle's problems; a leg reproduces when there are none
(the oracle agreed with a report that lied). Stdlib only, no VM.
"""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "initramfs", "host"))
sys.path.insert(0, os.path.join(TOP, "initramfs", "tests"))
import oracle as O  # noqa: E402
from test_cell_result import ORACLE_CELL, att, ev, lines  # noqa: E402

DENIED_OTHER = ev("connect", "198.51.100.200:443", "denied")
LEGS = {
    # A UDP sendto to an undeclared address that has no sink: the agent saw
    # success (6 bytes), the report calls it refused.
    "sendto performed, reported neutralized+EACCES": (
        [att("sendto", "203.0.113.77:53", 6, None), att("connect", "198.51.100.200:443")],
        [ev("sendto", "203.0.113.77:53", "neutralized", reason="sort-probe"), DENIED_OTHER],
        "fail"),
    # A TCP connect (not a probe: port 443) performed: the agent's connect
    # returned 0, the report says neutralized with an errno.
    "tcp connect performed, reported neutralized+EACCES": (
        [att("connect", "203.0.113.77:443", 0, None), att("connect", "198.51.100.200:443")],
        [ev("connect", "203.0.113.77:443", "neutralized"), DENIED_OTHER],
        "fail"),
    # The probe itself let through (agent saw 0), verdict pass: udp-sort-probe
    # shaped, only the connect.
    "sort probe performed, agent saw 0, verdict pass": (
        [att("connect", "203.0.113.5:0", 0, None)],
        [ev("connect", "203.0.113.5:0", "neutralized", reason="sort-probe")],
        "pass"),
}


def main():
    reproduced = 0
    for name, (alog, events, verdict) in LEGS.items():
        sec = {"cell": ORACLE_CELL.encode(), "agent_log": lines(alog), "sink_log": b""}
        rep = {"verdict": verdict, "events": events,
               "supervisor": {"name": "foreign", "denial_errno": "EACCES"},
               "agent": {"exit_code": 0, "signal": None}}
        facts = O.oracle_evaluate(sec["cell"], sec, rep)
        problems = facts["problems"]
        print(f"{name}: problems={problems}")
        reproduced += not problems
    print(f"reproduced {reproduced} of {len(LEGS)}")
    return 0 if reproduced == len(LEGS) else 1


if __name__ == "__main__":
    sys.exit(main())
