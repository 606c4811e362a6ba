/*
 * log_replay.h - replaying a dirty log in memory, as kernel recovery does
 * for physical items, into an overlay of the image.
 *
 * Pass 1 walks the log from tail to head, assembles the committed
 * transactions, counts them, collects cancelled buffers and matches intent
 * items with their done items.  Pass 2 walks again and applies, in LSN
 * order, buffer items (cancelled ones skipped; on v5 also those whose
 * on-disk LSN is not older than the transaction; inode buffers only their
 * di_next_unlinked words), inode items and icreate items, writing whole
 * buffers into a struct ximg_overlay read through ctx->input.  Quota items
 * are not replayed; intents left without a done item are findings, for the
 * checker and repair to deal with what they leave.
 */
#ifndef XA_LOG_REPLAY_H
#define XA_LOG_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/log_trans.h"

struct xa_ctx;
struct ximg_overlay;
struct xa_log_pos;
struct xa_log_bounds;
struct xa_log_walk;

/* Memory bound of the overlay and of the transactions held while
 * assembling; $XFSRECON_REPLAY_MAX (MiB) changes it.  The distinct metadata
 * a real log rewrites is far smaller; the bound is for hostile logs, and
 * keeps a whole run (block cache, replay, plan) within a few hundred MiB. */
#define XA_LOG_REPLAY_MAX_BYTES (256ull << 20)

struct xa_log_replay_stats {
	uint64_t transactions;      /* committed transactions walked */
	uint64_t items;
	uint64_t bufs;              /* buffer items replayed */
	uint64_t bufs_newer;        /* skipped: the block is newer than the transaction */
	uint64_t bufs_cancelled;    /* skipped: cancelled later in the log (cancel records included) */
	uint64_t inode_bufs;        /* inode buffers (next_unlinked words) replayed */
	uint64_t inodes;            /* inode items replayed */
	uint64_t inodes_skipped;    /* newer on disk, or cancelled */
	uint64_t icreates;          /* icreate items replayed */
	uint64_t intents, dones;    /* intent and done items seen */
	uint64_t intents_pending;   /* intents without a done item */
	uint64_t quota;             /* dquot and quotaoff items and dquot buffers: not replayed */
	uint64_t bad;               /* damaged items not replayed */
	uint64_t bytes;             /* bytes the overlay holds */
};

/*
 * Replay the dirty log at pos/b.  With apply false only pass 1 runs
 * (counts and findings, --no-replay); else *out receives the overlay
 * (NULL when no item changed anything).  Findings are recorded in
 * ctx->findings; *walk says where the walk ended, *st what was done.
 * Returns 0 or a negative xerr (read error, memory).
 */
int xa_log_replay(struct xa_ctx *ctx, const struct xa_log_pos *pos, const struct xa_log_bounds *b,
		  bool apply, struct ximg_overlay **out, struct xa_log_walk *walk,
		  struct xa_log_replay_stats *st);

/*
 * Walk the log at pos/b once and hand every committed transaction to fn
 * (for listings).  *walk says where the walk ended.  Returns 0, fn's
 * negative result, or a negative xerr.
 */
int xa_log_each_trans(struct xa_ctx *ctx, const struct xa_log_pos *pos,
		      const struct xa_log_bounds *b, xfmt_log_commit_fn fn, void *arg,
		      struct xa_log_walk *walk);

#endif /* XA_LOG_REPLAY_H */
