/*
 * agi.h - the AGI (sector 2 of every AG): inode btree roots, inode counts
 * and the 64 unlinked-inode bucket heads.  Layout, decoder, verifier, the
 * inode btree height limit and the field table.
 */
#ifndef XFMT_AGI_H
#define XFMT_AGI_H

#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_AGI_MAGIC            0x58414749u   /* "XAGI" */
#define XFS_AGI_VERSION          1u
#define XFS_AGI_UNLINKED_BUCKETS 64
#define XFS_AGI_STRUCT_SIZE      344
#define XFS_AGI_CRC_OFF          312

/* Decoded AGI, native byte order; crc is the CRC value (little-endian field). */
struct xfmt_agi {
	uint32_t magicnum;
	uint32_t versionnum;
	uint32_t seqno;
	uint32_t length;
	uint32_t count;
	uint32_t root;
	uint32_t level;
	uint32_t freecount;
	uint32_t newino;
	uint32_t dirino;
	uint32_t unlinked[XFS_AGI_UNLINKED_BUCKETS];
	uint8_t  uuid[16];
	uint32_t crc;
	uint32_t pad32;
	uint64_t lsn;
	uint32_t free_root;
	uint32_t free_level;
	uint32_t iblocks;
	uint32_t fblocks;
};

/* Decode the AGI at buf.  Returns 0, or -1 if len < XFS_AGI_STRUCT_SIZE. */
int xfmt_agi_decode(const uint8_t *buf, size_t len, struct xfmt_agi *out);

/*
 * Verify the AGI of AG agno against the geometry g (from a sane superblock).
 * One finding per failed rule: magic, version, seqno == agno, length ==
 * xfmt_geom_ag_length, inobt/finobt roots inside the AG, past the header
 * blocks and distinct, levels within 1..the kernel's inobt maximum (finobt
 * fields zero without the feature), count within what the AG can hold (a
 * multiple of 64 without sparse inodes), freecount <= count, newino null or
 * a usable agino, dirino null, each unlinked bucket null or a usable agino
 * with agino % 64 == bucket (a non-empty bucket is also agiUnlinkedInUse),
 * iblocks/fblocks (INOBTCNT) within 1..length, uuid (v5), pad32 and the
 * sector tail zero, CRC (v5, over sectsize bytes when len >= sectsize).
 * Returns the number of findings.
 */
unsigned xfmt_agi_verify(const uint8_t *buf, size_t len, const struct xfmt_agi *agi,
			 const struct xfmt_geom *g, uint32_t agno,
			 const struct xprob_sink *sink);

/* The kernel's inobt_maxlevels for this geometry (finobt uses the same). */
uint32_t xfmt_agi_inobt_maxlevels(const struct xfmt_geom *g);

/*
 * Encode agi into the AGI sector at buf (len >= g->sectsize): the sector is
 * zeroed first (pad32 and the tail stay zero), every field written; on v5
 * uuid and lsn come from agi and the CRC is computed over the sector
 * (agi->crc and agi->pad32 are ignored).  Returns 0, or -1 if len or the
 * sector size cannot hold an AGI.
 */
int xfmt_agi_encode(uint8_t *buf, size_t len, const struct xfmt_agi *agi,
		    const struct xfmt_geom *g);

/*
 * Fields in the order and with the names of `xfs_db -c 'agi N' -c p`.
 * "unlinked" is the whole 64-entry array (xfs_db prints only the non-null
 * entries, as "bucket:agino"); pad32, which xfs_db hides, is left out.
 */
extern const struct xfmt_field xfmt_agi_fields[];

#endif /* XFMT_AGI_H */
