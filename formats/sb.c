/*
 * sb.c - superblock decoding, verification, geometry derivation, copy
 * comparison and the field table.
 *
 * The verifier follows the kernel's xfs_validate_sb_common and
 * xfs_validate_sb_read and xfs_repair's verify_sb, but reports every failed
 * rule instead of stopping at the first.  To keep one corruption from
 * echoing through several findings, the size fields (sectsize, blocksize,
 * inodesize) are the anchors: a *log field is judged against the log2 of its
 * size when the size is valid, and checks that need a size are skipped when
 * that size is itself already reported bad.
 */
#include "formats/sb.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

/* Byte offsets of the on-disk fields (xfs_dsb). */
enum {
	SB_MAGICNUM = 0, SB_BLOCKSIZE = 4, SB_DBLOCKS = 8, SB_RBLOCKS = 16,
	SB_REXTENTS = 24, SB_UUID = 32, SB_LOGSTART = 48, SB_ROOTINO = 56,
	SB_RBMINO = 64, SB_RSUMINO = 72, SB_REXTSIZE = 80, SB_AGBLOCKS = 84,
	SB_AGCOUNT = 88, SB_RBMBLOCKS = 92, SB_LOGBLOCKS = 96,
	SB_VERSIONNUM = 100, SB_SECTSIZE = 102, SB_INODESIZE = 104,
	SB_INOPBLOCK = 106, SB_FNAME = 108, SB_BLOCKLOG = 120, SB_SECTLOG = 121,
	SB_INODELOG = 122, SB_INOPBLOG = 123, SB_AGBLKLOG = 124,
	SB_REXTSLOG = 125, SB_INPROGRESS = 126, SB_IMAX_PCT = 127,
	SB_ICOUNT = 128, SB_IFREE = 136, SB_FDBLOCKS = 144, SB_FREXTENTS = 152,
	SB_UQUOTINO = 160, SB_GQUOTINO = 168, SB_QFLAGS = 176, SB_FLAGS = 178,
	SB_SHARED_VN = 179, SB_INOALIGNMT = 180, SB_UNIT = 184, SB_WIDTH = 188,
	SB_DIRBLKLOG = 192, SB_LOGSECTLOG = 193, SB_LOGSECTSIZE = 194,
	SB_LOGSUNIT = 196, SB_FEATURES2 = 200, SB_BAD_FEATURES2 = 204,
	SB_FEATURES_COMPAT = 208, SB_FEATURES_RO_COMPAT = 212,
	SB_FEATURES_INCOMPAT = 216, SB_FEATURES_LOG_INCOMPAT = 220,
	SB_CRC = 224, SB_SPINO_ALIGN = 228, SB_PQUOTINO = 232, SB_LSN = 240,
	SB_META_UUID = 248, SB_END = 264,
	/* METADIR */
	SB_METADIRINO = 264, SB_RGCOUNT = 272, SB_RGEXTENTS = 276, SB_RGBLKLOG = 280,
	SB_METADIR_PAD = 281, SB_METADIR_END = 288,
};
_Static_assert(SB_METADIR_PAD == XFS_SB_METADIR_END, "metadir fields end at 281");

_Static_assert(SB_END == XFS_SB_STRUCT_SIZE, "superblock is 264 bytes");
_Static_assert(SB_CRC == XFS_SB_CRC_OFF, "sb_crc offset");
_Static_assert(SB_FEATURES_COMPAT == XFS_SB_V4_SIZE, "v4 fields end at 208");
_Static_assert(SB_META_UUID + 16 == SB_END, "meta_uuid is the last field");

/* Limits from the kernel's xfs_types.h / xfs_fs.h / xfs_log_format.h. */
#define MIN_SECTORSIZE      512u
#define MAX_SECTORSIZE      32768u
#define MIN_BLOCKSIZE       512u
#define MAX_BLOCKSIZE       65536u
#define MAX_BLOCKSIZE_LOG   16u
#define MIN_CRC_BLOCKSIZE   1024u
#define MIN_INODESIZE       256u
#define MAX_INODESIZE       2048u
#define MIN_AG_BYTES        (1ull << 24)
#define MAX_AG_BYTES        (1ull << 40)
#define MIN_AG_BLOCKS       64u
#define MAX_LOG_BLOCKS      (1024ull * 1024)
#define MAX_LOG_BYTES       (2ull * 1024 * 1024 * 1024 - 10ull * 1024 * 1024)
#define MAX_RECORD_BSIZE    (256u * 1024)
#define MIN_RTEXTSIZE       (4ull * 1024)
#define MAX_RTEXTSIZE       (1024ull * 1024 * 1024)
#define BIG_CLUSTER_SIZE    8192u

/* Feature bits the kernel requires of every v5 superblock. */
#define V5_VERS_FLAGS (XFS_SB_VERSION_NLINKBIT | XFS_SB_VERSION_ALIGNBIT | \
		       XFS_SB_VERSION_LOGV2BIT | XFS_SB_VERSION_EXTFLGBIT | \
		       XFS_SB_VERSION_DIRV2BIT | XFS_SB_VERSION_MOREBITSBIT)
#define V5_FEAT_FLAGS (XFS_SB_VERSION2_LAZYSBCOUNTBIT | XFS_SB_VERSION2_ATTR2BIT | \
		       XFS_SB_VERSION2_PROJID32BIT | XFS_SB_VERSION2_CRCBIT)
#define V2_OKBITS     (XFS_SB_VERSION2_LAZYSBCOUNTBIT | XFS_SB_VERSION2_ATTR2BIT | \
		       XFS_SB_VERSION2_PROJID32BIT | XFS_SB_VERSION2_FTYPE)

