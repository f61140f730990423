/* ha73-nsproof.c: hostile review h-attack73, question 3. The same proof as
 * contain.c open_ns_dir + started_in_our_userns (c412020), printed: whether
 * /proc is procfs, whether self/ns is reached from it by openat2
 * RESOLVE_NO_XDEV|RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, and whether "user"
 * opens there. USERNS_ABSENT needs proven and ENOENT. Run under mounts of
 * your own (unshare -m sh -c "mount ...; ./ha73-nsproof"):
 *   musl-gcc -static -O2 -isystem build/kheaders -o /tmp/nsproof tests/review/ha73-nsproof.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve =
				   RESOLVE_NO_XDEV | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	struct statfs s;
	int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC), dir, fd;
	int isproc = proc >= 0 && fstatfs(proc, &s) == 0 && s.f_type == PROC_SUPER_MAGIC;
	dir = isproc ? (int)syscall(SYS_openat2, proc, "self/ns", &how, sizeof(how)) : -1;
	int e = errno;
	int proven = dir >= 0;
	if (dir < 0)
		dir = open("/proc/self/ns", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = dir >= 0 ? openat(dir, "user", O_RDONLY | O_CLOEXEC) : -1;
	printf("procfs=%d proven=%d (openat2 %s) user=%s => %s\n", isproc, proven,
	       proven ? "ok" : strerror(e), fd >= 0 ? "ok" : strerror(errno),
	       fd < 0 && errno == ENOENT && proven ? "USERNS_ABSENT" : "not absent");
	return 0;
}
