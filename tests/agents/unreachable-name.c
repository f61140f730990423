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
 * (memfd_secret: its errno). Also (review h-attack3): a page mapped
 * PROT_WRITE only ("-w-p" in the maps, no VM_READ: get_user_pages refuses
 * it, while on x86_64 the agent reads any page it may write;
 * connect_noread), and first a memfd whose name is 249 newlines mapped low
 * (each printed as "\012": a maps line of about 1,080 bytes before every
 * other mapping; long_line).
 *
 *     unreachable-name [--only secret|noread|vvar] [--no-long-line] DEST
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

static void long_line(void)
{
	char name[250];
	void *p;
	int fd;

	memset(name, '\n', 249);
	name[249] = '\0';
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		agent_log("long_line", NULL, -1, errno, NULL);
		return;
	}
	/* Low, below every mapping a walk of the maps must pass. */
	p = mmap((void *)0x100000000UL, 4096, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	agent_log("long_line", NULL, p == MAP_FAILED ? -1 : 0, errno, NULL);
}

static void via_noread(const struct agent_dest *d)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p =
	    mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		agent_log("noread_mmap", NULL, -1, errno, NULL);
		return;
	}
	memcpy(p, &d->ss, d->len);
	if (mprotect(p, (size_t)page, PROT_WRITE) != 0) {
		agent_log("noread_mprotect", NULL, -1, errno, NULL);
		return;
	}
	connect_from("connect_noread", d, p);
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
	static const char usage[] = "[--only secret|noread|vvar] [--no-long-line] DEST";
	const char *only = NULL;
	struct agent_dest d;
	int a = 1, longline = 1;

	agent_init("unreachable-name");
	for (; a < argc - 1; a++) {
		if (strcmp(argv[a], "--only") == 0 && a + 2 < argc)
			only = argv[++a];
		else if (strcmp(argv[a], "--no-long-line") == 0)
			longline = 0;
		else
			return agent_usage(usage);
	}
	if (a != argc - 1 || agent_parse_dest(argv[a], &d) < 0)
		return agent_usage(usage);
	if (longline)
		long_line();
	if (!only || strcmp(only, "secret") == 0)
		via_secret(&d);
	if (!only || strcmp(only, "noread") == 0)
		via_noread(&d);
	if (!only || strcmp(only, "vvar") == 0)
		via_vvar(&d);
	return 0;
}
