/* Test-build only: see fault.h. Compiled with -DSV_FAULTS. */
#include "fault.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errnames.h"

#define FAULT_ENV "EGRESS_SV_FAULT"
#define MAX_FAULTS 16

static const char *const sites[] = {"recv",
				    "process_vm_readv",
				    "process_vm_writev",
				    "proc_mem",
				    "id_valid",
				    "pidfd_open",
				    "pidfd_getfd",
				    "dup_close",
				    "send",
				    "listener",
				    "pidfd_thread",
				    "listen_window",
				    "id_valid_intr",
				    "close_range",
				    "clone_newpid",
				    "kcmp",
				    "tmpfile",
				    "landlock",
				    "signal_scope",
				    "userns",
				    "device_window",
				    "unshare_files",
				    "handover",
				    "rootfs",
				    "clone_newipc",
				    "statx_mnt_id",
				    "setid_ro",
				    "unix_window",
				    "unix_dump_again",
				    "setns_window",
				    "receivers_cap",
				    "report_path",
				    "recv_pause",
				    "sentinel_pause",
				    "cwd_window",
				    "openat2",
				    "caps_lower",
				    "caller_creds",
				    "caps_raise",
				    "inotify",
				    "memfd",
				    "map_taken",
				    "ns_user",
				    "ns_dir",
				    "localnet",
				    "mknod"};

static struct {
	char site[32];
	int probe;
	int err;
} faults[MAX_FAULTS];
static int nfaults;
static atomic_int probe_phase;

static int known_site(const char *s)
{
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++)
		if (strcmp(sites[i], s) == 0)
			return 1;
	return 0;
}

int sv_fault_init(void)
{
	const char *env = getenv(FAULT_ENV);
	char buf[512], *save = NULL, *tok;

	if (!env || !*env)
		return 0;
	if (strlen(env) >= sizeof(buf)) {
		fprintf(stderr, "egress-supervisor: %s is too long\n", FAULT_ENV);
		return -EINVAL;
	}
	strcpy(buf, env);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');
		const char *site = tok;
		int probe = 0, err;

		if (!colon || nfaults == MAX_FAULTS)
			goto bad;
		*colon = '\0';
		err = sv_errno_parse(colon + 1);
		if (strncmp(site, "probe.", 6) == 0) {
			probe = 1;
			site += 6;
		}
		if (err < 0 || !known_site(site) || strlen(site) >= sizeof(faults[0].site))
			goto bad;
		strcpy(faults[nfaults].site, site);
		faults[nfaults].probe = probe;
		faults[nfaults].err = err;
		nfaults++;
		continue;
	bad:
		fprintf(stderr, "egress-supervisor: %s: bad entry '%s' (want [probe.]SITE:ERRNO)\n",
			FAULT_ENV, tok);
		return -EINVAL;
	}
	return 0;
}

void sv_fault_set_probe_phase(int in_probe)
{
	atomic_store(&probe_phase, in_probe);
}

int sv_fault(const char *site)
{
	int phase = atomic_load(&probe_phase);

	for (int i = 0; i < nfaults; i++)
		if (faults[i].probe == phase && strcmp(faults[i].site, site) == 0)
			return -faults[i].err;
	return 0;
}
