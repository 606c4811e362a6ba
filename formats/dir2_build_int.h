/*
 * dir2_build_int.h - state shared by the two halves of the directory
 * encoder (dir2_build.c: entries, data blocks, form; dir2_build_index.c:
 * hash index and free index).  Not for use outside them.
 */
#ifndef XFMT_DIR2_BUILD_INT_H
#define XFMT_DIR2_BUILD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/danode.h"
#include "formats/dir2_build.h"
#include "formats/geom.h"

/* One leaf entry to be: "." and ".." included. */
struct xfmt_dirb_key {
	uint32_t       hash;
	uint32_t       seq;      /* creation order: "." 0, ".." 1, e[i] i + 2 */
	uint32_t       addr;     /* dataptr of the entry */
	uint8_t        namelen;
	const uint8_t *name;
};

/* Where entry e[i] lands. */
struct xfmt_dirb_pos {
	uint32_t db;
	uint32_t off;
};

/*
 * One block of the node-form hash tree.  Level 0 blocks are leafN blocks
 * covering keys [lo, hi); level l > 0 blocks are DA nodes covering blocks
 * [lo, hi) of level l - 1.
 */
struct xfmt_dirb_tnode {
	uint32_t lo, hi;
	uint32_t k;          /* index in the leaf segment: da = leafblk + k * fsbcount */
	uint32_t hashmax;    /* highest hash below it */
};

struct xfmt_dirb {
	const struct xfmt_geom      *g;
	const struct xfmt_dirent_in *e;
	size_t                       n;
	uint64_t                     dir_ino, parent;
	size_t                       hdr;       /* data header length */
	enum xfmt_dir2_form          form;

	struct xfmt_dirb_pos *pos;      /* n */
	uint32_t             *dend;     /* per data block: end of its records (n + 1 slots) */
	uint32_t              ndata;
	uint16_t             *bests;    /* per data block: its free tail (ndata) */
	struct xfmt_dirb_key *keys;     /* n + 2, in leaf order once sorted */

	/* node form (leaf form: nleaf 1, no levels) */
	uint32_t nleaf;                 /* leaf1 or leafN blocks */
	uint32_t nnode;                 /* DA node blocks */
	unsigned levels;                /* node levels above the leaves */
	uint32_t lvl_count[XFS_DA_NODE_MAXDEPTH + 1];
	struct xfmt_dirb_tnode *lvl[XFS_DA_NODE_MAXDEPTH + 1];
	struct xfmt_dirb_tnode *nodes;  /* backing store of lvl[] */
	uint32_t nfree;                 /* free-index blocks */
};

/* Check one entry (name, inode number, ftype): 0 or XFMT_DIRB_BADENT. */
int xfmt_dirb_check_ent(const struct xfmt_geom *g, const struct xfmt_dirent_in *x);

/* Find duplicates, then sort k into leaf order.  0 or XFMT_DIRB_DUP. */
int xfmt_dirb_sort_keys(const struct xfmt_geom *g, struct xfmt_dirb_key *k, size_t nk);

/* Write every data block (or the one block-form block's data part) and b->bests. */
void xfmt_dirb_write_data(struct xfmt_dirb *b, struct xfmt_dir2_build *out);

/*
 * Node form: choose the leafN count (leaf_blocks, or as few as hold the
 * keys), the node levels above them, each block's range and place in the
 * leaf segment, and the free-index block count.  0 or a negative
 * XFMT_DIRB_*.
 */
int xfmt_dirb_plan_node(struct xfmt_dirb *b, uint32_t leaf_blocks);

/* Allocate out's blocks (and b->bests) and give each its fork block.  0 or
 * XFMT_DIRB_NOMEM. */
int xfmt_dirb_alloc_blocks(struct xfmt_dirb *b, struct xfmt_dir2_build *out);

/* Write the index blocks of b's form (block-form leaf and tail, leaf1, or
 * the node tree and free index); after xfmt_dirb_write_data. */
void xfmt_dirb_write_index(struct xfmt_dirb *b, struct xfmt_dir2_build *out);

#endif /* XFMT_DIR2_BUILD_INT_H */
