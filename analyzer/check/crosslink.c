/*
 * crosslink.c - blocks claimed twice (see crosslink.h): the search, the
 * evidence for legitimate sharing, and the check's findings.
 *
 * The search: the records are sorted by start block, so a cluster of
 * records that overlap one another (directly or through a chain) is a run
 * of the list where each record starts before the furthest end so far.
 * Outside clusters nothing is shared and nothing more is done.  Inside a
 * cluster the records are taken in rank order; each one is laid over the
 * blocks already granted to the better-ranked ones (a sorted list of
 * disjoint intervals, each naming its holder): where it meets a holder it
 * loses that run of blocks (unless both may share it), and what it meets
 * no holder on is granted to it.  Why granted intervals keep their holder
 * rather than being merged: every conflict must name who holds the blocks.
 */
#include "analyzer/check/crosslink.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/geom.h"

struct grant {
	uint64_t s, e;
	size_t   rec;    /* index into the records */
};

struct ranked {
	uint64_t key;
	size_t   idx;
};

struct search {
	const struct xa_ownrec   *recs;
	const struct xa_xlink_ops *ops;
	struct ranked            *rk;
	struct grant             *g, *tmp;
	size_t                    ng, gcap, tcap;
	uint64_t                  budget;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int grow(struct grant **v, size_t *cap, size_t need)
{
	struct grant *n;
	size_t ncap = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*v, ncap * sizeof(*n));
	if (!n)
		return XERR_NOMEM;
	*v = n;
	*cap = ncap;
	return 0;
}

static uint64_t rec_end(const struct xa_ownrec *r)
{
	return (uint64_t)r->agbno + r->len;
}

/* Lay record ri over the granted intervals (see the file comment). */
static int lay(struct search *s, size_t ri)
{
	const struct xa_ownrec *r = &s->recs[ri];
	uint64_t rs = r->agbno, re = rec_end(r), cur = rs;
	size_t lo = 0, hi = s->ng, k, nt = 0;
	int rc;

	/* first interval ending after rs (intervals are disjoint and sorted) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->g[mid].e <= rs)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < s->ng && s->g[k].s < re; k++) {
		const struct grant *gk = &s->g[k];
		uint64_t ps = gk->s > rs ? gk->s : rs, pe = gk->e < re ? gk->e : re;

		if (!s->budget)
			return XA_XLINK_TRUNCATED;
		s->budget--;
		rc = grow(&s->tmp, &s->tcap, nt + 2);
		if (rc)
			return rc;
		if (gk->s > cur)
			s->tmp[nt++] = (struct grant){ cur, gk->s, ri };
		s->tmp[nt++] = *gk;
		if (!s->ops->may_share ||
		    !s->ops->may_share(s->ops->arg, r, &s->recs[gk->rec], (uint32_t)ps,
				       (uint32_t)(pe - ps))) {
			struct xa_xlink x = { (uint32_t)ps, (uint32_t)(pe - ps), r, &s->recs[gk->rec] };

			rc = s->ops->conflict(s->ops->arg, &x);
			if (rc)
				return rc;
		}
		if (gk->e > cur)
			cur = gk->e;
	}
	rc = grow(&s->tmp, &s->tcap, nt + 1);
	if (rc)
		return rc;
	if (cur < re)
		s->tmp[nt++] = (struct grant){ cur, re, ri };
	/* replace g[lo, k) by tmp[0, nt) */
	rc = grow(&s->g, &s->gcap, s->ng - (k - lo) + nt);
	if (rc)
		return rc;
	if (s->budget < s->ng - k)
		return XA_XLINK_TRUNCATED;
	s->budget -= s->ng - k;
	memmove(s->g + lo + nt, s->g + k, (s->ng - k) * sizeof(*s->g));
	memcpy(s->g + lo, s->tmp, nt * sizeof(*s->g));
	s->ng = s->ng - (k - lo) + nt;
	return 0;
}

static int cluster(struct search *s, size_t first, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		s->rk[k].key = s->ops->rank(s->ops->arg, &s->recs[first + k]);
		s->rk[k].idx = first + k;
	}
	if (n > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(s->rk, n, sizeof(*s->rk), cmp_ranked);
	s->ng = 0;
	for (size_t k = 0; k < n; k++) {
		int rc;

		if (!s->recs[s->rk[k].idx].len)
			continue;
		rc = lay(s, s->rk[k].idx);
		if (rc)
			return rc;
	}
	return 0;
}

