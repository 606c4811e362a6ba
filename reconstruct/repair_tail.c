/*
 * repair_tail.c - a truncated input: what the repair can and cannot give back.
 *
 * The analyzer read the missing end as zeros (opts.zero_tail), so its AGs
 * were walked and are rebuilt like zeroed ones, and directory entries naming
 * inodes there are taken out by the name phase.  What is left to say is which
 * files kept their map into the missing part: their blocks there read as
 * zeros in the output.  Each is listed (struct xr_loss) so that nobody takes
 * those zeros for the file's content.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "formats/btrec.h"
#include "formats/geom.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

static int cmp_loss(const void *x, const void *y)
{
	const struct xr_loss *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->flags != b->flags)
		return a->flags < b->flags ? -1 : 1;
	return (a->first_byte > b->first_byte) - (a->first_byte < b->first_byte);
}

/* Sort by inode and fork and fold each file's pieces into one entry. */
static void merge_losses(struct xr_plan *p)
{
	size_t kept = 0;

	if (p->nlosses > 1)
		qsort(p->losses, p->nlosses, sizeof(*p->losses), cmp_loss);
	for (size_t i = 0; i < p->nlosses; i++) {
		struct xr_loss *l = &p->losses[i];

		if (kept && p->losses[kept - 1].ino == l->ino &&
		    p->losses[kept - 1].flags == l->flags) {
			p->losses[kept - 1].blocks += l->blocks;
			continue;
		}
		p->losses[kept++] = *l;
	}
	p->nlosses = kept;
}

/* The blocks of record r (in AG agno) at or past byte end, noted as lost. */
static int note_record(struct xr_rp *rp, uint32_t agno, const struct xa_ownrec *r, uint64_t end)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint64_t first = xfmt_geom_ag_byte(g, agno) + ((uint64_t)r->agbno << g->blocklog);
	uint64_t last = first + ((uint64_t)r->len << g->blocklog);
	uint64_t from;

	if (r->owner >= XFS_RMAP_OWN_MIN || last <= end)
		return 0;
	if (xa_u64set_has(&rp->cleared, r->owner))
		return 0;
	from = first > end ? first : (end & ~(((uint64_t)1 << g->blocklog) - 1));
	return xr_plan_loss(rp->plan, r->owner, r->flags & (XA_OWN_ATTR | XA_OWN_BMBT),
			    (last - from) >> g->blocklog, from);
}

int rp_plan_missing_tail(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	uint64_t end = ctx->input->size, need = ctx->image_size;
	uint64_t blocks = 0;
	int action, rc = 0;

	if (!ctx->truncated || !ctx->tail)
		return 0;
	for (uint32_t a = 0; a < ctx->nags && !rc; a++) {
		const struct xa_ownlist *fwd = xa_own_forward(ctx, a, NULL);

		for (size_t i = 0; fwd && i < fwd->n && !rc; i++)
			rc = note_record(rp, a, &fwd->recs[i], end);
	}
	if (rc)
		return rc;
	merge_losses(rp->plan);
	for (size_t i = 0; i < rp->plan->nlosses; i++)
		blocks += rp->plan->losses[i].blocks;
	action = xr_plan_action(rp->plan, XR_ACT_READ_MISSING_TAIL, XR_NO_AG, 0,
				"the image ends at byte %" PRIu64 " of the %" PRIu64 " the filesystem "
				"needs: the missing end is treated as lost (read as zeros, written as "
				"a hole); %zu file forks kept %" PRIu64 " blocks there, listed in the "
				"report", end, need, rp->plan->nlosses, blocks);
	if (action < 0)
		return action;
	for (size_t i = 0; i < ctx->findings.count && !rc; i++)
		if (ctx->findings.items[i].p.code == XP_imageTruncated)
			rc = rp_answer(rp, action, i);
	return rc;
}
