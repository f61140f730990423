/*
 * i386-socketcall: from a 64-bit process, enters the i386 syscall table with
 * int $0x80: socketcall(SYS_CONNECT) (nr 102) and the direct i386 connect
 * (nr 362) to the IPv4 DEST. Pointers are 32-bit there, so the arguments live
 * in a MAP_32BIT page. Without IA32 emulation int $0x80 raises SIGSEGV, which
 * is logged as the result.
 */
#include "agentlib.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define I386_SOCKETCALL 102
#define I386_CONNECT 362
#define SOCKETCALL_CONNECT 3

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(segv_jmp, 1);
}

/* int $0x80 from 64-bit code; r8-r11 are not preserved on every kernel. */
static long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "r8", "r9", "r10", "r11", "memory");
	return ret;
}

static void logged_int80(const char *call, const struct agent_dest *d, long nr, long a, long b,
			 long c)
{
	struct sigaction sa = {.sa_handler = on_segv};
	long r;

	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(segv_jmp, 1)) {
		agent_log(call, d->text, -1, 0, ",\"signal\":\"SIGSEGV\"");
		return;
	}
	r = int80(nr, a, b, c);
	agent_log(call, d->text, r < 0 ? -1 : r, (int)-r, NULL);
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	unsigned char *low;
	uint32_t *args;
	int fd;

	agent_init("i386-socketcall");
	if (argc != 2 || agent_parse_dest(argv[1], &d) < 0 || d.family != AF_INET)
		return agent_usage("A.B.C.D:PORT");
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1,
		   0);
	if (low == MAP_FAILED) {
		agent_log("mmap", NULL, -1, errno, NULL);
		return 0;
	}
	memcpy(low, &d.ss, d.len);
	args = (uint32_t *)(low + 256);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	args[0] = (uint32_t)fd;
	args[1] = (uint32_t)(uintptr_t)low;
	args[2] = d.len;
	logged_int80("socketcall_connect", &d, I386_SOCKETCALL, SOCKETCALL_CONNECT,
		     (long)(uintptr_t)args, 0);
	close(fd);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	logged_int80("i386_connect", &d, I386_CONNECT, fd, (long)(uintptr_t)low, d.len);
	close(fd);
	return 0;
}
