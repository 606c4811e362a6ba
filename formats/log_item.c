/*
 * log_item.c - decoders for logged items and the pure replay steps (see
 * log_item.h).
 *
 * Offsets of the format regions come from the log format header of the
 * kernel and xfsprogs (xfs_log_format.h); the replay rules from kernel
 * recovery (xfs_buf_item_recover.c, xfs_inode_item_recover.c,
 * xfs_icreate_item.c).  Every length a region claims is checked against
 * the bytes it has and the buffer it lands in.
 */
#include "formats/log_item.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/dinode_layout.h"
#include "formats/endian.h"

/* xfs_buf_log_format */
#define BLF_TYPE     0
#define BLF_SIZE     2
#define BLF_FLAGS    4
#define BLF_LEN      6
#define BLF_BLKNO    8
#define BLF_MAP_SIZE 16
#define BLF_MAP      20

/* xfs_inode_log_format (56 bytes) and its packed 52-byte variant */
#define ILF_SIZE     2
#define ILF_FIELDS   4
#define ILF_ASIZE    8
#define ILF_DSIZE    10
#define ILF_INO      16
#define ILF_RDEV     24
#define ILF_BLKNO    40
#define ILF_LEN      48
#define ILF_BOFFSET  52
#define ILF32_INO     12
#define ILF32_RDEV    20
#define ILF32_BLKNO   36
#define ILF32_LEN     44
#define ILF32_BOFFSET 48

_Static_assert(ILF_BOFFSET + 4 == XLOG_INODE_FMT_SIZE, "inode log format is 56 bytes");
_Static_assert(ILF32_BOFFSET + 4 == XLOG_INODE_FMT32_SIZE, "packed inode log format is 52 bytes");
_Static_assert(BLF_MAP + 4 * XFS_BLF_DATAMAP_WORDS + 4 == 88, "buf log format is 88 bytes");


_Static_assert(DI_UUID + 16 == XLOG_DINODE_V3_SIZE, "log dinode is 176 bytes");

#define DINODE_MAGIC  0x494Eu
#define DI_MAX_FLUSH  0xFFFFu
#define FLAG2_BIGTIME 0x08ull
#define FLAG2_NREXT64 0x10ull
#define S_IFMT_MASK   0170000u
#define S_IFREG_BITS  0100000u
#define S_IFDIR_BITS  0040000u
#define FMT_LOCAL     1
#define FMT_EXTENTS   2
#define FMT_BTREE     3

/* long btree block headers; bmdr */
#define LBLOCK_LEVEL    4
#define LBLOCK_NUMRECS  6
#define LBLOCK_HDR_V4   24u
#define LBLOCK_HDR_V5   72u
#define BMDR_HDR        4u
#define BMBT_KEYPTR     16u  /* an 8-byte key and an 8-byte pointer */

const char *xfmt_log_item_name(uint16_t type)
{
	switch (type) {
	case XFS_LI_EFI: return "efi";
	case XFS_LI_EFD: return "efd";
	case XFS_LI_IUNLINK: return "iunlink";
	case XFS_LI_INODE: return "inode";
	case XFS_LI_BUF: return "buf";
	case XFS_LI_DQUOT: return "dquot";
	case XFS_LI_QUOTAOFF: return "quotaoff";
	case XFS_LI_ICREATE: return "icreate";
	case XFS_LI_RUI: return "rui";
	case XFS_LI_RUD: return "rud";
	case XFS_LI_CUI: return "cui";
	case XFS_LI_CUD: return "cud";
	case XFS_LI_BUI: return "bui";
	case XFS_LI_BUD: return "bud";
	case XFS_LI_ATTRI: return "attri";
	case XFS_LI_ATTRD: return "attrd";
	case XFS_LI_XMI: return "xmi";
	case XFS_LI_XMD: return "xmd";
	}
	return "?";
}

/* ---- buffer items ---- */

