/*
 * proc-knobs: a root agent opens the host's hardware knobs in its own /proc
 * for writing (review h-attack74): /proc/irq/default_smp_affinity and the
 * first PCI device's config space under /proc/bus/pci. Root owns those
 * files and their writes check no capability, so only a read-only mount
 * stops them. Opens, never writes. Logs each open; exits 0 when every
 * existing one was refused, 1 when any opened, 3 when none exists.
 *
 *     proc-knobs
 */
#include "agentlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Opens path for writing: 1 opened, 0 refused, -1 absent. */
static int try_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = errno;

	if (fd < 0 && err == ENOENT)
		return -1;
	agent_log("open_for_writing", path, fd, fd < 0 ? err : 0, NULL);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The first device file under /proc/bus/pci/BUS/, or "" without one. */
static void first_pci(char *out, size_t len)
{
	DIR *bus = opendir("/proc/bus/pci");
	struct dirent *b, *d;

	out[0] = '\0';
	while (bus && !out[0] && (b = readdir(bus)) != NULL) {
		char dir[300];
		DIR *devs;

		if (b->d_name[0] == '.' || strcmp(b->d_name, "devices") == 0)
			continue;
		snprintf(dir, sizeof(dir), "/proc/bus/pci/%s", b->d_name);
		devs = opendir(dir);
		while (devs && !out[0] && (d = readdir(devs)) != NULL)
			if (d->d_name[0] != '.')
				snprintf(out, len, "%s/%s", dir, d->d_name);
		if (devs)
			closedir(devs);
	}
	if (bus)
		closedir(bus);
}

int main(int argc, char **argv)
{
	char pci[600];
	int irq, dev;

	agent_init("proc-knobs");
	if (argc != 1)
		return agent_usage("");
	(void)argv;
	irq = try_open("/proc/irq/default_smp_affinity");
	first_pci(pci, sizeof(pci));
	dev = pci[0] ? try_open(pci) : -1;
	if (irq < 0 && dev < 0)
		return 3;
	return irq > 0 || dev > 0 ? 1 : 0;
}
