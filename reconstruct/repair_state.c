/*
 * repair_state.c - what every phase of the repair planner asks of the
 * shared state (repair_int.h): answer a finding, mark an AG for rebuild,
 * plan an inode's core, and the questions about an inode or AG the phases
 * share (is it allocated, is it metadata, were its records dropped, may its
 * AG be rebuilt at all).  It calls no phase: the phases call it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/dinode.h"
#include "formats/geom.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

int rp_answer(struct xr_rp *rp, int action, size_t fi)
{
	int rc;

	if (fi >= rp->ctx->findings.count)
		return XERR_USAGE;
	rc = xr_plan_answer(rp->plan, action, fi, rp->ctx->findings.items[fi].p.code);
	if (!rc)
		rp->answered[fi] = true;
	return rc;
}

void rp_need_rebuild(struct xr_rp *rp, uint32_t agno)
{
	if (agno < rp->ctx->nags)
		rp->ags[agno].rebuild = true;
}

bool rp_record_dropped(const struct xr_rp *rp, uint64_t owner, uint32_t flags)
{
	if (xa_owner_is_special(owner))
		return false;
	if (xa_u64set_has(&rp->cleared, owner))
		return true;
	if (flags & XA_OWN_ATTR)
		return xa_u64set_has(&rp->attr_dropped, owner);
	return xa_u64set_has(&rp->dir_rewritten, owner);
}

int rp_irec_insert(struct xa_ctx *ctx, uint64_t ino, uint16_t mode)
{
	size_t lo = 0, hi = ctx->nirecs;

	if (ctx->nirecs == ctx->irecs_cap) {
		size_t ncap = ctx->irecs_cap ? ctx->irecs_cap * 2 : 64;
		struct xa_irec *n = realloc(ctx->irecs, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		ctx->irecs = n;
		ctx->irecs_cap = ncap;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->irecs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(ctx->irecs + lo + 1, ctx->irecs + lo, (ctx->nirecs - lo) * sizeof(*ctx->irecs));
	memset(&ctx->irecs[lo], 0, sizeof(ctx->irecs[lo]));
	ctx->irecs[lo].ino = ino;
	ctx->irecs[lo].mode = mode;
	ctx->irecs[lo].nlink = 0;
	ctx->nirecs++;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

int rp_irec_insert_many(struct xa_ctx *ctx, uint64_t *inos, size_t n, uint16_t mode)
{
	size_t i, j, k;

	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof(*ctx->irecs) - ctx->nirecs)
		return XERR_NOMEM;
	if (ctx->nirecs + n > ctx->irecs_cap) {
		struct xa_irec *nv = realloc(ctx->irecs, (ctx->nirecs + n) * sizeof(*nv));

		if (!nv)
			return XERR_NOMEM;
		ctx->irecs = nv;
		ctx->irecs_cap = ctx->nirecs + n;
	}
	qsort(inos, n, sizeof(*inos), cmp_u64);
	/* Merge from the back: the old records move once, the new fill in. */
	i = ctx->nirecs;
	j = n;
	k = ctx->nirecs + n;
	while (j > 0) {
		if (i > 0 && ctx->irecs[i - 1].ino > inos[j - 1]) {
			ctx->irecs[--k] = ctx->irecs[--i];
			continue;
		}
		k--;
		j--;
		memset(&ctx->irecs[k], 0, sizeof(ctx->irecs[k]));
		ctx->irecs[k].ino = inos[j];
		ctx->irecs[k].mode = mode;
	}
	ctx->nirecs += n;
	return 0;
}

int rp_write_inode(struct xr_rp *rp, int action, uint64_t ino, const uint8_t *buf)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	uint64_t byte = xfmt_geom_ino_byte(g, ino);

	return xr_plan_write(rp->plan, action, "inode", agno,
			     (uint32_t)((byte - xfmt_geom_ag_byte(g, agno)) >> g->blocklog), ino, byte,
			     buf, g->inodesize);
}

uint64_t rp_attr_blocks(const struct xr_rp *rp, uint64_t ino)
{
	uint64_t n = 0;

	if (xa_u64set_has(&rp->attr_dropped, ino))
		return 0;
	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		const struct xa_ownlist *l = xa_own_forward(rp->ctx, a, NULL);

		for (size_t i = 0; l && i < l->n; i++)
			if (l->recs[i].owner == ino && (l->recs[i].flags & XA_OWN_ATTR))
				n += l->recs[i].len;
	}
	return n;
}

static int count_none(void *arg, const struct xfmt_bmbt_rec *r)
{
	(void)arg;
	(void)r;
	return 0;
}

