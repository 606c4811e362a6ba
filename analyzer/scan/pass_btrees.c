/*
 * pass_btrees.c - walk every btree of every AG.
 *
 * Checks: everything xa_walk_btree checks, per tree; that the finobt holds
 * exactly the inobt records that have free inodes.
 * Leaves: per AG the walk summaries (ag->bt[]), free-space totals from both
 * free-space trees with an order-independent digest of each record set, the
 * inobt records (ag->chunks) for the inodes pass, and inode totals.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/scan/btree_walk.h"
#include "analyzer/scan/passes.h"
#include "formats/btrec.h"
#include "formats/endian.h"
#include "formats/dinode.h"
#include "formats/crc32c.h"

/* A cheap mixing hash: summing it over records gives a set digest. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static int bno_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct xfmt_alloc_rec r;

	xfmt_alloc_rec_decode(rec, &r);
	w->ag->free_blocks += r.blockcount;
	if (r.blockcount > w->ag->longest_free)
		w->ag->longest_free = r.blockcount;
	w->ag->bno_digest += mix64((uint64_t)r.startblock << 32 | r.blockcount);
	w->ag->bno_recs++;
	return xa_own_note_free(w->ctx, w->ag->agno, r.startblock, r.blockcount);
}

/* rmapbt and refcountbt records go to the ownership cross-check. */
static int rmap_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	return xa_own_note_rmap(w->ctx, w->ag->agno, rec);
}

static int refc_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	return xa_own_note_refc(w->ctx, w->ag->agno, rec);
}

static int cnt_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct xfmt_alloc_rec r;

	xfmt_alloc_rec_decode(rec, &r);
	w->ag->cnt_free_blocks += r.blockcount;
	/* cntbt is sorted by size, so its last record is the longest. */
	w->ag->cnt_longest = r.blockcount;
	w->ag->cnt_digest += mix64((uint64_t)r.startblock << 32 | r.blockcount);
	w->ag->cnt_recs++;
	return 0;
}

static int ino_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct xa_ag *ag = w->ag;
	struct xfmt_inobt_rec r;
	struct xa_ichunk *c;
	uint32_t first, last;

	xfmt_inobt_rec_decode(rec, xfmt_geom_has_sparse_inodes(&w->ctx->geom), &r);
	/* A record whose chunk cannot lie in this AG's inode range (the
	 * verifier reported ichunkOutsideAg) names no inodes: believing it
	 * would read, and have repair rewrite, AG headers or data as inodes.
	 * Such records are what a leaf whose numrecs overstates its records
	 * yields from the unused part of the block. */
	if (!xfmt_agino_range(&w->ctx->geom, ag->agno, &first, &last) || r.startino < first ||
	    (uint64_t)r.startino + XFS_INODES_PER_CHUNK - 1 > last) {
		w->complete = false;
		return 0;
	}
	c = xa_ag_chunk_append(ag);
	if (!c)
		return XERR_NOMEM;
	c->startino = r.startino;
	c->holemask = r.holemask;
	c->count = r.count;
	c->freecount = (uint8_t)(r.freecount > 64 ? 64 : r.freecount);
	c->free = r.free;
	ag->inodes += r.count;
	ag->free_inodes += r.freecount;
	return 0;
}

static const struct xa_ichunk *chunk_find(const struct xa_ag *ag, uint32_t startino)
{
	size_t lo = 0, hi = ag->nchunks;

	/* ag->chunks is in inobt key order; out-of-order trees were reported
	 * and a miss here then only adds a mismatch finding. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ag->chunks[mid].startino == startino)
			return &ag->chunks[mid];
		if (ag->chunks[mid].startino < startino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct fino_state {
	uint64_t recs;
};

static int fino_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct fino_state *fs = w->arg;
	struct xfmt_inobt_rec r;
	const struct xa_ichunk *c;

	xfmt_inobt_rec_decode(rec, xfmt_geom_has_sparse_inodes(&w->ctx->geom), &r);
	fs->recs++;
	/* Against a partly walked inobt a missing record proves nothing. */
	if (!w->ag->bt[XA_BT_INO].walked)
		return 0;
	c = chunk_find(w->ag, r.startino);
	if (!c || c->free != r.free || c->holemask != r.holemask || c->count != r.count ||
	    c->freecount != r.freecount || r.freecount == 0) {
		struct xa_loc loc = {
			XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, w->ag->agno, agbno, 0,
			xfmt_geom_agbno_byte(&w->ctx->geom, w->ag->agno, agbno), "finobt",
		};
		xa_report(w->ctx, &loc, XP_ichunkFinobtMismatch, NULL, 0, r.startino,
			  XPROB_HAS_OBSERVED);
	}
	return 0;
}

