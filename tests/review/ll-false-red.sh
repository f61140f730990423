#!/bin/bash
# ll-false-red.sh SV: a false red of the WRITE_FILE domain. A cgroup mount
# below a shared writable directory (here cgroup2 at /tmp/ll-cg.PID; a host
# may mount one under /run or /tmp for a container runtime) makes /tmp an
# ancestor: only the entries /tmp held when the supervisor started are
# granted, so a uid-1000 agent creates /tmp/NEW (MAKE_REG is not handled)
# but cannot open it for writing (EACCES); without the mount it can.
# Run as root; no network traffic.
set -euo pipefail
sv=$1
mnt=/tmp/ll-cg.$$
# shellcheck disable=SC2016 # expanded by the agent's shell
script='f=/tmp/ll-new.$$; if echo x >"$f"; then echo "new /tmp file: written"; else echo "new /tmp file: REFUSED (created: $(test -e "$f" && echo yes || echo no))"; fi; rm -f "$f"'
mkdir "$mnt"
mount -t cgroup2 none "$mnt"
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
echo "== cgroup2 mounted at $mnt:"
(cd / && setpriv --reuid 1000 --regid 1000 --clear-groups "$sv" -- /bin/sh -c "$script") || echo "exit $?"
umount "$mnt"
rmdir "$mnt"
trap - EXIT
echo "== without it:"
(cd / && setpriv --reuid 1000 --regid 1000 --clear-groups "$sv" -- /bin/sh -c "$script") || echo "exit $?"
