/*
 * pass_agheaders.c - the four header sectors of every AG.
 *
 * Checks: each secondary superblock against the chosen geometry (and its
 * CRC), the AGF, AGI and AGFL with every verifier rule, and that the header
 * sectors themselves are claimed once.
 * Leaves: ag->agf / ag->agi decoded with agf_ok / agi_ok / agfl_ok set when
 * the header is usable for walking (right magic and AG number); the per-AG
 * claim bitmap allocated with the header blocks claimed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/scan/passes.h"
#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/endian.h"
#include "formats/sb.h"

/* Header sector n (0 sb, 1 AGF, 2 AGI, 3 AGFL) of AG agno. */
static uint64_t hdr_byte(const struct xa_ctx *ctx, uint32_t agno, unsigned n)
{
	return xfmt_geom_ag_byte(&ctx->geom, agno) + (uint64_t)n * ctx->geom.sectsize;
}

static void loc_for(struct xa_loc_sink *ls, struct xa_ctx *ctx, uint32_t agno,
		    unsigned n, const char *what)
{
	xa_loc_sink_init(ls, &ctx->findings);
	ls->loc.has = XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE;
	ls->loc.agno = agno;
	ls->loc.agbno = (uint32_t)(((uint64_t)n * ctx->geom.sectsize) >> ctx->geom.blocklog);
	ls->loc.byte = hdr_byte(ctx, agno, n);
	ls->loc.what = what;
}

/* Secondary superblocks: sane on their own, with the geometry we chose. */
static int check_secondary(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	struct xfmt_sb sb;
	int rc;

	loc_for(&ls, ctx, ag->agno, 0, "sb");
	rc = xa_read(ctx, ls.loc.byte, ctx->geom.sectsize, &b, &ls.loc);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (xfmt_sb_decode(b->data, b->len, &sb) != 0 || sb.magicnum != XFS_SB_MAGIC) {
		xa_report(ctx, &ls.loc, XP_sbSecondaryUnreadable, NULL, 0, 0, 0);
	} else {
		unsigned n = xfmt_sb_verify_secondary(b->data, b->len, &sb, &ls.sink);

		n += xfmt_sb_compare_geometry(&ctx->sb, &sb, ag->agno, &ls.sink);
		ag->sb_ok = n == 0;
	}
	xa_put(ctx, &b);
	return 0;
}

static int check_agf(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	int rc;

	loc_for(&ls, ctx, ag->agno, 1, "agf");
	rc = xa_read(ctx, ls.loc.byte, ctx->geom.sectsize, &b, &ls.loc);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (xfmt_agf_decode(b->data, b->len, &ag->agf) == 0) {
		xfmt_agf_verify(b->data, b->len, &ag->agf, &ctx->geom, ag->agno, &ls.sink);
		ag->agf_ok = ag->agf.magicnum == XFS_AGF_MAGIC && ag->agf.seqno == ag->agno;
	}
	xa_put(ctx, &b);
	return 0;
}

static int check_agi(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	int rc;

	loc_for(&ls, ctx, ag->agno, 2, "agi");
	rc = xa_read(ctx, ls.loc.byte, ctx->geom.sectsize, &b, &ls.loc);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (xfmt_agi_decode(b->data, b->len, &ag->agi) == 0) {
		xfmt_agi_verify(b->data, b->len, &ag->agi, &ctx->geom, ag->agno, &ls.sink);
		ag->agi_ok = ag->agi.magicnum == XFS_AGI_MAGIC && ag->agi.seqno == ag->agno;
		for (unsigned i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
			if (ag->agi.unlinked[i] != XFS_NULLAGINO)
				ag->unlinked_heads++;
	}
	xa_put(ctx, &b);
	return 0;
}

static int check_agfl(struct xa_ctx *ctx, struct xa_ag *ag)
{
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	struct xfmt_agfl agfl;
	int rc;

	loc_for(&ls, ctx, ag->agno, 3, "agfl");
	rc = xa_read(ctx, ls.loc.byte, ctx->geom.sectsize, &b, &ls.loc);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (xfmt_agfl_decode(b->data, b->len, &ctx->geom, &agfl) == 0) {
		xfmt_agfl_verify(b->data, b->len, &agfl, ag->agf_ok ? &ag->agf : NULL,
				 &ctx->geom, ag->agno, &ls.sink);
		ag->agfl_ok = !ctx->geom.v5 || agfl.magicnum == XFS_AGFL_MAGIC;
		/* AGFL blocks are in use (owned by the AG); claim them. */
		if (ag->agfl_ok && ag->agf_ok && ag->agf.flcount <= agfl.size) {
			for (uint32_t i = 0; i < ag->agf.flcount; i++) {
				uint32_t bno = xfmt_agfl_active(&agfl, &ag->agf, i);

				if (bno < ag->length)
					xa_bitmap_set(&ag->claimed, bno);
			}
		}
	}
	xa_put(ctx, &b);
	return 0;
}

int xa_pass_ag_headers(struct xa_ctx *ctx)
{
	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];
		uint64_t in_image, hdr_blocks;
		int rc;

		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "ag-headers", agno, ctx->nags);
		/* The claim map covers the part of the AG the image really holds. */
		in_image = 0;
		if (xfmt_geom_ag_byte(&ctx->geom, agno) < ctx->image_size)
			in_image = (ctx->image_size - xfmt_geom_ag_byte(&ctx->geom, agno)) >>
				   ctx->geom.blocklog;
		if (in_image > ag->length)
			in_image = ag->length;
		if (xa_bitmap_init(&ag->claimed, in_image) != 0)
			return XERR_NOMEM;
		hdr_blocks = ((4ull * ctx->geom.sectsize) + ctx->geom.blocksize - 1) >> ctx->geom.blocklog;
		for (uint64_t i = 0; i < hdr_blocks; i++)
			xa_bitmap_set(&ag->claimed, i);

		if (agno > 0) {
			rc = check_secondary(ctx, ag);
			if (rc)
				return rc;
		} else {
			ag->sb_ok = ctx->sb_primary_ok;
		}
		if ((rc = check_agf(ctx, ag)) || (rc = check_agi(ctx, ag)) ||
		    (rc = check_agfl(ctx, ag)))
			return rc;
	}
	return 0;
}
