/*
 * dir2.h - XFS directories (v2 format, with v3/CRC headers on v5): every
 * on-disk form, decoded and verified one structure at a time.
 *
 * Owns: the directory constants and address arithmetic (dataptrs, dir-block
 * vs fork-block numbers, the data/leaf/free segments), name and file-type
 * rules, and for each form a decoder, an iterator and a verifier:
 *
 *   shortform  (inode data fork, di_format LOCAL)   dir2_sf.c
 *   data block (XDD3 / v4 XD2D) and single-block    dir2_data.c
 *     directories (XDB3 / v4 XD2B: data + leaf
 *     entries + tail in one block)
 *   leaf1 (0x3DF1 / 0xD2F1), leafN (0x3DFF/0xD2FF) dir2_leaf.c
 *   free index (XDF3 / v4 XD2F)                     dir2_node.c
 *   DA node blocks (0x3EBE / 0xFEBE)                danode.h (shared with xattrs)
 *   name hash                                       dahash.h
 *
 * Which form a directory has follows from its inode and size (see
 * xfs-ondisk.md 7.1): LOCAL = shortform; otherwise a block at logical fork
 * block 0 with the block magic = block form; a leaf1 block at the start of
 * the leaf segment = leaf form; a DA node there = node form.  The analyzer
 * decides that and maps fork blocks to disk; these functions only see bytes.
 *
 * How the namespace pass and `ls` use this (a sketch):
 *
 *   struct xfmt_dirent de;
 *   size_t pos = 0;
 *   int r;
 *   xfmt_dir2_data_verify(blk, len, g, &exp, sink);       // or _block_verify
 *   while ((r = xfmt_dir2_data_next(blk, len, g, false, &pos, &de)) == 1)
 *           use(de.ino, de.name, de.namelen, de.ftype);   // "." and ".." included
 *   if (r < 0) ...the rest of the block is unreadable; pos is where it broke
 *
 * Every iterator is bounded: pos strictly increases and never leaves the
 * buffer, so a hostile block ends the walk (-1) rather than looping.
 * Verifiers report every failed check (struct xprob_sink, codes 0x0Axx) and
 * return how many they reported; a bad CRC is its own finding.  Checks that
 * need more than one block (names unique in a directory, ".." matching the
 * parent, leaf entries vs data blocks in leaf/node form, free index vs data
 * blocks' bestfree, entry inode allocated and its ftype vs di_mode) belong to
 * the analyzer's namespace pass, which builds on the helpers here.
 */
#ifndef XFMT_DIR2_H
#define XFMT_DIR2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/danode.h"
#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

/* ------------------------------------------------------------ constants */

/* 32-bit magics at byte 0 of data, block and free-index blocks. */
#define XFS_DIR2_BLOCK_MAGIC 0x58443242u  /* XD2B: v4 single-block directory */
#define XFS_DIR2_DATA_MAGIC  0x58443244u  /* XD2D: v4 data block */
#define XFS_DIR2_FREE_MAGIC  0x58443246u  /* XD2F: v4 free index */
#define XFS_DIR3_BLOCK_MAGIC 0x58444233u  /* XDB3 */
#define XFS_DIR3_DATA_MAGIC  0x58444433u  /* XDD3 */
#define XFS_DIR3_FREE_MAGIC  0x58444633u  /* XDF3 */
/* 16-bit magics at byte 8 of leaf blocks (after forw/back). */
#define XFS_DIR2_LEAF1_MAGIC 0xD2F1u
#define XFS_DIR2_LEAFN_MAGIC 0xD2FFu
#define XFS_DIR3_LEAF1_MAGIC 0x3DF1u
#define XFS_DIR3_LEAFN_MAGIC 0x3DFFu

/* Byte offsets of the three segments of a directory's data fork. */
#define XFS_DIR2_DATA_OFFSET 0ull
#define XFS_DIR2_LEAF_OFFSET (1ull << 35)  /* 32 GiB: leaf1, or DA root + leafN/nodes */
#define XFS_DIR2_FREE_OFFSET (1ull << 36)  /* 64 GiB: free-index blocks */

