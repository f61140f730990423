/*
 * unreachable-name: connects to DEST with the address in memory the agent
 * reads but a remote access cannot: a memfd_secret page (6.5+ by default;
 * CONFIG_SECRETMEM and secretmem.enable before), where the kernel has one,
 * and the [vvar] mapping (VM_PFNMAP on every x86_64 kernel; its bytes are
 * whatever the kernel keeps there, so that connect names no chosen
 * destination, only a name no supervisor can read). get_user_pages refuses
 * both, so process_vm_readv answers EFAULT, as for an unmapped address,
 * while the agent's own connect would have read the name. Each attempt is
 * logged (connect_secret, connect_vvar), and so is what was unavailable
 * (memfd_secret: its errno).
 *
 *     unreachable-name DEST
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

static void via_secret(const struct agent_dest *d)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = (int)syscall(SYS_memfd_secret, 0);
	void *p;

	if (fd < 0) {
		agent_log("memfd_secret", NULL, -1, errno, NULL);
		return;
	}
	if (ftruncate(fd, page) != 0) {
		agent_log("memfd_secret_ftruncate", NULL, -1, errno, NULL);
		close(fd);
		return;
	}
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		/* RLIMIT_MEMLOCK: secret pages are locked. */
		agent_log("memfd_secret_mmap", NULL, -1, errno, NULL);
		close(fd);
		return;
	}
	memcpy(p, &d->ss, d->len);
	connect_from("connect_secret", d, p);
	munmap(p, (size_t)page);
	close(fd);
}

static void via_vvar(const struct agent_dest *d)
{
	char line[256];
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

	agent_init("unreachable-name");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	via_secret(&d);
	via_vvar(&d);
	return 0;
}
