/*
 * block.h - the block registry: one row per kind of metadata block, with
 * what identifies it (its magic for each version and where it sits), where
 * its CRC and its owner field live on v5, which kernel verifier judges it,
 * its header field table and what kind of object owns it.  One classify
 * serves every reader that must tell blocks apart (the show views, the
 * scan, the directory model, salvage), so "what is this block" is decided
 * in one place.  The rules each kind obeys stay in its own decoder.
 */
#ifndef XFMT_BLOCK_H
#define XFMT_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btree.h"
#include "formats/field.h"

enum xfmt_blk_kind {
	XFMT_BLK_UNKNOWN = 0,
	XFMT_BLK_SB,
	XFMT_BLK_AGF,
	XFMT_BLK_AGI,
	XFMT_BLK_AGFL,       /* v5 only: a v4 AGFL has no header to know it by */
	XFMT_BLK_BNOBT,
	XFMT_BLK_CNTBT,
	XFMT_BLK_INOBT,
	XFMT_BLK_FINOBT,
	XFMT_BLK_RMAPBT,
	XFMT_BLK_REFCBT,
	XFMT_BLK_BMBT,
	XFMT_BLK_DIR_BLOCK,  /* single-block directory */
	XFMT_BLK_DIR_DATA,
	XFMT_BLK_DIR_LEAF1,
	XFMT_BLK_DIR_LEAFN,
	XFMT_BLK_DIR_FREE,
	XFMT_BLK_DA_NODE,    /* node of a directory or attribute hash tree */
	XFMT_BLK_ATTR_LEAF,
	XFMT_BLK_ATTR_RMT,   /* v5 only: a v4 remote value is raw bytes */
	XFMT_BLK_SYMLINK,    /* v5 only: a v4 remote target is raw bytes */
	/* Last: classify tries rows in this order, and a 2-byte magic at 0 is the weakest. */
	XFMT_BLK_INODES,     /* a block of an inode chunk (its first slot's magic) */
	XFMT_BLK_KIND_COUNT
};

/* What kind of object a block belongs to. */
enum xfmt_blk_owner {
	XFMT_BLK_OWN_NONE,
	XFMT_BLK_OWN_FS,          /* the superblock: the filesystem itself */
	XFMT_BLK_OWN_AG,          /* AG headers and AG btrees (owner field: agno) */
	XFMT_BLK_OWN_FORK,        /* a file's bmap btree (owner field: inode) */
	XFMT_BLK_OWN_INODES,      /* inode chunk (each slot names itself) */
	XFMT_BLK_OWN_DIR,         /* a directory's data fork */
	XFMT_BLK_OWN_DIR_OR_ATTR, /* a DA node: directory or attr fork alike */
	XFMT_BLK_OWN_ATTR,        /* an attribute fork */
	XFMT_BLK_OWN_SYMLINK,     /* a symlink's data fork */
};

/* Which version's magic numbers classify accepts. */
enum xfmt_blk_ver { XFMT_BLK_V4, XFMT_BLK_V5, XFMT_BLK_ANY };

struct xfmt_blk_row {
	enum xfmt_blk_kind kind;
	const char *name;        /* the name show and the reports use */
	uint32_t magic_v4;       /* 0: no such block on v4 */
	uint32_t magic_v5;       /* 0: no such block on v5 */
	uint8_t  magic_off;      /* 0, or 8 behind a DA blkinfo's siblings */
	uint8_t  magic_size;     /* 2 or 4 bytes, big-endian */
	int16_t  crc_off;        /* v5 CRC32c field; -1 if none */
	int16_t  owner_off;      /* v5 owner field; -1 if none */
	uint8_t  owner_size;     /* 4 (agno) or 8 (inode) */
	enum xfmt_blk_owner owner;
	int      btnum;          /* enum xfmt_btnum for btree blocks, else -1 */
	const char *verifier;    /* the kernel's verifier of this kind */
	/* Its header field table for each version (xfs_db's names), or NULL. */
	const struct xfmt_field *fields_v4, *fields_v5;
};

/* The row of kind k (the UNKNOWN row for anything out of range). */
const struct xfmt_blk_row *xfmt_blk_row(enum xfmt_blk_kind k);

/* The row of btree bt; NULL if bt is not a btree number. */
const struct xfmt_blk_row *xfmt_blk_row_bt(enum xfmt_btnum bt);

/* The header field table of row r for a version; NULL if it has none. */
const struct xfmt_field *xfmt_blk_fields(const struct xfmt_blk_row *r, bool v5);

/* Its magic for this version; 0 if the kind does not exist there. */
uint32_t xfmt_blk_magic(const struct xfmt_blk_row *r, bool v5);

/*
 * What block p[0..len) is, by its magic number alone: the first row whose
 * magic for an accepted version stands at its offset.  Nothing else is
 * checked (the kind's own verifier judges the rest); too short a buffer is
 * UNKNOWN.  The magics of the two versions never collide, except the
 * inode's, which is the same in both.
 */
enum xfmt_blk_kind xfmt_blk_classify(const uint8_t *p, size_t len, enum xfmt_blk_ver ver);

/* The accepted versions of a filesystem. */
static inline enum xfmt_blk_ver xfmt_blk_ver_of(bool v5)
{
	return v5 ? XFMT_BLK_V5 : XFMT_BLK_V4;
}

/* The owner field of a v5 block of kind k; false if it has none or len is short. */
bool xfmt_blk_owner_of(const uint8_t *p, size_t len, enum xfmt_blk_kind k, uint64_t *owner);

/* True for the kinds of a directory's leaf/node index (leaf1, leafn, DA node). */
bool xfmt_blk_is_dir_index(enum xfmt_blk_kind k);

/* True for a directory block holding entries (single-block or data). */
bool xfmt_blk_is_dir_data(enum xfmt_blk_kind k);

#endif /* XFMT_BLOCK_H */
