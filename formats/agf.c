/*
 * agf.c - AGF decoding, verification, btree height limits and field table.
 *
 * The rules are those of the kernel's xfs_agf_verify, xfs_validate_ag_length
 * and xfs_agfl_needs_reset, made exact where the kernel is lenient for
 * growfs (length must equal the AG length the superblock implies) and
 * extended with the checks xfs_repair makes on roots (inside the AG, not on
 * the header blocks, not shared).  Every failed rule is its own finding.
 * Counters that need a tree walk (freeblks vs the bnobt, ...) are the
 * analyzer's: here only bounds that hold for any AGF.
 */
#include "formats/agf.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/sb.h"

enum {
	AGF_MAGICNUM = 0, AGF_VERSIONNUM = 4, AGF_SEQNO = 8, AGF_LENGTH = 12,
	AGF_BNO_ROOT = 16, AGF_CNT_ROOT = 20, AGF_RMAP_ROOT = 24,
	AGF_BNO_LEVEL = 28, AGF_CNT_LEVEL = 32, AGF_RMAP_LEVEL = 36,
	AGF_FLFIRST = 40, AGF_FLLAST = 44, AGF_FLCOUNT = 48, AGF_FREEBLKS = 52,
	AGF_LONGEST = 56, AGF_BTREEBLKS = 60, AGF_UUID = 64,
	AGF_RMAP_BLOCKS = 80, AGF_REFCOUNT_BLOCKS = 84, AGF_REFCOUNT_ROOT = 88,
	AGF_REFCOUNT_LEVEL = 92, AGF_SPARE64 = 96, AGF_LSN = 208, AGF_CRC = 216,
	AGF_SPARE2 = 220, AGF_END = 224,
};

_Static_assert(AGF_END == XFS_AGF_STRUCT_SIZE, "AGF is 224 bytes");
_Static_assert(AGF_CRC == XFS_AGF_CRC_OFF, "agf_crc offset");
_Static_assert(AGF_LSN - AGF_SPARE64 == 14 * 8, "agf_spare64 is 14 be64");

/* Short-form btree block header sizes and record/key/pointer sizes. */
#define SBLOCK_LEN_V4   16u
#define SBLOCK_LEN_V5   56u
#define ALLOC_REC       8u
#define ALLOC_KEY_PTR   (8u + 4u)
#define RMAP_REC        24u
#define RMAP_KEYS_PTR   (2u * 20u + 4u)   /* low and high key, then pointer */
#define REFC_REC        12u
#define REFC_KEY_PTR    (4u + 4u)

int xfmt_agf_decode(const uint8_t *buf, size_t len, struct xfmt_agf *out)
{
	if (!buf || len < XFS_AGF_STRUCT_SIZE)
		return -1;
	memset(out, 0, sizeof(*out));
	out->magicnum = xfmt_get_be32(buf + AGF_MAGICNUM);
	out->versionnum = xfmt_get_be32(buf + AGF_VERSIONNUM);
	out->seqno = xfmt_get_be32(buf + AGF_SEQNO);
	out->length = xfmt_get_be32(buf + AGF_LENGTH);
	out->bno_root = xfmt_get_be32(buf + AGF_BNO_ROOT);
	out->cnt_root = xfmt_get_be32(buf + AGF_CNT_ROOT);
	out->rmap_root = xfmt_get_be32(buf + AGF_RMAP_ROOT);
	out->bno_level = xfmt_get_be32(buf + AGF_BNO_LEVEL);
	out->cnt_level = xfmt_get_be32(buf + AGF_CNT_LEVEL);
	out->rmap_level = xfmt_get_be32(buf + AGF_RMAP_LEVEL);
	out->flfirst = xfmt_get_be32(buf + AGF_FLFIRST);
	out->fllast = xfmt_get_be32(buf + AGF_FLLAST);
	out->flcount = xfmt_get_be32(buf + AGF_FLCOUNT);
	out->freeblks = xfmt_get_be32(buf + AGF_FREEBLKS);
	out->longest = xfmt_get_be32(buf + AGF_LONGEST);
	out->btreeblks = xfmt_get_be32(buf + AGF_BTREEBLKS);
	memcpy(out->uuid, buf + AGF_UUID, 16);
	out->rmap_blocks = xfmt_get_be32(buf + AGF_RMAP_BLOCKS);
	out->refcount_blocks = xfmt_get_be32(buf + AGF_REFCOUNT_BLOCKS);
	out->refcount_root = xfmt_get_be32(buf + AGF_REFCOUNT_ROOT);
	out->refcount_level = xfmt_get_be32(buf + AGF_REFCOUNT_LEVEL);
	out->lsn = xfmt_get_be64(buf + AGF_LSN);
	out->crc = xfmt_get_le32(buf + AGF_CRC);
	return 0;
}

