/*
 * log_stale.h - old copies of inodes anywhere in the log region.
 *
 * A log keeps the records of transactions long after they reached the
 * disk: the blocks of a clean log behind its head, and every block the
 * head has not come round to again, still hold inode items.  Applying all
 * the inode items of one inode in the order the log wrote them gives its
 * last logged state.  For a directory whose core and literal area are gone
 * (the start of a disk overwritten, a zeroed root inode) that is the
 * short-form entries it had then; for any inode, its mode, owner and times
 * then.  It is old evidence, possibly older than the last change (the log
 * may have wrapped past later items), so callers name its LSN.
 */
#ifndef XA_LOG_STALE_H
#define XA_LOG_STALE_H

#include <stddef.h>
#include <stdint.h>

struct xa_ctx;

struct xa_stale_inode {
	uint64_t ino;
	uint64_t lsn;        /* the last transaction that logged it; 0 = none did */
	uint32_t fields;     /* XFS_ILOG_* of every item applied */
	uint8_t *dip;        /* inodesize bytes, the inode as those items left it
	                        (owned; NULL when none did) */
};

/* Memory the copies may take at most ($XFSRECON_STALE_MAX, MiB): the inodes
 * met after it is reached are not kept. */
#define XA_LOG_STALE_MAX_BYTES (64ull << 20)

/*
 * The last logged state of every inode the log region's inode items name
 * (core logged), from one sweep of the internal log (xa_log_sweep, from the
 * head the check found), sorted by ino into *out (owned: release with
 * xa_stale_inodes_release, then free).  Returns 0 (no log: none), or
 * XERR_NOMEM.
 */
int xa_log_stale_collect(struct xa_ctx *ctx, struct xa_stale_inode **out, size_t *n);

/* The copy of ino in v (sorted, n entries), or NULL. */
const struct xa_stale_inode *xa_stale_find(const struct xa_stale_inode *v, size_t n, uint64_t ino);

/* Free the copies of v[0..n). */
void xa_stale_inodes_release(struct xa_stale_inode *v, size_t n);

#endif /* XA_LOG_STALE_H */
