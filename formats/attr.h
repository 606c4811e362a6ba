/*
 * attr.h - extended attributes: the shortform attr fork, attr leaf blocks
 * (v5 0x3BEE, v4 0xFBEE), remote value blocks (v5 XARM with a header per
 * block, v4 raw), namespaces and parent pointers.  Node blocks of the attr
 * fork are DA node blocks: danode.h decodes and verifies them; this file
 * only says how to set up their expectation (xfmt_attr_da_expect_init).
 *
 * Forms of an attr fork (di_aformat) and how a reader lists attributes:
 *   LOCAL (shortform): entries packed in the inode's attr fork.
 *     struct xfmt_attr_sf_iter it; xfmt_attr_sf_iter_init(&it, fork, size);
 *     while (xfmt_attr_sf_next(&it, &e) == 1) use e.name/e.value.
 *   EXTENTS/BTREE: map the attr fork (bmap.h); logical attr block 0 is
 *     either a leaf (the whole list is in that one block) or a DA node root;
 *     xfmt_blk_classify() (block.h) tells which.  From a node, follow `before`
 *     pointers (xfmt_da_node_entry) down to the leftmost leaf, then leaf
 *     `forw` links.  In each leaf, for i < hdr.count, xfmt_attr_leaf_entry()
 *     gives the name and either the local value or, for a remote value, its
 *     first logical attr block (valueblk) and length; the value then spans
 *     xfmt_attr_rmt_blocks(valuelen) consecutive logical attr blocks, each
 *     read and appended with xfmt_attr_rmt_asm_add().
 *   Entries with XFS_ATTR_INCOMPLETE are half-made and not attributes yet.
 *
 * Names are stored without their namespace prefix; xfmt_attr_ns_prefix()
 * gives the one getfattr shows.  Hashes: xfs_da_hashname of the name, except
 * parent pointers (dirent hash ^ both halves of the parent inode number).
 * Facts: xfs-ondisk.md 8, the kernel's xfs_attr_shortform_verify,
 * xfs_attr3_leaf_verify(_entry), xfs_attr3_rmt_verify / _hdr_ok and
 * xfs_parent_*check, and xfs_repair's attr checks (hashes, used space,
 * firstused, usedbytes).
 */
#ifndef XFMT_ATTR_H
#define XFMT_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/danode.h"
#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"
#include "formats/rmt_hdr.h"

/* Entry flag bits (shortform and leaf entries). */
#define XFS_ATTR_LOCAL       0x01u  /* leaf only: the value is in this block */
#define XFS_ATTR_ROOT        0x02u  /* "trusted." namespace */
#define XFS_ATTR_SECURE      0x04u  /* "security." namespace */
#define XFS_ATTR_PARENT      0x08u  /* parent pointer (INCOMPAT_PARENT) */
#define XFS_ATTR_INCOMPLETE  0x80u  /* leaf only: being created or removed */
#define XFS_ATTR_NSP_ONDISK_MASK (XFS_ATTR_ROOT | XFS_ATTR_SECURE | XFS_ATTR_PARENT)
#define XFS_ATTR_ONDISK_MASK \
	(XFS_ATTR_NSP_ONDISK_MASK | XFS_ATTR_LOCAL | XFS_ATTR_INCOMPLETE)

#define XFS_ATTR_LEAF_MAGIC   0xFBEEu      /* v4 leaf */
#define XFS_ATTR3_LEAF_MAGIC  0x3BEEu      /* v5 leaf */
#define XFS_ATTR3_RMT_MAGIC   0x5841524Du  /* "XARM" */

#define XFMT_ATTR_SF_HDR_LEN     4u   /* be16 totsize, u8 count, u8 pad */
#define XFMT_ATTR_SF_ENTRY_HDR   3u   /* u8 namelen, u8 valuelen, u8 flags */
#define XFMT_ATTR_LEAF_HDR_V4    32u
#define XFMT_ATTR_LEAF_HDR_V5    80u
#define XFMT_ATTR_LEAF_ENTRY_LEN 8u   /* be32 hashval, be16 nameidx, u8 flags, u8 pad */
#define XFMT_ATTR_LEAF_MAPSIZE   3u
#define XFMT_ATTR_CRC_OFF        12u  /* leaf (blkinfo) and remote header */
#define XFMT_ATTR_RMT_HDR_LEN    XFMT_RMT_HDR_LEN
/* Largest attribute value (XFS_XATTR_SIZE_MAX). */
#define XFMT_ATTR_VALUE_MAX      65536u
/* Remote value blocks carry this LSN (NULLCOMMITLSN). */
#define XFMT_ATTR_RMT_LSN        0xFFFFFFFFFFFFFFFFull
/* A parent pointer value: be64 parent inode, be32 parent generation. */
#define XFMT_ATTR_PPTR_VALUE_LEN 12u

