/*
 * btree.h - generic B+tree block layout, header decoding and header
 * verification for every XFS btree: the six short-form AG trees (bnobt,
 * cntbt, inobt, finobt, rmapbt, refcountbt) and the long-form bmap btree.
 *
 * Owns: magic numbers, header lengths, record/key/pointer sizes, capacities
 * (maxrecs, matching `xfs_db btheight`), bounds-checked access to records,
 * keys and pointers inside one block, the header field tables, and the
 * in-inode bmap btree root ("bmdr") layout.  Record and key contents are in
 * btrec.h.  Walking a tree (levels, siblings, key order across blocks) is
 * the analyzer's job; this file only judges one block at a time.
 */
#ifndef XFMT_BTREE_H
#define XFMT_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

enum xfmt_btnum {
	XFMT_BT_BNO,    /* free space by block number */
	XFMT_BT_CNT,    /* free space by size */
	XFMT_BT_INO,    /* inode chunks */
	XFMT_BT_FINO,   /* inode chunks with free inodes */
	XFMT_BT_RMAP,   /* reverse mapping */
	XFMT_BT_REFC,   /* reference counts */
	XFMT_BT_BMAP,   /* file fork mapping (long form) */
	XFMT_BT_COUNT
};

/* Magic numbers (be32 at offset 0). */
#define XFS_ABTB_MAGIC       0x41425442u /* ABTB v4 bnobt */
#define XFS_ABTB_CRC_MAGIC   0x41423342u /* AB3B */
#define XFS_ABTC_MAGIC       0x41425443u /* ABTC v4 cntbt */
#define XFS_ABTC_CRC_MAGIC   0x41423343u /* AB3C */
#define XFS_IBT_MAGIC        0x49414254u /* IABT */
#define XFS_IBT_CRC_MAGIC    0x49414233u /* IAB3 */
#define XFS_FIBT_MAGIC       0x46494254u /* FIBT */
#define XFS_FIBT_CRC_MAGIC   0x46494233u /* FIB3 */
#define XFS_RMAP_CRC_MAGIC   0x524D4233u /* RMB3, v5 only */
#define XFS_REFC_CRC_MAGIC   0x52334643u /* R3FC, v5 only */
#define XFS_BMAP_MAGIC       0x424D4150u /* BMAP */
#define XFS_BMAP_CRC_MAGIC   0x424D4133u /* BMA3 */

/* Header layout (xfs-ondisk.md 3.1). */
#define XFMT_BT_SHORT_HDR_V4   16u
#define XFMT_BT_SHORT_HDR_V5   56u
#define XFMT_BT_LONG_HDR_V4    24u
#define XFMT_BT_LONG_HDR_V5    72u
#define XFMT_BT_SHORT_CRC_OFF  52u
#define XFMT_BT_LONG_CRC_OFF   64u
#define XFMT_BT_SHORT_OWNER_OFF 48u  /* v5: be32 AG number */
#define XFMT_BT_LONG_OWNER_OFF  56u  /* v5: be64 inode number */

/* Short name as xfs_db spells the tree type; "?" for an unknown value. */
const char *xfmt_bt_name(enum xfmt_btnum bt);

/* Magic number of the tree for a v5 (CRC) or v4 filesystem; 0 if none. */
uint32_t xfmt_bt_magic(enum xfmt_btnum bt, bool v5);

/* True for the long-form (64-bit sibling and pointer) bmap btree. */
bool xfmt_bt_is_long(enum xfmt_btnum bt);

/* Block header length in bytes: 56/16 short form, 72/24 long form. */
size_t xfmt_bt_hdr_len(enum xfmt_btnum bt, bool v5);

/* Offset of the CRC field in a v5 block of this tree. */
size_t xfmt_bt_crc_off(enum xfmt_btnum bt);

/*
 * Sizes of one leaf record, one key and one child pointer.  For the rmapbt
 * the key is 20 bytes but a node slot holds a low and a high key (40).
 * All return 0 for an unknown tree.
 */