#define XFS_DIR2_DATA_ALIGN     8u        /* records in data blocks are 8-byte aligned */
#define XFS_DIR2_DATA_FREE_TAG  0xFFFFu   /* first be16 of an unused region */
#define XFS_DIR2_NULL_DATAPTR   0u        /* a stale leaf entry's address */
#define XFS_DIR2_NULL_DATAOFF   0xFFFFu   /* bests[]: that data block does not exist */
#define XFS_DIR2_MAX_SHORT_INUM 0xFFFFFFFFull /* larger inode numbers need i8 shortform */
#define XFS_DIR2_DATA_FD_COUNT  3u        /* bestfree slots */
#define XFMT_DIR_MAXNAMELEN     255u

/* Header sizes. */
#define XFMT_DIR3_DATA_HDR  64u   /* v5 data/block header */
#define XFMT_DIR2_DATA_HDR  16u   /* v4 data/block header */
#define XFMT_DIR3_FREE_HDR  64u
#define XFMT_DIR2_FREE_HDR  16u
#define XFMT_DIR3_LEAF_HDR  64u
#define XFMT_DIR2_LEAF_HDR  16u
#define XFMT_DIR3_DATA_CRC_OFF 4u /* data, block and free blocks; leaves use XFMT_DA_CRC_OFF */
#define XFMT_DIR2_BLOCK_TAIL 8u   /* be32 count, be32 stale: last 8 bytes of a block-form block */
#define XFMT_DIR2_LEAF_TAIL  4u   /* be32 bestcount: last 4 bytes of a leaf1 block */
#define XFMT_DIR2_LEAF_ENTRY 8u   /* be32 hashval, be32 address */

/* File types stored in entries when the filesystem has FTYPE. */
#define XFS_DIR3_FT_UNKNOWN  0u
#define XFS_DIR3_FT_REG_FILE 1u
#define XFS_DIR3_FT_DIR      2u
#define XFS_DIR3_FT_CHRDEV   3u
#define XFS_DIR3_FT_BLKDEV   4u
#define XFS_DIR3_FT_FIFO     5u
#define XFS_DIR3_FT_SOCK     6u
#define XFS_DIR3_FT_SYMLINK  7u
#define XFS_DIR3_FT_WHT      8u
#define XFS_DIR3_FT_MAX      9u

/* ------------------------------------------------- address arithmetic */

/*
 * A dataptr ("address" in leaf entries) is a byte offset in the data
 * segment divided by 8: db = (addr << 3) >> log2(dirblksize), offset =
 * (addr << 3) & (dirblksize - 1).  "db" is a directory-block index; "da"
 * is a logical fs-block number in the fork (db << dirblklog).  DA forw,
 * back and before values are da numbers; bests[] arrays are indexed by db.
 */
uint32_t xfmt_dir2_db_off_to_dataptr(const struct xfmt_geom *g, uint32_t db, uint32_t off);
uint32_t xfmt_dir2_dataptr_to_db(const struct xfmt_geom *g, uint32_t addr);
uint32_t xfmt_dir2_dataptr_to_off(const struct xfmt_geom *g, uint32_t addr);
/* Byte offset in the fork of directory block db / of fork block da. */
uint64_t xfmt_dir2_db_to_byte(const struct xfmt_geom *g, uint32_t db);
uint32_t xfmt_dir2_byte_to_db(const struct xfmt_geom *g, uint64_t byte);
uint64_t xfmt_dir2_byte_to_da(const struct xfmt_geom *g, uint64_t byte);
uint32_t xfmt_dir2_db_to_da(const struct xfmt_geom *g, uint32_t db);
uint32_t xfmt_dir2_da_to_db(const struct xfmt_geom *g, uint32_t da);
/* First fork block of the leaf and free segments (e.g. 8388608 / 16777216 at 4 KiB). */
uint32_t xfmt_dir2_leaf_firstda(const struct xfmt_geom *g);
uint32_t xfmt_dir2_free_firstda(const struct xfmt_geom *g);
/* The db a fork block of the free segment covers first: firstdb in its header. */
uint32_t xfmt_dir2_free_firstdb(const struct xfmt_geom *g, uint32_t fbno_da);

/*
 * Expectations for a directory leaf, node or free block read from fork
 * block dablk at disk address daddr of directory ino: siblings and node
 * children must lie in the leaf segment.  level is set to -1 (unknown).
 */
void xfmt_dir2_da_expect_init(struct xfmt_da_expect *exp, const struct xfmt_geom *g,
			      uint64_t ino, uint32_t dablk, uint64_t daddr);

