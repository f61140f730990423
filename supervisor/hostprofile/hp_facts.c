#include "hp_facts.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <linux/securebits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The kernel options a verdict of the matrix depends on (kernel-facts.md). */
static const char *const config_options[] = {
    "CONFIG_SECCOMP",
    "CONFIG_SECCOMP_FILTER",
    "CONFIG_SECURITY_YAMA",
    "CONFIG_SECURITY_LANDLOCK",
    "CONFIG_CROSS_MEMORY_ATTACH",
    "CONFIG_IA32_EMULATION",
    "CONFIG_IA32_EMULATION_DEFAULT_DISABLED",
    "CONFIG_X86_X32_ABI",
    "CONFIG_IO_URING",
    "CONFIG_USER_NS",
    "CONFIG_PID_NS",
    "CONFIG_CGROUPS",
    "CONFIG_LSM",
    "CONFIG_MODULES",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Reads a whole small file into buf (NUL-terminated). Returns its length
 * or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	return (ssize_t)len;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

/* The text config: each option of config_options as its value ("y", "m",
 * a string) or "n" when "is not set" or absent. */
static int config_text(struct hp_json *j, const char *path)
{
	static char buf[1 << 20];
	ssize_t len = slurp(path, buf, sizeof(buf));

	if (len <= 0)
		return -1;
	hp_json_str(j, "source", path);
	hp_json_obj(j, "options");
	for (size_t i = 0; i < N(config_options); i++) {
		const char *o = config_options[i], *val = "n";
		size_t ol = strlen(o);
		char *p = buf, value[256];

		while ((p = strstr(p, o))) {
			if ((p == buf || p[-1] == '\n') && p[ol] == '=') {
				size_t k = 0;

				for (p += ol + 1; *p && *p != '\n' && k + 1 < sizeof(value); p++)
					if (*p != '"')
						value[k++] = *p;
				value[k] = 0;
				val = value;
				break;
			}
			p += ol;
		}
		hp_json_str(j, o, val);
	}
	hp_json_close_obj(j);
	return 0;
}

/* /proc/config.gz is gzip, and the profile tool has no decompressor: it is
 * carried whole, base64, for the host tools to read. */
static int config_gz(struct hp_json *j, const char *path)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static unsigned char raw[1 << 20];
	static char enc[(sizeof(raw) + 2) / 3 * 4 + 1];
	ssize_t len = slurp(path, (char *)raw, sizeof(raw));
	size_t o = 0;

	if (len <= 0)
		return -1;
	for (ssize_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)raw[i] << 16;

		v |= i + 1 < len ? (unsigned)raw[i + 1] << 8 : 0;
		v |= i + 2 < len ? raw[i + 2] : 0;
		enc[o++] = b64[(v >> 18) & 63];
		enc[o++] = b64[(v >> 12) & 63];
		enc[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		enc[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	enc[o] = 0;
	hp_json_str(j, "source", path);
	hp_json_null(j, "options");
	hp_json_str(j, "gzip_base64", enc);
	return 0;
}

void hp_facts_kernel(struct hp_json *j)
{
	struct utsname u;
	char boot[sizeof(u.release) + 32];

	hp_json_obj(j, "kernel");
	if (uname(&u) == 0) {
		hp_json_str(j, "release", u.release);
		hp_json_str(j, "version", u.version);
		hp_json_str(j, "machine", u.machine);
	}
	hp_json_obj(j, "config");
	snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
	if (config_text(j, boot) != 0 && config_gz(j, "/proc/config.gz") != 0) {
		hp_json_str(j, "source", "unknown");
		hp_json_null(j, "options");
	}
	hp_json_close_obj(j);
	hp_json_close_obj(j);
}

/* An integer sysctl as a number, or null when it is absent or unreadable. */
static void sysctl_int(struct hp_json *j, const char *name)
{
	char path[128], buf[64], *end;
	long v;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	if (slurp(path, buf, sizeof(buf)) <= 0) {
		hp_json_null(j, name);
		return;
	}
	v = strtol(buf, &end, 10);
	if (end == buf)
		hp_json_null(j, name);
	else
		hp_json_int(j, name, v);
}

void hp_facts_security(struct hp_json *j)
{
	char buf[512];

	if (slurp("/sys/kernel/security/lsm", buf, sizeof(buf)) > 0) {
		char *save = NULL;

		chomp(buf);
		hp_json_arr(j, "lsm");
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
			hp_json_str(j, NULL, t);
		hp_json_close_arr(j);
	} else {
		/* securityfs not mounted or not readable: not known, not empty. */
		hp_json_null(j, "lsm");
	}
	if (slurp("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) > 0)
		hp_json_int(j, "yama_ptrace_scope", atoi(buf));
	else
		hp_json_null(j, "yama_ptrace_scope");
	hp_json_obj(j, "sysctls");
	sysctl_int(j, "kernel.io_uring_disabled");
	sysctl_int(j, "kernel.unprivileged_userns_clone");
	sysctl_int(j, "user.max_user_namespaces");
	sysctl_int(j, "kernel.apparmor_restrict_unprivileged_userns");
	sysctl_int(j, "kernel.unprivileged_bpf_disabled");
	hp_json_close_obj(j);
}

/* A "Name:\tvalue" line of /proc/self/status, or NULL. */
static const char *status_field(const char *status, const char *name, char *out, size_t size)
{
	const char *p = status;
	size_t nl = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == status || p[-1] == '\n') && p[nl] == ':') {
			size_t k = 0;

			for (p += nl + 1; *p == '\t' || *p == ' '; p++)
				;
			while (*p && *p != '\n' && k + 1 < size)
				out[k++] = *p++;
			out[k] = 0;
			return out;
		}
		p += nl;
	}
	return NULL;
}

static void id_quad(struct hp_json *j, const char *key, const char *status, const char *field)
{
	char v[128], *save = NULL;

	hp_json_arr(j, key);
	if (status_field(status, field, v, sizeof(v)))
		for (char *t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			hp_json_int(j, NULL, strtoll(t, NULL, 10));
	hp_json_close_arr(j);
}

void hp_facts_credentials(struct hp_json *j)
{
	static const char *const caps[][2] = {{"inheritable", "CapInh"},
					      {"permitted", "CapPrm"},
					      {"effective", "CapEff"},
					      {"bounding", "CapBnd"},
					      {"ambient", "CapAmb"}};
	static char status[16384];
	char v[128];
	gid_t groups[256];
	int n, sb;

	if (slurp("/proc/self/status", status, sizeof(status)) <= 0)
		status[0] = 0;
	hp_json_obj(j, "ids");
	id_quad(j, "uid", status, "Uid");
	id_quad(j, "gid", status, "Gid");
	hp_json_arr(j, "groups");
	n = getgroups((int)N(groups), groups);
	for (int i = 0; i < n; i++)
		hp_json_int(j, NULL, groups[i]);
	hp_json_close_arr(j);
	hp_json_close_obj(j);
	hp_json_obj(j, "capabilities");
	for (size_t i = 0; i < N(caps); i++)
		hp_json_str(j, caps[i][0], status_field(status, caps[i][1], v, sizeof(v)));
	hp_json_close_obj(j);
	sb = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (sb < 0)
		hp_json_null(j, "securebits");
	else
		hp_json_int(j, "securebits", sb);
	hp_json_int(j, "no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	hp_json_int(j, "dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	hp_json_obj(j, "seccomp");
	if (status_field(status, "Seccomp", v, sizeof(v)))
		hp_json_int(j, "mode", atoi(v));
	else
		hp_json_null(j, "mode");
	/* Seccomp_filters exists from 5.9 on. */
	if (status_field(status, "Seccomp_filters", v, sizeof(v)))
		hp_json_int(j, "filters", atoi(v));
	else
		hp_json_null(j, "filters");
	hp_json_close_obj(j);
}

/* A namespace: its inode, and whether it is init's. "init" is true or
 * false when /proc/1/ns/NAME is readable (compared by inode), else for the
 * user namespace the identity uid_map decides, else null. */
static void one_ns(struct hp_json *j, const char *name)
{
	char self[64], init[64], map[256];
	struct stat a, b;

	snprintf(self, sizeof(self), "/proc/self/ns/%s", name);
	snprintf(init, sizeof(init), "/proc/1/ns/%s", name);
	hp_json_obj(j, name);
	if (stat(self, &a) != 0) {
		hp_json_null(j, "inode");
		hp_json_null(j, "init");
	} else {
		hp_json_int(j, "inode", (long long)a.st_ino);
		if (stat(init, &b) == 0)
			hp_json_bool(j, "init", a.st_ino == b.st_ino);
		else if (strcmp(name, "user") == 0 &&
			 slurp("/proc/self/uid_map", map, sizeof(map)) > 0)
			hp_json_bool(j, "init",
				     strstr(map, "4294967295") != NULL &&
					 strtoul(map, NULL, 10) == 0);
		else
			hp_json_null(j, "init");
	}
	hp_json_close_obj(j);
}

void hp_facts_confinement(struct hp_json *j)
{
	static const char *const nss[] = {"user", "pid", "mnt", "net", "cgroup", "ipc", "uts"};
	static const char *const files[] = {"/.dockerenv", "/run/.containerenv",
					    "/run/systemd/container"};
	static char cg[8192];
	struct stat st;

	hp_json_obj(j, "namespaces");
	for (size_t i = 0; i < N(nss); i++)
		one_ns(j, nss[i]);
	hp_json_close_obj(j);
	hp_json_arr(j, "container_hints");
	for (size_t i = 0; i < N(files); i++)
		if (stat(files[i], &st) == 0)
			hp_json_str(j, NULL, files[i]);
	if (slurp("/proc/self/cgroup", cg, sizeof(cg)) > 0 &&
	    (strstr(cg, "docker") || strstr(cg, "kubepods") || strstr(cg, "containerd") ||
	     strstr(cg, "libpod") || strstr(cg, "lxc")))
		hp_json_str(j, NULL, "cgroup path names a container runtime");
	hp_json_close_arr(j);
	hp_json_obj(j, "cgroup");
	/* A "0::/path" line is the v2 hierarchy; any other line a v1
	 * controller; both: hybrid. */
	if (cg[0]) {
		int v1 = 0, v2 = 0;

		for (const char *l = cg; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			if (strncmp(l, "0::", 3) == 0)
				v2 = 1;
			else if (*l != '\n')
				v1 = 1;
		}
		hp_json_str(j, "version", v2 && !v1 ? "2" : v2 ? "hybrid" : "1");
		hp_json_arr(j, "proc_self_cgroup");
		for (char *save = NULL, *t = strtok_r(cg, "\n", &save); t;
		     t = strtok_r(NULL, "\n", &save))
			hp_json_str(j, NULL, t);
		hp_json_close_arr(j);
	} else {
		hp_json_null(j, "version");
		hp_json_null(j, "proc_self_cgroup");
	}
	hp_json_bool(j, "cgroup2_mounted_at_sys_fs_cgroup",
		     stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0);
	hp_json_close_obj(j);
}
