#!/bin/bash
# ha68-host.sh: hostile review h-attack68, host leg (as root, no VM).
#   tests/review/ha68-host.sh cwd [N]    # finding 1: N uid-1000 runs started
#                                        # in DIR/run while a uid-1000
#                                        # outsider turns DIR's mode 000/0755
#                                        # (ha68-chmodwin.py): the spawn's
#                                        # chdir(cwd) is EACCES, "the host's",
#                                        # and the run falls back, passes
#   tests/review/ha68-host.sh shm [N]    # finding 1's harm: the same runs'
#                                        # program writes a 0600 SysV segment
#                                        # of a uid-1000 outsider
#                                        # (ha65-agent.c shmhost/shmput)
#   tests/review/ha68-host.sh agent [N]  # the attacker is the agent of a
#                                        # parallel run in user-namespace mode
#   tests/review/ha68-host.sh shut [N]   # no race: the directory is shut
#                                        # (by root, as a caller could) after
#                                        # the run's cd and before its exec
#   tests/review/ha68-host.sh nested [N] # finding 2: the supervisor runs in a
#                                        # user namespace of its uid (a
#                                        # rootless container's); an outsider
#                                        # of the uid joins it and sets its
#                                        # max_user_namespaces to 0 before the
#                                        # run reads it (ha68-nslimit.c)
#   tests/review/ha68-host.sh quiet [N]  # control: no attacker
# NOLIMIT=1: nested without the write (control). SV: the supervisor (default
# the worktree's build). SHUT_MS/OPEN_MS: the
# attacker's duty cycle (default 3/3). Prints one line per run (exit,
# verdict, containment, userns_refused) and a tally.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
mode=${1:-cwd}
n=${2:-10}
shut=${SHUT_MS:-3}
open=${OPEN_MS:-3}
# shellcheck source=tests/review/review-host.sh
. "$(dirname "$0")/review-host.sh"
work=$(mktemp -d /tmp/ha68.XXXXXX)
chmod 755 "$work"
cleanup() {
	if [ -n "${a:-}" ]; then kill "$a" 2>/dev/null || true; fi
	chmod -R u+rwx "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
cp "$sv" "$work/sv"
cp "$top/tests/review/ha68-chmodwin.py" "$work/chmodwin.py"
chmod 755 "$work/sv" "$work/chmodwin.py"
# The run's working directory, owned by the uid as a CI job's would be:
# $work/job (the attacker's target) holds run/ (the supervisor's cwd).
mkdir -p "$work/job/run" "$work/out"
chown -R 1000:1000 "$work/job" "$work/out"
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha65-agent.c"
# One uid-1000 run from $work/job/run: the cd is retried while the
# attacker has the directory shut (the caller got in before it began).
run() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	u sh -c 'until cd "$1" 2>/dev/null; do sleep 0.001; done; shift; exec "$@"' sh \
		"$work/job/run" "$@"
}
attack_secs=$((n * 4 + 10))
case $mode in
cwd | shm | quiet)
	if [ "$mode" != quiet ]; then
		(ue /usr/bin/python3 "$work/chmodwin.py" "$work/job" "$attack_secs" "$shut" "$open" \
			>"$work/out/chmodwin.out" 2>&1) &
		a=$!
		sleep 0.5
	fi
	weak=0
	leaked=0
	for i in $(seq 1 "$n"); do
		set +e
		if [ "$mode" = shm ]; then
			key=$((0x6800 + i))
			u "$work/agent" shmhost "$key" 3000 >"$work/out/sh$i.txt" 2>&1 &
			o=$!
			sleep 0.3
			run "$work/sv" --report "$work/out/r$i.json" -- "$work/agent" shmput "$key" \
				"secret-of-run-$i" >"$work/out/o$i.txt" 2>&1
		else
			run "$work/sv" --report "$work/out/r$i.json" -- /bin/true >"$work/out/o$i.txt" 2>&1
		fi
		rc=$?
		set -e
		line="$(verdict "$work/out/r$i.json")"
		extra=
		if [ "$mode" = shm ]; then
			wait "$o" || true
			extra=" | outsider: $(cat "$work/out/sh$i.txt")"
			if [ "$rc" = 0 ] && grep -q "secret-of-run-$i" "$work/out/sh$i.txt"; then
				leaked=$((leaked + 1))
			fi
		fi
		echo "run $i: exit $rc $line$extra"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	if [ -n "${a:-}" ]; then
		kill "$a" 2>/dev/null || true
		wait "$a" 2>/dev/null || true
		a=
	fi
	echo "passed in subreaper+landlock: $weak of $n"
	[ "$mode" = shm ] && echo "passed with the outsider's segment written: $leaked of $n"
	;;
shut)
	weak=0
	for i in $(seq 1 "$n"); do
		set +e
		(cd "$work/job/run" && chmod 0 "$work/job" &&
			exec setpriv --reuid 1000 --regid 1000 --clear-groups \
				"$work/sv" --report "$work/out/r$i.json" -- /bin/true) >"$work/out/o$i.txt" 2>&1
		rc=$?
		set -e
		chmod 755 "$work/job"
		line="$(verdict "$work/out/r$i.json")"
		echo "run $i: exit $rc $line"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	echo "passed in subreaper+landlock: $weak of $n"
	;;
nested)
	gcc -O2 -Wall -static -o "$work/nslimit" "$top/tests/review/ha68-nslimit.c"
	weak=0
	for i in $(seq 1 "$n"); do
		# The caller's namespace: ids 1000 mapped to themselves, one
		# process holding it (a container's init).
		(ue unshare -U --map-user=1000 --map-group=1000 sleep 60) &
		a=$!
		sleep 0.3
		holder=$(pgrep -P "$a" sleep || echo "$a")
		limit=control
		[ -n "${NOLIMIT:-}" ] || limit=$(u "$work/nslimit" "$holder" user 0)
		set +e
		(cd "$work/job/run" && exec setpriv --reuid 1000 --regid 1000 --clear-groups \
			nsenter --preserve-credentials -U -t "$holder" \
			"$work/sv" --report "$work/out/r$i.json" -- /bin/true) >"$work/out/o$i.txt" 2>&1
		rc=$?
		set -e
		kill "$a" 2>/dev/null || true
		wait "$a" 2>/dev/null || true
		a=
		line="$(verdict "$work/out/r$i.json")"
		echo "run $i: exit $rc $line | $limit"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	echo "passed in subreaper+landlock: $weak of $n"
	;;
agent)
	# Run A (user-namespace mode, an ordinary run) whose agent is the
	# attacker; B runs as above.
	u "$work/sv" --report "$work/out/A.json" -- /usr/bin/python3 "$work/chmodwin.py" \
		"$work/job" "$attack_secs" "$shut" "$open" >"$work/out/A.txt" 2>&1 &
	a=$!
	sleep 1
	weak=0
	for i in $(seq 1 "$n"); do
		set +e
		run "$work/sv" --report "$work/out/r$i.json" -- /bin/true >"$work/out/o$i.txt" 2>&1
		rc=$?
		set -e
		line="$(verdict "$work/out/r$i.json")"
		echo "run $i: exit $rc $line"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	set +e
	kill "$a" 2>/dev/null
	wait "$a"
	echo "attacking run A: exit $? $(verdict "$work/out/A.json") $(tail -1 "$work/out/A.txt")"
	set -e
	a=
	echo "passed in subreaper+landlock: $weak of $n"
	;;
*)
	echo "ha68-host.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
