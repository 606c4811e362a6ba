/*
 * xattr.c - extended attributes, every form.
 *
 * The DA tree of a node-form attr fork is walked breadth first from logical
 * block 0, so its leaves come in hash order; every logical block is entered
 * once (a set) and the queue holds only blocks the fork maps, so a damaged
 * tree cannot loop or grow without bound.
 */
#include "analyzer/model/xattr.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/u64set.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/block.h"
#include "formats/endian.h"

struct xwalk {
	struct xa_ctx         *ctx;
	const struct xa_inode *ip;
	struct xa_loc_sink    *verify;
	xa_xattr_fn            fn;
	void                  *arg;
	bool                  *complete;
	struct xa_extents      ex;
	uint32_t               fork_end;   /* one past the last mapped logical block */
	uint8_t               *value;      /* XFMT_ATTR_VALUE_MAX bytes for remote values */
};

/* Read logical attr block lblk; 0 and a referenced buffer, or -1. */
static int read_lblk(struct xwalk *w, uint32_t lblk, struct xbuf **b, uint64_t *daddr)
{
	const struct xfmt_geom *g = &w->ctx->geom;
	const struct xfmt_bmbt_rec *r = xa_extents_find(&w->ex, lblk);
	uint64_t fsb;

	if (!r || r->unwritten)
		return -1;
	fsb = r->startblock + (lblk - r->startoff);
	if (!xfmt_geom_fsb_valid(g, fsb))
		return -1;
	*daddr = xfmt_geom_fsb_byte(g, fsb) >> XFS_BB_SHIFT;
	if (w->verify) {
		w->verify->loc.has = XPROB_HAS_INO | XPROB_HAS_BYTE | XPROB_HAS_AG | XPROB_HAS_AGBNO;
		w->verify->loc.ino = w->ip->ino;
		w->verify->loc.byte = *daddr << XFS_BB_SHIFT;
		w->verify->loc.agno = xfmt_geom_fsb_agno(g, fsb);
		w->verify->loc.agbno = xfmt_geom_fsb_agbno(g, fsb);
	}
	return xa_read(w->ctx, xfmt_geom_fsb_byte(g, fsb), g->blocksize, b, NULL) == 0 ? 0 : -1;
}

static const struct xprob_sink *vsink(struct xwalk *w, const char *what)
{
	if (!w->verify)
		return NULL;
	w->verify->loc.what = what;
	return &w->verify->sink;
}

static void drop(void *arg, const struct xprob *p)
{
	(void)arg;
	(void)p;
}

static int emit_remote(struct xwalk *w, const struct xfmt_attr_entry *e)
{
	const struct xfmt_geom *g = &w->ctx->geom;
	struct xprob_sink none = { drop, NULL };
	struct xfmt_attr_rmt_asm a;
	uint32_t nblk = xfmt_attr_rmt_blocks(g, e->valuelen);
	struct xa_xattr x;

	xfmt_attr_rmt_asm_init(&a, g, w->ip->ino, e->valuelen, w->value, XFMT_ATTR_VALUE_MAX);
	for (uint32_t k = 0; k < nblk && !xfmt_rmt_cursor_done(&a.cur); k++) {
		struct xbuf *b = NULL;
		uint64_t daddr;

		if ((uint64_t)e->valueblk + k >= w->fork_end ||
		    read_lblk(w, e->valueblk + k, &b, &daddr) != 0) {
			*w->complete = false;
			break;
		}
		xfmt_attr_rmt_asm_add(&a, b->data, b->len, daddr, g,
				      w->verify ? vsink(w, "attr remote value") : &none);
		if (w->verify)
			xa_note_meta_lsn(w->ctx, b->data, b->len, &w->verify->loc);
		xa_put(w->ctx, &b);
	}
	xfmt_attr_rmt_asm_finish(&a, w->verify ? vsink(w, "attr remote value") : &none);
	x.ns = e->ns;
	x.name = e->name;
	x.namelen = e->namelen;
	x.value = w->value;
	x.valuelen = a.cur.have;
	x.value_complete = a.cur.have == e->valuelen;
	if (!x.value_complete)
		*w->complete = false;
	return w->fn(w->arg, &x);
}

