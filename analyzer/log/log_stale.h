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
 *
 * For each inode the sweep also keeps the last state in which it held data
 * (xa_stale_inode.live): a deleted file's mapping, which the unlink's own
 * transactions then cleared.
 *
 * The same sweep keeps the last logged state of directory-sized buffers
 * (directory data and block-form blocks are logged as buffer items): every
 * logged region applied in log order over zeros.  Bytes no item logged
 * read as zero, so a copy is evidence only where its own structure says so
 * (a magic, an owner, its address); a buffer whose item says it was freed
 * (XFS_BLF_CANCEL) is dropped.
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
	/* The last state in which it was a file with data (in use, a size and
	 * mapped blocks): what it held before an unlink truncated and freed
	 * it (owned; NULL when no such state was logged). */
	uint8_t *live;
	uint64_t live_lsn;
};

struct xa_stale_buf {
	uint64_t daddr;      /* where the buffer lives (512-byte units) */
	uint32_t len;        /* bytes */
	uint64_t lsn;        /* the last transaction that logged it */
	uint8_t *data;       /* len bytes (owned); NULL once a later item freed it */
};

/* Everything one sweep found, each array sorted by its key. */
struct xa_stale {
	struct xa_stale_inode *inodes;
	size_t                 ninodes;
	struct xa_stale_buf   *bufs;
	size_t                 nbufs;
};

/* Memory the copies may take at most ($XFSRECON_STALE_MAX, MiB): the inodes
 * met after it is reached are not kept. */
#define XA_LOG_STALE_MAX_BYTES (64ull << 20)

/*
 * The last logged state of every inode the log region's inode items name
 * (core logged), and of every buffer of the directory block size its
 * buffer items name (xa_stale_buf), from one sweep of the internal log
 * (xa_log_sweep, from the head the check found), into *out (owned: release
 * with xa_stale_release).  Returns 0 (no log: none), or XERR_NOMEM.
 */
int xa_log_stale_collect(struct xa_ctx *ctx, struct xa_stale *out);

/* The copy of ino in st, or NULL. */
const struct xa_stale_inode *xa_stale_find(const struct xa_stale *st, uint64_t ino);

/* The copy of the buffer at daddr in st, or NULL (none, or freed). */
const struct xa_stale_buf *xa_stale_buf_find(const struct xa_stale *st, uint64_t daddr);

/* Free everything st holds and empty it. */
void xa_stale_release(struct xa_stale *st);

#endif /* XA_LOG_STALE_H */
