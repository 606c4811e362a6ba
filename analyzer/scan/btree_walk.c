/*
 * btree_walk.c - depth-first walk of one short-form AG btree.
 *
 * Why depth-first with a bounded recursion instead of level by level: the
 * node key of a child must equal the child's first key and (rmap) its high
 * key the child's highest key, which is natural to check on the way back up.
 * Termination on hostile input: every block is claimed in a per-walk bitmap
 * before it is read, so no block is read twice and the number of blocks (and
 * so of records) is bounded by the AG size; depth is bounded by
 * XFS_BTREE_MAXLEVELS.
 */
#include "analyzer/scan/btree_walk.h"

#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/bitmap.h"
#include "formats/block.h"
#include "formats/btrec.h"
#include "formats/endian.h"

#define KEYBUF 48

struct walk_state {
	struct xa_walk  *w;
	struct xa_bitmap visited;
	bool             v5;
	uint32_t         blocksize;
};

static void walk_loc(struct xa_walk *w, uint32_t agbno, struct xa_loc_sink *ls)
{
	xa_loc_sink_init(ls, &w->ctx->findings);
	ls->loc.has = XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE;
	ls->loc.agno = w->ag->agno;
	ls->loc.agbno = agbno;
	ls->loc.byte = xfmt_geom_agbno_byte(&w->ctx->geom, w->ag->agno, agbno);
	ls->loc.what = xfmt_bt_name(w->bt);
}

static void report(struct xa_walk *w, uint32_t agbno, enum xprob_code code,
		   const char *field, uint64_t off, uint64_t expected, uint64_t observed,
		   unsigned has)
{
	struct xa_loc_sink ls;
	struct xprob p = {
		.code = code, .has = has | XPROB_HAS_OFF, .field = field, .off = off,
		.expected = expected, .observed = observed,
	};

	walk_loc(w, agbno, &ls);
	xa_findings_add(&w->ctx->findings, &p, &ls.loc);
}

/* Records that index disjoint ranges: does cur start inside prev? */
static bool recs_overlap(enum xfmt_btnum bt, const uint8_t *prev, const uint8_t *cur,
			 bool sparse)
{
	switch (bt) {
	case XFMT_BT_BNO: {
		struct xfmt_alloc_rec a, b;

		xfmt_alloc_rec_decode(prev, &a);
		xfmt_alloc_rec_decode(cur, &b);
		return (uint64_t)a.startblock + a.blockcount > b.startblock;
	}
	case XFMT_BT_INO:
	case XFMT_BT_FINO: {
		struct xfmt_inobt_rec a, b;

		xfmt_inobt_rec_decode(prev, sparse, &a);
		xfmt_inobt_rec_decode(cur, sparse, &b);
		return (uint64_t)a.startino + XFS_INODES_PER_CHUNK > b.startino;
	}
	case XFMT_BT_REFC: {
		struct xfmt_refc_rec a, b;

		xfmt_refc_rec_decode(prev, &a);
		xfmt_refc_rec_decode(cur, &b);
		return a.cow == b.cow &&
		       (uint64_t)a.startblock + a.blockcount > b.startblock;
	}
	default:
		/* rmap records may overlap (shared extents); checked against
		 * the refcount btree by the cross-checker, not here. */
		return false;
	}
}