/* ------------------------------------------------------ namespaces */

enum xfmt_attr_ns {
	XFMT_ATTR_NS_USER,     /* no namespace bit */
	XFMT_ATTR_NS_TRUSTED,  /* ROOT */
	XFMT_ATTR_NS_SECURE,   /* SECURE */
	XFMT_ATTR_NS_PARENT,   /* PARENT */
	XFMT_ATTR_NS_INVALID,  /* more than one namespace bit */
};

/* The namespace the flags byte names. */
enum xfmt_attr_ns xfmt_attr_ns_of(uint8_t flags);

/*
 * Prefix to show before a name, as getfattr does: "user.", "trusted.",
 * "security."; "parent." for parent pointers (not a user-visible namespace,
 * for display only) and "" for an invalid combination.
 */
const char *xfmt_attr_ns_prefix(enum xfmt_attr_ns ns);

/* ------------------------------------------------------- entries */

/* One attribute as any form stores it.  Pointers point into the caller's buffer. */
struct xfmt_attr_entry {
	unsigned          idx;        /* position in the shortform list / leaf */
	uint8_t           flags;      /* raw flags byte */
	enum xfmt_attr_ns ns;
	bool              local;      /* value stored with the name (always, in shortform) */
	bool              incomplete; /* XFS_ATTR_INCOMPLETE */
	const uint8_t    *name;       /* namelen bytes, no prefix, not NUL-terminated */
	uint8_t           namelen;
	const uint8_t    *value;      /* local value (valuelen bytes); NULL if remote */
	uint32_t          valuelen;
	uint32_t          valueblk;   /* remote: first logical attr-fork block of the value */
	uint32_t          hashval;    /* leaf: the stored hash; shortform: 0 */
	uint16_t          nameidx;    /* leaf: offset of the name/value structure */
	size_t            entsize;    /* bytes the entry (shortform) or name/value
				       * structure (leaf, rounded to 4) takes */
};

/*
 * The hash an entry must carry (the kernel's xfs_attr_hashval): for a
 * parent pointer, the directory hash of the name (ASCII-CI aware) xored
 * with both halves of the parent inode number read from the 12-byte value
 * (0 if the value is not 12 local bytes); otherwise xfs_da_hashname.
 */
uint32_t xfmt_attr_hashval(const struct xfmt_geom *g, uint8_t flags, const uint8_t *name,
			   size_t namelen, const uint8_t *value, size_t valuelen);

/*
 * Decode a parent pointer value (12 bytes: parent inode, generation).
 * Returns 0, or -1 if value is NULL or valuelen is not 12.
 */
int xfmt_attr_pptr_decode(const uint8_t *value, size_t valuelen, uint64_t *parent_ino,
			  uint32_t *parent_gen);

/* ------------------------------------------------------- shortform */

struct xfmt_attr_sf_hdr {
	uint16_t totsize;  /* bytes of the whole list, header included */
	uint8_t  count;
	uint8_t  pad;
};

/* Decode the shortform header; -1 (and *out zeroed) if forksize < 4 or fork is NULL. */
int xfmt_attr_sf_hdr_decode(const uint8_t *fork, size_t forksize, struct xfmt_attr_sf_hdr *out);

/*
 * Iterator over the entries of a shortform attr fork.  The end is
 * min(totsize, forksize) and at most count entries are returned, so a
 * hostile header cannot make it read outside the fork.
 */
struct xfmt_attr_sf_iter {
	const uint8_t *fork;
	size_t         end;
	size_t         pos;    /* offset of the next entry */
	unsigned       idx;    /* entries returned so far */
	unsigned       count;  /* hdr.count */
};

void xfmt_attr_sf_iter_init(struct xfmt_attr_sf_iter *it, const uint8_t *fork,
			    size_t forksize);

/*
 * Next entry: 1 and *out filled, 0 after count entries, -1 if the next
 * entry does not fit before the end (iteration is over then as well).
 */
int xfmt_attr_sf_next(struct xfmt_attr_sf_iter *it, struct xfmt_attr_entry *out);

/*
 * Verify a shortform attr fork (fork/forksize from xfmt_dinode_fork).
 * Rules, each its own finding ({off} = entry index for entry rules):
 *   attrSfBadTotsize    totsize < 4 or larger than the fork
 *   attrSfEntryOverflow an entry runs past totsize (checking stops there)
 *   attrSfSizeMismatch  totsize != where the count entries end
 *   attrBadNamelen      zero-length name
 *   attrBadFlags        a bit outside ROOT/SECURE/PARENT (LOCAL and
 *                       INCOMPLETE are leaf-only; the kernel rejects them here)
 *   attrMultipleNs      more than one namespace bit
 *   attrBadName         NUL in a name; NUL or '/' in a parent pointer name
 *   attrParentNoFeature / attrParentBadValue  parent pointer rules
 * Returns the number of findings.
 */
