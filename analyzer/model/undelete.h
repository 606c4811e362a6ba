/*
 * undelete.h - what a deleted file held, where the evidence still says so.
 *
 * An unlink truncates the inode and frees it; on disk its core keeps no
 * mapping.  The log keeps older copies: the last state in which the inode
 * was a file with data (log_stale.h) gives its size and its extents.  Its
 * blocks are worth reading only where they are still free: a block in use
 * again holds someone else's data now.  Needs the check's maps (XA_RUN_CHECK
 * with keep_ownership) for the free space.
 */
#ifndef XA_UNDELETE_H
#define XA_UNDELETE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/log/log_stale.h"

struct xa_ctx;
struct xa_inode;
struct xa_ownrec;

enum xa_undel_why {
	XA_UNDEL_OK,         /* a copy with data was found */
	XA_UNDEL_IN_USE,     /* the inode is allocated again: its number names another file */
	XA_UNDEL_NO_COPY,    /* the log holds no state of it with data (wrapped past it) */
	XA_UNDEL_NOT_FILE,   /* the copy is not a regular file */
	XA_UNDEL_BTREE,      /* its mapping was a bmbt, whose blocks were freed with it */
};

struct xa_undelete {
	struct xa_ctx   *ctx;
	struct xa_stale  stale;
	/* each AG's free extents sorted by start, made on first use */
	struct xa_ownrec **free;
	size_t           *nfree;
};

/* Collect the log's copies; 0 or XERR_NOMEM (no log: none found later). */
int xa_undelete_open(struct xa_ctx *ctx, struct xa_undelete *u);
void xa_undelete_close(struct xa_undelete *u);

/*
 * The deleted inode ino as it was when it last held data: *out (release
 * with xa_inode_release) when XA_UNDEL_OK, *lsn its LSN.  Returns the
 * verdict, or a negative xerr.
 */
int xa_undelete_inode(struct xa_undelete *u, uint64_t ino, struct xa_inode *out, uint64_t *lsn);

/* How many of the blocks [fsb, fsb + len) are free now (0 .. len). */
uint64_t xa_undelete_free_blocks(struct xa_undelete *u, uint64_t fsb, uint64_t len);

/* "inode in use again", "no copy of it with data is left in the log", ... */
const char *xa_undel_why_text(enum xa_undel_why w);

#endif /* XA_UNDELETE_H */
