/* The capabilities the agent does not get, in one list: dropped from the
 * agent for good, and from the effective set of every thread of ours that
 * performs the agent's calls. */
#ifndef SV_CAPS_H
#define SV_CAPS_H

/* Removes the list from every set of the calling process (bounding,
 * ambient, effective, permitted, inheritable): for the agent's child, before
 * exec. For a root supervisor that is what keeps a root agent mediated; an
 * unprivileged one holds none of them and cannot drop from the bounding set
 * (EPERM, on purpose ignored: no_new_privs already stops exec from granting
 * file capabilities). Unknown capabilities on older kernels (EINVAL) are
 * likewise nothing to drop. */
void sv_caps_drop_for_agent(void);

/* Clears the list, CAP_SYS_PTRACE excepted, from the calling thread's
 * effective set (capabilities are per thread). A call we perform for the
 * agent is then checked against capabilities the agent has too: the kernel
 * checks the sending task in places (a named netlink send, a netlink socket
 * the agent did not open), and ours must not stand in for its. CAP_SYS_PTRACE
 * stays: reading the agent and duplicating its descriptors is ours to do, and
 * no socket call checks it. Returns 0 or -errno (capset). */
int sv_caps_lower_thread(void);

/* Raises CAP_NET_ADMIN and CAP_SYS_ADMIN into the calling thread's
 * effective set, where its permitted set has them: only for a short-lived
 * thread of ours that performs nothing for the agent and ends after one
 * look (unixdiag.c: the network namespace of the agent's socket, entered
 * to list its AF_UNIX sockets). Returns 0 or -errno (capset). */
int sv_caps_raise_for_lookup(void);

/* Raises CAP_SYS_ADMIN alone into the calling thread's effective set, where
 * its permitted set has it, for one AF_UNIX send we perform with the
 * caller's own credentials and no descriptors (mediate_msg.c): the kernel
 * checks it there only to let us name the caller's process
 * (scm_check_creds), which the caller may name itself; with descriptors it
 * would also lift the in-flight limit (too_many_unix_fds), which the agent's
 * dropped capabilities keep. sv_caps_lower_thread puts it back. Returns 0
 * or -errno (capset). */
int sv_caps_raise_for_creds(void);

#endif
