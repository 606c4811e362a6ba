/*
 * dir.c - directory entries from every directory form, and path lookup.
 *
 * Bounds: a shortform walk is bounded by the fork size; a block walk visits
 * each mapped directory block of the data segment once (the mappings are
 * sorted and non-overlapping), reads each physical block once however many
 * offsets map it, and each block's records strictly advance.
 */
#include "analyzer/model/dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/model/sorted.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/dir_bests.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/u64set.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/block.h"
#include "formats/dahash.h"
#include "formats/danode.h"
#include "formats/dir2_carve.h"
#include "formats/endian.h"

static int sf_iterate(struct xa_ctx *ctx, const struct xa_inode *dir, struct xa_loc_sink *verify,
		      xa_dirent_fn fn, void *arg, bool *complete)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_dir2_sf_hdr hdr;
	struct xfmt_dirent de;
	const uint8_t *fork;
	size_t fsz = 0, size, pos = 0;
	int r, rc;

	fork = xfmt_dinode_fork(dir->raw, &dir->d, XA_DATA_FORK, &fsz);
	if (!fork) {
		*complete = false;
		return 0;
	}
	if (verify) {
		verify->loc.has = XPROB_HAS_INO | XPROB_HAS_BYTE;
		verify->loc.ino = dir->ino;
		verify->loc.byte = xfmt_geom_ino_byte(g, dir->ino);
		verify->loc.what = "shortform directory";
		xfmt_dir2_sf_verify(fork, fsz, dir->d.size, g, &verify->sink);
	}
	size = dir->d.size < fsz ? (size_t)dir->d.size : fsz;
	if (xfmt_dir2_sf_hdr_decode(fork, size, &hdr) != 0) {
		*complete = false;
		return 0;
	}
	memset(&de, 0, sizeof(de));
	de.ino = dir->ino;
	de.namelen = 1;
	de.name = (const uint8_t *)".";
	de.ftype = XFS_DIR3_FT_DIR;
	if ((rc = fn(arg, &de)) < 0)
		return rc;
	de.ino = hdr.parent;
	de.namelen = 2;
	de.name = (const uint8_t *)"..";
	if ((rc = fn(arg, &de)) < 0)
		return rc;
	while ((r = xfmt_dir2_sf_next(fork, size, g, &pos, &de)) == 1)
		if ((rc = fn(arg, &de)) < 0)
			return rc;
	if (r < 0)
		*complete = false;
	return 0;
}

int xa_dirent_list_add(void *arg, const struct xfmt_dirent *de)
{
	struct xa_dirent_list *l = arg;
	struct xa_dirent_copy *c;

	if (xfmt_dir2_name_dots(de->name, de->namelen))
		return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 32;
		struct xa_dirent_copy *nv = realloc(l->v, ncap * sizeof(*nv));

		if (!nv)
			return XERR_NOMEM;
		l->v = nv;
		l->cap = ncap;
	}
	c = &l->v[l->n++];
	c->ino = de->ino;
	c->ftype = de->ftype;
	c->namelen = de->namelen;
	memcpy(c->name, de->name, de->namelen);
	return 0;
}

void xa_dirent_list_release(struct xa_dirent_list *l)
{
	free(l->v);
	*l = (struct xa_dirent_list){ 0 };
}

int xa_dir_read_block(struct xa_ctx *ctx, const struct xa_extents *ex, uint64_t da,
		      uint8_t *blk, uint64_t *byte, struct xa_u64set *seen)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;

	/* Every filesystem block mapped and inside the filesystem before any is read. */
	for (uint32_t k = 0; k < per; k++) {
		const struct xfmt_bmbt_rec *r = xa_extents_find(ex, da + k);
		uint64_t fsb;

		if (!r || r->unwritten)
			return XERR_RANGE;
		fsb = r->startblock + (da + k - r->startoff);
		if (!xfmt_geom_fsb_valid(g, fsb))
			return XERR_RANGE;
		if (seen && xa_u64set_has(seen, fsb))
			return XA_DIRBLOCK_SEEN;
	}
	for (uint32_t k = 0; k < per; k++) {
		const struct xfmt_bmbt_rec *r = xa_extents_find(ex, da + k);
		uint64_t fsb = r->startblock + (da + k - r->startoff);
		struct xbuf *b = NULL;
		int rc;

		if (seen && xa_u64set_add(seen, fsb) < 0)
			return XERR_NOMEM;
		if (k == 0)
			*byte = xfmt_geom_fsb_byte(g, fsb);
		rc = xa_read(ctx, xfmt_geom_fsb_byte(g, fsb), g->blocksize, &b, NULL);
		if (rc)
			return rc;
		memcpy(blk + ((size_t)k << g->blocklog), b->data, g->blocksize);
		xa_put(ctx, &b);
	}
	return 0;
}

