/*
 * btree.c - layout, header decoding and header verification of XFS btree
 * blocks (all short-form AG trees and the long-form bmbt), plus the in-inode
 * bmbt root.  Facts from xfs-ondisk.md sections 3.1-3.3 and the kernel's
 * xfs_btree_*block_verify / __xfs_btree_check_*block.
 */
#include "formats/btree.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

/* Short-form header offsets. */
#define SH_MAGIC     0
#define SH_LEVEL     4
#define SH_NUMRECS   6
#define SH_LEFTSIB   8
#define SH_RIGHTSIB  12
#define SH_BLKNO     16
#define SH_LSN       24
#define SH_UUID      32
#define SH_OWNER     XFMT_BT_SHORT_OWNER_OFF
#define SH_CRC       52
_Static_assert(SH_CRC + 4 == XFMT_BT_SHORT_HDR_V5, "short v5 header is 56 bytes");
_Static_assert(SH_RIGHTSIB + 4 == XFMT_BT_SHORT_HDR_V4, "short v4 header is 16 bytes");
_Static_assert(SH_CRC == XFMT_BT_SHORT_CRC_OFF, "short crc offset");

/* Long-form header offsets. */
#define LH_MAGIC     0
#define LH_LEVEL     4
#define LH_NUMRECS   6
#define LH_LEFTSIB   8
#define LH_RIGHTSIB  16
#define LH_BLKNO     24
#define LH_LSN       32
#define LH_UUID      40
#define LH_OWNER     XFMT_BT_LONG_OWNER_OFF
#define LH_CRC       64
#define LH_PAD       68
_Static_assert(LH_PAD + 4 == XFMT_BT_LONG_HDR_V5, "long v5 header is 72 bytes");
_Static_assert(LH_RIGHTSIB + 8 == XFMT_BT_LONG_HDR_V4, "long v4 header is 24 bytes");
_Static_assert(LH_CRC == XFMT_BT_LONG_CRC_OFF, "long crc offset");

/* Per-tree constants, indexed by enum xfmt_btnum. */
struct bt_info {
	const char *name;
	uint32_t    magic_v5;
	uint32_t    magic_v4;
	uint8_t     rec_len;
	uint8_t     key_len;
	uint8_t     ptr_len;
	uint8_t     keys_per_slot;  /* 2 for overlapping trees (low + high key) */
};

static const struct bt_info bt_info[XFMT_BT_COUNT] = {
	[XFMT_BT_BNO]  = { "bnobt",    XFS_ABTB_CRC_MAGIC, XFS_ABTB_MAGIC, 8, 8, 4, 1 },
	[XFMT_BT_CNT]  = { "cntbt",    XFS_ABTC_CRC_MAGIC, XFS_ABTC_MAGIC, 8, 8, 4, 1 },
	[XFMT_BT_INO]  = { "inobt",    XFS_IBT_CRC_MAGIC,  XFS_IBT_MAGIC, 16, 4, 4, 1 },
	[XFMT_BT_FINO] = { "finobt",   XFS_FIBT_CRC_MAGIC, XFS_FIBT_MAGIC, 16, 4, 4, 1 },
	[XFMT_BT_RMAP] = { "rmapbt",   XFS_RMAP_CRC_MAGIC, 0,             24, 20, 4, 2 },
	[XFMT_BT_REFC] = { "refcntbt", XFS_REFC_CRC_MAGIC, 0,             12, 4, 4, 1 },
	[XFMT_BT_BMAP] = { "bmbt",     XFS_BMAP_CRC_MAGIC, XFS_BMAP_MAGIC, 16, 8, 8, 1 },
};

static const struct bt_info *bt_get(enum xfmt_btnum bt)
{
	if ((unsigned)bt >= XFMT_BT_COUNT)
		return NULL;
	return &bt_info[bt];
}

const char *xfmt_bt_name(enum xfmt_btnum bt)
{
	const struct bt_info *bi = bt_get(bt);
	return bi ? bi->name : "?";
}

uint32_t xfmt_bt_magic(enum xfmt_btnum bt, bool v5)
{
	const struct bt_info *bi = bt_get(bt);

	if (!bi)
		return 0;
	return v5 ? bi->magic_v5 : bi->magic_v4;
}

bool xfmt_bt_is_long(enum xfmt_btnum bt)
{
	return bt == XFMT_BT_BMAP;
}

