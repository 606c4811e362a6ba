/*
 * extract_map.c - duplicate physical mappings removed from one file's data
 * fork before extract copies it (see extract_map.h).
 *
 * The search for blocks claimed twice is the check's (check/crosslink.c):
 * the fork's mappings, split at AG boundaries of the fsblock space, are
 * handed over AG by AG with the file offset as rank, so the mapping at the
 * lowest offset keeps the blocks and every later one loses them.  Sharing
 * is accepted only on the refcountbt's word, and only from a tree read
 * completely: a damaged or absent tree vouches for nothing.
 */
#include "cli/views/extract_map.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/crosslink.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/scan/btree_walk.h"
#include "formats/btrec.h"

struct xc_extract_refc {
	uint32_t            nags;
	bool               *read;   /* the AG's tree was walked (once: the walk claims blocks) */
	struct xa_ownlist  *lists;  /* its shared extents, refcount >= 2 */
	struct xa_xlink_ev *ev;
};

/* A file range [off, off + len) in blocks taken out of the map. */
struct drop {
	uint64_t off, len;
};

struct dedup {
	struct xa_xlink_ev *ev;     /* the AG being searched */
	struct drop        *d;
	size_t              n, cap;
};

void xc_extract_refc_free(struct xc_extract_refc **rp)
{
	struct xc_extract_refc *r = *rp;

	if (!r)
		return;
	for (uint32_t i = 0; i < r->nags; i++) {
		xa_ownlist_release(&r->lists[i]);
		xa_xlink_ev_release(&r->ev[i]);
	}
	free(r->read);
	free(r->lists);
	free(r->ev);
	free(r);
	*rp = NULL;
}

static int refc_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct xa_ownlist *l = w->arg;
	struct xfmt_refc_rec r;

	(void)idx;
	(void)agbno;
	xfmt_refc_rec_decode(rec, &r);
	if (!r.blockcount || r.cow || r.refcount < 2)
		return 0;
	return xa_ownlist_add(l, r.startblock, r.blockcount, r.refcount, 0, 0);
}

/* The evidence of AG agno, its refcountbt walked on first use. */
static int refc_ev(struct xa_ctx *ctx, struct xc_extract_refc **rp, uint32_t agno,
		   struct xa_xlink_ev **out)
{
	struct xc_extract_refc *r = *rp;
	struct xa_ag *ag = &ctx->ags[agno];
	struct xa_walk w;
	int rc;

	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return XERR_NOMEM;
		r->nags = ctx->nags;
		r->read = calloc(ctx->nags, sizeof(*r->read));
		r->lists = calloc(ctx->nags, sizeof(*r->lists));
		r->ev = calloc(ctx->nags, sizeof(*r->ev));
		*rp = r;
		if (!r->read || !r->lists || !r->ev)
			return XERR_NOMEM;
	}
	*out = &r->ev[agno];
	if (r->read[agno])
		return 0;
	r->read[agno] = true;
	r->ev[agno].reflink = xfmt_geom_has_reflink(&ctx->geom);
	r->ev[agno].refc = &r->lists[agno];
	if (!r->ev[agno].reflink || !ag->agf_ok)
		return 0;
	rc = xa_walk_btree(ctx, ag, XFMT_BT_REFC, ag->agf.refcount_root, ag->agf.refcount_level,
			   refc_rec, &r->lists[agno], &w);
	if (rc)
		return rc;
	r->ev[agno].refc_ok = w.complete;
	return 0;
}

static uint64_t rank_offset(void *arg, const struct xa_ownrec *r)
{
	(void)arg;
	return r->offset;
}

static bool may_share(void *arg, const struct xa_ownrec *a, const struct xa_ownrec *b,
		      uint32_t agbno, uint32_t len)
{
	struct dedup *s = arg;

	/* Only a tree read completely vouches; xa_xlink_shared would give an
	 * unreadable one the benefit of the doubt the check may give. */
	return s->ev->refc_ok && xa_xlink_shared(s->ev, a, b, agbno, len);
}

static int drop_add(struct dedup *s, uint64_t off, uint64_t len)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct drop *nd = realloc(s->d, ncap * sizeof(*nd));

		if (!nd)
			return XERR_NOMEM;
		s->d = nd;
		s->cap = ncap;
	}
	s->d[s->n++] = (struct drop){ off, len };
	return 0;
}

static int on_conflict(void *arg, const struct xa_xlink *x)
{
	return drop_add(arg, x->loser->offset + (x->agbno - x->loser->agbno), x->len);
}

/* The search gave up: every mapping of the AG's list that overlaps another
 * is dropped whole (recs sorted by agbno). */
static int drop_clusters(struct dedup *s, const struct xa_ownrec *recs, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint64_t end = (uint64_t)recs[i].agbno + recs[i].len;
		size_t j = i + 1;

		while (j < n && recs[j].agbno < end) {
			if ((uint64_t)recs[j].agbno + recs[j].len > end)
				end = (uint64_t)recs[j].agbno + recs[j].len;
			j++;
		}
		for (size_t k = i; j - i > 1 && k < j; k++) {
			int rc = drop_add(s, recs[k].offset, recs[k].len);

			if (rc)
				return rc;
		}
		i = j;
	}
	return 0;
}

