/*
 * log.c - log record headers and cycle numbers; encoders for the records of
 * a clean, empty log.
 *
 * The unmount record follows what xfsprogs' log formatting writes (a header,
 * extended headers when the record is larger than 32 KiB, one unmount op,
 * zero padding up to the stripe unit), with one difference: we also store
 * the record CRC, which recovery checks when it is not zero.
 */
#include "formats/log.h"

#include <string.h>

#include "formats/crc32c.h"
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

#define XLOG_BB              512u
#define OFF_XH_CYCLE         0      /* extended header: xh_cycle */
#define OFF_OP_TID           0      /* op header: be32 oh_tid */
#define OFF_OP_LEN           4      /* be32 oh_len */
#define OFF_OP_CLIENT        8      /* u8 oh_clientid */
#define OFF_OP_FLAGS         9      /* u8 oh_flags */
#define UNMOUNT_DATA_LEN     8u     /* u16 magic, u16 pad, u32 pad */

_Static_assert(OFF_SIZE + 4 + 4 == XLOG_HEADER_SIZE, "log record header is 328 bytes");
_Static_assert(OFF_CRC == XLOG_CRC_OFF, "h_crc offset");
_Static_assert(OFF_CYCLE_DATA + 64 * 4 == OFF_FMT, "h_cycle_data holds 64 words");
_Static_assert(4 + 64 * 4 == XLOG_EXT_HEADER_SIZE, "extended header is 260 bytes");

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

int xfmt_log_rec_encode(const struct xfmt_log_rec *r, uint8_t *buf, size_t len)
{
	if (len < XLOG_BB)
		return -1;
	memset(buf, 0, XLOG_BB);
	xfmt_put_be32(buf + OFF_MAGICNO, r->magicno);
	xfmt_put_be32(buf + OFF_CYCLE, r->cycle);
	xfmt_put_be32(buf + OFF_VERSION, r->version);
	xfmt_put_be32(buf + OFF_LEN, r->len);
	xfmt_put_be64(buf + OFF_LSN, r->lsn);
	xfmt_put_be64(buf + OFF_TAIL_LSN, r->tail_lsn);
	xfmt_put_le32(buf + OFF_CRC, r->crc);
	xfmt_put_be32(buf + OFF_PREV_BLOCK, r->prev_block);
	xfmt_put_be32(buf + OFF_NUM_LOGOPS, r->num_logops);
	xfmt_put_be32(buf + OFF_FMT, r->fmt);
	memcpy(buf + OFF_FS_UUID, r->fs_uuid, 16);
	xfmt_put_be32(buf + OFF_SIZE, r->size);
	return 0;
}

int xfmt_log_rec_crc(const uint8_t *rec, size_t len, uint32_t *crc)
{
	static const uint8_t zero[4];
	struct xfmt_log_rec r;
	uint32_t hblks, xheads, reg;
	uint64_t payload;

	if (xfmt_log_rec_decode(rec, len, &r) != 0)
		return -1;
	hblks = xfmt_log_rec_hdr_blocks(&r);
	payload = (uint64_t)hblks * XLOG_BB;
	if (payload > len || r.len > len - payload)
		return -1;
	/* Extended headers counted from h_len, as the kernel does: unused
	 * trailing ones are not covered. */
	xheads = r.version == 2 ? (r.len + XLOG_HEADER_CYCLE_SIZE - 1) / XLOG_HEADER_CYCLE_SIZE : 1;
	if (xheads > hblks)
		return -1;
	reg = xfmt_crc32c_raw(0xFFFFFFFFu, rec, OFF_CRC);
	reg = xfmt_crc32c_raw(reg, zero, sizeof(zero));
	reg = xfmt_crc32c_raw(reg, rec + OFF_CRC + 4, XLOG_HEADER_SIZE - OFF_CRC - 4);
	for (uint32_t i = 1; i < xheads; i++)
		reg = xfmt_crc32c_raw(reg, rec + (size_t)i * XLOG_BB, XLOG_EXT_HEADER_SIZE);
	reg = xfmt_crc32c_raw(reg, rec + payload, r.len);
	*crc = ~reg;
	return 0;
}

enum xfmt_log_rec_bad xfmt_log_rec_check(const struct xfmt_log_rec *r)
{
	uint32_t hblks;

	if (r->magicno != XLOG_HEADER_MAGIC)
		return XLOG_REC_BAD_MAGIC;
	if (r->version != 1 && r->version != 2)
		return XLOG_REC_BAD_VERSION;
	if (r->version == 2 && r->size > XLOG_MAX_RECORD_BYTES)
		return XLOG_REC_BAD_SIZE;
	hblks = xfmt_log_rec_hdr_blocks(r);
	/* Each header sector restores the first words of 64 payload
	 * sectors: a longer payload could not be read back. */
	if (r->len == 0 || r->len > XLOG_MAX_RECORD_BYTES ||
	    r->len > (uint64_t)hblks * XLOG_HEADER_CYCLE_SIZE)
		return XLOG_REC_BAD_LEN;
	return XLOG_REC_OK;
}

