/*
 * extract.h - `xfsrecon extract IMAGE [PATH] -C DIR`: copy files out of the
 * image into a host directory, without mounting.
 */
#ifndef XA_EXTRACT_H
#define XA_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

struct xa_extract_opts {
	const char *dest;      /* existing host directory everything goes under */
	bool        progress;  /* a progress line on err (when err is a terminal) */
};

struct xa_extract_stats {
	uint64_t files, dirs, symlinks, specials, bytes;
	uint64_t skipped;      /* entries that could not be created on the host */
	uint64_t damaged;      /* files with byte ranges that could not be read */
};

/*
 * Extract TARGET (a path or inode number; "/" for everything) into o->dest.
 * Every host file is created relative to an open directory descriptor with
 * O_NOFOLLOW / O_EXCL, so no name and no symlink in the image can make a
 * write land outside dest, and nothing existing is overwritten.  Names are
 * written as stored, except that "/" and NUL bytes become \x2f / \x00.
 * Returns 0, XERR_IO when something was skipped or damaged (named on err),
 * or another negative xerr.
 */
int xa_cmd_extract(struct xa_ctx *ctx, const char *target, const struct xa_extract_opts *o,
		   struct xa_extract_stats *st, FILE *err);

#endif /* XA_EXTRACT_H */
