#!/usr/bin/env python3
"""ha40-held.py (hostile review h-attack40): what held, run as the agent.

1. Every multicast membership option of fd5af76's list, through the raw
   syscall with high bits on the level and the name, on an IPv4 and an IPv6
   UDP socket (IPv4's options on the IPv6 socket too: ipv6_setsockopt hands
   SOL_IP to UDP's): a real join request for the group 239.1.2.3 / ff0e::123
   on lo. Expected: every call EACCES (denied multicast-join), none 0.
2. NETLINK_ROUTE requests that would make the kernel send or add a link
   (RTM_NEWNEIGH with NTF_USE, RTM_NEWADDR, RTM_NEWLINK of a dummy and a
   vxlan, RTM_NEWROUTE), written with write() (not trapped): expected
   EPERM from the kernel (CAP_NET_ADMIN over the host's network namespace).
Prints one line per call: NAME -> errno name or 0.
"""
import ctypes
import errno
import os
import socket
import struct

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
HI = 1 << 32
SYS_setsockopt = 54


def raw_sso(fd, level, name, buf):
    b = ctypes.create_string_buffer(buf, len(buf))
    r = libc.syscall(ctypes.c_long(SYS_setsockopt), ctypes.c_long(fd), ctypes.c_long(level),
                     ctypes.c_long(name), b, ctypes.c_long(len(buf)))
    return 0 if r == 0 else errno.errorcode.get(ctypes.get_errno(), "?")


lo = socket.if_nametoindex("lo")
g4 = socket.inet_aton("239.1.2.3")
s4 = socket.inet_aton("127.0.0.1")
g6 = socket.inet_pton(socket.AF_INET6, "ff0e::123")
mreq = g4 + s4                                   # ip_mreq
mreqn = g4 + s4 + struct.pack("i", lo)           # ip_mreqn
msrc = g4 + s4 + socket.inet_aton("192.0.2.9")  # ip_mreq_source: group, interface, source
msf = g4 + s4 + struct.pack("II", 1, 1) + socket.inet_aton("192.0.2.9")  # ip_msfilter
def ss(fam, addr):
    if fam == socket.AF_INET:
        b = struct.pack("=H", fam) + b"\0\0" + addr
    else:
        b = struct.pack("=H", fam) + b"\0\0" + b"\0" * 4 + addr + b"\0" * 4
    return b.ljust(128, b"\0")
def gr(fam, g):       # group_req: u32 ifindex, pad, sockaddr_storage
    return struct.pack("I", lo) + b"\0" * 4 + ss(fam, g)
def gsr(fam, g, s):   # group_source_req
    return struct.pack("I", lo) + b"\0" * 4 + ss(fam, g) + ss(fam, s)
src4 = socket.inet_aton("192.0.2.9")
src6 = socket.inet_pton(socket.AF_INET6, "2001:db8::9")
v4 = {35: mreqn, 36: mreq, 37: msrc, 38: msrc, 39: msrc, 40: msrc, 41: msf,
      42: gr(2, g4), 43: gsr(2, g4, src4), 44: gsr(2, g4, src4), 45: gr(2, g4),
      46: gsr(2, g4, src4), 47: gsr(2, g4, src4), 48: gr(2, g4)}
v6 = {20: g6 + struct.pack("i", lo), 21: g6 + struct.pack("i", lo),
      27: g6 + struct.pack("i", lo), 28: g6 + struct.pack("i", lo),
      42: gr(10, g6), 43: gsr(10, g6, src6), 44: gsr(10, g6, src6), 45: gr(10, g6),
      46: gsr(10, g6, src6), 47: gsr(10, g6, src6), 48: gr(10, g6)}
opened = 0
for fam, lvl, table in ((socket.AF_INET, 0, v4), (socket.AF_INET6, 41, v6), (socket.AF_INET6, 0, v4)):
    for name, buf in table.items():
        s = socket.socket(fam, socket.SOCK_DGRAM)
        r = raw_sso(s.fileno(), HI | lvl, (HI << 1) | name, buf)
        opened += r == 0
        print("setsockopt fam=%d level=HI|%d name=HI|%d -> %s" % (fam, lvl, name, r), flush=True)
        s.close()
print("memberships that took:", opened, flush=True)

# 2. rtnetlink writes
RTM_NEWLINK, RTM_NEWADDR, RTM_NEWROUTE, RTM_NEWNEIGH = 16, 20, 24, 28
NLM_F_REQUEST, NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL = 1, 4, 0x400, 0x200
def attr(t, data):
    l = 4 + len(data)
    return struct.pack("HH", l, t) + data + b"\0" * ((4 - l % 4) % 4)
def nlmsg(typ, body, flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL):
    return struct.pack("IHHII", 16 + len(body), typ, flags, 1, 0) + body
def ask(name, msg):
    n = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    n.bind((0, 0))
    os.write(n.fileno(), msg)
    rep = n.recv(65536)
    err = struct.unpack("i", rep[16:20])[0] if struct.unpack("H", rep[4:6])[0] == 2 else None
    print("rtnetlink %s -> %s" % (name, 0 if err == 0 else errno.errorcode.get(-err, err)), flush=True)
    n.close()
ifi = struct.pack("BxHiII", 0, 0, 0, 0, 0)
ask("NEWLINK dummy", nlmsg(RTM_NEWLINK, ifi + attr(3, b"ha40d\0") + attr(18, attr(1, b"dummy\0"))))
ask("NEWLINK vxlan", nlmsg(RTM_NEWLINK, ifi + attr(3, b"ha40v\0") + attr(18, attr(1, b"vxlan\0") + attr(2, attr(1, struct.pack("I", 42)) + attr(2, socket.inet_aton("203.0.113.66"))))))
ask("NEWADDR", nlmsg(RTM_NEWADDR, struct.pack("BBBBi", 2, 32, 0, 0, lo) + attr(2, socket.inet_aton("203.0.113.9")) + attr(1, socket.inet_aton("203.0.113.9"))))
ask("NEWROUTE", nlmsg(RTM_NEWROUTE, struct.pack("BBBBBBBBI", 2, 32, 0, 0, 254, 4, 0, 1, 0) + attr(1, socket.inet_aton("203.0.113.77")) + attr(4, struct.pack("i", lo))))
ask("NEWNEIGH NTF_USE", nlmsg(RTM_NEWNEIGH, struct.pack("BxxxiHBB", 2, lo, 0x02, 0x08, 1) + attr(1, socket.inet_aton("203.0.113.78")), NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE))