/* ---------------------------------------------------------------- heights */

uint32_t xfmt_agf_tree_maxlevels(uint32_t min_leaf, uint32_t min_node, uint64_t records)
{
	uint64_t blocks;
	uint32_t height = 1;

	/* A fan-out below 2 never converges; no real geometry gets there. */
	if (min_leaf == 0 || min_node < 2)
		return 0;
	blocks = records / min_leaf + (records % min_leaf != 0);
	while (blocks > 1) {
		blocks = blocks / min_node + (blocks % min_node != 0);
		height++;
	}
	return height;
}

/*
 * The kernel's xfs_btree_space_to_height: the tallest tree that fits in
 * leaf_blocks blocks when the root holds at least two pointers.
 */
static uint32_t space_to_height(uint32_t min_node, uint64_t leaf_blocks)
{
	uint64_t node_blocks = 2, left;
	uint32_t height = 1;

	if (leaf_blocks < 1 || min_node < 2)
		return 0;
	left = leaf_blocks - 1;
	while (node_blocks < left) {
		left -= node_blocks;
		node_blocks *= min_node;
		height++;
	}
	return height;
}

static uint32_t sblock_payload(const struct xfmt_geom *g)
{
	uint32_t hdr = g->v5 ? SBLOCK_LEN_V5 : SBLOCK_LEN_V4;

	return g->blocksize > hdr ? g->blocksize - hdr : 0;
}

uint32_t xfmt_agf_alloc_maxlevels(const struct xfmt_geom *g)
{
	uint32_t room = sblock_payload(g);

	/* Free space btrees are largest when every other block is free. */
	return xfmt_agf_tree_maxlevels(room / ALLOC_REC / 2, room / ALLOC_KEY_PTR / 2,
				       ((uint64_t)g->agblocks + 1) / 2);
}

uint32_t xfmt_agf_rmap_maxlevels(const struct xfmt_geom *g)
{
	uint32_t room = sblock_payload(g);

	if (!xfmt_geom_has_rmapbt(g))
		return 0;
	/* With reflink a block may have many owners: bounded by AG space. */
	if (xfmt_geom_has_reflink(g))
		return space_to_height(room / RMAP_KEYS_PTR / 2, g->agblocks);
	return xfmt_agf_tree_maxlevels(room / RMAP_REC / 2, room / RMAP_KEYS_PTR / 2,
				       g->agblocks);
}

uint32_t xfmt_agf_refcount_maxlevels(const struct xfmt_geom *g)
{
	uint32_t room = sblock_payload(g);

	if (!xfmt_geom_has_reflink(g))
		return 0;
	return xfmt_agf_tree_maxlevels(room / REFC_REC / 2, room / REFC_KEY_PTR / 2,
				       g->agblocks);
}

/* ---------------------------------------------------------------- verifier */

struct agf_root {
	const char *name;
	uint16_t off;
	uint32_t value;
	bool present;
};

static unsigned check_roots(const struct xfmt_agf *agf, const struct xfmt_geom *g,
			    uint32_t aglen, const struct xprob_sink *sink)
{
	const struct agf_root roots[] = {
		{ "bnoroot", AGF_BNO_ROOT, agf->bno_root, true },
		{ "cntroot", AGF_CNT_ROOT, agf->cnt_root, true },
		{ "rmaproot", AGF_RMAP_ROOT, agf->rmap_root, xfmt_geom_has_rmapbt(g) },
		{ "refcntroot", AGF_REFCOUNT_ROOT, agf->refcount_root,
		  xfmt_geom_has_reflink(g) },
	};
	uint32_t hdr = xfmt_sb_hdr_blocks(g);
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		const struct agf_root *r = &roots[i];
		bool shared = false;

		if (!r->present)
			continue;
		if (r->value >= aglen) {
			n += (unsigned)xprob_emit_val(sink, XP_agfBadRoot, r->name, r->off,
						      aglen, r->value);
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (roots[j].present && roots[j].value == r->value)
				shared = true;
		if (r->value < hdr || shared)
			n += (unsigned)xprob_emit_obs(sink, XP_agfRootsCollide, r->name,
						      r->off, r->value);
	}
	return n;
}

