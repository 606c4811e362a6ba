/*
 * pass_counters.c - header counters against what the walks counted.
 *
 * Checks: AGF freeblks, longest, btreeblks, rmap_blocks, refcount_blocks;
 * that bnobt and cntbt index the same extents; AGI count, freecount,
 * iblocks, fblocks; the superblock's icount, ifree and fdblocks against the
 * sum over the AGs.  A counter is compared only when every tree it depends
 * on was walked completely: a broken tree is reported once, by the walk,
 * not again as a wrong total.  Superblock counters are compared only when
 * the log is clean: with lazy counters a dirty log leaves them stale by
 * design.
 * Leaves: nothing.
 */
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/scan/passes.h"

static void cmp(struct xa_ctx *ctx, const struct xa_loc *loc, enum xprob_code code,
		const char *field, uint64_t expected, uint64_t observed)
{
	if (expected != observed)
		xa_report(ctx, loc, code, field, expected, observed,
			  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
}

static void check_agf_counts(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc loc = {
		XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, 0, 0,
		xfmt_geom_ag_byte(&ctx->geom, ag->agno) + ctx->geom.sectsize, "agf",
	};
	const struct xa_btree_sum *bno = &ag->bt[XA_BT_BNO], *cnt = &ag->bt[XA_BT_CNT];
	const struct xa_btree_sum *rmap = &ag->bt[XA_BT_RMAP], *refc = &ag->bt[XA_BT_REFC];
	bool has_rmap = xfmt_geom_has_rmapbt(&ctx->geom);

	if (!ag->agf_ok)
		return;
	if (bno->walked) {
		cmp(ctx, &loc, XP_cntAgfFreeblks, "freeblks", ag->free_blocks, ag->agf.freeblks);
		cmp(ctx, &loc, XP_cntAgfLongest, "longest", ag->longest_free, ag->agf.longest);
	}
	if (bno->walked && cnt->walked) {
		if (ag->bno_recs != ag->cnt_recs)
			cmp(ctx, &loc, XP_cntFreeTreesDiffer, "records", ag->bno_recs, ag->cnt_recs);
		else if (ag->free_blocks != ag->cnt_free_blocks)
			cmp(ctx, &loc, XP_cntFreeTreesDiffer, "blocks", ag->free_blocks,
			    ag->cnt_free_blocks);
		else if (ag->bno_digest != ag->cnt_digest)
			xa_report(ctx, &loc, XP_cntFreeTreesDiffer, "extents", 0, 0, 0);
		if (!has_rmap || rmap->walked) {
			uint64_t want = (bno->blocks - 1) + (cnt->blocks - 1) +
					(has_rmap ? rmap->blocks - 1 : 0);
			cmp(ctx, &loc, XP_cntAgfBtreeblks, "btreeblks", want, ag->agf.btreeblks);
		}
	}
	if (has_rmap && rmap->walked)
		cmp(ctx, &loc, XP_cntAgfBtreeblks, "rmap_blocks", rmap->blocks, ag->agf.rmap_blocks);
	if (xfmt_geom_has_reflink(&ctx->geom) && refc->walked)
		cmp(ctx, &loc, XP_cntAgfBtreeblks, "refcount_blocks", refc->blocks,
		    ag->agf.refcount_blocks);
}

static void check_agi_counts(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc loc = {
		XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, 0, 0,
		xfmt_geom_ag_byte(&ctx->geom, ag->agno) + 2ull * ctx->geom.sectsize, "agi",
	};
	const struct xa_btree_sum *ino = &ag->bt[XA_BT_INO], *fino = &ag->bt[XA_BT_FINO];

	if (!ag->agi_ok || !ino->walked)
		return;
	cmp(ctx, &loc, XP_cntAgiCount, "count", ag->inodes, ag->agi.count);
	cmp(ctx, &loc, XP_cntAgiCount, "freecount", ag->free_inodes, ag->agi.freecount);
	if (xfmt_geom_has_inobtcnt(&ctx->geom)) {
		cmp(ctx, &loc, XP_cntAgiBlocks, "iblocks", ino->blocks, ag->agi.iblocks);
		if (fino->walked)
			cmp(ctx, &loc, XP_cntAgiBlocks, "fblocks", fino->blocks, ag->agi.fblocks);
	}
}

static void check_sb_counts(struct xa_ctx *ctx)
{
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "sb" };
	uint64_t icount = 0, ifree = 0, fdblocks = 0;

	if (ctx->geom_source != XA_GEOM_PRIMARY || !ctx->log_checked || ctx->log_dirty ||
	    ctx->nags != ctx->geom.agcount)
		return;
	/* Sum what the walks counted, falling back to a header's own value
	 * where its tree could not be walked: a wrong AG counter is reported
	 * once, at the AG, not again here. */
	for (uint32_t i = 0; i < ctx->nags; i++) {
		const struct xa_ag *ag = &ctx->ags[i];
		const struct xa_btree_sum *bno = &ag->bt[XA_BT_BNO], *cnt = &ag->bt[XA_BT_CNT];
		const struct xa_btree_sum *rmap = &ag->bt[XA_BT_RMAP];
		bool has_rmap = xfmt_geom_has_rmapbt(&ctx->geom);

		if (!ag->agf_ok || !ag->agi_ok)
			return;
		icount += ag->bt[XA_BT_INO].walked ? ag->inodes : ag->agi.count;
		ifree += ag->bt[XA_BT_INO].walked ? ag->free_inodes : ag->agi.freecount;
		fdblocks += (bno->walked ? ag->free_blocks : ag->agf.freeblks) + ag->agf.flcount;
		if (bno->walked && cnt->walked && (!has_rmap || rmap->walked))
			fdblocks += (bno->blocks - 1) + (cnt->blocks - 1) +
				    (has_rmap ? rmap->blocks - 1 : 0);
		else
			fdblocks += ag->agf.btreeblks;
	}
	cmp(ctx, &loc, XP_cntSbCounter, "icount", icount, ctx->sb.icount);
	cmp(ctx, &loc, XP_cntSbCounter, "ifree", ifree, ctx->sb.ifree);
	cmp(ctx, &loc, XP_cntSbCounter, "fdblocks", fdblocks, ctx->sb.fdblocks);
}

int xa_pass_counters(struct xa_ctx *ctx)
{
	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		check_agf_counts(ctx, &ctx->ags[agno]);
		check_agi_counts(ctx, &ctx->ags[agno]);
	}
	check_sb_counts(ctx);
	return 0;
}