int xfmt_sb_decode(const uint8_t *buf, size_t len, struct xfmt_sb *out)
{
	if (!buf || len < XFS_SB_STRUCT_SIZE)
		return -1;
	memset(out, 0, sizeof(*out));
	out->magicnum = xfmt_get_be32(buf + SB_MAGICNUM);
	out->blocksize = xfmt_get_be32(buf + SB_BLOCKSIZE);
	out->dblocks = xfmt_get_be64(buf + SB_DBLOCKS);
	out->rblocks = xfmt_get_be64(buf + SB_RBLOCKS);
	out->rextents = xfmt_get_be64(buf + SB_REXTENTS);
	memcpy(out->uuid, buf + SB_UUID, 16);
	out->logstart = xfmt_get_be64(buf + SB_LOGSTART);
	out->rootino = xfmt_get_be64(buf + SB_ROOTINO);
	out->rbmino = xfmt_get_be64(buf + SB_RBMINO);
	out->rsumino = xfmt_get_be64(buf + SB_RSUMINO);
	out->rextsize = xfmt_get_be32(buf + SB_REXTSIZE);
	out->agblocks = xfmt_get_be32(buf + SB_AGBLOCKS);
	out->agcount = xfmt_get_be32(buf + SB_AGCOUNT);
	out->rbmblocks = xfmt_get_be32(buf + SB_RBMBLOCKS);
	out->logblocks = xfmt_get_be32(buf + SB_LOGBLOCKS);
	out->versionnum = xfmt_get_be16(buf + SB_VERSIONNUM);
	out->sectsize = xfmt_get_be16(buf + SB_SECTSIZE);
	out->inodesize = xfmt_get_be16(buf + SB_INODESIZE);
	out->inopblock = xfmt_get_be16(buf + SB_INOPBLOCK);
	memcpy(out->fname, buf + SB_FNAME, 12);
	out->blocklog = buf[SB_BLOCKLOG];
	out->sectlog = buf[SB_SECTLOG];
	out->inodelog = buf[SB_INODELOG];
	out->inopblog = buf[SB_INOPBLOG];
	out->agblklog = buf[SB_AGBLKLOG];
	out->rextslog = buf[SB_REXTSLOG];
	out->inprogress = buf[SB_INPROGRESS];
	out->imax_pct = buf[SB_IMAX_PCT];
	out->icount = xfmt_get_be64(buf + SB_ICOUNT);
	out->ifree = xfmt_get_be64(buf + SB_IFREE);
	out->fdblocks = xfmt_get_be64(buf + SB_FDBLOCKS);
	out->frextents = xfmt_get_be64(buf + SB_FREXTENTS);
	out->uquotino = xfmt_get_be64(buf + SB_UQUOTINO);
	out->gquotino = xfmt_get_be64(buf + SB_GQUOTINO);
	out->qflags = xfmt_get_be16(buf + SB_QFLAGS);
	out->flags = buf[SB_FLAGS];
	out->shared_vn = buf[SB_SHARED_VN];
	out->inoalignmt = xfmt_get_be32(buf + SB_INOALIGNMT);
	out->unit = xfmt_get_be32(buf + SB_UNIT);
	out->width = xfmt_get_be32(buf + SB_WIDTH);
	out->dirblklog = buf[SB_DIRBLKLOG];
	out->logsectlog = buf[SB_LOGSECTLOG];
	out->logsectsize = xfmt_get_be16(buf + SB_LOGSECTSIZE);
	out->logsunit = xfmt_get_be32(buf + SB_LOGSUNIT);
	out->features2 = xfmt_get_be32(buf + SB_FEATURES2);
	out->bad_features2 = xfmt_get_be32(buf + SB_BAD_FEATURES2);
	out->features_compat = xfmt_get_be32(buf + SB_FEATURES_COMPAT);
	out->features_ro_compat = xfmt_get_be32(buf + SB_FEATURES_RO_COMPAT);
	out->features_incompat = xfmt_get_be32(buf + SB_FEATURES_INCOMPAT);
	out->features_log_incompat = xfmt_get_be32(buf + SB_FEATURES_LOG_INCOMPAT);
	out->crc = xfmt_get_le32(buf + SB_CRC);
	out->spino_align = xfmt_get_be32(buf + SB_SPINO_ALIGN);
	out->pquotino = xfmt_get_be64(buf + SB_PQUOTINO);
	out->lsn = xfmt_get_be64(buf + SB_LSN);
	memcpy(out->meta_uuid, buf + SB_META_UUID, 16);
	out->metadirino = 0;
	out->rgcount = out->rgextents = 0;
	out->rgblklog = 0;
	if (xfmt_sb_is_v5(out) && (out->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR) &&
	    len >= SB_METADIR_END) {
		out->metadirino = xfmt_get_be64(buf + SB_METADIRINO);
		out->rgcount = xfmt_get_be32(buf + SB_RGCOUNT);
		out->rgextents = xfmt_get_be32(buf + SB_RGEXTENTS);
		out->rgblklog = buf[SB_RGBLKLOG];
	}
	return 0;
}

int xfmt_sb_encode(const struct xfmt_sb *sb, uint8_t *buf, size_t len)
{
	bool v5 = xfmt_sb_is_v5(sb);

	if (!buf || len < XFS_SB_STRUCT_SIZE)
		return -1;
	memset(buf, 0, len);
	xfmt_put_be32(buf + SB_MAGICNUM, sb->magicnum);
	xfmt_put_be32(buf + SB_BLOCKSIZE, sb->blocksize);
	xfmt_put_be64(buf + SB_DBLOCKS, sb->dblocks);
	xfmt_put_be64(buf + SB_RBLOCKS, sb->rblocks);
	xfmt_put_be64(buf + SB_REXTENTS, sb->rextents);
	memcpy(buf + SB_UUID, sb->uuid, 16);
	xfmt_put_be64(buf + SB_LOGSTART, sb->logstart);
	xfmt_put_be64(buf + SB_ROOTINO, sb->rootino);
	xfmt_put_be64(buf + SB_RBMINO, sb->rbmino);
	xfmt_put_be64(buf + SB_RSUMINO, sb->rsumino);
	xfmt_put_be32(buf + SB_REXTSIZE, sb->rextsize);
	xfmt_put_be32(buf + SB_AGBLOCKS, sb->agblocks);
	xfmt_put_be32(buf + SB_AGCOUNT, sb->agcount);
	xfmt_put_be32(buf + SB_RBMBLOCKS, sb->rbmblocks);
	xfmt_put_be32(buf + SB_LOGBLOCKS, sb->logblocks);
	xfmt_put_be16(buf + SB_VERSIONNUM, sb->versionnum);
	xfmt_put_be16(buf + SB_SECTSIZE, sb->sectsize);
	xfmt_put_be16(buf + SB_INODESIZE, sb->inodesize);
	xfmt_put_be16(buf + SB_INOPBLOCK, sb->inopblock);
	memcpy(buf + SB_FNAME, sb->fname, 12);
	buf[SB_BLOCKLOG] = sb->blocklog;
	buf[SB_SECTLOG] = sb->sectlog;
	buf[SB_INODELOG] = sb->inodelog;
	buf[SB_INOPBLOG] = sb->inopblog;
	buf[SB_AGBLKLOG] = sb->agblklog;
	buf[SB_REXTSLOG] = sb->rextslog;
	buf[SB_INPROGRESS] = sb->inprogress;
	buf[SB_IMAX_PCT] = sb->imax_pct;
	xfmt_put_be64(buf + SB_ICOUNT, sb->icount);
	xfmt_put_be64(buf + SB_IFREE, sb->ifree);
	xfmt_put_be64(buf + SB_FDBLOCKS, sb->fdblocks);
	xfmt_put_be64(buf + SB_FREXTENTS, sb->frextents);
	xfmt_put_be64(buf + SB_UQUOTINO, sb->uquotino);
	xfmt_put_be64(buf + SB_GQUOTINO, sb->gquotino);
	xfmt_put_be16(buf + SB_QFLAGS, sb->qflags);
	buf[SB_FLAGS] = sb->flags;
	buf[SB_SHARED_VN] = sb->shared_vn;
	xfmt_put_be32(buf + SB_INOALIGNMT, sb->inoalignmt);
	xfmt_put_be32(buf + SB_UNIT, sb->unit);
	xfmt_put_be32(buf + SB_WIDTH, sb->width);
	buf[SB_DIRBLKLOG] = sb->dirblklog;
	buf[SB_LOGSECTLOG] = sb->logsectlog;
	xfmt_put_be16(buf + SB_LOGSECTSIZE, sb->logsectsize);
	xfmt_put_be32(buf + SB_LOGSUNIT, sb->logsunit);
	xfmt_put_be32(buf + SB_FEATURES2, sb->features2);
	xfmt_put_be32(buf + SB_BAD_FEATURES2, sb->bad_features2);
	if (!v5)
		return 0;  /* v4 ends at bad_features2; the rest stays zero */
	xfmt_put_be32(buf + SB_FEATURES_COMPAT, sb->features_compat);
	xfmt_put_be32(buf + SB_FEATURES_RO_COMPAT, sb->features_ro_compat);
	xfmt_put_be32(buf + SB_FEATURES_INCOMPAT, sb->features_incompat);
	xfmt_put_be32(buf + SB_FEATURES_LOG_INCOMPAT, sb->features_log_incompat);
	xfmt_put_be32(buf + SB_SPINO_ALIGN, sb->spino_align);
	xfmt_put_be64(buf + SB_PQUOTINO, sb->pquotino);
	xfmt_put_be64(buf + SB_LSN, sb->lsn);
	memcpy(buf + SB_META_UUID, sb->meta_uuid, 16);
	if (v5 && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR) && len >= SB_METADIR_END) {
		xfmt_put_be64(buf + SB_METADIRINO, sb->metadirino);
		xfmt_put_be32(buf + SB_RGCOUNT, sb->rgcount);
		xfmt_put_be32(buf + SB_RGEXTENTS, sb->rgextents);
		buf[SB_RGBLKLOG] = sb->rgblklog;
	}
	xfmt_crc_update(buf, len, SB_CRC);
	return 0;
}