/*
 * The leaf and free segments index the data blocks; listing needs none of
 * them, but check verifies each block on its own (the cross-block checks,
 * leaf hashes against data entries and bests against bestfree, are not
 * done yet).
 */
static void verify_index_block(struct xa_ctx *ctx, const struct xa_inode *dir,
			       struct xa_loc_sink *verify, const uint8_t *blk,
			       enum xfmt_blk_kind kind, uint64_t da, uint64_t daddr,
			       const struct xfmt_bmbt_rec *r)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_da_expect exp;

	xfmt_dir2_da_expect_init(&exp, g, dir->ino, (uint32_t)da, daddr);
	verify->loc.has = XPROB_HAS_INO | XPROB_HAS_BYTE | XPROB_HAS_AG | XPROB_HAS_AGBNO;
	verify->loc.ino = dir->ino;
	verify->loc.byte = daddr << XFS_BB_SHIFT;
	verify->loc.agno = xfmt_geom_fsb_agno(g, r->startblock);
	verify->loc.agbno = xfmt_geom_fsb_agbno(g, r->startblock + (da - r->startoff));
	if (da >= xfmt_dir2_free_firstda(g)) {
		verify->loc.what = "directory free index";
		xfmt_dir2_free_verify(blk, g->dirblksize, g, &exp, &verify->sink);
	} else if (kind == XFMT_BLK_DA_NODE) {
		verify->loc.what = "directory node";
		xfmt_da_node_verify(blk, g->dirblksize, g->dirblksize, g, &exp, &verify->sink);
	} else {
		bool leaf1 = kind == XFMT_BLK_DIR_LEAF1;

		verify->loc.what = "directory leaf";
		xfmt_dir2_leaf_verify(blk, g->dirblksize, g, &exp, leaf1, &verify->sink);
		/* A leaf-form directory's one leaf sits at the leaf offset
		 * (xfs_dir2_leaf_lookup reads it there): elsewhere, as a
		 * mapping's startoff gone astray leaves it, the kernel and
		 * xfs_repair find no leaf at all. */
		if (leaf1 && da != xfmt_dir2_leaf_firstda(g))
			xprob_emit_val(&verify->sink, XP_dirLeafMisplaced, NULL, 0,
				       xfmt_dir2_leaf_firstda(g), da);
	}
	xa_note_meta_lsn(ctx, blk, g->dirblksize, &verify->loc);
}

/*
 * The hash index of a node-form directory, checked across blocks: every
 * node entry points at a leaf or node block of the index (its "before"),
 * and its hashval is the last hash of that block, which lookups rely on to
 * pick the child (xfs_repair: "bad hashval in interior directory block").
 * Collected while the blocks are verified one by one; entries past a bound
 * are not collected and the check is skipped (the per-block checks stand).
 */
#define DA_INDEX_MAX_ENTS (1u << 20)

struct da_blk {
	uint32_t     da;
	uint32_t     lasthash;
	uint32_t     forw, back;  /* siblings at its level (0: none) */
	bool         has_last;
	bool         referenced;  /* named by a node entry */
	struct xa_loc loc;
};

struct da_ent {
	uint32_t     hashval, before;
	unsigned     idx;       /* entry number in its node */
	size_t       node;      /* index into da_index.nodes */
};

/* A name of a data block (its dataptr and hash), or a leaf entry naming one. */
struct da_name {
	uint32_t     addr, hash;
	unsigned     idx;       /* leaf entry number (leaf entries only) */
	size_t       leaf;      /* index into da_index.leaves (leaf entries only) */
	bool         matched;
};

