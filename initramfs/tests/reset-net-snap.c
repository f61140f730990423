/*
 * reset-net-snap: prints the guest reset's network snapshot
 * (initramfs/guest/reset_net.c, rs_net_snapshot) of the namespace it runs
 * in, for initramfs/tests/test_reset_net.py. Exit 1 when the snapshot
 * fails.
 */
#include <stdio.h>
#include <string.h>

#include "reset.h"

int main(void)
{
	struct rs_buf out = {0};
	int err = rs_net_snapshot(&out);

	if (out.len)
		fwrite(out.p, 1, out.len, stdout);
	if (err)
		fprintf(stderr, "reset-net-snap: %s\n", strerror(-err));
	rs_buf_free(&out);
	return err ? 1 : 0;
}