size_t xfmt_bt_hdr_len(enum xfmt_btnum bt, bool v5)
{
	if (!bt_get(bt))
		return 0;
	if (xfmt_bt_is_long(bt))
		return v5 ? XFMT_BT_LONG_HDR_V5 : XFMT_BT_LONG_HDR_V4;
	return v5 ? XFMT_BT_SHORT_HDR_V5 : XFMT_BT_SHORT_HDR_V4;
}

size_t xfmt_bt_crc_off(enum xfmt_btnum bt)
{
	return xfmt_bt_is_long(bt) ? XFMT_BT_LONG_CRC_OFF : XFMT_BT_SHORT_CRC_OFF;
}

size_t xfmt_bt_rec_len(enum xfmt_btnum bt)
{
	const struct bt_info *bi = bt_get(bt);
	return bi ? bi->rec_len : 0;
}

size_t xfmt_bt_key_len(enum xfmt_btnum bt)
{
	const struct bt_info *bi = bt_get(bt);
	return bi ? bi->key_len : 0;
}

size_t xfmt_bt_ptr_len(enum xfmt_btnum bt)
{
	const struct bt_info *bi = bt_get(bt);
	return bi ? bi->ptr_len : 0;
}

size_t xfmt_bt_keyslot_len(enum xfmt_btnum bt)
{
	const struct bt_info *bi = bt_get(bt);
	return bi ? (size_t)bi->key_len * bi->keys_per_slot : 0;
}

unsigned xfmt_bt_maxrecs(enum xfmt_btnum bt, uint32_t blocksize, bool v5, bool leaf)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5);
	size_t unit;

	if (!hdr || blocksize <= hdr)
		return 0;
	unit = leaf ? xfmt_bt_rec_len(bt) : xfmt_bt_keyslot_len(bt) + xfmt_bt_ptr_len(bt);
	return (unsigned)((blocksize - hdr) / unit);
}

