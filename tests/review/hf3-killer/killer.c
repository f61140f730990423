/*
 * hf3-killer: a supervisor of another design for the appliance (review
 * h-foreign3). "Kill on violation": a seccomp user-notification supervisor
 * that performs every judged call itself on a duplicate of the agent's
 * socket (never SECCOMP_USER_NOTIF_FLAG_CONTINUE on a name read from
 * memory) and answers an undeclared one, or any call outside its small
 * world (a foreign ABI, io_uring, a socket family other than unix/inet/
 * inet6, ptrace), by SIGKILLing the whole agent tree. The agent never sees
 * an errno for a refusal. The agent is init of a pid namespace of its own
 * (bubblewrap's shape: the run ends when the agent's first process ends,
 * and the kernel kills whatever the agent left in the namespace), so
 * nothing outlives the run. Verdict: fail after a violation, capability-
 * error after a mechanism failure (a name it could not read, a socket it
 * could not duplicate), else pass. Writes an appliance-v1 report.
 *
 * The listener is handed over through a shared descriptor table (clone
 * with CLONE_FILES; execve unshares it), so setting up needs no ptrace
 * access: only a trapped call needs to read the agent.
 *
 * Built static with musl-gcc; x86_64 only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

struct rule {
	int family;
	unsigned char addr[16];
	int prefix;
	int lo, hi;
};

static struct rule rules[256];
static int nrules;
static int loopback = 1;
static const char *peers[64];
static int npeers;
static int report_fd = -1;
static pid_t agent;
static volatile int violated, capfail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *events;
static size_t evlen, evcap;
static int nevents;

static void die(const char *msg)
{
	fprintf(stderr, "hf3-killer: %s: %s\n", msg, strerror(errno));
	exit(3);
}

static int parse_spec(const char *s, struct rule *r)
{
	char buf[128], *p, *port = NULL, *slash;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	p = buf;
	if (*p == '[') {
		char *e = strchr(p, ']');
		if (!e)
			return -1;
		*e = 0;
		p++;
		if (e[1] == '/') {
			slash = e + 1;
			port = strchr(slash, ':');
			if (port)
				*port++ = 0;
			r->prefix = atoi(slash + 1);
		} else {
			r->prefix = 128;
			if (e[1] == ':')
				port = e + 2;
		}
		r->family = AF_INET6;
		if (inet_pton(AF_INET6, p, r->addr) != 1)
			return -1;
	} else {
		port = strchr(p, ':');
		if (port)
			*port++ = 0;
		slash = strchr(p, '/');
		r->prefix = 32;
		if (slash) {
			*slash = 0;
			r->prefix = atoi(slash + 1);
		}
		r->family = AF_INET;
		if (inet_pton(AF_INET, p, r->addr) != 1)
			return -1;
	}
	r->lo = 0;
	r->hi = 65535;
	if (port && *port) {
		char *dash = strchr(port, '-');
		r->lo = atoi(port);
		r->hi = dash ? atoi(dash + 1) : r->lo;
	}
	return 0;
}

static int prefix_match(const unsigned char *a, const unsigned char *b, int bits)
{
	int i;

	for (i = 0; bits > 0; i++, bits -= 8) {
		unsigned char m = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));
		if ((a[i] & m) != (b[i] & m))
			return 0;
	}
	return 1;
}

/* 1 declared, 0 undeclared; DEST gets its text. Mapped IPv6 is IPv4. */
static int judge_inet(const struct sockaddr_storage *ss, socklen_t len, char *dest, size_t dl)
{
	unsigned char a[16];
	int fam, port, i;
	char t[64];

	if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s = (const void *)ss;
		fam = AF_INET;
		memcpy(a, &s->sin_addr, 4);
		port = ntohs(s->sin_port);
	} else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s = (const void *)ss;
		port = ntohs(s->sin6_port);
		if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) {
			fam = AF_INET;
			memcpy(a, &s->sin6_addr.s6_addr[12], 4);
		} else {
			fam = AF_INET6;
			memcpy(a, &s->sin6_addr, 16);
		}
	} else {
		snprintf(dest, dl, "family=%d", ss->ss_family);
		return 0;
	}
	inet_ntop(fam, a, t, sizeof(t));
	if (fam == AF_INET6)
		snprintf(dest, dl, "[%s]:%d", t, port);
	else
		snprintf(dest, dl, "%s:%d", t, port);
	if (loopback) {
		if (fam == AF_INET && a[0] == 127)
			return 1;
		static const unsigned char one[16] = {[15] = 1};
		if (fam == AF_INET6 && memcmp(a, one, 16) == 0)
			return 1;
	}
	for (i = 0; i < nrules; i++)
		if (rules[i].family == fam && prefix_match(a, rules[i].addr, rules[i].prefix) &&
		    port >= rules[i].lo && port <= rules[i].hi)
			return 1;
	return 0;
}