size_t xfmt_bt_rec_len(enum xfmt_btnum bt);
size_t xfmt_bt_key_len(enum xfmt_btnum bt);
size_t xfmt_bt_ptr_len(enum xfmt_btnum bt);
/* Bytes taken by one key slot of a node (key_len, or 2 * key_len for rmap). */
size_t xfmt_bt_keyslot_len(enum xfmt_btnum bt);

/*
 * Capacity of one block: records in a leaf, key/pointer pairs in a node.
 * Same numbers as `xfs_db btheight -w max`.  0 if the block cannot even
 * hold its header.
 */
unsigned xfmt_bt_maxrecs(enum xfmt_btnum bt, uint32_t blocksize, bool v5, bool leaf);

/* A decoded block header.  Short-form siblings are widened as-is, so
 * NULLAGBLOCK reads as 0xFFFFFFFF; long-form NULLFSBLOCK as all ones. */
struct xfmt_bt_hdr {
	uint32_t magic;
	uint16_t level;
	uint16_t numrecs;
	uint64_t leftsib;
	uint64_t rightsib;
	uint64_t blkno;      /* v5: daddr the block claims to live at */
	uint64_t lsn;        /* v5 */
	uint8_t  uuid[16];   /* v5 */
	uint64_t owner;      /* v5: agno (AG trees) or inode number (bmbt) */
	uint32_t crc;        /* v5: stored value (little-endian on disk) */
	uint32_t pad;        /* v5 long form only */
	bool     long_form;
	bool     v5;
};

/*
 * Decode the header of a block of tree bt.  v5 selects the CRC header.
 * Returns 0, or -1 (and leaves *out zeroed) if len is shorter than the header.
 */
int xfmt_bt_hdr_decode(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
		       bool v5, struct xfmt_bt_hdr *out);

/* What the caller knows about the block it read. */
struct xfmt_bt_expect {
	int      level;   /* -1 = unknown */
	uint64_t daddr;   /* where it was read from (512-byte units) */
	uint64_t owner;   /* agno for AG trees, inode number for bmbt */
	bool     is_root; /* root of its tree: an empty leaf is then legal */
};

/*
 * Verify one btree block header (and its CRC on v5) against the geometry and
 * what the caller expects.  Every failed check is reported to sink:
 * magic, CRC over the whole block (a separate finding), level range and
 * expected level, numrecs against the level's capacity, numrecs == 0 outside
 * an empty root leaf, v5 blkno/uuid/owner, siblings (null, or a valid block
 * of the AG / filesystem that is not the block itself) and the bmbt pad.
 * The buffer must hold g->blocksize bytes; a shorter one is reported as
 * btUnreadable and only the parts that fit are checked.
 * Returns the number of findings reported.
 */
unsigned xfmt_bt_verify_hdr(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			    const struct xfmt_geom *g,
			    const struct xfmt_bt_expect *exp,
			    const struct xprob_sink *sink);

/*
 * Bounds-checked element access inside one block of len bytes.  Each returns
 * a pointer into buf, or NULL when the element does not lie entirely inside
 * the block (or inside its key area, for keys).  They do not look at numrecs:
 * callers bound i by a numrecs they have verified.
 *
 * xfmt_bt_rec:     leaf record i.
 * xfmt_bt_key:     node key i (the low key for the rmapbt).
 * xfmt_bt_highkey: rmapbt node high key i; NULL for every other tree.
 */
const uint8_t *xfmt_bt_rec(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			   bool v5, unsigned i);
const uint8_t *xfmt_bt_key(const uint8_t *buf, size_t len, enum xfmt_btnum bt,
			   bool v5, unsigned i);
const uint8_t *xfmt_bt_highkey(const uint8_t *buf, size_t len,
			       enum xfmt_btnum bt, bool v5, unsigned i);