int xfmt_bt_hdr_decode(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
		       bool v5, struct xfmt_bt_hdr *out)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5);

	memset(out, 0, sizeof(*out));
	if (!hdr || len < hdr)
		return -1;
	out->v5 = v5;
	out->long_form = xfmt_bt_is_long(bt);
	if (out->long_form) {
		out->magic = xfmt_get_be32(buf + LH_MAGIC);
		out->level = xfmt_get_be16(buf + LH_LEVEL);
		out->numrecs = xfmt_get_be16(buf + LH_NUMRECS);
		out->leftsib = xfmt_get_be64(buf + LH_LEFTSIB);
		out->rightsib = xfmt_get_be64(buf + LH_RIGHTSIB);
		if (v5) {
			out->blkno = xfmt_get_be64(buf + LH_BLKNO);
			out->lsn = xfmt_get_be64(buf + LH_LSN);
			memcpy(out->uuid, buf + LH_UUID, 16);
			out->owner = xfmt_get_be64(buf + LH_OWNER);
			out->crc = xfmt_get_le32(buf + LH_CRC);
			out->pad = xfmt_get_be32(buf + LH_PAD);
		}
	} else {
		out->magic = xfmt_get_be32(buf + SH_MAGIC);
		out->level = xfmt_get_be16(buf + SH_LEVEL);
		out->numrecs = xfmt_get_be16(buf + SH_NUMRECS);
		out->leftsib = xfmt_get_be32(buf + SH_LEFTSIB);
		out->rightsib = xfmt_get_be32(buf + SH_RIGHTSIB);
		if (v5) {
			out->blkno = xfmt_get_be64(buf + SH_BLKNO);
			out->lsn = xfmt_get_be64(buf + SH_LSN);
			memcpy(out->uuid, buf + SH_UUID, 16);
			out->owner = xfmt_get_be32(buf + SH_OWNER);
			out->crc = xfmt_get_le32(buf + SH_CRC);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ geometry */

uint32_t xfmt_bt_agfl_block(const struct xfmt_geom *g)
{
	/* The AGFL is sector 3 of the AG; its block holds all four headers. */
	return (uint32_t)(((uint64_t)3 * g->sectsize) >> g->blocklog);
}

bool xfmt_bt_agbno_ok(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno)
{
	return agbno < xfmt_geom_ag_length(g, agno) && agbno > xfmt_bt_agfl_block(g);
}

bool xfmt_bt_agbext_ok(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno,
		       uint32_t len)
{
	uint64_t last = (uint64_t)agbno + len - 1;

	if (len == 0 || last > UINT32_MAX)
		return false;
	return xfmt_bt_agbno_ok(g, agno, agbno) &&
	       xfmt_bt_agbno_ok(g, agno, (uint32_t)last);
}

bool xfmt_bt_fsbno_ok(const struct xfmt_geom *g, uint64_t fsb)
{
	uint32_t agno = xfmt_geom_fsb_agno(g, fsb);

	if (agno >= g->agcount)
		return false;
	return xfmt_bt_agbno_ok(g, agno, xfmt_geom_fsb_agbno(g, fsb));
}

/*
 * Where the block that was read from daddr sits: AG number and agbno, and
 * its packed fsblock.  Returns false if daddr is not block-aligned inside
 * the filesystem (then the self-sibling check is skipped).
 */
static bool bt_locate(const struct xfmt_geom *g, uint64_t daddr, uint32_t *agno,
		      uint32_t *agbno, uint64_t *fsb)
{
	uint64_t ag_bytes = (uint64_t)g->agblocks << g->blocklog;
	uint64_t byte, a, rest;

	if (ag_bytes == 0 || daddr > (UINT64_MAX >> XFS_BB_SHIFT))
		return false;
	byte = daddr << XFS_BB_SHIFT;
	if (byte & (g->blocksize - 1))
		return false;
	a = byte / ag_bytes;
	rest = (byte % ag_bytes) >> g->blocklog;
	if (a >= g->agcount)
		return false;
	*agno = (uint32_t)a;
	*agbno = (uint32_t)rest;
	*fsb = xfmt_geom_fsb(g, *agno, *agbno);
	return true;
}

/* -------------------------------------------------------------- verify */

static unsigned bt_check_sibling(const uint8_t *buf, size_t off, enum xfmt_btnum bt,
				 const struct xfmt_geom *g,
				 const struct xfmt_bt_expect *exp, bool located,
				 uint32_t self_agbno, uint64_t self_fsb,
				 const char *name, const struct xprob_sink *sink)
{
	if (xfmt_bt_is_long(bt)) {
		uint64_t sib = xfmt_get_be64(buf + off);

		if (sib == XFS_NULLFSBLOCK)
			return 0;
		if (!xfmt_bt_fsbno_ok(g, sib) || (located && sib == self_fsb))
			return (unsigned)xprob_emit_obs(sink, XP_btBadSiblingPtr, name, off, sib);
	} else {
		uint32_t sib = xfmt_get_be32(buf + off);
		uint32_t agno = exp->owner > UINT32_MAX ? UINT32_MAX : (uint32_t)exp->owner;

		if (sib == XFS_NULLAGBLOCK)
			return 0;
		if (!xfmt_bt_agbno_ok(g, agno, sib) || (located && sib == self_agbno))
			return (unsigned)xprob_emit_obs(sink, XP_btBadSiblingPtr, name, off, sib);
	}
	return 0;
}

unsigned xfmt_bt_verify_hdr(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			    const struct xfmt_geom *g,
			    const struct xfmt_bt_expect *exp,
			    const struct xprob_sink *sink)
{
	struct xfmt_bt_hdr h;
	bool lf = xfmt_bt_is_long(bt);
	uint32_t want_magic = xfmt_bt_magic(bt, g->v5);
	uint32_t self_agno = 0, self_agbno = 0;
	uint64_t self_fsb = 0;
	bool located;
	unsigned n = 0, maxrecs;

	if (xfmt_bt_hdr_decode(buf, len, bt, g->v5, &h) < 0)
		return (unsigned)xprob_emit_val(sink, XP_btUnreadable, NULL, 0,
						g->blocksize, len);
	/* A short buffer cannot be checksummed; say so, check the rest. */
	if (len < g->blocksize)
		n += (unsigned)xprob_emit_val(sink, XP_btUnreadable, NULL, 0,
					      g->blocksize, len);

	if (h.magic != want_magic)
		n += (unsigned)xprob_emit_val(sink, XP_btBadMagic, "magic", 0,
					      want_magic, h.magic);

	/* The CRC is its own finding: the contents may still be trustworthy. */
	if (g->v5 && len >= g->blocksize) {
		size_t crc_off = xfmt_bt_crc_off(bt);
		uint32_t want = xfmt_crc32c_excluding(buf, g->blocksize, crc_off);

		if (want != h.crc)
			n += (unsigned)xprob_emit_val(sink, XP_btBadCrc, "crc", crc_off,
						      want, h.crc);
	}

	/* One level finding: against the expected level if known, else range. */
	if (exp->level >= 0) {
		if (h.level != (unsigned)exp->level)
			n += (unsigned)xprob_emit_val(sink, XP_btBadLevel, "level", 4,
						      (uint64_t)exp->level, h.level);
	} else if (h.level >= XFS_BTREE_MAXLEVELS) {
		n += (unsigned)xprob_emit_val(sink, XP_btBadLevel, "level", 4,
					      XFS_BTREE_MAXLEVELS - 1, h.level);
	}

	maxrecs = xfmt_bt_maxrecs(bt, g->blocksize, g->v5, h.level == 0);
	if (h.numrecs > maxrecs)
		n += (unsigned)xprob_emit_val(sink, XP_btBadNumrecs, "numrecs", 6,
					      maxrecs, h.numrecs);
	/*
	 * Only a root leaf may be empty (an AG with no free space, no free
	 * inodes, no shared blocks...).  A bmbt block on disk is never a root.
	 */
	if (h.numrecs == 0 && !(exp->is_root && h.level == 0 && !lf))
		n += (unsigned)xprob_emit(sink, XP_btEmptyBlock, "numrecs", 6);

	if (g->v5) {
		size_t off_blkno = lf ? LH_BLKNO : SH_BLKNO;
		size_t off_uuid = lf ? LH_UUID : SH_UUID;
		size_t off_owner = lf ? LH_OWNER : SH_OWNER;

		if (h.blkno != exp->daddr)
			n += (unsigned)xprob_emit_val(sink, XP_btBadBlkno, "bno", off_blkno,
						      exp->daddr, h.blkno);
		if (memcmp(h.uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_btBadUuid, "uuid", off_uuid);
		if (h.owner != exp->owner)
			n += (unsigned)xprob_emit_val(sink, XP_btBadOwner, "owner", off_owner,
						      exp->owner, h.owner);
		if (lf && h.pad != 0)
			n += (unsigned)xprob_emit_obs(sink, XP_btNonzeroPad, "pad", LH_PAD, h.pad);
	}

	located = bt_locate(g, exp->daddr, &self_agno, &self_agbno, &self_fsb);
	/* For an AG tree, a block outside the expected AG cannot name itself. */
	if (located && !lf && self_agno != exp->owner)
		located = false;
	n += bt_check_sibling(buf, lf ? LH_LEFTSIB : SH_LEFTSIB, bt, g, exp, located,
			      self_agbno, self_fsb, "leftsib", sink);
	n += bt_check_sibling(buf, lf ? LH_RIGHTSIB : SH_RIGHTSIB, bt, g, exp, located,
			      self_agbno, self_fsb, "rightsib", sink);
	return n;
}

/* -------------------------------------------------------------- access */

const uint8_t *xfmt_bt_rec(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			   bool v5, unsigned i)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5), rl = xfmt_bt_rec_len(bt);
	uint64_t off;

	if (!hdr)
		return NULL;
	off = hdr + (uint64_t)i * rl;
	if (off > len || len - off < rl)
		return NULL;
	return buf + off;
}

/* Offset of key slot i, or 0 if it is outside the key area of a len-byte node. */
static size_t bt_keyslot_off(size_t len, enum xfmt_btnum bt, bool v5, unsigned i)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5);
	unsigned maxr;

	if (!hdr || len > UINT32_MAX)
		return 0;
	/* With len as the block size the key area never reaches the pointers. */
	maxr = xfmt_bt_maxrecs(bt, (uint32_t)len, v5, false);
	if (i >= maxr)
		return 0;
	return hdr + (size_t)i * xfmt_bt_keyslot_len(bt);
}

