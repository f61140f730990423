#!/usr/bin/env python3
"""ha40-ctty.py (hostile review h-attack40): the agent. Its descriptor 0 is
a terminal that is no session's controlling terminal (a harness's pty, a
serial console's getty not started yet). The supervisor made the agent a
session leader without one (spawn.c: setsid), so TIOCSCTTY with 0 takes the
terminal without any capability; TIOCSTI then types LINE and Enter into its
input queue, which the next program that reads the terminal (a shell the
harness starts there) runs, outside the run, after its verdict. Prints what
each call answered on stderr.

    ha40-ctty.py LINE [open]

With "open" it makes no TIOCSCTTY: it opens /proc/self/fd/0 again without
O_NOCTTY, which tty_open gives a session leader without a controlling
terminal as one (tty_open_proc_set_tty) when the terminal holds no
session, and types through that descriptor: a rule on TIOCSCTTY alone
does not close this.
"""
import fcntl
import os
import sys
import termios

line = sys.argv[1] + "\n"
res = {"session_leader": os.getsid(0) == os.getpid()}
fd = 0
if sys.argv[2:] == ["open"]:
    fd = os.open("/proc/self/fd/0", os.O_RDWR)
    res["reopened"] = "ok"
else:
    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        res["tiocsctty"] = "ok"
    except OSError as e:
        res["tiocsctty"] = e.strerror
try:
    for ch in line:
        fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
    res["tiocsti"] = "ok"
except OSError as e:
    res["tiocsti"] = e.strerror
print("ha40-ctty agent:", res, file=sys.stderr, flush=True)
