/*
 * log.h - the on-disk log (journal): record headers and cycle stamps.
 *
 * Enough to find the head and the last record and to tell a cleanly
 * unmounted log from a dirty one (xfs-ondisk.md 10.2-10.3), and to write the
 * records of a clean, empty log (a header and one unmount op, the form
 * mkfs and xfs_repair -L leave).  Replay comes later and will live beside
 * this.
 */
#ifndef XFMT_LOG_H
#define XFMT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"

#define XLOG_HEADER_MAGIC      0xFEEDBABEu
#define XLOG_HEADER_SIZE       328u   /* bytes covered by the header CRC */
#define XLOG_HEADER_CYCLE_SIZE 32768u /* payload bytes per header sector */
#define XLOG_UNMOUNT_TRANS     0x20u
#define XLOG_CLIENT_LOG        0xAAu
#define XLOG_OP_HEADER_SIZE    12u
#define XLOG_MAX_RECORD_BYTES  (256u * 1024u)
#define XLOG_EXT_HEADER_SIZE   260u   /* xh_cycle + xh_cycle_data[64], CRC-covered */
#define XLOG_UNMOUNT_TYPE      0x556Eu
#define XLOG_UNMOUNT_TID       0xB0C0D0D0u /* the tid userspace tools write */
#define XLOG_FMT_LINUX_LE      1u
#define XLOG_CRC_OFF           32u
#define XLOG_NULL_BLOCK        0xFFFFFFFFu /* h_prev_block of a lone record */

struct xfmt_log_rec {
	uint32_t magicno;
	uint32_t cycle;
	uint32_t version;
	uint32_t len;          /* payload bytes */
	uint64_t lsn;
	uint64_t tail_lsn;
	uint32_t crc;          /* as stored (little-endian value) */
	uint32_t prev_block;
	uint32_t num_logops;
	uint32_t fmt;
	uint8_t  fs_uuid[16];
	uint32_t size;         /* in-core log buffer size */
};

/* Decode a record header from one 512-byte sector; -1 if len < 512. */
int xfmt_log_rec_decode(const uint8_t *buf, size_t len, struct xfmt_log_rec *out);

/*
 * The cycle number of a 512-byte log block: the word after the magic for a
 * record header, else the cycle stamp in its first word.
 */
uint32_t xfmt_log_block_cycle(const uint8_t *bb);

/* Number of header sectors a record uses (1 for h_size <= 32 KiB, v2 logs). */
uint32_t xfmt_log_rec_hdr_blocks(const struct xfmt_log_rec *r);

/*
 * Does the payload's first op header say "unmount"?  payload is the first
 * 512-byte payload sector as stored, rec the record it belongs to (its
 * h_cycle_data restores the stamped first word).
 */
bool xfmt_log_payload_is_unmount(const uint8_t *hdr_sector, const uint8_t *payload);

/*
 * Encode the fields of r into a record header sector (len >= 512): the
 * sector is zeroed, so h_cycle_data is all zero and the caller fills the
 * entries it needs; r->crc is stored as given.  Returns 0 or -1.  Inverse
 * of xfmt_log_rec_decode.
 */
int xfmt_log_rec_encode(const struct xfmt_log_rec *r, uint8_t *buf, size_t len);

/*
 * The CRC of a whole record as stored (header sectors then payload; rec
 * holds len bytes): the first XLOG_HEADER_SIZE header bytes with h_crc as
 * zero, the extended headers the payload length needs, then h_len payload
 * bytes (xfs-ondisk.md 10.4).  Returns 0 into *crc, or -1 if the header's
 * h_len, h_size or version do not fit in len.
 */
int xfmt_log_rec_crc(const uint8_t *rec, size_t len, uint32_t *crc);

/* What one unmount record written by xfmt_log_unmount_rec_encode holds. */
struct xfmt_log_unmount_args {
	uint32_t cycle;        /* cycle of the record (>= 1) */
	uint32_t block;        /* its BB offset in the log: h_lsn's block half */
	uint64_t tail_lsn;
	uint32_t version;      /* 1, or 2 for a v2 log */
	uint32_t sunit;        /* v2: the log stripe unit in bytes (0 or 1 = none),
	                          which is also the record's size; ignored for v1 */
	uint8_t  fs_uuid[16];  /* sb_uuid */
};

/*
 * Bytes of the record xfmt_log_unmount_rec_encode writes for version and
 * sunit: the stripe unit, at least two sectors (header and payload).  0 if
 * the stripe unit is not a multiple of 512 or exceeds the largest record
 * (XLOG_MAX_RECORD_BYTES).
 */
uint32_t xfmt_log_unmount_rec_size(uint32_t version, uint32_t sunit);

/*
 * Write one complete unmount record into buf (len must equal
 * xfmt_log_unmount_rec_size): the header (h_size = max(sunit, 32 KiB), the
 * extended headers a record over 32 KiB needs, num_logops 1, prev_block
 * none, fmt little-endian Linux), the unmount op (tid XLOG_UNMOUNT_TID,
 * client XLOG_CLIENT_LOG, flag XLOG_UNMOUNT_TRANS, 8 bytes of
 * XLOG_UNMOUNT_TYPE) in the first payload sector, the rest zero; every
 * payload sector stamped with the cycle (its first word saved in the
 * header), and the record CRC.  Returns 0 or -1 (bad arguments).
 */
int xfmt_log_unmount_rec_encode(const struct xfmt_log_unmount_args *a, uint8_t *buf,
				size_t len);

/* Why a record header cannot start a record (0 = it can). */
enum xfmt_log_rec_bad {
	XLOG_REC_OK = 0,
	XLOG_REC_BAD_MAGIC,
	XLOG_REC_BAD_VERSION,   /* not 1 or 2 */
	XLOG_REC_BAD_LEN,       /* h_len 0, or more than its header sectors can describe */
	XLOG_REC_BAD_SIZE,      /* v2 h_size over the largest record */
};

/*
 * Is r usable as a record header (magic, version, payload length within
 * what its header sectors restore, h_size bounded)?  The kernel's
 * xlog_valid_rec_header makes the same checks before reading a payload.
 */
enum xfmt_log_rec_bad xfmt_log_rec_check(const struct xfmt_log_rec *r);

/* 512-byte blocks the whole record takes: header sectors plus payload. */
uint64_t xfmt_log_rec_total_blocks(const struct xfmt_log_rec *r);

/*
 * Undo the cycle stamps of a whole record (rec: header sectors then the
 * payload, len bytes, laid out contiguously): the first word of every
 * payload sector is put back from h_cycle_data or the extended headers.
 * Returns 0, or -1 if the record does not fit in len or needs extended
 * headers it does not have.
 */
int xfmt_log_rec_restore(uint8_t *rec, size_t len);

extern const struct xfmt_field xfmt_log_rec_fields[];

#endif /* XFMT_LOG_H */
