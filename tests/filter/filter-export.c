/*
 * filter-export: the supervisor's seccomp filter as data, for the filter
 * table tests (tests/filter/run-filter-tests.py). Linked with the same
 * supervisor/filter.c the supervisor uses; nothing is loaded.
 *
 *   filter-export [--root|--judged] BPF_FILE
 *                                      the whole filter (every ABI), raw BPF;
 *                                      --root: a root agent's; --judged: an
 *                                      agent's that is not root, in a run
 *                                      whose AF_UNIX names are judged
 *   filter-export --resolve ARCH NAME  a syscall's number on x86_64|x86|x32
 *
 * libseccomp 2.5.4's scmp_bpf_sim has no name for SECCOMP_RET_USER_NOTIF
 * (it stops with EDOM), so the exported copy turns every "return
 * USER_NOTIF" into "return TRACE(0x5eed)", an action this filter never
 * uses otherwise (checked): the simulator then prints TRACE(24301) where
 * the kernel would notify.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"

#define NOTIFY_MARK (SECCOMP_RET_TRACE | 0x5eedu)

static int resolve(const char *arch, const char *name)
{
	uint32_t token = strcmp(arch, "x86_64") == 0 ? SCMP_ARCH_X86_64
			 : strcmp(arch, "x86") == 0  ? SCMP_ARCH_X86
			 : strcmp(arch, "x32") == 0  ? SCMP_ARCH_X32
						     : 0;
	int nr;

	if (!token) {
		fprintf(stderr, "filter-export: unknown arch %s\n", arch);
		return 2;
	}
	nr = seccomp_syscall_resolve_name_arch(token, name);
	if (nr == __NR_SCMP_ERROR) {
		fprintf(stderr, "filter-export: no syscall %s on %s\n", name, arch);
		return 2;
	}
	printf("%d\n", nr);
	return 0;
}

static int export(const char *path, unsigned rules)
{
	void *built;
	int rc = sv_filter_build(&built, rules);

	if (rc < 0) {
		fprintf(stderr, "filter-export: building the filter: %s\n", strerror(-rc));
		return 1;
	}
	/* seccomp_export_bpf writes to a descriptor: a temporary file. */
	{
		char tmp[] = "/tmp/filter-export-XXXXXX";
		int tfd = mkstemp(tmp);
		struct sock_filter *prog;
		long size;
		FILE *in, *out;

		if (tfd < 0)
			return 1;
		unlink(tmp);
		rc = seccomp_export_bpf(built, tfd);
		seccomp_release(built);
		if (rc < 0) {
			fprintf(stderr, "filter-export: export: %s\n", strerror(-rc));
			return 1;
		}
		in = fdopen(tfd, "rb");
		if (!in || fseek(in, 0, SEEK_END) != 0 || (size = ftell(in)) < 0 ||
		    fseek(in, 0, SEEK_SET) != 0)
			return 1;
		prog = malloc((size_t)size + 1);
		if (!prog || fread(prog, 1, (size_t)size, in) != (size_t)size)
			return 1;
		fclose(in);
		for (size_t i = 0; i < (size_t)size / sizeof(*prog); i++) {
			if (prog[i].code != (BPF_RET | BPF_K))
				continue;
			if ((prog[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE) {
				fprintf(stderr, "filter-export: the filter uses TRACE itself\n");
				return 1;
			}
			if ((prog[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
				prog[i].k = NOTIFY_MARK;
		}
		out = fopen(path, "wb");
		if (!out || fwrite(prog, 1, (size_t)size, out) != (size_t)size ||
		    fclose(out) != 0) {
			fprintf(stderr, "filter-export: writing %s failed\n", path);
			return 1;
		}
		fprintf(stderr, "filter-export: %ld instructions\n", size / (long)sizeof(*prog));
		free(prog);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--resolve") == 0)
		return resolve(argv[2], argv[3]);
	if (argc == 2 && argv[1][0] != '-')
		return export(argv[1], 0);
	/* A root agent's run always judges names: root is refused where no
	 * pid namespace can be made (contain.c). */
	if (argc == 3 && strcmp(argv[1], "--root") == 0)
		return export(argv[2], SV_FILTER_SETID | SV_FILTER_FILE_FLAGS);
	if (argc == 3 && strcmp(argv[1], "--judged") == 0)
		return export(argv[2], SV_FILTER_FILE_FLAGS);
	fprintf(stderr, "usage: filter-export [--root|--judged] BPF_FILE | --resolve ARCH NAME\n");
	return 2;
}
