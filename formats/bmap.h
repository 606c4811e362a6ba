/*
 * bmap.h - inode fork mappings: the extent list of an EXTENTS fork, the bmbt
 * root ("bmdr") of a BTREE fork, the rules every mapping of a fork must obey,
 * and file-offset lookup in a sorted mapping list.
 *
 * Owns: which records of a fork may be read (never past the fork, never past
 * nextents), the per-mapping rules of the kernel's xfs_bmap_validate_extent
 * and xfs_repair's extent scan (non-zero length, a valid data-device range
 * inside one AG, a file range below the largest file offset, unwritten only
 * in a regular file's data fork), the order of a fork's mappings (sorted by
 * startoff, no overlap), the count of mappings against di_nextents, and the
 * checks of the in-inode root that xfmt_dinode_verify does not already make
 * (height against the geometry, keys, pointers).
 *
 * Not here: reading bmbt blocks (the analyzer walks the tree; btree.h judges
 * each block's header, btrec.h decodes its records); the inode core's own
 * fork checks (format per file type, nextents against the fork's capacity,
 * root level 0 / numrecs 0 or over capacity: xfmt_dinode_verify reports
 * those as inoBadNextents / inoBadBmdrRoot, so nothing here repeats them).
 *
 * How a reader uses this (cat, stat, the namespace pass):
 *   EXTENTS fork:  n = xfmt_bmap_extents_decode(fork, size, nextents, recs, cap)
 *                  then xfmt_bmap_lookup(recs, n, fileblock, &map).
 *   BTREE fork:    xfmt_bmap_root_decode() for the level and the child
 *                  pointers (xfmt_bmdr_ptr), walk the child blocks, decode
 *                  leaf records with xfmt_bmbt_rec_decode, collect them in
 *                  order, then look up as above.
 *   A checker:     xfmt_bmap_extents_verify() for an EXTENTS fork; for a
 *                  BTREE fork xfmt_bmap_root_verify() on the root and one
 *                  struct xfmt_bmap_check fed every leaf record in tree
 *                  order, closed by xfmt_bmap_check_finish(nextents).
 * Facts: xfs-ondisk.md 3.4 (record layout) and 5.5 (forks); the kernel's
 * xfs_iformat_extents / xfs_iformat_btree / xfs_bmap_compute_maxlevels.
 */
#ifndef XFMT_BMAP_H
#define XFMT_BMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btrec.h"
#include "formats/dinode.h"
#include "formats/geom.h"
#include "formats/problem.h"

/* Which fork (the values xfmt_dinode_fork takes). */
#define XFMT_DATA_FORK 0
#define XFMT_ATTR_FORK 1

/* One extent record in an EXTENTS fork or a bmbt leaf: two be64 words. */
#define XFMT_BMBT_REC_LEN 16u

/* What the mapping rules need to know about the fork being checked. */
struct xfmt_bmap_fork {
	int      whichfork;  /* XFMT_DATA_FORK or XFMT_ATTR_FORK */
	uint16_t mode;       /* di_mode of the inode; only the file type is used */
	bool     realtime;   /* xfmt_dinode_data_realtime: the data fork maps rt extents,
			      * whose startblocks are not data-device blocks and
			      * are not range-checked here */
};

/* Fill f for fork whichfork of a decoded inode d of filesystem g.  Inline:
 * it runs for every fork of every inode, and a struct built field by field
 * in another unit and then read whole stalls on its stores. */
static inline void xfmt_bmap_fork_init(struct xfmt_bmap_fork *f, const struct xfmt_geom *g,
				       const struct xfmt_dinode *d, int whichfork)
{
	*f = (struct xfmt_bmap_fork){
		.whichfork = whichfork,
		.mode = d->mode,
		.realtime = xfmt_dinode_data_realtime(g, d),
	};
}

/* ------------------------------------------------------- EXTENTS forks */

/* How many 16-byte records a fork of forksize bytes can hold. */
size_t xfmt_bmap_extents_capacity(size_t forksize);