int xfmt_log_buf_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_buf *out)
{
	const struct xfmt_log_region *f;

	memset(out, 0, sizeof(*out));
	if (!it->nregions || it->regions[0].len < XLOG_BUF_FMT_MIN)
		return -1;
	f = &it->regions[0];
	out->flags = xfmt_log_get16(f->data + BLF_FLAGS, big);
	out->len = xfmt_log_get16(f->data + BLF_LEN, big);
	out->blkno = xfmt_log_get64(f->data + BLF_BLKNO, big);
	out->map_size = xfmt_log_get32(f->data + BLF_MAP_SIZE, big);
	out->nregions = it->nregions;
	out->blft = (uint8_t)((out->flags >> XFS_BLFT_SHIFT) & XFS_BLFT_MASK);
	if (out->len == 0 || out->len > XLOG_MAX_BUF_BBS || out->map_size > XFS_BLF_DATAMAP_WORDS ||
	    (uint64_t)BLF_MAP + 4ull * out->map_size > f->len)
		return -1;
	/* A cancel record carries no data; the others' bitmap must cover the
	 * buffer it describes. */
	if (!(out->flags & XFS_BLF_CANCEL) &&
	    (uint64_t)out->map_size * 32 * XFS_BLF_CHUNK < (uint64_t)out->len * 512)
		return -1;
	for (uint32_t i = 0; i < out->map_size; i++)
		out->map[i] = xfmt_log_get32(f->data + BLF_MAP + 4 * i, big);
	return 0;
}

static bool map_bit(const struct xfmt_log_buf *b, uint32_t bit)
{
	return bit / 32 < b->map_size && (b->map[bit / 32] >> (bit % 32)) & 1u;
}

/* First set bit at or after bit, or -1. */
static int64_t next_bit(const struct xfmt_log_buf *b, uint32_t bit)
{
	for (uint32_t i = bit; i < b->map_size * 32; i++)
		if (map_bit(b, i))
			return i;
	return -1;
}

/* Set bits from bit on. */
static uint32_t contig_bits(const struct xfmt_log_buf *b, uint32_t bit)
{
	uint32_t n = 0;

	while (map_bit(b, bit + n))
		n++;
	return n;
}

int xfmt_log_buf_apply(const struct xfmt_log_titem *it, const struct xfmt_log_buf *b, uint8_t *buf,
		       size_t buflen)
{
	uint32_t i = 1, bit = 0;

	for (;;) {
		int64_t nb = next_bit(b, bit);
		uint32_t nbits;
		const struct xfmt_log_region *r;

		if (nb < 0)
			break;
		bit = (uint32_t)nb;
		nbits = contig_bits(b, bit);
		if (i >= it->nregions)
			return -1;
		r = &it->regions[i];
		/* A dirty run may be logged as several regions (a page
		 * boundary split it): copy what this region holds. */
		if (r->len < nbits * XFS_BLF_CHUNK)
			nbits = r->len / XFS_BLF_CHUNK;
		if (nbits == 0 || (uint64_t)(bit + nbits) * XFS_BLF_CHUNK > buflen)
			return -1;
		memcpy(buf + (size_t)bit * XFS_BLF_CHUNK, r->data, (size_t)nbits * XFS_BLF_CHUNK);
		i++;
		bit += nbits;
	}
	return 0;
}

int xfmt_log_inode_buf_apply(const struct xfmt_log_titem *it, const struct xfmt_log_buf *b,
			     uint8_t *buf, size_t buflen, uint32_t inodesize, bool crc)
{
	uint32_t idx = 0, bit = 0, nbits = 0;
	uint64_t reg_off = 0, reg_bytes = 0;
	int touched = 0;

	if (inodesize < 256 || inodesize > buflen)
		return -1;
	for (size_t i = 0; i < buflen / inodesize; i++) {
		uint64_t nu = (uint64_t)i * inodesize + DI_NEXT_UNLINKED;
		const struct xfmt_log_region *r;

		while (nu >= reg_off + reg_bytes) {
			int64_t nb = next_bit(b, bit + nbits);

			if (nb < 0)
				return touched;
			bit = (uint32_t)nb;
			nbits = contig_bits(b, bit);
			reg_off = (uint64_t)bit * XFS_BLF_CHUNK;
			reg_bytes = (uint64_t)nbits * XFS_BLF_CHUNK;
			idx++;
		}
		if (nu < reg_off)
			continue;
		if (idx >= it->nregions || reg_off + reg_bytes > buflen)
			return -1;
		r = &it->regions[idx];
		if (nu - reg_off + 4 > r->len)
			return -1;
		if (xfmt_get_be32(r->data + (nu - reg_off)) == 0)
			return -1;
		memcpy(buf + nu, r->data + (nu - reg_off), 4);
		if (crc)
			xfmt_crc_update(buf + i * inodesize, inodesize, DI_CRC);
		touched++;
	}
	return touched;
}