bool xfmt_sb_is_v5(const struct xfmt_sb *sb)
{
	return (sb->versionnum & XFS_SB_VERSION_NUMBITS) == XFS_SB_VERSION_5;
}

/* ---------------------------------------------------------------- helpers */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Index of the highest set bit, -1 for 0 (the kernel's xfs_highbit32/64). */
static int highbit64(uint64_t v)
{
	int n = -1;

	while (v) {
		v >>= 1;
		n++;
	}
	return n;
}

/* A valid power-of-two size in [lo, hi]. */
static bool size_ok(uint64_t v, uint64_t lo, uint64_t hi)
{
	return is_pow2(v) && v >= lo && v <= hi;
}

static bool uuid_is_zero(const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

uint32_t xfmt_sb_hdr_blocks(const struct xfmt_geom *g)
{
	/* The four header sectors, rounded up to whole blocks. */
	uint64_t bytes;

	/* Only meaningful for a sane geometry; never shift out of range. */
	if (g->sectlog > 15 || g->blocklog > MAX_BLOCKSIZE_LOG)
		return 4;
	bytes = (uint64_t)4 << g->sectlog;
	return (uint32_t)((bytes + g->blocksize - 1) >> g->blocklog);
}

bool xfmt_sb_agino_usable(const struct xfmt_geom *g, uint32_t agno, uint32_t agino)
{
	if (!xfmt_geom_agino_valid(g, agno, agino))
		return false;
	return xfmt_geom_agino_agbno(g, agino) >= xfmt_sb_hdr_blocks(g);
}

bool xfmt_sb_ino_usable(const struct xfmt_geom *g, uint64_t ino)
{
	uint32_t agno;

	if (!xfmt_geom_ino_valid(g, ino))
		return false;
	agno = xfmt_geom_ino_agno(g, ino);
	/* The packed number must round-trip (no stray high bits). */
	if (xfmt_geom_ino(g, agno, xfmt_geom_ino_agino(g, ino)) != ino)
		return false;
	return xfmt_sb_agino_usable(g, agno, xfmt_geom_ino_agino(g, ino));
}

/* ---------------------------------------------------------------- geometry */

int xfmt_geom_from_sb(const struct xfmt_sb *sb, struct xfmt_geom *g)
{
	bool ok = true;
	uint64_t last_start;

	memset(g, 0, sizeof(*g));
	g->blocksize = sb->blocksize;
	g->blocklog = sb->blocklog;
	g->sectsize = sb->sectsize;
	g->sectlog = sb->sectlog;
	g->inodesize = sb->inodesize;
	g->inodelog = sb->inodelog;
	g->inopblock = sb->inopblock;
	g->inopblog = sb->inopblog;
	g->agblocks = sb->agblocks;
	g->agblklog = sb->agblklog;
	g->agcount = sb->agcount;
	g->dblocks = sb->dblocks;
	g->dirblklog = sb->dirblklog;
	g->v5 = xfmt_sb_is_v5(sb);
	g->versionnum = sb->versionnum;
	/* The kernel mounts with the mirror ORed back in (an old padding bug
	 * wrote features2 at bad_features2's place), as xfs_repair repairs. */
	g->features2 = sb->features2 | sb->bad_features2;
	g->ro_compat = sb->features_ro_compat;
	g->incompat = sb->features_incompat;
	if (g->v5 && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_META_UUID))
		memcpy(g->meta_uuid, sb->meta_uuid, 16);
	else
		memcpy(g->meta_uuid, sb->uuid, 16);
	g->logstart = sb->logstart;
	g->logblocks = sb->logblocks;
	g->inoalignmt = sb->inoalignmt;
	g->spino_align = sb->spino_align;
	g->rbmino = sb->rbmino;
	g->rblocks = sb->rblocks;

	/* Range-check each log before shifting by it. */
	if (!size_ok(sb->blocksize, MIN_BLOCKSIZE, MAX_BLOCKSIZE) ||
	    sb->blocklog > MAX_BLOCKSIZE_LOG || sb->blocksize != 1u << sb->blocklog)
		return -1;
	if (!size_ok(sb->sectsize, MIN_SECTORSIZE, MAX_SECTORSIZE) ||
	    sb->sectlog > 15 || sb->sectsize != 1u << sb->sectlog)
		return -1;
	if (!size_ok(sb->inodesize, MIN_INODESIZE, MAX_INODESIZE) ||
	    sb->inodelog > 11 || sb->inodesize != 1u << sb->inodelog ||
	    sb->inodelog > sb->blocklog ||
	    sb->inopblog != sb->blocklog - sb->inodelog ||
	    sb->inopblock != sb->blocksize >> sb->inodelog)
		return -1;
	if (sb->dirblklog + sb->blocklog > MAX_BLOCKSIZE_LOG)
		return -1;
	g->dirblksize = sb->blocksize << sb->dirblklog;

	/* agblklog must be exactly the bits agbno needs, and agino must fit 32 bits. */
	if (sb->agblocks == 0 ||
	    sb->agblklog != highbit64(sb->agblocks - 1) + 1 ||
	    sb->agblklog + sb->inopblog > 32)
		return -1;
	if (sb->agcount == 0 || sb->dblocks == 0 ||
	    sb->dblocks > (uint64_t)sb->agcount * sb->agblocks)
		return -1;
	last_start = (uint64_t)(sb->agcount - 1) * sb->agblocks;
	if (sb->dblocks <= last_start)
		return -1;
	/* Byte offsets must fit an off_t. */
	if (sb->dblocks > (UINT64_C(0x7FFFFFFFFFFFFFFF) >> sb->blocklog))
		return -1;
	/* Every AG, the last one too, must hold its four header sectors. */
	if (sb->agblocks <= xfmt_sb_hdr_blocks(g) ||
	    sb->dblocks - last_start <= xfmt_sb_hdr_blocks(g))
		ok = false;
	return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- verifier */

struct sbv {
	const uint8_t *buf;
	size_t len;
	const struct xfmt_sb *sb;
	const struct xprob_sink *sink;
	bool primary;
	bool v5;
	bool known_version;  /* version nibble is 4 or 5 */
	bool bs_ok;          /* blocksize valid: blocksize-based checks can run */
	unsigned blog;       /* log2(blocksize) when bs_ok */
	bool ss_ok;          /* sectsize valid */
	bool is_ok;          /* inodesize valid */
	unsigned ilog;       /* log2(inodesize) when is_ok */
	unsigned n;
};

static void sbv_val(struct sbv *v, enum xprob_code code, const char *field,
		    uint64_t off, uint64_t expected, uint64_t observed)
{
	v->n += (unsigned)xprob_emit_val(v->sink, code, field, off, expected, observed);
}

static void sbv_obs(struct sbv *v, enum xprob_code code, const char *field,
		    uint64_t off, uint64_t observed)
{
	v->n += (unsigned)xprob_emit_obs(v->sink, code, field, off, observed);
}

static void check_version(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	unsigned vnum = sb->versionnum & XFS_SB_VERSION_NUMBITS;
	uint32_t missing;

	if (!v->known_version) {
		sbv_val(v, XP_sbBadVersion, "versionnum", SB_VERSIONNUM, XFS_SB_VERSION_5, vnum);
		return;
	}
	if (sb->versionnum & XFS_SB_VERSION_SHAREDBIT)
		sbv_obs(v, XP_sbUnknownFeature, "versionnum", SB_VERSIONNUM,
			XFS_SB_VERSION_SHAREDBIT);
	if (v->v5) {
		missing = V5_VERS_FLAGS & ~(uint32_t)sb->versionnum;
		if (missing)
			sbv_val(v, XP_sbMissingFeature, "versionnum", SB_VERSIONNUM, missing,
				sb->versionnum);
		missing = V5_FEAT_FLAGS & ~sb->features2;
		if (missing)
			sbv_val(v, XP_sbMissingFeature, "features2", SB_FEATURES2, missing,
				sb->features2);
		if (sb->features2 & ~(V2_OKBITS | XFS_SB_VERSION2_CRCBIT))
			sbv_obs(v, XP_sbUnknownFeature, "features2", SB_FEATURES2,
				sb->features2 & ~(V2_OKBITS | XFS_SB_VERSION2_CRCBIT));
		/* Unknown compat bits are harmless by definition: a warning. */
		if (sb->features_compat)
			sbv_obs(v, XP_sbBadFlags, "features_compat", SB_FEATURES_COMPAT,
				sb->features_compat);
		if (sb->features_ro_compat & ~XFS_SB_FEAT_RO_COMPAT_KNOWN)
			sbv_obs(v, XP_sbUnknownFeature, "features_ro_compat",
				SB_FEATURES_RO_COMPAT,
				sb->features_ro_compat & ~XFS_SB_FEAT_RO_COMPAT_KNOWN);
		if (sb->features_incompat & ~XFS_SB_FEAT_INCOMPAT_KNOWN)
			sbv_obs(v, XP_sbUnknownFeature, "features_incompat",
				SB_FEATURES_INCOMPAT,
				sb->features_incompat & ~XFS_SB_FEAT_INCOMPAT_KNOWN);
		if (sb->features_log_incompat & ~XFS_SB_FEAT_INCOMPAT_LOG_KNOWN)
			sbv_obs(v, XP_sbUnknownFeature, "features_log_incompat",
				SB_FEATURES_LOG_INCOMPAT,
				sb->features_log_incompat & ~XFS_SB_FEAT_INCOMPAT_LOG_KNOWN);
		if (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR)
			sbv_obs(v, XP_sbNeedsRepair, "features_incompat", SB_FEATURES_INCOMPAT,
				sb->features_incompat);
	} else {
		missing = (XFS_SB_VERSION_DIRV2BIT | XFS_SB_VERSION_EXTFLGBIT) &
			  ~(uint32_t)sb->versionnum;
		if (missing)
			sbv_val(v, XP_sbMissingFeature, "versionnum", SB_VERSIONNUM, missing,
				sb->versionnum);
		/* Feature words beyond a version word that does not bring them:
		 * one of the two is damaged (the kernel reads no features2
		 * then, so directories with file types misparse); the
		 * secondaries tell which (pass_sb.c mends versionnum). */
		if (!(sb->versionnum & XFS_SB_VERSION_MOREBITSBIT) &&
		    (sb->features2 | sb->bad_features2))
			sbv_val(v, XP_sbMoreBitsClear, "versionnum", SB_VERSIONNUM,
				sb->features2 | sb->bad_features2, sb->versionnum);
		/* The CRC bit is not a valid v4 feature. */
		if ((sb->versionnum & XFS_SB_VERSION_MOREBITSBIT) &&
		    (sb->features2 & ~V2_OKBITS))
			sbv_obs(v, XP_sbUnknownFeature, "features2", SB_FEATURES2,
				sb->features2 & ~V2_OKBITS);
	}
	if (sb->bad_features2 != sb->features2)
		sbv_val(v, XP_sbFeatures2Mismatch, "bad_features2", SB_BAD_FEATURES2,
			sb->features2, sb->bad_features2);
}

/* Report a *log field that disagrees with its (valid) size, or is out of range. */
static void check_log_field(struct sbv *v, const char *field, uint64_t off,
			    unsigned observed, bool size_valid, unsigned size_log,
			    unsigned lo, unsigned hi)
{
	if (observed < lo || observed > hi)
		sbv_val(v, XP_sbLogMismatch, field, off, size_valid ? size_log : lo, observed);
	else if (size_valid && observed != size_log)
		sbv_val(v, XP_sbLogMismatch, field, off, size_log, observed);
}

static void check_sizes(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	uint64_t expect;

	if (!v->ss_ok)
		sbv_obs(v, XP_sbBadSectsize, "sectsize", SB_SECTSIZE, sb->sectsize);
	check_log_field(v, "sectlog", SB_SECTLOG, sb->sectlog, v->ss_ok,
			v->ss_ok ? (unsigned)highbit64(sb->sectsize) : 0, 9, 15);

	if (!v->bs_ok || (v->v5 && sb->blocksize < MIN_CRC_BLOCKSIZE))
		sbv_obs(v, XP_sbBadBlocksize, "blocksize", SB_BLOCKSIZE, sb->blocksize);
	check_log_field(v, "blocklog", SB_BLOCKLOG, sb->blocklog, v->bs_ok, v->blog, 9, 16);

	if (!v->is_ok)
		sbv_obs(v, XP_sbBadInodesize, "inodesize", SB_INODESIZE, sb->inodesize);
	check_log_field(v, "inodelog", SB_INODELOG, sb->inodelog, v->is_ok, v->ilog, 8, 11);

	if (v->bs_ok && v->is_ok) {
		/* howmany(blocksize, inodesize), as the kernel computes it */
		expect = (sb->blocksize + sb->inodesize - 1) / sb->inodesize;
		if (sb->inopblock != expect)
			sbv_val(v, XP_sbBadInopblock, "inopblock", SB_INOPBLOCK, expect,
				sb->inopblock);
		if ((int)sb->inopblog != (int)v->blog - (int)v->ilog)
			sbv_val(v, XP_sbLogMismatch, "inopblog", SB_INOPBLOG,
				v->blog >= v->ilog ? v->blog - v->ilog : 0, sb->inopblog);
	} else if ((int)sb->inopblog != (int)sb->blocklog - (int)sb->inodelog) {
		int want = (int)sb->blocklog - (int)sb->inodelog;

		sbv_val(v, XP_sbLogMismatch, "inopblog", SB_INOPBLOG,
			want > 0 ? (uint64_t)want : 0, sb->inopblog);
	}

	if ((unsigned)sb->dirblklog + (v->bs_ok ? v->blog : sb->blocklog) > MAX_BLOCKSIZE_LOG)
		sbv_obs(v, XP_sbBadDirblklog, "dirblklog", SB_DIRBLKLOG, sb->dirblklog);
}

static void check_ag_geometry(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	uint64_t agcount, expect, bytes;

	if (v->bs_ok) {
		bytes = (uint64_t)sb->agblocks << v->blog;
		if (bytes < MIN_AG_BYTES || bytes > MAX_AG_BYTES)
			sbv_obs(v, XP_sbBadAgblocks, "agblocks", SB_AGBLOCKS, sb->agblocks);
	} else if (sb->agblocks < MIN_AG_BLOCKS) {
		sbv_obs(v, XP_sbBadAgblocks, "agblocks", SB_AGBLOCKS, sb->agblocks);
	}

	expect = (uint64_t)(highbit64((uint32_t)(sb->agblocks - 1)) + 1);
	if (sb->agblklog != expect)
		sbv_val(v, XP_sbBadAgblklog, "agblklog", SB_AGBLKLOG, expect, sb->agblklog);

	if (sb->agblocks) {
		agcount = sb->dblocks / sb->agblocks + (sb->dblocks % sb->agblocks != 0);
		if (sb->agcount == 0 || agcount != sb->agcount)
			sbv_val(v, XP_sbBadAgcount, "agcount", SB_AGCOUNT, agcount, sb->agcount);
	} else if (sb->agcount == 0) {
		sbv_val(v, XP_sbBadAgcount, "agcount", SB_AGCOUNT, 0, 0);
	}

	if (sb->dblocks == 0 ||
	    (sb->agcount && (sb->dblocks > (uint64_t)sb->agcount * sb->agblocks ||
			     sb->dblocks < (uint64_t)(sb->agcount - 1) * sb->agblocks +
					   MIN_AG_BLOCKS)))
		sbv_obs(v, XP_sbBadDblocks, "dblocks", SB_DBLOCKS, sb->dblocks);
}

static void check_rt(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	uint64_t bytes, rexts, rbm;

	if (v->bs_ok) {
		bytes = (uint64_t)sb->rextsize << v->blog;
		if (bytes < MIN_RTEXTSIZE || bytes > MAX_RTEXTSIZE)
			sbv_obs(v, XP_sbBadRextsize, "rextsize", SB_REXTSIZE, sb->rextsize);
	}
	if (sb->rblocks == 0) {
		if (sb->rextents)
			sbv_val(v, XP_sbBadRextsize, "rextents", SB_REXTENTS, 0, sb->rextents);
		if (sb->rbmblocks)
			sbv_val(v, XP_sbBadRextsize, "rbmblocks", SB_RBMBLOCKS, 0, sb->rbmblocks);
		if (sb->rextslog)
			sbv_val(v, XP_sbBadRextsize, "rextslog", SB_REXTSLOG, 0, sb->rextslog);
		if (sb->frextents)
			sbv_val(v, XP_sbBadRextsize, "frextents", SB_FREXTENTS, 0, sb->frextents);
		return;
	}
	if (sb->rextsize == 0)
		return;  /* already reported through the rextsize range */
	rexts = sb->rblocks / sb->rextsize;
	if (rexts == 0 || sb->rextents != rexts)
		sbv_val(v, XP_sbBadRextsize, "rextents", SB_REXTENTS, rexts, sb->rextents);
	if (sb->rextslog != (rexts ? (uint64_t)highbit64(rexts) : 0))
		sbv_val(v, XP_sbBadRextsize, "rextslog", SB_REXTSLOG,
			rexts ? (uint64_t)highbit64(rexts) : 0, sb->rextslog);
	if (v->bs_ok) {
		/* bits per bitmap block; with a metadir tree the realtime
		 * groups have a bitmap each, its blocks behind a 48-byte
		 * header (xfs_rtbuf_blkinfo) */
		bool groups = v->v5 && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR);
		uint64_t per = groups ? (((uint64_t)1 << v->blog) - 48) * 8 : (uint64_t)8 << v->blog;
		uint64_t covered = groups ? sb->rgextents : sb->rextents;

		rbm = covered / per + (covered % per != 0);
		if (sb->rbmblocks != rbm)
			sbv_val(v, XP_sbBadRextsize, "rbmblocks", SB_RBMBLOCKS, rbm, sb->rbmblocks);
	}
}

static void check_log(struct sbv *v, const struct xfmt_geom *g, bool geom_ok)
{
	const struct xfmt_sb *sb = v->sb;
	bool sector = sb->versionnum & XFS_SB_VERSION_SECTORBIT;

	if (sb->logblocks > MAX_LOG_BLOCKS ||
	    (v->bs_ok && ((uint64_t)sb->logblocks << v->blog) > MAX_LOG_BYTES) ||
	    (v->v5 && sb->logblocks == 0))
		sbv_obs(v, XP_sbBadLogGeometry, "logblocks", SB_LOGBLOCKS, sb->logblocks);

	if (sb->logsunit > 1 &&
	    (sb->logsunit > MAX_RECORD_BSIZE || (v->bs_ok && sb->logsunit % sb->blocksize)))
		sbv_obs(v, XP_sbBadLogGeometry, "logsunit", SB_LOGSUNIT, sb->logsunit);

	if (sector) {
		bool ok = size_ok(sb->logsectsize, MIN_SECTORSIZE, MAX_SECTORSIZE);

		if (!ok)
			sbv_obs(v, XP_sbBadSectsize, "logsectsize", SB_LOGSECTSIZE,
				sb->logsectsize);
		check_log_field(v, "logsectlog", SB_LOGSECTLOG, sb->logsectlog, ok,
				ok ? (unsigned)highbit64(sb->logsectsize) : 0, 9, 15);
	} else {
		if (sb->logsectsize)
			sbv_obs(v, XP_sbBadSectsize, "logsectsize", SB_LOGSECTSIZE,
				sb->logsectsize);
		if (sb->logsectlog)
			sbv_val(v, XP_sbLogMismatch, "logsectlog", SB_LOGSECTLOG, 0,
				sb->logsectlog);
	}

	/* An internal log must lie inside one AG, past its headers. */
	if (geom_ok && sb->logstart != 0) {
		uint32_t agno = xfmt_geom_fsb_agno(g, sb->logstart);
		uint32_t agbno = xfmt_geom_fsb_agbno(g, sb->logstart);

		if (!xfmt_geom_fsb_valid(g, sb->logstart) ||
		    agbno < xfmt_sb_hdr_blocks(g) ||
		    (uint64_t)agbno + sb->logblocks > xfmt_geom_ag_length(g, agno))
			sbv_obs(v, XP_sbBadLogGeometry, "logstart", SB_LOGSTART, sb->logstart);
	}
}

static void check_stripe(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	bool dalign = sb->versionnum & XFS_SB_VERSION_DALIGNBIT;

	if (dalign != (sb->unit != 0))
		sbv_obs(v, XP_sbBadStripe, "unit", SB_UNIT, sb->unit);
	if (v->bs_ok) {
		/* xfs_validate_stripe_geometry, in bytes */
		uint64_t su = (uint64_t)sb->unit << v->blog;
		uint64_t sw = (uint64_t)sb->width << v->blog;

		if (sw > 0x7FFFFFFFu || su > sw || (su && !sw) || (!su && sw) ||
		    (su && sw % su))
			sbv_obs(v, XP_sbBadStripe, "width", SB_WIDTH, sb->width);
	}
	/* xfs_repair: AGs are whole stripe units. */
	if (dalign && sb->unit && sb->agblocks % sb->unit)
		sbv_obs(v, XP_sbBadStripe, "agblocks", SB_AGBLOCKS, sb->agblocks);
}

static void check_inode_align(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	uint64_t chunk, big, scaled;

	if (!v->bs_ok || !v->is_ok)
		return;
	chunk = ((uint64_t)XFS_INODES_PER_CHUNK * sb->inodesize) >> v->blog;
	big = BIG_CLUSTER_SIZE >> v->blog;
	scaled = ((uint64_t)BIG_CLUSTER_SIZE * sb->inodesize / MIN_INODESIZE) >> v->blog;

	if (v->v5 && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_SPINODES)) {
		/* Sparse chunks need full chunks aligned to the chunk size. */
		if (sb->inoalignmt != chunk)
			sbv_val(v, XP_sbBadInodeAlign, "inoalignmt", SB_INOALIGNMT, chunk,
				sb->inoalignmt);
		if (sb->spino_align != scaled)
			sbv_val(v, XP_sbBadSpinoAlign, "spino_align", SB_SPINO_ALIGN, scaled,
				sb->spino_align);
		return;
	}
	if (v->v5 && sb->spino_align)
		sbv_val(v, XP_sbBadSpinoAlign, "spino_align", SB_SPINO_ALIGN, 0, sb->spino_align);
	if (sb->versionnum & XFS_SB_VERSION_ALIGNBIT) {
		if (sb->inoalignmt != big && !(v->v5 && sb->inoalignmt == scaled))
			sbv_val(v, XP_sbBadInodeAlign, "inoalignmt", SB_INOALIGNMT,
				v->v5 ? scaled : big, sb->inoalignmt);
	}
}