static void sum_store(struct xa_btree_sum *s, const struct xa_walk *w, uint32_t root)
{
	s->present = true;
	s->walked = w->complete;
	s->root = root;
	s->levels = w->levels;
	s->blocks = w->blocks;
	s->records = w->records;
}

/*
 * The inode btree could not be read but the rmapbt could: the inode chunks
 * are where the rmapbt's OWN_INODES records say, so the inodes pass can
 * still read every inode.  Which inodes are free is then unknown (the
 * inodes pass takes it from the modes); sparse chunks get their holemask
 * from the blocks present.  Work is one step per 64 inodes of each record,
 * and a record never spans more than its AG.
 */
static int chunks_from_rmap(struct xa_ctx *ctx, struct xa_ag *ag)
{
	const struct xfmt_geom *g = &ctx->geom;
	const struct xa_ownlist *rm = xa_own_rmap(ctx, ag->agno);
	uint32_t aglen = xfmt_geom_ag_length(g, ag->agno);

	ag->nchunks = 0;
	ag->inodes = ag->free_inodes = 0;
	ag->chunks_from_rmap = true;
	for (size_t i = 0; rm && i < rm->n; i++) {
		const struct xa_ownrec *r = &rm->recs[i];
		uint64_t first, end;

		if (r->owner != XFS_RMAP_OWN_INODES || r->agbno >= aglen || r->len > aglen - r->agbno)
			continue;
		first = (uint64_t)r->agbno << g->inopblog;
		end = (uint64_t)(r->agbno + r->len) << g->inopblog;
		for (uint64_t start = first & ~63ull; start < end; start += 64) {
			uint64_t lo = first > start ? first : start, hi = end < start + 64 ? end : start + 64;
			uint64_t present = (hi - lo == 64 ? ~0ull : ((1ull << (hi - lo)) - 1)) << (lo - start);
			struct xa_ichunk *c;

			if (start > UINT32_MAX)
				break;
			if (ag->nchunks && ag->chunks[ag->nchunks - 1].startino == start) {
				c = &ag->chunks[ag->nchunks - 1];
				present |= ~c->free;
			} else {
				c = xa_ag_chunk_append(ag);
				if (!c)
					return XERR_NOMEM;
			}
			c->startino = (uint32_t)start;
			c->free = ~present;       /* holes; free slots are learnt later */
			c->freecount = 0;
			c->holemask = 0;
			c->count = 0;
			for (unsigned j = 0; j < 16; j++) {
				if (((present >> (4 * j)) & 0xF) == 0)
					c->holemask |= (uint16_t)(1u << j);
				else
					c->count += 4;
			}
		}
	}
	for (size_t i = 0; i < ag->nchunks; i++)
		ag->inodes += ag->chunks[i].count;
	return 0;
}

/* blk holds inodes of this filesystem at their places: magic, version, and
 * on v5 its own number and the metadata uuid, in enough of its slots
 * (chunks are initialised whole when allocated, free slots included). */
static bool inode_block(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno,
			const uint8_t *blk)
{
	uint32_t good = 0;

	for (uint32_t s = 0; s < g->inopblock; s++) {
		uint32_t agino = (agbno << g->inopblog) + s;

		if (xfmt_dinode_at_place(blk + ((size_t)s << g->inodelog), g->inodesize, g,
					 xfmt_geom_ino(g, agno, agino)))
			good++;
	}
	/* A block of inodes with a few damaged ones is still a block of
	 * inodes (the inode pass reports and mends those): v5 inodes name
	 * themselves, so most of them suffice; v4 ones do not, so three in
	 * four must look like inodes. */
	return g->v5 ? good * 2 > g->inopblock : good * 4 >= g->inopblock * 3;
}