struct da_index {
	struct da_name *names;  /* the data blocks' entries */
	size_t         nnames, cap_names;
	struct da_name *lents;  /* the leaf blocks' live entries */
	size_t         nlents, cap_lents;
	struct xa_loc  *leaves; /* where each leaf block is */
	size_t         nleaves, cap_leaves;
	bool           names_overflow;
	struct da_blk *blks;
	size_t         nblks, cap_blks;
	struct da_ent *ents;
	size_t         nents, cap_ents;
	struct xa_loc *nodes;   /* where each node block is, for its findings */
	size_t         nnodes, cap_nodes;
	bool           overflow;
};

/* Record index block blk (of kind, fork block da) and, for a node, its entries. */
static void da_index_add(struct da_index *ix, const struct xfmt_geom *g, const uint8_t *blk,
			 enum xfmt_blk_kind kind, uint32_t da, const struct xa_loc *loc)
{
	struct da_blk b = { .da = da, .loc = *loc };
	struct xfmt_da_blkinfo bi;

	if (ix->overflow || xfmt_da_blkinfo_decode(blk, g->dirblksize, g->v5, &bi) != 0)
		return;
	b.forw = bi.forw;
	b.back = bi.back;
	if (kind == XFMT_BLK_DA_NODE) {
		struct xfmt_da_node_hdr h;
		unsigned count;

		if (xfmt_da_node_hdr_decode(blk, g->dirblksize, g->v5, &h) != 0)
			return;
		count = h.count;
		if (count > xfmt_da_node_max_ents(g->dirblksize, g->v5))
			return;  /* daBadCount already; its entries mean nothing */
		if (ix->nents + count > DA_INDEX_MAX_ENTS ||
		    xa_grow((void **)&ix->ents, &ix->cap_ents, ix->nents + count, sizeof(*ix->ents)) ||
		    xa_grow((void **)&ix->nodes, &ix->cap_nodes, ix->nnodes + 1, sizeof(*ix->nodes))) {
			ix->overflow = true;
			return;
		}
		ix->nodes[ix->nnodes] = *loc;
		for (unsigned i = 0; i < count; i++) {
			struct da_ent *e = &ix->ents[ix->nents];

			if (xfmt_da_node_entry(blk, g->dirblksize, g->v5, i, &e->hashval,
					       &e->before) != 0)
				break;
			e->idx = i;
			e->node = ix->nnodes;
			ix->nents++;
			b.lasthash = e->hashval;
			b.has_last = true;
		}
		ix->nnodes++;
	} else if (kind == XFMT_BLK_DIR_LEAFN) {
		struct xfmt_dir2_leaf_hdr h;
		uint32_t addr;

		if (xfmt_dir2_leaf_hdr_decode(blk, g->dirblksize, g->v5, &h) != 0 ||
		    h.count == 0 || h.count > xfmt_dir2_leaf_max_ents(g))
			return;
		b.has_last = xfmt_dir2_leaf_entry(blk, g->dirblksize, g->v5, h.count - 1u,
						  &b.lasthash, &addr) == 0;
	} else {
		return;
	}
	if (xa_grow((void **)&ix->blks, &ix->cap_blks, ix->nblks + 1, sizeof(*ix->blks))) {
		ix->overflow = true;
		return;
	}
	ix->blks[ix->nblks++] = b;
}

/* A data block entry at (dir block db, byte off): the leaf must name it. */
static void da_index_name(struct da_index *ix, const struct xfmt_geom *g, uint32_t db,
			  const struct xfmt_dirent *de)
{
	if (ix->names_overflow)
		return;
	if (ix->nnames >= DA_INDEX_MAX_ENTS ||
	    xa_grow((void **)&ix->names, &ix->cap_names, ix->nnames + 1, sizeof(*ix->names))) {
		ix->names_overflow = true;
		return;
	}
	ix->names[ix->nnames++] = (struct da_name){
		.addr = xfmt_dir2_db_off_to_dataptr(g, db, de->offset),
		.hash = xfmt_dir2_hashname(g, de->name, de->namelen),
	};
}

