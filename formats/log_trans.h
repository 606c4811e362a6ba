/*
 * log_trans.h - log record payloads: op headers, and the assembly of the
 * regions they carry into committed transactions.
 *
 * A record's payload (cycle stamps already restored, see
 * xfmt_log_rec_restore) is a run of op headers, each followed by oh_len
 * bytes.  Ops of one transaction share a tid; a transaction is a START op,
 * the transaction header region, then per item a format region and its
 * data regions, then a COMMIT op.  A region may be split across ops and
 * records (CONTINUE on the first part, WAS_CONT on the rest, END on the
 * last); its parts are joined here.  The item a region belongs to follows
 * from the region count at bytes 2..3 of the item's first (format) region
 * (xfs-ondisk.md 10.5).
 *
 * The assembler is pure (no I/O) but allocates: it holds the open
 * transactions, bounded by XFMT_LOG_ASM_MAX_OPEN and by a byte cap, and
 * hands each committed transaction to a callback.
 */
#ifndef XFMT_LOG_TRANS_H
#define XFMT_LOG_TRANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Op header (12 bytes, big-endian). */
#define XLOG_OP_START     0x01u
#define XLOG_OP_COMMIT    0x02u
#define XLOG_OP_CONTINUE  0x04u
#define XLOG_OP_WAS_CONT  0x08u
#define XLOG_OP_END       0x10u
#define XLOG_OP_UNMOUNT   0x20u
#define XLOG_CLIENT_TRANS 0x69u

#define XLOG_TRANS_MAGIC      0x5452414Eu  /* "TRAN", writer's byte order */
#define XLOG_TRANS_HDR_SIZE   16u
#define XLOG_MAX_REGIONS      257u         /* 64 KiB / 128 / 2 + 1, as recovery allows */
#define XFMT_LOG_ASM_MAX_OPEN 1024u        /* transactions open at once */

struct xfmt_log_op {
	uint32_t tid;
	uint32_t len;
	uint8_t  clientid;
	uint8_t  flags;
};

/* Decode the op header at buf (len >= 12); -1 if it does not fit. */
int xfmt_log_op_decode(const uint8_t *buf, size_t len, struct xfmt_log_op *out);

/* Writer byte order from a record's h_fmt: true for big-endian writers
 * (2 = big-endian Linux, 3 = IRIX); 1 and anything else little-endian. */
bool xfmt_log_fmt_big(uint32_t h_fmt);

/* A u16 / u32 / u64 in the writer's byte order. */
uint16_t xfmt_log_get16(const uint8_t *p, bool big);
uint32_t xfmt_log_get32(const uint8_t *p, bool big);
uint64_t xfmt_log_get64(const uint8_t *p, bool big);

struct xfmt_log_region {
	uint8_t *data;   /* owned by the transaction */
	uint32_t len;
};

/* One logged item: its format region (regions[0]) and data regions. */
struct xfmt_log_titem {
	struct xfmt_log_region *regions;
	uint32_t nregions;  /* regions received */
	uint32_t total;     /* regions the format region announced */
	uint16_t type;      /* XFS_LI_* from the format region */
};

/* A committed transaction (a checkpoint, on current kernels). */
struct xfmt_log_trans {
	uint32_t tid;
	uint64_t lsn;          /* h_lsn of the record holding its START op */
	uint64_t commit_lsn;   /* h_lsn of the record holding its COMMIT op */
	bool     big;          /* writer byte order */
	uint8_t  header[XLOG_TRANS_HDR_SIZE];
	uint32_t header_len;   /* bytes of header received (16 when whole) */
	struct xfmt_log_titem *items;
	size_t   nitems, items_cap;
	uint64_t bytes;        /* region bytes held */
};

/* Why the assembler refused a record (0 = accepted). */
enum xfmt_log_asm_err {
	XLOG_ASM_OK = 0,
	XLOG_ASM_OP_TRUNCATED,   /* an op header or its data runs past the payload */
	XLOG_ASM_BAD_CLIENT,     /* clientid neither transaction nor log */
	XLOG_ASM_BAD_FLAGS,      /* an op flag combination recovery rejects */
	XLOG_ASM_BAD_HEADER,     /* transaction header magic or size wrong */
	XLOG_ASM_BAD_ITEM,       /* region count 0 or over XLOG_MAX_REGIONS, or too many regions */
	XLOG_ASM_TOO_MANY,       /* more than XFMT_LOG_ASM_MAX_OPEN open transactions */
	XLOG_ASM_TOO_BIG,        /* held bytes past the cap */
	XLOG_ASM_NOMEM,
	XLOG_ASM_CALLBACK,       /* the commit callback returned non-zero */
};

/* Called with each committed transaction; it stays owned by the assembler
 * and is freed after the call.  Return 0 to go on. */
typedef int (*xfmt_log_commit_fn)(void *arg, const struct xfmt_log_trans *t);

struct xfmt_log_asm {
	struct xfmt_log_trans **open;
	size_t   nopen, open_cap;
	uint64_t bytes, max_bytes;
	xfmt_log_commit_fn commit;
	void    *arg;
	uint64_t committed;       /* transactions handed to commit */
	uint64_t ops;             /* op headers read */
	int      cb_rc;           /* what the callback returned when it stopped us */
};

/* Set up an assembler; max_bytes bounds the region bytes held in open
 * transactions. */
void xfmt_log_asm_init(struct xfmt_log_asm *a, uint64_t max_bytes, xfmt_log_commit_fn commit,
		       void *arg);

/* Free every open transaction. */
void xfmt_log_asm_release(struct xfmt_log_asm *a);

/*
 * Feed one record's restored payload (len bytes, num_logops op headers,
 * record LSN lsn, writer order big).  Committed transactions go to the
 * callback in commit order.  Returns XLOG_ASM_OK or the reason the record
 * was refused; *bad_off (may be NULL) gets the payload offset of the
 * offending op.  After a refusal the assembler keeps the transactions that
 * were open before this record's damaged op.
 */
enum xfmt_log_asm_err xfmt_log_asm_record(struct xfmt_log_asm *a, const uint8_t *payload,
					  size_t len, uint32_t num_logops, uint64_t lsn, bool big,
					  size_t *bad_off);

/* Free one transaction (the assembler's; exposed for tests). */
void xfmt_log_trans_free(struct xfmt_log_trans **t);

/* Text for an assembler error. */
const char *xfmt_log_asm_strerror(enum xfmt_log_asm_err e);

#endif /* XFMT_LOG_TRANS_H */
