/*
 * rmt_hdr.h - the 56-byte header of a v5 "remote" block: a remote
 * attribute value block (XARM) and a remote symlink block (XSLM) share it
 * field for field (xfs-ondisk.md 8.4).  One decoder and one encoder; the
 * rules each kind applies stay in attr.c and symlink.c.
 */
#ifndef XFMT_RMT_HDR_H
#define XFMT_RMT_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"
#include "formats/problem.h"

#define XFMT_RMT_MAGIC_OFF   0u
#define XFMT_RMT_OFFSET_OFF  4u
#define XFMT_RMT_BYTES_OFF   8u
#define XFMT_RMT_CRC_OFF     12u
#define XFMT_RMT_UUID_OFF    16u
#define XFMT_RMT_OWNER_OFF   32u
#define XFMT_RMT_BLKNO_OFF   40u
#define XFMT_RMT_LSN_OFF     48u
#define XFMT_RMT_HDR_LEN     56u

/* A decoded remote block header. */
struct xfmt_rmt_hdr {
	uint32_t magic;
	uint32_t offset;   /* payload offset of this block's first byte */
	uint32_t bytes;    /* payload bytes in this block */
	uint32_t crc;      /* stored value (little-endian on disk) */
	uint8_t  uuid[16];
	uint64_t owner;    /* inode number */
	uint64_t blkno;    /* daddr of this block */
	uint64_t lsn;
};

/* Decode the header at buf; -1 (and *out zeroed) if len < 56. */
int xfmt_rmt_hdr_decode(const uint8_t *buf, size_t len, struct xfmt_rmt_hdr *out);

/*
 * Write a header anew (magic, offset, bytes, the metadata uuid of g,
 * owner, blkno = daddr, lsn) and the CRC over len bytes; the payload after
 * it is left as it is.  Returns 0, or -1 if len cannot hold the header.
 */
int xfmt_rmt_hdr_encode(uint8_t *buf, size_t len, const struct xfmt_geom *g, uint32_t magic,
			uint64_t owner, uint32_t offset, uint32_t bytes, uint64_t daddr,
			uint64_t lsn);

/* What a reader expects of one remote block's header. */
struct xfmt_rmt_expect {
	uint64_t daddr;       /* where the block was read from */
	uint64_t owner;       /* the inode */
	bool     know_range;  /* offset/bytes below hold the reader's expectation */
	uint32_t offset;      /* payload bytes before this block */
	uint32_t bytes;       /* min(payload bytes left, block space) */
};

/*
 * Where the collection of a remote payload (an attribute value, a symlink
 * target) stands: the blocks come in order, each carries the next
 * min(bytes left, its space) bytes.
 */
struct xfmt_rmt_cursor {
	uint64_t owner;     /* the inode */
	uint32_t want;      /* bytes to collect */
	uint32_t have;      /* bytes collected so far */
	bool     v5;        /* blocks carry a header */
	unsigned blocks;    /* blocks added */
	unsigned findings;  /* reported so far */
};

void xfmt_rmt_cursor_init(struct xfmt_rmt_cursor *c, const struct xfmt_geom *g, uint64_t owner,
			  uint32_t want);

/* True once want bytes are collected. */
bool xfmt_rmt_cursor_done(const struct xfmt_rmt_cursor *c);

/*
 * The next block, read from daddr, with space payload bytes: the
 * expectation its header must meet (*exp), and the bytes it carries.
 */
uint32_t xfmt_rmt_cursor_next(const struct xfmt_rmt_cursor *c, uint64_t daddr, size_t space,
			      struct xfmt_rmt_expect *exp);

/* Count a block added: take bytes, with its findings. */
void xfmt_rmt_cursor_advance(struct xfmt_rmt_cursor *c, uint32_t take, unsigned findings);

/*
 * What tells remote attribute blocks and remote symlink blocks apart: the
 * magic, how far the payload may reach, whether the LSN must be the
 * "written outside the log" value, and each rule's finding and field name.
 */
struct xfmt_rmt_kind {
	uint32_t magic;
	uint32_t payload_max;  /* offset + bytes above this is out of range */
	bool     check_lsn;
	uint64_t lsn;
	enum xprob_code unreadable, bad_magic, bad_crc, bad_uuid, bad_blkno, bad_range,
		bad_owner, mismatch, bad_lsn;
	const char *f_magic, *f_crc, *f_uuid, *f_bno, *f_bytes, *f_offset, *f_owner, *f_lsn;
};

/*
 * Verify a v5 remote block whose header covers block bytes of buf (len
 * must hold them): unreadable if it does not (or block is under a
 * header); then magic, CRC over block bytes, uuid, blkno against
 * exp->daddr, bytes against the block's space, offset + bytes against
 * payload_max, owner, and with exp->know_range offset and bytes against
 * the expectation; the LSN where the kind asks.  Each its own finding, in
 * that order.  Returns the findings count.
 */
unsigned xfmt_rmt_verify(const uint8_t *buf, size_t len, size_t block, const struct xfmt_geom *g,
			 const struct xfmt_rmt_kind *k, const struct xfmt_rmt_expect *exp,
			 const struct xprob_sink *sink);

#endif /* XFMT_RMT_HDR_H */
