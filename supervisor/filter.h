/* The seccomp filter: which calls reach the supervisor. */
#ifndef SV_FILTER_H
#define SV_FILTER_H

/* Installs the filter in the calling process (with no_new_privs) and returns
 * the new listener fd (close-on-exec), or -errno. Native x86_64 connect,
 * sendto, sendmsg, sendmmsg and, on the i386 and x32 ABIs, the same calls
 * (socketcall included) notify the supervisor, as does io_uring_setup on
 * every ABI. Must be called in the child that becomes the agent, before
 * execve, with a single thread. */
int sv_filter_install(void);

#endif
