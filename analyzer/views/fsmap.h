/*
 * fsmap.h - `xfsrecon fsmap IMAGE`: every reverse-mapping (rmapbt) record of
 * every AG, in key order: which owner holds which blocks.
 */
#ifndef XA_FSMAP_H
#define XA_FSMAP_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

/*
 * Print one line per rmapbt leaf record, AG by AG, in key order.  With
 * xfs_db_format the lines are exactly those of `xfs_db -r -c fsmap`
 * ("N: AG/AGBNO len L owner O offset F bmbt B attrfork A extflag U", owners
 * signed); otherwise "AG/AGBNO len L OWNER [offset F] [attr] [bmbt]
 * [unwritten]" with special owners by name (FS, LOG, AG, INOBT, INODES,
 * REFC, COW) and inode owners as "inode N".  The context must have run the
 * header passes (XA_RUN_INFO).  Returns 0; XERR_USAGE (message on err) when
 * the filesystem has no rmapbt; XERR_IO when an AG's tree could not be read
 * completely (its readable records are still printed); or another negative
 * xerr.
 */
int xa_cmd_fsmap(struct xa_ctx *ctx, bool xfs_db_format, FILE *out, FILE *err);

#endif /* XA_FSMAP_H */