uint64_t xfmt_log_rec_total_blocks(const struct xfmt_log_rec *r)
{
	return xfmt_log_rec_hdr_blocks(r) + ((uint64_t)r->len + XLOG_BB - 1) / XLOG_BB;
}

int xfmt_log_rec_restore(uint8_t *rec, size_t len)
{
	struct xfmt_log_rec r;
	uint32_t hblks, nsect;

	if (xfmt_log_rec_decode(rec, len, &r) != 0 || xfmt_log_rec_check(&r) != XLOG_REC_OK)
		return -1;
	hblks = xfmt_log_rec_hdr_blocks(&r);
	nsect = (r.len + XLOG_BB - 1) / XLOG_BB;
	if ((uint64_t)(hblks + nsect) * XLOG_BB > len)
		return -1;
	for (uint32_t i = 0; i < nsect; i++) {
		uint32_t j = i / 64, k = i % 64;
		const uint8_t *src;

		if (j >= hblks)
			return -1;
		src = j == 0 ? rec + OFF_CYCLE_DATA + 4 * k
			     : rec + (size_t)j * XLOG_BB + 4 + 4 * k;
		memcpy(rec + (size_t)(hblks + i) * XLOG_BB, src, 4);
	}
	return 0;
}

uint32_t xfmt_log_unmount_rec_size(uint32_t version, uint32_t sunit)
{
	if (version != 2 || sunit <= 1)
		return 2 * XLOG_BB;
	if (sunit % XLOG_BB || sunit > XLOG_MAX_RECORD_BYTES)
		return 0;
	return sunit > 2 * XLOG_BB ? sunit : 2 * XLOG_BB;
}

int xfmt_log_unmount_rec_encode(const struct xfmt_log_unmount_args *a, uint8_t *buf,
				size_t len)
{
	struct xfmt_log_rec r;
	uint32_t size = xfmt_log_unmount_rec_size(a->version, a->sunit);
	uint32_t sunit = a->version == 2 && a->sunit > 1 ? a->sunit : 0;
	uint32_t hdrs = 1, crc;
	uint8_t *op;

	if (!size || len != size || a->cycle == 0 || (a->version != 1 && a->version != 2))
		return -1;
	if (sunit > XLOG_HEADER_CYCLE_SIZE)
		hdrs = (sunit + XLOG_HEADER_CYCLE_SIZE - 1) / XLOG_HEADER_CYCLE_SIZE;
	memset(buf, 0, len);

	memset(&r, 0, sizeof(r));
	r.magicno = XLOG_HEADER_MAGIC;
	r.cycle = a->cycle;
	r.version = a->version;
	r.len = size - hdrs * XLOG_BB;
	r.lsn = ((uint64_t)a->cycle << 32) | a->block;
	r.tail_lsn = a->tail_lsn;
	r.prev_block = XLOG_NULL_BLOCK;
	r.num_logops = 1;
	r.fmt = XLOG_FMT_LINUX_LE;
	memcpy(r.fs_uuid, a->fs_uuid, 16);
	r.size = sunit > XLOG_HEADER_CYCLE_SIZE ? sunit : XLOG_HEADER_CYCLE_SIZE;
	xfmt_log_rec_encode(&r, buf, len);

	/* Extended headers: the cycle, and no saved words (their payload
	 * sectors start with zero). */
	for (uint32_t i = 1; i < hdrs; i++)
		xfmt_put_be32(buf + (size_t)i * XLOG_BB + OFF_XH_CYCLE, a->cycle);

	/* The unmount op and its 8 bytes; the type is in the writer's byte
	 * order, which h_fmt says is little-endian. */
	op = buf + (size_t)hdrs * XLOG_BB;
	xfmt_put_be32(op + OFF_OP_TID, XLOG_UNMOUNT_TID);
	xfmt_put_be32(op + OFF_OP_LEN, UNMOUNT_DATA_LEN);
	op[OFF_OP_CLIENT] = XLOG_CLIENT_LOG;
	op[OFF_OP_FLAGS] = XLOG_UNMOUNT_TRANS;
	op[XLOG_OP_HEADER_SIZE] = XLOG_UNMOUNT_TYPE & 0xFF;
	op[XLOG_OP_HEADER_SIZE + 1] = XLOG_UNMOUNT_TYPE >> 8;

	/* Cycle stamps: save the op's first word, then stamp every payload
	 * sector (the others held zero, which their saved slots already say). */
	memcpy(buf + OFF_CYCLE_DATA, op, 4);
	for (size_t off = (size_t)hdrs * XLOG_BB; off < len; off += XLOG_BB)
		xfmt_put_be32(buf + off, a->cycle);

	if (xfmt_log_rec_crc(buf, len, &crc) != 0)
		return -1;
	xfmt_put_le32(buf + OFF_CRC, crc);
	return 0;
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