static void check_flags(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	uint16_t bad;

	if (sb->imax_pct > 100)
		sbv_obs(v, XP_sbBadImaxPct, "imax_pct", SB_IMAX_PCT, sb->imax_pct);
	if (sb->shared_vn)
		sbv_obs(v, XP_sbSharedVn, "shared_vn", SB_SHARED_VN, sb->shared_vn);
	/* Only the read-only flag was ever defined, and no kernel sets it:
	 * xfs_repair clears the field whatever it holds. */
	if (sb->flags)
		sbv_obs(v, XP_sbFlagsSet, "flags", SB_FLAGS, sb->flags);
	if (sb->qflags & ~XFS_QFLAGS_KNOWN)
		sbv_obs(v, XP_sbBadFlags, "qflags", SB_QFLAGS, sb->qflags & ~XFS_QFLAGS_KNOWN);
	/* mkfs writes copies without quota flags, and xfs_repair clears any a
	 * copy holds (as it nulls a copy's quota inodes), known or not. */
	if (!v->primary && sb->qflags)
		sbv_obs(v, XP_sbCopyQuotaFlags, "qflags", SB_QFLAGS, sb->qflags);
	/* v5 has a separate project quota inode; v4 folds it into "other" bits. */
	if (v->v5)
		bad = sb->qflags & (XFS_OQUOTA_ENFD | XFS_OQUOTA_CHKD);
	else
		bad = sb->qflags & (XFS_PQUOTA_ENFD | XFS_GQUOTA_ENFD |
				    XFS_PQUOTA_CHKD | XFS_GQUOTA_CHKD);
	if (v->known_version && bad)
		sbv_obs(v, XP_sbBadQuotaFlags, "qflags", SB_QFLAGS, sb->qflags);
}

