/*
 * btree_walk.h - one generic walker for every short-form AG btree.
 *
 * The walk is depth-first from the root, left to right, with recursion bounded
 * by XFS_BTREE_MAXLEVELS.  It checks each block's header (via formats/), that
 * every block is claimed only once in the AG (no cycles, no sharing with other
 * metadata), that keys and records are in order across the whole level, that
 * each node key equals its child's first key (and, for rmap, that each high
 * key equals the child's highest key), and that sibling pointers chain the
 * blocks of each level in order.  Leaf records are handed to a callback.
 */
#ifndef XA_BTREE_WALK_H
#define XA_BTREE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/btree.h"

struct xa_ctx;
struct xa_ag;

struct xa_walk;

/* Called for each leaf record in key order; idx is its index in its block. */
typedef int (*xa_walk_rec_fn)(struct xa_walk *w, const uint8_t *rec, unsigned idx,
			      uint32_t agbno);

struct xa_walk {
	struct xa_ctx     *ctx;
	struct xa_ag      *ag;
	enum xfmt_btnum    bt;
	xa_walk_rec_fn     rec_fn;   /* may be NULL */
	void              *arg;      /* for rec_fn */

	/* results */
	uint64_t blocks;             /* blocks read, root included */
	uint64_t records;
	uint32_t levels;             /* root level + 1 as found */
	bool     complete;           /* every reachable block was read and usable */
	int      err;                /* operational error, aborts the walk */

	/* walk state */
	uint32_t last_at_level[XFS_BTREE_MAXLEVELS + 1];  /* NULLAGBLOCK: none yet */
	uint32_t last_rightsib[XFS_BTREE_MAXLEVELS + 1];
	uint8_t  prev_key[48];
	bool     have_prev_key;
	uint8_t  prev_rec[32];
	bool     have_prev_rec;
};

/*
 * Walk the tree bt of AG ag rooted at agbno root whose header claims the
 * given number of levels.  Returns 0, or a negative xerr (out of memory).
 */
int xa_walk_btree(struct xa_ctx *ctx, struct xa_ag *ag, enum xfmt_btnum bt,
		  uint32_t root, uint32_t levels, xa_walk_rec_fn rec_fn, void *arg,
		  struct xa_walk *w);

#endif /* XA_BTREE_WALK_H */