/* The live entries of a leaf1 or leafN block. */
static void da_index_leaf(struct da_index *ix, const struct xfmt_geom *g, const uint8_t *blk,
			  const struct xa_loc *loc)
{
	struct xfmt_dir2_leaf_hdr h;

	if (ix->names_overflow)
		return;
	if (xfmt_dir2_leaf_hdr_decode(blk, g->dirblksize, g->v5, &h) != 0 ||
	    h.count > xfmt_dir2_leaf_max_ents(g))
		return;
	if (ix->nlents + h.count > DA_INDEX_MAX_ENTS ||
	    xa_grow((void **)&ix->lents, &ix->cap_lents, ix->nlents + h.count, sizeof(*ix->lents)) ||
	    xa_grow((void **)&ix->leaves, &ix->cap_leaves, ix->nleaves + 1, sizeof(*ix->leaves))) {
		ix->names_overflow = true;
		return;
	}
	ix->leaves[ix->nleaves] = *loc;
	for (unsigned i = 0; i < h.count; i++) {
		uint32_t hash, addr;

		if (xfmt_dir2_leaf_entry(blk, g->dirblksize, g->v5, i, &hash, &addr) != 0)
			break;
		if (addr == XFS_DIR2_NULL_DATAPTR)
			continue;
		ix->lents[ix->nlents++] = (struct da_name){
			.addr = addr, .hash = hash, .idx = i, .leaf = ix->nleaves,
		};
	}
	ix->nleaves++;
}