static void check_inodes(struct sbv *v, const struct xfmt_geom *g)
{
	const struct xfmt_sb *sb = v->sb;
	static const struct { const char *name; uint16_t off; } sys[] = {
		{ "rootino", SB_ROOTINO }, { "rbmino", SB_RBMINO }, { "rsumino", SB_RSUMINO },
	};
	static const struct { const char *name; uint16_t off; } quota[] = {
		{ "uquotino", SB_UQUOTINO }, { "gquotino", SB_GQUOTINO },
		{ "pquotino", SB_PQUOTINO },
	};
	uint64_t sysv[3] = { sb->rootino, sb->rbmino, sb->rsumino };
	uint64_t qv[3] = { sb->uquotino, sb->gquotino, sb->pquotino };

	bool metadir = v->v5 && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR);

	/* With a metadata directory tree the realtime inodes live in it: the
	 * superblock's fields are 0, and metadirino names the tree's root. */
	if (metadir && (v->primary || sb->metadirino != XFS_NULLFSINO) &&
	    !xfmt_sb_ino_usable(g, sb->metadirino))
		sbv_obs(v, XP_sbBadRootIno, "metadirino", SB_METADIRINO, sb->metadirino);
	for (int i = 0; i < 3; i++) {
		/* mkfs leaves some secondary copies with null system inodes. */
		if (!v->primary && sysv[i] == XFS_NULLFSINO)
			continue;
		if (metadir && i > 0) {
			if (sysv[i] != 0)
				sbv_obs(v, XP_sbBadRootIno, sys[i].name, sys[i].off, sysv[i]);
			continue;
		}
		if (!xfmt_sb_ino_usable(g, sysv[i]))
			sbv_obs(v, XP_sbBadRootIno, sys[i].name, sys[i].off, sysv[i]);
		/* The realtime bitmap and summary inodes are the two after the
		 * root, always (xfs_repair resets them there).  Judged where the
		 * other one agrees with the root: where neither does but they
		 * follow each other, the root pointer is the one astray. */
		else if (i > 0 && v->primary && xfmt_sb_ino_usable(g, sb->rootino) &&
			 sysv[i] != sb->rootino + (uint64_t)i &&
			 (sysv[3 - i] == sb->rootino + (uint64_t)(3 - i) ||
			  sb->rbmino + 1 != sb->rsumino))
			sbv_val(v, XP_sbSysInoMisplaced, sys[i].name, sys[i].off,
				sb->rootino + (uint64_t)i, sysv[i]);
	}
	/* pquotino exists only on v5; on v4 its bytes are checked as tail. */
	for (int i = 0; i < (v->v5 ? 3 : 2); i++) {
		/* A fresh mkfs writes 0, the kernel later writes null: both mean
		 * none.  Under a metadata directory tree the quota inodes live in
		 * the tree and these fields are 0, null included (xfs_repair 6.13:
		 * "non-zero quota inode field"). */
		if (qv[i] == 0 || (qv[i] == XFS_NULLFSINO && !metadir))
			continue;
		if (metadir) {
			sbv_obs(v, v->primary ? XP_sbBadQuotaIno : XP_sbCopyQuotaIno, quota[i].name,
				quota[i].off, qv[i]);
			continue;
		}
		/* Only the primary names quota inodes (xfs_repair nulls a copy's). */
		if (!v->primary) {
			sbv_obs(v, XP_sbCopyQuotaIno, quota[i].name, quota[i].off, qv[i]);
			continue;
		}
		if (!xfmt_sb_ino_usable(g, qv[i]))
			sbv_obs(v, XP_sbBadQuotaIno, quota[i].name, quota[i].off, qv[i]);
	}
}