/*
 * Neither the inode btree nor an rmapbt says where the inodes are: look at
 * every block of the AG that no AG structure claimed and keep those that
 * hold nothing but this filesystem's inodes at their own places.  One read
 * per block of the AG, so it runs only in this case; free masks are then
 * unknown, as with chunks_from_rmap.
 */
/* Blocks the scans below read in one call: an AG's unclaimed blocks read
 * one by one were a system call each (half a million for an AG of free
 * space). */
#define SCAN_WINDOW_BYTES (1u << 20)

static int chunks_from_scan(struct xa_ctx *ctx, struct xa_ag *ag)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t aglen = xfmt_geom_ag_length(g, ag->agno);
	uint32_t win = SCAN_WINDOW_BYTES >> g->blocklog ? SCAN_WINDOW_BYTES >> g->blocklog : 1;
	uint8_t *wbuf = malloc((size_t)win << g->blocklog);

	if (!wbuf)
		return XERR_NOMEM;
	ag->nchunks = 0;
	ag->inodes = ag->free_inodes = 0;
	ag->chunks_from_scan = true;
	for (uint32_t w0 = 0; w0 < aglen; w0 += win) {
		uint32_t n = aglen - w0 < win ? aglen - w0 : win, b;
		bool whole;

		for (b = w0; b < w0 + n && xa_bitmap_test(&ag->claimed, b); b++)
			;
		if (b == w0 + n)
			continue;   /* all claimed: nothing to read */
		/* A hole of a sparse image holds no inode. */
		if (ximg_is_hole(ctx->img, xfmt_geom_agbno_byte(g, ag->agno, w0),
				 (size_t)n << g->blocklog))
			continue;
		/* Where the window cannot be read whole, each block is read
		 * alone: an unreadable one is reported as before. */
		whole = ximg_pread(ctx->img, wbuf, (size_t)n << g->blocklog,
				   xfmt_geom_agbno_byte(g, ag->agno, w0)) == 0;
		for (b = w0; b < w0 + n; b++) {
			struct xbuf *buf = NULL;
			uint64_t first;
			bool ok;

			if (xa_bitmap_test(&ag->claimed, b))
				continue;
			if (whole) {
				ok = inode_block(g, ag->agno, b, wbuf + ((size_t)(b - w0) << g->blocklog));
			} else {
				if (xa_read(ctx, xfmt_geom_agbno_byte(g, ag->agno, b), g->blocksize,
					    &buf, NULL) != 0)
					continue;
				ok = inode_block(g, ag->agno, b, buf->data);
				xa_put(ctx, &buf);
			}
			if (!ok)
				continue;
			first = (uint64_t)b << g->inopblog;
			for (uint64_t agino = first; agino < first + g->inopblock; agino += 4) {
				uint64_t start = agino & ~63ull;
				struct xa_ichunk *c;
				unsigned j = (unsigned)((agino - start) / 4);

				if (start > UINT32_MAX)
					break;
				if (!ag->nchunks || ag->chunks[ag->nchunks - 1].startino != start) {
					c = xa_ag_chunk_append(ag);
					if (!c) {
						free(wbuf);
						return XERR_NOMEM;
					}
					c->startino = (uint32_t)start;
					c->holemask = 0xFFFF;
					c->count = 0;
					c->freecount = 0;
					c->free = ~0ull;
				}
				c = &ag->chunks[ag->nchunks - 1];
				if (c->holemask & (1u << j)) {
					c->holemask &= (uint16_t)~(1u << j);
					c->free &= ~(0xFull << (4 * j));
					c->count += 4;
				}
			}
		}
	}
	free(wbuf);
	/* Without sparse inodes a chunk is all or nothing: a partial one is
	 * damage, and reading its missing inodes as holes would drop them. */
	for (size_t i = 0; i < ag->nchunks; i++) {
		if (!xfmt_geom_has_sparse_inodes(g) && ag->chunks[i].count != 64) {
			ag->chunks[i].holemask = 0;
			ag->chunks[i].count = 64;
			ag->chunks[i].free = 0;
		}
		ag->inodes += ag->chunks[i].count;
	}
	return 0;
}