int xa_xlink_find(const struct xa_ownrec *recs, size_t n, const struct xa_xlink_ops *ops)
{
	struct search s;
	size_t i = 0, rkcap = 0;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.recs = recs;
	s.ops = ops;
	/* Enough for every cluster of a sound reflink filesystem many times
	 * over; a hostile pile of overlapping mappings stops here. */
	s.budget = 64 * (uint64_t)n + (1u << 20);
	while (i < n && !rc) {
		uint64_t end = rec_end(&recs[i]);
		size_t j = i + 1;

		while (j < n && recs[j].agbno < end) {
			if (rec_end(&recs[j]) > end)
				end = rec_end(&recs[j]);
			j++;
		}
		if (j - i >= 2) {
			if (j - i > rkcap) {
				struct ranked *nr = realloc(s.rk, (j - i) * sizeof(*nr));

				if (!nr) {
					rc = XERR_NOMEM;
					break;
				}
				s.rk = nr;
				rkcap = j - i;
			}
			rc = cluster(&s, i, j - i);
		}
		i = j;
	}
	free(s.rk);
	free(s.g);
	free(s.tmp);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Evidence for sharing. */

static bool data_claim(const struct xa_ownrec *r)
{
	return !xa_owner_is_special(r->owner) && !(r->flags & (XA_OWN_ATTR | XA_OWN_BMBT));
}

static int cmp_start(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	return a->agbno < b->agbno ? -1 : a->agbno > b->agbno;
}

/* The union of the refcount records, sorted and merged. */
static void build_cover(struct xa_xlink_ev *ev)
{
	size_t k = 0;

	ev->cover_built = true;
	if (!ev->refc || !ev->refc->n)
		return;
	ev->cover = malloc(ev->refc->n * sizeof(*ev->cover));
	if (!ev->cover)
		return;   /* no cover: nothing is shared, the check says more than it should */
	memcpy(ev->cover, ev->refc->recs, ev->refc->n * sizeof(*ev->cover));
	if (ev->refc->n > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(ev->cover, ev->refc->n, sizeof(*ev->cover), cmp_start);
	for (size_t i = 0; i < ev->refc->n; i++) {
		struct xa_ownrec *c = &ev->cover[i];

		if (k && rec_end(&ev->cover[k - 1]) >= c->agbno) {
			uint64_t e = rec_end(c) > rec_end(&ev->cover[k - 1]) ? rec_end(c)
									     : rec_end(&ev->cover[k - 1]);

			/* records are checked against the AG, which is < 2^32 blocks */
			ev->cover[k - 1].len = (uint32_t)(e - ev->cover[k - 1].agbno);
			continue;
		}
		ev->cover[k++] = *c;
	}
	ev->ncover = k;
}

static bool covered(struct xa_xlink_ev *ev, uint32_t agbno, uint32_t len)
{
	size_t lo = 0, hi;

	if (!ev->cover_built)
		build_cover(ev);
	hi = ev->ncover;
	/* the last interval starting at or before agbno */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev->cover[mid].agbno <= agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && rec_end(&ev->cover[lo - 1]) >= (uint64_t)agbno + len;
}

/* Records of one start block compared at most this far back (a hostile
 * rmapbt can stack every record at one place). */
#define RMAP_SCAN_MAX 256

bool xa_xlink_rmap_names(const struct xa_ownlist *rmap, const struct xa_ownrec *r,
			 uint32_t agbno, uint32_t len)
{
	size_t lo = 0, hi;
	uint64_t end = (uint64_t)agbno + len;
	unsigned seen = 0;

	if (!rmap)
		return false;
	hi = rmap->n;
	/* first record starting at or after end: every overlap is before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rmap->recs[mid].agbno < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && seen++ < RMAP_SCAN_MAX) {
		const struct xa_ownrec *m = &rmap->recs[--lo];

		if (m->owner == r->owner && rec_end(m) > agbno &&
		    (m->flags & (XA_OWN_ATTR | XA_OWN_BMBT)) == (r->flags & (XA_OWN_ATTR | XA_OWN_BMBT)))
			return true;
	}
	return false;
}

bool xa_xlink_shared(struct xa_xlink_ev *ev, const struct xa_ownrec *a,
		     const struct xa_ownrec *b, uint32_t agbno, uint32_t len)
{
	if (!ev->reflink || !data_claim(a) || !data_claim(b))
		return false;
	if (ev->refc_ok)
		return covered(ev, agbno, len);
	if (ev->rmap_ok)
		return xa_xlink_rmap_names(ev->rmap, a, agbno, len) &&
		       xa_xlink_rmap_names(ev->rmap, b, agbno, len);
	return true;
}

void xa_xlink_ev_release(struct xa_xlink_ev *ev)
{
	free(ev->cover);
	ev->cover = NULL;
	ev->ncover = 0;
	ev->cover_built = false;
}

/* ------------------------------------------------------------------ */
/* The check. */

struct owner_count {
	uint64_t owner;
	unsigned n;
};

struct check_state {
	struct xa_ctx      *ctx;
	uint32_t            agno;
	struct xa_xlink_ev *ev;
	unsigned            reported;
	struct owner_count  counts[XA_XLINK_FINDINGS_AG];
	unsigned            ncounts;
};

/* Metadata first (the walks verified it), then bmbt blocks, attr forks,
 * file data: the finding names the better-ranked claim second. */
static uint64_t check_rank(void *arg, const struct xa_ownrec *r)
{
	(void)arg;
	if (xa_owner_is_special(r->owner))
		return 0;
	if (r->flags & XA_OWN_BMBT)
		return 1;
	return (r->flags & XA_OWN_ATTR) ? 2 : 3;
}

static bool check_share(void *arg, const struct xa_ownrec *a, const struct xa_ownrec *b,
			uint32_t agbno, uint32_t len)
{
	struct check_state *st = arg;

	return xa_xlink_shared(st->ev, a, b, agbno, len);
}

/* The claim of r on the blocks from agbno: a fork's offset moves with it. */
static void claim_of(const struct xa_ownrec *r, uint32_t agbno, struct xprob_owner *o)
{
	o->owner = r->owner;
	o->flags = r->flags;
	o->offset = (xa_owner_is_special(r->owner) || (r->flags & XA_OWN_BMBT))
		? 0 : r->offset + (agbno - r->agbno);
}

static bool owner_over_cap(struct check_state *st, uint64_t owner)
{
	for (unsigned k = 0; k < st->ncounts; k++)
		if (st->counts[k].owner == owner)
			return ++st->counts[k].n > XA_XLINK_FINDINGS_OWNER;
	if (st->ncounts < XA_XLINK_FINDINGS_AG)
		st->counts[st->ncounts++] = (struct owner_count){ owner, 1 };
	return false;
}

static int check_conflict(void *arg, const struct xa_xlink *x)
{
	struct check_state *st = arg;
	const struct xa_ownrec *l = x->loser, *w = x->winner;
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, st->agno, x->agbno, 0,
			      xfmt_geom_agbno_byte(&st->ctx->geom, st->agno, x->agbno), "ownership" };
	struct xprob p = {
		.code = XP_ownCrossLinked, .has = XPROB_HAS_OBSERVED | XPROB_HAS_OWNERS,
		.observed = x->len,
	};

	/* Special owners rank first: a special loser has a special winner. */
	if (xa_owner_is_special(l->owner))
		return 0;
	/* one mapping listed twice by its own fork: a bmapOverlap */
	if (l->owner == w->owner && l->flags == w->flags &&
	    (uint64_t)l->agbno - l->offset == (uint64_t)w->agbno - w->offset)
		return 0;
	if (st->reported >= XA_XLINK_FINDINGS_AG || owner_over_cap(st, l->owner))
		return 0;
	st->reported++;
	loc.has |= XPROB_HAS_INO;
	loc.ino = l->owner;
	claim_of(l, x->agbno, &p.owners[0]);
	claim_of(w, x->agbno, &p.owners[1]);
	p.agbno = x->agbno;
	xa_findings_add(&st->ctx->findings, &p, &loc);
	return 0;
}

int xa_check_crosslinks(struct xa_ctx *ctx, uint32_t agno, const struct xa_ownlist *fwd,
			struct xa_xlink_ev *ev)
{
	struct check_state *st;
	struct xa_xlink_ops ops = { check_rank, check_share, check_conflict, NULL };
	int rc;

	if (!fwd || fwd->n < 2)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return XERR_NOMEM;
	st->ctx = ctx;
	st->agno = agno;
	st->ev = ev;
	ops.arg = st;
	rc = xa_xlink_find(fwd->recs, fwd->n, &ops);
	free(st);
	/* A search cut short still reported what it found before the cut. */
	return rc == XA_XLINK_TRUNCATED ? 0 : rc;
}