static void leaf_records(struct walk_state *st, const uint8_t *buf, size_t len,
			 uint32_t agbno, unsigned n, uint8_t *first_key, bool *have_first,
			 uint8_t *high, bool *have_high)
{
	struct xa_walk *w = st->w;
	bool sparse = xfmt_geom_has_sparse_inodes(&w->ctx->geom);
	struct xa_loc_sink ls;

	walk_loc(w, agbno, &ls);
	for (unsigned i = 0; i < n && !w->err; i++) {
		const uint8_t *rec = xfmt_bt_rec(buf, len, w->bt, st->v5, i);
		uint8_t key[KEYBUF];

		if (!rec)
			break;
		w->records++;
		xfmt_bt_rec_verify(w->bt, rec, i, &w->ctx->geom, w->ag->agno, &ls.sink);
		memset(key, 0, sizeof(key));
		xfmt_bt_rec_key(w->bt, rec, key);
		if (w->have_prev_key && xfmt_bt_key_cmp(w->bt, w->prev_key, key) >= 0)
			report(w, agbno, XP_btRecsOutOfOrder, NULL, i, 0, 0, 0);
		else if (w->have_prev_rec && recs_overlap(w->bt, w->prev_rec, rec, sparse))
			report(w, agbno, XP_btRecsOverlap, NULL, i, 0, 0, 0);
		memcpy(w->prev_key, key, sizeof(key));
		w->have_prev_key = true;
		memcpy(w->prev_rec, rec, xfmt_bt_rec_len(w->bt));
		w->have_prev_rec = true;
		if (!*have_first) {
			memcpy(first_key, key, KEYBUF);
			*have_first = true;
		}
		if (w->bt == XFMT_BT_RMAP) {
			uint8_t hk[KEYBUF];

			memset(hk, 0, sizeof(hk));
			xfmt_bt_rec_highkey(w->bt, rec, hk);
			if (!*have_high || xfmt_bt_key_cmp(w->bt, hk, high) > 0) {
				memcpy(high, hk, KEYBUF);
				*have_high = true;
			}
		}
		if (w->rec_fn) {
			int rc = w->rec_fn(w, rec, i, agbno);
			if (rc < 0)
				w->err = rc;
		}
	}
}

