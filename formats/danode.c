/*
 * danode.c - DA btree block header (blkinfo) and DA node blocks, shared by
 * directories and attribute forks.  Facts: xfs-ondisk.md 7.5/7.6, the
 * kernel's xfs_da3_blkinfo_verify and xfs_da3_node_verify.  Unlike the
 * kernel, every failed check is reported, and the hash order of the node's
 * entries is checked too.
 */
#include "formats/danode.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"

int xfmt_da_blkinfo_decode(const uint8_t *buf, size_t len, bool v5,
			   struct xfmt_da_blkinfo *out)
{
	memset(out, 0, sizeof(*out));
	if (len < (v5 ? XFMT_DA_BLKINFO_V5 : XFMT_DA_BLKINFO_V4))
		return -1;
	out->v5 = v5;
	out->forw = xfmt_get_be32(buf + DA_FORW);
	out->back = xfmt_get_be32(buf + DA_BACK);
	out->magic = xfmt_get_be16(buf + DA_MAGIC);
	out->pad = xfmt_get_be16(buf + DA_PAD);
	if (v5) {
		out->crc = xfmt_get_le32(buf + DA_CRC);
		out->blkno = xfmt_get_be64(buf + DA_BLKNO);
		out->lsn = xfmt_get_be64(buf + DA_LSN);
		memcpy(out->uuid, buf + DA_UUID, 16);
		out->owner = xfmt_get_be64(buf + DA_OWNER);
	}
	return 0;
}

/* A fork block number a sibling or child pointer may hold. */
static bool da_blk_in_range(const struct xfmt_da_expect *exp, uint32_t blk)
{
	if (exp->blk_hi == 0)
		return true;
	return blk >= exp->blk_lo && blk < exp->blk_hi;
}

static unsigned da_check_sibling(uint32_t v, const char *name, size_t off,
				 const struct xfmt_da_expect *exp,
				 const struct xprob_sink *sink)
{
	if (v == 0)
		return 0;
	if (v == exp->dablk || !da_blk_in_range(exp, v))
		return (unsigned)xprob_emit_obs(sink, XP_daBadSibling, name, off, v);
	return 0;
}

unsigned xfmt_da_blkinfo_verify(const uint8_t *buf, size_t len, size_t blksize,
				const struct xfmt_geom *g, uint16_t magic,
				const struct xfmt_da_expect *exp,
				const struct xprob_sink *sink)
{
	struct xfmt_da_blkinfo bi;
	unsigned n = 0;

	if (len < blksize || xfmt_da_blkinfo_decode(buf, len, g->v5, &bi) < 0)
		return (unsigned)xprob_emit_val(sink, XP_daTruncated, NULL, 0, blksize, len);

	if (bi.magic != magic)
		n += (unsigned)xprob_emit_val(sink, XP_daBadMagic, "magic", DA_MAGIC,
					      magic, bi.magic);
	if (g->v5) {
		/* The CRC is its own finding: the contents may still be right. */
		uint32_t want = xfmt_crc32c_excluding(buf, blksize, DA_CRC);

		if (want != bi.crc)
			n += (unsigned)xprob_emit_val(sink, XP_daBadCrc, "crc", DA_CRC,
						      want, bi.crc);
		if (bi.blkno != exp->daddr)
			n += (unsigned)xprob_emit_val(sink, XP_daBadBlkno, "bno", DA_BLKNO,
						      exp->daddr, bi.blkno);
		if (memcmp(bi.uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_daBadUuid, "uuid", DA_UUID);
		if (bi.owner != exp->owner)
			n += (unsigned)xprob_emit_val(sink, XP_daBadOwner, "owner", DA_OWNER,
						      exp->owner, bi.owner);
	}
	if (bi.pad != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_daNonzeroPad, "pad", DA_PAD, bi.pad);
	n += da_check_sibling(bi.forw, "forw", DA_FORW, exp, sink);
	n += da_check_sibling(bi.back, "back", DA_BACK, exp, sink);
	/* Both neighbours the same block: a two-block cycle. */
	if (bi.forw != 0 && bi.forw == bi.back)
		n += (unsigned)xprob_emit_obs(sink, XP_daBadSibling, "back", DA_BACK, bi.back);
	return n;
}

int xfmt_da_node_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			    struct xfmt_da_node_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (len < (v5 ? XFMT_DA_NODE_HDR_V5 : XFMT_DA_NODE_HDR_V4))
		return -1;
	(void)xfmt_da_blkinfo_decode(buf, len, v5, &out->info);
	if (v5) {
		out->count = xfmt_get_be16(buf + N5_COUNT);
		out->level = xfmt_get_be16(buf + N5_LEVEL);
		out->pad = xfmt_get_be32(buf + N5_PAD);
		out->hdr_len = XFMT_DA_NODE_HDR_V5;
	} else {
		out->count = xfmt_get_be16(buf + N4_COUNT);
		out->level = xfmt_get_be16(buf + N4_LEVEL);
		out->hdr_len = XFMT_DA_NODE_HDR_V4;
	}
	return 0;
}