static int leaf_entries(struct xwalk *w, const uint8_t *buf, size_t len)
{
	const struct xfmt_geom *g = &w->ctx->geom;
	struct xfmt_attr_leaf_hdr h;
	unsigned max;
	int rc = 0;

	if (xfmt_attr_leaf_hdr_decode(buf, len, g, &h) != 0) {
		*w->complete = false;
		return 0;
	}
	max = (unsigned)((len - h.hdr_len) / XFMT_ATTR_LEAF_ENTRY_LEN);
	for (unsigned i = 0; i < h.count && i < max && !rc; i++) {
		struct xfmt_attr_entry e;
		struct xa_xattr x;

		if (xfmt_attr_leaf_entry(buf, len, &h, i, &e) != 0) {
			*w->complete = false;
			continue;
		}
		if (e.incomplete || e.ns == XFMT_ATTR_NS_INVALID)
			continue;
		if (!e.local) {
			rc = emit_remote(w, &e);
			continue;
		}
		x.ns = e.ns;
		x.name = e.name;
		x.namelen = e.namelen;
		x.value = e.value;
		x.valuelen = e.valuelen;
		x.value_complete = true;
		rc = w->fn(w->arg, &x);
	}
	return rc;
}

/* A block to visit, with what its parent's entry says of it. */
struct qitem {
	uint32_t lblk;
	int      level;     /* -1: unknown (the root) */
	uint32_t hash;      /* the parent entry's hashval: the block's last hash */
	bool     has_hash;
	unsigned idx;       /* that entry's number in the parent */
};

/* A block's last hash against its parent entry's (lookups pick the child
 * by it; xfs_repair: "bad hashval in interior attribute block"). */
static void check_parent_hash(struct xwalk *w, const struct qitem *q, bool have, uint32_t last)
{
	if (w->verify && q->has_hash && have && last != q->hash)
		xprob_emit_val(vsink(w, "attr block"), XP_daNodeHashMismatch, "hashval", q->idx,
			       last, q->hash);
}

static int tree_walk(struct xwalk *w)
{
	const struct xfmt_geom *g = &w->ctx->geom;
	struct xa_u64set seen = { 0 };
	struct qitem *queue = NULL;
	size_t qh = 0, qn = 0, qcap = 0;
	int rc = 0;

	/* Logical block 0 is the root: a leaf, or a node. */
	qcap = 16;
	queue = malloc(qcap * sizeof(*queue));
	if (!queue) {
		rc = XERR_NOMEM;
		goto out;
	}
	queue[qn++] = (struct qitem){ .lblk = 0, .level = -1 };
	while (qh < qn && !rc) {
		struct qitem q = queue[qh++];
		uint32_t lblk = q.lblk;
		int level = q.level;
		struct xfmt_da_expect exp;
		struct xfmt_da_blkinfo bi;
		struct xbuf *b = NULL;
		uint64_t daddr;
		int added = xa_u64set_add(&seen, lblk);

		if (added < 0) {
			rc = XERR_NOMEM;
			break;
		}
		if (added == 0 && q.has_hash && w->verify)
			xprob_emit_obs(vsink(w, "attr node"), XP_daBeforeTwice, "before", q.idx, lblk);
		if (added == 0 || read_lblk(w, lblk, &b, &daddr) != 0) {
			*w->complete = false;
			continue;
		}
		xfmt_attr_da_expect_init(&exp, daddr, w->ip->ino, lblk, level, w->fork_end);
		/* The root has no siblings (xfs_repair: "would clear forw/back
		 * pointers in block 0"); a lookup would wander off it. */
		if (lblk == 0 && w->verify &&
		    xfmt_da_blkinfo_decode(b->data, b->len, g->v5, &bi) == 0) {
			if (bi.forw)
				xprob_emit_obs(vsink(w, "attr block"), XP_daBadSibling, "forw", 0,
					       bi.forw);
			if (bi.back)
				xprob_emit_obs(vsink(w, "attr block"), XP_daBadSibling, "back", 4,
					       bi.back);
		}
		switch (xfmt_blk_classify(b->data, b->len, xfmt_blk_ver_of(g->v5))) {
		case XFMT_BLK_ATTR_LEAF: {
			uint32_t last = 0;
			bool have = xfmt_attr_leaf_lasthash(b->data, b->len, g, &last) == 0;

			if (w->verify)
				xfmt_attr_leaf_verify(b->data, b->len, g, &exp, vsink(w, "attr leaf"));
			check_parent_hash(w, &q, have, last);
			rc = leaf_entries(w, b->data, b->len);
			break;
		}
		case XFMT_BLK_DA_NODE: {
			struct xfmt_da_node_hdr nh;
			unsigned max;

			if (w->verify)
				xfmt_da_node_verify(b->data, b->len, g->blocksize, g, &exp,
						    vsink(w, "attr node"));
			if (xfmt_da_node_hdr_decode(b->data, b->len, g->v5, &nh) != 0 ||
			    nh.level == 0 || nh.level > XFS_DA_NODE_MAXDEPTH) {
				*w->complete = false;
				break;
			}
			max = xfmt_da_node_max_ents(g->blocksize, g->v5);
			{
				uint32_t hash, before;
				unsigned lasti = nh.count < max ? nh.count : max;

				if (lasti && xfmt_da_node_entry(b->data, b->len, g->v5, lasti - 1,
								&hash, &before) == 0)
					check_parent_hash(w, &q, true, hash);
			}
			for (unsigned i = 0; i < nh.count && i < max; i++) {
				uint32_t hash, before;

				if (xfmt_da_node_entry(b->data, b->len, g->v5, i, &hash, &before) != 0)
					break;
				if (before == 0 || before >= w->fork_end)
					continue;
				if (qn == qcap) {
					size_t ncap = qcap * 2;
					struct qitem *nq = realloc(queue, ncap * sizeof(*nq));

					if (!nq) {
						rc = XERR_NOMEM;
						break;
					}
					queue = nq;
					qcap = ncap;
				}
				queue[qn++] = (struct qitem){
					.lblk = before,
					.level = nh.level - 1 > 0 ? (int)nh.level - 1 : -1,
					.hash = hash, .has_hash = true, .idx = i,
				};
			}
			break;
		}
		default:
			/* Not a leaf or a node where one must be: the leaf verifier
			 * names what is wrong with it. */
			if (w->verify)
				xfmt_attr_leaf_verify(b->data, b->len, g, &exp, vsink(w, "attr block"));
			*w->complete = false;
			break;
		}
		if (w->verify)
			xa_note_meta_lsn(w->ctx, b->data, b->len, &w->verify->loc);
		xa_put(w->ctx, &b);
	}
out:
	free(queue);
	xa_u64set_release(&seen);
	return rc;
}