/* Sibling pointers must chain the blocks of each level left to right. */
static void check_siblings(struct walk_state *st, uint32_t agbno, unsigned level,
			   const struct xfmt_bt_hdr *h)
{
	struct xa_walk *w = st->w;
	uint32_t left = (uint32_t)h->leftsib;

	if (w->last_at_level[level] == XFS_NULLAGBLOCK) {
		if (left != XFS_NULLAGBLOCK)
			report(w, agbno, XP_btBadSibling, "leftsib", 8, XFS_NULLAGBLOCK, left,
			       XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	} else {
		if (left != w->last_at_level[level])
			report(w, agbno, XP_btBadSibling, "leftsib", 8, w->last_at_level[level],
			       left, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		if (w->last_rightsib[level] != agbno)
			report(w, w->last_at_level[level], XP_btBadSibling, "rightsib", 12,
			       agbno, w->last_rightsib[level],
			       XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	}
	w->last_at_level[level] = agbno;
	w->last_rightsib[level] = (uint32_t)h->rightsib;
}

/*
 * Walk the subtree at agbno, expected at the given level.  On return
 * first_key holds its lowest key and high its highest (rmap) key, when
 * have_first / have_high say so.
 */
/* Does the block carry the magic of another btree than the one walked, or
 * is it plainly something else: inodes, or (v5, where the magic comes with
 * an owner and a CRC) a directory, attribute or symlink block? */
static bool foreign_block(const struct xa_walk *w, const uint8_t *buf, size_t len)
{
	bool v5 = w->ctx->geom.v5;
	enum xfmt_blk_kind k;
	uint32_t magic;

	if (len < 4)
		return false;
	magic = xfmt_get_be32(buf);
	if (magic == xfmt_bt_magic(w->bt, v5))
		return false;
	for (int bt = 0; bt < XFMT_BT_COUNT; bt++)
		if (bt != (int)w->bt && magic && magic == xfmt_bt_magic((enum xfmt_btnum)bt, v5))
			return true;
	k = xfmt_blk_classify(buf, len, xfmt_blk_ver_of(v5));
	return k == XFMT_BLK_INODES ||
	       (v5 && k >= XFMT_BLK_DIR_BLOCK && k <= XFMT_BLK_SYMLINK);
}

static void walk_block(struct walk_state *st, uint32_t agbno, unsigned level, bool is_root,
		       uint8_t *first_key, bool *have_first, uint8_t *high, bool *have_high)
{
	struct xa_walk *w = st->w;
	struct xa_ctx *ctx = w->ctx;
	struct xfmt_bt_expect exp;
	struct xfmt_bt_hdr h;
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	unsigned n, maxr;
	bool readable;

	*have_first = false;
	*have_high = false;
	if (w->err)
		return;
	if (xa_bitmap_set(&st->visited, agbno)) {
		report(w, agbno, XP_btCycle, NULL, 0, 0, agbno, XPROB_HAS_OBSERVED);
		w->complete = false;
		return;
	}
	walk_loc(w, agbno, &ls);
	readable = xa_read(ctx, ls.loc.byte, ctx->geom.blocksize, &b, &ls.loc) == 0;
	/*
	 * The tree owns the block its pointer names (check only: even if it
	 * cannot be read), unless the block is evidently another tree's: a
	 * block that carries another btree's magic is that tree's, and the
	 * pointer is the damage.  Claiming it would make its real owner look
	 * cross-linked, and a good file's map be dropped for it.
	 */
	if (!readable || !foreign_block(w, b->data, b->len)) {
		if (xa_bitmap_set(&w->ag->claimed, agbno))
			report(w, agbno, XP_btSharedBlock, NULL, 0, 0, agbno, XPROB_HAS_OBSERVED);
		if (ctx->own) {
			int rc = xa_own_note_btree_block(ctx, w->ag->agno, w->bt, agbno);

			if (rc) {
				w->err = rc;
				if (readable)
					xa_put(ctx, &b);
				return;
			}
		}
	}
	if (!readable) {
		w->complete = false;
		return;
	}
	w->blocks++;
	exp.level = (int)level;
	exp.daddr = ls.loc.byte >> XFS_BB_SHIFT;
	exp.owner = w->ag->agno;
	exp.is_root = is_root;
	xfmt_bt_verify_hdr(b->data, b->len, w->bt, &ctx->geom, &exp, &ls.sink);
	xa_note_meta_lsn(ctx, b->data, b->len, &ls.loc);
	if (xfmt_bt_hdr_decode(b->data, b->len, w->bt, st->v5, &h) != 0 ||
	    h.magic != xfmt_bt_magic(w->bt, st->v5) || h.level != level) {
		/* Wrong kind of block or wrong height: nothing below is trustworthy. */
		w->complete = false;
		xa_put(ctx, &b);
		return;
	}
	check_siblings(st, agbno, level, &h);

	maxr = xfmt_bt_maxrecs(w->bt, st->blocksize, st->v5, level == 0);
	n = h.numrecs < maxr ? h.numrecs : maxr;

	if (level == 0) {
		leaf_records(st, b->data, b->len, agbno, n, first_key, have_first, high,
			     have_high);
		xa_put(ctx, &b);
		return;
	}

	for (unsigned i = 0; i < n && !w->err; i++) {
		const uint8_t *key = xfmt_bt_key(b->data, b->len, w->bt, st->v5, i);
		const uint8_t *hkey = xfmt_bt_highkey(b->data, b->len, w->bt, st->v5, i);
		uint8_t ckey[KEYBUF], chigh[KEYBUF], kcopy[KEYBUF], hcopy[KEYBUF];
		bool cfirst, chave_high;
		uint64_t ptr;

		if (!key || xfmt_bt_ptr(b->data, b->len, w->bt, st->v5, st->blocksize, i, &ptr) != 0)
			break;
		/* Copy the keys out: the child walk may evict this buffer's peers,
		 * and our reference keeps b alive, but copying keeps it simple. */
		memset(kcopy, 0, sizeof(kcopy));
		memcpy(kcopy, key, xfmt_bt_key_len(w->bt));
		if (hkey) {
			memset(hcopy, 0, sizeof(hcopy));
			memcpy(hcopy, hkey, xfmt_bt_key_len(w->bt));
		}
		if (i == 0) {
			memcpy(first_key, kcopy, KEYBUF);
			*have_first = true;
		} else {
			const uint8_t *pk = xfmt_bt_key(b->data, b->len, w->bt, st->v5, i - 1);
			uint8_t pcopy[KEYBUF];

			memset(pcopy, 0, sizeof(pcopy));
			memcpy(pcopy, pk, xfmt_bt_key_len(w->bt));
			if (xfmt_bt_key_cmp(w->bt, pcopy, kcopy) >= 0)
				report(w, agbno, XP_btKeysOutOfOrder, NULL, i, 0, 0, 0);
		}
		if (ptr == 0 || ptr >= w->ag->length || ptr >= st->visited.nbits) {
			report(w, agbno, XP_btBadPointer, "ptrs", i, 0, ptr, XPROB_HAS_OBSERVED);
			w->complete = false;
			continue;
		}
		walk_block(st, (uint32_t)ptr, level - 1, false, ckey, &cfirst, chigh, &chave_high);
		if (cfirst && xfmt_bt_key_cmp(w->bt, ckey, kcopy) != 0)
			report(w, agbno, XP_btKeyMismatch, "keys", i, 0, ptr, XPROB_HAS_OBSERVED);
		if (hkey && chave_high) {
			if (xfmt_bt_key_cmp(w->bt, chigh, hcopy) != 0)
				report(w, agbno, XP_btBadHighKey, "keys", i, 0, ptr, XPROB_HAS_OBSERVED);
			if (!*have_high || xfmt_bt_key_cmp(w->bt, hcopy, high) > 0) {
				memcpy(high, hcopy, KEYBUF);
				*have_high = true;
			}
		} else if (hkey) {
			/* Child unreadable: carry the stored high key upward. */
			if (!*have_high || xfmt_bt_key_cmp(w->bt, hcopy, high) > 0) {
				memcpy(high, hcopy, KEYBUF);
				*have_high = true;
			}
		}
	}
	xa_put(ctx, &b);
}

int xa_walk_btree(struct xa_ctx *ctx, struct xa_ag *ag, enum xfmt_btnum bt,
		  uint32_t root, uint32_t levels, xa_walk_rec_fn rec_fn, void *arg,
		  struct xa_walk *w)
{
	struct walk_state st;
	uint8_t first[KEYBUF], high[KEYBUF];
	bool have_first, have_high;

	memset(w, 0, sizeof(*w));
	w->ctx = ctx;
	w->ag = ag;
	w->bt = bt;
	w->rec_fn = rec_fn;
	w->arg = arg;
	w->complete = true;
	w->levels = levels;
	for (unsigned i = 0; i <= XFS_BTREE_MAXLEVELS; i++) {
		w->last_at_level[i] = XFS_NULLAGBLOCK;
		w->last_rightsib[i] = XFS_NULLAGBLOCK;
	}
	/* The AGF/AGI verifiers report bad roots and levels; don't walk them. */
	if (levels == 0 || levels > XFS_BTREE_MAXLEVELS || root >= ag->length ||
	    root >= ag->claimed.nbits) {
		w->complete = false;
		return 0;
	}
	st.w = w;
	st.v5 = ctx->geom.v5;
	st.blocksize = ctx->geom.blocksize;
	if (xa_bitmap_init(&st.visited, ag->claimed.nbits) != 0)
		return XERR_NOMEM;

	walk_block(&st, root, levels - 1, true, first, &have_first, high, &have_high);

	/* The last block of each level must end its sibling chain. */
	for (unsigned l = 0; l < levels; l++) {
		if (w->last_at_level[l] != XFS_NULLAGBLOCK &&
		    w->last_rightsib[l] != XFS_NULLAGBLOCK)
			report(w, w->last_at_level[l], XP_btBadSibling, "rightsib", 12,
			       XFS_NULLAGBLOCK, w->last_rightsib[l],
			       XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	}
	/* A visit the map could not keep: the walk's cycle checks were
	 * incomplete, so its result is not one to trust. */
	if (st.visited.oom && !w->err)
		w->err = XERR_NOMEM;
	xa_bitmap_release(&st.visited);
	return w->err;
}