unsigned xfmt_attr_sf_verify(const uint8_t *fork, size_t forksize, const struct xfmt_geom *g,
			     const struct xprob_sink *sink);

/* ------------------------------------------------------- leaf blocks */

struct xfmt_attr_leaf_map {
	uint16_t base;
	uint16_t size;
};

struct xfmt_attr_leaf_hdr {
	struct xfmt_da_blkinfo info;   /* forw, back, magic; v5 crc, blkno, ... */
	uint16_t count;
	uint16_t usedbytes;
	uint32_t firstused;      /* on-disk 0 means the block size (64 KiB blocks) */
	uint16_t firstused_raw;  /* as stored */
	uint8_t  holes;
	uint8_t  pad1;
	struct xfmt_attr_leaf_map freemap[XFMT_ATTR_LEAF_MAPSIZE];
	uint32_t pad2;           /* v5 only */
	size_t   hdr_len;        /* 80 (v5) or 32 (v4): entries start here */
	uint32_t blksize;        /* the block size the block was decoded for */
};

/*
 * Decode a leaf header of an attr block of g->blocksize bytes (layout from
 * g->v5, whatever the magic says).  Returns 0, or -1 (and *out zeroed) if
 * len cannot hold the header.
 */
int xfmt_attr_leaf_hdr_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			      struct xfmt_attr_leaf_hdr *out);

/*
 * Entry i of a decoded leaf: flags, hash, name and value (local) or
 * valueblk (remote), entsize.  Returns 0; -1 if entry i's 8-byte slot is
 * outside min(len, blksize); -2 if its name/value structure (rounded size)
 * is not inside the block, or nameidx lies in the header or entry table
 * (then idx, flags, ns, local, incomplete, hashval and nameidx are set but
 * name and value are NULL: nothing there may be read).  Callers bound i by
 * hdr->count; entries past the block's capacity are never returned.
 */
int xfmt_attr_leaf_entry(const uint8_t *buf, size_t len, const struct xfmt_attr_leaf_hdr *h,
			 unsigned i, struct xfmt_attr_entry *out);

/*
 * Verify an attr leaf block of g->blocksize bytes read from exp->daddr as
 * logical attr block exp->dablk (set exp up with xfmt_attr_da_expect_init).
 * First the DA blkinfo (xfmt_da_blkinfo_verify: magic 0x3BEE/0xFBEE, CRC,
 * blkno, uuid, owner, pad, siblings: the da* findings), then, each its own
 * finding ({off} = entry index for entry rules):
 *   attrLeafBadSibling   block 0 is a leaf only when it is the only block:
 *                        forw and back must be 0 there
 *   attrLeafNonzeroPad   pad1 / pad2 (warning)
 *   attrLeafBadFirstused firstused beyond the block or inside the header,
 *                        or 0 (which only 64 KiB blocks may use)
 *   attrLeafBadCount     the entry table runs into the name area
 *   attrLeafEmpty        no entries (warning: a crash can leave one)
 *   attrLeafHashOrder    hashes not in ascending order (ties are legal)
 *   attrBadFlags / attrMultipleNs / attrIncomplete (warning)
 *   attrLeafBadNameidx   name/value structure inside the entry table or
 *                        beyond the block
 *   attrLeafEntryOverflow its rounded size runs past the block end
 *   attrBadNamelen / attrBadName / attrBadHash (stored vs computed hash)
 *   attrLeafBadRemote    remote value with valueblk 0 (not INCOMPLETE) or
 *                        valuelen over 64 KiB
 *   attrParentNoFeature / attrParentBadValue (also: a remote value)
 *   attrLeafOverlap      two name/value structures share bytes
 *   attrLeafBadUsedbytes usedbytes != the sum of the structures' sizes
 *   attrLeafFirstusedMismatch firstused != the lowest nameidx (or above it
 *                        when holes is set)
 *   attrLeafBadFreemap   a freemap base/size not 4-aligned or past the block
 * A buffer shorter than the block gets daTruncated and nothing else.
 * Returns the number of findings.
 */
unsigned xfmt_attr_leaf_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink);

/*
 * Highest hash stored in a leaf (its last entry's), for checking the node
 * key above it.  Returns 0 and sets *hash, or -1 if the leaf has no
 * readable entry.
 */
int xfmt_attr_leaf_lasthash(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			    uint32_t *hash);

/* ------------------------------------------------ node form, block kinds */

