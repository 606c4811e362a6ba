/*
 * fsmap.h - `xfsrecon fsmap IMAGE`: every reverse-mapping (rmapbt) record of
 * every AG, in key order: which owner holds which blocks.
 */
#ifndef XC_FSMAP_H
#define XC_FSMAP_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

/*
 * Print one line per rmapbt leaf record, AG by AG, in key order.  With
 * xfs_db_format the lines are exactly those of `xfs_db -r -c fsmap`
 * ("N: AG/AGBNO len L owner O offset F bmbt B attrfork A extflag U", owners
 * signed); otherwise "AG/AGBNO len L OWNER [offset F] [attr] [bmbt]
 * [unwritten]" with special owners by name (FS, LOG, AG, INOBT, INODES,
 * REFC, COW) and inode owners as "inode N".  With forward, or on a
 * filesystem without an rmapbt, the records are those the check built from
 * primary metadata (the context must have run XA_RUN_CHECK with
 * opts.keep_ownership), in the same formats.  Otherwise the header passes
 * (XA_RUN_INFO) are enough.  Returns 0; XERR_IO when an AG's tree (or its
 * primary metadata) could not be read completely (what was readable is still
 * printed); or another negative xerr.
 */
int xc_cmd_fsmap(struct xa_ctx *ctx, bool xfs_db_format, bool forward, FILE *out, FILE *err);

#endif /* XC_FSMAP_H */
