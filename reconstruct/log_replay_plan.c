/*
 * log_replay_plan.c - replayed sectors into the plan, around the changes
 * already planned (see log_replay_plan.h).
 *
 * Why gaps and not a later overwrite: plan changes never overlap
 * (xr_plan_write refuses a partial overlap), and a change the planner
 * made from the replayed view already includes what the replay put in its
 * range.  So each overlay run is cut around the planned ranges.
 */
#include "reconstruct/log_replay_plan.h"

#include <stdint.h>
#include <stdlib.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/overlay.h"
#include "reconstruct/plan.h"

struct span {
	uint64_t off, end;
};

struct gaps {
	struct xr_plan *plan;
	int             action;
	struct span    *taken;   /* planned ranges, sorted by offset */
	size_t          ntaken;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Write [off, end) of the run (run starts at base) if not empty. */
static int put(struct gaps *g, uint64_t base, const uint8_t *bytes, uint64_t off, uint64_t end)
{
	if (end <= off)
		return 0;
	return xr_plan_write(g->plan, g->action, "log-replay", XR_NO_AG, 0, 0, off,
			     bytes + (off - base), (size_t)(end - off));
}

static int on_run(void *arg, uint64_t off, const uint8_t *bytes, size_t len)
{
	struct gaps *g = arg;
	uint64_t cur = off, end = off + len;
	size_t lo = 0, hi = g->ntaken;
	int rc;

	/* First planned range that ends after the run starts. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->taken[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < g->ntaken && g->taken[i].off < end; i++) {
		rc = put(g, off, bytes, cur, g->taken[i].off < end ? g->taken[i].off : end);
		if (rc)
			return rc;
		if (g->taken[i].end > cur)
			cur = g->taken[i].end;
	}
	return cur < end ? put(g, off, bytes, cur, end) : 0;
}

int xr_log_replay_plan(struct xa_ctx *ctx, struct xr_plan *plan, int action)
{
	struct gaps g = { plan, action, NULL, 0 };
	int rc;

	if (!ctx->overlay)
		return 0;
	if (plan->nchanges) {
		g.taken = malloc(plan->nchanges * sizeof(*g.taken));
		if (!g.taken)
			return XERR_NOMEM;
		for (size_t i = 0; i < plan->nchanges; i++)
			g.taken[g.ntaken++] = (struct span){ plan->changes[i].offset,
							     plan->changes[i].offset + plan->changes[i].len };
		if (g.ntaken > 1)  /* qsort(NULL, 0, ...) is undefined */
			qsort(g.taken, g.ntaken, sizeof(*g.taken), cmp_span);
	}
	rc = ximg_overlay_each(ctx->overlay, on_run, &g);
	free(g.taken);
	return rc;
}