/*
 * Decode the records of an EXTENTS fork: fork/forksize is the fork as
 * xfmt_dinode_fork returns it, nextents the inode's extent count for that
 * fork.  Decodes min(nextents, capacity(forksize), cap) records into out
 * (caller-owned, cap entries; out may be NULL when cap is 0) and returns how
 * many it decoded.  Never reads past forksize, whatever nextents says; it
 * does not judge the records (xfmt_bmap_extents_verify does).
 */
size_t xfmt_bmap_extents_decode(const uint8_t *fork, size_t forksize, uint64_t nextents,
				struct xfmt_bmbt_rec *out, size_t cap);

/*
 * How many of the leading records of an EXTENTS fork (at most what
 * forksize holds) look like real mappings: each maps at least one block,
 * starts at or after the end of the one before, ends below the largest file
 * offset and, unless the fork maps realtime extents, lies in the data
 * device.  When the count of a fork overflows the fork, the records up to
 * the first that fails are what the count should say: the rest of the fork
 * was never written (xfs_repair resets such a count to 0 and loses the
 * file's blocks).
 */
size_t xfmt_bmap_extents_sound_prefix(const uint8_t *fork, size_t forksize,
				      const struct xfmt_bmap_fork *f, const struct xfmt_geom *g);

/*
 * Verify an EXTENTS fork: each record that fits (at most nextents) goes
 * through a struct xfmt_bmap_check (rules below).  A nextents larger than
 * the fork can hold is left to xfmt_dinode_verify (inoBadNextents); only
 * the records present are judged.  Findings carry the record index as {off}.
 * Returns the number of findings reported.
 */
unsigned xfmt_bmap_extents_verify(const uint8_t *fork, size_t forksize, uint64_t nextents,
				  const struct xfmt_geom *g, const struct xfmt_bmap_fork *f,
				  const struct xprob_sink *sink);

/* ------------------------------------------------ mapping rules, streamed */

/*
 * Checker state for all the mappings of one fork, fed in the order they are
 * stored (fork order for an EXTENTS fork, leaf after leaf left to right for
 * a BTREE fork).  It keeps no list, so it works for forks of any size.
 * The caller fills nothing by hand: use xfmt_bmap_check_init.
 */
struct xfmt_bmap_check {
	const struct xfmt_geom *g;
	struct xfmt_bmap_fork   fork;
	uint64_t                nrecs;    /* mappings seen (the next one's index) */
	uint64_t                nblocks;  /* sum of their blockcounts, saturating */
	bool                    have_prev;
	struct xfmt_bmbt_rec    prev;     /* the last mapping seen */
	unsigned                findings; /* reported so far */
	unsigned                as_read;  /* startblocks taken as the kernel reads them */
};

static inline void xfmt_bmap_check_init(struct xfmt_bmap_check *c, const struct xfmt_geom *g,
					const struct xfmt_bmap_fork *f)
{
	*c = (struct xfmt_bmap_check){ .g = g, .fork = *f };
}

/*
 * Check mapping r, the next one of the fork ({off} of its findings is its
 * index in the fork, c->nrecs).  Rules, each its own finding:
 *   bmapZeroLength     blockcount == 0
 *   bmapStartblockHighBits  startblock has bits above its 32-bit AG number,
 *                      which the kernel does not see: the block it reads
 *                      is checked on, and written to r (xfmt_geom_fsb_as_read)
 *   bmapBadStartblock  startblock not a valid data-device block outside the
 *                      AG headers (skipped for realtime data forks)
 *   bmapBadExtent      the extent runs past its AG's end (or wraps)
 *   bmapBadFileOffset  the last file block is beyond the largest offset a
 *                      file may map: min(XFS_MAX_FILEOFF, (2^63-1) >> blocklog)
 *   bmapBadUnwritten   unwritten flag in an attr fork or in the data fork of
 *                      anything but a regular file
 *   bmapOutOfOrder     startoff not above the previous mapping's startoff
 *   bmapOverlap        startoff inside the previous mapping
 * Returns the number of findings for this mapping.
 */
unsigned xfmt_bmap_check_rec(struct xfmt_bmap_check *c, struct xfmt_bmbt_rec *r,
			     const struct xprob_sink *sink);

/*
 * Rewrite the n packed mappings at recs (an extents fork, or a bmbt leaf's
 * records) with each startblock as the kernel reads it (the repair of
 * bmapStartblockHighBits); the rest of each record is kept.  Returns how
 * many changed.
 */
