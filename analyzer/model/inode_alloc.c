/*
 * inode_alloc.c - a point lookup in the inode btree.
 *
 * Every block on the way is checked as the walk would check it, but only
 * for what the descent needs (magic, level, a record count the block can
 * hold, pointers inside the AG); depth is bounded by the tree's maximum
 * height, so a cycle cannot hold the lookup.  Anything wrong ends it as
 * "unknown": deciding what is damaged is the check's business.
 */
#include "analyzer/model/inode_alloc.h"

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "formats/btrec.h"
#include "formats/btree.h"

enum xa_ino_alloc xa_inode_alloc(struct xa_ctx *ctx, uint64_t ino)
{
	const struct xfmt_geom *g = &ctx->geom;
	bool v5 = g->v5, sparse = xfmt_geom_has_sparse_inodes(g);
	uint32_t agno, agino, agbno;
	const struct xa_ag *ag;
	int expect = -1;

	if (!xfmt_geom_ino_valid(g, ino))
		return XA_INO_NO_CHUNK;
	agno = xfmt_geom_ino_agno(g, ino);
	agino = xfmt_geom_ino_agino(g, ino);
	if (agno >= ctx->nags)
		return XA_INO_UNKNOWN;
	ag = &ctx->ags[agno];
	if (!ag->agi_ok || ag->agi.level == 0 || ag->agi.level > XFS_BTREE_MAXLEVELS)
		return XA_INO_UNKNOWN;
	agbno = ag->agi.root;
	expect = (int)ag->agi.level - 1;
	for (unsigned depth = 0; depth < XFS_BTREE_MAXLEVELS; depth++) {
		struct xfmt_bt_hdr h;
		struct xbuf *b = NULL;
		uint64_t child = 0;
		int found = -1;

		if (!xfmt_bt_agbno_ok(g, agno, agbno) ||
		    xa_read(ctx, xfmt_geom_agbno_byte(g, agno, agbno), g->blocksize, &b, NULL))
			return XA_INO_UNKNOWN;
		if (xfmt_bt_hdr_decode(b->data, b->len, XFMT_BT_INO, v5, &h) != 0 ||
		    h.magic != xfmt_bt_magic(XFMT_BT_INO, v5) || h.level != expect ||
		    h.numrecs > xfmt_bt_maxrecs(XFMT_BT_INO, g->blocksize, v5, h.level == 0)) {
			xa_put(ctx, &b);
			return XA_INO_UNKNOWN;
		}
		for (unsigned i = 0; i < h.numrecs; i++) {
			const uint8_t *p = h.level ? xfmt_bt_key(b->data, b->len, XFMT_BT_INO, v5, i)
						   : xfmt_bt_rec(b->data, b->len, XFMT_BT_INO, v5, i);
			uint32_t start;

			if (!p)
				break;
			start = xfmt_inobt_key_decode(p);  /* a record starts with its key */
			if (start > agino)
				break;
			found = (int)i;
		}
		if (found < 0) {
			xa_put(ctx, &b);
			return XA_INO_NO_CHUNK;
		}
		if (h.level == 0) {
			struct xfmt_inobt_rec r;
			unsigned slot;

			xfmt_inobt_rec_decode(xfmt_bt_rec(b->data, b->len, XFMT_BT_INO, v5,
							  (unsigned)found), sparse, &r);
			xa_put(ctx, &b);
			if (agino - r.startino >= XFS_INODES_PER_CHUNK)
				return XA_INO_NO_CHUNK;
			slot = agino - r.startino;
			if (sparse && ((r.holemask >> (slot / 4)) & 1))
				return XA_INO_NO_CHUNK;
			return ((r.free >> slot) & 1) ? XA_INO_FREE : XA_INO_IN_USE;
		}
		if (xfmt_bt_ptr(b->data, b->len, XFMT_BT_INO, v5, g->blocksize, (unsigned)found,
				&child) != 0 || child > UINT32_MAX) {
			xa_put(ctx, &b);
			return XA_INO_UNKNOWN;
		}
		xa_put(ctx, &b);
		agbno = (uint32_t)child;
		expect--;
	}
	return XA_INO_UNKNOWN;
}

const char *xa_ino_alloc_name(enum xa_ino_alloc a)
{
	switch (a) {
	case XA_INO_IN_USE:   return "in use";
	case XA_INO_FREE:     return "free";
	case XA_INO_NO_CHUNK: return "chunk freed";
	case XA_INO_UNKNOWN:  break;
	}
	return "unknown";
}