/*
 * Verify the head shared by data, block and free-index blocks: the 32-bit
 * magic (want_magic), and on v5 the CRC over dirblksize bytes (its own
 * finding), bno == exp->daddr, uuid == g->meta_uuid, owner == exp->owner.
 * The buffer must hold g->dirblksize bytes, else only daTruncated is
 * reported.  The data and free verifiers start with it.
 */
unsigned xfmt_dir3_blkhdr_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				 uint32_t want_magic, const struct xfmt_da_expect *exp,
				 const struct xprob_sink *sink);

/* --------------------------------------------------------- sizes, names */

/* Data/block header length: 64 (v5) or 16 (v4). */
size_t xfmt_dir2_data_hdr_len(const struct xfmt_geom *g);
/* Size of a data entry: roundup(8 + 1 + namelen + ftype + 2, 8). */
size_t xfmt_dir2_data_entsize(const struct xfmt_geom *g, unsigned namelen);
/* Offset of the first entry after "." and ".." in block 0 (96 on v5). */
size_t xfmt_dir2_data_first_offset(const struct xfmt_geom *g);
/* Leaf entries that fit in a leaf block after its header. */
unsigned xfmt_dir2_leaf_max_ents(const struct xfmt_geom *g);
/* bests[] slots of one free-index block: (dirblksize - header) / 2. */
unsigned xfmt_dir2_free_max_bests(const struct xfmt_geom *g);
/*
 * Block-form leaf entries the kernel accepts: count must stay below
 * (dirblksize - 8 - data header) / 8.
 */
unsigned xfmt_dir2_block_max_leaf(const struct xfmt_geom *g);

/* A legal entry name: 1..255 bytes, no '/' and no NUL. */
bool xfmt_dir2_name_ok(const uint8_t *name, size_t len);
/* True for "." (1) and ".." (2); 0 for any other name. */
int xfmt_dir2_name_dots(const uint8_t *name, size_t len);
/*
 * An inode number a directory entry may hold: inside the filesystem
 * (xfmt_geom_ino_valid) and not in the AG header blocks.  (The kernel also
 * refuses the realtime and quota inodes; those numbers live in the
 * superblock, so the namespace pass checks them.)
 */
bool xfmt_dir2_ino_ok(const struct xfmt_geom *g, uint64_t ino);
/* ftype from a di_mode (XFS_DIR3_FT_UNKNOWN for an invalid type). */
uint8_t xfmt_dir3_ftype_from_mode(uint16_t mode);
/* The word xfs_db's `ls` prints for an ftype ("regular", "directory", ...). */
const char *xfmt_dir3_ftype_name(uint8_t ftype);

/* One directory entry, from any form. */
struct xfmt_dirent {
	uint64_t       ino;
	uint8_t        namelen;
	const uint8_t *name;    /* points into the caller's buffer; not NUL-terminated */
	uint8_t        ftype;   /* XFS_DIR3_FT_*; 0 on filesystems without FTYPE */
	uint32_t       offset;  /* data/block: byte offset in the block;
				   shortform: the stored offset (readdir cookie / 8 = dataptr) */
	uint16_t       tag;     /* data/block: the stored tag (== offset when sane); sf: 0 */
};

/* ------------------------------------------------------------ shortform */

/*
 * Shortform layout (in the inode's data fork, di_size bytes): u8 count,
 * u8 i8count, parent (4 bytes if i8count == 0, else 8); entries of u8
 * namelen, be16 offset, name, u8 ftype (FTYPE only), inumber (4 or 8
 * bytes).  "." and ".." are not stored.  i8count counts the inode numbers
 * (parent included) above 2^32 - 1.
 */
#define XFMT_DIR2_SF_HDR4 6u
#define XFMT_DIR2_SF_HDR8 10u

struct xfmt_dir2_sf_hdr {
	uint8_t  count;
	uint8_t  i8count;
	uint64_t parent;   /* ".." */
	size_t   hdr_len;  /* 6 or 10 */
};

/* Decode the header from size bytes; -1 (zeroed *out) if they cannot hold it. */
int xfmt_dir2_sf_hdr_decode(const uint8_t *sf, size_t size, struct xfmt_dir2_sf_hdr *out);

/* Size of one shortform entry of this filesystem with the given inode width. */
size_t xfmt_dir2_sf_entsize(const struct xfmt_geom *g, bool i8, unsigned namelen);

