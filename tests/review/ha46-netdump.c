/*
 * Review h-attack46, brief item 3: can a cell's root agent make one of the
 * guest reset's netlink dumps answer EOPNOTSUPP or EAFNOSUPPORT (now a line
 * "unsupported dump ..." instead of a failure, ad83d7f) so that state it
 * left goes unseen? This harness links the guest's own reset_net.c and
 * prints rs_net_snapshot(): run it before and after the hostile state
 * (tests/review/ha46-netdump.sh does both in a private network namespace).
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
		printf("snapshot failed: %s\n", strerror(-err));
	rs_buf_free(&out);
	return err ? 1 : 0;
}
