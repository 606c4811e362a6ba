/*
 * sb.h - the XFS superblock: layout, decoder, verifier, geometry and the
 * field table.
 *
 * The superblock sits in the first sector of every AG.  Its structure is 264
 * bytes (v4 uses only the first 208); the rest of the sector is zero and on
 * v5 the CRC covers the whole sector (sb_sectsize bytes).  This file knows the
 * bytes and the sanity rules of one superblock; which copy to believe is the
 * analyzer's decision (it uses xfmt_sb_compare_geometry as evidence).
 */
#ifndef XFMT_SB_H
#define XFMT_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_SB_MAGIC        0x58465342u   /* "XFSB" */
#define XFS_SB_STRUCT_SIZE  264
#define XFS_SB_V4_SIZE      208           /* v4 fields end at bad_features2 */
#define XFS_SB_CRC_OFF      224

/* sb_versionnum: low nibble is the version, the rest feature bits. */
#define XFS_SB_VERSION_NUMBITS    0x000Fu
#define XFS_SB_VERSION_4          4u
#define XFS_SB_VERSION_5          5u
#define XFS_SB_VERSION_ATTRBIT    0x0010u
#define XFS_SB_VERSION_NLINKBIT   0x0020u
#define XFS_SB_VERSION_QUOTABIT   0x0040u
#define XFS_SB_VERSION_ALIGNBIT   0x0080u
#define XFS_SB_VERSION_DALIGNBIT  0x0100u
#define XFS_SB_VERSION_SHAREDBIT  0x0200u
#define XFS_SB_VERSION_LOGV2BIT   0x0400u
#define XFS_SB_VERSION_SECTORBIT  0x0800u
#define XFS_SB_VERSION_EXTFLGBIT  0x1000u
#define XFS_SB_VERSION_DIRV2BIT   0x2000u
#define XFS_SB_VERSION_BORGBIT    0x4000u
#define XFS_SB_VERSION_MOREBITSBIT 0x8000u

/* sb_features2 (mirrored in sb_bad_features2). */
#define XFS_SB_VERSION2_LAZYSBCOUNTBIT 0x002u
#define XFS_SB_VERSION2_ATTR2BIT       0x008u
#define XFS_SB_VERSION2_PARENTBIT      0x010u
#define XFS_SB_VERSION2_PROJID32BIT    0x080u
#define XFS_SB_VERSION2_CRCBIT         0x100u
#define XFS_SB_VERSION2_FTYPE          0x200u

/* v5 feature words. */
#define XFS_SB_FEAT_RO_COMPAT_FINOBT     0x1u
#define XFS_SB_FEAT_RO_COMPAT_RMAPBT     0x2u
#define XFS_SB_FEAT_RO_COMPAT_REFLINK    0x4u
#define XFS_SB_FEAT_RO_COMPAT_INOBTCNT   0x8u
#define XFS_SB_FEAT_RO_COMPAT_KNOWN      0xFu
#define XFS_SB_FEAT_INCOMPAT_FTYPE       0x01u
#define XFS_SB_FEAT_INCOMPAT_SPINODES    0x02u
#define XFS_SB_FEAT_INCOMPAT_META_UUID   0x04u
#define XFS_SB_FEAT_INCOMPAT_BIGTIME     0x08u
#define XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR 0x10u
#define XFS_SB_FEAT_INCOMPAT_NREXT64     0x20u
#define XFS_SB_FEAT_INCOMPAT_EXCHRANGE   0x40u
#define XFS_SB_FEAT_INCOMPAT_PARENT      0x80u
#define XFS_SB_FEAT_INCOMPAT_METADIR     0x100u  /* metadata directory tree */
#define XFS_SB_FEAT_INCOMPAT_KNOWN       0x1FFu
#define XFS_SB_FEAT_INCOMPAT_LOG_XATTRS  0x1u
#define XFS_SB_FEAT_INCOMPAT_LOG_KNOWN   0x1u

