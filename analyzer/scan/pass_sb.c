/*
 * pass_sb.c - superblocks and the geometry the rest of the run uses.
 *
 * Checks: the primary superblock (every verifier rule, CRC separately), each
 * secondary superblock's geometry against the chosen one, the image size
 * against dblocks.
 * Leaves: ctx->sb, ctx->geom and ctx->geom_source with the vote counts
 * (rule 4: the report says which copy was believed and why), and ctx->ags
 * allocated, one per AG.
 *
 * Vote: every readable superblock whose own geometry is sane casts a vote for
 * its geometry fields.  The primary is believed unless it is unusable or a
 * strict majority of the secondaries agree with each other against it.  When
 * the primary is unusable, candidate secondaries are found by scanning the
 * image for superblock magic at sector boundaries where a secondary of that
 * candidate's own geometry would sit.
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
#include "formats/endian.h"
#include "formats/field.h"
#include "formats/sb.h"

/* Secondaries compared at most; beyond this the vote uses a sample. */
#define SB_VOTE_MAX_READ   1024u
/* How far the scan for a secondary superblock looks when the primary is bad. */
#define SB_SCAN_CHUNK      (1u << 20)

/* Re-labels geometry differences as the primary's, not a secondary's. */
static void outvoted_report(void *arg, const struct xprob *p)
{
	struct xa_loc_sink *ls = arg;
	struct xprob q = *p;

	if (q.code == XP_sbSecondaryMismatch)
		q.code = XP_sbPrimaryFieldOutvoted;
	xa_findings_add(ls->findings, &q, &ls->loc);
}

/* Read and decode the superblock at byte off; 0 on success. */
static int sb_read(struct xa_ctx *ctx, uint64_t off, uint32_t agno,
		   struct xfmt_sb *out, bool verify)
{
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	size_t len = XFS_BB_SIZE;
	uint16_t sectsize;
	int rc;

	xa_loc_sink_init(&ls, &ctx->findings);
	ls.loc.has = XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE;
	ls.loc.agno = agno;
	ls.loc.byte = off;
	ls.loc.what = "sb";

