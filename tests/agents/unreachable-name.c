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
 * connect_noread); a page it unmapped before the connect (a mappable
 * address with nothing there: connect_unmapped); and, only with --only
 * toggle, 20 connects from a PROT_WRITE-only page that another thread
 * flips to PROT_NONE and back all the while (connect_toggle: the maps a
 * supervisor reads after its failed read say either).
 *
 *     unreachable-name [--only secret|noread|vvar|unmapped|toggle] DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <pthread.h>
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

static void via_unmapped(const struct agent_dest *d)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p =
	    mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p, (size_t)page) != 0) {
		agent_log("unmapped_mmap", NULL, -1, errno, NULL);
		return;
	}
	connect_from("connect_unmapped", d, p);
}

#define TOGGLE_CONNECTS 20

static void *flip(void *page)
{
	for (;;) {
		mprotect(page, 4096, PROT_NONE);
		mprotect(page, 4096, PROT_WRITE);
	}
	return NULL;
}

static void via_toggle(const struct agent_dest *d)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	int i;

	if (p == MAP_FAILED) {
		agent_log("toggle_mmap", NULL, -1, errno, NULL);
		return;
	}
	memcpy(p, &d->ss, d->len);
	if (mprotect(p, 4096, PROT_WRITE) != 0 || pthread_create(&t, NULL, flip, p) != 0) {
		agent_log("toggle_thread", NULL, -1, errno, NULL);
		return;
	}
	for (i = 0; i < TOGGLE_CONNECTS; i++)
		connect_from("connect_toggle", d, p);
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

static int known_only(const char *only)
{
	static const char *const names[] = {"secret", "noread", "vvar", "unmapped", "toggle"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(only, names[i]) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char usage[] = "[--only secret|noread|vvar|unmapped|toggle] DEST";
	const char *only = NULL;
	struct agent_dest d;
	int a = 1;

	agent_init("unreachable-name");
	if (argc == 4 && strcmp(argv[1], "--only") == 0) {
		only = argv[2];
		a = 3;
	}
	if (a != argc - 1 || agent_parse_dest(argv[a], &d) < 0 || (only && !known_only(only)))
		return agent_usage(usage);
	if (!only || strcmp(only, "secret") == 0)
		via_secret(&d);
	if (!only || strcmp(only, "noread") == 0)
		via_noread(&d);
	if (!only || strcmp(only, "vvar") == 0)
		via_vvar(&d);
	if (!only || strcmp(only, "unmapped") == 0)
		via_unmapped(&d);
	if (only && strcmp(only, "toggle") == 0)
		via_toggle(&d);
	/* The flipping thread must not outlive main's return in exit(). */
	_exit(0);
}
