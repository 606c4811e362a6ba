/*
 * agi.c - AGI decoding, verification, inode btree height limit and field
 * table.
 *
 * The rules are the kernel's xfs_agi_verify and xfs_validate_ag_length (made
 * exact: length must equal the AG length the superblock implies), plus the
 * bounds xfs_repair applies to roots and counts.  Each failed rule is its own
 * finding.  Walking the unlinked chains and counting inobt records is the
 * analyzer's work; here each bucket head is judged on its own.
 */
#include "formats/agi.h"

#include <string.h>

#include "formats/agf.h"
#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/sb.h"

enum {
	AGI_MAGICNUM = 0, AGI_VERSIONNUM = 4, AGI_SEQNO = 8, AGI_LENGTH = 12,
	AGI_COUNT = 16, AGI_ROOT = 20, AGI_LEVEL = 24, AGI_FREECOUNT = 28,
	AGI_NEWINO = 32, AGI_DIRINO = 36, AGI_UNLINKED = 40, AGI_UUID = 296,
	AGI_CRC = 312, AGI_PAD32 = 316, AGI_LSN = 320, AGI_FREE_ROOT = 328,
	AGI_FREE_LEVEL = 332, AGI_IBLOCKS = 336, AGI_FBLOCKS = 340, AGI_END = 344,
};

_Static_assert(AGI_END == XFS_AGI_STRUCT_SIZE, "AGI is 344 bytes");
_Static_assert(AGI_CRC == XFS_AGI_CRC_OFF, "agi_crc offset");
_Static_assert(AGI_UUID - AGI_UNLINKED == 4 * XFS_AGI_UNLINKED_BUCKETS,
	       "64 be32 unlinked buckets");

#define SBLOCK_LEN_V4  16u
#define SBLOCK_LEN_V5  56u
#define INOBT_REC      16u
#define INOBT_KEY_PTR  (4u + 4u)

