#!/usr/bin/env python3
"""ha68-chmodwin.py: hostile review h-attack68, the attacker (any process of
the supervisor's uid: here a plain uid-1000 process, or another run's agent).

    ha68-chmodwin.py DIR SECONDS [SHUT_MS [OPEN_MS]]

For SECONDS, DIR (a directory of our uid above a parallel run's working
directory) is mode 000 for SHUT_MS, then 0755 for OPEN_MS, by turns. The
spawn's child of a uid-1000 supervisor in user-namespace mode does
chdir(cwd) by path in its new mount namespace; while DIR is 000 that is
EACCES, an errno on the supervisor's list of the host's refusals, so the run
falls back to subreaper+landlock. Prints how many turns it made. Leaves DIR
0755."""
import os
import sys
import time


def main():
    path = sys.argv[1]
    end = time.monotonic() + float(sys.argv[2])
    shut = float(sys.argv[3] if len(sys.argv) > 3 else 3) / 1000
    open_ = float(sys.argv[4] if len(sys.argv) > 4 else 3) / 1000
    turns = 0
    try:
        while time.monotonic() < end:
            os.chmod(path, 0)
            time.sleep(shut)
            os.chmod(path, 0o755)
            time.sleep(open_)
            turns += 1
    finally:
        os.chmod(path, 0o755)
    print("chmodwin: %d turns on %s" % (turns, path), flush=True)


if __name__ == "__main__":
    main()