/* A name: 1 declared (or nothing to judge: AF_UNSPEC), 0 undeclared. */
static int judge(const struct sockaddr_storage *ss, socklen_t len, char *dest, size_t dl)
{
	int i;

	if (len < sizeof(sa_family_t)) {
		snprintf(dest, dl, "short");
		return 0;
	}
	if (ss->ss_family == AF_UNSPEC) {
		snprintf(dest, dl, "unspec");
		return 1;
	}
	if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *u = (const void *)ss;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);
		char name[sizeof(u->sun_path) + 2];

		if (n == 0) {
			snprintf(dest, dl, "unix:");
			return 0;
		}
		if (u->sun_path[0] == 0) {
			name[0] = '@';
			memcpy(name + 1, u->sun_path + 1, n - 1);
			name[n] = 0;
		} else {
			memcpy(name, u->sun_path, n);
			name[n] = 0;
		}
		snprintf(dest, dl, "unix:%s", name);
		/* The agent spells the name: nothing of it may end a JSON string. */
		for (char *c = dest; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ||
			    (unsigned char)*c > 0x7e)
				*c = '?';
		for (i = 0; i < npeers; i++)
			if (strcmp(peers[i], name) == 0)
				return 1;
		return 0;
	}
	return judge_inet(ss, len, dest, dl);
}

static const char *errname(int e)
{
	static char other[16];

	switch (e) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EINPROGRESS:
		return "EINPROGRESS";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	case ECONNRESET:
		return "ECONNRESET";
	case ENETUNREACH:
		return "ENETUNREACH";
	case EHOSTUNREACH:
		return "EHOSTUNREACH";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case EINVAL:
		return "EINVAL";
	case EAGAIN:
		return "EAGAIN";
	case EISCONN:
		return "EISCONN";
	case ENOTCONN:
		return "ENOTCONN";
	case EALREADY:
		return "EALREADY";
	case EBADF:
		return "EBADF";
	case EFAULT:
		return "EFAULT";
	case EINTR:
		return "EINTR";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case EPIPE:
		return "EPIPE";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case EADDRNOTAVAIL:
		return "EADDRNOTAVAIL";
	case EMSGSIZE:
		return "EMSGSIZE";
	case EDESTADDRREQ:
		return "EDESTADDRREQ";
	}
	snprintf(other, sizeof(other), "E%d", e);
	return other;
}

static void event(const char *sc, const char *dest, const char *bucket, const char *action,
		  long result, int err)
{
	char buf[512];
	int n;

	n = snprintf(buf + 1, sizeof(buf) - 1,
		     "{\"syscall\":\"%s\",\"dest\":\"%s\",\"bucket\":\"%s\",\"action\":\"%s\","
		     "\"result\":%ld,\"errno\":%s%s%s}",
		     sc, dest, bucket, action, result, err ? "\"" : "", err ? errname(err) : "null",
		     err ? "\"" : "");
	/* The separator is decided under the lock: two first events racing
	 * made "}{" (a report that is not JSON, threads-load on debian-5.10). */
	pthread_mutex_lock(&lock);
	buf[0] = ',';
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (nevents == 0) {
		memmove(buf, buf + 1, n);
	} else {
		n++;
	}
	if (evlen + n + 1 > evcap) {
		evcap = (evcap + n + 1) * 2;
		events = realloc(events, evcap);
		if (!events)
			abort();
	}
	memcpy(events + evlen, buf, n);
	evlen += n;
	nevents++;
	pthread_mutex_unlock(&lock);
}

