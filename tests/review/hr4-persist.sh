#!/bin/bash
# Review h-realprog4, finding 1: an ssh ControlMaster with ControlPersist
# (the usual ~/.ssh/config for git over ssh) outlives the command that
# started it; the supervisor's run lasts until every descendant exits, so
# the run of a finished `ssh host echo OK` ends only when the master does
# (ControlPersist=30: 30 s; =yes: never, here cut by timeout(1) at LIMIT s).
# Prints the elapsed time, the supervisor's exit status and its stderr.
# With "git" last, the agent is `git clone` over ssh with the same options
# in GIT_SSH_COMMAND (a ~/.ssh/config with ControlPersist does the same).
#     tests/review/hr4-persist.sh SUPERVISOR [PERSIST] [LIMIT] [root|uid1000] [ssh|git]
set -euo pipefail
sv=$(realpath "$1")
persist=${2:-yes}
limit=${3:-20}
who=${4:-root}
prog=${5:-ssh}
work=$(mktemp -d /tmp/hr4-persist.XXXXXX)
sshd_pid=
cleanup() {
	if [ -n "$sshd_pid" ]; then kill "$sshd_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
ssh-keygen -q -t ed25519 -N '' -f "$work/hostkey"
cp "$work/id.pub" "$work/authorized_keys"
chown 1000:1000 "$work/id" "$work/id.pub"
mkdir -p /run/sshd "$work/w"
chown 1000:1000 "$work/w"
cat >"$work/sshd_config" <<EOC
Port $port
ListenAddress 127.0.0.1
HostKey $work/hostkey
AuthorizedKeysFile $work/authorized_keys
PidFile $work/sshd.pid
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
PasswordAuthentication no
EOC
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log" &
sshd_pid=$!
sleep 1
pre=()
[ "$who" = uid1000 ] && pre=(setpriv --reuid=1000 --regid=1000 --clear-groups)
# The report on an unlinked file (no name for the agent to find).
exec 3<>"$work/report"
rm -f "$work/report"
start=$(date +%s.%N)
set +e
sshcmd=(ssh -F /dev/null -i "$work/id" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes
	-o LogLevel=ERROR -o ControlMaster=auto -o "ControlPath=$work/w/cm-%C" -o "ControlPersist=$persist")
if [ "$prog" = git ]; then
	git init -q --bare "$work/r.git"
	agent=(env "GIT_SSH_COMMAND=${sshcmd[*]}" git clone -q "ssh://root@127.0.0.1:$port$work/r.git" "$work/w/clone")
else
	agent=("${sshcmd[@]}" -p "$port" root@127.0.0.1 echo agent-said-OK)
fi
env -i PATH=/usr/bin:/bin HOME="$work/w" timeout --preserve-status "$limit" "${pre[@]}" "$sv" --report-fd 3 --no-loopback \
	--writable "$work/w" --allow "127.0.0.1:$port" -- "${agent[@]}" >"$work/out" 2>"$work/err"
rc=$?
set -e
end=$(date +%s.%N)
echo "$prog, ControlPersist=$persist as $who: supervisor exit $rc after $(python3 -c "print(round($end-$start,1))") s (limit $limit s)"
echo "agent stdout: $(cat "$work/out")"
if [ "$prog" = git ]; then echo "clone made: $(test -d "$work/w/clone/.git" && echo yes || echo no)"; fi
echo "supervisor stderr:"
sed "s/^/  /" "$work/err"
echo "report:"
python3 - /dev/fd/3 <<'EOP'
import json, sys
raw = open(sys.argv[1], errors="replace").read()
i = raw.rfind("egress-supervisor-report-record/1 final")
hdr, body = raw[i:].split("\n", 1)
r = json.loads(body[: int(hdr.split()[-1])])
a = r["agent"]
print(f"  verdict {r['verdict']}: {r['reason']}; agent exit_code {a['exit_code']} signal {a['signal']}")
EOP
