/* ha18-procbus.c (hostile review h-attack18, against main 22693ed): the
 * new /proc a root agent gets is writable but for /proc/sys and
 * /proc/sysrq-trigger. /proc/bus/pci/BB/DD.F is a PCI device's
 * configuration space, written with no capability check (only lockdown:
 * drivers/pci/proc.c proc_bus_pci_write), the same bytes /sys/bus/pci/
 * devices/.../config gives, which the read-only /sys refuses. Opens
 * argv[1] for writing and writes at argv[2]: by default an offset past the
 * configuration space (the kernel answers 0 and changes nothing: it shows
 * the write was let through). With argv[3] (only in a throw-away guest) it
 * rewrites the two bytes of the read-only vendor id with what they hold.
 * For contrast it reads 256 bytes: without CAP_SYS_ADMIN only 64 come. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char cfg[256];
	int fd;
	ssize_t n;

	if (argc < 3)
		return 2;
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("procbus: open %s O_RDWR: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = pread(fd, cfg, sizeof(cfg), 0);
	printf("procbus: opened %s for writing; a 256-byte read gave %zd (caps dropped)\n", argv[1],
	       n);
	if (argc > 3) {
		n = pwrite(fd, cfg, 2, 0);
		printf("procbus: rewrote the vendor id %02x%02x: %zd %s\n", cfg[1], cfg[0], n,
		       n < 0 ? strerror(errno) : "");
	} else {
		n = pwrite(fd, "x", 1, strtol(argv[2], NULL, 0));
		printf("procbus: write at %s: %zd %s\n", argv[2], n,
		       n < 0 ? strerror(errno) : "(let through)");
	}
	return n < 0;
}
