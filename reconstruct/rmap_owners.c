/*
 * rmap_owners.c - the reverse map indexed by owner and by start block (see
 * rmap_owners.h).
 */
#include "reconstruct/rmap_owners.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"

static int cmp_ref(const void *x, const void *y)
{
	const struct rp_owner_ref *a = x, *b = y;

	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->agno != b->agno)
		return a->agno < b->agno ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* For sorting one AG's record indices by start (ties by index). */
struct start_key {
	uint64_t start;
	uint32_t idx;
};

static int cmp_start(const void *x, const void *y)
{
	const struct start_key *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int build_spans(struct rp_ag_spans *s, const struct xa_ownlist *rm)
{
	struct start_key *k;
	uint64_t *end;
	int rc;

	if (!rm || rm->n == 0 || rm->n > UINT32_MAX)
		return 0;
	k = malloc(rm->n * sizeof(*k));
	s->by_start = malloc(rm->n * sizeof(*s->by_start));
	s->start = malloc(rm->n * sizeof(*s->start));
	end = malloc(rm->n * sizeof(*end));
	if (!k || !s->by_start || !s->start || !end) {
		free(k);
		free(end);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < rm->n; i++) {
		k[i].start = rm->recs[i].agbno;
		k[i].idx = (uint32_t)i;
	}
	qsort(k, rm->n, sizeof(*k), cmp_start);
	for (size_t i = 0; i < rm->n; i++) {
		const struct xa_ownrec *r = &rm->recs[k[i].idx];

		s->by_start[i] = k[i].idx;
		s->start[i] = r->agbno;
		end[i] = (uint64_t)r->agbno + r->len;
	}
	s->n = rm->n;
	rc = xa_span_index_build(&s->ends, end, rm->n);
	free(k);
	free(end);
	return rc;
}

int rp_rmap_owners_build(struct rp_rmap_owners *ix, const struct xa_ctx *ctx)
{
	size_t total = 0, k = 0;
	int rc = 0;

	if (ix->built)
		return 0;
	ix->ags = calloc(ctx->nags ? ctx->nags : 1, sizeof(*ix->ags));
	if (!ix->ags)
		return XERR_NOMEM;
	ix->nags = ctx->nags;
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ownlist *rm = xa_own_rmap(ctx, a);

		if (ctx->ags[a].bt[XA_BT_RMAP].walked && rm && rm->n <= UINT32_MAX)
			total += rm->n;
	}
	if (total) {
		ix->refs = malloc(total * sizeof(*ix->refs));
		if (!ix->refs)
			return XERR_NOMEM;
	}
	for (uint32_t a = 0; a < ctx->nags && !rc; a++) {
		const struct xa_ownlist *rm = xa_own_rmap(ctx, a);

		if (!ctx->ags[a].bt[XA_BT_RMAP].walked || !rm || rm->n > UINT32_MAX)
			continue;
		for (size_t i = 0; i < rm->n; i++) {
			ix->refs[k].owner = rm->recs[i].owner;
			ix->refs[k].agno = a;
			ix->refs[k].idx = (uint32_t)i;
			k++;
		}
		rc = build_spans(&ix->ags[a], rm);
	}
	if (rc)
		return rc;
	ix->nrefs = k;
	if (k > 1)
		qsort(ix->refs, k, sizeof(*ix->refs), cmp_ref);
	ix->built = true;
	return 0;
}

size_t rp_rmap_owner_refs(const struct rp_rmap_owners *ix, uint64_t owner, size_t *first)
{
	size_t lo = 0, hi = ix->nrefs, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->refs[mid].owner < owner)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (end = lo; end < ix->nrefs && ix->refs[end].owner == owner; end++)
		;
	return end - lo;
}

const struct xa_ownrec *rp_rmap_ref_rec(const struct xa_ctx *ctx, const struct rp_owner_ref *r)
{
	return &xa_own_rmap(ctx, r->agno)->recs[r->idx];
}

bool rp_rmap_shared_with_other(const struct rp_rmap_owners *ix, const struct xa_ctx *ctx,
			       uint32_t agno, uint32_t agbno, uint32_t len, uint64_t owner)
{
	const struct rp_ag_spans *s;
	const struct xa_ownlist *rm;
	uint64_t end = (uint64_t)agbno + len;
	size_t lo = 0, hi, got, hits[64], from = 0;

	if (agno >= ix->nags || !len)
		return false;
	s = &ix->ags[agno];
	rm = xa_own_rmap(ctx, agno);
	if (!s->n || !rm)
		return false;
	/* The spans that start before the range ends ... */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->start[mid] < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... and end past its start, a batch at a time. */
	for (;;) {
		got = xa_span_index_reaching_from(&s->ends, from, lo, agbno, hits, 64);
		for (size_t i = 0; i < got; i++) {
			const struct xa_ownrec *r = &rm->recs[s->by_start[hits[i]]];

			if (r->owner != owner && !xa_owner_is_special(r->owner))
				return true;
		}
		if (got < 64)
			return false;
		from = hits[got - 1] + 1;
	}
}

void rp_rmap_owners_release(struct rp_rmap_owners *ix)
{
	for (uint32_t a = 0; ix->ags && a < ix->nags; a++) {
		free(ix->ags[a].by_start);
		free(ix->ags[a].start);
		xa_span_index_release(&ix->ags[a].ends);
	}
	free(ix->ags);
	free(ix->refs);
	memset(ix, 0, sizeof(*ix));
}
