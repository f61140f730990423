/*
 * ha3-toggle: the race the maps check cannot close. A thread flips a
 * memfd_secret page between PROT_READ|PROT_WRITE and PROT_NONE while the
 * main thread connects with the name in it. If the supervisor's maps read
 * lands in a PROT_NONE phase, the connect is the agent's invalid call
 * (pass); else a mechanism failure. One connect per run.
 *
 *     ha3-toggle DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *page;

static void *flip(void *arg)
{
	(void)arg;
	for (;;) {
		mprotect(page, 4096, PROT_NONE);
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	pthread_t t;
	int fd, s;
	long r;

	agent_init("ha3-toggle");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	fd = (int)syscall(447, 0);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 1;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED)
		return 1;
	memcpy(page, &d.ss, d.len);
	pthread_create(&t, NULL, flip, NULL);
	s = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(s, page, d.len);
	agent_log("connect_toggle", d.text, r, errno, NULL);
	_exit(0);
}
