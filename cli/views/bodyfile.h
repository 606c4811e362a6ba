/*
 * bodyfile.h - `xfsrecon bodyfile IMAGE`: every name in the filesystem as a
 * line of the Sleuth Kit body format, the input of mactime timelines.
 */
#ifndef XC_BODYFILE_H
#define XC_BODYFILE_H

#include <stdio.h>

struct xa_ctx;

/*
 * One line per path below the root (and the root itself):
 *   MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime
 * MD5 is 0 (not computed); mode is TSK's "type/permissions" string such as
 * "r/rrw-r--r--"; times are seconds since the epoch (crtime 0 on v4, where
 * it does not exist).  "|", "/" and unprintable bytes in names are escaped.
 * With deleted, each directory's deleted names still in its blocks follow
 * it as TSK's fls -m writes them: "PATH (deleted)" with the freed inode's
 * metadata (its ctime: when it was freed), or "PATH (deleted-realloc)"
 * with the metadata of the file that has the inode now.
 * Returns 0, XERR_IO when part of the tree could not be read, or a negative xerr.
 */
#include <stdbool.h>
#include <stdint.h>

int xc_cmd_bodyfile(struct xa_ctx *ctx, bool deleted, FILE *out, FILE *err);

/* A body line's name field: path (already escaped: \xNN, \\, a "/" in a
 * name as \x2F) with "|", which would split the line, as \x7c. */
void xc_body_put_path(FILE *out, const char *path);

/* TSK's mode string: a type letter, "/", then ls-style type and
 * permissions ("r/rrw-r--r--"). */
void xc_body_mode_string(uint16_t mode, char out[13]);

#endif /* XC_BODYFILE_H */