static int cmp_da_name(const void *x, const void *y)
{
	const struct da_name *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * Leaf entries against the names of the data blocks: each live leaf entry
 * points at a name whose hash it carries, and each name has its leaf entry
 * (the kernel finds a name only through its hash).  dir_loc is where
 * findings about the directory as a whole go.
 */
static void da_index_check_names(struct da_index *ix, struct xa_loc_sink *verify,
				 const struct xa_loc *dir_loc)
{
	size_t missing = 0;

	if (ix->names_overflow || !ix->nleaves)
		return;
	xa_sort(ix->names, ix->nnames, sizeof(*ix->names), cmp_da_name);
	for (size_t i = 0; i < ix->nlents; i++) {
		const struct da_name *e = &ix->lents[i];
		struct da_name *n = bsearch(e, ix->names, ix->nnames, sizeof(*ix->names),
					    cmp_da_name);

		verify->loc = ix->leaves[e->leaf];
		if (!n) {
			xprob_emit_obs(&verify->sink, XP_dirLeafBadAddress, "address", e->idx,
				       e->addr);
			continue;
		}
		n->matched = true;
		if (n->hash != e->hash)
			xprob_emit_val(&verify->sink, XP_dirLeafBadHash, "hashval", e->idx, n->hash,
				       e->hash);
	}
	for (size_t i = 0; i < ix->nnames; i++)
		missing += !ix->names[i].matched;
	if (missing) {
		verify->loc = *dir_loc;
		xprob_emit_val(&verify->sink, XP_dirLeafMissing, NULL, 0, 0, missing);
	}
}

static int cmp_da_blk(const void *x, const void *y)
{
	const struct da_blk *a = x, *b = y;

	return a->da < b->da ? -1 : a->da > b->da;
}

static struct da_blk *da_find(struct da_index *ix, uint32_t da)
{
	struct da_blk key = { .da = da };

	return bsearch(&key, ix->blks, ix->nblks, sizeof(*ix->blks), cmp_da_blk);
}

/*
 * The cross-block checks over what da_index_add collected (root is the
 * fork block of the tree's root): node entries against their children,
 * every other block named by some node entry, sibling pointers paired.
 */
static void da_index_check(struct da_index *ix, struct xa_loc_sink *verify, uint32_t root)
{
	if (ix->overflow || !ix->nents)
		return;
	xa_sort(ix->blks, ix->nblks, sizeof(*ix->blks), cmp_da_blk);
	for (size_t i = 0; i < ix->nents; i++) {
		const struct da_ent *e = &ix->ents[i];
		struct da_blk *c = da_find(ix, e->before);

		verify->loc = ix->nodes[e->node];
		if (!c) {
			xprob_emit_obs(&verify->sink, XP_daBeforeUnmapped, "before", e->idx,
				       e->before);
			continue;
		}
		c->referenced = true;
		if (c->has_last && c->lasthash != e->hashval)
			xprob_emit_val(&verify->sink, XP_daNodeHashMismatch, "hashval", e->idx,
				       c->lasthash, e->hashval);
	}
	for (size_t i = 0; i < ix->nblks; i++) {
		const struct da_blk *b = &ix->blks[i];
		const struct da_blk *f = b->forw ? da_find(ix, b->forw) : NULL;
		const struct da_blk *k = b->back ? da_find(ix, b->back) : NULL;

		verify->loc = b->loc;
		if (!b->referenced && b->da != root)
			xprob_emit_obs(&verify->sink, XP_daBlockUnreferenced, NULL, 0, b->da);
		if (b->forw && (!f || f->back != b->da))
			xprob_emit_val(&verify->sink, XP_daSiblingMismatch, "forw", 0, 0, b->forw);
		if (b->back && (!k || k->forw != b->da))
			xprob_emit_val(&verify->sink, XP_daSiblingMismatch, "back", 4, 0, b->back);
	}
}

static void da_index_release(struct da_index *ix)
{
	free(ix->names);
	free(ix->lents);
	free(ix->leaves);
	free(ix->blks);
	free(ix->ents);
	free(ix->nodes);
	memset(ix, 0, sizeof(*ix));
}

/*
 * A directory is in block form when its data fork ends after exactly one
 * directory block (the kernel's xfs_dir2_isblock).  di_size cannot tell:
 * a leaf-form directory with one data block has the same size.
 */
static bool is_block_form(const struct xa_ctx *ctx, const struct xa_extents *ex)
{
	const struct xfmt_geom *g = &ctx->geom;
	const struct xfmt_bmbt_rec *last;

	if (ex->n == 0)
		return false;
	last = &ex->v[ex->n - 1];
	return ((last->startoff + last->blockcount) << g->blocklog) == g->dirblksize;
}

/*
 * Where directory blocks span several filesystem blocks, each is mapped
 * whole or not at all: a run of mappings (consecutive in the file) that
 * starts or ends inside one leaves it part hole, and the kernel reads it
 * as corrupt (a mapping's startoff gone astray does this).  The block at
 * each such edge is reported once.
 */
static void partly_mapped(const struct xa_inode *dir, const struct xa_extents *ex, uint32_t per,
			  struct xa_loc_sink *verify)
{
	uint64_t last = UINT64_MAX;

	for (size_t i = 0; i < ex->n; i++) {
		const struct xfmt_bmbt_rec *r = &ex->v[i];
		uint64_t end = r->startoff + r->blockcount;
		bool starts_run = i == 0 || ex->v[i - 1].startoff + ex->v[i - 1].blockcount !=
						    r->startoff;
		bool ends_run = i + 1 == ex->n || ex->v[i + 1].startoff != end;
		uint64_t edge[2] = { UINT64_MAX, UINT64_MAX };

		if (starts_run && r->startoff % per)
			edge[0] = r->startoff / per * per;
		if (ends_run && end % per)
			edge[1] = end / per * per;
		for (int k = 0; k < 2; k++) {
			if (edge[k] == UINT64_MAX || edge[k] == last)
				continue;
			last = edge[k];
			verify->loc.has = XPROB_HAS_INO;
			verify->loc.ino = dir->ino;
			verify->loc.what = "directory";
			xprob_emit_val(&verify->sink, XP_dirBlockPartlyMapped, NULL, 0, per, edge[k]);
		}
	}
}

static int block_iterate(struct xa_ctx *ctx, const struct xa_inode *dir,
			 struct xa_loc_sink *verify, xa_dirent_fn fn, void *arg, bool *complete)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;
	uint64_t leaf_da = xfmt_dir2_leaf_firstda(g);
	uint64_t free_da = xfmt_dir2_free_firstda(g);
	struct xa_u64set seen = { 0 };
	struct da_index ix = { 0 };
	struct xa_dir_bests bests = { 0 };
	bool block_form;
	struct xa_extents ex;
	uint8_t *blk;
	int rc;

	rc = xa_extents_load(ctx, dir, XA_DATA_FORK, &ex);
	if (rc)
		return rc;
	if (!ex.complete)
		*complete = false;
	block_form = is_block_form(ctx, &ex);
	/* The kernel takes such a directory for block form only with the
	 * size of one block (xfs_dir2_isblock): any other size makes every
	 * lookup in it fail as corrupt.  A size of 0 is the inode's own
	 * finding. */
	if (verify && block_form && dir->d.size != 0 && dir->d.size != g->dirblksize) {
		verify->loc.has = XPROB_HAS_INO;
		verify->loc.ino = dir->ino;
		verify->loc.what = "directory";
		xprob_emit_val(&verify->sink, XP_inoBadSize, "core.size", 0, g->dirblksize,
			       dir->d.size);
	}
	if (verify && per > 1)
		partly_mapped(dir, &ex, per, verify);
	blk = malloc(g->dirblksize);
	if (!blk) {
		xa_extents_release(&ex);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ex.n && !rc; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t end = r->startoff + r->blockcount;
		/* First directory-block boundary inside this mapping. */
		uint64_t da = (r->startoff + per - 1) / per * per;

		for (; da < end && (da < leaf_da || verify) && !rc; da += per) {
			struct xfmt_da_expect exp;
			struct xfmt_dirent de;
			uint64_t byte = 0;
			size_t pos = 0;
			bool skipped = false;
			int nr = xa_dir_read_block(ctx, &ex, da, blk, &byte, &seen);
			uint64_t daddr = byte >> XFS_BB_SHIFT;

			if (nr == XA_DIRBLOCK_SEEN) {
				/* one of its blocks at two offsets: at most one
				 * of them holds what that offset needs */
				if (verify) {
					verify->loc.has = XPROB_HAS_INO;
					verify->loc.ino = dir->ino;
					verify->loc.what = "directory";
					xprob_emit_obs(&verify->sink, XP_dirBlockMappedTwice, NULL, 0, da);
				}
				continue;
			}
			if (nr == XERR_NOMEM) {
				rc = nr;
				break;
			}
			if (nr != 0) {
				*complete = false;
				continue;
			}
			if (da >= leaf_da) {
				/* its kind by magic, once: the checks below all ask */
				enum xfmt_blk_kind k =
					xfmt_blk_classify(blk, g->dirblksize, XFMT_BLK_ANY);

				verify_index_block(ctx, dir, verify, blk, k, da, daddr, r);
				if (da >= free_da && verify)
					xa_dir_bests_free(&bests, g, blk, &verify->loc);
				if (da < free_da) {
					if (verify && k == XFMT_BLK_DIR_LEAF1)
						xa_dir_bests_leaf1(&bests, g, blk, &verify->loc);

					da_index_add(&ix, g, blk, k, (uint32_t)da, &verify->loc);
					if (k == XFMT_BLK_DIR_LEAF1 || k == XFMT_BLK_DIR_LEAFN)
						da_index_leaf(&ix, g, blk, &verify->loc);
				}
				continue;
			}
			if (verify) {
				xfmt_dir2_da_expect_init(&exp, g, dir->ino, (uint32_t)da, daddr);
				verify->loc.has = XPROB_HAS_INO | XPROB_HAS_BYTE | XPROB_HAS_AG |
						  XPROB_HAS_AGBNO;
				verify->loc.ino = dir->ino;
				verify->loc.byte = daddr << XFS_BB_SHIFT;
				verify->loc.agno = xfmt_geom_fsb_agno(g, r->startblock);
				verify->loc.agbno = xfmt_geom_fsb_agbno(g, r->startblock +
									(da - r->startoff));
				verify->loc.what = block_form ? "directory block" : "directory data";
				if (block_form && da == 0)
					xfmt_dir2_block_verify(blk, g->dirblksize, g, &exp, &verify->sink);
				else
					xfmt_dir2_data_verify(blk, g->dirblksize, g, &exp, &verify->sink);
				xa_note_meta_lsn(ctx, blk, g->dirblksize, &verify->loc);
				if (!block_form)
					xa_dir_bests_data(&bests, g, (uint32_t)(da / per), blk);
			}
			/* Past a damaged record the walk resyncs on the next
			 * tagged one, so the names after it are still listed. */
			while ((nr = xfmt_dir2_data_next_resync(blk, g->dirblksize, g,
								block_form && da == 0, &pos, &de,
								&skipped)) == 1) {
				if (verify && !block_form)
					da_index_name(&ix, g, (uint32_t)(da / per), &de);
				rc = fn(arg, &de);
				if (rc < 0)
					break;
			}
			if (skipped)
				*complete = false;
		}
	}
	/* A directory past one block is found by its leaf or node blocks (the
	 * kernel looks names up there): without any, it cannot be read. */
	if (verify && !rc && ex.complete && ex.n && !block_form &&
	    ex.v[ex.n - 1].startoff + ex.v[ex.n - 1].blockcount <= leaf_da) {
		uint64_t blocks = 0;

		for (size_t i = 0; i < ex.n; i++)
			blocks += ex.v[i].blockcount;
		verify->loc.has = XPROB_HAS_INO;
		verify->loc.ino = dir->ino;
		verify->loc.what = "directory";
		xprob_emit_obs(&verify->sink, XP_dirNoLeaf, NULL, 0, blocks / per);
	}
	/* (only over a complete map: a missing block is its own finding) */
	if (verify && !rc && ex.complete && *complete) {
		struct xa_loc dir_loc = { .has = XPROB_HAS_INO, .ino = dir->ino, .what = "directory" };

		da_index_check(&ix, verify, (uint32_t)leaf_da);
		da_index_check_names(&ix, verify, &dir_loc);
		xa_dir_bests_check(&bests, verify);
	}
	da_index_release(&ix);
	xa_dir_bests_release(&bests);
	free(blk);
	xa_extents_release(&ex);
	xa_u64set_release(&seen);
	return rc < 0 ? rc : 0;
}

