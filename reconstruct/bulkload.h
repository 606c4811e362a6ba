/*
 * bulkload.h - build a whole short-form AG btree from its sorted records:
 * the shape (blocks per level, records per block) and the blocks
 * themselves, encoded and planned.
 *
 * The shape follows the kernel's bulk loader as xfs_repair drives it:
 * leaves and nodes are loaded to a desired count per block (maxrecs less a
 * slack), the count rounded down to whole blocks and then spread evenly, so
 * that no block other than the root falls below minrecs (maxrecs / 2, which
 * xfs_repair checks) and none exceeds maxrecs.  The slack is what xfs_repair
 * uses while the AG has room (halfway between minrecs and maxrecs), and none
 * when the AG is short of space.
 */
#ifndef XR_BULKLOAD_H
#define XR_BULKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btree.h"
#include "formats/geom.h"

struct xr_env;

struct xr_btshape {
	enum xfmt_btnum bt;
	uint64_t nrecs;
	unsigned levels;                          /* 1 = the root is a leaf */
	uint32_t blocks;                          /* all levels */
	uint64_t level_blocks[XFS_BTREE_MAXLEVELS];
	uint64_t level_entries[XFS_BTREE_MAXLEVELS]; /* records (0) or children */
};

/*
 * Shape of tree bt holding nrecs records with blocks of g->blocksize; slack
 * selects xfs_repair's loading (else blocks are filled to maxrecs).  An
 * empty tree is one empty root leaf.  Returns 0, or XERR_UNSUPPORTED when
 * the tree would be taller than maxlevels (or the block cannot hold the
 * tree's header and two entries).
 */
int xr_btshape_compute(const struct xfmt_geom *g, enum xfmt_btnum bt, uint64_t nrecs,
		       bool slack, unsigned maxlevels, struct xr_btshape *s);

/*
 * Encode the tree of shape s over the records recs (s->nrecs on-disk
 * records of xfmt_bt_rec_len bytes, in key order) into the AG blocks
 * agbnos[0 .. s->blocks): the leaves from left to right first, then each
 * node level, the root last (*root receives it).  Every block is planned in
 * env->plan under action, named by the tree.  Returns 0, XERR_NOMEM, or the
 * plan's error.
 */
int xr_bt_load(const struct xr_env *env, int action, uint32_t agno,
	       const struct xr_btshape *s, const uint8_t *recs, const uint32_t *agbnos,
	       uint32_t *root);

#endif /* XR_BULKLOAD_H */
