/*
 * pass_log.c - is the log clean?
 *
 * Finds the head of the internal log by binary search on cycle numbers (the
 * log is written in order, so blocks of the current cycle come before the
 * blocks of the previous one), then the last record header before the head,
 * and calls the log clean when that record is an unmount record ending
 * exactly at the head (xfs-ondisk.md 10.3).  A dirty log is an info finding;
 * replaying it is a later pass.
 * Leaves: ctx->log_checked, ctx->log_dirty, ctx->log_last_lsn.
 */
#include <stdint.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/scan/passes.h"
#include "formats/log.h"

struct logpos {
	struct xa_ctx *ctx;
	uint64_t       start;    /* image byte of log block 0 */
	uint64_t       nbb;      /* log size in 512-byte blocks */
};

/* Cycle of log block bb, or -1 if it cannot be read. */
static int64_t bb_cycle(struct logpos *lp, uint64_t bb)
{
	struct xbuf *b = NULL;
	int64_t cyc;

	if (xa_read(lp->ctx, lp->start + (bb << XFS_BB_SHIFT), XFS_BB_SIZE, &b, NULL) != 0)
		return -1;
	cyc = xfmt_log_block_cycle(b->data);
	xa_put(lp->ctx, &b);
	return cyc;
}

int xa_pass_log(struct xa_ctx *ctx)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "log" };
	struct logpos lp = { ctx, 0, 0 };
	int64_t c0, clast;
	uint64_t lo, hi, head, rec = UINT64_MAX;
	struct xfmt_log_rec r;
	struct xbuf *hb = NULL, *pb = NULL;
	bool clean = false;

	if (g->logstart == 0 || !xfmt_geom_fsb_valid(g, g->logstart))
		return 0;  /* external log, or a bad logstart the sb verifier reported */
	lp.start = xfmt_geom_fsb_byte(g, g->logstart);
	lp.nbb = ((uint64_t)g->logblocks << g->blocklog) >> XFS_BB_SHIFT;
	if (lp.nbb < 2 || lp.start + (lp.nbb << XFS_BB_SHIFT) > ctx->image_size)
		return 0;
	loc.agno = xfmt_geom_fsb_agno(g, g->logstart);
	loc.byte = lp.start;

	c0 = bb_cycle(&lp, 0);
	clast = bb_cycle(&lp, lp.nbb - 1);
	if (c0 < 0 || clast < 0)
		return 0;
	if (clast == c0) {
		head = 0;  /* every block has one cycle: the log wrapped exactly */
	} else {
		/* Find the first block whose cycle differs from block 0's. */
		lo = 0;
		hi = lp.nbb - 1;
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;
			int64_t cm = bb_cycle(&lp, mid);

			if (cm < 0)
				return 0;
			if (cm == c0)
				lo = mid;
			else
				hi = mid;
		}
		head = hi;
	}

	/* Scan back from the head for the last record header; a record is at
	 * most 256 KiB plus its headers, so the scan is bounded. */
	for (uint64_t k = 1; k <= lp.nbb && k <= 2 * (XLOG_MAX_RECORD_BYTES >> XFS_BB_SHIFT); k++) {
		uint64_t bb = (head + lp.nbb - k) % lp.nbb;
		struct xbuf *b = NULL;

		if (xa_read(ctx, lp.start + (bb << XFS_BB_SHIFT), XFS_BB_SIZE, &b, NULL) != 0)
			break;
		if (xfmt_log_rec_decode(b->data, b->len, &r) == 0 && r.magicno == XLOG_HEADER_MAGIC) {
			rec = bb;
			hb = b;
			break;
		}
		xa_put(ctx, &b);
	}
	ctx->log_checked = true;
	if (rec != UINT64_MAX) {
		uint64_t hblks = xfmt_log_rec_hdr_blocks(&r);
		uint64_t after = (rec + hblks + ((uint64_t)r.len + XFS_BB_SIZE - 1) / XFS_BB_SIZE) % lp.nbb;

		ctx->log_last_lsn = r.lsn;

		if (after == head && r.num_logops == 1 && r.len > 0 &&
		    xa_read(ctx, lp.start + (((rec + hblks) % lp.nbb) << XFS_BB_SHIFT), XFS_BB_SIZE,
			    &pb, NULL) == 0) {
			clean = xfmt_log_payload_is_unmount(hb->data, pb->data);
			xa_put(ctx, &pb);
		}
		xa_put(ctx, &hb);
	}
	ctx->log_dirty = !clean;
	if (ctx->log_dirty)
		xa_report(ctx, &loc, XP_imageDirtyLog, NULL, 0, 0, 0);
	return 0;
}
