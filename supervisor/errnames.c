#include "errnames.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define E(x)                                                                                       \
	{                                                                                          \
		x, #x                                                                              \
	}
static const struct {
	int value;
	const char *name;
} names[] = {
    E(EPERM),         E(ENOENT),          E(ESRCH),        E(EINTR),        E(EIO),
    E(ENXIO),         E(E2BIG),           E(ENOEXEC),      E(EBADF),        E(ECHILD),
    E(EAGAIN),        E(ENOMEM),          E(EACCES),       E(EFAULT),       E(EBUSY),
    E(EEXIST),        E(ENODEV),          E(ENOTDIR),      E(EISDIR),       E(EINVAL),
    E(ENFILE),        E(EMFILE),          E(ENOTTY),       E(EFBIG),        E(ENOSPC),
    E(ESPIPE),        E(EROFS),           E(EPIPE),        E(ERANGE),       E(ENAMETOOLONG),
    E(ENOSYS),        E(ENOTSOCK),        E(EDESTADDRREQ), E(EMSGSIZE),     E(EPROTOTYPE),
    E(ENOPROTOOPT),   E(EPROTONOSUPPORT), E(EOPNOTSUPP),   E(EAFNOSUPPORT), E(EADDRINUSE),
    E(EADDRNOTAVAIL), E(ENETDOWN),        E(ENETUNREACH),  E(ECONNABORTED), E(ECONNRESET),
    E(ENOBUFS),       E(EISCONN),         E(ENOTCONN),     E(ETIMEDOUT),    E(ECONNREFUSED),
    E(EHOSTUNREACH),  E(EALREADY),        E(EINPROGRESS),  E(ECANCELED),    E(ENOTRECOVERABLE),
    E(EOVERFLOW),     E(ENOTSUP),         E(EXDEV),        E(EPROTO),       E(ELOOP),
};
#undef E

const char *sv_errno_name(int err)
{
	/* EWOULDBLOCK == EAGAIN and ENOTSUP == EOPNOTSUPP on Linux: first wins. */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].value == err)
			return names[i].name;
	return NULL;
}

int sv_errno_parse(const char *text)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, text) == 0)
			return names[i].value;
	if (*text == '\0')
		return -EINVAL;
	v = strtol(text, &end, 10);
	if (*end != '\0' || v <= 0 || v > 4095)
		return -EINVAL;
	return (int)v;
}

#define S(x)                                                                                       \
	{                                                                                          \
		x, #x                                                                              \
	}
static const struct {
	int value;
	const char *name;
} signames[] = {
    S(SIGHUP),  S(SIGINT),  S(SIGQUIT), S(SIGILL),  S(SIGTRAP), S(SIGABRT), S(SIGBUS),
    S(SIGFPE),  S(SIGKILL), S(SIGUSR1), S(SIGSEGV), S(SIGUSR2), S(SIGPIPE), S(SIGALRM),
    S(SIGTERM), S(SIGCHLD), S(SIGCONT), S(SIGSTOP), S(SIGTSTP), S(SIGSYS),  S(SIGXCPU),
};
#undef S

const char *sv_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].value == sig)
			return signames[i].name;
	return NULL;
}
