/* The cell file as egress-envexec reads it: see cellfile.h. */
#include "cellfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h> /* name -> number only; the mask filter is raw BPF */

#include "names.h"

/* The keys of the contract that the guest init acts on, not envexec. */
static const char *const init_keys[] = {
    "scenario",
    "cell",
    "sysctl",
    "service",
    "addr",
    "route",
    "requires",
    "expect",
    "expect_why",
    "timeout",
    "sink",
    "kill_supervisor_after",
    "expect_agent_exit",
    "launcher",
    "guest_profile",
    "cgroup",
    "expect_finished",
    "expect_untried",
};

static int parse_mask(struct ev_cell *c, char *val, int lineno, char *err, size_t errlen)
{
	char *colon = strrchr(val, ':');
	struct ev_mask_rule *m;
	int nr;
	int e;

	if (!colon)
		return ev_fail(err, errlen, EINVAL, "line %d: mask=%s: want SYSCALL:ERRNO", lineno,
			       val);
	*colon = '\0';
	nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, val);
	e = ev_parse_errno(colon + 1);
	if (nr < 0)
		return ev_fail(err, errlen, EINVAL, "line %d: mask: unknown x86_64 syscall %s",
			       lineno, val);
	if (e < 0)
		return ev_fail(err, errlen, EINVAL, "line %d: mask: unknown errno %s", lineno,
			       colon + 1);
	if (c->nmask == EV_CELL_MAX_ITEMS)
		return ev_fail(err, errlen, EINVAL, "line %d: too many mask lines", lineno);
	m = &c->mask[c->nmask++];
	m->name = val;
	m->nr = nr;
	m->err = e;
	return 0;
}

static int is_init_key(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(init_keys) / sizeof(init_keys[0]); i++) {
		if (strcmp(key, init_keys[i]) == 0)
			return 1;
	}
	return 0;
}

/* One KEY=VALUE line (KEY and VAL already split): 0 or -EINVAL with ERR. */
static int parse_line(struct ev_cell *c, const char *key, char *val, int lineno, char *err,
		      size_t errlen)
{
	unsigned long v;
	int cap;

	if (strcmp(key, "agent_arg") == 0) {
		if (c->nagent == EV_CELL_MAX_ITEMS - 1)
			return ev_fail(err, errlen, EINVAL, "line %d: too many agent_arg lines",
				       lineno);
		c->agent[c->nagent++] = val;
	} else if (strcmp(key, "allow") == 0) {
		if (c->nallow == EV_CELL_MAX_ITEMS)
			return ev_fail(err, errlen, EINVAL, "line %d: too many allow lines",
				       lineno);
		c->allow[c->nallow++] = val;
	} else if (strcmp(key, "loopback") == 0) {
		if (strcmp(val, "yes") && strcmp(val, "no"))
			return ev_fail(err, errlen, EINVAL, "line %d: loopback=%s: want yes or no",
				       lineno, val);
		c->loopback = strcmp(val, "yes") == 0;
	} else if (strcmp(key, "uid") == 0) {
		if (ev_parse_uint(val, 65535, &v))
			return ev_fail(err, errlen, EINVAL, "line %d: uid=%s: want 0..65535",
				       lineno, val);
		c->uid = (uid_t)v;
	} else if (strcmp(key, "gid") == 0) {
		if (ev_parse_uint(val, 65535, &v))
			return ev_fail(err, errlen, EINVAL, "line %d: gid=%s: want 0..65535",
				       lineno, val);
		c->gid = (gid_t)v;
	} else if (strcmp(key, "drop_cap") == 0) {
		cap = ev_parse_cap(val);
		if (cap < 0)
			return ev_fail(err, errlen, EINVAL,
				       "line %d: drop_cap=%s: unknown capability", lineno, val);
		c->drop |= 1ULL << cap;
	} else if (strcmp(key, "mask") == 0) {
		return parse_mask(c, val, lineno, err, errlen);
	} else if (strcmp(key, "stdio") == 0) {
		char why[256];

		if (c->nstdio == 3)
			return ev_fail(err, errlen, EINVAL, "line %d: more than 3 stdio lines",
				       lineno);
		if (ev_caller_parse_stdio(val, &c->stdio[c->nstdio], why, sizeof(why)))
			return ev_fail(err, errlen, EINVAL, "line %d: %s", lineno, why);
		c->nstdio++;
	} else if (strcmp(key, "writable") == 0) {
		if (c->nwritable == 4)
			return ev_fail(err, errlen, EINVAL, "line %d: more than 4 writable lines",
				       lineno);
		if (strncmp(val, "/tmp/", 5) != 0 || strstr(val, "/.."))
			return ev_fail(err, errlen, EINVAL, "line %d: writable=%s: want /tmp/PATH",
				       lineno, val);
		c->writable[c->nwritable++] = val;
	} else if (strcmp(key, "unix_peer") == 0) {
		if (c->nunix_peer == 4)
			return ev_fail(err, errlen, EINVAL, "line %d: more than 4 unix_peer lines",
				       lineno);
		if ((strncmp(val, "/tmp/", 5) != 0 && val[0] != '@') || strstr(val, "/.."))
			return ev_fail(err, errlen, EINVAL,
				       "line %d: unix_peer=%s: want /tmp/PATH or @NAME", lineno,
				       val);
		c->unix_peer[c->nunix_peer++] = val;
	} else if (strcmp(key, "mount") == 0) {
		if (c->nmount == 4)
			return ev_fail(err, errlen, EINVAL, "line %d: more than 4 mount lines",
				       lineno);
		c->mount[c->nmount++] = val;
	} else if (!is_init_key(key)) {
		return ev_fail(err, errlen, EINVAL, "line %d: unknown key %s", lineno, key);
	}
	return 0;
}

int ev_cell_parse(const char *path, struct ev_cell *c, char *err, size_t errlen)
{
	int have_gid = 0, lineno = 0, fd, r;
	char *line, *next;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->loopback = 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ev_fail(err, errlen, errno, "open");
	n = read(fd, c->text, EV_CELL_MAX_BYTES);
	r = errno;
	close(fd);
	if (n < 0)
		return ev_fail(err, errlen, r, "read");
	if (n == EV_CELL_MAX_BYTES)
		return ev_fail(err, errlen, EINVAL, "larger than %d bytes", EV_CELL_MAX_BYTES - 1);
	c->text[n] = '\0';
	for (line = c->text; line && *line; line = next) {
		char *val;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (*line == '\0' || *line == '#')
			continue;
		val = strchr(line, '=');
		if (!val)
			return ev_fail(err, errlen, EINVAL, "line %d: not KEY=VALUE", lineno);
		*val++ = '\0';
		if (strcmp(line, "gid") == 0)
			have_gid = 1;
		r = parse_line(c, line, val, lineno, err, errlen);
		if (r < 0)
			return r;
	}
	if (!have_gid)
		c->gid = (gid_t)c->uid;
	if (c->nagent == 0)
		return ev_fail(err, errlen, EINVAL, "no agent_arg");
	return 0;
}
