/*
 * dir2_node.c - free-index blocks of node-form directories (XDF3 / v4
 * XD2F): header, bests[] and verifier.  The DA node blocks of the hash tree
 * are in danode.c (shared with attributes), the leafN blocks in
 * dir2_leaf.c.  Facts: xfs-ondisk.md 7.7 and the kernel's
 * xfs_dir3_free_verify / xfs_dir3_free_header_check.  Whether each bests[]
 * value equals its data block's bestfree[0].length is a cross-block check
 * for the namespace pass.
 */
#include "formats/dir2.h"

#include <string.h>

#include "formats/endian.h"
#include "formats/dir2_layout.h"


int xfmt_dir2_free_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_free_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (len < (v5 ? XFMT_DIR3_FREE_HDR : XFMT_DIR2_FREE_HDR))
		return -1;
	out->v5 = v5;
	out->magic = xfmt_get_be32(buf);
	if (v5) {
		out->crc = xfmt_get_le32(buf + 4);
		out->blkno = xfmt_get_be64(buf + 8);
		out->lsn = xfmt_get_be64(buf + 16);
		memcpy(out->uuid, buf + 24, 16);
		out->owner = xfmt_get_be64(buf + 40);
		out->firstdb = xfmt_get_be32(buf + F3_FIRSTDB);
		out->nvalid = xfmt_get_be32(buf + F3_NVALID);
		out->nused = xfmt_get_be32(buf + F3_NUSED);
		out->pad = xfmt_get_be32(buf + F3_PAD);
		out->hdr_len = XFMT_DIR3_FREE_HDR;
	} else {
		out->firstdb = xfmt_get_be32(buf + F2_FIRSTDB);
		out->nvalid = xfmt_get_be32(buf + F2_NVALID);
		out->nused = xfmt_get_be32(buf + F2_NUSED);
		out->hdr_len = XFMT_DIR2_FREE_HDR;
	}
	return 0;
}

int xfmt_dir2_free_best(const uint8_t *buf, size_t len, bool v5, unsigned i, uint16_t *out)
{
	uint64_t off = (v5 ? XFMT_DIR3_FREE_HDR : XFMT_DIR2_FREE_HDR) + (uint64_t)i * 2;

	if (off + 2 > len)
		return -1;
	*out = xfmt_get_be16(buf + off);
	return 0;
}

unsigned xfmt_dir2_free_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink)
{
	struct xfmt_dir2_free_hdr h;
	unsigned n, maxbests, nvalid, used = 0;
	size_t data_hdr = xfmt_dir2_data_hdr_len(g);
	size_t max_best = g->dirblksize > data_hdr ? g->dirblksize - data_hdr : 0;

	n = xfmt_dir3_blkhdr_verify(buf, len, g, g->v5 ? XFS_DIR3_FREE_MAGIC : XFS_DIR2_FREE_MAGIC,
				    exp, sink);
	if (len < g->dirblksize || xfmt_dir2_free_hdr_decode(buf, len, g->v5, &h) < 0)
		return n;
	if (g->v5 && h.pad != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_daNonzeroPad, "pad", F3_PAD, h.pad);

	/* Free block k of the segment covers data blocks k*maxbests onwards. */
	maxbests = xfmt_dir2_free_max_bests(g);
	if (exp->dablk >= xfmt_dir2_free_firstda(g) &&
	    h.firstdb != xfmt_dir2_free_firstdb(g, exp->dablk))
		n += (unsigned)xprob_emit_val(sink, XP_dirFreeBadFirstdb, "firstdb",
					      g->v5 ? F3_FIRSTDB : F2_FIRSTDB,
					      xfmt_dir2_free_firstdb(g, exp->dablk), h.firstdb);
	nvalid = h.nvalid;
	if (nvalid > maxbests) {
		n += (unsigned)xprob_emit_val(sink, XP_dirFreeBadNvalid, "nvalid",
					      g->v5 ? F3_NVALID : F2_NVALID, maxbests, h.nvalid);
		nvalid = maxbests;
	}
	for (unsigned i = 0; i < nvalid; i++) {
		uint16_t best;

		if (xfmt_dir2_free_best(buf, g->dirblksize, g->v5, i, &best) < 0)
			break;
		if (best == XFS_DIR2_NULL_DATAOFF)
			continue;
		used++;
		if (best > max_best || best % XFS_DIR2_DATA_ALIGN)
			n += (unsigned)xprob_emit_val(sink, XP_dirBadBest, "fbests", i, max_best, best);
	}
	if (used != h.nused)
		n += (unsigned)xprob_emit_val(sink, XP_dirFreeBadNused, "nused",
					      g->v5 ? F3_NUSED : F2_NUSED, used, h.nused);
	return n;
}