static unsigned check_level(const struct xprob_sink *sink, const char *name,
			    uint16_t off, uint32_t level, uint32_t max)
{
	if (level >= 1 && level <= max)
		return 0;
	return (unsigned)xprob_emit_val(sink, XP_agfBadLevel, name, off, max, level);
}

/* A field that must be zero because its feature is off. */
static unsigned check_unused(const struct xprob_sink *sink, const char *name,
			     uint16_t off, uint64_t value)
{
	if (!value)
		return 0;
	return (unsigned)xprob_emit_obs(sink, XP_agfNonzeroSpare, name, off, value);
}

static unsigned check_too_big(const struct xprob_sink *sink, const char *name,
			      uint16_t off, uint32_t value, uint32_t aglen)
{
	if (value <= aglen)
		return 0;
	return (unsigned)xprob_emit_val(sink, XP_agfCounterTooBig, name, off, aglen, value);
}

static unsigned check_freelist(const struct xfmt_agf *agf, const struct xfmt_geom *g,
			       const struct xprob_sink *sink)
{
	uint32_t size = xfmt_geom_agfl_size(g);
	uint32_t f = agf->flfirst, l = agf->fllast, c = agf->flcount, active;
	unsigned n = 0;

	if (f >= size)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadFlIndex, "flfirst", AGF_FLFIRST,
					      size, f);
	if (l >= size)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadFlIndex, "fllast", AGF_FLLAST,
					      size, l);
	if (f < size && l < size) {
		/* xfs_agfl_needs_reset: the window first..last, wrapping, holds count. */
		if (c == 0)
			active = 0;
		else if (l >= f)
			active = l - f + 1;
		else
			active = size - f + l + 1;
		if (c != active)
			n += (unsigned)xprob_emit_val(sink, XP_agfBadFlCount, "flcount",
						      AGF_FLCOUNT, active, c);
	} else if (c > size) {
		n += (unsigned)xprob_emit_val(sink, XP_agfBadFlCount, "flcount", AGF_FLCOUNT,
					      size, c);
	}
	return n;
}

static unsigned check_bytes_zero(const uint8_t *buf, size_t from, size_t to,
				 const char *name, const struct xprob_sink *sink)
{
	for (size_t i = from; i < to; i++)
		if (buf[i])
			return (unsigned)xprob_emit_obs(sink, XP_agfNonzeroSpare, name, i, buf[i]);
	return 0;
}