static void write_report(int final, const char *verdict, int status)
{
	char head[128], *body;
	size_t bl;
	FILE *f;

	if (report_fd < 0)
		return;
	f = open_memstream(&body, &bl);
	if (!f)
		return;
	fprintf(f,
		"{\"schema\":\"egress-supervisor-report/2\",\"complete\":%s,\"verdict\":\"%s\","
		"\"supervisor\":{\"name\":\"hf3-killer\"},",
		final ? "true" : "false", verdict);
	if (final && agent > 0) {
		if (WIFEXITED(status))
			fprintf(f, "\"agent\":{\"pid\":%d,\"exit_code\":%d,\"signal\":null},",
				agent, WEXITSTATUS(status));
		else
			fprintf(f, "\"agent\":{\"pid\":%d,\"exit_code\":null,\"signal\":%d},",
				agent, WTERMSIG(status));
	}
	pthread_mutex_lock(&lock);
	fprintf(f, "\"events\":[%.*s]}", (int)evlen, events ? events : "");
	pthread_mutex_unlock(&lock);
	fclose(f);
	snprintf(head, sizeof(head), "egress-supervisor-report-record/1 %s %zu\n",
		 final ? "final" : "provisional", bl);
	if (write(report_fd, head, strlen(head)) < 0 || write(report_fd, body, bl) < 0)
		fprintf(stderr, "hf3-killer: report: %s\n", strerror(errno));
	free(body);
}

static void kill_tree(void)
{
	/* The agent is init of its pid namespace: its death takes the rest. */
	kill(agent, SIGKILL);
}

static void violation(const char *sc, const char *dest)
{
	violated = 1;
	event(sc, dest, "denied", "killed", -1, 0);
	kill_tree();
}

static void mech_failure(const char *sc, const char *what, int err)
{
	capfail = 1;
	fprintf(stderr, "hf3-killer: %s: %s: %s\n", sc, what, strerror(err));
	event(sc, what, "mechanism", "killed", -1, err);
	kill_tree();
}

static int listener;

static int id_valid(uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void respond(uint64_t id, long val, int err, int cont)
{
	struct seccomp_notif_resp r = {.id = id, .val = val, .error = err ? -err : 0};

	if (cont) {
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		r.val = 0;
		r.error = 0;
	}
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

static int readmem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EFAULT;
}

static int tgid_of(pid_t tid)
{
	char p[64], line[256];
	FILE *f;
	int tg = -1;

	snprintf(p, sizeof(p), "/proc/%d/status", tid);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tg) == 1)
			break;
	fclose(f);
	return tg;
}

/* A duplicate of the caller's descriptor FD, or -errno. */
static int dup_fd(pid_t tid, int fd)
{
	int tg = tgid_of(tid), pfd, r;

	if (tg < 0)
		return -ESRCH;
	pfd = syscall(SYS_pidfd_open, tg, 0);
	if (pfd < 0)
		return -errno;
	r = syscall(SYS_pidfd_getfd, pfd, fd, 0);
	r = r < 0 ? -errno : r;
	close(pfd);
	return r;
}

/* Read the name (at ADDR, LEN) and judge it. 1 declared, 0 undeclared, -errno. */
static int read_name(struct seccomp_notif *n, uint64_t addr, uint64_t len,
		     struct sockaddr_storage *ss, socklen_t *sl, char *dest, size_t dl)
{
	int r;

	memset(ss, 0, sizeof(*ss));
	if (len > sizeof(*ss))
		len = sizeof(*ss);
	r = readmem(n->pid, addr, ss, len);
	if (r < 0)
		return r;
	*sl = len;
	return judge(ss, len, dest, dl);
}

#define MAXDATA (4u << 20)

/* Gather the iovecs at IOV (COUNT) into one buffer; its length in *LEN. */
static int read_iov(pid_t pid, uint64_t iov, uint64_t count, char **out, size_t *len)
{
	struct iovec v[64];
	size_t total = 0, i;
	char *buf;
	int r;

	if (count > 64)
		count = 64;
	if (count && (r = readmem(pid, iov, v, count * sizeof(v[0]))) < 0)
		return r;
	for (i = 0; i < count; i++)
		total += v[i].iov_len > MAXDATA ? MAXDATA : v[i].iov_len;
	if (total > MAXDATA)
		total = MAXDATA;
	buf = malloc(total + 1);
	if (!buf)
		return -ENOMEM;
	*len = 0;
	for (i = 0; i < count && *len < total; i++) {
		size_t l = v[i].iov_len;
		if (l > total - *len)
			l = total - *len;
		if (l && (r = readmem(pid, (uintptr_t)v[i].iov_base, buf + *len, l)) < 0) {
			free(buf);
			return r;
		}
		*len += l;
	}
	*out = buf;
	return 0;
}

