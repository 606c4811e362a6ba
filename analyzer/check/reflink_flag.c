/*
 * reflink_flag.c - shared blocks under inodes without the reflink flag
 * (see reflink_flag.h).
 *
 * The refcountbt's records are merged into a sorted list of disjoint shared
 * ranges once per AG; each data-fork record then costs one binary search,
 * so a hostile tree or fork cannot make this quadratic.
 */
#include "analyzer/check/reflink_flag.h"

#include <stdbool.h>
#include <stdlib.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"

struct range {
	uint64_t start, end;   /* [start, end) in AG blocks */
};

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Does [start, end) meet one of the n disjoint, sorted ranges? */
static bool meets(const struct range *r, size_t n, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = n;

	/* the last range starting before end */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].start < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && r[lo - 1].end > start;
}

/* Only regular files carry the flag (the kernel's verifier refuses it on
 * anything else); blocks shared with a directory are a cross-link. */
static bool regular_file(struct xa_ctx *ctx, uint64_t ino)
{
	const struct xa_irec *ir = xa_irec_find(ctx, ino);

	return ir && (ir->mode & 0170000u) == 0100000u;
}

int xa_check_reflink_flags(struct xa_ctx *ctx, uint32_t agno, const struct xa_ownlist *fwd,
			   const struct xa_ownlist *refc, const struct xa_u64set *flagged,
			   struct xa_u64set *reported)
{
	uint64_t ag_len = agno < ctx->nags ? ctx->ags[agno].length : 0;
	struct range *r;
	size_t n = 0, m = 0;
	int rc = 0;

	if (!refc->n)
		return 0;
	r = malloc(refc->n * sizeof(*r));
	if (!r)
		return XERR_NOMEM;
	/* A record running past the AG is damage (btBadRecord), not evidence
	 * of sharing: it would flag every file after its start. */
	for (size_t i = 0; i < refc->n; i++)
		if (refc->recs[i].owner >= 2 && refc->recs[i].len &&
		    (uint64_t)refc->recs[i].agbno + refc->recs[i].len <= ag_len)
			r[n++] = (struct range){ refc->recs[i].agbno,
						 (uint64_t)refc->recs[i].agbno + refc->recs[i].len };
	qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < n; i++) {
		if (m && r[i].start <= r[m - 1].end) {
			if (r[i].end > r[m - 1].end)
				r[m - 1].end = r[i].end;
		} else {
			r[m++] = r[i];
		}
	}
	for (size_t i = 0; i < fwd->n && !rc; i++) {
		const struct xa_ownrec *o = &fwd->recs[i];
		struct xa_loc loc = { XPROB_HAS_INO, agno, 0, o->owner, 0, "inode" };

		if (xa_owner_is_special(o->owner) || (o->flags & (XA_OWN_ATTR | XA_OWN_BMBT)) ||
		    xa_u64set_has(flagged, o->owner) || xa_u64set_has(reported, o->owner) ||
		    !meets(r, m, o->agbno, (uint64_t)o->agbno + o->len) || !regular_file(ctx, o->owner))
			continue;
		if (xa_u64set_add(reported, o->owner) < 0) {
			rc = XERR_NOMEM;
			break;
		}
		loc.byte = xfmt_geom_ino_byte(&ctx->geom, o->owner);
		loc.has |= XPROB_HAS_BYTE;
		xa_report(ctx, &loc, XP_inoReflinkFlagMissing, "core.flags2", 0, 0, 0);
	}
	free(r);
	return rc;
}
