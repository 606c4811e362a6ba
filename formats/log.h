/*
 * log.h - the on-disk log (journal): record headers and cycle stamps.
 *
 * Enough to find the head and the last record and to tell a cleanly
 * unmounted log from a dirty one (xfs-ondisk.md 10.2-10.3).  Replay comes
 * later and will live beside this.
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

extern const struct xfmt_field xfmt_log_rec_fields[];

#endif /* XFMT_LOG_H */