	rc = xa_read(ctx, off, len, &b, verify ? &ls.loc : NULL);
	if (rc)
		return rc;
	if (xfmt_get_be32(b->data) != XFS_SB_MAGIC) {
		if (verify)
			xa_report(ctx, &ls.loc, XP_sbBadMagic, "magicnum", XFS_SB_MAGIC,
				  xfmt_get_be32(b->data),
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		xa_put(ctx, &b);
		return XERR_NOTXFS;
	}
	/* The CRC covers a whole sector: re-read with the sector size it names. */
	sectsize = xfmt_get_be16(b->data + 102);
	if (sectsize > XFS_BB_SIZE && sectsize <= 32768 && !(sectsize & (sectsize - 1)) &&
	    off + sectsize <= ctx->image_size) {
		xa_put(ctx, &b);
		len = sectsize;
		rc = xa_read(ctx, off, len, &b, verify ? &ls.loc : NULL);
		if (rc)
			return rc;
	}
	rc = xfmt_sb_decode(b->data, b->len, out);
	if (rc == 0 && verify)
		xfmt_sb_verify(b->data, b->len, out, &ls.sink);
	xa_put(ctx, &b);
	return rc ? XERR_NOTXFS : 0;
}

/* Two superblocks describe the same filesystem geometry. */
static bool sb_same_geometry(const struct xfmt_sb *a, const struct xfmt_sb *b)
{
	struct xa_findings scratch;
	struct xa_loc_sink ls;
	unsigned n;

	xa_findings_init(&scratch);
	xa_loc_sink_init(&ls, &scratch);
	n = xfmt_sb_compare_geometry(a, b, 0, &ls.sink);
	xa_findings_release(&scratch);
	return n == 0;
}

/* Count, over AG 1.., the secondaries agreeing with cand's geometry. */
static int sb_count_votes(struct xa_ctx *ctx, const struct xfmt_sb *cand,
			  uint32_t *agree, uint32_t *read_ok)
{
	struct xfmt_geom g;
	uint32_t step = 1;

	*agree = 0;
	*read_ok = 0;
	if (xfmt_geom_from_sb(cand, &g) != 0)
		return 0;
	if (g.agcount > SB_VOTE_MAX_READ)
		step = g.agcount / SB_VOTE_MAX_READ + 1;
	for (uint32_t agno = 1; agno < g.agcount; agno += step) {
		uint64_t off = xfmt_geom_ag_byte(&g, agno);
		struct xfmt_sb sb;

		if (off + XFS_BB_SIZE > ctx->image_size)
			break;
		if (sb_read(ctx, off, agno, &sb, false) != 0)
			continue;
		(*read_ok)++;
		if (sb_same_geometry(cand, &sb))
			(*agree)++;
	}
	return 0;
}

/*
 * The primary is unusable: look for a secondary superblock.  A candidate at
 * byte off is accepted only if its own geometry puts AG n exactly there.
 */
static bool sb_find_secondary(struct xa_ctx *ctx, struct xfmt_sb *out)
{
	uint8_t *chunk = malloc(SB_SCAN_CHUNK);
	bool found = false;

	if (!chunk)
		return false;
	for (uint64_t base = 0; base < ctx->image_size && !found; base += SB_SCAN_CHUNK) {
		size_t len = SB_SCAN_CHUNK;

		if (ctx->image_size - base < len)
			len = (size_t)(ctx->image_size - base);
		if (ximg_pread(ctx->img, chunk, len, base) != 0)
			continue;
		for (size_t o = (base == 0 ? XFS_BB_SIZE : 0); o + 264 <= len; o += XFS_BB_SIZE) {
			struct xfmt_sb sb;
			struct xfmt_geom g;
			uint64_t at = base + o, agbytes;

			if (xfmt_get_be32(chunk + o) != XFS_SB_MAGIC)
				continue;
			if (xfmt_sb_decode(chunk + o, len - o, &sb) != 0 ||
			    xfmt_geom_from_sb(&sb, &g) != 0)
				continue;
			agbytes = (uint64_t)g.agblocks << g.blocklog;
			if (agbytes == 0 || at % agbytes != 0 || at / agbytes >= g.agcount)
				continue;
			*out = sb;
			found = true;
			break;
		}
	}
	free(chunk);
	return found;
}

/*
 * One struct xa_ag for each AG the image can show something of.  agcount is
 * trusted only as far as the image holds those AGs: AGs that start past its
 * end are reported by the truncation check, and blank AGs at its end (all
 * header sectors zero or unreadable: a sparse file, or a geometry claiming
 * far more AGs than were ever written) by one imageAgsBlank finding.
 * Neither is allocated, read further or walked.
 */
static int ags_alloc(struct xa_ctx *ctx)
{
	uint64_t agbytes = (uint64_t)ctx->geom.agblocks << ctx->geom.blocklog;
	uint8_t *hdrs;
	uint32_t n;

	/* AGs whose first byte lies in the image. */
	n = ctx->geom.agcount;
	if ((ctx->image_size + agbytes - 1) / agbytes < n)
		n = (uint32_t)((ctx->image_size + agbytes - 1) / agbytes);
	if (n == 0)
		n = 1;
	ctx->ags_in_image = n;
	hdrs = malloc(4u * ctx->geom.sectsize);
	if (!hdrs)
		return XERR_NOMEM;
	for (; n > 1; n--) {
		int rc = xa_ag_blank(ctx, n - 1, hdrs);

		if (rc < 0) {
			free(hdrs);
			return rc;
		}
		if (rc == 0)
			break;
	}
	free(hdrs);
	/* Repair rebuilds blank AGs at the end (zeroed, or the missing end of
	 * a truncated image read as zeros) within a bound. */
	if (xa_walk_blank_ok(ctx, ctx->ags_in_image - n, n))
		n = ctx->ags_in_image;
	ctx->nags = n;
	ctx->ags = calloc(ctx->nags, sizeof(*ctx->ags));
	if (!ctx->ags)
		return XERR_NOMEM;
	for (uint32_t i = 0; i < ctx->nags; i++) {
		ctx->ags[i].agno = i;
		ctx->ags[i].length = xfmt_geom_ag_length(&ctx->geom, i);
	}
	return 0;
}

/* Fields a secondary cannot speak for: the primary's own counters, root
 * and quota inodes, flags and checksum (the rewrite recomputes or judges
 * them itself). */
static bool primary_only_field(const char *name)
{
	static const char *const own[] = {
		"crc", "icount", "ifree", "fdblocks", "frextents", "rootino", "rbmino",
		"rsumino", "uquotino", "gquotino", "pquotino", "qflags", "flags",
		"inprogress", "lsn", "shared_vn", "magicnum",
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return true;
	return false;
}

/* The sb fields the verifier faults in sb (encoded in buf), as a bitmap
 * over xfmt_sb_fields. */
static uint64_t faulted_fields(const uint8_t *buf, size_t len, const struct xfmt_sb *sb,
			       bool primary)
{
	struct xa_findings scratch;
	struct xa_loc_sink ls;
	uint64_t mask = 0;

	xa_findings_init(&scratch);
	xa_loc_sink_init(&ls, &scratch);
	if (primary)
		xfmt_sb_verify(buf, len, sb, &ls.sink);
	else
		xfmt_sb_verify_secondary(buf, len, sb, &ls.sink);
	for (size_t i = 0; i < scratch.count; i++) {
		const char *f = scratch.items[i].p.field;

		if (!f || xprob_severity_of(scratch.items[i].p.code) != XSEV_ERROR)
			continue;
		for (unsigned k = 0; k < 64 && xfmt_sb_fields[k].name; k++)
			if (!strcmp(xfmt_sb_fields[k].name, f))
				mask |= 1ull << k;
	}
	xa_findings_release(&scratch);
	return mask;
}

/*
 * A field of the primary the verifier faults, that is no count or pointer
 * of the primary's own (realtime geometry, log sector size, inode
 * alignment, a feature word with bits no feature has...), has its truth in
 * the secondaries, which mkfs and growfs write alike: the first secondary
 * of the same size and AG layout whose own copy of the field is sound gives
 * it, where the primary's fault then goes away (xfs_repair takes the whole
 * superblock from a secondary then).  ctx->sb, which every later pass
 * reads and the repair writes, gets those fields; the findings on the
 * primary stay.
 */
static void mend_from_secondary(struct xa_ctx *ctx)
{
	size_t len = ctx->sb.sectsize >= XFS_BB_SIZE && ctx->sb.sectsize <= 32768 ?
		     ctx->sb.sectsize : XFS_BB_SIZE;
	uint32_t tries = ctx->sb.agcount < 8 ? ctx->sb.agcount : 8;
	uint8_t *pbuf, *sbuf;
	uint64_t bad;

	pbuf = calloc(2, len);
	if (!pbuf)
		return;
	sbuf = pbuf + len;
	if (xfmt_sb_encode(&ctx->sb, pbuf, len) != 0)
		goto out;
	bad = faulted_fields(pbuf, len, &ctx->sb, true);
	for (unsigned k = 0; k < 64 && xfmt_sb_fields[k].name; k++)
		if (primary_only_field(xfmt_sb_fields[k].name) || xfmt_sb_fields[k].kind == XFK_BIT)
			bad &= ~(1ull << k);
	for (uint32_t a = 1; bad && a < tries; a++) {
		uint64_t off = ((uint64_t)a * ctx->sb.agblocks) << ctx->sb.blocklog, take, still;
		struct xfmt_sb sec, cand;

		if (ctx->sb.blocklog > 16 || sb_read(ctx, off, a, &sec, false) != 0 ||
		    sec.blocksize != ctx->sb.blocksize || sec.agblocks != ctx->sb.agblocks ||
		    sec.agcount != ctx->sb.agcount || sec.dblocks != ctx->sb.dblocks ||
		    xfmt_sb_encode(&sec, sbuf, len) != 0)
			continue;
		take = bad & ~faulted_fields(sbuf, len, &sec, false);
		if (!take)
			continue;
		for (unsigned k = 0; k < 64 && xfmt_sb_fields[k].name; k++)
			if (take & (1ull << k))
				memcpy(pbuf + xfmt_sb_fields[k].off, sbuf + xfmt_sb_fields[k].off,
				       xfmt_sb_fields[k].size);
		if (xfmt_sb_decode(pbuf, len, &cand) != 0 || xfmt_sb_encode(&cand, pbuf, len) != 0)
			break;
		/* keep what the primary's verifier now accepts, put back the rest */
		still = faulted_fields(pbuf, len, &cand, true) & take;
		if (xfmt_sb_encode(&ctx->sb, sbuf, len) != 0)
			break;
		for (unsigned k = 0; k < 64 && xfmt_sb_fields[k].name; k++)
			if (still & (1ull << k))
				memcpy(pbuf + xfmt_sb_fields[k].off, sbuf + xfmt_sb_fields[k].off,
				       xfmt_sb_fields[k].size);
		if (xfmt_sb_decode(pbuf, len, &cand) != 0)
			break;
		ctx->sb = cand;
		bad &= ~(take & ~still);
		if (xfmt_sb_encode(&ctx->sb, pbuf, len) != 0)
			break;
	}
out:
	free(pbuf);
}

int xa_pass_superblocks(struct xa_ctx *ctx)
{
	struct xfmt_sb primary, chosen;
	struct xfmt_geom g;
	bool primary_ok = false;
	uint32_t agree = 0, total = 0;
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "sb" };
	struct xa_loc_sink ls;
	int rc;

	xa_loc_sink_init(&ls, &ctx->findings);
	ls.loc = loc;
	ls.sink.report = outvoted_report;

	rc = sb_read(ctx, 0, 0, &primary, true);
	if (rc == XERR_NOMEM)
		return rc;
	if (rc == 0 && xfmt_geom_from_sb(&primary, &g) == 0)
		primary_ok = true;
	ctx->sb_primary_ok = primary_ok;

	if (primary_ok) {
		chosen = primary;
		sb_count_votes(ctx, &primary, &agree, &total);
		/*
		 * Fewer than half of the secondaries the primary's geometry
		 * predicts confirm it: either they disagree, or they are not
		 * where it says (a corrupt agblocks moves them all).  Look for
		 * a secondary by scanning, and let the larger camp win.
		 */
		if (g.agcount > 1 && agree * 2 < g.agcount - 1) {
			struct xfmt_sb alt;

			if (sb_find_secondary(ctx, &alt) && !sb_same_geometry(&alt, &primary)) {
				uint32_t a2, t2;

				sb_count_votes(ctx, &alt, &a2, &t2);
				if (a2 > agree) {
					xa_report(ctx, &loc, XP_sbPrimaryOutvoted, "geometry",
						  a2, agree,
						  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
					xfmt_sb_compare_geometry(&alt, &primary, 0, &ls.sink);
					chosen = alt;
					agree = a2;
					total = t2;
					ctx->geom_source = XA_GEOM_VOTE;
				}
			}
		}
		if (ctx->geom_source != XA_GEOM_VOTE)
			ctx->geom_source = XA_GEOM_PRIMARY;
		ctx->sb_votes_for = agree + (ctx->geom_source == XA_GEOM_PRIMARY);
		ctx->sb_votes_total = total + 1;
	} else {
		struct xfmt_sb alt;

		if (!sb_find_secondary(ctx, &alt)) {
			ctx->geom_source = XA_GEOM_NONE;
			return rc == XERR_NOTXFS || rc == 0 ? XERR_NOTXFS : 0;
		}
		sb_count_votes(ctx, &alt, &agree, &total);
		xa_report(ctx, &loc, XP_sbGeometryFromVote, NULL, 0, agree, XPROB_HAS_OBSERVED);
		chosen = alt;
		ctx->geom_source = XA_GEOM_VOTE;
		ctx->sb_votes_for = agree;
		ctx->sb_votes_total = total + 1;
	}

	ctx->sb = chosen;
	if (ctx->geom_source == XA_GEOM_PRIMARY)
		mend_from_secondary(ctx);
	if (ctx->geom_source == XA_GEOM_VOTE) {
		/* The secondary carries no counters or root inode of its own
		 * worth trusting; keep the primary's where it was readable. */
		ctx->sb.inprogress = 0;
		if (rc == 0) {
			ctx->sb.rootino = primary.rootino;
			/* and its realtime inodes where they sit after its root
			 * (a secondary names none) */
			if (primary.rbmino == primary.rootino + 1 &&
			    primary.rsumino == primary.rootino + 2) {
				ctx->sb.rbmino = primary.rbmino;
				ctx->sb.rsumino = primary.rsumino;
			}
			ctx->sb.icount = primary.icount;
			ctx->sb.ifree = primary.ifree;
			ctx->sb.fdblocks = primary.fdblocks;
		}
	}
	/* With a metadata directory tree the superblock names no realtime
	 * inode (its fields are 0 on disk): none, as the kernel reads them. */
	if (xfmt_sb_is_v5(&ctx->sb) && (ctx->sb.features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR)) {
		ctx->sb.rbmino = XFS_NULLFSINO;
		ctx->sb.rsumino = XFS_NULLFSINO;
	}
	/* The realtime bitmap and summary inodes are the two after the root
	 * (mkfs puts them there; sbSysInoMisplaced says where the primary
	 * points instead): every later pass judges against where they are. */
	if (ctx->sb.rootino != XFS_NULLFSINO && ctx->sb.rootino != 0 &&
	    ctx->sb.rbmino != XFS_NULLFSINO && ctx->sb.rsumino != XFS_NULLFSINO) {
		bool bm_ok = ctx->sb.rbmino == ctx->sb.rootino + 1;
		bool sum_ok = ctx->sb.rsumino == ctx->sb.rootino + 2;
		bool paired = ctx->sb.rbmino + 1 == ctx->sb.rsumino;

		/* (as the verifier judges: a pair that follows each other
		 * away from the root leaves the root in doubt instead) */
		if (!bm_ok && (sum_ok || !paired))
			ctx->sb.rbmino = ctx->sb.rootino + 1;
		if (!sum_ok && (bm_ok || !paired))
			ctx->sb.rsumino = ctx->sb.rootino + 2;
	}
	if (xfmt_geom_from_sb(&ctx->sb, &ctx->geom) != 0) {
		ctx->geom_source = XA_GEOM_NONE;
		return 0;
	}

	{
		uint64_t need = ctx->geom.dblocks << ctx->geom.blocklog;

		if (need > ctx->image_size) {
			ctx->truncated = true;
			xa_report(ctx, &loc, XP_imageTruncated, NULL, need, ctx->image_size,
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
			/* Repair works with what exists: the missing end reads as
			 * zeros, so its AGs are walked and rebuilt like zeroed ones. */
			if (ctx->opts.zero_tail) {
				rc = xa_ctx_use_zero_tail(ctx, need);
				if (rc)
					return rc;
			}
		}
	}
	if (ctx->input && ctx->input->clipped)
		xa_report(ctx, &loc, XP_imageZstdClipped, NULL, ctx->input->size, 0,
			  XPROB_HAS_EXPECTED);
	return ags_alloc(ctx);
}
