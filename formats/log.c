/*
 * log.c - log record headers and cycle numbers.
 */
#include "formats/log.h"

#include <string.h>

#include "formats/endian.h"

#define OFF_MAGICNO     0
#define OFF_CYCLE       4
#define OFF_VERSION     8
#define OFF_LEN         12
#define OFF_LSN         16
#define OFF_TAIL_LSN    24
#define OFF_CRC         32
#define OFF_PREV_BLOCK  36
#define OFF_NUM_LOGOPS  40
#define OFF_CYCLE_DATA  44
#define OFF_FMT         300
#define OFF_FS_UUID     304
#define OFF_SIZE        320

_Static_assert(OFF_SIZE + 4 + 4 == XLOG_HEADER_SIZE, "log record header is 328 bytes");

int xfmt_log_rec_decode(const uint8_t *buf, size_t len, struct xfmt_log_rec *out)
{
	if (len < 512)
		return -1;
	memset(out, 0, sizeof(*out));
	out->magicno = xfmt_get_be32(buf + OFF_MAGICNO);
	out->cycle = xfmt_get_be32(buf + OFF_CYCLE);
	out->version = xfmt_get_be32(buf + OFF_VERSION);
	out->len = xfmt_get_be32(buf + OFF_LEN);
	out->lsn = xfmt_get_be64(buf + OFF_LSN);
	out->tail_lsn = xfmt_get_be64(buf + OFF_TAIL_LSN);
	out->crc = xfmt_get_le32(buf + OFF_CRC);
	out->prev_block = xfmt_get_be32(buf + OFF_PREV_BLOCK);
	out->num_logops = xfmt_get_be32(buf + OFF_NUM_LOGOPS);
	out->fmt = xfmt_get_be32(buf + OFF_FMT);
	memcpy(out->fs_uuid, buf + OFF_FS_UUID, 16);
	out->size = xfmt_get_be32(buf + OFF_SIZE);
	return 0;
}

uint32_t xfmt_log_block_cycle(const uint8_t *bb)
{
	if (xfmt_get_be32(bb) == XLOG_HEADER_MAGIC)
		return xfmt_get_be32(bb + OFF_CYCLE);
	return xfmt_get_be32(bb);
}

uint32_t xfmt_log_rec_hdr_blocks(const struct xfmt_log_rec *r)
{
	uint32_t n;

	if (r->version != 2 || r->size <= XLOG_HEADER_CYCLE_SIZE)
		return 1;
	if (r->size > XLOG_MAX_RECORD_BYTES)
		return XLOG_MAX_RECORD_BYTES / XLOG_HEADER_CYCLE_SIZE;
	n = r->size / XLOG_HEADER_CYCLE_SIZE;
	if (r->size % XLOG_HEADER_CYCLE_SIZE)
		n++;
	return n;
}

bool xfmt_log_payload_is_unmount(const uint8_t *hdr_sector, const uint8_t *payload)
{
	uint8_t op[XLOG_OP_HEADER_SIZE];

	/* The first word of every payload sector was replaced by the cycle
	 * stamp; the original is the first entry of h_cycle_data. */
	memcpy(op, payload, sizeof(op));
	memcpy(op, hdr_sector + OFF_CYCLE_DATA, 4);
	return op[8] == XLOG_CLIENT_LOG && (op[9] & XLOG_UNMOUNT_TRANS);
}

const struct xfmt_field xfmt_log_rec_fields[] = {
	{ "magicno",    OFF_MAGICNO,    4, XFK_HEX,  0, "0xFEEDBABE: a log record header" },
	{ "cycle",      OFF_CYCLE,      4, XFK_UINT, 0, "pass over the circular log that wrote this record" },
	{ "version",    OFF_VERSION,    4, XFK_UINT, 0, "log record version (2 = v2 log)" },
	{ "len",        OFF_LEN,        4, XFK_UINT, 0, "payload bytes after the header sectors" },
	{ "lsn",        OFF_LSN,        8, XFK_LSN,  0, "this record's log sequence number (cycle, block)" },
	{ "tail_lsn",   OFF_TAIL_LSN,   8, XFK_LSN,  0, "oldest record still needed by recovery" },
	{ "crc",        OFF_CRC,        4, XFK_CRC,  0, "CRC32c of header and payload" },
	{ "prev_block", OFF_PREV_BLOCK, 4, XFK_UINT, 0, "log block of the previous record header" },
	{ "num_logops", OFF_NUM_LOGOPS, 4, XFK_UINT, 0, "operation headers in the payload" },
	{ "fmt",        OFF_FMT,        4, XFK_UINT, 0, "byte order of the writer (1 = little-endian Linux)" },
	{ "fs_uuid",    OFF_FS_UUID,   16, XFK_UUID, 0, "the filesystem's uuid" },
	{ "size",       OFF_SIZE,       4, XFK_UINT, 0, "in-core log buffer size" },
	XFMT_FIELD_END
};
