#!/usr/bin/env python3
"""Caller that gives the supervisor an O_TMPFILE (never named) as --report-fd 8,
then copies what was written there to STREAM.  Usage: tmpfile-launch.py DIR STREAM CMD..."""
import os, subprocess, sys
d, stream, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
fd = os.open(d, os.O_TMPFILE | os.O_RDWR, 0o600)
os.dup2(fd, 8); os.close(fd); os.set_inheritable(8, True)
rc = subprocess.call(cmd, pass_fds=(8,))
os.lseek(8, 0, os.SEEK_SET)
with open(stream, "wb") as f:
    while True:
        b = os.read(8, 65536)
        if not b: break
        f.write(b)
sys.exit(rc)