/*
 * Iterate shortform entries in sf[0..size) (size = di_size, clamped by the
 * caller to the fork).  *pos = 0 starts after the header.  Returns 1 and
 * fills *out (name points into sf) with *pos moved to the next entry, 0
 * when *pos reached size, -1 if the entry at *pos does not fit or has
 * namelen 0 (*pos unchanged).  The walk goes by bytes, not by the header's
 * count; a caller that trusts count stops after count entries.
 */
int xfmt_dir2_sf_next(const uint8_t *sf, size_t size, const struct xfmt_geom *g,
		      size_t *pos, struct xfmt_dirent *out);

/*
 * Verify a shortform directory: fork is the data fork (forksize bytes of
 * literal area), di_size the inode's size.  Checks (kernel
 * xfs_dir2_sf_verify plus names): di_size fits the fork and holds the
 * header; parent valid; each entry inside di_size, namelen > 0, name legal
 * and not "."/"..", offset at least the end of the previous entry (first:
 * 96 on v5), inode number valid, ftype < 9; i8count equals the count of
 * large inode numbers; the count-th entry ends exactly at di_size; and the
 * directory fits in one block were it converted.  Returns the number of
 * findings; {off} is a byte offset in the fork.
 */
unsigned xfmt_dir2_sf_verify(const uint8_t *fork, size_t forksize, uint64_t di_size,
			     const struct xfmt_geom *g, const struct xprob_sink *sink);

/* ----------------------------------------------- data and block blocks */

struct xfmt_dir2_bestfree {
	uint16_t offset;   /* byte offset of an unused region in the block, 0 = slot empty */
	uint16_t length;
};

/* The data/block header (the v5 fields are zero on v4). */
struct xfmt_dir2_data_hdr {
	uint32_t magic;
	uint32_t crc;
	uint64_t blkno;
	uint64_t lsn;
	uint8_t  uuid[16];
	uint64_t owner;
	struct xfmt_dir2_bestfree bestfree[XFS_DIR2_DATA_FD_COUNT];
	uint32_t pad;
	size_t   hdr_len;   /* 64 or 16: where records start */
	bool     v5;
};

/* Decode the header; -1 (zeroed *out) if len cannot hold it. */
int xfmt_dir2_data_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_data_hdr *out);

/* Block-form tail and where its leaf array starts. */
struct xfmt_dir2_block_tail {
	uint32_t count;     /* leaf entries, stale ones included */
	uint32_t stale;
	size_t   leaf_off;  /* dirblksize - 8 - 8 * count, when count fits (else 0) */
};

/*
 * Decode the tail of a block-form block (len >= g->dirblksize).  Returns 0,
 * or -1 if the buffer is short (out zeroed) or count is too big for the
 * leaf array to fit after the header (count/stale still filled).
 */
int xfmt_dir2_block_tail_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				struct xfmt_dir2_block_tail *out);

/*
 * End of the record area: dirblksize for a data block, the leaf array for
 * a block-form block.  0 if the buffer is shorter than g->dirblksize or the
 * block tail is unusable.
 */
size_t xfmt_dir2_data_end(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			  bool block_form);

/* One record of the record area: a live entry or an unused region. */
enum xfmt_dir2_rec_kind {
	XFMT_DIR2_REC_ENTRY = 1,
	XFMT_DIR2_REC_UNUSED = 2,
};

struct xfmt_dir2_rec {
	enum xfmt_dir2_rec_kind kind;
	uint32_t offset;          /* byte offset in the block */
	uint32_t length;          /* bytes the record takes (entsize or unused length) */
	uint16_t tag;             /* stored tag: last 2 bytes of the record */
	struct xfmt_dirent ent;   /* XFMT_DIR2_REC_ENTRY only */
};

/*
 * Walk every record of a data or block-form block.  *pos = 0 starts at the
 * header end.  Returns 1 and fills *out (then *pos = offset + length, which
 * is always larger than before), 0 at the end of the record area, -1 if
 * the record at *pos is malformed (fewer than 8 bytes left, unused length 0
 * or not a multiple of 8, namelen 0, or the record runs past the end; *pos
 * unchanged).  Tags are returned, not judged.
 */
int xfmt_dir2_data_rec_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			    bool block_form, size_t *pos, struct xfmt_dir2_rec *out);

/* The same walk yielding live entries only ("." and ".." included). */
int xfmt_dir2_data_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			bool block_form, size_t *pos, struct xfmt_dirent *out);

