/* Pins: duplicates of AF_UNIX sockets a call holds open so that their
 * names stay bound from the judgement to the end of the act. */
#ifndef SV_PINS_H
#define SV_PINS_H

#include <stdint.h>

/* At most this many sockets bound to one abstract name are judged. */
#define SV_PINS_MAX 8

/* One call's pins (struct sv_call's pins) and the cookies they are
 * counted under. */
struct sv_pins {
	int fd[SV_PINS_MAX];
	uint64_t cookie[SV_PINS_MAX];
	int n;
};

/* Holds pin, a duplicate of the AF_UNIX socket with this cookie that keeps
 * its name bound until its call's act is done, in p (closed with its call, or by
 * sv_pins_drop), and counts it among the pins every call holds
 * (sv_pins_held). Returns 0, or -E2BIG past SV_PINS_MAX or -ENOMEM,
 * with pin closed. */
int sv_pins_hold(struct sv_pins *p, int pin, uint64_t cookie);

/* Closes p's pins and uncounts them. */
void sv_pins_drop(struct sv_pins *p);

/* Whether a pin of any call holds the socket with this cookie: what keeps
 * a listener the run closed bound is then ours (review h-attack28), and
 * only pins count, never another descriptor the supervisor happens to
 * hold (review h-attack29: one its caller left open). */
int sv_pins_held(uint64_t cookie);

/* Around a holder proof, from its first duplicate of a socket until that
 * duplicate is counted by sv_pins_hold or closed: sv_pins_held waits for
 * every proof under way before it says a socket is not pinned. Never call
 * sv_pins_held between the two. */
void sv_pins_proof_begin(void);
void sv_pins_proof_end(void);

#endif
