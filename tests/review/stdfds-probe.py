#!/usr/bin/env python3
"""stdfds-probe.py SUPERVISOR VARIANT: the third hostile review of the stdio
queue check (supervisor/stdfds.c). The caller prepares descriptor 0 as VARIANT
says, runs the supervisor with --no-loopback on this script's agent half, and
prints the supervisor's exit status, what the agent received, and how many
datagrams a loopback sink (undeclared under --no-loopback) got: a sink count
above 0 with exit 0 is a false green. Loopback only.

Variants (the UDP socket is connected to the sink and passed with SCM_RIGHTS):
  oob-consumed    stream; the socket rides an MSG_OOB byte the caller then
                  reads itself with MSG_OOB (queue length 0, skb still queued)
  oob-pending     stream; the OOB byte is left unread
  zero-stream     stream; SCM_RIGHTS with zero bytes of data
  late-send       stream, empty at the check; the caller sends 1 s later
                  (the documented relay exemption)
  late-connect    listener, empty at the check; the caller connects 1 s later
  prompt          stream with a prompt written and the writer shut down (a
                  harness's stdin): a false red if refused
  dgram-eof       datagram pair whose peer was closed, empty: a false red if
                  refused
  stdout-journal  stdout a stream connected to a listener nobody writes to
                  (journald's stdout stream): must run
"""
import array
import os
import socket
import subprocess
import sys
import time

AGENT_SRC = r"""
import array, os, socket, sys, time
got = []
end = time.time() + 3
s = socket.socket(fileno=0)
s.setblocking(False)
while time.time() < end:
    try:
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            c, _ = s.accept(); s = c; s.setblocking(False); continue
    except BlockingIOError:
        time.sleep(0.05); continue
    for flags in (0, socket.MSG_OOB):
        try:
            data, anc, fl, _ = s.recvmsg(16, socket.CMSG_SPACE(64), flags)
        except (BlockingIOError, OSError):
            continue
        for lvl, typ, blob in anc:
            if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                fds = array.array('i'); fds.frombytes(blob[:len(blob) - len(blob) % 4])
                got.extend(fds)
        if data == b"" and not anc and flags == 0 and s.type == socket.SOCK_STREAM:
            time.sleep(0.05)
    for fd in got:
        try:
            os.write(fd, b"LEAK"); print("agent: wrote through fd", fd, file=sys.stderr)
        except OSError as e:
            print("agent: write fd", fd, e, file=sys.stderr)
    if got:
        break
    time.sleep(0.05)
print("agent: received fds", got, file=sys.stderr)
"""


def rights(sock, fd, data, flags=0):
    return sock.sendmsg([data] if data else [],
                        [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))], flags)


def main():
    sv, variant = sys.argv[1], sys.argv[2]
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    sink.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.connect(sink.getsockname())
    stdin, stdout, later = None, None, None
    if variant in ("oob-consumed", "oob-pending", "zero-stream", "late-send", "prompt"):
        stdin, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        if variant == "oob-consumed":
            rights(peer, udp.fileno(), b"!", socket.MSG_OOB)
            print("caller: read own OOB", stdin.recv(1, socket.MSG_OOB))
        elif variant == "oob-pending":
            rights(peer, udp.fileno(), b"!", socket.MSG_OOB)
        elif variant == "zero-stream":
            print("caller: zero-byte sendmsg ->", rights(peer, udp.fileno(), b""))
        elif variant == "late-send":
            later = lambda: rights(peer, udp.fileno(), b"x")  # noqa: E731
        elif variant == "prompt":
            peer.sendall(b"summarise this file\n")
            peer.shutdown(socket.SHUT_WR)
    elif variant == "late-connect":
        path = "/tmp/hr3-listener.%d" % os.getpid()
        stdin = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stdin.bind(path)
        os.chmod(path, 0o777)
        stdin.listen(4)

        def later():
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(path)
            rights(c, udp.fileno(), b"x")
            later.keep = c
    elif variant == "dgram-eof":
        stdin, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        peer.close()
    elif variant == "stdout-journal":
        path = "/tmp/hr3-journal.%d" % os.getpid()
        lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lst.bind(path)
        lst.listen(1)
        stdout = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stdout.connect(path)
        acc, _ = lst.accept()
        acc.setblocking(False)
    else:
        sys.exit("unknown variant " + variant)
    prefix = os.environ.get("AS", "").split()
    proc = subprocess.Popen(prefix + [sv, "--no-loopback", "--", sys.executable, "-c", AGENT_SRC],
                            stdin=stdin.fileno() if stdin else subprocess.DEVNULL,
                            stdout=stdout.fileno() if stdout else None,
                            stderr=subprocess.PIPE)
    if later:
        time.sleep(1)
        later()
    _, err = proc.communicate(timeout=30)
    n = 0
    while True:
        try:
            sink.recv(64)
            n += 1
        except BlockingIOError:
            break
    lines = [ln for ln in err.decode(errors="replace").splitlines()
             if ln.startswith("agent:") or "descriptor" in ln or "verdict" in ln.lower()]
    print("variant %s exit %d sink %d" % (variant, proc.returncode, n))
    for ln in lines[-6:]:
        print("  " + ln[:300])


if __name__ == "__main__":
    main()