/*
 * The walk of xfmt_dir2_data_next made to survive one damaged record: a
 * record whose tag is not its own offset, and whose successor does not
 * start where its length says (with a tag of its own), is not believed
 * (a damaged namelen or length shifts everything after it); nor is a
 * record that does not parse.  The walk then goes on at the next 8-byte
 * slot holding a record that parses and is tagged with its own offset, so
 * the names after the damage are still found.  *skipped is set when that
 * happened.  Returns 1 with an entry, 0 at the end.
 */
int xfmt_dir2_data_next_resync(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			       bool block_form, size_t *pos, struct xfmt_dirent *out,
			       bool *skipped);

/*
 * The same walk yielding unused regions only: [blk + out->offset,
 * + out->length) are the raw bytes, which after a deletion still hold most
 * of the old entry (namelen, name, the low inode number bytes).
 */
struct xfmt_dir2_unused {
	uint32_t offset;
	uint32_t length;
	uint16_t tag;
};
int xfmt_dir2_unused_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			  bool block_form, size_t *pos, struct xfmt_dir2_unused *out);

/*
 * Block-form leaf entry i (bounds: the buffer; callers bound i by a count
 * they checked with xfmt_dir2_block_tail_decode).  -1 if outside len.
 */
int xfmt_dir2_block_leaf(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			 const struct xfmt_dir2_block_tail *tail, unsigned i,
			 uint32_t *hashval, uint32_t *address);

/*
 * Verify a data block (XDD3 / XD2D) of directory exp->owner read from fork
 * block exp->dablk at exp->daddr.  Checks: magic; v5 CRC over dirblksize
 * (its own finding), bno, uuid, owner, pad; every record inside the area
 * and 8-byte aligned (by construction: lengths are multiples of 8); unused
 * lengths; tags == offsets; no two unused regions in a row; entries:
 * namelen > 0, legal names, valid inode numbers, ftype < 9; "." and ".."
 * as the first two entries of data block 0 only, "." naming the directory;
 * bestfree: slots ordered by length, empty slots last and (0,0), each used
 * slot naming an unused region of exactly that length, and no unlisted
 * region longer than the shortest listed one.  A malformed record ends the
 * walk (reported once); later records cannot be found.  The buffer must
 * hold g->dirblksize bytes, else only daTruncated is reported.
 */
unsigned xfmt_dir2_data_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink);

/*
 * Verify a single-block directory (XDB3 / XD2B) at fork block 0: every data
 * block check, plus the tail (count below the capacity, stale == number of
 * null addresses), leaf entries sorted by hash, each live address pointing
 * at an entry of this block whose name hashes to the leaf's hashval (ASCII-
 * CI aware), no two leaf entries pointing at one entry, every entry having
 * a leaf entry, and count - stale == number of entries.
 */
unsigned xfmt_dir2_block_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				const struct xfmt_da_expect *exp,
				const struct xprob_sink *sink);

/* ----------------------------------------------------------- leaf blocks */

struct xfmt_dir2_leaf_hdr {
	struct xfmt_da_blkinfo info;
	uint16_t count;    /* entries, stale included */
	uint16_t stale;
	uint32_t pad;      /* v5 only */
	size_t   hdr_len;  /* 64 or 16: where the entries start */
};

/* Decode a leaf1/leafN header; -1 (zeroed *out) if len cannot hold it. */
int xfmt_dir2_leaf_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_leaf_hdr *out);

/* Leaf entry i {hashval, address}; -1 if it does not lie inside len. */
int xfmt_dir2_leaf_entry(const uint8_t *buf, size_t len, bool v5, unsigned i,
			 uint32_t *hashval, uint32_t *address);

/*
 * Leaf1 tail: be32 bestcount in the last 4 bytes, preceded by bestcount
 * be16 bests[] (bests[db] = longest free region of data block db, or
 * 0xFFFF if that block does not exist).  bests_off = dirblksize - 4 -
 * 2 * bestcount.  Returns 0, or -1 if the buffer is shorter than
 * dirblksize or the bests would reach into the header (bestcount filled).
 */
struct xfmt_dir2_leaf_tail {
	uint32_t bestcount;
	size_t   bests_off;
};
int xfmt_dir2_leaf1_tail_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				struct xfmt_dir2_leaf_tail *out);
/* bests[i] of a leaf1 block whose tail decoded; -1 if i >= bestcount. */
int xfmt_dir2_leaf1_best(const uint8_t *buf, const struct xfmt_dir2_leaf_tail *tail,
			 unsigned i, uint16_t *out);