static void check_counters(struct sbv *v, const struct xfmt_geom *g, bool geom_ok)
{
	const struct xfmt_sb *sb = v->sb;

	if (sb->inprogress)
		sbv_obs(v, XP_sbInProgress, "inprogress", SB_INPROGRESS, sb->inprogress);
	if (sb->fdblocks > sb->dblocks)
		sbv_val(v, XP_sbBadCounter, "fdblocks", SB_FDBLOCKS, sb->dblocks, sb->fdblocks);
	if (geom_ok) {
		uint64_t max = sb->dblocks << g->inopblog;

		if (sb->icount > max)
			sbv_val(v, XP_sbBadCounter, "icount", SB_ICOUNT, max, sb->icount);
	}
	if (sb->ifree > sb->icount)
		sbv_val(v, XP_sbBadCounter, "ifree", SB_IFREE, sb->icount, sb->ifree);
	if (sb->rblocks && sb->frextents > sb->rextents)
		sbv_val(v, XP_sbBadCounter, "frextents", SB_FREXTENTS, sb->rextents,
			sb->frextents);
}

/*
 * The bytes of the structure this superblock's version uses: what follows
 * must be zero (xfs_repair zeroes it).  Older V4 layouts end earlier, at
 * the last field their version bits bring.
 */
static size_t used_size(const struct xfmt_sb *sb)
{
	/* (a v5 meta_uuid without its feature is sbBadMetaUuid); the
	 * metadir padding must be zero like the tail */
	if (xfmt_sb_is_v5(sb))
		return sb->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR ? SB_METADIR_PAD : SB_END;
	if (sb->versionnum & XFS_SB_VERSION_MOREBITSBIT)
		return XFS_SB_V4_SIZE;
	if (sb->versionnum & XFS_SB_VERSION_LOGV2BIT)
		return SB_FEATURES2;
	if (sb->versionnum & XFS_SB_VERSION_SECTORBIT)
		return SB_LOGSUNIT;
	return SB_LOGSECTLOG;
}