/* Where a self-describing block keeps its LSN, uuid and CRC. */
struct seal_layout {
	uint32_t lsn_off, uuid_off, crc_off;
	bool     has_lsn;      /* recovery trusts and stamps the LSN */
	bool     per_block;    /* CRC per fs block (remote attr values) */
};

static bool seal_layout_of(const uint8_t *buf, size_t len, struct seal_layout *l)
{
	uint32_t m32;
	uint16_t m16;

	if (len < 64)
		return false;
	memset(l, 0, sizeof(*l));
	m32 = xfmt_get_be32(buf);
	switch (m32) {
	case 0x41423342u: /* AB3B bnobt */
	case 0x41423343u: /* AB3C cntbt */
	case 0x49414233u: /* IAB3 inobt */
	case 0x46494233u: /* FIB3 finobt */
	case 0x524D4233u: /* RMB3 rmapbt */
	case 0x52334643u: /* R3FC refcountbt */
		*l = (struct seal_layout){ 24, 32, 52, true, false };
		return true;
	case 0x424D4133u: /* BMA3 bmbt */
		*l = (struct seal_layout){ 32, 40, 64, true, false };
		return true;
	case 0x58414746u: /* XAGF */
		*l = (struct seal_layout){ 208, 64, 216, true, false };
		return true;
	case 0x58414749u: /* XAGI */
		if (len < 336)
			return false;
		*l = (struct seal_layout){ 320, 296, 312, true, false };
		return true;
	case 0x5841464Cu: /* XAFL */
		*l = (struct seal_layout){ 24, 8, 32, true, false };
		return true;
	case 0x58534C4Du: /* XSLM symlink */
		*l = (struct seal_layout){ 48, 16, 12, true, false };
		return true;
	case 0x58444233u: /* XDB3 */
	case 0x58444433u: /* XDD3 */
	case 0x58444633u: /* XDF3 */
		*l = (struct seal_layout){ 16, 24, 4, true, false };
		return true;
	case 0x5841524Du: /* XARM: written synchronously, no trusted LSN */
		*l = (struct seal_layout){ 0, 16, 12, false, true };
		return true;
	case 0x58465342u: /* XFSB */
		if (len < 264)
			return false;
		*l = (struct seal_layout){ 240, 248, 224, true, false };
		return true;
	}
	m16 = xfmt_get_be16(buf + 8);
	switch (m16) {
	case 0x3DF1u: /* dir leaf1 */
	case 0x3DFFu: /* dir leafn */
	case 0x3BEEu: /* attr leaf */
	case 0x3EBEu: /* da node */
		*l = (struct seal_layout){ 24, 32, 12, true, false };
		return true;
	}
	return false;
}

bool xfmt_log_buf_lsn(const uint8_t *buf, size_t len, const uint8_t meta_uuid[16], uint64_t *lsn)
{
	struct seal_layout l;

	if (!seal_layout_of(buf, len, &l) || !l.has_lsn)
		return false;
	/* The superblock keeps the metadata uuid at 248 only with the
	 * META_UUID feature; otherwise sb_uuid (offset 32) is it. */
	if (memcmp(buf + l.uuid_off, meta_uuid, 16) != 0 &&
	    !(xfmt_get_be32(buf) == 0x58465342u && memcmp(buf + 32, meta_uuid, 16) == 0))
		return false;
	*lsn = xfmt_get_be64(buf + l.lsn_off);
	return true;
}

bool xfmt_log_buf_seal(uint8_t *buf, size_t len, uint64_t lsn, uint32_t blocksize)
{
	struct seal_layout l;

	if (!seal_layout_of(buf, len, &l))
		return false;
	if (l.per_block) {
		if (blocksize < 512 || len % blocksize)
			return false;
		for (size_t off = 0; off < len; off += blocksize)
			if (xfmt_get_be32(buf + off) == 0x5841524Du)
				xfmt_crc_update(buf + off, blocksize, l.crc_off);
		return true;
	}
	if (l.has_lsn)
		xfmt_put_be64(buf + l.lsn_off, lsn);
	xfmt_crc_update(buf, len, l.crc_off);
	return true;
}

