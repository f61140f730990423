#!/bin/bash
# ha17-devprobe.sh (hostile review h-attack17, against main d07b047): runs
# ha17-devprobe.c as uid 1000 in a network namespace of its own (ha17dp)
# holding a veth pair d1-d2 (192.0.2.1/24, a link-local IPv6 address) and
# lo: every untrapped setsockopt, bind, shutdown and accept of TCP and UDP
# sockets of both families, with the device read after each. Only the
# portless IPv6 socket's scoped binds may write it (what give_port closes).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha17 && chmod 777 /tmp/ha17
review_cc /tmp/ha17/devprobe tests/review/ha17-devprobe.c || exit 2
. tests/review/review-lock.sh
review_lock ha17dp || exit 2 # one run at a time: the next one's del would take this one's namespace
ip netns del ha17dp 2>/dev/null
ip netns add ha17dp || exit 2
trap 'ip netns pids ha17dp | xargs -r kill; ip netns del ha17dp; review_unlock ha17dp' EXIT
ip -n ha17dp link set lo up
ip -n ha17dp link add d1 type veth peer name d2
ip -n ha17dp link set d2 up
ip -n ha17dp addr add 192.0.2.1/24 dev d1
ip -n ha17dp addr add fe80::1/64 dev d1
ip -n ha17dp link set d1 up
sleep 2 # DAD of fe80::1
ip netns exec ha17dp setpriv --reuid 1000 --regid 1000 --clear-groups /tmp/ha17/devprobe d1 |
	sort | uniq -c | sort -rn | head -40
