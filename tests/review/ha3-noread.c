/*
 * ha3-noread: connects to DEST with the name in a PROT_EXEC-only or a
 * PROT_WRITE-only page. Without protection keys (no pku in /proc/cpuinfo)
 * x86_64 has no execute-only pages and a writable PTE is readable: the
 * agent's own connect reads the name (its fault handler takes VM_EXEC or
 * VM_WRITE as accessible, vma_is_accessible), while get_user_pages refuses a
 * mapping without VM_READ (check_vma_flags: EFAULT without FOLL_FORCE) and
 * the maps line says "--xp" or "-w-p", so range_readable finds it unreadable
 * and the connect is filed as the agent's bad address.
 *
 * "none" (PROT_NONE) is the control: EFAULT for the agent too, invalid.
 *
 *     ha3-noread exec|write|none DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct agent_dest d;
	size_t page;
	void *p;
	int fd;
	long r;

	agent_init("ha3-noread");
	if (argc != 3 || agent_parse_dest(argv[2], &d) < 0)
		return agent_usage("exec|write|none DEST");
	page = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, &d.ss, d.len);
	r = mprotect(p, page,
		     strcmp(argv[1], "write") == 0  ? PROT_WRITE
		     : strcmp(argv[1], "none") == 0 ? PROT_NONE
						    : PROT_EXEC);
	agent_log("mprotect", NULL, r, errno, NULL);
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, p, d.len);
	agent_log("connect_no_read", d.text, r, errno, NULL);
	close(fd);
	return 0;
}
