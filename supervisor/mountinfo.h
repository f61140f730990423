/* /proc/self/mountinfo's text form, shared by the mount handling of the
 * agent's namespace (contain.c) and its Landlock domain (landlock.c). */
#ifndef SV_MOUNTINFO_H
#define SV_MOUNTINFO_H

/* Undoes mountinfo's octal escapes (\ooo for space, tab, newline and
 * backslash) in place. */
void sv_mountinfo_unescape(char *s);

#endif
