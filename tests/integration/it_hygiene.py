"""The suite's own hygiene: the preflight (preflight.py) that names what an
earlier run left on the host can fail, on each kind of leftover, planted
where nothing can outlive the test."""

import os
import re
import shutil
import subprocess
import sys

from harness import TOP, Skip, test

# Run by `unshare -m -p -f --mount-proc --propagation private` as the pid
# namespace's init: every mount is the namespace's own and every process
# dies with it. Plants one leftover of each kind, runs the preflight, says
# its exit status.
PLANT = r'''
set -u
d=$1 py=$2 pre=$3 lower_pid_max=$4
mkdir -p "$d/mnt" "$d/bin" "$d/top/build"
mount -t tmpfs hh-planted "$d/mnt"
cp /bin/sleep "$d/bin/egress-supervisor"
( "$d/bin/egress-supervisor" 30 & )
( unshare -n sleep 30 & )
sleep 0.3
[ "$lower_pid_max" = 1 ] && echo 500 >/proc/sys/kernel/pid_max
mount -t tmpfs hh-sbin "$(realpath /sbin)"
printf 'stand-in: request-key helper pid %%d\n' >/sbin/request-key
"$py" "$pre" --top "$d/top" --build "$d/top/build"
echo "preflight exit $?"
'''


@test(timeout=60)
def preflight_names_each_planted_leftover(ctx):
    # Stop 40: a review's bind mount under /tmp outlived it and refused
    # every later root agent's run; two unrelated CI tests failed. run.py's
    # preflight names such leftovers instead. Planted in a mount and pid
    # namespace of the test's own: a tmpfs under the test's /tmp directory,
    # an orphaned "egress-supervisor", an orphan in a network namespace of
    # its own (a review's sink whose namespace was deleted), pid_max
    # lowered to 500 (per pid namespace since Linux 6.14; before, the
    # host's, so not planted there) and ha12-keyreq.sh's stand-in
    # /sbin/request-key (on a tmpfs over /sbin). Each is named; exit 1.
    if os.geteuid() != 0 or not shutil.which("unshare"):
        raise Skip("needs root (mount and pid namespaces of its own) and unshare")
    try:
        lower = tuple(int(x) for x in os.uname().release.split(".")[:2]) >= (6, 14)
    except ValueError:
        lower = False
    pre = os.path.join(TOP, "tests", "integration", "preflight.py")
    argv = ["unshare", "-m", "-p", "-f", "--mount-proc", "--propagation", "private", "--kill-child",
            "bash", "-c", PLANT, "plant", ctx.tmp, sys.executable, pre, "1" if lower else "0"]
    ctx.last_argv = argv
    out = subprocess.run(argv, capture_output=True, text=True, timeout=40).stdout
    ctx.expect("preflight exit 1" in out, "preflight did not fail: %s" % out[-600:])
    wants = [r"leftover: mount %s/mnt " % re.escape(ctx.tmp),
             r"leftover: process \d+ \(an egress-supervisor\)",
             r"leftover: process \d+ \(in a network namespace not pid 1's\): sleep 30",
             r"leftover: file /sbin/request-key"]
    if lower:
        wants.append(r"leftover: sysctl kernel\.pid_max = 500")
    for want in wants:
        ctx.expect(re.search(want, out), "not named (%s): %s" % (want, out[-800:]))
