#!/bin/bash
# ha17-handover.sh (hostile review h-attack17, against main d07b047): the
# listener hand-over by pidfd_getfd (unshare refused by a seccomp mask:
# tests/hostprofile/seccomp_mask.py container_mask((NR_UNSHARE,)), as
# tests/integration/it_containment.py refuse_unshare does), root (its pid
# namespace) and uid 1000 (the mask refuses its user namespace too: the
# subreaper). ha17-handover.c looks for the listener from inside; the
# report's probe says which way the listener came.
#   ha17-handover.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha17 && chmod 777 /tmp/ha17
review_cc /tmp/ha17/handover tests/review/ha17-handover.c || exit 2
d=$(review_stage ha17-handover "${1:-build/egress-supervisor}" /tmp/ha17/handover)
for who in root uid1000; do
	echo "== $who"
	python3 - "$d" "$who" "$PWD/tests/hostprofile" <<'PY'
import json, os, subprocess, sys
d, who, masks = sys.argv[1:]
sys.path.insert(0, masks)
import seccomp_mask
def pre():
    if who == "uid1000":
        os.setgroups([]); os.setgid(1000); os.setuid(1000)
    seccomp_mask.container_mask((seccomp_mask.NR_UNSHARE,))
rep = os.path.join(d, "report.%s.json" % who)
p = subprocess.run([d + "/sv", "--allow", "127.0.0.1:9", "--no-loopback", "--report", rep, "--",
                    d + "/agent", "127.0.0.2:9999"], preexec_fn=pre, capture_output=True, text=True)
print(p.stdout, end="")
print("supervisor exit", p.returncode, p.stderr.strip().splitlines()[-1])
r = json.load(open(rep))
print("  verdict", r["verdict"], "containment", r.get("containment"))
print("  probe", {k: r["probe"].get(k) for k in ("listener", "private_table", "handover", "unshare_files")})
for e in r["events"]:
    print("  event", e["syscall"], e["bucket"], e["reason"], e.get("dest"), e.get("errno"))
PY
done