const uint8_t *xfmt_bt_key(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			   bool v5, unsigned i)
{
	size_t off = bt_keyslot_off(len, bt, v5, i);
	return off ? buf + off : NULL;
}

const uint8_t *xfmt_bt_highkey(const uint8_t *buf, size_t len,
			       enum xfmt_btnum bt, bool v5, unsigned i)
{
	size_t off;

	if (bt != XFMT_BT_RMAP)
		return NULL;
	off = bt_keyslot_off(len, bt, v5, i);
	return off ? buf + off + xfmt_bt_key_len(bt) : NULL;
}

int xfmt_bt_ptr(const uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
		uint32_t blocksize, unsigned i, uint64_t *out)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5), pl = xfmt_bt_ptr_len(bt);
	unsigned maxr = xfmt_bt_maxrecs(bt, blocksize, v5, false);
	uint64_t off;

	if (!hdr || i >= maxr)
		return -1;
	off = hdr + (uint64_t)maxr * xfmt_bt_keyslot_len(bt) + (uint64_t)i * pl;
	if (off > len || len - off < pl)
		return -1;
	*out = pl == 8 ? xfmt_get_be64(buf + off) : xfmt_get_be32(buf + off);
	return 0;
}

/* -------------------------------------------------------- field tables */

#define BTF(n, o, s, k, v5, d) \
	{ .name = (n), .off = (o), .size = (s), .kind = (k), .v5only = (v5), .doc = (d) }