unsigned xfmt_da_node_max_ents(size_t blksize, bool v5)
{
	size_t hdr = v5 ? XFMT_DA_NODE_HDR_V5 : XFMT_DA_NODE_HDR_V4;

	if (blksize <= hdr)
		return 0;
	return (unsigned)((blksize - hdr) / XFMT_DA_NODE_ENTRY);
}

int xfmt_da_node_entry(const uint8_t *buf, size_t len, bool v5, unsigned i,
		       uint32_t *hashval, uint32_t *before)
{
	size_t hdr = v5 ? XFMT_DA_NODE_HDR_V5 : XFMT_DA_NODE_HDR_V4;
	uint64_t off = hdr + (uint64_t)i * XFMT_DA_NODE_ENTRY;

	if (off + XFMT_DA_NODE_ENTRY > len)
		return -1;
	*hashval = xfmt_get_be32(buf + off);
	*before = xfmt_get_be32(buf + off + 4);
	return 0;
}

unsigned xfmt_da_node_verify(const uint8_t *buf, size_t len, size_t blksize,
			     const struct xfmt_geom *g,
			     const struct xfmt_da_expect *exp,
			     const struct xprob_sink *sink)
{
	struct xfmt_da_node_hdr h;
	unsigned n, count, maxents;
	size_t off_count = g->v5 ? N5_COUNT : N4_COUNT;
	size_t off_level = g->v5 ? N5_LEVEL : N4_LEVEL;
	uint32_t prev = 0;

	n = xfmt_da_blkinfo_verify(buf, len, blksize, g,
				   g->v5 ? XFS_DA3_NODE_MAGIC : XFS_DA_NODE_MAGIC, exp, sink);
	/* blkinfo_verify reported the short buffer; nothing more can be read. */
	if (len < blksize || xfmt_da_node_hdr_decode(buf, len, g->v5, &h) < 0)
		return n;

	if (exp->level >= 0 && h.level != (unsigned)exp->level)
		n += (unsigned)xprob_emit_val(sink, XP_daBadLevel, "level", off_level,
					      (uint64_t)exp->level, h.level);
	else if (exp->level < 0 && (h.level == 0 || h.level > XFS_DA_NODE_MAXDEPTH))
		n += (unsigned)xprob_emit_val(sink, XP_daBadLevel, "level", off_level,
					      XFS_DA_NODE_MAXDEPTH, h.level);

	maxents = xfmt_da_node_max_ents(blksize, g->v5);
	count = h.count;
	if (count == 0)
		n += (unsigned)xprob_emit(sink, XP_daEmptyNode, "count", off_count);
	if (count > maxents) {
		n += (unsigned)xprob_emit_val(sink, XP_daBadCount, "count", off_count,
					      maxents, count);
		count = maxents;   /* still judge the entries that fit */
	}
	if (g->v5 && h.pad != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_daNonzeroPad, "pad", N5_PAD, h.pad);

	for (unsigned i = 0; i < count; i++) {
		uint32_t hash, before;

		if (xfmt_da_node_entry(buf, blksize, g->v5, i, &hash, &before) < 0)
			break;
		if (i > 0 && hash < prev)
			n += (unsigned)xprob_emit_val(sink, XP_daHashOrder, "hashval", i,
						      prev, hash);
		/* 0 is never a child: it is the attr root, or outside the dir leaf segment. */
		if (before == 0 || before == exp->dablk || !da_blk_in_range(exp, before))
			n += (unsigned)xprob_emit_obs(sink, XP_daBadBefore, "before", i, before);
		prev = hash;
	}
	return n;
}

/* ---------------------------------------------------------- field tables */

const struct xfmt_field xfmt_da3_node_fields[] = {
	XFMT_DA3_NODE_HDR_FIELDS("nhdr"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_da_node_fields[] = {
	XFMT_DA_NODE_HDR_FIELDS("nhdr"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_da_node_fields_for(bool v5)
{
	return v5 ? xfmt_da3_node_fields : xfmt_da_node_fields;
}
