/*
 * owner.h - `xfsrecon owner IMAGE BLOCK...`: what each block is and who owns
 * it (xfs_db's blockuse -n, TSK's ifind).
 */
#ifndef XC_OWNER_H
#define XC_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

/* Blocks [first, first + count) of AG agno. */
struct xc_owner_range {
	uint32_t agno;
	uint32_t first;
	uint64_t count;
};

/* What the blocks asked touch: distinct files and directories, blocks of
 * metadata, free and unowned blocks. */
struct xc_owner_stats {
	uint64_t files, dirs;
	uint64_t meta_blocks, free_blocks, unowned_blocks;
};

/*
 * One line per block, and per owner where several own it (reflinked data,
 * cross-linked blocks); with runs, consecutive blocks of one owner (at
 * consecutive file offsets) are one line "F0-F1 AG/B0-B1 TYPE ... offset
 * O0-O1".  stats (may be NULL, zeroed by the caller) counts what was seen.
 * Lines:
 *   FSBLOCK AG/AGBNO TYPE[ inode INO fork data|attr offset N][ unwritten]
 * then each path of an owning inode after a tab.  TYPE is sb, agf, agi or
 * agfl (a header's block), bnobt, cntbt, inobt, finobt, rmapbt, refcountbt,
 * freelist, log, inodes (with " first INO count N": the inodes the block
 * holds), data, dir, symlink, attr, bmbt (with its fork), cow, free, or
 * unowned (neither free nor owned: space the filesystem lost track of).
 * Owners come from primary metadata (the check's forward map: the context
 * must have run XA_RUN_CHECK with keep_ownership); where the rmapbt says
 * otherwise " rmapbt:OWNER" follows ("rmapbt:none" when it has no record).
 * Returns 0; XERR_IO when some AG's metadata could not be read whole (the
 * answer may miss an owner: said on err); or another negative xerr.
 */
int xc_cmd_owner(struct xa_ctx *ctx, const struct xc_owner_range *r, size_t n, bool runs,
		 struct xc_owner_stats *stats, FILE *out, FILE *err);

#endif /* XC_OWNER_H */