unsigned xfmt_agf_verify(const uint8_t *buf, size_t len, const struct xfmt_agf *agf,
			 const struct xfmt_geom *g, uint32_t agno,
			 const struct xprob_sink *sink)
{
	uint32_t aglen = xfmt_geom_ag_length(g, agno);
	uint32_t amax = xfmt_agf_alloc_maxlevels(g);
	bool lazy = g->v5 || (g->features2 & XFS_SB_VERSION2_LAZYSBCOUNTBIT);
	unsigned n = 0;
	size_t end;

	if (agf->magicnum != XFS_AGF_MAGIC)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadMagic, "magicnum", AGF_MAGICNUM,
					      XFS_AGF_MAGIC, agf->magicnum);
	if (agf->versionnum != XFS_AGF_VERSION)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadVersion, "versionnum",
					      AGF_VERSIONNUM, XFS_AGF_VERSION, agf->versionnum);
	if (agf->seqno != agno)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadSeqno, "seqno", AGF_SEQNO, agno,
					      agf->seqno);
	if (agf->length != aglen)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadLength, "length", AGF_LENGTH,
					      aglen, agf->length);

	n += check_roots(agf, g, aglen, sink);
	n += check_level(sink, "bnolevel", AGF_BNO_LEVEL, agf->bno_level, amax);
	n += check_level(sink, "cntlevel", AGF_CNT_LEVEL, agf->cnt_level, amax);
	if (xfmt_geom_has_rmapbt(g)) {
		n += check_level(sink, "rmaplevel", AGF_RMAP_LEVEL, agf->rmap_level,
				 xfmt_agf_rmap_maxlevels(g));
		n += check_too_big(sink, "rmapblocks", AGF_RMAP_BLOCKS, agf->rmap_blocks, aglen);
	} else {
		n += check_unused(sink, "rmaproot", AGF_RMAP_ROOT, agf->rmap_root);
		n += check_unused(sink, "rmaplevel", AGF_RMAP_LEVEL, agf->rmap_level);
		n += check_unused(sink, "rmapblocks", AGF_RMAP_BLOCKS, agf->rmap_blocks);
	}
	if (xfmt_geom_has_reflink(g)) {
		n += check_level(sink, "refcntlevel", AGF_REFCOUNT_LEVEL, agf->refcount_level,
				 xfmt_agf_refcount_maxlevels(g));
		n += check_too_big(sink, "refcntblocks", AGF_REFCOUNT_BLOCKS,
				   agf->refcount_blocks, aglen);
	} else {
		n += check_unused(sink, "refcntroot", AGF_REFCOUNT_ROOT, agf->refcount_root);
		n += check_unused(sink, "refcntlevel", AGF_REFCOUNT_LEVEL, agf->refcount_level);
		n += check_unused(sink, "refcntblocks", AGF_REFCOUNT_BLOCKS,
				  agf->refcount_blocks);
	}

	n += check_freelist(agf, g, sink);

	/* Bounds against the true AG length, not the (maybe damaged) agf_length. */
	if (agf->freeblks > aglen)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadFreeblks, "freeblks", AGF_FREEBLKS,
					      aglen, agf->freeblks);
	if (agf->longest > agf->freeblks)
		n += (unsigned)xprob_emit_val(sink, XP_agfBadLongest, "longest", AGF_LONGEST,
					      agf->freeblks, agf->longest);
	/* btreeblks is only maintained with lazy superblock counters. */
	if (lazy)
		n += check_too_big(sink, "btreeblks", AGF_BTREEBLKS, agf->btreeblks, aglen);

	if (g->v5) {
		if (memcmp(agf->uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_agfBadUuid, "uuid", AGF_UUID);
	} else {
		/* v4 has no self-describing fields; mkfs leaves them zero. */
		n += check_bytes_zero(buf, AGF_UUID, AGF_UUID + 16, "uuid", sink);
		n += check_unused(sink, "lsn", AGF_LSN, agf->lsn);
		n += check_unused(sink, "crc", AGF_CRC, agf->crc);
	}
	n += check_bytes_zero(buf, AGF_SPARE64, AGF_LSN, "spare64", sink);
	n += check_bytes_zero(buf, AGF_SPARE2, AGF_END, "spare2", sink);
	end = len < g->sectsize ? len : g->sectsize;
	n += check_bytes_zero(buf, AGF_END, end, "sector tail", sink);

	if (g->v5 && len >= g->sectsize && g->sectsize >= XFS_AGF_STRUCT_SIZE) {
		uint32_t want = xfmt_crc32c_excluding(buf, g->sectsize, AGF_CRC);

		if (want != agf->crc)
			n += (unsigned)xprob_emit_val(sink, XP_agfBadCrc, "crc", AGF_CRC, want,
						      agf->crc);
	}
	return n;
}

/* ---------------------------------------------------------------- fields */

#define F(nm, of, sz, kd, v5, dc) \
	{ .name = (nm), .off = (of), .size = (sz), .kind = (kd), .v5only = (v5), .doc = (dc) }

