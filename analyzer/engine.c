/*
 * engine.c - run the ordered passes over an analyzer context (context.c
 * opens and releases it; engine_io.c is how passes read and report).
 *
 * Pass order matters and each pass leaves state for the next:
 *   superblocks  geometry (primary, or a recorded vote of the secondaries)
 *   log          head and tail found: clean or dirty; a dirty log is
 *                replayed into an overlay and every later read goes through
 *                it (the superblocks are then read again, as replayed)
 *   ag-headers   AGF/AGI/AGFL of every AG decoded and verified
 *   btrees       every AG btree walked; free-space and inode records kept
 *   inodes       every inode chunk named by the inobt read and verified
 *   ownership    forward ownership vs the rmapbt and free space (check/)
 *   counters     header counters compared with what the walks counted
 * A pass that cannot run (no geometry) is skipped; findings never stop a run,
 * only an operational error (out of memory) does.
 */
#include "analyzer/engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/lsn_order.h"
#include "analyzer/check/ownership.h"
#include "analyzer/errors.h"
#include "analyzer/scan/passes.h"

/*
 * The log was replayed: the superblocks may have changed with it, so the
 * superblock pass runs again over the replayed image.  Its first findings
 * and results are dropped; the log pass's findings are kept.
 */
static int reread_superblocks(struct xa_ctx *ctx, size_t nsb)
{
	struct xa_findings keep;

	/* Findings before nsb are the first superblock pass's. */
	xa_findings_init(&keep);
	for (size_t i = nsb; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		struct xa_loc loc = { 0, 0, 0, 0, 0, f->what };

		xa_findings_add(&keep, &f->p, &loc);
	}
	xa_findings_release(&ctx->findings);
	ctx->findings = keep;
	if (ctx->ags) {
		for (uint32_t i = 0; i < ctx->nags; i++)
			xa_ag_release(&ctx->ags[i]);
	}
	free(ctx->ags);
	ctx->ags = NULL;
	ctx->nags = 0;
	ctx->ags_in_image = 0;
	memset(&ctx->sb, 0, sizeof(ctx->sb));
	memset(&ctx->geom, 0, sizeof(ctx->geom));
	ctx->sb_primary_ok = false;
	ctx->geom_source = XA_GEOM_NONE;
	ctx->sb_votes_for = ctx->sb_votes_total = 0;
	ctx->truncated = false;
	return xa_pass_superblocks(ctx);
}

static const struct xa_pass xa_passes[] = {
	{ "superblocks", xa_pass_superblocks, XA_RUN_INFO | XA_RUN_CHECK },
	{ "log",         xa_pass_log,         XA_RUN_INFO | XA_RUN_CHECK },
	{ "ag-headers",  xa_pass_ag_headers,  XA_RUN_INFO | XA_RUN_CHECK },
	{ "btrees",      xa_pass_btrees,      XA_RUN_CHECK },
	{ "inodes",      xa_pass_inodes,      XA_RUN_CHECK },
	{ "ownership",   xa_pass_ownership,   XA_RUN_CHECK },
	{ "counters",    xa_pass_counters,    XA_RUN_CHECK },
	{ "namespace",   xa_pass_namespace,   XA_RUN_CHECK },
	{ "lsn-order",   xa_pass_lsn_order,   XA_RUN_CHECK },
};

int xa_run(struct xa_ctx *ctx, unsigned mode)
{
	size_t nsb = 0;

	for (size_t i = 0; i < sizeof(xa_passes) / sizeof(xa_passes[0]); i++) {
		const struct xa_pass *p = &xa_passes[i];
		int rc;

		if (!(p->modes & mode))
			continue;
		/* Without a geometry only the superblock pass can say anything. */
		if (i > 0 && ctx->geom_source == XA_GEOM_NONE)
			break;
		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, p->name, UINT32_MAX, ctx->nags);
		if (p->run == xa_pass_log)
			nsb = ctx->findings.count;
		rc = p->run(ctx);
		if (rc < 0)
			return rc;
		if (p->run == xa_pass_log && ctx->overlay) {
			rc = reread_superblocks(ctx, nsb);
			if (rc < 0)
				return rc;
		}
	}
	/* A claim a bitmap could not keep is a block that looks unclaimed:
	 * the check's verdict on sharing is then not to be given. */
	for (uint32_t a = 0; a < ctx->nags; a++)
		if (ctx->ags[a].claimed.oom)
			return XERR_NOMEM;
	xa_findings_sort(&ctx->findings);
	return 0;
}