int xa_dir_iterate(struct xa_ctx *ctx, const struct xa_inode *dir, struct xa_loc_sink *verify,
		   xa_dirent_fn fn, void *arg, bool *complete)
{
	bool dummy = true;

	if (!complete)
		complete = &dummy;
	*complete = true;
	if ((dir->d.mode & 0170000u) != 0040000u) {
		*complete = false;
		return 0;
	}
	if (dir->d.format == 1)
		return sf_iterate(ctx, dir, verify, fn, arg, complete);
	if (dir->d.format == XFS_DINODE_FMT_EXTENTS || dir->d.format == XFS_DINODE_FMT_BTREE)
		return block_iterate(ctx, dir, verify, fn, arg, complete);
	*complete = false;
	return 0;
}

/* Is (name, ino) an entry the shortform directory still holds? */
static bool sf_live(const uint8_t *fork, size_t live, const struct xfmt_geom *g,
		    const struct xfmt_dir2_carved *c)
{
	struct xfmt_dirent de;
	size_t pos = 0;

	while (xfmt_dir2_sf_next(fork, live, g, &pos, &de) == 1)
		if (de.ino == c->ino && de.namelen == c->namelen &&
		    !memcmp(de.name, c->name, c->namelen))
			return true;
	return false;
}

/* The old entries in the literal area past a shortform directory's
 * di_size; copies of live entries (shifted down when one before them went)
 * are not deleted names. */