/* A run of inode blocks, for comparing the two accounts of where inodes are. */
struct iblk_run {
	uint32_t agbno, len;
};

static int cmp_iblk_run(const void *a, const void *b)
{
	const struct iblk_run *x = a, *y = b;

	return x->agbno < y->agbno ? -1 : x->agbno > y->agbno;
}

/* Sort runs and merge the adjacent and overlapping ones; returns the new count. */
static size_t merge_runs(struct iblk_run *r, size_t n)
{
	size_t m = 0;

	if (n)
		qsort(r, n, sizeof(*r), cmp_iblk_run);
	for (size_t i = 0; i < n; i++) {
		if (m && (uint64_t)r[m - 1].agbno + r[m - 1].len >= r[i].agbno) {
			uint64_t end = (uint64_t)r[i].agbno + r[i].len;

			if (end > (uint64_t)r[m - 1].agbno + r[m - 1].len)
				r[m - 1].len = (uint32_t)(end - r[m - 1].agbno);
		} else {
			r[m++] = r[i];
		}
	}
	return m;
}

/* Did the inode btree's walk, from finding index `from` on, report a
 * record placing a chunk where no chunk can be, or records out of order? */
static bool chunk_position_damaged(const struct xa_ctx *ctx, size_t from)
{
	for (size_t i = from; i < ctx->findings.count; i++) {
		enum xprob_code c = ctx->findings.items[i].p.code;

		/* records out of order or overlapping: a numrecs past the
		 * real ones reads garbage as records */
		if (c == XP_ichunkMisaligned || c == XP_ichunkOutsideAg ||
		    c == XP_ichunkOverlapsMetadata || c == XP_ichunkBadHolemask ||
		    c == XP_btRecsOutOfOrder || c == XP_btRecsOverlap)
			return true;
	}
	return false;
}

/*
 * Do the inode chunks the inode btree gave and the rmapbt's OWN_INODES
 * records name the same blocks?  Asked only when the inode btree walk met
 * damage: a trashed leaf can hand out chunks that are not there (count 0,
 * another startino) and hide ones that are, and a repair that believed it
 * would find the AG's owned extents overlapping and give up.  Returns 1
 * (the same), 0 (they differ) or a negative xerr.
 */
static int chunks_match_rmap(struct xa_ctx *ctx, const struct xa_ag *ag)
{
	const struct xfmt_geom *g = &ctx->geom;
	const struct xa_ownlist *rm = xa_own_rmap(ctx, ag->agno);
	struct iblk_run *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, ca = 0, cb = 0;
	uint32_t ipb = g->inopblock ? g->inopblock : 1;
	int rc = XERR_NOMEM;

	for (size_t i = 0; rm && i < rm->n; i++)
		if (rm->recs[i].owner == XFS_RMAP_OWN_INODES)
			cb++;
	/* Each chunk gives at most one run per present 4-inode group. */
	ca = ag->nchunks * 16;
	a = malloc((ca ? ca : 1) * sizeof(*a));
	b = malloc((cb ? cb : 1) * sizeof(*b));
	if (!a || !b)
		goto out;
	for (size_t i = 0; i < ag->nchunks; i++) {
		const struct xa_ichunk *c = &ag->chunks[i];

		for (unsigned j = 0; j < 16; j++) {
			uint32_t first, last;

			if (c->holemask & (1u << j))
				continue;
			first = (c->startino + 4 * j) / ipb;
			last = (c->startino + 4 * j + 3) / ipb;
			a[na++] = (struct iblk_run){ first, last - first + 1 };
		}
	}
	for (size_t i = 0; rm && i < rm->n; i++)
		if (rm->recs[i].owner == XFS_RMAP_OWN_INODES)
			b[nb++] = (struct iblk_run){ rm->recs[i].agbno, rm->recs[i].len };
	na = merge_runs(a, na);
	nb = merge_runs(b, nb);
	rc = na == nb && (na == 0 || !memcmp(a, b, na * sizeof(*a)));
out:
	free(a);
	free(b);
	return rc;
}

