/* The fault-injection seam. Only a test build (-DSV_FAULTS, make FAULTS=1)
 * contains it: in the release build sv_fault() is a constant 0 and fault.c is
 * not compiled, so no trace of the seam reaches the binary. */
#ifndef SV_FAULT_H
#define SV_FAULT_H

#ifdef SV_FAULTS
/* Returns -errno when EGRESS_SV_FAULT names this mechanism site for the
 * current phase (see docs/design.md), else 0. Thread-safe after
 * sv_fault_init(). */
int sv_fault(const char *site);
/* Parses the environment once. Returns 0, or -EINVAL with a message on stderr
 * naming the bad entry. */
int sv_fault_init(void);
/* Selects the phase: 1 while the probe runs (sites prefixed "probe."), 0 after. */
void sv_fault_set_probe_phase(int in_probe);
#else
static inline int sv_fault(const char *site)
{
	(void)site;
	return 0;
}
static inline int sv_fault_init(void)
{
	return 0;
}
static inline void sv_fault_set_probe_phase(int in_probe)
{
	(void)in_probe;
}
#endif

#endif
