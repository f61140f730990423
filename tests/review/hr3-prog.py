#!/usr/bin/python3
"""hr3-prog.py MODE HOST PORT: python asyncio programs for review h-realprog3.

Prints "OK ..." and exits 0 when the program's own work succeeded, else 1.
"""
import asyncio
import os  # noqa: F401 (kept as the review ran it)
import socket
import subprocess  # noqa: F401 (kept as the review ran it)
import sys


async def he(host, port):
    # Happy eyeballs over every address of HOST (asyncio's own, interleaved, 10 ms delay).
    r, w = await asyncio.wait_for(asyncio.open_connection(host, port, happy_eyeballs_delay=0.01, interleave=1), 10)
    w.write(b"GET /f.txt HTTP/1.0\r\n\r\n")
    body = await r.read()
    w.close()
    status = body.split(b"\r\n")[0].decode()
    return f"{w.get_extra_info('peername')[0]} {status}"


async def dgram(host, port):
    loop = asyncio.get_running_loop()
    got = loop.create_future()

    class P(asyncio.DatagramProtocol):
        def datagram_received(self, d, a):
            if not got.done():
                got.set_result(d)

        def error_received(self, e):
            if not got.done():
                got.set_exception(e)

    t, _ = await loop.create_datagram_endpoint(P, local_addr=("::1" if ":" in host else "127.0.0.1", 0))
    t.sendto(b"unconnected", (host, port))
    d1 = await asyncio.wait_for(got, 5)
    t.close()
    got = loop.create_future()
    t, _ = await loop.create_datagram_endpoint(P, remote_addr=(host, port))
    t.sendto(b"connected")
    d2 = await asyncio.wait_for(got, 5)
    t.close()
    return f"{d1} {d2}"


async def sock_api(host, port):
    loop = asyncio.get_running_loop()
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setblocking(False)
    await loop.sock_connect(s, (host, port))
    await loop.sock_sendall(s, b"x" * 300000)
    n = 0
    while n < 300000:
        n += len(await loop.sock_recv(s, 65536))
    s.close()
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.setblocking(False)
    await loop.sock_sendto(u, b"sock_sendto", (host, port))
    d, _ = await asyncio.wait_for(loop.sock_recvfrom(u, 100), 5)
    u.close()
    return f"{n} {d}"


async def subproc_fd(host, port):
    # A connected socket passed to a child by inheritance (pass_fds), the child writes to it.
    r, w = await asyncio.open_connection(host, port)
    fd = w.get_extra_info("socket").fileno()
    p = await asyncio.create_subprocess_exec(sys.executable, "-c",
                                             f"import os; os.write({fd}, b'from-child')", pass_fds=[fd])
    await p.wait()
    d = await asyncio.wait_for(r.read(10), 5)
    w.close()
    return d.decode()


MODES = {"he": he, "dgram": dgram, "sock-api": sock_api, "subproc-fd": subproc_fd}

if __name__ == "__main__":
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        print("OK", mode, asyncio.run(MODES[mode](host, port)))
    except Exception as e:  # the program's own failure, reported as its exit status
        print("ERR", mode, type(e).__name__, e)
        sys.exit(1)
