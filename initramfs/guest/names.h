/*
 * Names egress-envexec reads in cell files: capabilities (drop_cap=) and
 * errnos (mask=), by name or number, and the one error-message format its
 * modules share. Pure: no system calls.
 */
#ifndef EGRESS_GUEST_NAMES_H
#define EGRESS_GUEST_NAMES_H

#include <stddef.h>

/* Capabilities there can be: bits of the 64-bit sets. */
#define CAP_COUNT 64

/* The errno's name (EPERM, ...), or its number as text (a static buffer). */
const char *ev_errno_name(int err);

/* A decimal S (digits only) <= MAX into OUT: 0, or -EINVAL. */
int ev_parse_uint(const char *s, unsigned long max, unsigned long *out);

/* "EPERM", ... or a number 1..4095: the errno, or -EINVAL. */
int ev_parse_errno(const char *s);

/* "cap_sys_ptrace", "CAP_SYS_PTRACE", "sys_ptrace" or a number < CAP_COUNT:
 * the capability's number, or -EINVAL. */
int ev_parse_cap(const char *s);

/* Formats "WHAT: strerror(e)" into ERR (without strerror when e is EINVAL,
 * the answer of a parse that names what is wrong itself); returns -e. */
int ev_fail(char *err, size_t errlen, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
