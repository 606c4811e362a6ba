/*
 * btrec.h - records and keys of the XFS btrees: decoders to native structs,
 * the key order of every tree, record -> key / high key construction, and
 * the per-record sanity rules (the kernel's xfs_*_check_irec plus the
 * inode-chunk popcount relations).
 *
 * Layouts are xfs-ondisk.md 3.4; the rmap owner and offset rules section 4.
 * Block-level layout (where record i is) lives in btree.h.
 */
#ifndef XFMT_BTREC_H
#define XFMT_BTREC_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/btree.h"
#include "formats/geom.h"
#include "formats/problem.h"

/* Special rmap owners (bit 63 set). */
#define XFS_RMAP_OWN_NULL     0xFFFFFFFFFFFFFFFFull /* in-memory only */
#define XFS_RMAP_OWN_UNKNOWN  0xFFFFFFFFFFFFFFFEull /* in-memory only */
#define XFS_RMAP_OWN_FS       0xFFFFFFFFFFFFFFFDull /* AG headers */
#define XFS_RMAP_OWN_LOG      0xFFFFFFFFFFFFFFFCull
#define XFS_RMAP_OWN_AG       0xFFFFFFFFFFFFFFFBull /* bnobt, cntbt, rmapbt, AGFL */
#define XFS_RMAP_OWN_INOBT    0xFFFFFFFFFFFFFFFAull
#define XFS_RMAP_OWN_INODES   0xFFFFFFFFFFFFFFF9ull
#define XFS_RMAP_OWN_REFC     0xFFFFFFFFFFFFFFF8ull
#define XFS_RMAP_OWN_COW      0xFFFFFFFFFFFFFFF7ull
#define XFS_RMAP_OWN_MIN      0xFFFFFFFFFFFFFFF6ull /* lower guard */

/* rm_offset flag bits and the offset proper. */
#define XFS_RMAP_OFF_ATTR_FORK   (1ull << 63)
#define XFS_RMAP_OFF_BMBT_BLOCK  (1ull << 62)
#define XFS_RMAP_OFF_UNWRITTEN   (1ull << 61)
#define XFS_RMAP_OFF_MASK        ((1ull << 54) - 1)
#define XFS_RMAP_OFF_FLAGS \
	(XFS_RMAP_OFF_ATTR_FORK | XFS_RMAP_OFF_BMBT_BLOCK | XFS_RMAP_OFF_UNWRITTEN)

/* Refcount startblock bit 31: CoW staging extent. */
#define XFS_REFC_COWFLAG         0x80000000u

/* bmbt record field widths. */
#define XFS_BMBT_STARTOFF_MASK   ((1ull << 54) - 1)
#define XFS_BMBT_STARTBLOCK_MASK ((1ull << 52) - 1)
#define XFS_BMBT_BLOCKCOUNT_MASK ((1u << 21) - 1)
/* Largest file offset (blocks) any mapping may reach. */
#define XFS_MAX_FILEOFF          (XFS_BMBT_STARTOFF_MASK + XFS_BMBT_BLOCKCOUNT_MASK)

/* Inode chunks. */
#define XFS_INODES_PER_HOLEMASK_BIT 4u
#define XFS_INOBT_HOLEMASK_FULL     0u

/* Largest key of any tree, in bytes (rmap). */
#define XFMT_BT_KEY_MAX 20u

struct xfmt_alloc_rec {
	uint32_t startblock;
	uint32_t blockcount;
};

struct xfmt_inobt_rec {
	uint32_t startino;          /* agino of inode 0 of the chunk */
	uint16_t holemask;          /* sparse: bit j set = inodes 4j..4j+3 absent */
	uint8_t  count;             /* inodes physically present (64 if not sparse) */
	uint8_t  freecount_sparse;  /* raw byte 7 (the sparse freecount field) */
	uint32_t freecount;         /* free inodes, from the layout in use */
	uint64_t free;              /* bit i set = inode startino+i free */
};

