/*
 * pass_agheaders.c - the four header sectors of every AG.
 *
 * Checks: each secondary superblock against the chosen geometry (and its
 * CRC), the AGF, AGI and AGFL with every verifier rule, and that the header
 * sectors themselves are claimed once.
 * Leaves: ag->agf / ag->agi decoded with agf_ok / agi_ok / agfl_ok set when
 * the header is usable for walking (right magic and AG number); the per-AG
 * claim bitmap allocated with the header blocks claimed.
 *
 * An AG whose four header sectors are all zero or unreadable (a sparse hole,
 * or a geometry that claims far more AGs than were ever written) is blank:
 * it gets no claim bitmap and no findings of its own, only one imageAgsBlank
 * finding for each run of blank AGs, and the later passes skip it.  So
 * what such an AG costs is its struct xa_ag and four sector reads, never
 * findings or memory in proportion to its size or to the number of them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
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
		xa_note_meta_lsn(ctx, b->data, b->len, &ls.loc);
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
		xa_note_meta_lsn(ctx, b->data, b->len, &ls.loc);
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
		xa_note_meta_lsn(ctx, b->data, b->len, &ls.loc);
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

int xa_ag_blank(struct xa_ctx *ctx, uint32_t agno, uint8_t *buf)
{
	size_t len = 4u * ctx->geom.sectsize;
	int rc = ximg_pread(ctx->img, buf, len, hdr_byte(ctx, agno, 0));

	if (rc == XERR_NOMEM)
		return rc;
	if (rc) {
		/* Some sector failed: the AG is blank only if each one that
		 * can be read is zero. */
		len = ctx->geom.sectsize;
		for (unsigned n = 0; n < 4; n++) {
			rc = ximg_pread(ctx->img, buf, len, hdr_byte(ctx, agno, n));
			if (rc == XERR_NOMEM)
				return rc;
			for (size_t i = 0; rc == 0 && i < len; i++)
				if (buf[i])
					return 0;
		}
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			return 0;
	return 1;
}

/* One finding for the run of blank AGs [first, end). */
static void report_blank_run(struct xa_ctx *ctx, uint32_t first, uint32_t end)
{
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, first, 0, 0,
			      xfmt_geom_ag_byte(&ctx->geom, first), "ag" };

	if (end > first)
		xa_report(ctx, &loc, XP_imageAgsBlank, NULL, 0, end - first - 1,
			  XPROB_HAS_OBSERVED);
}

bool xa_walk_blank_ok(const struct xa_ctx *ctx, uint32_t nblank, uint32_t nreal)
{
	uint64_t agblocks = ctx->geom.agblocks;

	if (!ctx->opts.walk_blank)
		return false;
	return (uint64_t)nblank * agblocks <= 8 * (uint64_t)nreal * agblocks + (1ull << 22);
}

/*
 * Repair walks blank AGs like damaged ones (opts.walk_blank, within the
 * bound of xa_walk_blank_ok), so a whole AG zeroed can be rebuilt; otherwise
 * they stay blank and cost nothing.  Returns 1 to walk them, 0, or a
 * negative xerr.
 */
static int walk_blank_ags(struct xa_ctx *ctx, uint8_t *hdrs)
{
	uint32_t blank = 0;

	if (!ctx->opts.walk_blank)
		return 0;
	for (uint32_t agno = 1; agno < ctx->nags; agno++) {
		int rc = xa_ag_blank(ctx, agno, hdrs);

		if (rc < 0)
			return rc;
		blank += (uint32_t)rc;
	}
	return xa_walk_blank_ok(ctx, blank, ctx->nags - blank);
}

int xa_pass_ag_headers(struct xa_ctx *ctx)
{
	uint8_t *hdrs = malloc(4u * ctx->geom.sectsize);
	uint32_t blank_from = 0;
	bool in_run = false;
	int walk;

	if (!hdrs)
		return XERR_NOMEM;
	walk = walk_blank_ags(ctx, hdrs);
	if (walk < 0) {
		free(hdrs);
		return walk;
	}

	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];
		uint64_t in_image, hdr_blocks;
		int rc;

		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "ag-headers", agno, ctx->nags);
		/* AG 0 holds the superblock the geometry came from (or the
		 * voted one's is checked as usual). */
		if (agno > 0 && !walk) {
			rc = xa_ag_blank(ctx, agno, hdrs);
			if (rc < 0) {
				free(hdrs);
				return rc;
			}
			if (rc == 1) {
				ag->blank = true;
				if (!in_run)
					blank_from = agno;
				in_run = true;
				continue;
			}
		}
		if (in_run)
			report_blank_run(ctx, blank_from, agno);
		in_run = false;
		/* The claim map covers the part of the AG the image really holds. */
		in_image = 0;
		if (xfmt_geom_ag_byte(&ctx->geom, agno) < ctx->image_size)
			in_image = (ctx->image_size - xfmt_geom_ag_byte(&ctx->geom, agno)) >>
				   ctx->geom.blocklog;
		if (in_image > ag->length)
			in_image = ag->length;
		if (xa_bitmap_init(&ag->claimed, in_image) != 0) {
			free(hdrs);
			return XERR_NOMEM;
		}
		hdr_blocks = ((4ull * ctx->geom.sectsize) + ctx->geom.blocksize - 1) >> ctx->geom.blocklog;
		for (uint64_t i = 0; i < hdr_blocks; i++)
			xa_bitmap_set(&ag->claimed, i);

		if (agno > 0) {
			rc = check_secondary(ctx, ag);
		} else {
			ag->sb_ok = ctx->sb_primary_ok;
			rc = 0;
		}
		if (rc || (rc = check_agf(ctx, ag)) || (rc = check_agi(ctx, ag)) ||
		    (rc = check_agfl(ctx, ag))) {
			free(hdrs);
			return rc;
		}
	}
	free(hdrs);
	if (in_run)
		report_blank_run(ctx, blank_from, ctx->nags);
	/* The blank AGs at the end were never allocated (pass_sb.c). */
	if (ctx->nags < ctx->ags_in_image)
		report_blank_run(ctx, ctx->nags, ctx->ags_in_image);
	return 0;
}