unsigned xfmt_bmbt_recs_as_read(uint8_t *recs, size_t n, const struct xfmt_geom *g);

/*
 * After the last mapping: the number of mappings seen must equal nextents
 * (the inode's count for this fork, reported as field count_field, e.g.
 * "core.nextents" or "core.naextents"); bmapCountMismatch otherwise.
 * Returns the number of findings (0 or 1).
 */
unsigned xfmt_bmap_check_finish(struct xfmt_bmap_check *c, uint64_t nextents,
				const char *count_field, const struct xprob_sink *sink);

/* --------------------------------------------------------- BTREE forks */

/* The in-inode bmbt root of a BTREE fork. */
struct xfmt_bmap_root {
	uint16_t level;    /* height of the root above the leaves (>= 1 when sane) */
	uint16_t numrecs;  /* as stored */
	unsigned maxrecs;  /* key/pointer slots the fork size gives */
	unsigned nrecs;    /* min(numrecs, maxrecs): how many may be read */
};

/*
 * Decode the root header of a BTREE fork.  Keys and pointers are then read
 * with xfmt_bmdr_key / xfmt_bmdr_ptr (btree.h) for i < out->nrecs.
 * Returns 0, or -1 if the fork cannot hold the 4-byte header.
 */
int xfmt_bmap_root_decode(const uint8_t *fork, size_t forksize, struct xfmt_bmap_root *out);

/*
 * Greatest height a bmbt of fork whichfork may have on this geometry: the
 * kernel's xfs_bmap_compute_maxlevels (most extents the fork's counter
 * allows, half-full blocks, a root of 3 (data) or 2 (attr) pointers).
 * 5 for a 4 KiB-block v5 data fork without NREXT64.
 */
unsigned xfmt_bmap_maxlevels(const struct xfmt_geom *g, int whichfork);

/*
 * Verify the root of a BTREE fork beyond what xfmt_dinode_verify checks:
 *   bmapRootTooDeep  level above xfmt_bmap_maxlevels (the kernel's limit)
 *   bmapRootKeyOrder keys not strictly increasing
 *   bmapRootBadKey   a key beyond the largest file offset
 *   bmapRootBadPtr   a pointer that is not a valid data-device block
 *   bmapRootDupPtr   a pointer repeated (two subtrees in one block)
 * Keys and pointers are read for i < min(numrecs, maxrecs); a root with
 * level 0 or numrecs 0 has nothing to check here.  {off} is the slot index.
 * Returns the number of findings.
 */
unsigned xfmt_bmap_root_verify(const uint8_t *fork, size_t forksize,
			       const struct xfmt_geom *g, int whichfork,
			       const struct xprob_sink *sink);

/* ---------------------------------------------------------- lookups */

/* Largest file block (inclusive) a mapping may reach on this geometry. */
uint64_t xfmt_bmap_max_fileoff(const struct xfmt_geom *g);

/* Where one file block is. */
struct xfmt_bmap_map {
	bool     mapped;     /* false: a hole */
	bool     unwritten;  /* mapped but unwritten (reads as zeros) */
	uint64_t fsblock;    /* mapped: the block holding the file block */
	uint64_t count;      /* blocks from the looked-up one to the end of this
			      * mapping, or of the hole (a hole after the last
			      * mapping runs to XFS_MAX_FILEOFF + 1) */
	size_t   idx;        /* mapped: index of the mapping; hole: index of the
			      * next mapping (n if none) */
};

/*
 * Map file block fileoff through recs[0..n), which must be sorted by
 * startoff without overlap (what a clean xfmt_bmap_check guarantees; on an
 * unsorted list the answer is wrong but the search stays in bounds).
 * Binary search, O(log n).  Fills out and returns true if fileoff is mapped,
 * false for a hole.  For a mapped block fsblock = startblock + (fileoff -
 * startoff); the caller checks it with xfmt_geom_fsb_valid before reading.
 */
bool xfmt_bmap_lookup(const struct xfmt_bmbt_rec *recs, size_t n, uint64_t fileoff,
		      struct xfmt_bmap_map *out);

#endif /* XFMT_BMAP_H */
