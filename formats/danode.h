/*
 * danode.h - the DA ("directory/attribute") btree block header and the DA
 * node block, shared by directories and extended attributes.
 *
 * Every block of a DA btree starts with a blkinfo header: forw, back and a
 * 16-bit magic (12 bytes on v4), plus on v5 a CRC, the block's own daddr,
 * LSN, metadata uuid and owner inode (56 bytes).  The magic says what
 * follows: a node (0x3EBE / v4 0xFEBE, this file), a directory leaf
 * (0x3DF1/0x3DFF, dir2.h) or an attribute leaf (0x3BEE / v4 0xFBEE, the
 * attribute decoder).  Facts: xfs-ondisk.md 7.5, 7.6 and the kernel's
 * xfs_da3_blkinfo_verify / xfs_da3_node_verify.
 *
 * Node layout: header (16 bytes v4, 64 bytes v5: blkinfo, be16 count,
 * be16 level, v5 be32 pad), then count entries {be32 hashval, be32 before}.
 * hashval is the highest hash in the child's subtree; before is the child's
 * logical block number in the fork (an fs-block offset, not a dir-block
 * index).  Levels count up from the leaves (leaf = 0, so a node is 1..5).
 *
 * Walking the tree (child levels, key vs child's highest hash, sibling
 * chains, cycles) is the analyzer's job; these functions judge one block.
 */
#ifndef XFMT_DANODE_H
#define XFMT_DANODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_DA_NODE_MAGIC   0xFEBEu  /* v4 node */
#define XFS_DA3_NODE_MAGIC  0x3EBEu  /* v5 node */
#define XFS_DA_NODE_MAXDEPTH 5u      /* max levels of a DA btree, leaves excluded */

#define XFMT_DA_BLKINFO_V4   12u
#define XFMT_DA_BLKINFO_V5   56u
#define XFMT_DA_CRC_OFF      12u     /* v5 blkinfo crc, also dir leaf and attr leaf */
#define XFMT_DA_NODE_HDR_V4  16u
#define XFMT_DA_NODE_HDR_V5  64u
#define XFMT_DA_NODE_ENTRY   8u

/* The common header of every DA btree block. */
struct xfmt_da_blkinfo {
	uint32_t forw;       /* next block at this level (fork block number, 0 = none) */
	uint32_t back;       /* previous block (0 = none) */
	uint16_t magic;
	uint16_t pad;
	/* v5 only; zero otherwise */
	uint32_t crc;        /* stored value (little-endian on disk) */
	uint64_t blkno;      /* daddr the block claims to live at */
	uint64_t lsn;
	uint8_t  uuid[16];
	uint64_t owner;      /* inode number */
	bool     v5;
};

/* Decode the blkinfo header; -1 (and *out zeroed) if len cannot hold it. */
int xfmt_da_blkinfo_decode(const uint8_t *buf, size_t len, bool v5,
			   struct xfmt_da_blkinfo *out);

/*
 * What the caller knows about a DA-tree block (or any directory block) it
 * read.  blk_lo/blk_hi bound the fork block numbers that siblings and child
 * pointers may take, [blk_lo, blk_hi); blk_hi == 0 disables the range check
 * (for directories, xfmt_dir2_da_expect_init in dir2.h sets the leaf
 * segment; for attribute forks the caller passes the fork's extent).
 */
struct xfmt_da_expect {
	uint64_t daddr;   /* where the block was read from (512-byte units) */
	uint64_t owner;   /* inode owning the fork */
	uint32_t dablk;   /* this block's logical fs-block number in the fork */
	int      level;   /* expected node level, -1 = unknown (nodes only) */
	uint32_t blk_lo;  /* legal sibling / child range, see above */
	uint32_t blk_hi;
};

/*
 * Verify a blkinfo header of a blksize-byte block that should carry magic
 * (pass the v5 or v4 magic matching g->v5).  Checks: magic; on v5 the CRC
 * over blksize bytes (its own finding), blkno == exp->daddr, uuid ==
 * g->meta_uuid, owner == exp->owner; pad == 0 (warning); forw and back each
 * 0 or inside [blk_lo, blk_hi), not the block itself, and not equal to each
 * other.  The buffer must hold blksize bytes; a shorter one gives one
 * daTruncated finding and nothing else.  Used by the node, directory leaf
 * and attribute leaf verifiers.  Returns the number of findings.
 */
unsigned xfmt_da_blkinfo_verify(const uint8_t *buf, size_t len, size_t blksize,
				const struct xfmt_geom *g, uint16_t magic,
				const struct xfmt_da_expect *exp,
				const struct xprob_sink *sink);

/* A decoded node header. */
struct xfmt_da_node_hdr {
	struct xfmt_da_blkinfo info;
	uint16_t count;
	uint16_t level;
	uint32_t pad;      /* v5 only */
	size_t   hdr_len;  /* 16 or 64: where the entries start */
};

/* Decode a node header; -1 (and *out zeroed) if len cannot hold it. */
int xfmt_da_node_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			    struct xfmt_da_node_hdr *out);

/* Entries that fit in a node block of blksize bytes: (blksize - hdr) / 8. */
unsigned xfmt_da_node_max_ents(size_t blksize, bool v5);

/*
 * Node entry i: *hashval and *before.  Returns 0, or -1 when the entry does
 * not lie inside len (the caller bounds i by a verified count).
 */
int xfmt_da_node_entry(const uint8_t *buf, size_t len, bool v5, unsigned i,
		       uint32_t *hashval, uint32_t *before);

/*
 * Verify a DA node block of blksize bytes (g->dirblksize for directories,
 * g->blocksize for attribute forks).  On top of xfmt_da_blkinfo_verify
 * (magic 0x3EBE / 0xFEBE): level in 1..XFS_DA_NODE_MAXDEPTH and equal to
 * exp->level when that is >= 0; count > 0 and not over the capacity; v5 pad
 * == 0; entries in non-decreasing hash order; every before inside
 * [blk_lo, blk_hi) and not the block itself.  Returns the number of findings.
 */
unsigned xfmt_da_node_verify(const uint8_t *buf, size_t len, size_t blksize,
			     const struct xfmt_geom *g,
			     const struct xfmt_da_expect *exp,
			     const struct xprob_sink *sink);

/*
 * Field tables, xfs_db names as printed after `-c 'dblock N' -c p` on a
 * node block: nhdr.info.hdr.forw ... nhdr.info.owner, nhdr.count,
 * nhdr.level (v5); nhdr.info.forw, nhdr.info.back, nhdr.info.magic,
 * nhdr.count, nhdr.level (v4).  Pads are left out, as xfs_db does.
 */
extern const struct xfmt_field xfmt_da3_node_fields[];
extern const struct xfmt_field xfmt_da_node_fields[];
/* The node table for this filesystem version. */
const struct xfmt_field *xfmt_da_node_fields_for(bool v5);

#endif /* XFMT_DANODE_H */