/* xfs_db prints rmaproot/refcntroot as empty when zero (its "agblocknz"). */
const struct xfmt_field xfmt_agf_fields[] = {
	F("magicnum", AGF_MAGICNUM, 4, XFK_HEX, 0, "magic number 0x58414746 \"XAGF\""),
	F("versionnum", AGF_VERSIONNUM, 4, XFK_UINT, 0, "AGF version, 1"),
	F("seqno", AGF_SEQNO, 4, XFK_NULLABLE, 0, "AG number"),
	F("length", AGF_LENGTH, 4, XFK_NULLABLE, 0, "AG size in blocks"),
	F("bnoroot", AGF_BNO_ROOT, 4, XFK_NULLABLE, 0, "root block of the by-block free space btree"),
	F("cntroot", AGF_CNT_ROOT, 4, XFK_NULLABLE, 0, "root block of the by-size free space btree"),
	F("rmaproot", AGF_RMAP_ROOT, 4, XFK_NULLABLE, 0, "root block of the reverse-mapping btree"),
	F("refcntroot", AGF_REFCOUNT_ROOT, 4, XFK_NULLABLE, 0, "root block of the refcount btree"),
	F("bnolevel", AGF_BNO_LEVEL, 4, XFK_UINT, 0, "height of the by-block free space btree"),
	F("cntlevel", AGF_CNT_LEVEL, 4, XFK_UINT, 0, "height of the by-size free space btree"),
	F("rmaplevel", AGF_RMAP_LEVEL, 4, XFK_UINT, 0, "height of the reverse-mapping btree"),
	F("refcntlevel", AGF_REFCOUNT_LEVEL, 4, XFK_UINT, 0, "height of the refcount btree"),
	F("rmapblocks", AGF_RMAP_BLOCKS, 4, XFK_UINT, 0, "blocks in the rmap btree, root included"),
	F("refcntblocks", AGF_REFCOUNT_BLOCKS, 4, XFK_UINT, 0, "blocks in the refcount btree, root included"),
	F("flfirst", AGF_FLFIRST, 4, XFK_UINT, 0, "index of the first active AGFL slot"),
	F("fllast", AGF_FLLAST, 4, XFK_UINT, 0, "index of the last active AGFL slot"),
	F("flcount", AGF_FLCOUNT, 4, XFK_UINT, 0, "number of active AGFL slots"),
	F("freeblks", AGF_FREEBLKS, 4, XFK_UINT, 0, "free blocks in the AG (AGFL blocks excluded)"),
	F("longest", AGF_LONGEST, 4, XFK_UINT, 0, "longest free extent"),
	F("btreeblks", AGF_BTREEBLKS, 4, XFK_UINT, 0, "free space and rmap btree blocks, roots excluded"),
	F("uuid", AGF_UUID, 16, XFK_UUID, 1, "metadata UUID of the filesystem"),
	F("lsn", AGF_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	F("crc", AGF_CRC, 4, XFK_CRC, 1, "CRC32c of the sector (little-endian)"),
	XFMT_FIELD_END
};

/* ---------------------------------------------------------------- encoder */

int xfmt_agf_encode(uint8_t *buf, size_t len, const struct xfmt_agf *agf,
		    const struct xfmt_geom *g)
{
	if (!buf || g->sectsize < XFS_AGF_STRUCT_SIZE || len < g->sectsize)
		return -1;
	/* The rest of the sector is spare and must read as zero. */
	memset(buf, 0, g->sectsize);
	xfmt_put_be32(buf + AGF_MAGICNUM, agf->magicnum);
	xfmt_put_be32(buf + AGF_VERSIONNUM, agf->versionnum);
	xfmt_put_be32(buf + AGF_SEQNO, agf->seqno);
	xfmt_put_be32(buf + AGF_LENGTH, agf->length);
	xfmt_put_be32(buf + AGF_BNO_ROOT, agf->bno_root);
	xfmt_put_be32(buf + AGF_CNT_ROOT, agf->cnt_root);
	xfmt_put_be32(buf + AGF_RMAP_ROOT, agf->rmap_root);
	xfmt_put_be32(buf + AGF_BNO_LEVEL, agf->bno_level);
	xfmt_put_be32(buf + AGF_CNT_LEVEL, agf->cnt_level);
	xfmt_put_be32(buf + AGF_RMAP_LEVEL, agf->rmap_level);
	xfmt_put_be32(buf + AGF_FLFIRST, agf->flfirst);
	xfmt_put_be32(buf + AGF_FLLAST, agf->fllast);
	xfmt_put_be32(buf + AGF_FLCOUNT, agf->flcount);
	xfmt_put_be32(buf + AGF_FREEBLKS, agf->freeblks);
	xfmt_put_be32(buf + AGF_LONGEST, agf->longest);
	xfmt_put_be32(buf + AGF_BTREEBLKS, agf->btreeblks);
	xfmt_put_be32(buf + AGF_RMAP_BLOCKS, agf->rmap_blocks);
	xfmt_put_be32(buf + AGF_REFCOUNT_BLOCKS, agf->refcount_blocks);
	xfmt_put_be32(buf + AGF_REFCOUNT_ROOT, agf->refcount_root);
	xfmt_put_be32(buf + AGF_REFCOUNT_LEVEL, agf->refcount_level);
	if (g->v5) {
		memcpy(buf + AGF_UUID, agf->uuid, 16);
		xfmt_put_be64(buf + AGF_LSN, agf->lsn);
		xfmt_crc_update(buf, g->sectsize, AGF_CRC);
	}
	return 0;
}
