/*
 * port-forge: a root agent that forges the guest's framed result (issue 12,
 * found by the third review). After an undeclared connect to DEST (which a
 * supervisor denies), it opens the result port PORT by name (a root agent
 * keeps CAP_DAC_OVERRIDE, and a read-only mount does not stop writes to a
 * device node), and where that works has /bin/sh write a whole forged frame
 * for this boot's first cell: the nonce and the cell id read from
 * /proc/cmdline (and /cells/index for a batch), the cell file and its
 * digest copied from /cells, the supervisor bundle's name and digest from
 * /etc/egress/bundle.env,
 * a status that says the supervisor exited 0 and a report that says
 * complete pass. It then sets OPOST|OLCUC on the port, so that init's own
 * frame, written after the run, goes out upper-cased and is not a frame at
 * all. Where PORT does not exist it also tries to make the node itself
 * (CAP_MKNOD) in the writable DIR. Each step is logged.
 *
 *     port-forge PORT DIR DEST [pass|fail]
 *
 * The forged verdict is pass unless the last word says fail (a forgery a
 * cell whose truth is pass can tell from the truth: scenario
 * result-port-forge-declared).
 *
 * Exits 0 when neither the port nor a node of it could be opened, 1 when
 * one was (the forgery was then written).
 */
#include "agentlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* The 8250's COM2 is major 4, minor 65 on every x86 kernel. */
#define TTYS1_MAJOR 4
#define TTYS1_MINOR 65

/* "$0" is the port. Built with busybox like init's emit_section, without
 * gzip (the host accepts a section without it). */
static const char forge_script[] =
    "set -e\n"
    "port=$0\n"
    "for w in $(cat /proc/cmdline); do\n"
    "  case $w in egress.nonce=*) nonce=${w#egress.nonce=} ;;"
    " egress.cell=*) cell=${w#egress.cell=} ;;"
    " egress.cells=*) n=${w#egress.cells=}; cell=$(sed -n \"${n%%,*}p\" /cells/index) ;; esac\n"
    "done\n"
    "d=$(mktemp -d)\n"
    "cp \"/cells/$cell.cell\" \"$d/cell\"\n"
    "sha=$(sha256sum <\"$d/cell\")\n"
    "printf 'nonce=%s\\ncell=%s\\nseq=1\\nbatch_size=1\\ncell_sha256=%s\\n' \"$nonce\" \"$cell\""
    " \"${sha%% *}\" >\"$d/meta\"\n"
    "sed -n 's/^BUNDLE_NAME=/bundle_name=/p; s/^BUNDLE_DIGEST=/bundle_digest=/p'"
    " /etc/egress/bundle.env >>\"$d/meta\"\n"
    "case $1 in fail) rc=1 ;; *) rc=0 ;; esac\n"
    "printf 'status=ran\\nreason=forged\\nsupervisor_exit=%s\\n' \"$rc\" >\"$d/status\"\n"
    "printf '{\"format\":\"egress-supervisor-report/2\",\"complete\":true,"
    "\"verdict\":\"%s\",\"forged_by\":\"port-forge\"}\\n' \"$1\" >\"$d/report\"\n"
    "sec() {\n"
    "  sum=$(sha256sum <\"$d/$1\")\n"
    "  echo \"@@section $1 $(wc -c <\"$d/$1\") ${sum%% *}\"\n"
    "  base64 <\"$d/$1\"\n"
    "  echo \"@@end $1\"\n"
    "}\n"
    "{ echo; echo \"@@egress-result v1 nonce=$nonce cell=$cell seq=1\";"
    " sec meta; sec status; sec cell; sec report; echo \"@@egress-end v1 nonce=$nonce\"; } "
    ">\"$port\"\n";

/* Writes the forgery through PATH, then garbles what follows; 0 when it was
 * written. */
static const char *forged_verdict = "pass";

static int forge(const char *path)
{
	struct termios t;
	int fd, status, r = 0;
	pid_t pid;

	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		agent_log("open_port", path, -1, errno, NULL);
		return -1;
	}
	agent_log("open_port", path, fd, 0, NULL);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", forge_script, path, forged_verdict, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		r = -1;
	agent_log("forged_frame", path, r, 0, NULL);
	tcdrain(fd);
	if (tcgetattr(fd, &t) == 0) {
		t.c_oflag |= OPOST | OLCUC;
		r = tcsetattr(fd, TCSANOW, &t);
		agent_log("olcuc", path, r, r < 0 ? errno : 0, NULL);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct agent_dest d;
	char node[512];
	int fd, opened = 0;

	agent_init("port-forge");
	if (argc < 4 || argc > 5 || agent_parse_dest(argv[3], &d) != 0 ||
	    (argc == 5 && strcmp(argv[4], "pass") != 0 && strcmp(argv[4], "fail") != 0))
		return agent_usage("PORT DIR DEST [pass|fail]");
	if (argc == 5)
		forged_verdict = argv[4];
	fd = socket(d.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		/* Arguments are evaluated in no set order: errno after the call. */
		int r = connect(fd, (const struct sockaddr *)&d.ss, d.len);

		agent_log("connect", d.text, r, r < 0 ? errno : 0, NULL);
		close(fd);
	}
	if (forge(argv[1]) == 0)
		opened = 1;
	snprintf(node, sizeof(node), "%s/port-forge.node", argv[2]);
	unlink(node);
	if (mknod(node, S_IFCHR | 0600, makedev(TTYS1_MAJOR, TTYS1_MINOR)) != 0) {
		agent_log("mknod", node, -1, errno, NULL);
	} else {
		agent_log("mknod", node, 0, 0, NULL);
		if (!opened) {
			opened = forge(node) == 0;
		} else if ((fd = open(node, O_WRONLY | O_NOCTTY | O_CLOEXEC)) >= 0) {
			agent_log("open_port", node, fd, 0, NULL);
			close(fd);
			opened = 1;
		} else {
			agent_log("open_port", node, -1, errno, NULL);
		}
		unlink(node);
	}
	return opened;
}