/*
 * Expectation for a DA block (leaf or node) of an attr fork: read from
 * daddr, owned by inode owner, logical attr block dablk, node level (-1 =
 * unknown).  Siblings and child pointers must lie in [1, fork_end): block
 * 0 is always the root, so nothing points at it; fork_end is one past the
 * last logical block the attr fork maps (0 = no range check).
 * Verify node blocks with xfmt_da_node_verify(buf, len, g->blocksize, g,
 * exp, sink) from danode.h.
 */
void xfmt_attr_da_expect_init(struct xfmt_da_expect *exp, uint64_t daddr, uint64_t owner,
			      uint32_t dablk, int level, uint32_t fork_end);

/* ------------------------------------------------------ remote values */

/* Value bytes one block carries: blocksize - 56 (v5) or blocksize (v4). */
uint32_t xfmt_attr_rmt_space(const struct xfmt_geom *g);

/* Blocks a remote value of valuelen bytes takes (the kernel's xfs_attr3_rmt_blocks). */
uint32_t xfmt_attr_rmt_blocks(const struct xfmt_geom *g, uint32_t valuelen);

/*
 * Verify one remote value block (len must be g->blocksize; v5 only: a v4
 * block is raw value bytes and gets 0 findings).  Each its own finding:
 * attrRmtUnreadable (len < blocksize), attrRmtBadMagic, attrRmtBadCrc
 * (over the block), attrRmtBadUuid, attrRmtBadBlkno, attrRmtBadRange (bytes
 * over the block space, offset + bytes over 64 KiB), attrRmtBadOwner (0 or
 * != exp->owner), attrRmtMismatch (with know_range: offset, bytes),
 * attrRmtBadLsn (not NULLCOMMITLSN; warning).  Returns the findings count.
 */
unsigned xfmt_attr_rmt_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			      const struct xfmt_rmt_expect *exp,
			      const struct xprob_sink *sink);

/* Rebuilds a remote value from its blocks into a caller-owned buffer. */
struct xfmt_attr_rmt_asm {
	struct xfmt_rmt_cursor cur;  /* want: min(valuelen, 64 KiB) */
	uint8_t *out;                /* caller's buffer, cap bytes */
	size_t   cap;
	uint32_t valuelen;           /* from the leaf entry */
};

/* Start collecting a value of valuelen bytes of inode owner into out[0..cap). */
void xfmt_attr_rmt_asm_init(struct xfmt_attr_rmt_asm *a, const struct xfmt_geom *g,
			    uint64_t owner, uint32_t valuelen, uint8_t *out, size_t cap);

/*
 * Add the next value block (logical attr block valueblk + blocks so far,
 * len bytes read from daddr; len should be g->blocksize).  Verified with
 * the expectation the bytes collected so far give, then min(bytes left,
 * block space) value bytes are copied (those beyond cap are dropped), even
 * from a damaged block.  Ignored once done.  Returns this block's findings.
 */
unsigned xfmt_attr_rmt_asm_add(struct xfmt_attr_rmt_asm *a, const uint8_t *buf, size_t len,
			       uint64_t daddr, const struct xfmt_geom *g,
			       const struct xprob_sink *sink);

/*
 * After the last block: attrRmtIncomplete if fewer than valuelen bytes were
 * collected (or valuelen is over 64 KiB).  Returns the findings count.
 */
unsigned xfmt_attr_rmt_asm_finish(struct xfmt_attr_rmt_asm *a, const struct xprob_sink *sink);

/* ------------------------------------------------------ field tables */

/* Leaf header fields with xfs_db's names (hdr.info.hdr.forw ... hdr.holes; v4 hdr.info.forw ...). */
extern const struct xfmt_field xfmt_attr3_leaf_hdr_fields[];
extern const struct xfmt_field xfmt_attr_leaf_hdr_fields[];
const struct xfmt_field *xfmt_attr_leaf_hdr_fields_for(bool v5);
/* Remote value header fields (hdr.magic ... hdr.lsn). */
extern const struct xfmt_field xfmt_attr3_rmt_hdr_fields[];
/*
 * DA node header fields as xfs_db names them in an attr fork (`type attr3`:
 * hdr.info.hdr.forw ... hdr.count, hdr.level; v4 hdr.info.forw ...); the
 * offsets are danode.h's, only the names differ from a directory's nhdr.
 */
extern const struct xfmt_field xfmt_attr3_node_hdr_fields[];
extern const struct xfmt_field xfmt_attr_node_hdr_fields[];
const struct xfmt_field *xfmt_attr_node_hdr_fields_for(bool v5);
/* Shortform header fields (hdr.totsize, hdr.count; xfs_db adds "a.sfattr."). */
extern const struct xfmt_field xfmt_attr_sf_hdr_fields[];

#endif /* XFMT_ATTR_H */
