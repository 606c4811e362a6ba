/*
 * agf.h - the AGF (sector 1 of every AG): free-space btree roots, the AGFL
 * window and the rmap/refcount roots.  Layout, decoder, verifier, the btree
 * height limits the verifier uses, and the field table.
 */
#ifndef XFMT_AGF_H
#define XFMT_AGF_H

#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_AGF_MAGIC        0x58414746u   /* "XAGF" */
#define XFS_AGF_VERSION      1u
#define XFS_AGF_STRUCT_SIZE  224
#define XFS_AGF_CRC_OFF      216

/* Decoded AGF, native byte order; crc is the CRC value (little-endian field). */
struct xfmt_agf {
	uint32_t magicnum;
	uint32_t versionnum;
	uint32_t seqno;
	uint32_t length;
	uint32_t bno_root;
	uint32_t cnt_root;
	uint32_t rmap_root;
	uint32_t bno_level;
	uint32_t cnt_level;
	uint32_t rmap_level;
	uint32_t flfirst;
	uint32_t fllast;
	uint32_t flcount;
	uint32_t freeblks;
	uint32_t longest;
	uint32_t btreeblks;
	uint8_t  uuid[16];
	uint32_t rmap_blocks;
	uint32_t refcount_blocks;
	uint32_t refcount_root;
	uint32_t refcount_level;
	uint64_t lsn;
	uint32_t crc;
};

/* Decode the AGF at buf.  Returns 0, or -1 if len < XFS_AGF_STRUCT_SIZE. */
int xfmt_agf_decode(const uint8_t *buf, size_t len, struct xfmt_agf *out);

/*
 * Verify the AGF of AG agno against the geometry g (from a sane superblock).
 * Each failed rule is one finding: magic, version, seqno == agno, length ==
 * xfmt_geom_ag_length, each root inside the AG and past the header blocks
 * and distinct from the other roots, levels within 1..the kernel's maximum
 * height for this geometry (rmap/refcount only with their feature; their
 * fields must be zero without it), flfirst/fllast/flcount against the AGFL
 * size and each other (xfs_agfl_needs_reset), freeblks <= length, longest <=
 * freeblks, btreeblks/rmap_blocks/refcount_blocks <= length, uuid (v5),
 * CRC (v5, over sectsize bytes when len >= sectsize), zero spare bytes.
 * Returns the number of findings.
 */
unsigned xfmt_agf_verify(const uint8_t *buf, size_t len, const struct xfmt_agf *agf,
			 const struct xfmt_geom *g, uint32_t agno,
			 const struct xprob_sink *sink);

/*
 * Maximum btree heights the kernel allows for this geometry (its
 * m_alloc_maxlevels, m_rmap_maxlevels, m_refc_maxlevels); 0 when the tree
 * cannot exist on this filesystem.
 */
uint32_t xfmt_agf_alloc_maxlevels(const struct xfmt_geom *g);
uint32_t xfmt_agf_rmap_maxlevels(const struct xfmt_geom *g);
uint32_t xfmt_agf_refcount_maxlevels(const struct xfmt_geom *g);

/*
 * Height of the tallest btree whose leaves can hold `records` records with
 * at least min_leaf records per leaf and min_node pointers per node (the
 * kernel's xfs_btree_compute_maxlevels).  0 if a minimum is 0.
 */
uint32_t xfmt_agf_tree_maxlevels(uint32_t min_leaf, uint32_t min_node,
				 uint64_t records);

/*
 * Encode agf into the AGF sector at buf (len >= g->sectsize): the sector is
 * zeroed first (spare bytes and tail), every field written; on v5 the uuid
 * and lsn from agf are kept and the CRC computed over the sector (agf->crc
 * is ignored).  v4 leaves uuid and lsn zero.  Returns 0, or -1 if len or
 * the sector size cannot hold an AGF.
 */
int xfmt_agf_encode(uint8_t *buf, size_t len, const struct xfmt_agf *agf,
		    const struct xfmt_geom *g);

/* Fields in the order and with the names of `xfs_db -c 'agf N' -c p`. */
extern const struct xfmt_field xfmt_agf_fields[];

#endif /* XFMT_AGF_H */
