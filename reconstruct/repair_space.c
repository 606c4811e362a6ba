/*
 * repair_space.c - blocks the planner hands out itself (new directory
 * blocks), before the AG rebuild turns what is left into free space.
 *
 * Why a bitmap of everything owned before the repair, rather than the
 * bnobt: the bnobt may be the damaged structure, while the forward
 * ownership is what the rebuild trusts.  Blocks released by the repair
 * (cleared inodes, replaced directory blocks) are not handed out again in
 * the same plan, so their old contents stay readable in the output.
 */
#include <stdlib.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/geom.h"
#include "reconstruct/repair_int.h"

static int space_ready(struct xr_rp *rp, uint32_t agno)
{
	struct rp_ag *ra = &rp->ags[agno];
	const struct xa_ownlist *fwd;
	uint32_t len = xfmt_geom_ag_length(&rp->ctx->geom, agno);

	if (ra->space_ready)
		return 0;
	if (xa_bitmap_init(&ra->used, len))
		return XERR_NOMEM;
	fwd = xa_own_forward(rp->ctx, agno, NULL);
	for (size_t i = 0; fwd && i < fwd->n; i++)
		for (uint64_t b = fwd->recs[i].agbno;
		     b < (uint64_t)fwd->recs[i].agbno + fwd->recs[i].len && b < len; b++)
			xa_bitmap_set(&ra->used, b);
	for (size_t i = 0; i < ra->added.n; i++)
		for (uint64_t b = ra->added.recs[i].agbno;
		     b < (uint64_t)ra->added.recs[i].agbno + ra->added.recs[i].len && b < len; b++)
			xa_bitmap_set(&ra->used, b);
	/* A bit the bitmap could not keep is a used block that would look
	 * free: nothing may be allocated from a map that lost one. */
	if (ra->used.oom) {
		xa_bitmap_release(&ra->used);
		return XERR_NOMEM;
	}
	ra->space_ready = true;
	return 0;
}

void rp_space_hold(struct xr_rp *rp, uint32_t agno, uint32_t agbno, uint32_t len)
{
	if (agno >= rp->ctx->nags || rp_ag_blocked(rp, agno) || space_ready(rp, agno))
		return;
	/* the bitmap is the AG's length: nothing past it is set or walked */
	for (uint64_t b = agbno; b < (uint64_t)agbno + len && b < rp->ags[agno].used.nbits; b++)
		xa_bitmap_set(&rp->ags[agno].used, b);
}

const struct xa_bitmap *rp_space_owned(struct xr_rp *rp, uint32_t agno)
{
	if (agno >= rp->ctx->nags || rp_ag_blocked(rp, agno) || space_ready(rp, agno))
		return NULL;
	return &rp->ags[agno].used;
}

/* The longest free run in AG agno, capped at want: first run of want
 * blocks, else the longest.  0 when the AG is full. */
static uint32_t find_run(const struct rp_ag *ra, uint32_t len, uint32_t want, uint32_t unit,
			 uint32_t *start)
{
	uint32_t best = 0, best_at = 0, run = 0;

	for (uint32_t b = 0; b < len; b++) {
		if (xa_bitmap_test(&ra->used, b)) {
			run = 0;
			continue;
		}
		if (++run > best) {
			best = run;
			best_at = b + 1 - run;
			if (best >= want)
				break;
		}
	}
	*start = best_at;
	best = best < want ? best : want;
	return best - best % unit;
}

int rp_space_alloc(struct xr_rp *rp, uint32_t agno_hint, uint32_t want, uint32_t unit,
		   uint64_t owner, uint64_t offset, uint32_t flags, uint32_t *agno, uint32_t *agbno,
		   uint32_t *got)
{
	struct xa_ctx *ctx = rp->ctx;

	if (!want || !unit || want % unit)
		return XERR_USAGE;
	for (uint32_t k = 0; k < ctx->nags; k++) {
		uint32_t a = (agno_hint + k) % ctx->nags, start, n;
		struct rp_ag *ra = &rp->ags[a];
		int rc;

		/* Only where the rebuild that must follow can happen. */
		if (rp_ag_blocked(rp, a))
			continue;
		rc = space_ready(rp, a);
		if (rc)
			return rc;
		if (ra->used.oom)   /* a hold or an earlier allocation was lost */
			return XERR_NOMEM;
		n = find_run(ra, xfmt_geom_ag_length(&ctx->geom, a), want, unit, &start);
		if (!n)
			continue;
		rc = xa_ownlist_add(&ra->added, start, n, owner, offset, flags);
		if (rc)
			return rc;
		for (uint32_t b = start; b < start + n; b++)
			xa_bitmap_set(&ra->used, b);
		if (ra->used.oom)
			return XERR_NOMEM;
		rp_need_rebuild(rp, a);
		*agno = a;
		*agbno = start;
		*got = n;
		return 0;
	}
	return XERR_UNSUPPORTED;
}

void rp_space_unalloc(struct xr_rp *rp, uint64_t owner)
{
	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		struct rp_ag *ra = &rp->ags[a];
		size_t k = 0;

		for (size_t i = 0; i < ra->added.n; i++) {
			const struct xa_ownrec *r = &ra->added.recs[i];

			if (r->owner != owner) {
				ra->added.recs[k++] = *r;
				continue;
			}
			for (uint32_t b = r->agbno; b < r->agbno + r->len; b++)
				xa_bitmap_clear(&ra->used, b);
		}
		ra->added.n = k;
	}
}

void rp_space_release(struct xr_rp *rp)
{
	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		xa_bitmap_release(&rp->ags[a].used);
		xa_ownlist_release(&rp->ags[a].added);
	}
}
