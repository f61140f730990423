#!/usr/bin/env python3
"""tostop.py SV: a supervisor run as a background job of a terminal session
(`sv ... &` from an interactive shell). The agent (python, uid of the caller)
sets TOSTOP on the terminal it inherited on stderr (not its controlling
terminal: no permission check), so the supervisor's verdict line on stderr
stops it with SIGTTOU. Prints the supervisor's state 3 s later."""
import os
import pty
import sys
import time

AGENT = ("import termios,time; a=termios.tcgetattr(2); a[3]|=termios.TOSTOP; "
         "termios.tcsetattr(2,termios.TCSANOW,a); print('agent: TOSTOP set')")
pid, master = pty.fork()
if pid == 0:
    # session leader with the pty as controlling terminal: a shell
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.setpgid(0, 0)  # a background job
        os.execv(sys.argv[1], [sys.argv[1], "--", sys.executable, "-c", AGENT])
    os.write(1, ("shell: job %d\n" % child).encode())
    time.sleep(3)
    with open("/proc/%d/stat" % child) as f:
        st = f.read().rsplit(")", 1)[1].split()[0]
    os.write(1, ("shell: supervisor state %s\n" % st).encode())
    os.kill(child, 9)
    os._exit(0)
out = b""
while True:
    try:
        d = os.read(master, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
print(out.decode(errors="replace"))
