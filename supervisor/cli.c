#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errnames.h"

const char sv_cli_usage[] =
    "usage: egress-supervisor [--allow SPEC]... [--no-loopback] [--report FILE]\n"
    "                         [--report-fd N] [--deny-errno NAME] [--writable PATH]...\n"
    "                         [--unix-peer PATH|@NAME]... [--probe] -- PROGRAM [ARG]...\n"
    "  SPEC: 192.0.2.10:443  198.51.100.0/24  [2001:db8::1]:53  [2001:db8::]/32:1000-2000\n"
    "exit: 0 pass, 1 fail, 2 bad invocation, 3 capability-error\n";

/* Takes the value of --name VALUE or --name=VALUE. Returns the value or NULL. */
static const char *option_value(const char *name, int argc, char **argv, int *i)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0' || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int is_option(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

int sv_cli_parse(int argc, char **argv, struct sv_cli *out, char *err, size_t errlen)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->policy.loopback = 1;
	out->report_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (is_option(a, "--allow")) {
			struct sv_rule r;
			char why[256];
			int rc;

			v = option_value("--allow", argc, argv, &i);
			if (!v) {
				snprintf(err, errlen, "--allow needs a SPEC");
				return -EINVAL;
			}
			if (sv_policy_parse_spec(v, &r, why, sizeof(why)) < 0) {
				snprintf(err, errlen, "%s", why);
				return -EINVAL;
			}
			rc = sv_policy_add(&out->policy, &r);
			if (rc < 0)
				return rc;
		} else if (is_option(a, "--report-fd")) {
			char *end;
			long n;

			v = option_value("--report-fd", argc, argv, &i);
			if (!v || !*v) {
				snprintf(err, errlen, "--report-fd needs a descriptor number");
				return -EINVAL;
			}
			errno = 0;
			n = strtol(v, &end, 10);
			/* 0-2 are the agent's too: it inherits our stdio. */
			if (errno || *end || n < 3 || n > 1 << 20) {
				snprintf(err, errlen,
					 "--report-fd '%s': want a descriptor number >= 3 (0-2 are "
					 "inherited by the agent)",
					 v);
				return -EINVAL;
			}
			out->report_fd = (int)n;
		} else if (is_option(a, "--report")) {
			v = option_value("--report", argc, argv, &i);
			if (!v || !*v) {
				snprintf(err, errlen, "--report needs a FILE");
				return -EINVAL;
			}
			out->report = v;
		} else if (is_option(a, "--deny-errno")) {
			int e;

			v = option_value("--deny-errno", argc, argv, &i);
			e = v ? sv_errno_parse(v) : -EINVAL;
			/* EPERM is the mechanism-failure answer and EINTR, EINPROGRESS
			 * and EAGAIN mean something else to the caller: a denial must
			 * be told apart from all of them. */
			if (e <= 0 || e > 4095 || e == EPERM || e == EINTR || e == EINPROGRESS ||
			    e == EAGAIN) {
				snprintf(
				    err, errlen,
				    "--deny-errno '%s': want an errno name or number other than "
				    "EPERM, EINTR, EINPROGRESS, EAGAIN",
				    v ? v : "");
				return -EINVAL;
			}
			out->policy.deny_errno = e;
		} else if (is_option(a, "--writable")) {
			v = option_value("--writable", argc, argv, &i);
			if (!v || !*v) {
				snprintf(err, errlen, "--writable needs a PATH");
				return -EINVAL;
			}
			if (sv_rootfs_check_declared(v, err, errlen) < 0)
				return -EINVAL;
			if (out->nwritable == SV_ROOTFS_MAX_WRITABLE) {
				snprintf(err, errlen, "--writable '%s': at most %d paths", v,
					 SV_ROOTFS_MAX_WRITABLE);
				return -EINVAL;
			}
			out->writable[out->nwritable++] = v;
		} else if (is_option(a, "--unix-peer")) {
			v = option_value("--unix-peer", argc, argv, &i);
			if (!v || !*v) {
				snprintf(err, errlen, "--unix-peer needs a PATH or @NAME");
				return -EINVAL;
			}
			if (sv_unixpeer_check_declared(v, err, errlen) < 0)
				return -EINVAL;
			if (out->nunix_peer == SV_UNIXPEER_MAX_DECLARED) {
				snprintf(err, errlen, "--unix-peer '%s': at most %d peers", v,
					 SV_UNIXPEER_MAX_DECLARED);
				return -EINVAL;
			}
			out->unix_peer[out->nunix_peer++] = v;
		} else if (strcmp(a, "--no-loopback") == 0) {
			out->policy.loopback = 0;
		} else if (strcmp(a, "--probe") == 0) {
			out->probe_only = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			out->help = 1;
			return 0;
		} else {
			snprintf(err, errlen, "unknown argument '%s' (the program goes after --)",
				 a);
			return -EINVAL;
		}
	}
	if (out->probe_only) {
		if (i < argc) {
			snprintf(err, errlen, "--probe runs no program, but '%s' was given",
				 argv[i]);
			return -EINVAL;
		}
		return 0;
	}
	if (i >= argc) {
		snprintf(err, errlen, "no PROGRAM given after --");
		return -EINVAL;
	}
	if (argv[i][0] == '\0') {
		snprintf(err, errlen, "PROGRAM is an empty string");
		return -EINVAL;
	}
	out->argv = &argv[i];
	return 0;
}
