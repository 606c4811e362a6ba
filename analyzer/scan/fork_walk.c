/*
 * fork_walk.c - extent lists and bmap btrees of inode forks.
 *
 * Termination on hostile input: the recursion is bounded by the root's level
 * (itself bounded by XFS_BTREE_MAXLEVELS); every bmbt block is remembered in
 * a per-walk set before it is read, so a block is read at most once per walk,
 * and in reporting mode also in its AG's claim map, so blocks shared between
 * inodes are read once per run.  The number of records is bounded by the
 * blocks read times a block's capacity.
 */
#include "analyzer/scan/fork_walk.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/u64set.h"
#include "formats/bmap.h"
#include "formats/btree.h"
#include "formats/endian.h"

struct fwalk {
	struct xa_ctx         *ctx;
	uint64_t               ino;
	int                    whichfork;
	bool                   report;
	xa_fork_rec_fn         fn;
	void                  *arg;
	struct xa_fork_result *res;
	struct xa_u64set       seen;
	int                    err;
	struct xfmt_bmap_check check;    /* the mapping rules, record by record */
	uint64_t               last_at_level[XFS_BTREE_MAXLEVELS + 1];
	uint64_t               last_right[XFS_BTREE_MAXLEVELS + 1];
};

static void drop_report(void *arg, const struct xprob *p)
{
	(void)arg;
	(void)p;
}

static void fw_loc(struct fwalk *w, uint64_t fsb, struct xa_loc_sink *ls)
{
	const struct xfmt_geom *g = &w->ctx->geom;

	xa_loc_sink_init(ls, &w->ctx->findings);
	if (!w->report)
		ls->sink.report = drop_report;
	ls->loc.has = XPROB_HAS_INO;
	ls->loc.ino = w->ino;
	ls->loc.what = w->whichfork == XA_ATTR_FORK ? "bmbt (attr fork)" : "bmbt";
	if (fsb != XFS_NULLFSBLOCK) {
		ls->loc.has |= XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE;
		ls->loc.agno = xfmt_geom_fsb_agno(g, fsb);
		ls->loc.agbno = xfmt_geom_fsb_agbno(g, fsb);
		ls->loc.byte = xfmt_geom_fsb_byte(g, fsb);
	} else {
		ls->loc.what = w->whichfork == XA_ATTR_FORK ? "inode (attr fork)" : "inode";
	}
}

static void fw_report(struct fwalk *w, uint64_t fsb, enum xprob_code code, const char *field,
		      uint64_t off, uint64_t expected, uint64_t observed, unsigned has)
{
	struct xa_loc_sink ls;
	struct xprob p = {
		.code = code, .has = has | XPROB_HAS_OFF, .field = field, .off = off,
		.expected = expected, .observed = observed,
	};

	if (!w->report)
		return;
	fw_loc(w, fsb, &ls);
	xa_findings_add(&w->ctx->findings, &p, &ls.loc);
}

/* One mapping: the fork's mapping rules (formats/bmap.h), then the callback. */
static void fw_record(struct fwalk *w, uint64_t fsb, const uint8_t *raw, unsigned idx)
{
	struct xfmt_bmbt_rec r;
	struct xa_loc_sink ls;
	unsigned as_read = w->check.as_read;

	(void)idx;  /* the checker numbers mappings across the whole fork */
	fw_loc(w, fsb, &ls);
	xfmt_bmbt_rec_decode(raw, &r);
	/* A startblock read as the kernel reads it still maps its blocks. */
	if (xfmt_bmap_check_rec(&w->check, &r, &ls.sink) > w->check.as_read - as_read)
		w->res->complete = false;
	w->res->records++;
	w->res->mapped_blocks += r.blockcount;
	if (w->fn && !w->err) {
		int rc = w->fn(w->arg, &r);
		if (rc < 0)
			w->err = rc;
	}
}

