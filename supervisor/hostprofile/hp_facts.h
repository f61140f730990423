/* The host profile's facts: what the calling process can read about its
 * kernel, its credentials and its confinement, without changing anything.
 * Each writer emits its members into the current JSON object; a fact that
 * cannot be read is null (or "unknown" where the schema says so), never
 * guessed. docs/hostprofile.md is the schema. */
#ifndef HP_FACTS_H
#define HP_FACTS_H

#include "hp_json.h"

/* "kernel": release, version, machine, and "config": where it was read and
 * the verdict-deciding options (HP_CONFIG_OPTIONS), or source "unknown". */
void hp_facts_kernel(struct hp_json *j);

/* "lsm" (the loaded LSMs, or null), "yama_ptrace_scope" (0-3, or null when
 * Yama is absent) and "sysctls" the verdicts depend on. */
void hp_facts_security(struct hp_json *j);

/* "ids", "capabilities" (hex sets from /proc/self/status), "securebits",
 * "no_new_privs", "dumpable", "seccomp" (mode and filter count). */
void hp_facts_credentials(struct hp_json *j);

/* "namespaces" (each: inode, and whether it is init's as far as can be
 * told), "container_hints", "cgroup" (version and the process's path). */
void hp_facts_confinement(struct hp_json *j);

#endif
