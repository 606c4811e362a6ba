/*
 * dir2_build.h - the directory encoder: a directory's entries in, its
 * on-disk form out (short form, block, leaf or node), laid out as the
 * kernel lays out a directory filled in creation order.
 *
 * Owns: choosing the form the entries call for, placing entries in data
 * blocks, building the hash index (block leaf, leaf1, leafN blocks under a
 * DA node tree of any depth) and the free index, and sealing a block once
 * the caller knows where it lands (v5 blkno, owner, uuid, lsn, CRC).
 * Everything here is pure: no I/O, memory only through the result struct.
 *
 * How the repair uses it:
 *
 *   struct xfmt_dir2_build b;
 *   if (xfmt_dir2_sf_encode(g, parent, ents, n, fork, forksize, &size) == 0)
 *           ...di_format LOCAL, di_size = size...
 *   else if (xfmt_dir2_build(g, dir_ino, parent, ents, n, NULL, &b) == 0) {
 *           for (size_t i = 0; i < b.nblks; i++) {
 *                   daddr = map(b.blks[i].da);           // fork offset -> disk
 *                   xfmt_dir2_blk_seal(g, b.blks[i].buf, g->dirblksize,
 *                                      daddr, dir_ino, lsn);
 *                   write(daddr, b.blks[i].buf, g->dirblksize);
 *           }
 *           ...di_size = b.di_size...
 *           xfmt_dir2_build_release(&b);
 *   }
 *
 * Layout rules (what the kernel does when names are only ever added, so a
 * directory re-encoded from its own entries in storage order comes out as
 * it was):
 *   - data block 0 starts with "." and ".." (file type DIR); each entry goes
 *     at the end of the last data block that has room for it ("last fit",
 *     the order in which the kernel's node form searches its free index;
 *     the leaf form's first fit gives the same blocks when entries arrive in
 *     storage order); a block's unused tail is one free region.
 *   - leaf entries are sorted by hash; among equal hashes the later entry
 *     comes first, as the kernel inserts.
 *   - block form while entries, leaf array and tail fit one block; leaf form
 *     while the leaf entries and bests fit one leaf1 block; node form
 *     beyond: leafN blocks evenly filled, one at the first leaf-segment block
 *     when it is the only one, else a DA node root there, the leaves after
 *     it in hash order and any lower node levels after the leaves, each
 *     level linked by forw/back; free-index blocks at the free segment.
 *   - stale counts are 0; unused bytes are zero.
 *
 * Limits: at most XFMT_DIR2_BUILD_MAX_ENTS entries (the DA tree may have
 * any depth the format allows, XFS_DA_NODE_MAXDEPTH node levels).
 */
#ifndef XFMT_DIR2_BUILD_H
#define XFMT_DIR2_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"

/* Most entries one call encodes ("." and ".." not counted). */
#define XFMT_DIR2_BUILD_MAX_ENTS (1u << 22)

/*
 * Errors (negative).  NOMEM has the value of the analyzer's XERR_NOMEM; the
 * others are the encoder's own, for the caller to turn into a finding or an
 * XERR_UNSUPPORTED.
 */
enum xfmt_dirb_err {
	XFMT_DIRB_NOMEM  = -1,    /* allocation failed */
	XFMT_DIRB_BADENT = -101,  /* an entry the format cannot hold (see xfmt_dir2_build) */
	XFMT_DIRB_DUP    = -102,  /* two entries with one name (case-folded on ascii-ci) */
	XFMT_DIRB_TOOBIG = -103,  /* more entries than XFMT_DIR2_BUILD_MAX_ENTS */
	XFMT_DIRB_NOFIT  = -104,  /* the entries do not fit the form or block counts asked for */
};

/* One entry to store.  "." and ".." are not passed: the encoder adds them. */
struct xfmt_dirent_in {
	const uint8_t *name;     /* namelen bytes, not NUL-terminated; caller owns */
	uint8_t        namelen;
	uint64_t       ino;
	uint8_t        ftype;    /* XFS_DIR3_FT_*; ignored without FTYPE */
};

enum xfmt_dir2_form {
	XFMT_DIR2_FORM_AUTO = 0,  /* opts only: the smallest form that holds the entries */
	XFMT_DIR2_FORM_SF,
	XFMT_DIR2_FORM_BLOCK,
	XFMT_DIR2_FORM_LEAF,
	XFMT_DIR2_FORM_NODE,
};

