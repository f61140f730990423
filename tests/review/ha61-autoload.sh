#!/bin/bash
# ha61-autoload.sh: hostile review h-attack61, host leg (as root, no VM):
# builds ha61-autoload.c and two certificates whose signature OID names a
# hash the agent chose (md4WithRSA, sha3-256WithRSA: the OID bytes of an
# openssl sha256WithRSA certificate rewritten; the signature no longer
# verifies, which the kernel checks after it allocated the hash), runs the
# agent unsupervised, then under the supervisor as root and as uid 1000
# (setpriv, supervisor and agent both uid 1000), and prints each call's
# answer and what the report recorded of these calls (and the verdict). Nothing recorded
# means the call is not trapped; the answers say whether the kernel path
# ran (see ha61-autoload.c and ha61-autoload.md).
#   tests/review/ha61-autoload.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha61a.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
gcc -O2 -Wall -static -o "$work/agent" "$top/tests/review/ha61-autoload.c"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -subj /CN=ha61 \
	-days 2 -sha256 -outform DER -out "$work/sha256.der" 2>/dev/null
python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
der = open(w + "/sha256.der", "rb").read()
sha256rsa = bytes.fromhex("06092a864886f70d01010b")
assert der.count(sha256rsa) == 2, "expected the OID in tbs and outer signature"
# md4WithRSAEncryption 1.2.840.113549.1.1.3; id-rsassa-pkcs1-v1_5-with-sha3-256
# 2.16.840.1.101.3.4.3.14: both nine bytes, as sha256WithRSA's.
for name, oid in (("md4", "06092a864886f70d010103"), ("sha3", "060960864801650304030e")):
    open(w + "/" + name + ".der", "wb").write(der.replace(sha256rsa, bytes.fromhex(oid)))
EOF
chmod 644 "$work"/*.der
args=("$work/agent" "$work/md4.der" "$work/sha3.der" "$work/sha256.der")
echo "UNSUPERVISED (root):"
"${args[@]}" | sed 's/^/  /'
for who in root 1000; do
	pre=()
	[ "$who" = root ] || pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	rm -f "$work/rep"
	set +e
	"${pre[@]}" "$sv" --report "$work/rep" -- "${args[@]}" >"$work/out" 2>"$work/err"
	rc=$?
	set -e
	echo "AGENT $who: exit $rc"
	sed 's/^/  /' "$work/out"
	python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
calls=("ioctl","add_key","fsopen","fsconfig","unshare","getsockopt","mount")
ev=[e for e in r.get("events", []) if e.get("syscall") in calls]
print("  recorded events of those calls:", len(ev), [(e.get("syscall"), e.get("reason")) for e in ev])
print("  verdict:", r.get("verdict"))' "$work/rep" || sed 's/^/  stderr: /' "$work/err"
done