struct xfmt_rmap_rec {
	uint32_t startblock;
	uint32_t blockcount;
	uint64_t owner;
	uint64_t offset;            /* bits 0..53 of rm_offset */
	bool     attr_fork;
	bool     bmbt_block;
	bool     unwritten;
	uint64_t raw_offset;        /* rm_offset with its flag bits */
};

/* rmap keys are the record without blockcount (UNWRITTEN never set). */
struct xfmt_rmap_key {
	uint32_t startblock;
	uint64_t owner;
	uint64_t offset;
	bool     attr_fork;
	bool     bmbt_block;
	bool     unwritten;
	uint64_t raw_offset;
};

struct xfmt_refc_rec {
	uint32_t startblock;        /* bits 0..30 */
	bool     cow;               /* bit 31: CoW staging extent */
	uint32_t blockcount;
	uint32_t refcount;
};

struct xfmt_bmbt_rec {
	uint64_t startoff;          /* file offset, blocks */
	uint64_t startblock;        /* packed fsblock (rt block for rt files) */
	uint32_t blockcount;
	bool     unwritten;
};

/*
 * Record decoders.  p points at one whole record (xfmt_bt_rec gives a
 * bounds-checked pointer); they cannot fail.  The inobt layout depends on
 * the filesystem: sparse iff xfmt_geom_has_sparse_inodes, else the full
 * layout (be32 freecount; holemask 0 and count 64 are filled in).
 */
void xfmt_alloc_rec_decode(const uint8_t *p, struct xfmt_alloc_rec *out);
void xfmt_inobt_rec_decode(const uint8_t *p, bool sparse, struct xfmt_inobt_rec *out);
void xfmt_rmap_rec_decode(const uint8_t *p, struct xfmt_rmap_rec *out);
void xfmt_refc_rec_decode(const uint8_t *p, struct xfmt_refc_rec *out);
void xfmt_bmbt_rec_decode(const uint8_t *p, struct xfmt_bmbt_rec *out);

/*
 * Record encoders, the inverse of the decoders: p receives one whole record
 * (xfmt_bt_rec_len bytes).  The inobt layout follows sparse as for the
 * decoder (the full layout stores freecount as be32 and has no holemask or
 * count).  The rmap offset is built from offset and the three flags
 * (raw_offset is ignored); the refcount CoW flag from cow.
 */
void xfmt_alloc_rec_encode(uint8_t *p, const struct xfmt_alloc_rec *r);
void xfmt_inobt_rec_encode(uint8_t *p, bool sparse, const struct xfmt_inobt_rec *r);
void xfmt_rmap_rec_encode(uint8_t *p, const struct xfmt_rmap_rec *r);
void xfmt_refc_rec_encode(uint8_t *p, const struct xfmt_refc_rec *r);
/* A bmbt extent record (fields beyond their widths are masked). */
void xfmt_bmbt_rec_encode(uint8_t *p, const struct xfmt_bmbt_rec *r);
/* rm_offset from a file offset (masked to 54 bits) and the flags. */
uint64_t xfmt_rmap_raw_offset(uint64_t offset, bool attr_fork, bool bmbt_block,
			      bool unwritten);

/* Key decoders (node keys; for rmap also usable on high keys). */
void xfmt_alloc_key_decode(const uint8_t *p, struct xfmt_alloc_rec *out);
uint32_t xfmt_inobt_key_decode(const uint8_t *p);
void xfmt_rmap_key_decode(const uint8_t *p, struct xfmt_rmap_key *out);
/* Raw be32 refcount key: the startblock including the CoW bit. */
uint32_t xfmt_refc_key_decode(const uint8_t *p);
uint64_t xfmt_bmbt_key_decode(const uint8_t *p);

/* Inode chunk arithmetic. */
/* Mask of the inodes physically present: bit i set = inode i allocated on disk. */
uint64_t xfmt_inobt_allocmask(uint16_t holemask);
/* Inodes present according to a holemask: 64 - 4 * popcount(holemask). */
unsigned xfmt_inobt_holemask_count(uint16_t holemask);
/* Free inodes the free mask gives for the present inodes. */
unsigned xfmt_inobt_rec_freecount(const struct xfmt_inobt_rec *r);
unsigned xfmt_popcount64(uint64_t v);

