#!/bin/bash
# ha21-declared.sh (hostile review h-attack21): a socket file on a mount the
# agent may write is "local" whoever bound it. A root tmux server outside
# the run (any root user's `tmux` on a host where the job is given
# --writable /tmp: its socket is /tmp/tmux-0/default; likewise screen,
# ssh-agent's /tmp/ssh-*/agent.*, gpg-agent, X11's /tmp/.X11-unix) runs a
# command for the agent. Stand-ins in a private mount namespace: a tmpfs at
# /tmp/ha21/tmp for the declared /tmp, one at /tmp/ha21/svc for the host's
# other files (read-only in the agent's view).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha21
cat >/tmp/ha21/declared-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 D=/tmp/ha21/svc T=/tmp/ha21/tmp
mkdir -p $D $T && mount -t tmpfs -o mode=755 ha21-svc $D && mount -t tmpfs -o mode=1777 ha21-tmp $T
mkdir $D/etc && mkdir -m 700 $T/tmux-0
tmux -S $T/tmux-0/default new-session -d -s host 'sleep 60'
echo "host: root's tmux server on $T/tmux-0/default (pid $(tmux -S $T/tmux-0/default display -p '#{pid}'))"
"$SV" --writable $T -- /bin/sh -c "
  echo HA21 >$D/etc/direct 2>/dev/null || echo 'agent: $D/etc is read-only here';
  tmux -S $T/tmux-0/default run-shell 'echo HA21: run by root tmux outside the run >$D/etc/marker' &&
  echo 'agent: asked the tmux server to write $D/etc/marker'"
echo "supervisor exit $?"
sleep 0.5
echo "host's marker: $(cat $D/etc/marker 2>&1)"
tmux -S $T/tmux-0/default kill-server; sleep 0.5
umount -l $T $D
INNER
timeout 60 unshare -m --propagation private bash /tmp/ha21/declared-inner.sh "$SV"
rm -f /tmp/ha21/declared-inner.sh