int xfmt_agi_decode(const uint8_t *buf, size_t len, struct xfmt_agi *out)
{
	if (!buf || len < XFS_AGI_STRUCT_SIZE)
		return -1;
	memset(out, 0, sizeof(*out));
	out->magicnum = xfmt_get_be32(buf + AGI_MAGICNUM);
	out->versionnum = xfmt_get_be32(buf + AGI_VERSIONNUM);
	out->seqno = xfmt_get_be32(buf + AGI_SEQNO);
	out->length = xfmt_get_be32(buf + AGI_LENGTH);
	out->count = xfmt_get_be32(buf + AGI_COUNT);
	out->root = xfmt_get_be32(buf + AGI_ROOT);
	out->level = xfmt_get_be32(buf + AGI_LEVEL);
	out->freecount = xfmt_get_be32(buf + AGI_FREECOUNT);
	out->newino = xfmt_get_be32(buf + AGI_NEWINO);
	out->dirino = xfmt_get_be32(buf + AGI_DIRINO);
	for (int i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
		out->unlinked[i] = xfmt_get_be32(buf + AGI_UNLINKED + 4 * i);
	memcpy(out->uuid, buf + AGI_UUID, 16);
	out->crc = xfmt_get_le32(buf + AGI_CRC);
	out->pad32 = xfmt_get_be32(buf + AGI_PAD32);
	out->lsn = xfmt_get_be64(buf + AGI_LSN);
	out->free_root = xfmt_get_be32(buf + AGI_FREE_ROOT);
	out->free_level = xfmt_get_be32(buf + AGI_FREE_LEVEL);
	out->iblocks = xfmt_get_be32(buf + AGI_IBLOCKS);
	out->fblocks = xfmt_get_be32(buf + AGI_FBLOCKS);
	return 0;
}

uint32_t xfmt_agi_inobt_maxlevels(const struct xfmt_geom *g)
{
	uint32_t hdr = g->v5 ? SBLOCK_LEN_V5 : SBLOCK_LEN_V4;
	uint32_t room = g->blocksize > hdr ? g->blocksize - hdr : 0;
	unsigned bits = xfmt_geom_agino_bits(g);
	/* One record per 64-inode chunk of every agino the AG could name. */
	uint64_t chunks = bits >= 64 ? 0 : (((uint64_t)1 << bits) >> 6);

	return xfmt_agf_tree_maxlevels(room / INOBT_REC / 2, room / INOBT_KEY_PTR / 2,
				       chunks);
}

/* ---------------------------------------------------------------- verifier */

static unsigned emit_val(const struct xprob_sink *sink, enum xprob_code code,
			 const char *field, uint64_t off, uint64_t expected, uint64_t observed)
{
	return (unsigned)xprob_emit_val(sink, code, field, off, expected, observed);
}

static unsigned emit_obs(const struct xprob_sink *sink, enum xprob_code code,
			 const char *field, uint64_t off, uint64_t observed)
{
	return (unsigned)xprob_emit_obs(sink, code, field, off, observed);
}

static unsigned check_root(const struct xprob_sink *sink, const char *name, uint16_t off,
			   uint32_t root, uint32_t aglen, uint32_t hdr, bool collides)
{
	if (root >= aglen)
		return emit_val(sink, XP_agiBadRoot, name, off, aglen, root);
	if (root < hdr || collides)
		return emit_obs(sink, XP_agiRootsCollide, name, off, root);
	return 0;
}

static unsigned check_level(const struct xprob_sink *sink, const char *name,
			    uint16_t off, uint32_t level, uint32_t max)
{
	if (level >= 1 && level <= max)
		return 0;
	return emit_val(sink, XP_agiBadLevel, name, off, max, level);
}

static unsigned check_zero(const struct xprob_sink *sink, const char *name,
			   uint16_t off, uint64_t value)
{
	return value ? emit_obs(sink, XP_agiNonzeroPad, name, off, value) : 0;
}

static unsigned check_bytes_zero(const uint8_t *buf, size_t from, size_t to,
				 const char *name, const struct xprob_sink *sink)
{
	for (size_t i = from; i < to; i++)
		if (buf[i])
			return emit_obs(sink, XP_agiNonzeroPad, name, i, buf[i]);
	return 0;
}

static unsigned check_counts(const struct xfmt_agi *agi, const struct xfmt_geom *g,
			     uint32_t aglen, const struct xprob_sink *sink)
{
	uint64_t max = (uint64_t)aglen << g->inopblog;
	unsigned n = 0;

	if (agi->count > max)
		n += emit_val(sink, XP_agiBadCount, "count", AGI_COUNT, max, agi->count);
	else if (!xfmt_geom_has_sparse_inodes(g) && agi->count % XFS_INODES_PER_CHUNK)
		n += emit_val(sink, XP_agiBadCount, "count", AGI_COUNT,
			      agi->count - agi->count % XFS_INODES_PER_CHUNK, agi->count);
	if (agi->freecount > agi->count)
		n += emit_val(sink, XP_agiBadCount, "freecount", AGI_FREECOUNT, agi->count,
			      agi->freecount);
	return n;
}

static unsigned check_inodes(const struct xfmt_agi *agi, const struct xfmt_geom *g,
			     uint32_t agno, const struct xprob_sink *sink)
{
	unsigned n = 0;

	if (agi->newino != XFS_NULLAGINO && !xfmt_sb_agino_usable(g, agno, agi->newino))
		n += emit_obs(sink, XP_agiBadNewino, "newino", AGI_NEWINO, agi->newino);
	if (agi->dirino != XFS_NULLAGINO)
		n += emit_val(sink, XP_agiBadDirino, "dirino", AGI_DIRINO, XFS_NULLAGINO,
			      agi->dirino);
	for (uint32_t i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++) {
		uint32_t head = agi->unlinked[i];

		if (head == XFS_NULLAGINO)
			continue;
		/* An inode hangs in bucket agino % 64; off names the bucket. */
		if (!xfmt_sb_agino_usable(g, agno, head) ||
		    head % XFS_AGI_UNLINKED_BUCKETS != i)
			n += emit_obs(sink, XP_agiBadUnlinked, "unlinked", i, head);
		else
			n += emit_obs(sink, XP_agiUnlinkedInUse, "unlinked", i, head);
	}
	return n;
}

unsigned xfmt_agi_verify(const uint8_t *buf, size_t len, const struct xfmt_agi *agi,
			 const struct xfmt_geom *g, uint32_t agno,
			 const struct xprob_sink *sink)
{
	uint32_t aglen = xfmt_geom_ag_length(g, agno);
	uint32_t hdr = xfmt_sb_hdr_blocks(g);
	uint32_t imax = xfmt_agi_inobt_maxlevels(g);
	unsigned n = 0;
	size_t end;

	if (agi->magicnum != XFS_AGI_MAGIC)
		n += emit_val(sink, XP_agiBadMagic, "magicnum", AGI_MAGICNUM, XFS_AGI_MAGIC,
			      agi->magicnum);
	if (agi->versionnum != XFS_AGI_VERSION)
		n += emit_val(sink, XP_agiBadVersion, "versionnum", AGI_VERSIONNUM,
			      XFS_AGI_VERSION, agi->versionnum);
	if (agi->seqno != agno)
		n += emit_val(sink, XP_agiBadSeqno, "seqno", AGI_SEQNO, agno, agi->seqno);
	if (agi->length != aglen)
		n += emit_val(sink, XP_agiBadLength, "length", AGI_LENGTH, aglen, agi->length);

	n += check_root(sink, "root", AGI_ROOT, agi->root, aglen, hdr, false);
	n += check_level(sink, "level", AGI_LEVEL, agi->level, imax);
	if (xfmt_geom_has_finobt(g)) {
		n += check_root(sink, "free_root", AGI_FREE_ROOT, agi->free_root, aglen, hdr,
				agi->free_root == agi->root);
		n += check_level(sink, "free_level", AGI_FREE_LEVEL, agi->free_level, imax);
	} else {
		n += check_zero(sink, "free_root", AGI_FREE_ROOT, agi->free_root);
		n += check_zero(sink, "free_level", AGI_FREE_LEVEL, agi->free_level);
	}

	n += check_counts(agi, g, aglen, sink);
	n += check_inodes(agi, g, agno, sink);

	if (xfmt_geom_has_inobtcnt(g)) {
		if (agi->iblocks > aglen)
			n += emit_val(sink, XP_agiCounterTooBig, "ino_blocks", AGI_IBLOCKS, aglen,
				      agi->iblocks);
		if (agi->fblocks > aglen)
			n += emit_val(sink, XP_agiCounterTooBig, "fino_blocks", AGI_FBLOCKS, aglen,
				      agi->fblocks);
	} else {
		n += check_zero(sink, "ino_blocks", AGI_IBLOCKS, agi->iblocks);
		n += check_zero(sink, "fino_blocks", AGI_FBLOCKS, agi->fblocks);
	}

	if (g->v5) {
		if (memcmp(agi->uuid, g->meta_uuid, 16) != 0)
			n += (unsigned)xprob_emit(sink, XP_agiBadUuid, "uuid", AGI_UUID);
	} else {
		n += check_bytes_zero(buf, AGI_UUID, AGI_UUID + 16, "uuid", sink);
		n += check_zero(sink, "crc", AGI_CRC, agi->crc);
		n += check_zero(sink, "lsn", AGI_LSN, agi->lsn);
	}
	n += check_zero(sink, "pad32", AGI_PAD32, agi->pad32);
	end = len < g->sectsize ? len : g->sectsize;
	n += check_bytes_zero(buf, AGI_END, end, "sector tail", sink);

	if (g->v5 && len >= g->sectsize && g->sectsize >= XFS_AGI_STRUCT_SIZE) {
		uint32_t want = xfmt_crc32c_excluding(buf, g->sectsize, AGI_CRC);

		if (want != agi->crc)
			n += emit_val(sink, XP_agiBadCrc, "crc", AGI_CRC, want, agi->crc);
	}
	return n;
}

/* ---------------------------------------------------------------- fields */

#define F(nm, of, sz, kd, v5, dc) \
	{ .name = (nm), .off = (of), .size = (sz), .kind = (kd), .v5only = (v5), .doc = (dc) }

const struct xfmt_field xfmt_agi_fields[] = {
	F("magicnum", AGI_MAGICNUM, 4, XFK_HEX, 0, "magic number 0x58414749 \"XAGI\""),
	F("versionnum", AGI_VERSIONNUM, 4, XFK_UINT, 0, "AGI version, 1"),
	F("seqno", AGI_SEQNO, 4, XFK_NULLABLE, 0, "AG number"),
	F("length", AGI_LENGTH, 4, XFK_NULLABLE, 0, "AG size in blocks"),
	F("count", AGI_COUNT, 4, XFK_NULLABLE, 0, "inodes allocated in the AG (free ones included)"),
	F("root", AGI_ROOT, 4, XFK_NULLABLE, 0, "root block of the inode btree"),
	F("level", AGI_LEVEL, 4, XFK_UINT, 0, "height of the inode btree"),
	F("freecount", AGI_FREECOUNT, 4, XFK_NULLABLE, 0, "free inodes in allocated chunks"),
	F("newino", AGI_NEWINO, 4, XFK_NULLABLE, 0, "agino of the most recently allocated chunk"),
	F("dirino", AGI_DIRINO, 4, XFK_NULLABLE, 0, "unused, null"),
	F("unlinked", AGI_UNLINKED, 4 * XFS_AGI_UNLINKED_BUCKETS, XFK_BYTES, 0,
	  "64 heads of unlinked-but-open inode lists (agino or null), bucket = agino % 64"),
	F("uuid", AGI_UUID, 16, XFK_UUID, 1, "metadata UUID of the filesystem"),
	F("crc", AGI_CRC, 4, XFK_CRC, 1, "CRC32c of the sector (little-endian)"),
	F("lsn", AGI_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	F("free_root", AGI_FREE_ROOT, 4, XFK_NULLABLE, 1, "root block of the free inode btree"),
	F("free_level", AGI_FREE_LEVEL, 4, XFK_UINT, 1, "height of the free inode btree"),
	F("ino_blocks", AGI_IBLOCKS, 4, XFK_UINT, 1, "blocks in the inode btree, root included"),
	F("fino_blocks", AGI_FBLOCKS, 4, XFK_UINT, 1, "blocks in the free inode btree, root included"),
	XFMT_FIELD_END
};

/* ---------------------------------------------------------------- encoder */

int xfmt_agi_encode(uint8_t *buf, size_t len, const struct xfmt_agi *agi,
		    const struct xfmt_geom *g)
{
	if (!buf || g->sectsize < XFS_AGI_STRUCT_SIZE || len < g->sectsize)
		return -1;
	/* pad32 and the sector tail must read as zero. */
	memset(buf, 0, g->sectsize);
	xfmt_put_be32(buf + AGI_MAGICNUM, agi->magicnum);
	xfmt_put_be32(buf + AGI_VERSIONNUM, agi->versionnum);
	xfmt_put_be32(buf + AGI_SEQNO, agi->seqno);
	xfmt_put_be32(buf + AGI_LENGTH, agi->length);
	xfmt_put_be32(buf + AGI_COUNT, agi->count);
	xfmt_put_be32(buf + AGI_ROOT, agi->root);
	xfmt_put_be32(buf + AGI_LEVEL, agi->level);
	xfmt_put_be32(buf + AGI_FREECOUNT, agi->freecount);
	xfmt_put_be32(buf + AGI_NEWINO, agi->newino);
	xfmt_put_be32(buf + AGI_DIRINO, agi->dirino);
	for (int i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
		xfmt_put_be32(buf + AGI_UNLINKED + 4 * i, agi->unlinked[i]);
	xfmt_put_be32(buf + AGI_FREE_ROOT, agi->free_root);
	xfmt_put_be32(buf + AGI_FREE_LEVEL, agi->free_level);
	xfmt_put_be32(buf + AGI_IBLOCKS, agi->iblocks);
	xfmt_put_be32(buf + AGI_FBLOCKS, agi->fblocks);
	if (g->v5) {
		memcpy(buf + AGI_UUID, agi->uuid, 16);
		xfmt_put_be64(buf + AGI_LSN, agi->lsn);
		xfmt_crc_update(buf, g->sectsize, AGI_CRC);
	}
	return 0;
}