int xa_xattr_iterate(struct xa_ctx *ctx, const struct xa_inode *ip, struct xa_loc_sink *verify,
		     xa_xattr_fn fn, void *arg, bool *complete)
{
	const struct xfmt_geom *g = &ctx->geom;
	bool dummy;
	struct xwalk w;
	int rc = 0;

	if (!complete)
		complete = &dummy;
	*complete = true;
	if (!ip->d.has_attr_fork)
		return 0;
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.ip = ip;
	w.verify = verify;
	w.fn = fn;
	w.arg = arg;
	w.complete = complete;

	if (ip->d.aformat == 1) {
		struct xfmt_attr_sf_iter it;
		struct xfmt_attr_entry e;
		size_t size = 0;
		const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, XA_ATTR_FORK, &size);
		int r;

		if (!fork)
			return 0;
		if (verify) {
			verify->loc.has = XPROB_HAS_INO | XPROB_HAS_BYTE;
			verify->loc.ino = ip->ino;
			verify->loc.byte = xfmt_geom_ino_byte(g, ip->ino);
			verify->loc.what = "attr shortform";
			xfmt_attr_sf_verify(fork, size, g, &verify->sink);
		}
		xfmt_attr_sf_iter_init(&it, fork, size);
		while ((r = xfmt_attr_sf_next(&it, &e)) == 1 && !rc) {
			struct xa_xattr x = { e.ns, e.name, e.namelen, e.value, e.valuelen, true };

			if (e.ns == XFMT_ATTR_NS_INVALID)
				continue;
			rc = fn(arg, &x);
		}
		if (r < 0)
			*complete = false;
		return rc;
	}
	if (ip->d.aformat != XFS_DINODE_FMT_EXTENTS && ip->d.aformat != XFS_DINODE_FMT_BTREE)
		return 0;
	rc = xa_extents_load(ctx, ip, XA_ATTR_FORK, &w.ex);
	if (rc)
		return rc;
	if (w.ex.n == 0) {
		xa_extents_release(&w.ex);
		return 0;  /* an empty attr fork (the kernel makes them) */
	}
	{
		const struct xfmt_bmbt_rec *last = &w.ex.v[w.ex.n - 1];
		uint64_t end = last->startoff + last->blockcount;

		w.fork_end = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
	}
	w.value = malloc(XFMT_ATTR_VALUE_MAX);
	if (!w.value)
		rc = XERR_NOMEM;
	else
		rc = tree_walk(&w);
	free(w.value);
	xa_extents_release(&w.ex);
	return rc;
}