/* sb_flags and sb_qflags bits. */
#define XFS_SBF_READONLY   0x01u
#define XFS_UQUOTA_ACCT    0x0001u
#define XFS_UQUOTA_ENFD    0x0002u
#define XFS_UQUOTA_CHKD    0x0004u
#define XFS_PQUOTA_ACCT    0x0008u
#define XFS_OQUOTA_ENFD    0x0010u
#define XFS_OQUOTA_CHKD    0x0020u
#define XFS_GQUOTA_ACCT    0x0040u
#define XFS_GQUOTA_ENFD    0x0080u
#define XFS_GQUOTA_CHKD    0x0100u
#define XFS_PQUOTA_ENFD    0x0200u
#define XFS_PQUOTA_CHKD    0x0400u
#define XFS_QFLAGS_KNOWN   0x07FFu

/*
 * Decoded superblock: every on-disk field in native byte order, named like
 * the on-disk field without the sb_ prefix.  crc holds the CRC value (the
 * little-endian field read as such); xfs_db prints these bytes swapped.
 * meta_uuid is exactly what is on disk (zero unless META_UUID is set); use
 * xfmt_geom_from_sb for the uuid that metadata is stamped with.
 */
struct xfmt_sb {
	uint32_t magicnum;
	uint32_t blocksize;
	uint64_t dblocks;
	uint64_t rblocks;
	uint64_t rextents;
	uint8_t  uuid[16];
	uint64_t logstart;
	uint64_t rootino;
	uint64_t rbmino;
	uint64_t rsumino;
	uint32_t rextsize;
	uint32_t agblocks;
	uint32_t agcount;
	uint32_t rbmblocks;
	uint32_t logblocks;
	uint16_t versionnum;
	uint16_t sectsize;
	uint16_t inodesize;
	uint16_t inopblock;
	char     fname[12];
	uint8_t  blocklog;
	uint8_t  sectlog;
	uint8_t  inodelog;
	uint8_t  inopblog;
	uint8_t  agblklog;
	uint8_t  rextslog;
	uint8_t  inprogress;
	uint8_t  imax_pct;
	uint64_t icount;
	uint64_t ifree;
	uint64_t fdblocks;
	uint64_t frextents;
	uint64_t uquotino;
	uint64_t gquotino;
	uint16_t qflags;
	uint8_t  flags;
	uint8_t  shared_vn;
	uint32_t inoalignmt;
	uint32_t unit;
	uint32_t width;
	uint8_t  dirblklog;
	uint8_t  logsectlog;
	uint16_t logsectsize;
	uint32_t logsunit;
	uint32_t features2;
	uint32_t bad_features2;
	uint32_t features_compat;
	uint32_t features_ro_compat;
	uint32_t features_incompat;
	uint32_t features_log_incompat;
	uint32_t crc;
	uint32_t spino_align;
	uint64_t pquotino;
	uint64_t lsn;
	uint8_t  meta_uuid[16];
	/* METADIR (6.13): fields appended after meta_uuid, up to byte 281,
	 * then 7 bytes of padding; zero without the feature.  rbmino and
	 * rsumino are 0 on disk then (the realtime inodes live in the tree). */
	uint64_t metadirino;
	uint32_t rgcount;
	uint32_t rgextents;
	uint8_t  rgblklog;
};

/* Where the METADIR fields end (sb_pad follows, zero, to 288). */
#define XFS_SB_METADIR_END 281

/*
 * Decode the superblock structure at buf.  Returns 0, or -1 (out untouched)
 * if len < XFS_SB_STRUCT_SIZE.  Decoding never judges: a garbage sector
 * decodes to garbage values, and xfmt_sb_verify says what is wrong.
 */
int xfmt_sb_decode(const uint8_t *buf, size_t len, struct xfmt_sb *out);

/*
 * Encode sb into buf, one whole superblock sector of len bytes (len >=
 * XFS_SB_STRUCT_SIZE; normally sb->sectsize).  The sector is zeroed first, so
 * nothing of an earlier sector survives.  A v4 superblock writes only its
 * first 208 bytes (the v5 fields stay zero, as xfs_repair leaves them); a v5
 * one writes all 264 and its CRC over the len bytes (sb->crc is ignored).
 * Returns 0, or -1 (buf untouched) if len is too short.  Pure: the inverse
 * of xfmt_sb_decode for every field the version has.
 */
