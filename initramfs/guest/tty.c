/*
 * egress-tty: the caller's terminal for a cell with stdio=N pty.
 *
 *     egress-tty --path-file FILE --typed FILE
 *
 * Run by the guest init as root before the supervisor. Makes a
 * pseudo-terminal, puts the slave in raw mode (so every queued byte can be
 * read, newline or not), writes the slave's path to the path file (written
 * whole, then renamed into place) and holds the master until SIGTERM. Then
 * it reads, without blocking, every byte queued as input on the slave (what
 * the run typed there with TIOCSTI: what the caller's shell would read and
 * run once the supervisor is done) into the typed file, and exits 0. The
 * input is never run: the host's oracle holds any byte of it to be an
 * escape (docs/guest.md "The caller's terminal").
 * Exit status: 0, or 1 with the reason on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "egress-tty: %s: %s\n", what, strerror(errno));
	return 1;
}

static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[4096];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *path_file = NULL, *typed_file = NULL;
	char slave_path[64], typed[65536];
	struct termios t;
	size_t got = 0;
	sigset_t set;
	int master, slave, sig;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--path-file") == 0)
			path_file = argv[i + 1];
		else if (strcmp(argv[i], "--typed") == 0)
			typed_file = argv[i + 1];
	}
	if (!path_file || !typed_file || argc != 5) {
		fprintf(stderr, "usage: egress-tty --path-file FILE --typed FILE\n");
		return 2;
	}
	/* SIGTERM only through sigwait: blocked before anyone can send it. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return die("posix_openpt (/dev/ptmx, devpts on /dev/pts)");
	if (grantpt(master) != 0 || unlockpt(master) != 0 ||
	    ptsname_r(master, slave_path, sizeof(slave_path)) != 0)
		return die("unlockpt/ptsname");
	slave = open(slave_path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (slave < 0)
		return die(slave_path);
	if (tcgetattr(slave, &t) != 0)
		return die("tcgetattr");
	cfmakeraw(&t);
	if (tcsetattr(slave, TCSANOW, &t) != 0)
		return die("tcsetattr");
	{
		char line[80];
		int n = snprintf(line, sizeof(line), "%s\n", slave_path);

		if (write_file(path_file, line, (size_t)n) != 0)
			return die(path_file);
	}
	if (sigwait(&set, &sig) != 0)
		return die("sigwait");
	for (;;) {
		ssize_t n = read(slave, typed + got, sizeof(typed) - got);

		if (n > 0 && (got += (size_t)n) < sizeof(typed))
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		/* EAGAIN: the queue is empty. Any other failure means the queue
		 * was not read, and an empty tty_input would then claim nothing
		 * was typed: fail instead, so the cell cannot be judged on it. */
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return die("read of the queued input");
		break;
	}
	if (write_file(typed_file, typed, got) != 0)
		return die(typed_file);
	return 0;
}
