/*
 * files.h - `xfsrecon stat` and `xfsrecon cat`: one file, without mounting.
 */
#ifndef XC_FILES_H
#define XC_FILES_H

#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

/*
 * Resolve TARGET — an absolute path inside the filesystem, or an inode number
 * — to an inode number.  Returns 0, or XERR_USAGE with a message on err.
 */
int xc_target_resolve(struct xa_ctx *ctx, const char *target, uint64_t *ino, FILE *err);

/* Every inode field, then the fork mappings.  Returns 0 or a negative xerr. */
int xc_cmd_stat(struct xa_ctx *ctx, const char *target, FILE *out, FILE *err);

/*
 * The exact bytes of a regular file (holes and unwritten extents as zeros) or
 * the target of a symlink.  Byte ranges that could not be read are named on
 * err and read as zeros.  Returns 0, XERR_IO when some range was missing,
 * or another negative xerr.
 */
int xc_cmd_cat(struct xa_ctx *ctx, const char *target, FILE *out, FILE *err);

#endif /* XC_FILES_H */