static const char *scname(int nr)
{
	switch (nr) {
	case SYS_connect:
		return "connect";
	case SYS_sendto:
		return "sendto";
	case SYS_sendmsg:
		return "sendmsg";
	case SYS_sendmmsg:
		return "sendmmsg";
	case SYS_socket:
		return "socket";
	case SYS_socketpair:
		return "socketpair";
	case SYS_io_uring_setup:
		return "io_uring_setup";
	case SYS_ptrace:
		return "ptrace";
	case SYS_process_vm_writev:
		return "process_vm_writev";
	default:
		return "other";
	}
}

static void handle(struct seccomp_notif *n)
{
	const char *sc = scname(n->data.nr);
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	char dest[160] = "";
	uint64_t *a = (uint64_t *)n->data.args;
	int r, dup = -1;

	if (n->data.arch != AUDIT_ARCH_X86_64 || (n->data.nr & 0x40000000)) {
		violation("foreign-abi", "");
		return;
	}
	switch (n->data.nr) {
	case SYS_connect:
		r = read_name(n, a[1], a[2], &ss, &sl, dest, sizeof(dest));
		break;
	case SYS_sendto:
		if (a[4] == 0) {
			/* No name: the registers are the call; nothing in memory to flip. */
			respond(n->id, 0, 0, 1);
			return;
		}
		r = read_name(n, a[4], a[5], &ss, &sl, dest, sizeof(dest));
		break;
	case SYS_sendmsg: {
		struct msghdr m;
		r = readmem(n->pid, a[1], &m, sizeof(m));
		if (r == 0 && m.msg_controllen) {
			violation(sc, "control-message");
			return;
		}
		if (r == 0 && m.msg_name)
			r = read_name(n, (uintptr_t)m.msg_name, m.msg_namelen, &ss, &sl, dest,
				      sizeof(dest));
		else if (r == 0)
			r = 1;
		break;
	}
	case SYS_sendmmsg: {
		struct mmsghdr mm[64];
		unsigned vlen = a[2] > 64 ? 64 : (unsigned)a[2], i;
		r = vlen ? readmem(n->pid, a[1], mm, vlen * sizeof(mm[0])) : 0;
		for (i = 0; r == 0 && i < vlen; i++) {
			if (mm[i].msg_hdr.msg_controllen) {
				violation(sc, "control-message");
				return;
			}
			if (mm[i].msg_hdr.msg_name) {
				struct sockaddr_storage s2;
				socklen_t l2;
				char d2[160];
				int j =
				    read_name(n, (uintptr_t)mm[i].msg_hdr.msg_name,
					      mm[i].msg_hdr.msg_namelen, &s2, &l2, d2, sizeof(d2));
				if (j == 0) {
					violation(sc, d2);
					return;
				}
				if (j < 0)
					r = j;
			}
		}
		if (r == 0)
			r = 1;
		snprintf(dest, sizeof(dest), "batch");
		break;
	}
	default:
		violation(sc, "");
		return;
	}
	if (r < 0) {
		if (id_valid(n->id))
			mech_failure(sc, "read", -r);
		return;
	}
	if (r == 0) {
		violation(sc, dest);
		return;
	}
	if (!id_valid(n->id))
		return;
	dup = dup_fd(n->pid, (int)a[0]);
	if (dup == -EBADF) {
		respond(n->id, -1, EBADF, 0);
		return;
	}
	if (dup < 0) {
		if (id_valid(n->id))
			mech_failure(sc, "pidfd_getfd", -dup);
		return;
	}
	{
		long res = -1;
		int err = 0;
		char *data = NULL;
		size_t dl = 0;

		switch (n->data.nr) {
		case SYS_connect:
			res = connect(dup, (struct sockaddr *)&ss, sl);
			break;
		case SYS_sendto: {
			size_t len = a[2] > MAXDATA ? MAXDATA : a[2];
			data = malloc(len + 1);
			if (!data || (len && (err = -readmem(n->pid, a[1], data, len)) != 0)) {
				if (id_valid(n->id))
					mech_failure(sc, "read data", err ? err : ENOMEM);
				free(data);
				close(dup);
				return;
			}
			res = sendto(dup, data, len, (int)a[3], (struct sockaddr *)&ss, sl);
			break;
		}
		case SYS_sendmsg: {
			struct msghdr m;
			struct iovec v;
			if ((err = -readmem(n->pid, a[1], &m, sizeof(m))) != 0 ||
			    (err = -read_iov(n->pid, (uintptr_t)m.msg_iov, m.msg_iovlen, &data,
					     &dl)) != 0) {
				if (id_valid(n->id))
					mech_failure(sc, "read data", err);
				close(dup);
				return;
			}
			v.iov_base = data;
			v.iov_len = dl;
			m.msg_iov = &v;
			m.msg_iovlen = 1;
			m.msg_control = NULL;
			m.msg_controllen = 0;
			m.msg_name = sl ? &ss : NULL;
			m.msg_namelen = sl;
			res = sendmsg(dup, &m, (int)a[2]);
			break;
		}
		case SYS_sendmmsg: {
			struct mmsghdr mm[64];
			unsigned vlen = a[2] > 64 ? 64 : (unsigned)a[2], i;
			if ((err = -readmem(n->pid, a[1], mm, vlen * sizeof(mm[0]))) != 0) {
				if (id_valid(n->id))
					mech_failure(sc, "read data", err);
				close(dup);
				return;
			}
			res = 0;
			for (i = 0; i < vlen; i++) {
				struct msghdr m = mm[i].msg_hdr;
				struct sockaddr_storage s2;
				struct iovec v;
				socklen_t l2 = 0;
				char d2[160];
				long k;
				if (m.msg_name && read_name(n, (uintptr_t)m.msg_name, m.msg_namelen,
							    &s2, &l2, d2, sizeof(d2)) != 1) {
					violation(sc, d2);
					close(dup);
					return;
				}
				if (read_iov(n->pid, (uintptr_t)m.msg_iov, m.msg_iovlen, &data,
					     &dl) < 0)
					break;
				v.iov_base = data;
				v.iov_len = dl;
				m.msg_iov = &v;
				m.msg_iovlen = 1;
				m.msg_name = m.msg_name ? &s2 : NULL;
				m.msg_namelen = m.msg_name ? l2 : 0;
				k = sendmsg(dup, &m, (int)a[3]);
				free(data);
				data = NULL;
				if (k < 0) {
					if (i == 0)
						res = -1;
					break;
				}
				mm[i].msg_len = (unsigned)k;
				{
					struct iovec lv = {&mm[i].msg_len, sizeof(mm[i].msg_len)};
					struct iovec rv = {
					    (void *)(uintptr_t)(a[1] + i * sizeof(mm[0]) +
								offsetof(struct mmsghdr, msg_len)),
					    sizeof(mm[i].msg_len)};
					process_vm_writev(n->pid, &lv, 1, &rv, 1, 0);
				}
				res++;
			}
			break;
		}
		}
		err = res < 0 ? errno : 0;
		free(data);
		close(dup);
		event(sc, dest, "allowed", "performed", res, err);
		respond(n->id, res, err, 0);
	}
}

