/* Writing the report: to a path, atomically, and to the caller's
 * descriptor, as records. What a report says is report.c's. */
#ifndef SV_REPORTFILE_H
#define SV_REPORTFILE_H

#include <stddef.h>
#include <stdio.h>

/* The first word of every record on the report descriptor. */
#define SV_REPORT_RECORD_MAGIC "egress-supervisor-report-record/1"

/* Writes one version of the report to f: complete or provisional. Called
 * twice for a record (its length is counted first), so it must write the
 * same both times. */
typedef void (*sv_reportfile_body)(FILE *f, int complete);

/* The report's path: dirfd, the directory opened at set-up (every write is
 * relative to it), path as given, base its last component. */
struct sv_reportfile {
	int dirfd;
	const char *path;
	const char *base;
};

/* The directory part of path ("." when there is none), into dir. */
void sv_reportfile_dir_of(const char *path, char *dir, size_t len);

/* Writes a new version of the file: a file with no name (O_TMPFILE) or a
 * new one of a random name (O_EXCL, O_NOFOLLOW) in rf->dirfd, synced,
 * named, renamed over rf->base and the directory synced, so a reader sees
 * the old report or the new one, whole. rf->dirfd must still be the
 * directory rf->path names: -ESTALE where the agent moved it (review
 * h-attack36). Returns 0 or -errno. */
int sv_reportfile_write_path(const struct sv_reportfile *rf, sv_reportfile_body body, int complete);

/* Appends one record to fd: "MAGIC final|provisional LENGTH\n" and the
 * report. Returns 0 or -errno (-EIO where the stream failed). */
int sv_reportfile_write_record(int fd, sv_reportfile_body body, int complete);

#endif
