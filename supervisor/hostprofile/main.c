/* egress-hostprofile: writes the profile of the host it runs on (the
 * kernel, its security modules, the caller's credentials and confinement,
 * and what an egress supervisor can really do here, proven by doing), so
 * the appliance can replay that host (docs/hostprofile.md). Run it where the
 * CI job runs: same container, same user. It changes nothing on the host
 * and sends nothing over any network.
 *
 *     egress-hostprofile [--output FILE]
 *
 * Exit status: 0 written, 2 bad invocation, 3 the profile could not be
 * written (the message says why). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hp_facts.h"
#include "hp_json.h"
#include "hp_probe.h"

#define HP_FORMAT "egress-hostprofile/1"

static void write_probes(struct hp_json *j)
{
	hp_json_obj(j, "probes");
	for (int k = 0; k < HP_NTARGETS; k++) {
		struct hp_target_result r;
		int rc = hp_probe_target((enum hp_target)k, &r);

		hp_json_obj(j, hp_target_name((enum hp_target)k));
		hp_json_errno(j, "start", rc < 0 ? -rc : 0);
		hp_json_str(j, "handover", hp_handover_name(r.handover));
		hp_json_errno(j, "listener", r.listener);
		hp_json_errno(j, "process_vm_readv", r.process_vm_readv);
		hp_json_errno(j, "proc_mem", r.proc_mem);
		hp_json_errno(j, "pidfd_open", r.pidfd_open);
		hp_json_errno(j, "pidfd_getfd", r.pidfd_getfd);
		hp_json_errno(j, "id_valid", r.id_valid);
		if (k == HP_GRANDCHILD)
			hp_json_errno(j, "reparented", r.reparented);
		hp_json_close_obj(j);
	}
	hp_json_errno(j, "io_uring_setup", hp_probe_io_uring());
	hp_json_errno(j, "userns", hp_probe_userns());
	hp_json_close_obj(j);
}

static int write_profile(FILE *f)
{
	struct hp_json j;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	hp_json_begin(&j, f);
	hp_json_str(&j, "format", HP_FORMAT);
	hp_json_str(&j, "captured_utc", when);
	hp_json_str(&j, "arch", "x86_64");
	hp_facts_kernel(&j);
	hp_facts_security(&j);
	hp_facts_credentials(&j);
	hp_facts_confinement(&j);
	write_probes(&j);
	return hp_json_end(&j);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	char tmp[4096];
	FILE *f;
	int rc, e;

	if (argc == 3 && strcmp(argv[1], "--output") == 0 && argv[2][0]) {
		out = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: egress-hostprofile [--output FILE]\n");
		return 2;
	}
	if (!out)
		return write_profile(stdout) == 0 && fflush(stdout) == 0 ? 0 : 3;
	/* Atomically: a profile is whole or absent. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", out, (int)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "egress-hostprofile: --output %s: path too long\n", out);
		return 2;
	}
	f = fopen(tmp, "wx");
	if (!f) {
		e = errno;
		fprintf(stderr, "egress-hostprofile: cannot create %s: %s\n", tmp, strerror(e));
		return 3;
	}
	rc = write_profile(f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rc = -errno;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, out) != 0)
		rc = -errno;
	if (rc != 0) {
		fprintf(stderr, "egress-hostprofile: cannot write %s: %s\n", out, strerror(-rc));
		unlink(tmp);
		return 3;
	}
	return 0;
}
