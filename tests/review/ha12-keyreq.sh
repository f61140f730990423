#!/bin/bash
# ha12-keyreq.sh (hostile review h-attack12): request_key(2) makes the
# kernel start /sbin/request-key as full root outside the filter, the tree
# and every namespace of the run, with strings the agent chose; no trapped
# call is made. Host, as root, from the worktree after `make`.
#
# This host has no keyutils: a stand-in helper (tests/agents/key-upcall.c, helper mode)
# is put at /sbin/request-key for the script and removed after; it sends
# what it was asked for to 127.0.0.2:9999 in the namespace the kernel starts
# it in (loopback only). The supervisor runs in a fresh network namespace
# holding only lo, with --no-loopback and no rule.
#
# On this host's vendor kernel (6.18.44-fc) the upcall is refused (ENOENT,
# no helper) to a requester without CAP_SYS_ADMIN in the initial user
# namespace (measured below: plain root with and without it); upstream
# v6.18.38 call_sbin_request_key has no such check, so on the Debian
# kernels the supervised runs are expected to reach the sink too: see
# scenarios/key-upcall.scenario for the guest cell.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
# A run killed without its trap (SIGKILL) left its stand-in there, the same
# bytes as its build: removed. Anything else is the host's own, kept.
if [ -e /sbin/request-key ] && cmp -s /sbin/request-key /tmp/ha12/keyreq; then
	echo "removing the stand-in /sbin/request-key a killed run left"
	rm -f /sbin/request-key
fi
[ -e /sbin/request-key ] && { echo "/sbin/request-key exists: not replacing it"; exit 2; }
mkdir -p /tmp/ha12 && chmod 777 /tmp/ha12 && rm -f /tmp/ha12/helper.log
review_cc /tmp/ha12/keyreq tests/agents/key-upcall.c || exit 2
d=$(review_stage ha12-keyreq build/egress-supervisor /tmp/ha12/keyreq)
cp /tmp/ha12/keyreq /sbin/request-key
trap 'rm -f /sbin/request-key' EXIT
python3 - >/tmp/ha12/sink.log 2>&1 <<'PY' &
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.2", 9999))
s.settimeout(15)
try:
    while True:
        data, peer = s.recvfrom(4096)
        print("SINK 127.0.0.2:9999 (initial netns) got %d bytes from %s: %s" % (len(data), peer, data.decode(errors="replace")), flush=True)
except socket.timeout:
    pass
PY
sink=$!
for _ in $(seq 50); do ss -Hlun 'sport = :9999' | grep -q 127.0.0.2 && break; sleep 0.1; done
echo "== control, no supervisor: root with CAP_SYS_ADMIN, then without it"
"$d/agent" user "plain-root"
capsh --drop=cap_sys_admin -- -c "$d/agent user plain-root-nocapsysadmin"
run() { # run LABEL [setpriv args]
	local label=$1
	shift
	exec 9<>"$d/rep.$label"
	rm -f "$d/rep.$label"
	unshare -n "$@" "$d/sv" --no-loopback --report-fd 9 -- "$d/agent" user "secret-of-$label" \
		2>"$d/err.$label"
	echo "== supervised $label: supervisor exit $?"
	cp "/proc/$$/fd/9" "$d/channel.$label"
	exec 9>&-
	python3 -c 'import json,sys
data = open(sys.argv[1], "rb").read(); i = 0; r = None
while i < len(data):
    nl = data.find(b"\n", i); hdr = data[i:nl].split(); n = int(hdr[2])
    if len(data) - nl - 1 < n: break
    r = json.loads(data[nl + 1:nl + 1 + n]); i = nl + 1 + n
print("  verdict", r["verdict"], "containment", r["containment"], "counts", r["counts"])
for e in r["events"]:
    print("  event", e["syscall"], e["bucket"], e["reason"], e["dest"])' "$d/channel.$label"
}
run root
run uid1000 setpriv --reuid 1000 --regid 1000 --clear-groups
sleep 4
kill $sink 2>/dev/null
wait $sink 2>/dev/null
echo "--- sink (initial network namespace, 127.0.0.2:9999, undeclared):"
cat /tmp/ha12/sink.log
echo "--- helper log (/tmp/ha12/helper.log):"
cat /tmp/ha12/helper.log 2>/dev/null
