#!/usr/bin/env python3
"""ha67-stdfds.py: hostile review h-attack67, sv_stdfds_note_closed (df42bf2).
The supervisor is started holding COUNT sockets above descriptor 2, the last
one moved to descriptor HIGH (near RLIMIT_NOFILE's hard limit), with
LISTEN_FDS set; prints its exit, the time it took and the warning's length.
  ha67-stdfds.py SUPERVISOR [COUNT [HIGH]]
"""
import os
import resource
import socket
import subprocess
import sys
import time


def main():
    sv = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    high = int(sys.argv[3]) if len(sys.argv) > 3 else hard - 1
    socks = [socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) for _ in range(count)]
    os.dup2(socks[-1].fileno(), high)
    fds = [s.fileno() for s in socks] + [high]
    env = dict(os.environ, LISTEN_FDS="1")
    t = time.monotonic()
    p = subprocess.run([sv, "--", "/bin/true"], pass_fds=fds, env=env,
                       capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t
    warn = [l for l in p.stderr.splitlines() if "never reach" in l]
    print("count %d high %d: exit %d in %.2fs; warning %s" %
          (count, high, p.returncode, took, (warn[0][:160] + " (%d chars)" % len(warn[0])) if warn else "none"))


if __name__ == "__main__":
    main()