static int sf_deleted(struct xa_ctx *ctx, const struct xa_inode *dir, xa_deleted_fn fn,
		      void *arg)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_dir2_sf_hdr h;
	struct xfmt_dir2_carved c;
	size_t fsz = 0, live, pos;
	const uint8_t *fork = xfmt_dinode_fork(dir->raw, &dir->d, XA_DATA_FORK, &fsz);
	int rc = 0;

	if (!fork || dir->d.size > fsz || xfmt_dir2_sf_hdr_decode(fork, fsz, &h) < 0)
		return 0;
	live = (size_t)dir->d.size;
	pos = live;
	while (!rc && xfmt_dir2_sf_carve_next(fork, fsz, live, g, h.i8count != 0, &pos, &c) == 1)
		if (!sf_live(fork, live, g, &c))
			rc = fn(arg, &c);
	return rc;
}

int xa_dir_deleted(struct xa_ctx *ctx, const struct xa_inode *dir, xa_deleted_fn fn, void *arg)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;
	uint64_t leaf_da = xfmt_dir2_leaf_firstda(g);
	struct xa_u64set seen = { 0 };
	bool block_form;
	struct xa_extents ex;
	uint8_t *blk;
	int rc;

	if ((dir->d.mode & 0170000u) != 0040000u)
		return 0;
	if (dir->d.format == XFS_DINODE_FMT_LOCAL)
		return sf_deleted(ctx, dir, fn, arg);
	if (dir->d.format != XFS_DINODE_FMT_EXTENTS && dir->d.format != XFS_DINODE_FMT_BTREE)
		return 0;
	rc = xa_extents_load(ctx, dir, XA_DATA_FORK, &ex);
	if (rc)
		return rc;
	block_form = is_block_form(ctx, &ex);
	blk = malloc(g->dirblksize);
	if (!blk) {
		xa_extents_release(&ex);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ex.n && !rc; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t end = r->startoff + r->blockcount;
		uint64_t da = (r->startoff + per - 1) / per * per;

		for (; da < end && da < leaf_da && !rc; da += per) {
			struct xfmt_dir2_unused u;
			uint64_t byte;
			size_t pos = 0;
			int got = xa_dir_read_block(ctx, &ex, da, blk, &byte, &seen);

			if (got == XERR_NOMEM) {
				rc = got;
				break;
			}
			if (got != 0)
				continue;
			while (!rc && xfmt_dir2_unused_next(blk, g->dirblksize, g, block_form && da == 0,
							    &pos, &u) == 1) {
				struct xfmt_dir2_carved c;
				size_t cpos = 0;

				while (!rc && xfmt_dir2_carve_next(blk, g->dirblksize, u.offset, u.length,
								   g, &cpos, &c) == 1)
					rc = fn(arg, &c);
			}
		}
	}
	free(blk);
	xa_extents_release(&ex);
	xa_u64set_release(&seen);
	return rc < 0 ? rc : 0;
}

