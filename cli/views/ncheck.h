/*
 * ncheck.h - `xfsrecon ncheck IMAGE [INODE...]`: every path of an inode,
 * hard links included (xfs_db's ncheck, TSK's ffind).
 */
#ifndef XC_NCHECK_H
#define XC_NCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

/*
 * Print "INODE PATH" for every path of each of the n inodes asked (in the
 * order asked, each inode's paths in name order), paths escaped as ls
 * prints them.  With n == 0, every path of the tree, in walk order.  An
 * inode no path reaches is named on err, with its state (free, allocated
 * but unreachable, not an inode).  Returns the number of inodes asked that
 * no path reaches (0: all found); XERR_IO when the tree could not be read
 * whole (what could be read is printed); or another negative xerr.
 */
int xc_cmd_ncheck(struct xa_ctx *ctx, const uint64_t *inos, size_t n, FILE *out, FILE *err);

#endif /* XC_NCHECK_H */
