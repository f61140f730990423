/* A small streaming JSON writer for the host profile: objects, arrays,
 * strings (escaped as RFC 8259 requires), integers, booleans and null, with
 * two-space indentation. Errors of the underlying stream are sticky and
 * reported by hp_json_end(). */
#ifndef HP_JSON_H
#define HP_JSON_H

#include <stdio.h>

struct hp_json {
	FILE *f;
	int depth;
	int first[32]; /* per depth: no member written yet */
};

/* Starts a document on f with its top-level object open. */
void hp_json_begin(struct hp_json *j, FILE *f);
/* Closes the top-level object. Returns 0, or -EIO when a write failed. */
int hp_json_end(struct hp_json *j);

/* Members of the current object: "key": value. key is trusted ASCII. */
void hp_json_obj(struct hp_json *j, const char *key); /* opens an object */
void hp_json_arr(struct hp_json *j, const char *key); /* opens an array */
void hp_json_close_obj(struct hp_json *j);
void hp_json_close_arr(struct hp_json *j);
void hp_json_str(struct hp_json *j, const char *key, const char *val); /* NULL -> null */
void hp_json_int(struct hp_json *j, const char *key, long long val);
void hp_json_bool(struct hp_json *j, const char *key, int val);
void hp_json_null(struct hp_json *j, const char *key);
/* An errno as the profile spells it: "ok" for 0, "EPERM" for EPERM, null for
 * -1 (not tried). */
void hp_json_errno(struct hp_json *j, const char *key, int err);

/* Elements of the current array (key NULL in the functions above also
 * works: every function writes no key when key is NULL). */

#endif
