/* errno values as their names, for the report. Pure. */
#ifndef SV_ERRNAMES_H
#define SV_ERRNAMES_H

/* Returns the symbolic name of err ("EPERM"), or NULL when unknown. */
const char *sv_errno_name(int err);

/* Parses a name ("EPERM") or a decimal number. Returns the value or -EINVAL. */
int sv_errno_parse(const char *text);

/* Returns "SIGTERM" for SIGTERM, or NULL when unknown. */
const char *sv_signal_name(int sig);

#endif