static void check_tail_and_crc(struct sbv *v)
{
	const struct xfmt_sb *sb = v->sb;
	size_t end = v->ss_ok ? sb->sectsize : MIN_SECTORSIZE;
	size_t start = used_size(sb);

	if (v->v5 && !(sb->features_incompat & XFS_SB_FEAT_INCOMPAT_META_UUID) &&
	    !uuid_is_zero(sb->meta_uuid))
		sbv_obs(v, XP_sbBadMetaUuid, "meta_uuid", SB_META_UUID, 0);

	if (end > v->len)
		end = v->len;
	for (size_t i = start; i < end; i++) {
		if (v->buf[i]) {
			sbv_obs(v, XP_sbNonzeroTail, NULL, i, v->buf[i]);
			break;
		}
	}

	/*
	 * Like the kernel, also check a non-v5 sector whose CRC field is set: a
	 * damaged version nibble must not hide a v5 CRC failure.
	 */
	if (!v->v5 && !sb->crc)
		return;
	if (v->ss_ok) {
		if (v->len >= sb->sectsize) {
			uint32_t want = xfmt_crc32c_excluding(v->buf, sb->sectsize, SB_CRC);

			if (want != sb->crc)
				sbv_val(v, XP_sbBadCrc, "crc", SB_CRC, want, sb->crc);
		}
		return;
	}
	/*
	 * sectsize itself is damaged: the CRC is good if it matches over any
	 * sector size the buffer can hold, else it is reported against 512.
	 */
	if (v->len >= MIN_SECTORSIZE) {
		for (size_t ss = MIN_SECTORSIZE; ss <= MAX_SECTORSIZE && ss <= v->len; ss <<= 1)
			if (xfmt_crc32c_excluding(v->buf, ss, SB_CRC) == sb->crc)
				return;
		sbv_val(v, XP_sbBadCrc, "crc", SB_CRC,
			xfmt_crc32c_excluding(v->buf, MIN_SECTORSIZE, SB_CRC), sb->crc);
	}
}

static unsigned sb_verify(const uint8_t *buf, size_t len, const struct xfmt_sb *sb,
			  const struct xprob_sink *sink, bool primary)
{
	struct sbv v = { .buf = buf, .len = len, .sb = sb, .sink = sink, .primary = primary };
	struct xfmt_geom g;
	bool geom_ok;
	unsigned vnum = sb->versionnum & XFS_SB_VERSION_NUMBITS;

	v.known_version = vnum == XFS_SB_VERSION_4 || vnum == XFS_SB_VERSION_5;
	v.v5 = vnum == XFS_SB_VERSION_5;
	v.bs_ok = size_ok(sb->blocksize, MIN_BLOCKSIZE, MAX_BLOCKSIZE);
	v.blog = v.bs_ok ? (unsigned)highbit64(sb->blocksize) : 0;
	v.ss_ok = size_ok(sb->sectsize, MIN_SECTORSIZE, MAX_SECTORSIZE);
	v.is_ok = size_ok(sb->inodesize, MIN_INODESIZE, MAX_INODESIZE);
	v.ilog = v.is_ok ? (unsigned)highbit64(sb->inodesize) : 0;
	geom_ok = xfmt_geom_from_sb(sb, &g) == 0;

	if (sb->magicnum != XFS_SB_MAGIC)
		sbv_val(&v, XP_sbBadMagic, "magicnum", SB_MAGICNUM, XFS_SB_MAGIC, sb->magicnum);
	check_version(&v);
	check_sizes(&v);
	check_ag_geometry(&v);
	check_rt(&v);
	check_log(&v, &g, geom_ok);
	check_stripe(&v);
	check_inode_align(&v);
	check_flags(&v);
	if (geom_ok)
		check_inodes(&v, &g);
	if (primary)
		check_counters(&v, &g, geom_ok);
	check_tail_and_crc(&v);
	return v.n;
}

unsigned xfmt_sb_verify(const uint8_t *buf, size_t len, const struct xfmt_sb *sb,
			const struct xprob_sink *sink)
{
	return sb_verify(buf, len, sb, sink, true);
}

unsigned xfmt_sb_verify_secondary(const uint8_t *buf, size_t len,
				  const struct xfmt_sb *sb,
				  const struct xprob_sink *sink)
{
	return sb_verify(buf, len, sb, sink, false);
}

/* ---------------------------------------------------------------- copies */

static unsigned mismatch(const struct xprob_sink *sink, uint32_t agno,
			 const char *field, uint64_t off, uint64_t ref, uint64_t other)
{
	struct xprob p = {
		.code = XP_sbSecondaryMismatch,
		.has = XPROB_HAS_AG | XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
		.field = field, .agno = agno, .off = off, .expected = ref, .observed = other,
	};

	if (ref == other)
		return 0;
	sink->report(sink->arg, &p);
	return 1;
}

unsigned xfmt_sb_compare_geometry(const struct xfmt_sb *ref,
				  const struct xfmt_sb *other, uint32_t agno,
				  const struct xprob_sink *sink)
{
	/* The version itself, and the alignment bits mkfs sets once; not the
	 * feature bits the kernel adds to the primary alone later. */
	const uint32_t alignbits = XFS_SB_VERSION_NUMBITS | XFS_SB_VERSION_ALIGNBIT |
				   XFS_SB_VERSION_DALIGNBIT;
	unsigned n = 0;

	n += mismatch(sink, agno, "blocksize", SB_BLOCKSIZE, ref->blocksize, other->blocksize);
	n += mismatch(sink, agno, "dblocks", SB_DBLOCKS, ref->dblocks, other->dblocks);
	n += mismatch(sink, agno, "rblocks", SB_RBLOCKS, ref->rblocks, other->rblocks);
	n += mismatch(sink, agno, "rextents", SB_REXTENTS, ref->rextents, other->rextents);
	n += mismatch(sink, agno, "logstart", SB_LOGSTART, ref->logstart, other->logstart);
	n += mismatch(sink, agno, "rextsize", SB_REXTSIZE, ref->rextsize, other->rextsize);
	n += mismatch(sink, agno, "agblocks", SB_AGBLOCKS, ref->agblocks, other->agblocks);
	n += mismatch(sink, agno, "agcount", SB_AGCOUNT, ref->agcount, other->agcount);
	n += mismatch(sink, agno, "rbmblocks", SB_RBMBLOCKS, ref->rbmblocks, other->rbmblocks);
	n += mismatch(sink, agno, "logblocks", SB_LOGBLOCKS, ref->logblocks, other->logblocks);
	n += mismatch(sink, agno, "sectsize", SB_SECTSIZE, ref->sectsize, other->sectsize);
	n += mismatch(sink, agno, "inodesize", SB_INODESIZE, ref->inodesize, other->inodesize);
	/* Fixed by mkfs for good and written to every copy (growfs copies the
	 * primary): not compared by xfs_repair, which believes a primary with
	 * a sound checksum, but a copy that outvotes it is the truth. */
	n += mismatch(sink, agno, "dirblklog", SB_DIRBLKLOG, ref->dirblklog, other->dirblklog);
	n += mismatch(sink, agno, "logsectsize", SB_LOGSECTSIZE, ref->logsectsize,
		      other->logsectsize);
	n += mismatch(sink, agno, "inoalignmt", SB_INOALIGNMT, ref->inoalignmt, other->inoalignmt);
	n += mismatch(sink, agno, "versionnum", SB_VERSIONNUM, ref->versionnum & alignbits,
		      other->versionnum & alignbits);
	if (xfmt_sb_is_v5(ref)) {
		n += mismatch(sink, agno, "features_compat", SB_FEATURES_COMPAT,
			      ref->features_compat, other->features_compat);
		n += mismatch(sink, agno, "features_ro_compat", SB_FEATURES_RO_COMPAT,
			      ref->features_ro_compat, other->features_ro_compat);
		/* NEEDSREPAIR is set on the primary alone while xfs_repair upgrades. */
		n += mismatch(sink, agno, "features_incompat", SB_FEATURES_INCOMPAT,
			      ref->features_incompat & ~XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR,
			      other->features_incompat & ~XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR);
		/* The realtime group geometry of a metadata directory tree is
		 * mkfs's too, in every copy (xfs_repair 6.13 resets a copy
		 * whose group size is off). */
		if (ref->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR) {
			n += mismatch(sink, agno, "rgcount", SB_RGCOUNT, ref->rgcount,
				      other->rgcount);
			n += mismatch(sink, agno, "rgextents", SB_RGEXTENTS, ref->rgextents,
				      other->rgextents);
			n += mismatch(sink, agno, "rgblklog", SB_RGBLKLOG, ref->rgblklog,
				      other->rgblklog);
		}
	}
	return n;
}