static void fw_siblings(struct fwalk *w, uint64_t fsb, unsigned level, const struct xfmt_bt_hdr *h)
{
	if (w->last_at_level[level] == XFS_NULLFSBLOCK) {
		if (h->leftsib != XFS_NULLFSBLOCK)
			fw_report(w, fsb, XP_btBadSibling, "leftsib", 8, XFS_NULLFSBLOCK, h->leftsib,
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	} else {
		if (h->leftsib != w->last_at_level[level])
			fw_report(w, fsb, XP_btBadSibling, "leftsib", 8, w->last_at_level[level],
				  h->leftsib, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		if (w->last_right[level] != fsb)
			fw_report(w, w->last_at_level[level], XP_btBadSibling, "rightsib", 16, fsb,
				  w->last_right[level], XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	}
	w->last_at_level[level] = fsb;
	w->last_right[level] = h->rightsib;
}

/* Walk the subtree at fsb; *first gets its lowest startoff when *have_first. */
static void fw_block(struct fwalk *w, uint64_t fsb, unsigned level, uint64_t *first,
		     bool *have_first)
{
	struct xa_ctx *ctx = w->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_bt_expect exp;
	struct xfmt_bt_hdr h;
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	unsigned n, maxr;
	int added;

	*have_first = false;
	if (w->err)
		return;
	if (!xfmt_geom_fsb_valid(g, fsb)) {
		w->res->complete = false;
		return;  /* the parent reported the pointer */
	}
	added = xa_u64set_add(&w->seen, fsb);
	if (added < 0) {
		w->err = XERR_NOMEM;
		return;
	}
	if (added == 0) {
		fw_report(w, fsb, XP_btCycle, NULL, 0, 0, fsb, XPROB_HAS_OBSERVED);
		w->res->complete = false;
		return;
	}
	if (w->report) {
		struct xa_ag *ag = &ctx->ags[xfmt_geom_fsb_agno(g, fsb) < ctx->nags
					     ? xfmt_geom_fsb_agno(g, fsb) : 0];

		if (xfmt_geom_fsb_agno(g, fsb) < ctx->nags &&
		    xa_bitmap_set(&ag->claimed, xfmt_geom_fsb_agbno(g, fsb))) {
			fw_report(w, fsb, XP_btSharedBlock, NULL, 0, 0, fsb, XPROB_HAS_OBSERVED);
			w->res->complete = false;
			return;
		}
		/* check only: the inode owns its bmbt blocks (rmap BMBT records). */
		if (ctx->own) {
			int rc = xa_own_note_bmbt_block(ctx, w->ino, w->whichfork, fsb);
			if (rc) {
				w->err = rc;
				return;
			}
		}
	}
	fw_loc(w, fsb, &ls);
	if (xa_read(ctx, ls.loc.byte, g->blocksize, &b, w->report ? &ls.loc : NULL) != 0) {
		w->res->complete = false;
		return;
	}
	w->res->bmbt_blocks++;
	exp.level = (int)level;
	exp.daddr = ls.loc.byte >> XFS_BB_SHIFT;
	exp.owner = w->ino;
	exp.is_root = false;
	if (xfmt_bt_verify_hdr(b->data, b->len, XFMT_BT_BMAP, g, &exp, &ls.sink))
		w->res->complete = false;
	xa_note_meta_lsn(ctx, b->data, b->len, &ls.loc);
	if (xfmt_bt_hdr_decode(b->data, b->len, XFMT_BT_BMAP, g->v5, &h) != 0 ||
	    h.magic != xfmt_bt_magic(XFMT_BT_BMAP, g->v5) || h.level != level) {
		w->res->complete = false;
		xa_put(ctx, &b);
		return;
	}
	fw_siblings(w, fsb, level, &h);
	maxr = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, level == 0);
	n = h.numrecs < maxr ? h.numrecs : maxr;
	for (unsigned i = 0; i < n && !w->err; i++) {
		if (level == 0) {
			const uint8_t *rec = xfmt_bt_rec(b->data, b->len, XFMT_BT_BMAP, g->v5, i);

			if (!rec)
				break;
			if (i == 0) {
				struct xfmt_bmbt_rec r;
				xfmt_bmbt_rec_decode(rec, &r);
				*first = r.startoff;
				*have_first = true;
			}
			fw_record(w, fsb, rec, i);
		} else {
			const uint8_t *key = xfmt_bt_key(b->data, b->len, XFMT_BT_BMAP, g->v5, i);
			uint64_t ptr, kv, cfirst;
			bool chave;

			if (!key || xfmt_bt_ptr(b->data, b->len, XFMT_BT_BMAP, g->v5, g->blocksize,
						i, &ptr) != 0)
				break;
			kv = xfmt_get_be64(key);
			if (i == 0) {
				*first = kv;
				*have_first = true;
			}
			if (!xfmt_geom_fsb_valid(g, ptr)) {
				fw_report(w, fsb, XP_btBadPointer, "ptrs", i, 0, ptr, XPROB_HAS_OBSERVED);
				w->res->complete = false;
				continue;
			}
			fw_block(w, ptr, level - 1, &cfirst, &chave);
			if (chave && cfirst != kv)
				fw_report(w, fsb, XP_btKeyMismatch, "keys", i, 0, ptr, XPROB_HAS_OBSERVED);
		}
	}
	xa_put(ctx, &b);
}

/* The in-inode bmdr root: level, numrecs, keys, pointers. */
static void fw_root(struct fwalk *w, const uint8_t *fork, size_t size)
{
	const struct xfmt_geom *g = &w->ctx->geom;
	struct xfmt_bmap_root root;
	unsigned level, n;
	struct xa_loc_sink ls;

	/* Height, key order and range, pointers: the root's own rules. */
	fw_loc(w, XFS_NULLFSBLOCK, &ls);
	ls.loc.what = "bmbt root";
	if (xfmt_bmap_root_verify(fork, size, g, w->whichfork, &ls.sink))
		w->res->complete = false;
	if (xfmt_bmap_root_decode(fork, size, &root) != 0 || root.level == 0 ||
	    root.level > xfmt_bmap_maxlevels(g, w->whichfork)) {
		w->res->complete = false;
		return;
	}
	level = root.level;
	n = root.nrecs;
	for (unsigned i = 0; i < n && !w->err; i++) {
		uint64_t key, ptr, cfirst;
		bool chave;

		if (xfmt_bmdr_key(fork, size, i, &key) || xfmt_bmdr_ptr(fork, size, i, &ptr))
			break;
		if (!xfmt_geom_fsb_valid(g, ptr)) {
			w->res->complete = false;
			continue;  /* reported by the root verifier */
		}
		fw_block(w, ptr, level - 1u, &cfirst, &chave);
		if (chave && cfirst != key)
			fw_report(w, XFS_NULLFSBLOCK, XP_btKeyMismatch, "bmbt root keys", i, 0, ptr,
				  XPROB_HAS_OBSERVED);
	}
	/* The last block of each level ends its sibling chain. */
	for (unsigned l = 0; l < level; l++)
		if (w->last_at_level[l] != XFS_NULLFSBLOCK && w->last_right[l] != XFS_NULLFSBLOCK)
			fw_report(w, w->last_at_level[l], XP_btBadSibling, "rightsib", 16,
				  XFS_NULLFSBLOCK, w->last_right[l],
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
}

int xa_fork_walk(struct xa_ctx *ctx, uint64_t ino, const uint8_t *inode,
		 const struct xfmt_dinode *d, int whichfork, bool report,
		 xa_fork_rec_fn fn, void *arg, struct xa_fork_result *res)
{
	struct fwalk w;
	const uint8_t *fork;
	size_t size = 0;
	int format = whichfork == XA_ATTR_FORK ? d->aformat : d->format;
	bool overflow = false;  /* a count larger than the fork holds */
	struct xfmt_bmap_fork bf;

	memset(res, 0, sizeof(*res));
	res->complete = true;
	fork = xfmt_dinode_fork(inode, d, whichfork, &size);
	if (!fork || (format != XFS_DINODE_FMT_EXTENTS && format != XFS_DINODE_FMT_BTREE))
		return 0;

	/* Field by field, not a memset of the whole walker: this runs for
	 * every inode with mappings, and the arrays are set just below. */
	w.seen.slots = NULL;
	w.seen.cap = w.seen.used = 0;
	w.err = 0;
	w.ctx = ctx;
	w.ino = ino;
	w.whichfork = whichfork;
	w.report = report;
	w.fn = fn;
	w.arg = arg;
	w.res = res;
	for (unsigned i = 0; i <= XFS_BTREE_MAXLEVELS; i++)
		w.last_at_level[i] = w.last_right[i] = XFS_NULLFSBLOCK;
	xfmt_bmap_fork_init(&bf, &ctx->geom, d, whichfork);
	xfmt_bmap_check_init(&w.check, &ctx->geom, &bf);

	if (format == XFS_DINODE_FMT_EXTENTS) {
		uint64_t count = whichfork == XA_ATTR_FORK ? d->anextents : d->nextents;

		/* The inode verifier reports a count that overflows the fork; the
		 * mappings are the sound records at its start (what the count
		 * should say), not every slot the fork has room for. */
		if (count > size / 16) {
			count = xfmt_bmap_extents_sound_prefix(fork, size, &bf, &ctx->geom);
			overflow = true;
		}
		for (uint64_t i = 0; i < count && !w.err; i++)
			fw_record(&w, XFS_NULLFSBLOCK, fork + i * 16, (unsigned)i);
	} else {
		fw_root(&w, fork, size);
	}
	/* The count the inode claims against the mappings found, when all were
	 * found (a broken tree is reported where it broke). */
	if (!w.err && res->complete && !overflow) {
		struct xa_loc_sink ls;

		fw_loc(&w, XFS_NULLFSBLOCK, &ls);
		if (xfmt_bmap_check_finish(&w.check,
					   whichfork == XA_ATTR_FORK ? d->anextents : d->nextents,
					   whichfork == XA_ATTR_FORK ? "core.naextents" : "core.nextents",
					   &ls.sink))
			res->complete = false;
	}
	xa_u64set_release(&w.seen);
	return w.err;
}
