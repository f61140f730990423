#include "hp_json.h"

#include <errno.h>
#include <string.h>

#include "../errnames.h"

#define MAX_DEPTH ((int)(sizeof(((struct hp_json *)0)->first) / sizeof(int)))

static void indent(struct hp_json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* A comma before every member but the first, then the key. */
static void member(struct hp_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = 0;
	indent(j);
	if (key) {
		quoted(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_(struct hp_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	/* Deeper than the profile ever nests is a programming error: stay
	 * at the last level rather than write out of bounds. */
	if (j->depth < MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = 1;
}

static void close_(struct hp_json *j, char c)
{
	int empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void hp_json_begin(struct hp_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	fputc('{', f);
	/* The top-level object's members sit one level in. */
	j->depth = 1;
	j->first[1] = 1;
}

int hp_json_end(struct hp_json *j)
{
	j->depth = 0;
	indent(j);
	fputs("}\n", j->f);
	return ferror(j->f) ? -EIO : 0;
}

void hp_json_obj(struct hp_json *j, const char *key)
{
	open_(j, key, '{');
}

void hp_json_arr(struct hp_json *j, const char *key)
{
	open_(j, key, '[');
}

void hp_json_close_obj(struct hp_json *j)
{
	close_(j, '}');
}

void hp_json_close_arr(struct hp_json *j)
{
	close_(j, ']');
}

void hp_json_str(struct hp_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		quoted(j->f, val);
	else
		fputs("null", j->f);
}

void hp_json_int(struct hp_json *j, const char *key, long long val)
{
	member(j, key);
	fprintf(j->f, "%lld", val);
}

void hp_json_bool(struct hp_json *j, const char *key, int val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void hp_json_null(struct hp_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void hp_json_errno(struct hp_json *j, const char *key, int err)
{
	char buf[32];
	const char *name;

	if (err < 0) {
		hp_json_null(j, key);
		return;
	}
	name = err == 0 ? "ok" : sv_errno_name(err);
	if (!name) {
		snprintf(buf, sizeof(buf), "E%d", err);
		name = buf;
	}
	hp_json_str(j, key, name);
}
