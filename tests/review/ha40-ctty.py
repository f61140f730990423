#!/usr/bin/env python3
"""ha40-ctty.py (hostile review h-attack40): the agent. Its descriptor 0 is
a terminal that is no session's controlling terminal (a harness's pty, a
serial console's getty not started yet). The supervisor made the agent a
session leader without one (spawn.c: setsid), so TIOCSCTTY with 0 takes the
terminal without any capability; TIOCSTI then types LINE and Enter into its
input queue, which the next program that reads the terminal (a shell the
harness starts there) runs, outside the run, after its verdict. Prints what
each call answered on stderr.

    ha40-ctty.py LINE
"""
import fcntl
import os
import sys
import termios

line = sys.argv[1] + "\n"
res = {"session_leader": os.getsid(0) == os.getpid()}
try:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    res["tiocsctty"] = "ok"
except OSError as e:
    res["tiocsctty"] = e.strerror
try:
    for ch in line:
        fcntl.ioctl(0, termios.TIOCSTI, ch.encode())
    res["tiocsti"] = "ok"
except OSError as e:
    res["tiocsti"] = e.strerror
print("ha40-ctty agent:", res, file=sys.stderr, flush=True)
