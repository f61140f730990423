/* ha18-fused.c (hostile review h-attack18, against main 22693ed): a
 * stand-in for a network file system's client (sshfs, s3fs, gcsfuse; the
 * kernel's NFS or CIFS client does the same without a daemon): a minimal
 * FUSE daemon, outside the run, mounted at argv[1], that writes each name
 * it is asked to look up to argv[2] (where sshfs would send it to its
 * server) and answers ENOENT. Raw /dev/fuse protocol, no libfuse. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int fuse_fd;

static void reply(uint64_t unique, int err, const void *data, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 512];
	struct fuse_out_header *h = (struct fuse_out_header *)buf;

	h->len = sizeof(*h) + len;
	h->error = err;
	h->unique = unique;
	memcpy(buf + sizeof(*h), data, len);
	if (write(fuse_fd, buf, h->len) < 0 && errno != ENOENT)
		perror("fused: reply");
}

int main(int argc, char **argv)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	char opts[128];
	FILE *log;

	if (argc < 3)
		return 2;
	log = fopen(argv[2], "a");
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (!log || fuse_fd < 0) {
		perror("fused: open");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("ha18", argv[1], "fuse.ha18", MS_NOSUID | MS_NODEV, opts) != 0) {
		perror("fused: mount");
		return 1;
	}
	printf("fused: mounted at %s\n", argv[1]);
	fflush(stdout);
	for (;;) {
		ssize_t n = read(fuse_fd, buf, sizeof(buf));
		struct fuse_in_header *in = (struct fuse_in_header *)buf;

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return 0; /* ENODEV: unmounted */
		}
		if (in->opcode == FUSE_INIT) {
			struct fuse_init_in *ii = (struct fuse_init_in *)(in + 1);
			struct fuse_init_out o = {.major = FUSE_KERNEL_VERSION,
						  .minor = ii->minor < 31 ? ii->minor : 31,
						  .max_readahead = ii->max_readahead,
						  .max_write = 4096};

			reply(in->unique, 0, &o, sizeof(o));
		} else if (in->opcode == FUSE_GETATTR) {
			struct fuse_attr_out o = {
			    .attr = {.ino = 1, .mode = S_IFDIR | 0755, .nlink = 2}};

			reply(in->unique, 0, &o, sizeof(o));
		} else if (in->opcode == FUSE_LOOKUP) {
			fprintf(log, "lookup from pid %u: %s\n", in->pid, (char *)(in + 1));
			fflush(log);
			reply(in->unique, -ENOENT, NULL, 0);
		} else if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET) {
			continue;
		} else {
			reply(in->unique, -ENOSYS, NULL, 0);
		}
	}
}
