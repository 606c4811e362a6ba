/*
 * lsn_order.h - no v5 metadata may be stamped with an LSN at or past the
 * log's head (formats/lsn.h says why).
 *
 * Every walk that reads a metadata block hands it to xa_note_meta_lsn,
 * which keeps the largest LSN seen and where it was; the lsn-order pass,
 * last of `check`, compares it with the head the log pass found and reports
 * logBehindMetadata at that block.  xfs_repair does the same with the
 * largest LSN its verifiers saw ("Maximum metadata LSN ... is ahead of
 * log") and formats the log to a later cycle; so does our repair.  Inodes
 * and the superblock are left out, as the kernel's verifiers leave them.
 */
#ifndef XA_LSN_ORDER_H
#define XA_LSN_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct xa_ctx;
struct xa_loc;

/* The latest metadata LSN seen so far and the block that carries it. */
struct xa_meta_lsn {
	uint64_t lsn;    /* 0: none seen */
	unsigned has;    /* location of that block (struct xa_loc's fields) */
	uint32_t agno, agbno;
	uint64_t ino, byte;
	const char *what;
};

/*
 * Note the LSN of the metadata block buf (len bytes) read at loc, if it is
 * a v5 block of a kind that carries one (formats/lsn.h).  Never fails.
 */
void xa_note_meta_lsn(struct xa_ctx *ctx, const uint8_t *buf, size_t len,
		      const struct xa_loc *loc);

/* The head of the log as an LSN, or 0 when no log record was found. */
uint64_t xa_log_head_lsn(const struct xa_ctx *ctx);

/* The check pass: logBehindMetadata when the latest LSN is at or past the
 * head.  Returns 0. */
int xa_pass_lsn_order(struct xa_ctx *ctx);

#endif /* XA_LSN_ORDER_H */