static int cmp_drop(const void *x, const void *y)
{
	const struct drop *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_own(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	/* owner holds the AG here; within an AG by start block */
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	return a->agbno < b->agbno ? -1 : a->agbno > b->agbno;
}

static int emit(struct xa_extents *out, const struct xfmt_bmbt_rec *e, uint64_t s, uint64_t n)
{
	if (out->n == out->cap) {
		size_t ncap = out->cap ? out->cap * 2 : 16;
		struct xfmt_bmbt_rec *nv = realloc(out->v, ncap * sizeof(*nv));

		if (!nv)
			return XERR_NOMEM;
		out->v = nv;
		out->cap = ncap;
	}
	out->v[out->n] = *e;
	out->v[out->n].startoff = s;
	out->v[out->n].startblock = e->startblock + (s - e->startoff);
	out->v[out->n].blockcount = (uint32_t)n;
	out->n++;
	return 0;
}

/* Rebuild ex without the dropped file ranges (any order; they may overlap). */
static int subtract(struct xa_extents *ex, struct drop *d, size_t nd, uint64_t *dropped)
{
	struct xa_extents out = { NULL, 0, 0, ex->complete };
	size_t j = 0, k = 0;

	if (nd > 1)
		qsort(d, nd, sizeof(*d), cmp_drop);
	/* merge into disjoint ranges, sorted */
	for (size_t i = 0; i < nd; i++) {
		if (k && d[i].off <= d[k - 1].off + d[k - 1].len) {
			if (d[i].off + d[i].len > d[k - 1].off + d[k - 1].len)
				d[k - 1].len = d[i].off + d[i].len - d[k - 1].off;
			continue;
		}
		d[k++] = d[i];
	}
	nd = k;
	*dropped = 0;
	for (size_t i = 0; i < ex->n; i++) {
		const struct xfmt_bmbt_rec *e = &ex->v[i];
		uint64_t cur = e->startoff, end = e->startoff + e->blockcount;

		while (j < nd && d[j].off + d[j].len <= cur)
			j++;
		for (k = j; cur < end; k++) {
			uint64_t ds = k < nd && d[k].off < end ? d[k].off : end, de;

			if (ds > cur && emit(&out, e, cur, ds - cur)) {
				free(out.v);
				return XERR_NOMEM;
			}
			if (ds >= end)
				break;
			de = d[k].off + d[k].len < end ? d[k].off + d[k].len : end;
			*dropped += de - (ds > cur ? ds : cur);
			cur = de;
		}
	}
	free(ex->v);
	*ex = out;
	return 0;
}

int xc_extract_map_dedup(struct xa_ctx *ctx, struct xa_extents *ex,
			 struct xc_extract_refc **refc, uint64_t *dup_blocks, bool *tangled)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_ownlist all = { 0 };
	struct dedup s = { 0 };
	int rc = 0;

	*dup_blocks = 0;
	*tangled = false;
	if (ex->n < 2 || g->agblklog >= 32)
		return 0;
	/* Split every mapping at the AG boundaries of the fsblock space; the
	 * AG number rides in owner so one sort groups the AGs. */
	for (size_t i = 0; i < ex->n && !rc; i++) {
		const struct xfmt_bmbt_rec *e = &ex->v[i];
		uint64_t fsb = e->startblock, off = e->startoff, left = e->blockcount;

		while (left && !rc) {
			uint64_t agbno = fsb & ((1ull << g->agblklog) - 1);
			uint64_t n = (1ull << g->agblklog) - agbno;

			if (n > left)
				n = left;
			rc = xa_ownlist_add(&all, (uint32_t)agbno, (uint32_t)n, fsb >> g->agblklog, off,
					    e->unwritten ? XA_OWN_UNWRITTEN : 0);
			fsb += n;
			off += n;
			left -= n;
		}
	}
	if (rc)
		goto out;
	qsort(all.recs, all.n, sizeof(*all.recs), cmp_own);
	for (size_t i = 0; i < all.n && !rc; ) {
		uint64_t agno = all.recs[i].owner;
		size_t j = i;
		struct xa_xlink_ops ops = { rank_offset, may_share, on_conflict, &s };

		while (j < all.n && all.recs[j].owner == agno)
			j++;
		if (j - i > 1) {
			if (agno < ctx->nags) {
				rc = refc_ev(ctx, refc, (uint32_t)agno, &s.ev);
			} else {
				static struct xa_xlink_ev none;   /* no AG: nothing vouches */

				s.ev = &none;
			}
			if (!rc)
				rc = xa_xlink_find(all.recs + i, j - i, &ops);
			if (rc == XA_XLINK_TRUNCATED) {
				*tangled = true;
				rc = drop_clusters(&s, all.recs + i, j - i);
			}
		}
		i = j;
	}
	if (!rc && s.n)
		rc = subtract(ex, s.d, s.n, dup_blocks);
out:
	xa_ownlist_release(&all);
	free(s.d);
	return rc;
}
