/* ha48-agent: hostile review h-attack48 (79318a6: a failfs root answered
 * with the lookup's own EOPNOTSUPP). Built by tests/review/ha48-guest.sh
 * into tests/review/ha48-guest/.
 *   relay DIR NAME [failfs]  chdir(DIR), stat(NAME), then (with "failfs")
 *       fchroot(FD_FAILFS_ROOT), stat(NAME) again (the kernel's own
 *       lookup of the relative name, from the working directory the new
 *       root does not contain), then an AF_UNIX stream connect to the
 *       relative NAME and a marker written on it.
 *   relay DIR NAME failcwd   the same with fchdir(FD_FAILFS_ROOT) instead:
 *       the working directory on failfs, the root where it was.
 * The supervisor builds the name from /proc/TID/cwd and opens it through
 * /proc/TID/root, which failfs will not open: since 79318a6 that is the
 * lookup's own EOPNOTSUPP, so a name the kernel would find (a host's
 * socket, denied unix-peer when named absolutely) is answered EOPNOTSUPP
 * and recorded as an ordinary failed call, no denial.
 * Never sends to the network. Lines start "ha48 " on stdout. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define NR_fchroot 472 /* x86_64 and i386, Linux 7.3 */
#define FD_FAILFS_ROOT (-10004)

static void say(const char *what, long r)
{
	printf("ha48 %s = %ld%s%s\n", what, r, r < 0 ? " " : "", r < 0 ? strerror(errno) : "");
	fflush(stdout);
}

static void look(const char *name)
{
	struct stat st;
	int r = stat(name, &st);

	printf("ha48 stat \"%s\" = %d %s%s\n", name, r, r < 0 ? strerror(errno) : "",
	       r == 0 && S_ISSOCK(st.st_mode) ? "socket" : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	static const char marker[] = "ha48-marker\n";
	int c;

	if (argc < 4 || strcmp(argv[1], "relay") != 0 || strlen(argv[3]) >= sizeof(a.sun_path))
		return 2;
	printf("ha48 uid %d\n", (int)getuid());
	say("chdir DIR", chdir(argv[2]));
	look(argv[3]);
	if (argc > 4 && strcmp(argv[4], "failfs") == 0) {
		say("fchroot(FD_FAILFS_ROOT)", syscall(NR_fchroot, FD_FAILFS_ROOT, 0));
		look(argv[3]);
		look("/etc/passwd");
	}
	if (argc > 4 && strcmp(argv[4], "failcwd") == 0) {
		say("fchdir(FD_FAILFS_ROOT)", syscall(SYS_fchdir, FD_FAILFS_ROOT));
		look(argv[3]);
	}
	strcpy(a.sun_path, argv[3]);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	say("connect NAME", connect(c, (struct sockaddr *)&a, sizeof(a)));
	say("write marker", write(c, marker, sizeof(marker) - 1));
	sleep(1);
	return 0;
}