int xfmt_sb_encode(const struct xfmt_sb *sb, uint8_t *buf, size_t len);

/* True if the version nibble says 5 (CRC-enabled metadata). */
bool xfmt_sb_is_v5(const struct xfmt_sb *sb);

/*
 * Verify a primary superblock: every sanity rule of the kernel's
 * xfs_validate_sb_common / xfs_validate_sb_read and of xfs_repair's
 * verify_sb, each as its own finding, plus unknown feature bits, the
 * features2 mirror, the summary counters, inprogress, the root and quota
 * inode numbers, non-zero bytes after the structure, and (v5, when
 * len >= sectsize and sectsize is valid) the CRC over sectsize bytes.
 * buf/len are the raw sector (len >= XFS_SB_STRUCT_SIZE), sb its decoding.
 * Returns the number of findings sent to sink.
 */
unsigned xfmt_sb_verify(const uint8_t *buf, size_t len, const struct xfmt_sb *sb,
			const struct xprob_sink *sink);

/*
 * Same as xfmt_sb_verify for a secondary copy: skips the rules that only
 * hold for the primary (mkfs leaves copies with inprogress = 1, zero
 * counters and null rootino/rbmino/rsumino).
 */
unsigned xfmt_sb_verify_secondary(const uint8_t *buf, size_t len,
				  const struct xfmt_sb *sb,
				  const struct xprob_sink *sink);

/*
 * Fill g from sb.  Returns 0 if the geometry is sane enough for safe address
 * arithmetic (sizes powers of two matching their logs and in range,
 * agblklog matching agblocks, agcount > 0, dblocks consistent with the AGs,
 * the AG headers fit in every AG, byte offsets fit in 63 bits), else -1 (g
 * is still filled as far as possible, but must not be used).
 * g->meta_uuid = META_UUID ? sb->meta_uuid : sb->uuid;
 * g->dirblksize = blocksize << dirblklog.
 */
int xfmt_geom_from_sb(const struct xfmt_sb *sb, struct xfmt_geom *g);

/*
 * Blocks at the start of every AG taken by the four header sectors (SB, AGF,
 * AGI, AGFL): agbnos below this are header space, never a btree root, a free
 * list block, an inode chunk or the log.  The kernel's XFS_AGFL_BLOCK + 1.
 */
uint32_t xfmt_sb_hdr_blocks(const struct xfmt_geom *g);

/*
 * True if agino / ino names an inode slot inside its AG (which must exist)
 * and not inside the AG header blocks.  g must come from a sane superblock.
 */
bool xfmt_sb_agino_usable(const struct xfmt_geom *g, uint32_t agno, uint32_t agino);
bool xfmt_sb_ino_usable(const struct xfmt_geom *g, uint64_t ino);

/*
 * Compare the geometry of another superblock copy (AG agno) with ref, the
 * way xfs_repair does: blocksize, dblocks, rblocks, rextents, logstart,
 * rextsize, agblocks, agcount, rbmblocks, logblocks, sectsize, inodesize, the
 * version number and the ALIGN/DALIGN version bits and, on v5, the compat/ro_compat/incompat words
 * (NEEDSREPAIR ignored, as only the primary carries it).  One
 * sbSecondaryMismatch per differing field (expected = ref, observed =
 * other, ag = agno).  Returns the count.
 */
unsigned xfmt_sb_compare_geometry(const struct xfmt_sb *ref,
				  const struct xfmt_sb *other, uint32_t agno,
				  const struct xprob_sink *sink);

/*
 * Fields of the superblock in the order and with the names `xfs_db -c 'sb 0'
 * -c p` prints.  v5only marks fields past the v4 structure; xfs_db still
 * prints them (as zero) on v4.
 */
extern const struct xfmt_field xfmt_sb_fields[];

#endif /* XFMT_SB_H */
