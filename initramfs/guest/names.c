/*
 * Names egress-envexec reads in cell files (names.h): capabilities and
 * errnos, by name or number.
 */
#include "names.h"

#include "../../supervisor/errnames.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cap_names[] = {
    "chown",
    "dac_override",
    "dac_read_search",
    "fowner",
    "fsetid",
    "kill",
    "setgid",
    "setuid",
    "setpcap",
    "linux_immutable",
    "net_bind_service",
    "net_broadcast",
    "net_admin",
    "net_raw",
    "ipc_lock",
    "ipc_owner",
    "sys_module",
    "sys_rawio",
    "sys_chroot",
    "sys_ptrace",
    "sys_pacct",
    "sys_admin",
    "sys_boot",
    "sys_nice",
    "sys_resource",
    "sys_time",
    "sys_tty_config",
    "mknod",
    "lease",
    "audit_write",
    "audit_control",
    "setfcap",
    "mac_override",
    "mac_admin",
    "syslog",
    "wake_alarm",
    "block_suspend",
    "audit_read",
    "perfmon",
    "bpf",
    "checkpoint_restore",
};

/* The errnos' names are the supervisor's (supervisor/errnames.c): the
 * guest's readbacks and the report must spell an errno alike. */
const char *ev_errno_name(int err)
{
	static char buf[24];
	const char *n = sv_errno_name(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

int ev_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int ev_parse_errno(const char *s)
{
	unsigned long v;
	int e;

	/* Digits only for a number: sv_errno_parse's strtol also takes a sign
	 * or blanks, which a cell file must not hold. */
	if (ev_parse_uint(s, 4095, &v) == 0)
		return v > 0 ? (int)v : -EINVAL;
	e = sv_errno_parse(s);
	return e > 0 && (*s == 'E') ? e : -EINVAL;
}

int ev_parse_cap(const char *s)
{
	char low[64];
	unsigned long v;
	size_t i;

	if (ev_parse_uint(s, CAP_COUNT - 1, &v) == 0)
		return (int)v;
	for (i = 0; s[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
	low[i] = '\0';
	s = strncmp(low, "cap_", 4) == 0 ? low + 4 : low;
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (strcmp(cap_names[i], s) == 0)
			return (int)i;
	}
	return -EINVAL;
}

int ev_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < errlen && e != EINVAL)
		snprintf(err + n, errlen - (size_t)n, ": %s", strerror(e));
	return -e;
}