/* ---------------------------------------------------------------- fields */

#define F(nm, of, sz, kd, v5, dc) \
	{ .name = (nm), .off = (of), .size = (sz), .kind = (kd), .v5only = (v5), .doc = (dc) }

const struct xfmt_field xfmt_sb_fields[] = {
	F("magicnum", SB_MAGICNUM, 4, XFK_HEX, 0, "magic number 0x58465342 \"XFSB\""),
	F("blocksize", SB_BLOCKSIZE, 4, XFK_UINT, 0, "filesystem block size in bytes"),
	F("dblocks", SB_DBLOCKS, 8, XFK_NULLABLE, 0, "blocks on the data device (sum of all AG lengths)"),
	F("rblocks", SB_RBLOCKS, 8, XFK_NULLABLE, 0, "blocks on the realtime device (0 = none)"),
	F("rextents", SB_REXTENTS, 8, XFK_NULLABLE, 0, "number of realtime extents"),
	F("uuid", SB_UUID, 16, XFK_UUID, 0, "filesystem UUID"),
	F("logstart", SB_LOGSTART, 8, XFK_NULLABLE, 0, "fsblock of the internal log (0 = external log)"),
	F("rootino", SB_ROOTINO, 8, XFK_NULLABLE, 0, "inode number of the root directory"),
	F("rbmino", SB_RBMINO, 8, XFK_NULLABLE, 0, "realtime bitmap inode"),
	F("rsumino", SB_RSUMINO, 8, XFK_NULLABLE, 0, "realtime summary inode"),
	F("rextsize", SB_REXTSIZE, 4, XFK_NULLABLE, 0, "realtime extent size in blocks"),
	F("agblocks", SB_AGBLOCKS, 4, XFK_NULLABLE, 0, "blocks per allocation group (the last may be shorter)"),
	F("agcount", SB_AGCOUNT, 4, XFK_NULLABLE, 0, "number of allocation groups"),
	F("rbmblocks", SB_RBMBLOCKS, 4, XFK_UINT, 0, "realtime bitmap size in blocks"),
	F("logblocks", SB_LOGBLOCKS, 4, XFK_UINT, 0, "log size in blocks"),
	F("versionnum", SB_VERSIONNUM, 2, XFK_HEX, 0, "version (low nibble, 4 or 5) and feature bits"),
	F("sectsize", SB_SECTSIZE, 2, XFK_UINT, 0, "sector size in bytes; each AG header is one sector"),
	F("inodesize", SB_INODESIZE, 2, XFK_UINT, 0, "inode size in bytes"),
	F("inopblock", SB_INOPBLOCK, 2, XFK_UINT, 0, "inodes per block"),
	F("fname", SB_FNAME, 12, XFK_CHARS, 0, "volume label, NUL padded"),
	F("blocklog", SB_BLOCKLOG, 1, XFK_UINT, 0, "log2 of blocksize"),
	F("sectlog", SB_SECTLOG, 1, XFK_UINT, 0, "log2 of sectsize"),
	F("inodelog", SB_INODELOG, 1, XFK_UINT, 0, "log2 of inodesize"),
	F("inopblog", SB_INOPBLOG, 1, XFK_UINT, 0, "log2 of inopblock"),
	F("agblklog", SB_AGBLKLOG, 1, XFK_UINT, 0, "bits of agbno in packed block and inode numbers"),
	F("rextslog", SB_REXTSLOG, 1, XFK_UINT, 0, "log2 of rextents (0 without realtime)"),
	F("inprogress", SB_INPROGRESS, 1, XFK_UINT, 0, "non-zero while mkfs runs (secondaries keep 1)"),
	F("imax_pct", SB_IMAX_PCT, 1, XFK_UINT, 0, "maximum percentage of space for inodes"),
	F("icount", SB_ICOUNT, 8, XFK_UINT, 0, "allocated inodes (summary counter)"),
	F("ifree", SB_IFREE, 8, XFK_UINT, 0, "free inodes in allocated chunks (summary counter)"),
	F("fdblocks", SB_FDBLOCKS, 8, XFK_UINT, 0, "free data blocks (summary counter)"),
	F("frextents", SB_FREXTENTS, 8, XFK_UINT, 0, "free realtime extents (summary counter)"),
	F("uquotino", SB_UQUOTINO, 8, XFK_NULLABLE, 0, "user quota inode (0 or null = none)"),
	F("gquotino", SB_GQUOTINO, 8, XFK_NULLABLE, 0, "group quota inode (v4: group or project)"),
	F("qflags", SB_QFLAGS, 2, XFK_HEX, 0, "quota accounting/enforcement flags"),
	F("flags", SB_FLAGS, 1, XFK_HEX, 0, "misc flags (0x01 = read-only)"),
	F("shared_vn", SB_SHARED_VN, 1, XFK_UINT, 0, "shared version number, must be 0"),
	F("inoalignmt", SB_INOALIGNMT, 4, XFK_UINT, 0, "inode chunk alignment in blocks"),
	F("unit", SB_UNIT, 4, XFK_UINT, 0, "stripe unit in blocks"),
	F("width", SB_WIDTH, 4, XFK_UINT, 0, "stripe width in blocks"),
	F("dirblklog", SB_DIRBLKLOG, 1, XFK_UINT, 0, "log2 of directory block size in fs blocks"),
	F("logsectlog", SB_LOGSECTLOG, 1, XFK_UINT, 0, "log2 of log sector size (0 = 512)"),
	F("logsectsize", SB_LOGSECTSIZE, 2, XFK_UINT, 0, "log sector size in bytes (0 = 512)"),
	F("logsunit", SB_LOGSUNIT, 4, XFK_UINT, 0, "log stripe unit in bytes (0 or 1 = none)"),
	F("features2", SB_FEATURES2, 4, XFK_HEX, 0, "second feature word"),
	F("bad_features2", SB_BAD_FEATURES2, 4, XFK_HEX, 0, "copy of features2 (old padding bug)"),
	F("features_compat", SB_FEATURES_COMPAT, 4, XFK_HEX, 1, "v5 compatible features"),
	F("features_ro_compat", SB_FEATURES_RO_COMPAT, 4, XFK_HEX, 1, "v5 read-only compatible features"),
	F("features_incompat", SB_FEATURES_INCOMPAT, 4, XFK_HEX, 1, "v5 incompatible features"),
	F("features_log_incompat", SB_FEATURES_LOG_INCOMPAT, 4, XFK_HEX, 1, "v5 log-incompatible features"),
	F("crc", SB_CRC, 4, XFK_CRC, 1, "CRC32c of the sector (little-endian)"),
	F("spino_align", SB_SPINO_ALIGN, 4, XFK_UINT, 1, "sparse inode chunk alignment in blocks"),
	F("pquotino", SB_PQUOTINO, 8, XFK_NULLABLE, 1, "project quota inode (v5)"),
	F("lsn", SB_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	F("meta_uuid", SB_META_UUID, 16, XFK_UUID, 1, "metadata UUID (used with the META_UUID feature)"),
	XFMT_FIELD_END
};