/* ---- inode items ---- */

int xfmt_log_inode_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_inode *out)
{
	const struct xfmt_log_region *f;

	memset(out, 0, sizeof(*out));
	if (!it->nregions)
		return -1;
	f = &it->regions[0];
	if (f->len != XLOG_INODE_FMT_SIZE && f->len != XLOG_INODE_FMT32_SIZE)
		return -1;
	out->nregions = xfmt_log_get16(f->data + ILF_SIZE, big);
	out->fields = xfmt_log_get32(f->data + ILF_FIELDS, big);
	out->asize = xfmt_log_get16(f->data + ILF_ASIZE, big);
	out->dsize = xfmt_log_get16(f->data + ILF_DSIZE, big);
	if (f->len == XLOG_INODE_FMT_SIZE) {
		out->ino = xfmt_log_get64(f->data + ILF_INO, big);
		out->rdev = xfmt_log_get32(f->data + ILF_RDEV, big);
		out->blkno = xfmt_log_get64(f->data + ILF_BLKNO, big);
		out->len = xfmt_log_get32(f->data + ILF_LEN, big);
		out->boffset = xfmt_log_get32(f->data + ILF_BOFFSET, big);
	} else {
		out->ino = xfmt_log_get64(f->data + ILF32_INO, big);
		out->rdev = xfmt_log_get32(f->data + ILF32_RDEV, big);
		out->blkno = xfmt_log_get64(f->data + ILF32_BLKNO, big);
		out->len = xfmt_log_get32(f->data + ILF32_LEN, big);
		out->boffset = xfmt_log_get32(f->data + ILF32_BOFFSET, big);
	}
	if (out->nregions < 2 || out->nregions > 4 || out->len == 0 ||
	    out->len > XLOG_MAX_BUF_BBS)
		return -1;
	return 0;
}

int xfmt_log_bmbt_to_bmdr(const uint8_t *src, size_t srclen, bool crc, uint8_t *dst, size_t dstlen)
{
	uint32_t hdr = crc ? LBLOCK_HDR_V5 : LBLOCK_HDR_V4;
	uint32_t smax, dmax, n;

	if (srclen < hdr || dstlen < BMDR_HDR)
		return -1;
	smax = (uint32_t)((srclen - hdr) / BMBT_KEYPTR);
	dmax = (uint32_t)((dstlen - BMDR_HDR) / BMBT_KEYPTR);
	n = xfmt_get_be16(src + LBLOCK_NUMRECS);
	if (n > smax || n > dmax)
		return -1;
	memcpy(dst, src + LBLOCK_LEVEL, 2);
	memcpy(dst + 2, src + LBLOCK_NUMRECS, 2);
	memcpy(dst + BMDR_HDR, src + hdr, (size_t)n * 8);
	memcpy(dst + BMDR_HDR + (size_t)dmax * 8, src + hdr + (size_t)smax * 8, (size_t)n * 8);
	return 0;
}

/* A timestamp: bigtime is one u64, legacy two s32 (seconds, nanoseconds). */
static void put_ts(uint8_t *to, const uint8_t *from, bool big, bool bigtime)
{
	if (bigtime) {
		xfmt_put_be64(to, xfmt_log_get64(from, big));
		return;
	}
	xfmt_put_be32(to, xfmt_log_get32(from, big));
	xfmt_put_be32(to + 4, xfmt_log_get32(from + 4, big));
}