/* Is ino, when it lies in this AG, inside a chunk the inode btree gave? */
static bool ino_in_chunks(const struct xa_ctx *ctx, const struct xa_ag *ag, uint64_t ino)
{
	const struct xfmt_geom *g = &ctx->geom;

	if (ino == 0 || ino == XFS_NULLFSINO || xfmt_geom_ino_agno(g, ino) != ag->agno)
		return true;
	return xa_ag_chunk_of(ag, xfmt_geom_ino_agino(g, ino)) != NULL;
}

/*
 * A damaged inode btree whose records hold another number of inodes than
 * the AGI counts, or that leave out an inode the superblock names in this
 * AG (the root, the realtime inodes): a leaf whose numrecs was cut or
 * whose records were lost hides chunks that are there, and the inodes in
 * them would be taken as free.  Its account of where inodes are is then
 * no better than one with misplaced records.
 */
static bool inobt_contradicted(const struct xa_ctx *ctx, const struct xa_ag *ag)
{
	const struct xfmt_sb *sb = &ctx->sb;

	if (ag->inodes != ag->agi.count || ag->free_inodes != ag->agi.freecount)
		return true;
	return !ino_in_chunks(ctx, ag, sb->rootino) || !ino_in_chunks(ctx, ag, sb->rbmino) ||
	       !ino_in_chunks(ctx, ag, sb->rsumino);
}

/* Whether any block of chunk c (holes left out) holds inodes at their
 * places (inode_block); reading stops at the first that does. */
static bool chunk_has_inodes(struct xa_ctx *ctx, const struct xa_ag *ag, const struct xa_ichunk *c)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t per = g->inopblock < 64 ? g->inopblock : 64;

	for (uint32_t agino = c->startino; agino < c->startino + 64; agino += per) {
		uint32_t agbno = xfmt_geom_agino_agbno(g, agino);
		struct xbuf *buf = NULL;
		bool ok;

		if ((c->holemask >> ((agino - c->startino) / 4)) & 1)
			continue;
		if (xa_read(ctx, xfmt_geom_agbno_byte(g, ag->agno, agbno), g->blocksize, &buf,
			    NULL) != 0)
			continue;
		ok = inode_block(g, ag->agno, agbno, buf->data);
		xa_put(ctx, &buf);
		if (ok)
			return true;
	}
	return false;
}

/*
 * An inode btree that reads as sound but may not say where the inodes
 * are: it holds another number of inodes than the AGI counts (a leaf whose
 * numrecs was cut, its CRC recomputed, hides the chunks past the cut; or
 * the AGI's count is the damage), or one of its chunks holds no inodes (a
 * record's startino moved onto blocks that are something else; or the
 * chunk itself was destroyed).  The AG's blocks decide: where a scan finds
 * a chunk the tree leaves out, the tree's account is wrong and the scan's
 * is taken (1: the chunks it had that the scan does not find hold no
 * inodes, or the scan would have found them); otherwise the tree's stands
 * (0).  One read per block of the AG, only on such a doubt.
 */
