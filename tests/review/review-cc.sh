#!/bin/bash
# review-cc.sh: sourced by the ha*-run.sh reproductions. review_cc OUT SRC...
# builds one static musl reproduction agent against this worktree's build/
# (kernel headers, libseccomp sysroot) with tests/agents/agentlib.c, the
# same way each review built its own. Run from the worktree after `make`.
review_cc() {
	local out=$1 b=$PWD/build
	shift
	musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -isystem "$b/kheaders" \
		-isystem "$b/sysroot/include" -static -pthread -Itests/agents -o "$out" \
		"$@" tests/agents/agentlib.c
}
