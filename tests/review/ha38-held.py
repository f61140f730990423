"""ha38-held.py (hostile review h-attack38): the socket-level oddities that
held, run as the agent under the supervisor (`ha38-held.sh`). Each probe
tries to get "agent-secret" to UNDECLARED (127.0.0.2:9999) without a name
the supervisor judges, or through an inbound peer, and prints what the
calls answered; the caller's sink on UNDECLARED counts what arrived.

    ha38-held.py DECLARED_PORT    (DECLARED is 127.0.0.1:DECLARED_PORT)
"""
import errno
import os
import socket
import sys
import threading  # noqa: F401 (kept as the review ran it)
import time

U = ("127.0.0.2", 9999)
D = ("127.0.0.1", int(sys.argv[1]))
MSG = b"agent-secret"


def probe(name, fn):
    try:
        r = fn()
        print("held-probe %-28s -> %r" % (name, r), flush=True)
    except (OSError, AttributeError) as e:
        print("held-probe %-28s -> %s" % (name, errno.errorcode.get(getattr(e, "errno", None), e)), flush=True)


def tcp_repair():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, 19, 1)  # TCP_REPAIR: connect without a SYN
    s.connect(U)
    return s.send(MSG)


def socketpair_inet():
    a, b = socket.socketpair(socket.AF_INET, socket.SOCK_STREAM)
    return a.send(MSG)


def ip_transparent():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, 19, 1)  # IP_TRANSPARENT
    return "set"


def fastopen_connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, 30, 1)  # TCP_FASTOPEN_CONNECT
    s.connect(U)
    return s.send(MSG)


def sendfile_unconnected():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r, w = os.pipe()
    os.write(w, MSG)
    return os.splice(r, s.fileno(), len(MSG))


def cork_then_other():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"declared-part ", socket.MSG_MORE, D)
    s.sendto(MSG, U)  # judged: denied; the cork keeps DECLARED
    return "sent"


def cork_connect_other():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"declared-part ", socket.MSG_MORE, D)
    s.connect(U)  # denied
    return s.send(MSG)


def addrform():
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.connect(("::ffff:127.0.0.1", D[1]))
    s.setsockopt(socket.IPPROTO_IPV6, 1, socket.AF_INET)  # IPV6_ADDRFORM
    s.sendto(MSG, U)  # judged
    return s.send(MSG)


def disconnect_then_write():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(D)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    sa = (ctypes.c_char * 16)(*([0] * 16))  # AF_UNSPEC
    libc.connect(s.fileno(), sa, 16)
    return os.write(s.fileno(), MSG)


def listen_wildcard_accept():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 0))
    s.listen(1)
    return "listening on %r" % (s.getsockname(),)


def reuseport_on_declared():
    # A second listener beside a loopback one of the run's own, bound
    # with SO_REUSEPORT to the same port, wildcard: the bind itself must
    # fail (a wildcard bind over a specific one with REUSEPORT needs the
    # same uid and both flags) or the listen is judged.
    a = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    a.bind(("127.0.0.1", 0))
    port = a.getsockname()[1]
    b = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    b.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    b.bind(("0.0.0.0", port))
    b.listen(1)
    return "wildcard listener on %d" % port


def udp_reply_pktinfo():
    # An undeclared peer writes first to a wildcard UDP socket; the agent
    # answers with sendmsg (name judged) and with IP_PKTINFO (judged too).
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 0))
    return s.sendmsg([MSG], [(socket.IPPROTO_IP, 8, bytes(12))], 0, U)


def zerocopy_gso():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 60, 1)  # SO_ZEROCOPY
    s.connect(D)
    return s.sendmsg([MSG], [(socket.SOL_UDP, 103, (4).to_bytes(2, "little"))], 0x4000000, U)


for n, f in [("TCP_REPAIR", tcp_repair), ("socketpair(AF_INET)", socketpair_inet),
             ("IP_TRANSPARENT", ip_transparent), ("TCP_FASTOPEN_CONNECT", fastopen_connect),
             ("splice into unconnected UDP", sendfile_unconnected), ("cork, then other", cork_then_other),
             ("cork, connect other", cork_connect_other), ("IPV6_ADDRFORM", addrform),
             ("AF_UNSPEC then write", disconnect_then_write), ("listen wildcard", listen_wildcard_accept),
             ("SO_REUSEPORT wildcard", reuseport_on_declared), ("IP_PKTINFO reply", udp_reply_pktinfo),
             ("MSG_ZEROCOPY + UDP_SEGMENT", zerocopy_gso)]:
    probe(n, f)
time.sleep(0.2)
