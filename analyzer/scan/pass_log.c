/*
 * pass_log.c - is the log clean, and if not, what does it hold?
 *
 * Finds head and tail of the internal log (log_scan.c), calls the log clean
 * when the last record is an unmount record ending at the head, and for a
 * dirty log walks the records from tail to head: counting records and
 * committed transactions, reporting torn writes, damage and unfinished
 * intents, and, unless the options say no replay, replaying it
 * (log_replay.c) into an overlay through which every later pass, view and
 * the repair planner read.
 * Leaves: ctx->log_checked, ctx->log_dirty, ctx->log_last_lsn, ctx->log
 * (bounds, walk, replay counts) and, after a replay, ctx->overlay.
 */
#include <stdint.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/overlay.h"
#include "analyzer/scan/passes.h"

int xa_pass_log(struct xa_ctx *ctx)
{
	struct xa_log_state *ls = &ctx->log;
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "log" };
	struct ximg_overlay *ov = NULL;
	int rc;

	if (xa_log_locate(ctx, &ls->pos) != 0) {
		/* An external log nobody gave: say it went unread (it may be
		 * dirty).  Else a bad logstart the sb verifier reported. */
		if (ctx->geom_source != XA_GEOM_NONE && ctx->geom.logstart == 0) {
			loc.has = 0;
			xa_report(ctx, &loc, ctx->logdev ? XP_logExternalTooSmall : XP_logExternalUnread,
				  NULL, ((uint64_t)ctx->geom.logblocks << ctx->geom.blocklog),
				  ctx->logdev ? ctx->logdev->size : 0,
				  ctx->logdev ? XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED : 0);
		}
		return 0;
	}
	if (ls->pos.external) {
		loc.has = XPROB_HAS_BYTE;
		loc.what = "external log";
	} else {
		loc.agno = xfmt_geom_fsb_agno(&ctx->geom, ctx->geom.logstart);
	}
	loc.byte = ls->pos.start;
	rc = xa_log_find(ctx, &ls->pos, &ls->bounds);
	if (rc == XERR_NOMEM)
		return rc;
	if (rc)
		return 0;  /* unreadable: the read error is the finding */
	ls->present = true;
	ctx->log_checked = true;
	ctx->log_last_lsn = ls->bounds.found ? ls->bounds.last_lsn : 0;
	ctx->log_dirty = !ls->bounds.clean;
	if (!ctx->log_dirty)
		return 0;
	xa_report(ctx, &loc, XP_imageDirtyLog, NULL, 0, 0, 0);
	if (!ls->bounds.found)
		return 0;

	rc = xa_log_replay(ctx, &ls->pos, &ls->bounds, !ctx->opts.no_replay, &ov, &ls->walk, &ls->st);
	if (rc == XERR_NOMEM)
		return rc;
	if (rc)
		return 0;
	if (ov) {
		rc = xa_ctx_use_overlay(ctx, ov);
		if (rc) {
			ximg_overlay_free(&ov);
			return rc;
		}
		ls->replayed = true;
	}
	return 0;
}
