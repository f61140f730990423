#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus: valid and edge-case inputs, one small
file each, in the input layout each target's header comment describes.

    make-corpus.py DIR          rewrite DIR/<target>/ (files not generated here go)
    make-corpus.py --check DIR  exit 1 unless DIR holds exactly what would be written

Deterministic: the same bytes on every run, so the tree's copy can be checked.
"""
import os
import socket
import struct
import sys

MAX_RW_COUNT = 0x7FFFF000
INT64_MAX = (1 << 63) - 1

# sockaddr target: mode byte bits. 0x04 none_if_null; bits 3-7 the outlen.
BIG_OUT = 31 << 3  # 640 bytes: always enough
AF_NETLINK = 16
AF_PACKET = 17


def sin(addr, port, length=16):
    b = struct.pack("<H", socket.AF_INET) + struct.pack(">H", port) + socket.inet_aton(addr)
    return (b + bytes(128))[:length]


def sin6(addr, port, length=28):
    b = (struct.pack("<H", socket.AF_INET6) + struct.pack(">H", port) + bytes(4)
         + socket.inet_pton(socket.AF_INET6, addr) + bytes(4))
    return (b + bytes(128))[:length]


def family(fam, rest=b""):
    return struct.pack("<H", fam) + rest


def sockaddr_seeds():
    s = {
        "inet4-declared": sin("192.0.2.1", 443),
        "inet4-short-15": sin("192.0.2.1", 443, 15),
        "inet4-max-128": sin("198.51.100.7", 80, 128),
        "inet4-loopback": sin("127.0.0.1", 8080),
        "inet6-full-28": sin6("2001:db8::1", 53),
        "inet6-rfc2133-24": sin6("2001:db8::1", 53, 24),
        "inet6-short-23": sin6("2001:db8::1", 53, 23),
        "inet6-mapped": sin6("::ffff:192.0.2.1", 443),
        "inet6-mapped-almost": sin6("::fffe:192.0.2.1", 443),
        "inet6-loopback": sin6("::1", 22),
        "unspec-2": family(socket.AF_UNSPEC),
        "unspec-16": family(socket.AF_UNSPEC, bytes(14)),
        "unix-path": family(socket.AF_UNIX, b"/tmp/agent.sock\0"),
        "unix-path-nul-inside": family(socket.AF_UNIX, b"/tmp/a\0hidden"),
        "unix-abstract": family(socket.AF_UNIX, b"\0relay\0tail"),
        "unix-unnamed": family(socket.AF_UNIX),
        "unix-escapes": family(socket.AF_UNIX, b"/t\\x\x1b[31m\x7f\xff"),
        "unix-max-ff": family(socket.AF_UNIX, b"\xff" * 126),
        "unix-abstract-max": family(socket.AF_UNIX, b"\0" + b"\x01" * 125),
        "netlink-12": family(AF_NETLINK, struct.pack("<HII", 0, 1234, 0)),
        "netlink-short-11": family(AF_NETLINK, struct.pack("<HI", 0, 1234) + b"\0\0\0"),
        "packet-20": family(AF_PACKET, bytes(18)),
        "family-ffff": family(0xFFFF),
        "len-1": b"\x02",
        "len-0": b"",
    }
    out = {}
    for name, addr in s.items():
        out[name] = bytes([BIG_OUT | 0x04]) + addr
    # Too little room for the text: the -ENOSPC path.
    out["inet6-outlen-40"] = bytes([16 << 3]) + sin6("2001:db8::1", 53)
    out["unix-outlen-5"] = bytes([5 << 3]) + family(socket.AF_UNIX, b"/tmp/x")
    out["unix-outlen-0"] = bytes([0]) + family(socket.AF_UNIX, b"/tmp/x")
    out["null-none"] = bytes([BIG_OUT | 0x04 | 0x01])
    out["null-with-length"] = bytes([BIG_OUT | 0x04 | 0x02 | 0x01]) + sin("192.0.2.1", 1)
    out["null-not-none"] = bytes([BIG_OUT | 0x01])
    return out


def msghdr(name=0, namelen=0, iov=0, iovlen=0, control=0, controllen=0, flags=0):
    return struct.pack("<QI4xQQQQI4x", name, namelen & 0xFFFFFFFF, iov, iovlen, control,
                       controllen, flags)


def iovecs(*lens):
    return b"".join(struct.pack("<QQ", 0x10000 + i * 0x1000, n) for i, n in enumerate(lens))


def msghdr_seeds():
    h = msghdr(0x1000, 16, 0x2000, 2, 0x3000, 24)
    return {
        "sendmsg-named": bytes([56]) + h + iovecs(5, 10),
        "mmsghdr": bytes([64]) + h + struct.pack("<I4x", 0) + iovecs(1),
        "null-name-negative-len": bytes([56]) + msghdr(0, -1, 0x2000, 1) + iovecs(1),
        "name-negative-len": bytes([56]) + msghdr(0x1000, -1, 0x2000, 1),
        "namelen-200-clamped": bytes([56]) + msghdr(0x1000, 200, 0x2000, 1),
        "name-len-0": bytes([56]) + msghdr(0x1000, 0, 0x2000, 1),
        "iovlen-1024": bytes([56]) + msghdr(iov=0x2000, iovlen=1024),
        "iovlen-1025": bytes([56]) + msghdr(iov=0x2000, iovlen=1025),
        "controllen-int-max": bytes([56]) + msghdr(control=0x3000, controllen=0x7FFFFFFF),
        "controllen-above-int-max": bytes([56]) + msghdr(control=0x3000, controllen=0x80000000),
        "short-55": bytes([55]) + h[:55],
        "empty": bytes([0]),
        "iov-crosses-cap": bytes([0]) + iovecs(MAX_RW_COUNT - 3, 10, 7),
        "iov-ssize-max": bytes([0]) + iovecs(INT64_MAX, 1),
        "iov-negative": bytes([0]) + iovecs(1, 1 << 63),
        "iov-64-zero": bytes([0]) + iovecs(*([0] * 64)),
    }


def cmsg(level, ctype, data, pad=True):
    b = struct.pack("<Qii", 16 + len(data), level, ctype) + data
    if pad:
        b += bytes(-len(b) % 8)
    return b


def raw_cmsg(clen, level, ctype, data=b""):
    return struct.pack("<Qii", clen, level, ctype) + data


def fds(*n):
    return struct.pack("<%di" % len(n), *n)


SOL_SOCKET, SCM_RIGHTS, SCM_CREDENTIALS, SO_MARK = 1, 1, 2, 36
IP, IP_TOS, IP_TTL, IP_PKTINFO, IP_RETOPTS = 0, 1, 2, 8, 7
IPV6, IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS, IPV6_RTHDR = 41, 50, 52, 67, 57
UDP, UDP_SEGMENT = 17, 103


def cmsg_seeds():
    rights1 = cmsg(SOL_SOCKET, SCM_RIGHTS, fds(3))
    rights2 = cmsg(SOL_SOCKET, SCM_RIGHTS, fds(4, 5))
    seeds = {
        "rights-1": rights1,
        "rights-2-and-tos": rights2 + cmsg(IP, IP_TOS, fds(0x10)),
        "inet-settings": (cmsg(IP, IP_TTL, fds(64)) + cmsg(IP, IP_PKTINFO, bytes(12))
                          + cmsg(UDP, UDP_SEGMENT, struct.pack("<H", 1200))),
        "inet6-settings": (cmsg(IPV6, IPV6_PKTINFO, bytes(20)) + cmsg(IPV6, IPV6_HOPLIMIT, fds(9))
                           + cmsg(IPV6, IPV6_TCLASS, fds(0))),
        "credentials": rights1 + cmsg(SOL_SOCKET, SCM_CREDENTIALS, fds(1, 0, 0)),
        "so-mark": cmsg(SOL_SOCKET, SO_MARK, fds(7)),
        "ip-retopts": cmsg(IP, IP_RETOPTS, bytes(8)),
        "ipv6-rthdr": cmsg(IPV6, IPV6_RTHDR, bytes(24)),
        "clen-15": raw_cmsg(15, SOL_SOCKET, SCM_RIGHTS, bytes(8)),
        "clen-past-end": raw_cmsg(40, SOL_SOCKET, SCM_RIGHTS, fds(3, 4)),
        "clen-huge": raw_cmsg(0xFFFFFFFFFFFFFFFF, SOL_SOCKET, SCM_RIGHTS, fds(3)),
        "rights-empty-16": raw_cmsg(16, SOL_SOCKET, SCM_RIGHTS) + rights1,
        "rights-no-whole-int-19": raw_cmsg(19, SOL_SOCKET, SCM_RIGHTS, b"\1\2\3\0\0\0\0\0"),
        "rights-253": cmsg(SOL_SOCKET, SCM_RIGHTS, fds(*range(253))),
        "rights-254": cmsg(SOL_SOCKET, SCM_RIGHTS, fds(*range(254))),
        "rights-200-and-60": (cmsg(SOL_SOCKET, SCM_RIGHTS, fds(*range(200)))
                              + cmsg(SOL_SOCKET, SCM_RIGHTS, fds(*range(60)))),
        "trailing-short": rights1 + bytes(8),
        "unpadded-last": rights2 + cmsg(SOL_SOCKET, SCM_RIGHTS, fds(6), pad=False),
        "short-15": bytes(15),
        "empty": b"",
    }
    out = {name: bytes([0, 0]) + b for name, b in seeds.items()}
    out["callback-fails-first"] = bytes([1, 0]) + rights1 + rights2
    out["callback-fails-second"] = bytes([2, 0]) + rights1 + rights2 + rights1
    out["no-callback"] = bytes([0, 1]) + rights2 + cmsg(IP, IP_TOS, fds(1))
    return out


def dest(sel, addr=b"", port=0):
    return bytes([sel]) + (addr + bytes(16))[:16] + struct.pack("<H", port)


def v4(a):
    return socket.inet_aton(a)


def v6(a):
    return socket.inet_pton(socket.AF_INET6, a)


def policy_seeds():
    rules = "192.0.2.0/24:443\n[2001:db8::]/32:1000-2000\n198.51.100.7\n[2001:db8::1]:53"
    dests = (dest(0, v4("192.0.2.9"), 443) + dest(0, v4("192.0.2.9"), 444)
             + dest(0, v4("192.0.3.9"), 443) + dest(1, v6("2001:db8:1::5"), 1500)
             + dest(1, v6("2001:db9::5"), 1500) + dest(2, bytes(12) + v4("198.51.100.7"), 9)
             + dest(0, v4("127.1.2.3"), 1) + dest(1, v6("::1"), 65535)
             + dest(3, v4("192.0.2.9"), 443) + dest(4 | 8, bytes(16), 0)
             + dest(5 | 16, bytes(16), 77))
    errors = [
        "192.0.2.1/24", "[::ffff:192.0.2.1]", "[::ffff:192.0.2.0]/120", "2001:db8::1",
        "2001:db8::1/64", "[192.0.2.1]", "192.0.2.0/33", "[2001:db8::]/129", ":80",
        "/8", "192.0.2.1:0", "192.0.2.1:70000", "192.0.2.1:2000-1000", "192.0.2.1:",
        "192.0.2.1:1-", "192.0.2.1/", "[2001:db8::1", "[]", "192.0.2.1x", "192.0.2.1:80x",
        "1" * 200, "\x01\x1b[31m\x7f", "192.0.2.1:99999999999999999999",
    ]
    edge = "0.0.0.0/0\n[::]/0\n[::]/0:1-65535\n127.0.0.1:1\n192.0.2.255/32:65535"
    out = {
        "rules-and-dests": bytes([0x01 | 7 << 1]) + rules.encode() + b"\0" + dests,
        "rules-no-loopback": bytes([7 << 1]) + rules.encode() + b"\0" + dests,
        "edge-rules": bytes([0x01 | 7 << 1]) + edge.encode() + b"\0" + dests,
        "one-rule": bytes([7 << 1]) + b"192.0.2.0/24",
    }
    for i, spec in enumerate(errors):
        out["error-%02d" % i] = bytes([(i % 8) << 1]) + spec.encode("latin-1")
    return out


SEEDS = {
    "sockaddr": sockaddr_seeds,
    "msghdr": msghdr_seeds,
    "cmsg": cmsg_seeds,
    "policy": policy_seeds,
}


def wanted():
    return {(t, name): data for t, make in SEEDS.items() for name, data in make().items()}


def present(top):
    have = {}
    for t in SEEDS:
        d = os.path.join(top, t)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, name), "rb") as f:
                have[(t, name)] = f.read()
    return have


def main(argv):
    check = argv[1:2] == ["--check"]
    args = argv[2:] if check else argv[1:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = args[0]
    want = wanted()
    if check:
        have = present(top)
        bad = sorted(set(want) ^ set(have)) + sorted(k for k in want if have.get(k, want[k]) != want[k])
        for t, name in bad:
            print("corpus differs from make-corpus.py: %s/%s" % (t, name))
        return 1 if bad else 0
    for t, name in present(top):
        if (t, name) not in want:
            os.unlink(os.path.join(top, t, name))
    for (t, name), data in sorted(want.items()):
        os.makedirs(os.path.join(top, t), exist_ok=True)
        with open(os.path.join(top, t, name), "wb") as f:
            f.write(data)
    print("%d seed files in %s" % (len(want), top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
