/* Loading the filter (filter.c builds it) with its listener: the seccomp
 * call itself where it can, so a refusal keeps the kernel's errno, and a
 * second filter of our own for what libseccomp cannot name. */
#ifndef SV_FILTERLOAD_H
#define SV_FILTERLOAD_H

/* Installs the filter in the calling process (with no_new_privs), with the
 * root agent's rules where its effective uid is 0 and the file-flag rules
 * where names_judged (the run's AF_UNIX names are judged), and returns the
 * new listener fd (close-on-exec), or -errno. Must be called in the child
 * that becomes the agent, before execve, with a single thread. */
int sv_filterload_install(int names_judged);

#endif
