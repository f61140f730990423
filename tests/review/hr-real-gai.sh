#!/bin/bash
# Review h-realprog, finding 1: glibc getaddrinfo's RFC 6724 sort probes.
# When a name has two or more addresses, glibc's rfc3484_sort connects a
# UDP socket to each (nothing is sent) to learn the source address. Called
# with no service (node's dns.lookup, wget, getent), the probe's port is 0,
# which no rule declares: the supervisor denies it and the run fails,
# although the program did its work and talked only to declared servers.
# A private mount namespace gives /etc/hosts a name with two IPv4
# addresses (no DNS: the host's /etc/hosts and resolv.conf are untouched).
#   tests/review/hr-real-gai.sh build/egress-supervisor [RUNS]
set -euo pipefail
sv=$(realpath "$1")
runs=${2:-5}
out=/tmp/hr-real-gai
rm -rf "$out" && mkdir -p "$out/www" && chmod 755 "$out"
echo hello >"$out/www/f.txt"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf '127.0.0.1 localhost\n127.0.0.1 two.hr.test\n127.0.0.2 two.hr.test\n' >"$out/hosts"
srv=()
for a in 127.0.0.1 127.0.0.2; do
    /usr/bin/python3 -m http.server --bind "$a" --directory "$out/www" "$port" >/dev/null 2>&1 &
    srv+=("$!")
done
trap 'kill "${srv[@]}"' EXIT
sleep 1
cat >"$out/get.js" <<'JS'
require("http").get(process.argv[2], (r) => { r.resume(); r.on("end", () => process.exit(r.statusCode === 200 ? 0 : 1)); })
  .on("error", (e) => { console.error(String(e)); process.exit(1); });
JS
cat >"$out/Get.java" <<'JAVA'
public class Get { public static void main(String[] a) throws Exception {
  var c = java.net.http.HttpClient.newHttpClient();
  var r = c.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(a[0])).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  System.exit(r.statusCode() == 200 ? 0 : 1); } }
JAVA
# shellcheck disable=SC2016 # expanded by the inner bash
unshare --mount --propagation private -- bash -c '
    set -uo pipefail
    sv=$1 out=$2 port=$3 runs=$4
    mount --bind "$out/hosts" /etc/hosts
    url=http://two.hr.test:$port/f.txt
    allow=(--no-loopback --allow "127.0.0.1:$port" --allow "127.0.0.2:$port")
    printf "%-14s %-8s %-5s %s\n" program who fails "verdict/program-exit per run; denied calls of the last"
    for prog in node wget getent java curl python; do
        case $prog in
        node) cmd=(node "$out/get.js" "$url") ;;
        wget) cmd=(wget -q --tries=1 -O /dev/null "$url") ;;
        getent) cmd=(getent ahosts two.hr.test) ;;
        java) cmd=(env "HOME=$out" java "$out/Get.java" "$url") ;;
        curl) cmd=(curl -sS -o /dev/null "$url") ;;
        python) cmd=(/usr/bin/python3 -c "import urllib.request; urllib.request.urlopen(\"$url\").read()") ;;
        esac
        for who in root uid1000; do
            pre=()
            [ "$who" = uid1000 ] && pre=(setpriv --reuid=1000 --regid=1000 --clear-groups)
            fails=0 seen=""
            for _ in $(seq "$runs"); do
                rep=$(mktemp -p "$out")
                "${pre[@]}" "$sv" --report-fd 9 "${allow[@]}" -- "${cmd[@]}" 9>"$rep" >/dev/null 2>"$out/err"
                rc=$?
                pexit=$(grep -o "\"exit_code\": [0-9a-z]*" "$rep" | tail -1 | cut -d" " -f2)
                [ "$rc" = 0 ] || fails=$((fails + 1))
                seen="$seen $rc/$pexit"
                denied=$(grep -o "\"dest\": \"[^\"]*\", \"bucket\": \"denied\"" "$rep" | cut -d\" -f4 | sort -u | tr "\n" " ")
                rm -f "$rep"
            done
            printf "%-14s %-8s %-5s %s  %s\n" "$prog" "$who" "$fails/$runs" "$seen" "${denied:-}"
        done
    done' _ "$sv" "$out" "$port" "$runs"
