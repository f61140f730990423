/*
 * reset-net-snap: prints the guest reset's network snapshot
 * (initramfs/guest/reset_net.c, rs_net_snapshot) of the namespace it runs
 * in, for initramfs/tests/test_reset_net.py. With `repair BASE`, first puts
 * the namespace back as the snapshot in file BASE says (rs_net_repair) and
 * prints what it did on stderr. Exit 1 when a step fails.
 */
#include <stdio.h>
#include <string.h>

#include "reset.h"

int main(int argc, char **argv)
{
	struct rs_buf out = {0};
	int err = 0;

	if (argc == 3 && strcmp(argv[1], "repair") == 0) {
		struct rs_buf base = {0}, done = {0};

		err = rs_read_file(argv[2], &base);
		if (!err)
			err = rs_net_repair(base.p ? base.p : "", base.len, &done);
		fprintf(stderr, "repaired:%.*s\n", (int)done.len, done.p ? done.p : "");
		rs_buf_free(&base);
		rs_buf_free(&done);
	}
	if (!err)
		err = rs_net_snapshot(&out);
	if (out.len)
		fwrite(out.p, 1, out.len, stdout);
	if (err)
		fprintf(stderr, "reset-net-snap: %s\n", strerror(-err));
	rs_buf_free(&out);
	return err ? 1 : 0;
}