const struct xfmt_field xfmt_bt_short_fields[] = {
	BTF("magic", SH_MAGIC, 4, XFK_HEX, 0, "identifies the tree type and format version"),
	BTF("level", SH_LEVEL, 2, XFK_UINT, 0, "height above the leaves (0 = leaf)"),
	BTF("numrecs", SH_NUMRECS, 2, XFK_UINT, 0, "records (leaf) or key/pointer pairs (node) in use"),
	BTF("leftsib", SH_LEFTSIB, 4, XFK_NULLABLE, 0, "agbno of the left neighbour at this level"),
	BTF("rightsib", SH_RIGHTSIB, 4, XFK_NULLABLE, 0, "agbno of the right neighbour at this level"),
	BTF("bno", SH_BLKNO, 8, XFK_UINT, 1, "daddr (512-byte sector) where this block lives"),
	BTF("lsn", SH_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	BTF("uuid", SH_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"),
	BTF("owner", SH_OWNER, 4, XFK_UINT, 1, "AG number that owns the tree"),
	BTF("crc", SH_CRC, 4, XFK_CRC, 1, "CRC32c of the whole block"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_bt_long_fields[] = {
	BTF("magic", LH_MAGIC, 4, XFK_HEX, 0, "identifies the tree type and format version"),
	BTF("level", LH_LEVEL, 2, XFK_UINT, 0, "height above the leaves (0 = leaf)"),
	BTF("numrecs", LH_NUMRECS, 2, XFK_UINT, 0, "records (leaf) or key/pointer pairs (node) in use"),
	BTF("leftsib", LH_LEFTSIB, 8, XFK_NULLABLE, 0, "fsblock of the left neighbour at this level"),
	BTF("rightsib", LH_RIGHTSIB, 8, XFK_NULLABLE, 0, "fsblock of the right neighbour at this level"),
	BTF("bno", LH_BLKNO, 8, XFK_UINT, 1, "daddr (512-byte sector) where this block lives"),
	BTF("lsn", LH_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	BTF("uuid", LH_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"),
	BTF("owner", LH_OWNER, 8, XFK_UINT, 1, "inode whose fork this tree maps"),
	BTF("crc", LH_CRC, 4, XFK_CRC, 1, "CRC32c of the whole block"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_bt_fields(enum xfmt_btnum bt)
{
	return xfmt_bt_is_long(bt) ? xfmt_bt_long_fields : xfmt_bt_short_fields;
}

/* ---------------------------------------------------------------- bmdr */

unsigned xfmt_bmdr_maxrecs(size_t forksize)
{
	if (forksize <= XFMT_BMDR_HDR_LEN)
		return 0;
	return (unsigned)((forksize - XFMT_BMDR_HDR_LEN) / 16u);
}

int xfmt_bmdr_decode(const uint8_t *fork, size_t forksize, uint16_t *level,
		     uint16_t *numrecs)
{
	if (forksize < XFMT_BMDR_HDR_LEN)
		return -1;
	*level = xfmt_get_be16(fork);
	*numrecs = xfmt_get_be16(fork + 2);
	return 0;
}

int xfmt_bmdr_key(const uint8_t *fork, size_t forksize, unsigned i, uint64_t *out)
{
	if (i >= xfmt_bmdr_maxrecs(forksize))
		return -1;
	*out = xfmt_get_be64(fork + XFMT_BMDR_HDR_LEN + (size_t)i * 8);
	return 0;
}

int xfmt_bmdr_ptr(const uint8_t *fork, size_t forksize, unsigned i, uint64_t *out)
{
	unsigned maxr = xfmt_bmdr_maxrecs(forksize);

	if (i >= maxr)
		return -1;
	*out = xfmt_get_be64(fork + XFMT_BMDR_HDR_LEN + (size_t)maxr * 8 + (size_t)i * 8);
	return 0;
}

/* -------------------------------------------------------------- encode */

int xfmt_bt_hdr_encode(uint8_t *buf, size_t len, enum xfmt_btnum bt,
		       const struct xfmt_bt_hdr *h)
{
	size_t hdr = xfmt_bt_hdr_len(bt, h->v5);

	if (!hdr || len < hdr)
		return -1;
	if (xfmt_bt_is_long(bt)) {
		xfmt_put_be32(buf + LH_MAGIC, h->magic);
		xfmt_put_be16(buf + LH_LEVEL, h->level);
		xfmt_put_be16(buf + LH_NUMRECS, h->numrecs);
		xfmt_put_be64(buf + LH_LEFTSIB, h->leftsib);
		xfmt_put_be64(buf + LH_RIGHTSIB, h->rightsib);
		if (h->v5) {
			xfmt_put_be64(buf + LH_BLKNO, h->blkno);
			xfmt_put_be64(buf + LH_LSN, h->lsn);
			memcpy(buf + LH_UUID, h->uuid, 16);
			xfmt_put_be64(buf + LH_OWNER, h->owner);
			xfmt_put_le32(buf + LH_CRC, h->crc);
			xfmt_put_be32(buf + LH_PAD, h->pad);
		}
		return 0;
	}
	/* Short form: siblings and owner are 32-bit; wider values are a caller bug. */
	if (h->leftsib > UINT32_MAX || h->rightsib > UINT32_MAX || h->owner > UINT32_MAX)
		return -1;
	xfmt_put_be32(buf + SH_MAGIC, h->magic);
	xfmt_put_be16(buf + SH_LEVEL, h->level);
	xfmt_put_be16(buf + SH_NUMRECS, h->numrecs);
	xfmt_put_be32(buf + SH_LEFTSIB, (uint32_t)h->leftsib);
	xfmt_put_be32(buf + SH_RIGHTSIB, (uint32_t)h->rightsib);
	if (h->v5) {
		xfmt_put_be64(buf + SH_BLKNO, h->blkno);
		xfmt_put_be64(buf + SH_LSN, h->lsn);
		memcpy(buf + SH_UUID, h->uuid, 16);
		xfmt_put_be32(buf + SH_OWNER, (uint32_t)h->owner);
		xfmt_put_le32(buf + SH_CRC, h->crc);
	}
	return 0;
}

int xfmt_bt_put_rec(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5, unsigned i,
		    const uint8_t *rec)
{
	/* The read accessor does the bounds arithmetic; its offset is ours. */
	const uint8_t *at = xfmt_bt_rec(buf, len, bt, v5, i);

	if (!at)
		return -1;
	memcpy(buf + (at - buf), rec, xfmt_bt_rec_len(bt));
	return 0;
}

int xfmt_bt_put_key(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5, unsigned i,
		    const uint8_t *key, const uint8_t *highkey)
{
	const uint8_t *at = xfmt_bt_key(buf, len, bt, v5, i);
	size_t kl = xfmt_bt_key_len(bt);

	if (!at || (bt == XFMT_BT_RMAP) != (highkey != NULL))
		return -1;
	memcpy(buf + (at - buf), key, kl);
	if (highkey)
		memcpy(buf + (at - buf) + kl, highkey, kl);
	return 0;
}

int xfmt_bt_put_ptr(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
		    uint32_t blocksize, unsigned i, uint64_t ptr)
{
	size_t hdr = xfmt_bt_hdr_len(bt, v5), pl = xfmt_bt_ptr_len(bt);
	unsigned maxr = xfmt_bt_maxrecs(bt, blocksize, v5, false);
	uint64_t off;

	if (!hdr || i >= maxr || (pl == 4 && ptr > UINT32_MAX))
		return -1;
	off = hdr + (uint64_t)maxr * xfmt_bt_keyslot_len(bt) + (uint64_t)i * pl;
	if (off > len || len - off < pl)
		return -1;
	if (pl == 8)
		xfmt_put_be64(buf + off, ptr);
	else
		xfmt_put_be32(buf + off, (uint32_t)ptr);
	return 0;
}

void xfmt_bt_set_crc(uint8_t *buf, size_t blocksize, enum xfmt_btnum bt)
{
	xfmt_crc_update(buf, blocksize, xfmt_bt_crc_off(bt));
}