/* The logged core's checks recovery makes before it writes anything. */
static bool log_core_sane(const uint8_t *ld, bool big, uint32_t inodesize)
{
	uint16_t mode = xfmt_log_get16(ld + DI_MODE, big);
	uint8_t fmt = ld[DI_FORMAT], version = ld[DI_VERSION];
	uint64_t flags2 = version >= 3 ? xfmt_log_get64(ld + DI_FLAGS2, big) : 0;
	uint64_t nblocks = xfmt_log_get64(ld + DI_NBLOCKS, big), next, anext;

	if ((mode & S_IFMT_MASK) == S_IFREG_BITS && fmt != FMT_EXTENTS && fmt != FMT_BTREE)
		return false;
	if ((mode & S_IFMT_MASK) == S_IFDIR_BITS && fmt != FMT_EXTENTS && fmt != FMT_BTREE &&
	    fmt != FMT_LOCAL)
		return false;
	if (flags2 & FLAG2_NREXT64) {
		if (xfmt_log_get16(ld + DI_ANEXTENTS, big) != 0)
			return false;
		next = xfmt_log_get64(ld + DI_BIG_NEXTENTS, big);
		anext = xfmt_log_get32(ld + DI_NEXTENTS, big);
	} else {
		if (version == 3 && xfmt_log_get64(ld + DI_BIG_NEXTENTS, big) != 0)
			return false;
		next = xfmt_log_get32(ld + DI_NEXTENTS, big);
		anext = xfmt_log_get16(ld + DI_ANEXTENTS, big);
	}
	if (next > nblocks || anext > nblocks - next)
		return false;
	return (uint32_t)ld[DI_FORKOFF] * 8u <= inodesize;
}

/* xfs_log_dinode_to_disk: field by field into disk order. */
static void log_core_to_disk(const uint8_t *ld, bool big, uint8_t *d, uint64_t lsn)
{
	uint8_t version = ld[DI_VERSION];
	uint64_t flags2 = version >= 3 ? xfmt_log_get64(ld + DI_FLAGS2, big) : 0;
	bool bigtime = (flags2 & FLAG2_BIGTIME) != 0;

	xfmt_put_be16(d + DI_MAGIC, xfmt_log_get16(ld + DI_MAGIC, big));
	xfmt_put_be16(d + DI_MODE, xfmt_log_get16(ld + DI_MODE, big));
	d[DI_VERSION] = version;
	d[DI_FORMAT] = ld[DI_FORMAT];
	xfmt_put_be16(d + DI_ONLINK, 0);
	xfmt_put_be32(d + DI_UID, xfmt_log_get32(ld + DI_UID, big));
	xfmt_put_be32(d + DI_GID, xfmt_log_get32(ld + DI_GID, big));
	xfmt_put_be32(d + DI_NLINK, xfmt_log_get32(ld + DI_NLINK, big));
	xfmt_put_be16(d + DI_PROJID_LO, xfmt_log_get16(ld + DI_PROJID_LO, big));
	xfmt_put_be16(d + DI_PROJID_HI, xfmt_log_get16(ld + DI_PROJID_HI, big));
	put_ts(d + DI_ATIME, ld + DI_ATIME, big, bigtime);
	put_ts(d + DI_MTIME, ld + DI_MTIME, big, bigtime);
	put_ts(d + DI_CTIME, ld + DI_CTIME, big, bigtime);
	xfmt_put_be64(d + DI_SIZE, xfmt_log_get64(ld + DI_SIZE, big));
	xfmt_put_be64(d + DI_NBLOCKS, xfmt_log_get64(ld + DI_NBLOCKS, big));
	xfmt_put_be32(d + DI_EXTSIZE, xfmt_log_get32(ld + DI_EXTSIZE, big));
	d[DI_FORKOFF] = ld[DI_FORKOFF];
	d[DI_AFORMAT] = ld[DI_AFORMAT];
	xfmt_put_be32(d + DI_DMEVMASK, xfmt_log_get32(ld + DI_DMEVMASK, big));
	xfmt_put_be16(d + DI_DMSTATE, xfmt_log_get16(ld + DI_DMSTATE, big));
	xfmt_put_be16(d + DI_FLAGS, xfmt_log_get16(ld + DI_FLAGS, big));
	xfmt_put_be32(d + DI_GEN, xfmt_log_get32(ld + DI_GEN, big));
	if (version == 3) {
		xfmt_put_be64(d + DI_CHANGECOUNT, xfmt_log_get64(ld + DI_CHANGECOUNT, big));
		put_ts(d + DI_CRTIME, ld + DI_CRTIME, big, bigtime);
		xfmt_put_be64(d + DI_FLAGS2, flags2);
		xfmt_put_be32(d + DI_COWEXTSIZE, xfmt_log_get32(ld + DI_COWEXTSIZE, big));
		xfmt_put_be64(d + DI_INO, xfmt_log_get64(ld + DI_INO, big));
		xfmt_put_be64(d + DI_LSN, lsn);
		memset(d + DI_PAD2, 0, 12);
		memcpy(d + DI_UUID, ld + DI_UUID, 16);
		xfmt_put_be64(d + DI_BIG_NEXTENTS, 0);
	} else {
		/* Recovery resets the flush counter while it is here. */
		memset(d + DI_BIG_NEXTENTS, 0, 6);
		xfmt_put_be16(d + DI_FLUSHITER, 0);
	}
	if (flags2 & FLAG2_NREXT64) {
		xfmt_put_be64(d + DI_BIG_NEXTENTS, xfmt_log_get64(ld + DI_BIG_NEXTENTS, big));
		xfmt_put_be32(d + DI_NEXTENTS, xfmt_log_get32(ld + DI_NEXTENTS, big));
		xfmt_put_be16(d + DI_ANEXTENTS, xfmt_log_get16(ld + DI_ANEXTENTS, big));
	} else {
		xfmt_put_be32(d + DI_NEXTENTS, xfmt_log_get32(ld + DI_NEXTENTS, big));
		xfmt_put_be16(d + DI_ANEXTENTS, xfmt_log_get16(ld + DI_ANEXTENTS, big));
	}
}

