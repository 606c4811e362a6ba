/*
 * dir2_build_index.c - the directory encoder's back half: the blocks that
 * index the data blocks.  The leaf array and tail of a block-form block, the
 * leaf1 block with its bests table, the node form's leafN blocks under a DA
 * node tree (levels linked by forw/back, keys = highest hash below), and
 * the free-index blocks.  Facts: xfs-ondisk.md 7.4-7.7; the kernel's
 * xfs_dir3_leaf_hdr_to_disk, xfs_da3_node_hdr_to_disk and
 * xfs_dir2_free_hdr_to_disk for the header layouts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dir2.h"
#include "formats/dir2_build.h"
#include "formats/dir2_build_int.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* Split n items into parts blocks as evenly as possible: part j's range. */
static void even_range(uint32_t n, uint32_t parts, uint32_t j, uint32_t *lo, uint32_t *hi)
{
	uint32_t base = n / parts, extra = n % parts;

	*lo = j * base + (j < extra ? j : extra);
	*hi = *lo + base + (j < extra ? 1 : 0);
}

int xfmt_dirb_plan_node(struct xfmt_dirb *b, uint32_t leaf_blocks)
{
	const struct xfmt_geom *g = b->g;
	uint32_t nle = (uint32_t)b->n + 2, lmax = xfmt_dir2_leaf_max_ents(g);
	uint32_t nmax = xfmt_da_node_max_ents(g->dirblksize, g->v5);
	uint32_t nleaf, total, k;
	uint64_t seg = (uint64_t)(xfmt_dir2_free_firstda(g) - xfmt_dir2_leaf_firstda(g)) >>
		       g->dirblklog;

	if (lmax == 0 || nmax < 2)
		return XFMT_DIRB_NOFIT;
	nleaf = leaf_blocks ? leaf_blocks : div_up(nle, lmax);
	if (nleaf == 0 || nleaf > nle || div_up(nle, nleaf) > lmax)
		return XFMT_DIRB_NOFIT;
	b->lvl_count[0] = nleaf;
	b->levels = 0;
	total = nleaf;
	while (b->lvl_count[b->levels] > 1) {
		if (b->levels == XFS_DA_NODE_MAXDEPTH)
			return XFMT_DIRB_TOOBIG;
		b->lvl_count[b->levels + 1] = div_up(b->lvl_count[b->levels], nmax);
		b->levels++;
		total += b->lvl_count[b->levels];
	}
	if (total > seg)
		return XFMT_DIRB_TOOBIG;
	b->nodes = calloc(total, sizeof(*b->nodes));
	if (!b->nodes)
		return XFMT_DIRB_NOMEM;

	/* Ranges: keys over leaves, then each level's blocks over the next one up. */
	total = 0;
	for (unsigned l = 0; l <= b->levels; l++) {
		uint32_t under = l == 0 ? nle : b->lvl_count[l - 1];

		b->lvl[l] = b->nodes + total;
		total += b->lvl_count[l];
		for (uint32_t j = 0; j < b->lvl_count[l]; j++)
			even_range(under, b->lvl_count[l], j, &b->lvl[l][j].lo, &b->lvl[l][j].hi);
	}
	/* Places: the root first (the lookup starts at the first leaf-segment
	 * block), then the leaves in hash order, then the inner node levels. */
	b->lvl[b->levels][0].k = 0;
	k = 1;
	for (unsigned l = 0; l < b->levels; l++)
		for (uint32_t j = 0; j < b->lvl_count[l]; j++)
			b->lvl[l][j].k = k++;
	b->nleaf = nleaf;
	b->nnode = total - nleaf;
	b->nfree = div_up(b->ndata, xfmt_dir2_free_max_bests(g));
	return 0;
}

/* ---------------------------------------------------------------- writers */

static void put_keys(uint8_t *p, const struct xfmt_dirb_key *k, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		xfmt_put_be32(p + i * XFMT_DIR2_LEAF_ENTRY, k[i].hash);
		xfmt_put_be32(p + i * XFMT_DIR2_LEAF_ENTRY + 4, k[i].addr);
	}
}

/* DA blkinfo and the two 16-bit counts of a leaf or node header. */
static size_t put_da_hdr(const struct xfmt_geom *g, uint8_t *blk, uint32_t forw, uint32_t back,
			 uint16_t magic, uint16_t count, uint16_t second)
{
	xfmt_put_be32(blk + DA_FORW, forw);
	xfmt_put_be32(blk + DA_BACK, back);
	xfmt_put_be16(blk + DA_MAGIC, magic);
	xfmt_put_be16(blk + (g->v5 ? L3_COUNT : L2_COUNT), count);
	xfmt_put_be16(blk + (g->v5 ? L3_STALE : L2_STALE), second);
	return g->v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR;
}

/* Block form: leaf array and tail at the end of the one block. */
static void write_block_leaf(const struct xfmt_dirb *b, uint8_t *blk)
{
	uint32_t nle = (uint32_t)b->n + 2;
	uint32_t tail = b->g->dirblksize - XFMT_DIR2_BLOCK_TAIL;

	put_keys(blk + tail - nle * XFMT_DIR2_LEAF_ENTRY, b->keys, nle);
	xfmt_put_be32(blk + tail, nle);
	xfmt_put_be32(blk + tail + 4, 0);
}