/*
 * Layout choices for rewriting a directory inside the blocks it already
 * maps (all zero = the defaults above).
 */
struct xfmt_dir2_build_opts {
	enum xfmt_dir2_form form;   /* AUTO, or BLOCK / LEAF / NODE exactly */
	uint32_t data_blocks;       /* 0, or exactly this many data blocks (leaf and
				       node forms): when last fit needs fewer, blocks are
				       filled in order, the last ones with one entry each */
	uint32_t leaf_blocks;       /* node form: 0, or exactly this many leafN blocks */
};

/* One built directory block: dirblksize bytes at fork block da. */
struct xfmt_dir2_blk {
	uint32_t da;       /* file offset in filesystem blocks (data, leaf or free segment) */
	uint8_t *buf;      /* points into the build's memory */
};

struct xfmt_dir2_build {
	enum xfmt_dir2_form form;     /* BLOCK, LEAF or NODE */
	uint64_t di_size;             /* bytes of the data segment: data blocks * dirblksize */
	uint32_t ndata, nleaf, nnode, nfree;   /* blocks of each kind */
	unsigned node_levels;         /* DA node levels above the leaves (node form) */
	size_t nblks;                 /* ndata + nleaf + nnode + nfree (leaf1 counts in nleaf) */
	struct xfmt_dir2_blk *blks;   /* in increasing da order; owned */
	uint8_t *mem;                 /* nblks * dirblksize bytes; owned */
};

/*
 * Encode a short-form directory into out[0..room) (room = the data fork's
 * literal bytes).  parent is "..".  8-byte inode numbers are used for all
 * entries when the parent or any entry needs more than 32 bits; offsets
 * are those the entries would have in a block, in the order given.
 * Returns 0 with *size = di_size (the bytes written; the rest of out is
 * zeroed), XFMT_DIRB_NOFIT when the entries need more than room bytes, more
 * than 255 entries or more than one directory block, or XFMT_DIRB_BADENT /
 * XFMT_DIRB_DUP as xfmt_dir2_build.
 */
int xfmt_dir2_sf_encode(const struct xfmt_geom *g, uint64_t parent,
			const struct xfmt_dirent_in *e, size_t n,
			uint8_t *out, size_t room, size_t *size);

/*
 * Build every block of a block, leaf or node directory dir_ino with parent
 * parent and the n entries e (in creation or storage order: it decides
 * which data block an entry lands in).  opts may be NULL.  Entries must
 * have a legal name (1..255 bytes, no '/' or NUL) that is not "." or "..",
 * an inode number xfmt_dir2_ino_ok accepts, and with FTYPE an ftype below
 * XFS_DIR3_FT_MAX; dir_ino and parent must be valid too.  The v5 header
 * fields that depend on placement are left zero: run xfmt_dir2_blk_seal on
 * each block.  Returns 0 and fills *out (release with
 * xfmt_dir2_build_release), or a negative XFMT_DIRB_* (*out zeroed).
 */
int xfmt_dir2_build(const struct xfmt_geom *g, uint64_t dir_ino, uint64_t parent,
		    const struct xfmt_dirent_in *e, size_t n,
		    const struct xfmt_dir2_build_opts *opts, struct xfmt_dir2_build *out);

/* Free what a build owns and zero it (safe on a zeroed or released build). */
void xfmt_dir2_build_release(struct xfmt_dir2_build *b);

/*
 * Finish one directory block of len >= g->dirblksize bytes for where it is
 * written: on v5, set blkno = daddr (of its first filesystem block), owner,
 * uuid = g->meta_uuid and lsn, then the CRC over dirblksize bytes; the
 * block's magic says which header it has (data/block/free or DA blkinfo).
 * v4 blocks have none of these fields and are left as they are.  Returns
 * 0, or -1 (buffer untouched) for an unknown magic or a short buffer.
 */
int xfmt_dir2_blk_seal(const struct xfmt_geom *g, uint8_t *buf, size_t len,
		       uint64_t daddr, uint64_t owner, uint64_t lsn);

#endif /* XFMT_DIR2_BUILD_H */