/* Copy one logged fork region into [dst, dst+room). */
static bool put_fork(const struct xfmt_log_region *r, bool broot, bool crc, uint8_t *dst,
		     uint32_t room)
{
	if (broot)
		return xfmt_log_bmbt_to_bmdr(r->data, r->len, crc, dst, room) == 0;
	if (r->len > room)
		return false;
	memcpy(dst, r->data, r->len);
	return true;
}

enum xfmt_log_inode_skip xfmt_log_inode_apply(const struct xfmt_log_titem *it,
					      const struct xfmt_log_inode *in, bool big,
					      uint8_t *dip, uint32_t inodesize, bool v3inodes,
					      uint64_t lsn)
{
	const struct xfmt_log_region *core;
	uint32_t isize = v3inodes ? XLOG_DINODE_V3_SIZE : XLOG_DINODE_V2_SIZE;
	uint32_t lit, forkoff, dsize, asize, idx;
	uint8_t scratch[XLOG_DINODE_V3_SIZE];

	if (it->nregions < 2 || it->nregions < in->nregions || inodesize < 256)
		return XLOG_INODE_BAD;
	if (xfmt_get_be16(dip + DI_MAGIC) != DINODE_MAGIC)
		return XLOG_INODE_BAD;
	core = &it->regions[1];
	if (core->len > isize || core->len < XLOG_DINODE_V2_SIZE)
		return XLOG_INODE_BAD;
	/* Work on a full-size copy so a short v2 core reads zeros past its end. */
	memset(scratch, 0, sizeof(scratch));
	memcpy(scratch, core->data, core->len);
	if (xfmt_log_get16(scratch + DI_MAGIC, big) != DINODE_MAGIC)
		return XLOG_INODE_BAD;
	if (scratch[DI_VERSION] == 3 && core->len < XLOG_DINODE_V3_SIZE)
		return XLOG_INODE_BAD;
	if (dip[DI_VERSION] >= 3) {
		uint64_t disk = xfmt_get_be64(dip + DI_LSN);

		if (disk && disk != UINT64_MAX && disk > lsn)
			return XLOG_INODE_NEWER;
	}
	if (!v3inodes) {
		uint16_t lf = xfmt_log_get16(scratch + DI_FLUSHITER, big);
		uint16_t df = xfmt_get_be16(dip + DI_FLUSHITER);

		if (lf < df && !(df == DI_MAX_FLUSH && lf < (DI_MAX_FLUSH >> 1)))
			return XLOG_INODE_FLUSHITER;
	}
	if (!log_core_sane(scratch, big, inodesize))
		return XLOG_INODE_BAD;

	log_core_to_disk(scratch, big, dip, lsn);
	lit = dip[DI_VERSION] == 3 ? XLOG_DINODE_V3_SIZE : XLOG_DINODE_V2_SIZE;
	forkoff = (uint32_t)dip[DI_FORKOFF] * 8u;
	if (lit + forkoff > inodesize)
		return XLOG_INODE_BAD;
	dsize = forkoff ? forkoff : inodesize - lit;
	asize = forkoff ? inodesize - lit - forkoff : 0;
	if (in->fields & XFS_ILOG_DEV)
		xfmt_put_be32(dip + lit, in->rdev);

	idx = 2;
	if (in->nregions > 2 && (in->fields & XFS_ILOG_DFORK)) {
		/* The data fork's region: recovery copies its whole length. */
		if (!put_fork(&it->regions[idx], (in->fields & XFS_ILOG_DFORK) == XFS_ILOG_DBROOT,
			      v3inodes, dip + lit, (in->fields & XFS_ILOG_DBROOT) ? dsize : inodesize - lit))
			return XLOG_INODE_BAD;
		idx++;
	}
	if (in->fields & XFS_ILOG_AFORK) {
		if (idx >= in->nregions)
			return XLOG_INODE_BAD;
		if (!put_fork(&it->regions[idx], (in->fields & XFS_ILOG_AFORK) == XFS_ILOG_ABROOT,
			      v3inodes, dip + lit + forkoff, asize))
			return XLOG_INODE_BAD;
	}
	if (dip[DI_VERSION] == 3)
		xfmt_crc_update(dip, inodesize, DI_CRC);
	return XLOG_INODE_REPLAYED;
}

