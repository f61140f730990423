#!/usr/bin/env python3
"""ha10-forms.py (review h-attack10): broadcast and multicast forms that
the kernel also delivers to this host.

    ha10-forms.py run SV DEST        (in a network namespace: ha10-forms.sh)
    ha10-forms.py agent DEST         (what the supervisor runs)

The agent sends "agent-secret" to DEST:9999 with an IP_PKTINFO control
message naming lo as the interface (a control message the supervisor
forwards: it sets source and interface only). A sink bound to
0.0.0.0:9999 stands for a local service on the wildcard address. Runs it
unsupervised, then under SV --no-loopback --allow DEST:9999, and prints
what the sink got and the report's verdict and events.
"""
import json
import socket
import struct
import subprocess
import sys
import time

IP_PKTINFO = 8


def agent(dest):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    info = struct.pack("=I4s4s", socket.if_nametoindex("lo"), bytes(4), bytes(4))
    try:
        n = s.sendmsg([b"agent-secret"], [(socket.IPPROTO_IP, IP_PKTINFO, info)], 0, (dest, 9999))
        print(f"agent: sendmsg {dest} -> {n}")
    except OSError as e:
        print(f"agent: sendmsg {dest} -> {e}")


def run(sv, dest):
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("0.0.0.0", 9999))
    sink.setblocking(False)
    for how in ("unsupervised", "supervised"):
        cmd = [sys.executable, __file__, "agent", dest]
        if how == "supervised":
            cmd = [sv, "--no-loopback", "--allow", f"{dest}:9999", "--report",
                   "/tmp/ha10/forms.json", "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        time.sleep(0.2)
        n = 0
        while True:
            try:
                sink.recv(100)
                n += 1
            except BlockingIOError:
                break
        line = f"{dest} {how}: {p.stdout.strip()}; sink 0.0.0.0:9999 got {n}"
        if how == "supervised":
            with open("/tmp/ha10/forms.json", encoding="utf-8") as f:
                r = json.load(f)
            ev = [(e["syscall"], e["bucket"], e["reason"], e["dest"]) for e in r["events"]
                  if e["syscall"] in ("sendmsg", "sendto", "connect")]
            line += f"; exit {p.returncode} verdict {r['verdict']} events {ev}"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "agent":
        agent(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: ha10-forms.py run SV DEST | agent DEST")