bool rp_data_blocks(struct xr_rp *rp, uint64_t ino, const uint8_t *raw,
		    const struct xfmt_dinode *d, uint64_t *n)
{
	struct xa_fork_result res;

	*n = 0;
	if (d->format != XFS_DINODE_FMT_EXTENTS && d->format != XFS_DINODE_FMT_BTREE)
		return d->format == XFS_DINODE_FMT_LOCAL || d->format == XFS_DINODE_FMT_DEV;
	memset(&res, 0, sizeof(res));
	if (xa_fork_walk(rp->ctx, ino, raw, d, XA_DATA_FORK, false, count_none, NULL, &res) != 0 ||
	    !res.complete)
		return false;
	*n = res.mapped_blocks + res.bmbt_blocks;
	return true;
}

bool rp_is_bmbt_finding(const struct xa_finding *f)
{
	return rp_family(f->p.code) == FAM_BTREE && (f->p.has & XPROB_HAS_INO) && f->what &&
	       strncmp(f->what, "bmbt", 4) == 0;
}

int rp_answer_entries(struct xr_rp *rp, int action, uint64_t ino)
{
	const struct xa_findings *f = &rp->ctx->findings;

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];

		if (x->p.code == XP_nsEntryBadInode && (x->p.has & XPROB_HAS_OBSERVED) &&
		    x->p.observed == ino) {
			int rc = rp_answer(rp, action, i);

			if (rc)
				return rc;
		}
	}
	return 0;
}

bool rp_inobt_says_used(const struct xa_ctx *ctx, uint64_t ino)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	uint32_t agino = xfmt_geom_ino_agino(g, ino);
	const struct xa_ag *ag;

	if (agno >= ctx->nags)
		return false;
	ag = &ctx->ags[agno];
	if (ag->chunks_from_rmap || ag->chunks_from_scan)
		return false;  /* free masks unknown: no word on this inode */
	for (size_t i = 0; i < ag->nchunks; i++) {
		const struct xa_ichunk *c = &ag->chunks[i];

		if (agino >= c->startino && agino < c->startino + 64)
			return !((c->free >> (agino - c->startino)) & 1);
	}
	return false;
}


static const char *ag_blocked_compute(struct xr_rp *rp, uint32_t agno)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xa_ag *ag = &ctx->ags[agno];

	if (!xa_own_forward(ctx, agno, NULL))
		return "no ownership was collected";
	if (!xa_ag_chunks_known(ag))
		return "the inode btree could not be read and the inode chunks could not be found";
	/* Chunks taken from the rmapbt or a scan of the AG owe nothing to the
	 * inode btree's records, damaged or not. */
	if (ag->chunks_from_rmap || ag->chunks_from_scan)
		return NULL;
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];

		/* Counts and finobt disagreement do not matter (free masks are
		 * taken from the inode cores); where a chunk is, does, but only
		 * as the inode btree says it: the chunks come from there, and a
		 * damaged free inode btree is rebuilt from them. */
		if (f->what && !strcmp(f->what, "finobt"))
			continue;
		if ((f->p.code == XP_ichunkMisaligned || f->p.code == XP_ichunkOutsideAg ||
		     f->p.code == XP_ichunkOverlapsMetadata || f->p.code == XP_ichunkBadHolemask) &&
		    (f->p.has & XPROB_HAS_AG) && f->p.agno == agno)
			return "inode chunk records are damaged";
	}
	return NULL;
}

const char *rp_ag_blocked(struct xr_rp *rp, uint32_t agno)
{
	struct rp_ag *ra = &rp->ags[agno];

	/* Asked for every allocation: the answer does not change. */
	if (!ra->blocked_known) {
		ra->blocked_why = ag_blocked_compute(rp, agno);
		ra->blocked_known = true;
	}
	return ra->blocked_why;
}

/* Inode ino as the plan leaves it (an earlier phase may have mended it). */
int rp_read_planned_inode(struct xr_rp *rp, uint64_t ino, struct xa_inode *ip)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	memset(ip, 0, sizeof(*ip));
	ip->raw = malloc(g->inodesize);
	if (!ip->raw)
		return XERR_NOMEM;
	ip->ino = ino;
	ip->len = g->inodesize;
	if (xr_plan_read(rp->plan, rp->ctx, xfmt_geom_ino_byte(g, ino), ip->raw, g->inodesize) != 0 ||
	    xfmt_dinode_decode(ip->raw, ip->len, g, &ip->d) != 0 || ip->d.magic != XFS_DINODE_MAGIC) {
		xa_inode_release(ip);
		return XERR_FORMAT;
	}
	return 0;
}