/* ---- icreate and intents ---- */

int xfmt_log_icreate_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_icreate *out)
{
	const uint8_t *p;

	memset(out, 0, sizeof(*out));
	if (!it->nregions || it->regions[0].len < XLOG_ICREATE_SIZE)
		return -1;
	p = it->regions[0].data;
	if (xfmt_log_get16(p, big) != XFS_LI_ICREATE || xfmt_log_get16(p + 2, big) != 1)
		return -1;
	out->agno = xfmt_get_be32(p + 4);
	out->agbno = xfmt_get_be32(p + 8);
	out->count = xfmt_get_be32(p + 12);
	out->isize = xfmt_get_be32(p + 16);
	out->length = xfmt_get_be32(p + 20);
	out->gen = xfmt_get_be32(p + 24);
	return 0;
}

int xfmt_log_icreate_init(uint8_t *buf, size_t len, uint32_t inodesize, uint8_t version,
			  uint64_t first_ino, uint32_t gen, const uint8_t meta_uuid[16])
{
	if (inodesize < 256 || len % inodesize)
		return -1;
	memset(buf, 0, len);
	for (size_t i = 0; i < len / inodesize; i++) {
		uint8_t *d = buf + i * inodesize;

		xfmt_put_be16(d + DI_MAGIC, DINODE_MAGIC);
		d[DI_VERSION] = version;
		xfmt_put_be32(d + DI_GEN, gen);
		xfmt_put_be32(d + DI_NEXT_UNLINKED, 0xFFFFFFFFu);
		if (version == 3) {
			xfmt_put_be64(d + DI_INO, first_ino + i);
			memcpy(d + DI_UUID, meta_uuid, 16);
			xfmt_crc_update(d, inodesize, DI_CRC);
		}
	}
	return 0;
}

int xfmt_log_intent_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_intent *out)
{
	const uint8_t *p;
	uint16_t t;

	memset(out, 0, sizeof(*out));
	if (!it->nregions || it->regions[0].len < 16)
		return -1;
	p = it->regions[0].data;
	t = xfmt_log_get16(p, big);
	switch (t) {
	case XFS_LI_EFI: case XFS_LI_RUI: case XFS_LI_CUI: case XFS_LI_BUI:
		out->nextents = xfmt_log_get32(p + 4, big);
		/* fall through */
	case XFS_LI_ATTRI: case XFS_LI_XMI:
		out->intent = t;
		break;
	case XFS_LI_EFD: case XFS_LI_RUD: case XFS_LI_CUD: case XFS_LI_BUD:
	case XFS_LI_ATTRD: case XFS_LI_XMD:
		/* Each done type is its intent's type plus one. */
		out->intent = (uint16_t)(t - 1);
		out->done = true;
		break;
	default:
		return -1;
	}
	out->type = t;
	out->id = xfmt_log_get64(p + 8, big);
	return 0;
}