/* Leaf form: the leaf1 block with every key and bests[] of every data block. */
static void write_leaf1(const struct xfmt_dirb *b, uint8_t *blk)
{
	const struct xfmt_geom *g = b->g;
	uint32_t nle = (uint32_t)b->n + 2;
	size_t hdr = put_da_hdr(g, blk, 0, 0, g->v5 ? XFS_DIR3_LEAF1_MAGIC : XFS_DIR2_LEAF1_MAGIC,
				(uint16_t)nle, 0);
	size_t bests = g->dirblksize - XFMT_DIR2_LEAF_TAIL - 2 * (size_t)b->ndata;

	put_keys(blk + hdr, b->keys, nle);
	for (uint32_t db = 0; db < b->ndata; db++)
		xfmt_put_be16(blk + bests + 2 * db, b->bests[db]);
	xfmt_put_be32(blk + g->dirblksize - XFMT_DIR2_LEAF_TAIL, b->ndata);
}

static uint32_t leaf_da(const struct xfmt_geom *g, uint32_t k)
{
	return xfmt_dir2_leaf_firstda(g) + (k << g->dirblklog);
}

/* Node form: every block of level l, siblings linked in hash order. */
static void write_level(struct xfmt_dirb *b, struct xfmt_dir2_build *out, unsigned l)
{
	const struct xfmt_geom *g = b->g;
	struct xfmt_dirb_tnode *t = b->lvl[l];
	uint32_t cnt = b->lvl_count[l];

	for (uint32_t j = 0; j < cnt; j++) {
		uint8_t *blk = out->blks[b->ndata + t[j].k].buf;
		uint32_t forw = j + 1 < cnt ? leaf_da(g, t[j + 1].k) : 0;
		uint32_t back = j > 0 ? leaf_da(g, t[j - 1].k) : 0;
		uint16_t n = (uint16_t)(t[j].hi - t[j].lo);
		size_t hdr;

		if (l == 0) {
			hdr = put_da_hdr(g, blk, forw, back,
					 g->v5 ? XFS_DIR3_LEAFN_MAGIC : XFS_DIR2_LEAFN_MAGIC, n, 0);
			put_keys(blk + hdr, b->keys + t[j].lo, n);
			t[j].hashmax = b->keys[t[j].hi - 1].hash;
			continue;
		}
		hdr = put_da_hdr(g, blk, forw, back, g->v5 ? XFS_DA3_NODE_MAGIC : XFS_DA_NODE_MAGIC,
				 n, (uint16_t)l);
		for (uint32_t c = 0; c < n; c++) {
			const struct xfmt_dirb_tnode *ch = &b->lvl[l - 1][t[j].lo + c];

			xfmt_put_be32(blk + hdr + c * XFMT_DA_NODE_ENTRY, ch->hashmax);
			xfmt_put_be32(blk + hdr + c * XFMT_DA_NODE_ENTRY + 4, leaf_da(g, ch->k));
		}
		t[j].hashmax = b->lvl[l - 1][t[j].hi - 1].hashmax;
	}
}

/* Free index block j: bests[] of the data blocks it covers, all present. */
static void write_free(const struct xfmt_dirb *b, uint8_t *blk, uint32_t j)
{
	const struct xfmt_geom *g = b->g;
	uint32_t maxb = xfmt_dir2_free_max_bests(g), first = j * maxb;
	uint32_t nvalid = b->ndata - first < maxb ? b->ndata - first : maxb;
	size_t hdr = g->v5 ? XFMT_DIR3_FREE_HDR : XFMT_DIR2_FREE_HDR;

	xfmt_put_be32(blk, g->v5 ? XFS_DIR3_FREE_MAGIC : XFS_DIR2_FREE_MAGIC);
	xfmt_put_be32(blk + (g->v5 ? F3_FIRSTDB : F2_FIRSTDB), first);
	xfmt_put_be32(blk + (g->v5 ? F3_NVALID : F2_NVALID), nvalid);
	xfmt_put_be32(blk + (g->v5 ? F3_NUSED : F2_NUSED), nvalid);
	for (uint32_t i = 0; i < nvalid; i++)
		xfmt_put_be16(blk + hdr + 2 * i, b->bests[first + i]);
}

int xfmt_dirb_alloc_blocks(struct xfmt_dirb *b, struct xfmt_dir2_build *out)
{
	const struct xfmt_geom *g = b->g;
	size_t nblks = (size_t)b->ndata + b->nleaf + b->nnode + b->nfree, i = 0;

	if (nblks > SIZE_MAX / g->dirblksize)
		return XFMT_DIRB_NOMEM;
	out->mem = calloc(nblks, g->dirblksize);
	out->blks = calloc(nblks, sizeof(*out->blks));
	b->bests = calloc(b->ndata, sizeof(*b->bests));
	if (!out->mem || !out->blks || !b->bests)
		return XFMT_DIRB_NOMEM;
	for (uint32_t db = 0; db < b->ndata; db++, i++)
		out->blks[i].da = xfmt_dir2_db_to_da(g, db);
	for (uint32_t k = 0; k < b->nleaf + b->nnode; k++, i++)
		out->blks[i].da = leaf_da(g, k);
	for (uint32_t j = 0; j < b->nfree; j++, i++)
		out->blks[i].da = xfmt_dir2_free_firstda(g) + (j << g->dirblklog);
	for (i = 0; i < nblks; i++)
		out->blks[i].buf = out->mem + i * g->dirblksize;
	out->nblks = nblks;
	return 0;
}

void xfmt_dirb_write_index(struct xfmt_dirb *b, struct xfmt_dir2_build *out)
{
	switch (b->form) {
	case XFMT_DIR2_FORM_BLOCK:
		write_block_leaf(b, out->blks[0].buf);
		break;
	case XFMT_DIR2_FORM_LEAF:
		write_leaf1(b, out->blks[b->ndata].buf);
		break;
	default:
		for (unsigned l = 0; l <= b->levels; l++)
			write_level(b, out, l);
		for (uint32_t j = 0; j < b->nfree; j++)
			write_free(b, out->blks[b->ndata + b->nleaf + b->nnode + j].buf, j);
		break;
	}
}
