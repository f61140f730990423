#!/usr/bin/env python3
"""rerun2 sink: TCP and UDP listeners on loopback; every byte received is logged
with the address it arrived at.  127.0.0.2:7000 is the declared destination,
everything else is undeclared."""
import socket, selectors, sys, time
log = open(sys.argv[1], "a", buffering=1)
sel = selectors.DefaultSelector()
def tcp(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(addr); s.listen(128); s.setblocking(False); sel.register(s, selectors.EVENT_READ, ("L", addr))
def udp(fam, addr):
    s = socket.socket(fam, socket.SOCK_DGRAM); s.bind(addr); s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, ("U", addr))
tcp(socket.AF_INET, ("127.0.0.1", 7001)); tcp(socket.AF_INET6, ("::1", 7001)); tcp(socket.AF_INET, ("127.0.0.2", 7000))
udp(socket.AF_INET, ("127.0.0.1", 7002)); udp(socket.AF_INET, ("127.0.0.2", 7000))
for extra in sys.argv[2:]:
    h, p = extra.rsplit(":", 1); tcp(socket.AF_INET6 if ":" in h else socket.AF_INET, (h, int(p)))
print("ready", flush=True)
while True:
    for key, _ in sel.select():
        kind, addr = key.data; s = key.fileobj
        if kind == "L":
            c, peer = s.accept(); c.setblocking(False); sel.register(c, selectors.EVENT_READ, ("C", addr))
            log.write(f"{time.time():.3f} tcp-connect at={addr[0]}:{addr[1]} from={peer[0]}\n")
        elif kind == "C":
            try: d = s.recv(65536)
            except OSError: d = b""
            if not d: sel.unregister(s); s.close(); continue
            log.write(f"{time.time():.3f} tcp-data at={addr[0]}:{addr[1]} bytes={d[:60]!r}\n")
        else:
            d, peer = s.recvfrom(65536)
            log.write(f"{time.time():.3f} udp-data at={addr[0]}:{addr[1]} from={peer[0]} bytes={d[:60]!r}\n")