struct lookup {
	const uint8_t *name;
	size_t         len;
	uint64_t       ino;
	bool           found;
};

static int lookup_fn(void *arg, const struct xfmt_dirent *de)
{
	struct lookup *l = arg;

	if (de->namelen == l->len && memcmp(de->name, l->name, l->len) == 0) {
		l->ino = de->ino;
		l->found = true;
		return -1000;  /* stop: found */
	}
	return 0;
}

int xa_dir_lookup(struct xa_ctx *ctx, const struct xa_inode *dir, const uint8_t *name,
		  size_t len, uint64_t *ino)
{
	struct lookup l = { name, len, 0, false };
	int rc = xa_dir_iterate(ctx, dir, NULL, lookup_fn, &l, NULL);

	if (l.found) {
		*ino = l.ino;
		return 0;
	}
	return rc < 0 && rc != -1000 ? rc : XERR_RANGE;
}

int xa_path_resolve(struct xa_ctx *ctx, const char *path, uint64_t *ino, char *err, size_t errlen)
{
	uint64_t cur = ctx->sb.rootino;
	const char *p = path;
	size_t len;

	if (!path || path[0] != '/') {
		snprintf(err, errlen, "'%s' is not an absolute path", path ? path : "");
		return XERR_USAGE;
	}
	for (const char *walk = p; xa_path_next(&walk, &p, &len); ) {
		struct xa_inode dir;
		uint64_t next;
		int rc;

		if (len > XFMT_DIR_MAXNAMELEN) {
			snprintf(err, errlen, "a path component is longer than %u bytes",
				 XFMT_DIR_MAXNAMELEN);
			return XERR_USAGE;
		}
		rc = xa_inode_read(ctx, cur, &dir);
		if (rc) {
			snprintf(err, errlen, "inode %llu on the way to '%.*s' cannot be read",
				 (unsigned long long)cur, (int)len, p);
			return rc == XERR_NOMEM ? rc : XERR_IO;
		}
		if ((dir.d.mode & 0170000u) != 0040000u) {
			snprintf(err, errlen, "'%.*s': a component before it is not a directory",
				 (int)len, p);
			xa_inode_release(&dir);
			return XERR_USAGE;
		}
		rc = xa_dir_lookup(ctx, &dir, (const uint8_t *)p, len, &next);
		xa_inode_release(&dir);
		if (rc == XERR_RANGE) {
			snprintf(err, errlen, "'%.*s': no such entry", (int)len, p);
			return rc;
		}
		if (rc) {
			snprintf(err, errlen, "the directory holding '%.*s' (inode %llu) cannot be "
				 "read", (int)len, p, (unsigned long long)cur);
			return rc == XERR_NOMEM ? rc : XERR_IO;
		}
		cur = next;
	}
	*ino = cur;
	return 0;
}