/*
 * Child pointer i of a node block.  Pointers start after room for the
 * maximum number of keys of a blocksize-byte node (xfs-ondisk.md 3.2).
 * Stores an agbno (AG trees) or fsblock (bmbt) in *out and returns 0, or -1
 * if i is beyond the node capacity or the pointer is outside len.
 */
int xfmt_bt_ptr(const uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
		uint32_t blocksize, unsigned i, uint64_t *out);

/*
 * Encoders (the inverse of the accessors above; writers build a block in a
 * zeroed blocksize buffer with them, then call xfmt_bt_set_crc on v5).
 *
 * xfmt_bt_hdr_encode: write the header h describes (h->v5 selects the CRC
 *   header; the CRC field is written as h->crc, normally 0 until
 *   xfmt_bt_set_crc).  -1 if len cannot hold it, or a short-form sibling or
 *   owner does not fit 32 bits.
 * xfmt_bt_put_rec: copy one on-disk record into leaf slot i.
 * xfmt_bt_put_key: copy one key into node slot i; the rmapbt also takes its
 *   high key (highkey must be NULL for every other tree).
 * xfmt_bt_put_ptr: child pointer i of a node (agbno or fsblock).
 * Each returns 0, or -1 when the slot is outside the block (nothing written).
 */
int xfmt_bt_hdr_encode(uint8_t *buf, size_t len, enum xfmt_btnum bt,
		       const struct xfmt_bt_hdr *h);
int xfmt_bt_put_rec(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5, unsigned i,
		    const uint8_t *rec);
int xfmt_bt_put_key(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5, unsigned i,
		    const uint8_t *key, const uint8_t *highkey);
int xfmt_bt_put_ptr(uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
		    uint32_t blocksize, unsigned i, uint64_t ptr);
/* Compute and store the CRC of a v5 block of tree bt (blocksize bytes). */
void xfmt_bt_set_crc(uint8_t *buf, size_t blocksize, enum xfmt_btnum bt);

/* Header field tables, xfs_db names (magic, level, numrecs, leftsib, ...). */
extern const struct xfmt_field xfmt_bt_short_fields[];
extern const struct xfmt_field xfmt_bt_long_fields[];
/* The right table for a tree. */
const struct xfmt_field *xfmt_bt_fields(enum xfmt_btnum bt);

/*
 * The bmap btree root inside an inode fork ("bmdr"): be16 level, be16
 * numrecs, then keys (be64 startoff) from byte 4 and pointers (be64 fsblock)
 * from byte 4 + maxrecs * 8, where maxrecs = (forksize - 4) / 16.
 */
#define XFMT_BMDR_HDR_LEN 4u
unsigned xfmt_bmdr_maxrecs(size_t forksize);
/* Decode level and numrecs; -1 if the fork cannot hold the 4-byte header. */
int xfmt_bmdr_decode(const uint8_t *fork, size_t forksize, uint16_t *level,
		     uint16_t *numrecs);
/* Key i (startoff) / pointer i (fsblock) of the root; -1 if i >= maxrecs. */
int xfmt_bmdr_key(const uint8_t *fork, size_t forksize, unsigned i, uint64_t *out);
int xfmt_bmdr_ptr(const uint8_t *fork, size_t forksize, unsigned i, uint64_t *out);

/*
 * Helpers shared with btrec.c: the AGFL's block number (blocks at or below
 * it hold the AG headers) and whether an agbno / extent / fsblock is a legal
 * target for metadata or data (inside the AG, not on the AG headers), as the
 * kernel's xfs_verify_agbno / xfs_verify_agbext / xfs_verify_fsbno.
 */
uint32_t xfmt_bt_agfl_block(const struct xfmt_geom *g);
bool xfmt_bt_agbno_ok(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno);
bool xfmt_bt_agbext_ok(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno,
		       uint32_t len);
bool xfmt_bt_fsbno_ok(const struct xfmt_geom *g, uint64_t fsb);

#endif /* XFMT_BTREE_H */
