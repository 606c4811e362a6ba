/*
 * dir_bests.h - a directory's tables of best free lengths against its data
 * blocks.
 *
 * A leaf-form directory keeps, in the tail of its leaf block, and a
 * node-form one in its free-index blocks, bests[db]: the longest free
 * region of data block db (bestfree[0] of its header), or 0xFFFF where
 * block db does not exist.  The kernel picks the block for a new name from
 * them; a stale value sends it to a block without room, and xfs_repair
 * rebuilds such a directory ("free block N entry I ... bad", "bestfree
 * table entry I ... bad").  The walk of a directory hands every data block
 * and every bests table to this collector, then checks once.
 */
#ifndef XA_DIR_BESTS_H
#define XA_DIR_BESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/findings/findings.h"
#include "formats/geom.h"

struct xa_dir_best;

struct xa_dir_bests {
	struct xa_dir_best *data;   /* (db, bestfree[0]) of each data block read */
	size_t              ndata, cap_data;
	struct xa_dir_best *table;  /* (db, bests value, slot, where) of each slot */
	size_t              ntable, cap_table;
	bool                overflow;  /* past the bound: no check */
};

/* Data block db (dirblksize bytes at blk, read as a data block). */
void xa_dir_bests_data(struct xa_dir_bests *b, const struct xfmt_geom *g, uint32_t db,
		       const uint8_t *blk);

/* A leaf1 block (its tail's table) or a free-index block, read at loc. */
void xa_dir_bests_leaf1(struct xa_dir_bests *b, const struct xfmt_geom *g, const uint8_t *blk,
			const struct xa_loc *loc);
void xa_dir_bests_free(struct xa_dir_bests *b, const struct xfmt_geom *g, const uint8_t *blk,
		       const struct xa_loc *loc);

/* Every slot against its data block: dirBestMismatch per stale slot,
 * reported through verify at the slot's block. */
void xa_dir_bests_check(struct xa_dir_bests *b, struct xa_loc_sink *verify);

void xa_dir_bests_release(struct xa_dir_bests *b);

#endif /* XA_DIR_BESTS_H */