static void *worker(void *p)
{
	handle(p);
	free(p);
	return NULL;
}

static int install_filter(void)
{
#define NOTIF SECCOMP_RET_USER_NOTIF
#define ALLOW SECCOMP_RET_ALLOW
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, NOTIF),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, NOTIF),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 8, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendto, 7, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendmsg, 6, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendmmsg, 5, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 4, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 7, 6),
	    BPF_STMT(BPF_RET | BPF_K, NOTIF),
	    /* socket: unix, inet, inet6 run; anything else is a violation. */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	    /* socketpair: unix only. */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		       &prog);
}

static void write_file(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(p);
	close(fd);
}

int main(int argc, char **argv)
{
	int i, sync[2], go[2], status = 0;
	char **av = NULL;
	pid_t pid;
	char buf[64];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			av = argv + i + 1;
			break;
		} else if (!strcmp(argv[i], "--report-fd") && i + 1 < argc) {
			report_fd = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
			if (nrules == 256 || parse_spec(argv[++i], &rules[nrules++]) < 0) {
				fprintf(stderr, "hf3-killer: bad --allow %s\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--no-loopback")) {
			loopback = 0;
		} else if (!strcmp(argv[i], "--unix-peer") && i + 1 < argc) {
			if (npeers < 64)
				peers[npeers++] = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--writable") && i + 1 < argc) {
			i++;
		} else {
			fprintf(stderr, "hf3-killer: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!av || !av[0])
		return 2;
	fcntl(report_fd, F_SETFD, FD_CLOEXEC);
	write_report(0, "capability-error", 0);
	/* uid 1000: a user namespace of its own for the pid namespace. */
	if (geteuid() != 0) {
		uid_t u = geteuid();
		gid_t g = getegid();
		if (unshare(CLONE_NEWUSER) < 0)
			die("unshare(CLONE_NEWUSER)");
		snprintf(buf, sizeof(buf), "%u %u 1\n", u, u);
		write_file("/proc/self/uid_map", buf);
		write_file("/proc/self/setgroups", "deny");
		snprintf(buf, sizeof(buf), "%u %u 1\n", g, g);
		write_file("/proc/self/gid_map", buf);
	}
	if (pipe2(sync, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		die("pipe");
	/* CLONE_FILES: the listener the child makes lands in our table too. */
	pid = syscall(SYS_clone, CLONE_FILES | CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
	if (pid < 0)
		die("clone(CLONE_NEWPID)");
	if (pid == 0) {
		int lfd, fd, null;
		struct stat st;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(127);
		lfd = install_filter();
		if (lfd < 0) {
			int e = errno;
			if (write(sync[1], "E", 1) < 0)
				_exit(127);
			_exit(e == ENOSYS || e == EINVAL ? 126 : 127);
		}
		snprintf(buf, sizeof(buf), "%d", lfd);
		if (write(sync[1], buf, strlen(buf)) < 0 || read(go[0], buf, 1) != 1)
			_exit(127);
		/* From here the table is the child's own. */
		if (unshare(CLONE_FILES) < 0)
			_exit(127);
		for (fd = 3; fd < 4096; fd++)
			close(fd);
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		for (fd = 1; fd <= 2; fd++)
			if (fstat(fd, &st) < 0 || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))
				dup2(null, fd);
		if (null > 2)
			close(null);
		execv(av[0], av);
		_exit(127);
	}
	agent = pid;
	/* The table is shared until the child has read "go" and unshared it:
	 * closing the pipes here would close them under the child. */
	i = read(sync[0], buf, sizeof(buf) - 1);
	if (i <= 0 || buf[0] == 'E') {
		waitpid(pid, &status, 0);
		fprintf(stderr, "hf3-killer: no listener (child status %d)\n", status);
		agent = 0;
		return 3;
	}
	buf[i] = 0;
	/* Our own copy, so the child's unshare and closes leave it open. */
	listener = fcntl(atoi(buf), F_DUPFD_CLOEXEC, 3);
	if (listener < 0)
		die("dup listener");
	if (write(go[1], "g", 1) != 1)
		die("go");
	for (;;) {
		struct pollfd p = {listener, POLLIN, 0};
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
			struct seccomp_notif *n = calloc(1, sizeof(*n) + 256);
			pthread_t t;
			pthread_attr_t at;

			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) < 0) {
				free(n);
				continue;
			}
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			pthread_attr_setstacksize(&at, 256 * 1024);
			if (pthread_create(&t, &at, worker, n) != 0)
				handle(n), free(n);
			pthread_attr_destroy(&at);
		} else if (p.revents & (POLLHUP | POLLERR)) {
			waitpid(pid, &status, 0);
			break;
		}
	}
	{
		const char *v = capfail ? "capability-error" : violated ? "fail" : "pass";
		write_report(1, v, status);
		fprintf(stderr, "hf3-killer: verdict %s (%d events)\n", v, nevents);
		fflush(stderr);
		_exit(capfail ? 3 : violated ? 1 : 0);
	}
}
