/*
 * errors.h - operational errors (the second channel).
 *
 * Findings describe the filesystem and never stop a run.  Operational errors
 * describe the run itself (I/O, memory, usage, not an XFS image at all): they
 * are negative return codes that travel up to the command line (cli/),
 * which maps them to the fsck exit codes 8 (operational) and 16 (usage).
 */
#ifndef XA_ERRORS_H
#define XA_ERRORS_H

#include <stddef.h>

enum xerr {
	XERR_OK          = 0,
	XERR_NOMEM       = -1,  /* allocation failed or a bound was exceeded */
	XERR_IO          = -2,  /* the operating system refused a read */
	XERR_USAGE       = -3,  /* bad command line */
	XERR_NOTXFS      = -4,  /* no XFS superblock where one was expected */
	XERR_TRUNCATED   = -5,  /* image shorter than its geometry requires */
	XERR_UNSUPPORTED = -6,  /* a format or feature we cannot read */
	XERR_FORMAT      = -7,  /* a container (zstd, partition table) is damaged */
	XERR_RANGE       = -8,  /* a read past the end of the image */
	XERR_EXISTS      = -9,  /* an output path already exists */
};

/* Short English text for an error code. */
const char *xerr_str(int err);

/*
 * Write the message fmt into err (errlen bytes; nothing when err is NULL or
 * errlen 0) and return rc: how a library function fails with its reason in
 * one statement.
 */
int xerr_say(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* XA_ERRORS_H */
