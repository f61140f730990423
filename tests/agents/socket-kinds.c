/*
 * socket-kinds: makes one raw socket(FAMILY, TYPE, PROTOCOL) call per
 * argument F:T:P (numbers; a trailing :hi sets bit 32 of every register, which
 * the kernel ignores) and logs each answer. Exits 0 when every answer is the
 * one WANT names (an errno name such as EAFNOSUPPORT, "refused" for any
 * errno: a denial is judged by what happened, whatever the supervisor
 * answers; or "ok" for a socket), 1 otherwise. A socket that is created is
 * closed at once.
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int bad = 0;

	agent_init("socket-kinds");
	if (argc < 3)
		return agent_usage("WANT F:T:P[:hi]...");
	for (int i = 2; i < argc; i++) {
		unsigned long f, t, p, hi = 0;
		char tail[8] = "";
		const char *got;
		long r;
		int n = sscanf(argv[i], "%lu:%lu:%lu:%7s", &f, &t, &p, tail);

		if (n < 3 || (n == 4 && strcmp(tail, "hi") != 0))
			return agent_usage("WANT F:T:P[:hi]...");
		if (n == 4)
			hi = 1ul << 32;
		/* The raw syscall: libc's socket() takes ints and would drop the
		 * high bits before the kernel (and the filter) saw them. */
		r = syscall(SYS_socket, f | hi, t | hi, p | hi);
		got = r >= 0 ? "ok" : agent_errno_name(errno);
		agent_log("socket", argv[i], r, errno, NULL);
		if (strcmp(argv[1], "refused") == 0 ? r >= 0 : strcmp(got, argv[1]) != 0)
			bad = 1;
		if (r >= 0)
			close((int)r);
	}
	return bad;
}