/*
 * Compare two on-disk keys of tree bt (also high keys, and the output of
 * xfmt_bt_rec_key): <0, 0, >0.  Orders: bnobt startblock; cntbt
 * (blockcount, startblock) though the bytes are startblock first; inobt
 * startino; rmapbt startblock, owner (unsigned), offset with the attr and
 * bmbt flags but UNWRITTEN masked off; refcountbt the raw startblock (so
 * CoW records sort last); bmbt startoff.  0 for an unknown tree.
 */
int xfmt_bt_key_cmp(enum xfmt_btnum bt, const uint8_t *a, const uint8_t *b);

/*
 * Build the on-disk key of record rec into keybuf (>= XFMT_BT_KEY_MAX
 * bytes).  For the rmapbt this is the low key.  Returns the key length, or
 * -1 for an unknown tree.
 */
int xfmt_bt_rec_key(enum xfmt_btnum bt, const uint8_t *rec, uint8_t *keybuf);

/*
 * Build the rmapbt high key of rec: (startblock + blockcount - 1, owner,
 * offset + blockcount - 1), the offset not advanced for special owners and
 * bmbt blocks.  Returns the key length (20), or -1 for other trees.
 */
int xfmt_bt_rec_highkey(enum xfmt_btnum bt, const uint8_t *rec, uint8_t *keybuf);

/* Compare the keys of two records (the order records must be stored in). */
int xfmt_bt_rec_cmp(enum xfmt_btnum bt, const uint8_t *a, const uint8_t *b);

/*
 * True if record cur overlaps prev, its predecessor in key order, in a tree
 * whose records must not overlap: bnobt/cntbt/refcountbt blocks (refcount
 * within the same shared/CoW domain), inobt/finobt 64-inode chunks, bmbt
 * file offsets.  Always false for the rmapbt (sharing is legal there).
 */
bool xfmt_bt_recs_overlap(enum xfmt_btnum bt, const uint8_t *prev, const uint8_t *cur);

/*
 * Per-record sanity of record rec (record number idx in its block, reported
 * as {off}) of tree bt in AG agno (ignored for the bmbt).  The inobt layout
 * (sparse or full) is taken from g.  Every failed rule
 * is reported:
 *   bnobt/cntbt: blockcount > 0, extent inside the AG (not on the headers).
 *   inobt/finobt: startino block- and cluster-aligned, chunk inside the AG,
 *     count in 4..64 and == 64 - 4*popcount(holemask), freecount <= 64 and ==
 *     popcount of the free bits of present inodes, holes marked free;
 *     finobt: freecount > 0 (reported as ichunkFinobtMismatch).
 *   rmapbt: xfs_rmap_check_irec (blockcount, the AG-header record, extent,
 *     owner, offset flag combinations, reserved offset bits, file offset range).
 *   refcountbt: blockcount > 0, refcount >= 2 (shared) or == 1 (CoW),
 *     extent inside the AG.
 *   bmbt: blockcount > 0, extent on valid fsblocks inside one AG, file
 *     range below XFS_MAX_FILEOFF.  (Realtime mappings must not be passed.)
 * Returns the number of findings.
 */
unsigned xfmt_bt_rec_verify(enum xfmt_btnum bt, const uint8_t *rec, unsigned idx,
			    const struct xfmt_geom *g, uint32_t agno,
			    const struct xprob_sink *sink);

/*
 * First and last agino an inode chunk may use in AG agno (the kernel's
 * xfs_agino_range: after the AG headers, cluster-aligned).  Returns false
 * if the AG holds no room for a chunk.
 */
bool xfmt_agino_range(const struct xfmt_geom *g, uint32_t agno, uint32_t *first,
		      uint32_t *last);

#endif /* XFMT_BTREC_H */
