/*
 * log_scan.h - finding the live part of the internal log and walking its
 * records in order.
 *
 * The head is found from cycle numbers as the kernel finds it (a binary
 * search for the cycle change, then a look back over the blocks in-flight
 * log buffers could have left out of order); the tail comes from the last
 * record header before the head; the log is clean when that record is an
 * unmount record ending at the head (xfs-ondisk.md 10.3).  The walk reads
 * each record from the tail to the head (wrapping), checks its header, its
 * LSN against its place in the log, its uuid and CRC, undoes the cycle
 * stamps and hands the payload to a callback.  A bad record among the last
 * XA_LOG_MAX_ICLOGS records before the head is a torn write (the walk ends
 * there, as recovery's head check moves the head back to it); a bad record
 * before them is damage: the walk stops there too, but the kernel would
 * refuse to recover such a log at all.  The log is read from ctx->input,
 * the image as given.
 */
#ifndef XA_LOG_SCAN_H
#define XA_LOG_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/log.h"

struct ximg;

struct xa_ctx;

/* In-core log buffers that can be in flight at once: the records a torn
 * write can span (the kernel's XLOG_MAX_ICLOGS). */
#define XA_LOG_MAX_ICLOGS 8u

/* Log blocks those buffers can span at most (8 of 256 KiB): how far back
 * from the cycle change the head search looks for stale blocks. */
#define XA_LOG_TORN_WINDOW (XA_LOG_MAX_ICLOGS * (XLOG_MAX_RECORD_BYTES / 512u))

struct xa_log_pos {
	struct ximg *img; /* the image holding the log: the filesystem's, or the
	                     external log device's */
	uint64_t start;  /* byte of log block 0 in img */
	uint32_t nbb;    /* log size in 512-byte blocks */
	bool     external;
};

struct xa_log_bounds {
	bool     found;        /* a record header was found before the head */
	bool     clean;        /* the last record is an unmount record ending at the head */
	uint32_t head, tail;   /* log blocks */
	uint32_t head_cycle;   /* cycle the head's next record would have */
	uint32_t tail_cycle;
	uint64_t last_lsn;     /* LSN of the last record before the head */
	uint32_t torn_from;    /* first block of the oldest of the last
	                          XA_LOG_MAX_ICLOGS record headers before the
	                          head (the tail when there are fewer): a bad
	                          record from here on is a torn write */
};

enum xa_log_walk_end {
	XA_LOG_WALK_DONE,      /* reached the head */
	XA_LOG_WALK_TORN,      /* a torn write near the head: the walk ended there */
	XA_LOG_WALK_DAMAGED,   /* a bad record, or a payload the callback refused */
};

struct xa_log_walk {
	enum xa_log_walk_end end;
	const char *why;       /* static: what was wrong (torn or damaged) */
	uint32_t bad_block;    /* log block of the bad record */
	uint64_t stop_lsn;     /* the LSN its place in the log gives (cycle << 32 | block) */
	uint64_t lost_blocks;  /* log blocks from it to the head */
	uint64_t records;      /* records handed to the callback */
	uint64_t last_lsn;     /* LSN of the last of them (0 = none) */
};

/*
 * Where the internal log is: 0 and *pos, or 1 when there is none to read
 * (external log, a log outside the image, or no geometry).
 */
int xa_log_locate(const struct xa_ctx *ctx, struct xa_log_pos *pos);

/*
 * Find head, tail, the last record and, for a dirty log, where the torn
 * write window starts (b->torn_from).  Returns 0 (b->found false when no
 * record header precedes the head), or a negative xerr when the log cannot
 * be read (an imageReadError finding is recorded).
 */
int xa_log_find(struct xa_ctx *ctx, const struct xa_log_pos *pos, struct xa_log_bounds *b);

/*
 * Called for each good record: r its header, payload its h_len bytes with
 * the cycle stamps undone, block its log block.  Return 0 to go on, a
 * positive value to call the record damaged (set *why, a static string),
 * or a negative xerr to abort the walk.
 */
typedef int (*xa_log_rec_fn)(void *arg, const struct xfmt_log_rec *r, const uint8_t *payload,
			     uint32_t block, const char **why);

/*
 * Walk the records from b->tail to b->head.  Returns 0 with *w filled (see
 * w->end), or the callback's or a read's negative xerr.
 */
int xa_log_walk(struct xa_ctx *ctx, const struct xa_log_pos *pos, const struct xa_log_bounds *b,
		xa_log_rec_fn fn, void *arg, struct xa_log_walk *w);

/*
 * Every good record of the whole log region, live or not, in the order the
 * log wrote them: from block `from` (the head: what follows it is the
 * oldest) round to it again.  A record counts when its header checks, it
 * names this filesystem, it fits before `from` comes round, and (v5) its
 * CRC matches; anything else is skipped a block at a time, so records the
 * head has overwritten in part cost nothing but their own blocks.  fn as
 * for the walk; a positive return only skips that record.  Reads that fail
 * are skipped too, without findings (the check already reported them).
 * Returns 0, or fn's or the memory's negative xerr.
 */
int xa_log_sweep(struct xa_ctx *ctx, const struct xa_log_pos *pos, uint32_t from, xa_log_rec_fn fn,
		 void *arg);

#endif /* XA_LOG_SCAN_H */
