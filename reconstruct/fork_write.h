/*
 * fork_write.h - an inode's data or attr fork written from a list of
 * mappings: an extent list in the inode when the list fits its fork, else
 * a bmap btree (bmbt) whose root sits in the inode and whose other blocks
 * come from new space.
 *
 * Two layers: a pure one (the tree's shape and its encoding into memory,
 * no allocation of space, no plan) that the unit test drives, and the
 * planner's one (space from rp_space_alloc, blocks planned, the inode's
 * fork, format and extent count set in the caller's inode buffer).
 *
 * The tree is what xfs_repair and the kernel accept: the root in the inode
 * is a bmdr block of level >= 1 holding no more keys and pointers than the
 * fork's size allows; every block below it is a long-form btree block
 * (BMA3 with blkno, lsn, uuid, owner = the inode and a CRC on v5; BMAP on
 * v4) with long sibling pointers along its level; every block of a level
 * that has more than one block holds at least minrecs (maxrecs / 2), the
 * single block of a level (directly below the root) may hold fewer, as the
 * kernel's own extents-to-btree conversion leaves it; node keys are the
 * first file offset below each child; a tree is only built when the
 * mappings do not fit the fork as a list (xfs_repair refuses a btree fork
 * with so few extents).  Blocks are filled to maxrecs: a rebuilt map is
 * not expected to grow, and fewer blocks keep the tree low.
 */
#ifndef XR_FORK_WRITE_H
#define XR_FORK_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btrec.h"
#include "formats/geom.h"

struct xr_rp;

#define XR_DATA_FORK 0
#define XR_ATTR_FORK 1

/* Shape of a bmbt whose root is in the inode. */
struct xr_bmbt_shape {
	uint64_t nrecs;
	unsigned root_level;                          /* level of the in-inode root, >= 1 */
	unsigned root_numrecs;                        /* children of the root */
	uint32_t blocks;                              /* blocks of every level below the root */
	uint64_t level_blocks[XFS_BTREE_MAXLEVELS];   /* [0, root_level) */
	uint64_t level_entries[XFS_BTREE_MAXLEVELS];  /* records (level 0) or children */
};

/*
 * Tallest bmbt a fork may have (the kernel's XFS_BM_MAXLEVELS: the most
 * extents the fork's counter can hold, in blocks at minrecs, under a root
 * of the smallest size a fork may have).  0 when the block cannot hold a
 * bmbt block's header and two entries.
 */
unsigned xr_bmbt_maxlevels(const struct xfmt_geom *g, int whichfork);

/*
 * Shape of the bmbt holding nrecs mappings in fork whichfork whose size in
 * the inode is forksize bytes.  Returns 0; XERR_USAGE when the mappings fit
 * the fork as an extent list (no tree then) or whichfork is neither fork;
 * XERR_UNSUPPORTED when the tree would be taller than xr_bmbt_maxlevels or
 * the fork cannot hold a root with one pointer.
 */
int xr_bmbt_shape(const struct xfmt_geom *g, size_t forksize, int whichfork, uint64_t nrecs,
		  struct xr_bmbt_shape *s);

/*
 * Encode the tree of shape s over the mappings m (s->nrecs of them, sorted
 * by startoff and not overlapping) for inode ino, stamping lsn and
 * g->meta_uuid in v5 headers.  Block k (k < s->blocks) is encoded at
 * blocks + k * g->blocksize and belongs at fsblock fsbs[k]; the leaves come
 * first, left to right, then each node level.  v5 blocks carry their CRC.
 * The in-inode root is written into fork (forksize bytes, the rest of the
 * fork zeroed).  The caller owns every buffer.  Returns 0, or XERR_USAGE
 * when the shape does not match the fork or an entry does not fit its
 * block (a caller bug).
 */
int xr_bmbt_encode(const struct xfmt_geom *g, uint64_t ino, uint64_t lsn,
		   const struct xr_bmbt_shape *s, const struct xfmt_bmbt_rec *m,
		   const uint64_t *fsbs, uint8_t *blocks, uint8_t *fork, size_t forksize);

/* A fork built in memory, waiting to be planned. */
struct xr_fork {
	int       whichfork;
	uint8_t   format;      /* XFS_DINODE_FMT_EXTENTS or XFS_DINODE_FMT_BTREE */
	uint64_t  nextents;
	uint32_t  nblocks;     /* bmbt blocks (count toward di_nblocks) */
	uint64_t *fsbs;        /* nblocks fsblocks (owned) */
	uint8_t  *blocks;      /* nblocks encoded blocks (owned) */
};

/*
 * Build fork whichfork of inode ino from the n mappings m (sorted by
 * startoff, not overlapping, each a legal bmbt record of the data device).
 * buf holds the inode (g->inodesize bytes, read through the plan) with its
 * fork offset already final; its fork bytes, format (di_format or
 * di_aformat) and extent count are set here, nothing else (the caller sets
 * di_nblocks, adding f->nblocks, and seals).  For a bmbt the blocks are
 * allocated with rp_space_alloc (owner ino, XA_OWN_BMBT, plus XA_OWN_ATTR
 * for the attr fork, the inode's AG first) and encoded into *f; nothing is
 * planned yet.  Returns 0; XERR_NOMEM; XERR_USAGE for mappings that are not
 * sorted, overlap or are not legal records, or an inode whose fork is
 * absent; XERR_UNSUPPORTED when more extents than the fork's counter holds,
 * a tree too tall, or no space.  On any error buf is unchanged, *f is empty
 * and the caller gives back what was allocated for ino
 * (rp_space_unalloc).
 */
int xr_fork_build(struct xr_rp *rp, uint64_t ino, int whichfork, uint8_t *buf,
		  const struct xfmt_bmbt_rec *m, size_t n, struct xr_fork *f);

/* Plan the bmbt blocks of f under action; 0, XERR_NOMEM or XERR_USAGE. */
int xr_fork_plan(struct xr_rp *rp, int action, uint64_t ino, const struct xr_fork *f);

/* Free what f holds (safe on an empty or released fork). */
void xr_fork_release(struct xr_fork *f);

/*
 * xr_fork_build, then xr_fork_plan under action, in one call, for a caller
 * whose action exists already.  *bmbt_blocks receives the number of bmbt
 * blocks.  Errors as xr_fork_build (and the plan's).
 */
int xr_fork_write(struct xr_rp *rp, int action, uint64_t ino, int whichfork, uint8_t *buf,
		  const struct xfmt_bmbt_rec *m, size_t n, uint32_t *bmbt_blocks);

#endif /* XR_FORK_WRITE_H */