/*
 * Verify a leaf1 (leaf1 == true) or leafN block.  Checks: blkinfo (magic,
 * v5 CRC / bno / uuid / owner, pad, siblings: a leaf1 block has none,
 * leafN siblings lie in the leaf segment); count within capacity; v5 pad;
 * entries in hash order; stale == number of null addresses; each live
 * address's offset at or after the data header and within the block.
 * Leaf1 also: the bests table fits and does not overlap the entries, each
 * best is 0xFFFF or a possible free length, every live address names a data
 * block with a bests slot that is not 0xFFFF.
 */
unsigned xfmt_dir2_leaf_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp, bool leaf1,
			       const struct xprob_sink *sink);

/* ------------------------------------------------------ free index blocks */

struct xfmt_dir2_free_hdr {
	uint32_t magic;
	uint32_t crc;      /* v5 fields zero on v4 */
	uint64_t blkno;
	uint64_t lsn;
	uint8_t  uuid[16];
	uint64_t owner;
	uint32_t firstdb;  /* first data block this block covers */
	uint32_t nvalid;   /* bests[] slots in use */
	uint32_t nused;    /* slots != 0xFFFF */
	uint32_t pad;
	size_t   hdr_len;  /* 64 or 16 */
	bool     v5;
};

int xfmt_dir2_free_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_free_hdr *out);
/* bests[i] of a free block; -1 if it does not lie inside len. */
int xfmt_dir2_free_best(const uint8_t *buf, size_t len, bool v5, unsigned i, uint16_t *out);

/*
 * Verify a free-index block read from fork block exp->dablk: magic; v5 CRC,
 * bno, uuid, owner, pad; firstdb == what that fork block covers; nvalid
 * within capacity; nused == number of slots != 0xFFFF (and <= nvalid);
 * each used slot a possible free length.
 */
unsigned xfmt_dir2_free_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink);

/* -------------------------------------------------------- field tables */

/*
 * Field tables with the names xfs_db prints (`-c 'inode N' -c 'dblock D'
 * -c p`).  Header tables have offsets from the start of the block; the
 * block tail table from the start of the tail (dirblksize - 8) and the
 * leaf1 tail table from dirblksize - 4; the shortform header tables from
 * the start of the data fork.  Pads are left out, as xfs_db does.
 *
 *   data/block: bhdr.hdr.magic, bhdr.hdr.crc, bhdr.hdr.bno, bhdr.hdr.lsn,
 *     bhdr.hdr.uuid, bhdr.hdr.owner, bhdr.bestfree[0].offset ... (v5 block;
 *     "dhdr" for data blocks; v4: bhdr.magic, bhdr.bestfree[0].offset ...)
 *   leaf: lhdr.info.hdr.forw ... lhdr.count, lhdr.stale (v4 lhdr.info.forw)
 *   free: fhdr.hdr.magic ... fhdr.firstdb, fhdr.nvalid, fhdr.nused
 *   tails: btail.count, btail.stale; ltail.bestcount
 *   shortform: u3.sfdir3.hdr.count, .i8count, .parent.i4 / .parent.i8
 *     ("u." on v4 inodes, "sfdir2" without FTYPE)
 */
/* Header fields of data, block, leaf and free blocks: v5 (dir3), v4 (dir2). */
extern const struct xfmt_field xfmt_dir3_block_hdr_fields[], xfmt_dir2_block_hdr_fields[];
extern const struct xfmt_field xfmt_dir3_data_hdr_fields[], xfmt_dir2_data_hdr_fields[];
extern const struct xfmt_field xfmt_dir3_leaf_hdr_fields[], xfmt_dir2_leaf_hdr_fields[];
extern const struct xfmt_field xfmt_dir3_free_hdr_fields[], xfmt_dir2_free_hdr_fields[];
/* The same, chosen by version (and form). */
const struct xfmt_field *xfmt_dir2_data_fields(bool v5, bool block_form);
const struct xfmt_field *xfmt_dir2_leaf_fields(bool v5);
const struct xfmt_field *xfmt_dir2_free_fields(bool v5);
extern const struct xfmt_field xfmt_dir2_block_tail_fields[];
extern const struct xfmt_field xfmt_dir2_leaf_tail_fields[];
const struct xfmt_field *xfmt_dir2_sf_hdr_fields(bool v5, bool ftype, bool i8);

#endif /* XFMT_DIR2_H */