static int inobt_vs_scan(struct xa_ctx *ctx, struct xa_ag *ag)
{
	size_t n = ag->nchunks, k = 0;
	uint64_t inodes = ag->inodes, free_inodes = ag->free_inodes;
	struct xa_ichunk *tree = malloc((n ? n : 1) * sizeof(*tree));
	bool missed = false;
	int rc;

	if (!tree)
		return XERR_NOMEM;
	if (n)
		memcpy(tree, ag->chunks, n * sizeof(*tree));
	rc = chunks_from_scan(ctx, ag);
	if (rc) {
		free(tree);
		return rc;
	}
	/* both lists ascend by startino */
	for (size_t i = 0; i < ag->nchunks && !missed; i++) {
		while (k < n && tree[k].startino < ag->chunks[i].startino)
			k++;
		missed = k == n || tree[k].startino != ag->chunks[i].startino;
	}
	if (missed) {
		struct xa_loc loc = { XPROB_HAS_AG, ag->agno, 0, 0, 0, "inobt" };

		xa_report(ctx, &loc, XP_ichunkHidden, NULL, ag->agi.count, inodes,
			  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		free(tree);
		return 1;
	}
	ag->nchunks = 0;
	for (size_t i = 0; i < n; i++) {
		struct xa_ichunk *c = xa_ag_chunk_append(ag);

		if (!c) {
			free(tree);
			return XERR_NOMEM;
		}
		*c = tree[i];
	}
	ag->inodes = inodes;
	ag->free_inodes = free_inodes;
	ag->chunks_from_scan = false;
	free(tree);
	return 0;
}

static int walk_ag(struct xa_ctx *ctx, struct xa_ag *ag)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_walk w;
	size_t rmap_findings = SIZE_MAX, ino_findings = 0, ino_errors = 0, fino_findings = 0;
	bool chunk_damage = false, counts_differ;
	int rc;

	/* Nothing there to walk or to scan for inodes (pass_agheaders.c). */
	if (ag->blank)
		return 0;
	if (ag->agf_ok) {
		rc = xa_walk_btree(ctx, ag, XFMT_BT_BNO, ag->agf.bno_root, ag->agf.bno_level,
				   bno_rec, NULL, &w);
		if (rc)
			return rc;
		sum_store(&ag->bt[XA_BT_BNO], &w, ag->agf.bno_root);
		rc = xa_walk_btree(ctx, ag, XFMT_BT_CNT, ag->agf.cnt_root, ag->agf.cnt_level,
				   cnt_rec, NULL, &w);
		if (rc)
			return rc;
		sum_store(&ag->bt[XA_BT_CNT], &w, ag->agf.cnt_root);
		if (xfmt_geom_has_rmapbt(g)) {
			size_t before = ctx->findings.count;

			rc = xa_walk_btree(ctx, ag, XFMT_BT_RMAP, ag->agf.rmap_root,
					   ag->agf.rmap_level, rmap_rec, NULL, &w);
			if (rc)
				return rc;
			sum_store(&ag->bt[XA_BT_RMAP], &w, ag->agf.rmap_root);
			rmap_findings = ctx->findings.count - before;
		}
		if (xfmt_geom_has_reflink(g)) {
			rc = xa_walk_btree(ctx, ag, XFMT_BT_REFC, ag->agf.refcount_root,
					   ag->agf.refcount_level, refc_rec, NULL, &w);
			if (rc)
				return rc;
			sum_store(&ag->bt[XA_BT_REFC], &w, ag->agf.refcount_root);
		}
	}
	if (ag->agi_ok) {
		size_t before = ctx->findings.count;

		rc = xa_walk_btree(ctx, ag, XFMT_BT_INO, ag->agi.root, ag->agi.level,
				   ino_rec, NULL, &w);
		if (rc)
			return rc;
		sum_store(&ag->bt[XA_BT_INO], &w, ag->agi.root);
		ino_findings = ctx->findings.count - before;
		for (size_t i = before; i < ctx->findings.count; i++)
			if (xprob_severity_of(ctx->findings.items[i].p.code) == XSEV_ERROR)
				ino_errors++;
		chunk_damage = chunk_position_damaged(ctx, before);
		if (xfmt_geom_has_finobt(g)) {
			struct fino_state fs = { 0 };
			uint64_t with_free = 0;
			size_t fbefore = ctx->findings.count;

			rc = xa_walk_btree(ctx, ag, XFMT_BT_FINO, ag->agi.free_root,
					   ag->agi.free_level, fino_rec, &fs, &w);
			if (rc)
				return rc;
			sum_store(&ag->bt[XA_BT_FINO], &w, ag->agi.free_root);
			for (size_t i = 0; i < ag->nchunks; i++)
				if (ag->chunks[i].freecount)
					with_free++;
			/* A chunk with free inodes missing from the finobt. */
			if (w.complete && ag->bt[XA_BT_INO].walked && fs.recs != with_free) {
				struct xa_loc loc = { XPROB_HAS_AG, ag->agno, 0, 0, 0, "finobt" };
				xa_report(ctx, &loc, XP_ichunkFinobtMismatch, "records", with_free,
					  fs.recs, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
			}
			fino_findings = ctx->findings.count - fbefore;
		}
	}
	if (ag->agi_ok && ag->bt[XA_BT_INO].walked && ino_errors && ctx->own &&
	    inobt_contradicted(ctx, ag))
		chunk_damage = true;
	counts_differ = ag->agi_ok && (ag->inodes != ag->agi.count ||
				       ag->free_inodes != ag->agi.freecount);
	/* A damaged inode btree, or one that counts other inodes than the AGI,
	 * or one the finobt contradicts (a record moved to a place that still
	 * reads as sound: the finobt keeps the old one), that disagrees with a
	 * sound rmapbt about where the inodes are: the rmapbt's account is
	 * taken, as for a lost one.  Where the two agree the inobt stands. */
	if (ag->agi_ok && ag->bt[XA_BT_INO].walked &&
	    (ino_findings || fino_findings || counts_differ) &&
	    rmap_findings == 0 && ag->agf_ok && ag->bt[XA_BT_RMAP].walked && ctx->own) {
		rc = chunks_match_rmap(ctx, ag);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			struct xa_loc loc = { XPROB_HAS_AG, ag->agno, 0, 0, 0, "inobt" };

			xa_report(ctx, &loc, XP_ichunkRmapDisagree, NULL, 0, 0, 0);
			/* Not believed from here on, as if it could not be read:
			 * the counters it would vouch for are not compared. */
			ag->bt[XA_BT_INO].walked = false;
			return chunks_from_rmap(ctx, ag);
		}
	}
	/* Records that put a chunk where none can be (misaligned, outside the
	 * AG, over its headers, a holemask no chunk has): the inode btree
	 * cannot say where the inodes are.  The inodes pass would read inodes
	 * at a wrong place and take real ones for garbage.  A sound rmapbt
	 * says where the chunks are (even where its blocks agree with the
	 * damaged records: a holemask can be wrong inside one block); without
	 * one, the scan finds the chunks by their contents. */
	if (chunk_damage && ag->bt[XA_BT_INO].walked && ctx->own) {
		ag->bt[XA_BT_INO].walked = false;
		if (xfmt_geom_has_rmapbt(g) && rmap_findings == 0 && ag->agf_ok &&
		    ag->bt[XA_BT_RMAP].walked)
			return chunks_from_rmap(ctx, ag);
		return chunks_from_scan(ctx, ag);
	}
	/* Without a sound rmapbt to ask, the AG's blocks say whether a tree
	 * that reads as sound, or whose damage put no chunk where none can
	 * be, says where the inodes are. */
	if (ag->agi_ok && ag->bt[XA_BT_INO].walked && ctx->own &&
	    !(xfmt_geom_has_rmapbt(g) && rmap_findings == 0 && ag->agf_ok &&
	      ag->bt[XA_BT_RMAP].walked)) {
		bool doubt = counts_differ && !ino_errors;

		for (size_t i = 0; i < ag->nchunks && !doubt; i++)
			doubt = !chunk_has_inodes(ctx, ag, &ag->chunks[i]);
		rc = doubt ? inobt_vs_scan(ctx, ag) : 0;
		if (rc < 0)
			return rc;
		if (rc == 1) {
			ag->bt[XA_BT_INO].walked = false;
			return 0;
		}
	}
	if (!ag->agi_ok || !ag->bt[XA_BT_INO].walked) {
		if (xfmt_geom_has_rmapbt(g) && ag->agf_ok && ag->bt[XA_BT_RMAP].walked && ctx->own)
			return chunks_from_rmap(ctx, ag);
		/* Only where a repair may follow (check collects ownership):
		 * the scan reads the whole AG. */
		if (ctx->own)
			return chunks_from_scan(ctx, ag);
	}
	return 0;
}

int xa_pass_btrees(struct xa_ctx *ctx)
{
	/* Start noting owners for the ownership pass (check/ownership.c). */
	int orc = xa_own_begin(ctx);

	if (orc)
		return orc;
	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		int rc;

		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "btrees", agno, ctx->nags);
		rc = walk_ag(ctx, &ctx->ags[agno]);
		if (rc)
			return rc;
	}
	return 0;
}
