/*
 * fork_walk.h - the block mappings of one inode fork, in file-offset order.
 *
 * An EXTENTS fork holds its records in the inode; a BTREE fork holds a bmbt
 * root whose leaves (long-form btree blocks anywhere in the filesystem) hold
 * them.  The walk checks what it reads (block headers, key order, node keys
 * against children, sibling chains, record order and overlap) when asked to
 * report, and hands every record to a callback.  It is the one way the
 * analyzer and the file views learn where a file's bytes are.
 */
#ifndef XA_FORK_WALK_H
#define XA_FORK_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/btrec.h"
#include "formats/dinode.h"

struct xa_ctx;

enum { XA_DATA_FORK = 0, XA_ATTR_FORK = 1 };

/* Called per mapping in startoff order; a negative return aborts the walk. */
typedef int (*xa_fork_rec_fn)(void *arg, const struct xfmt_bmbt_rec *r);

struct xa_fork_result {
	uint64_t records;        /* mappings handed to the callback */
	uint64_t mapped_blocks;  /* sum of their blockcounts */
	uint64_t bmbt_blocks;    /* bmbt blocks read (not the in-inode root) */
	bool     complete;       /* every mapping could be read */
};

/*
 * Walk fork whichfork (XA_DATA_FORK / XA_ATTR_FORK) of inode ino, whose raw
 * bytes are inode (inodesize long) and decoding d.  With report, failed checks
 * become findings located at the inode or block, and bmbt blocks are claimed
 * in their AG's claim map (a block claimed twice is reported and not
 * descended).  Forks in other formats yield no records.  Returns 0, or a
 * negative xerr (out of memory, or the callback's).
 */
int xa_fork_walk(struct xa_ctx *ctx, uint64_t ino, const uint8_t *inode,
		 const struct xfmt_dinode *d, int whichfork, bool report,
		 xa_fork_rec_fn fn, void *arg, struct xa_fork_result *res);

#endif /* XA_FORK_WALK_H */
