/*
 * ha4-lowmap: ways an agent might get a page below vm.mmap_min_addr (the
 * supervisor's bound: a failed read there is the agent's EFAULT). Each
 * attempt at page 0 is logged; one that succeeds gets a PROT_WRITE-only
 * page (readable to the agent, refused to process_vm_readv) holding DEST,
 * and a connect with that name, which the supervisor would file invalid
 * (pass). Methods: mmap MAP_FIXED, MAP_FIXED_NOREPLACE, mremap
 * MREMAP_FIXED, personality(MMAP_PAGE_ZERO) and exec (the ELF loader's
 * SVr4 page 0), a MAP_GROWSDOWN stack grown down to page 0.
 *
 *     ha4-lowmap DEST
 */
#include "agentlib.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static struct agent_dest d;
/* Page 0, kept in a volatile so the compiler does not reason about it. */
static uintptr_t volatile low;

static void try_connect(const char *how)
{
	int s = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long r;

	volatile unsigned char *zero = (volatile unsigned char *)low;

	for (socklen_t i = 0; i < d.len; i++) /* the page is ours: writable */
		zero[i] = ((unsigned char *)&d.ss)[i];
	mprotect((void *)low, 4096, PROT_WRITE);
	r = connect(s, (void *)low, d.len);
	agent_log(how, d.text, r, errno, NULL);
}

static void got(const char *how, void *p)
{
	agent_log(how, NULL, p == (void *)0 ? 0 : -1, p == MAP_FAILED ? errno : EEXIST, NULL);
	if (p == (void *)0)
		try_connect(how);
}

static sigjmp_buf jb;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	void *p;
	char *q;

	agent_init("ha4-lowmap");
	if (argc == 3 && strcmp(argv[1], "--exec") == 0) {
		/* After exec with MMAP_PAGE_ZERO: is page 0 there? */
		if (agent_parse_dest(argv[2], &d) < 0)
			return 2;
		got("page_zero_personality",
		    mprotect((void *)0, 4096, PROT_READ) == 0 ? (void *)0 : MAP_FAILED);
		return 0;
	}
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0)
		return agent_usage("DEST");
	got("mmap_fixed", mmap((void *)0, 4096, PROT_READ | PROT_WRITE,
			       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	got("mmap_fixed_noreplace", mmap((void *)0, 4096, PROT_READ | PROT_WRITE,
					 MAP_FIXED_NOREPLACE | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	got("mremap_fixed", mremap(q, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)0));
	/* A grows-down mapping right above page 0, touched below its start. */
	p = mmap((void *)4096, 4096, PROT_READ | PROT_WRITE,
		 MAP_FIXED_NOREPLACE | MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
	if (p == (void *)4096) {
		signal(SIGSEGV, on_segv);
		if (sigsetjmp(jb, 1) == 0) {
			*(volatile char *)(low + 16) = 1;
			got("growsdown", (void *)0);
		} else {
			agent_log("growsdown", NULL, -1, EFAULT, NULL);
		}
		signal(SIGSEGV, SIG_DFL);
	} else {
		agent_log("growsdown_base", NULL, -1, errno, NULL);
	}
	if (fork() == 0) {
		char *args[] = {argv[0], "--exec", argv[1], NULL};

		personality(PER_LINUX | MMAP_PAGE_ZERO);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	wait(NULL);
	return 0;
}
