/*
 * rmt_hdr.c - decode and encode the header shared by remote attribute
 * value blocks and remote symlink blocks.
 */
#include "formats/rmt_hdr.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

_Static_assert(XFMT_RMT_LSN_OFF + 8 == XFMT_RMT_HDR_LEN, "remote header is 56 bytes");

int xfmt_rmt_hdr_decode(const uint8_t *buf, size_t len, struct xfmt_rmt_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (len < XFMT_RMT_HDR_LEN)
		return -1;
	out->magic = xfmt_get_be32(buf + XFMT_RMT_MAGIC_OFF);
	out->offset = xfmt_get_be32(buf + XFMT_RMT_OFFSET_OFF);
	out->bytes = xfmt_get_be32(buf + XFMT_RMT_BYTES_OFF);
	out->crc = xfmt_get_le32(buf + XFMT_RMT_CRC_OFF);
	memcpy(out->uuid, buf + XFMT_RMT_UUID_OFF, 16);
	out->owner = xfmt_get_be64(buf + XFMT_RMT_OWNER_OFF);
	out->blkno = xfmt_get_be64(buf + XFMT_RMT_BLKNO_OFF);
	out->lsn = xfmt_get_be64(buf + XFMT_RMT_LSN_OFF);
	return 0;
}

int xfmt_rmt_hdr_encode(uint8_t *buf, size_t len, const struct xfmt_geom *g, uint32_t magic,
			uint64_t owner, uint32_t offset, uint32_t bytes, uint64_t daddr,
			uint64_t lsn)
{
	if (len < XFMT_RMT_HDR_LEN)
		return -1;
	xfmt_put_be32(buf + XFMT_RMT_MAGIC_OFF, magic);
	xfmt_put_be32(buf + XFMT_RMT_OFFSET_OFF, offset);
	xfmt_put_be32(buf + XFMT_RMT_BYTES_OFF, bytes);
	memcpy(buf + XFMT_RMT_UUID_OFF, g->meta_uuid, 16);
	xfmt_put_be64(buf + XFMT_RMT_OWNER_OFF, owner);
	xfmt_put_be64(buf + XFMT_RMT_BLKNO_OFF, daddr);
	xfmt_put_be64(buf + XFMT_RMT_LSN_OFF, lsn);
	xfmt_crc_update(buf, len, XFMT_RMT_CRC_OFF);
	return 0;
}

void xfmt_rmt_cursor_init(struct xfmt_rmt_cursor *c, const struct xfmt_geom *g, uint64_t owner,
			  uint32_t want)
{
	memset(c, 0, sizeof(*c));
	c->owner = owner;
	c->want = want;
	c->v5 = g->v5;
}

bool xfmt_rmt_cursor_done(const struct xfmt_rmt_cursor *c)
{
	return c->have >= c->want;
}

uint32_t xfmt_rmt_cursor_next(const struct xfmt_rmt_cursor *c, uint64_t daddr, size_t space,
			      struct xfmt_rmt_expect *exp)
{
	uint32_t left = c->have < c->want ? c->want - c->have : 0;
	uint32_t take = space < left ? (uint32_t)space : left;

	exp->daddr = daddr;
	exp->owner = c->owner;
	exp->know_range = true;
	exp->offset = c->have;
	exp->bytes = take;
	return take;
}

void xfmt_rmt_cursor_advance(struct xfmt_rmt_cursor *c, uint32_t take, unsigned findings)
{
	c->have += take;
	c->blocks++;
	c->findings += findings;
}

unsigned xfmt_rmt_verify(const uint8_t *buf, size_t len, size_t block, const struct xfmt_geom *g,
			 const struct xfmt_rmt_kind *k, const struct xfmt_rmt_expect *exp,
			 const struct xprob_sink *sink)
{
	struct xfmt_rmt_hdr h;
	size_t space = block > XFMT_RMT_HDR_LEN ? block - XFMT_RMT_HDR_LEN : 0;
	size_t need = block > XFMT_RMT_HDR_LEN ? block : XFMT_RMT_HDR_LEN;
	uint32_t crc;
	unsigned n = 0;

	if (len < need || xfmt_rmt_hdr_decode(buf, len, &h) != 0)
		return (unsigned)xprob_emit_val(sink, k->unreadable, NULL, 0, need, len);
	if (h.magic != k->magic)
		n += (unsigned)xprob_emit_val(sink, k->bad_magic, k->f_magic, XFMT_RMT_MAGIC_OFF,
					      k->magic, h.magic);
	/* The CRC is its own finding: the bytes may still be right. */
	crc = xfmt_crc32c_excluding(buf, block, XFMT_RMT_CRC_OFF);
	if (crc != h.crc)
		n += (unsigned)xprob_emit_val(sink, k->bad_crc, k->f_crc, XFMT_RMT_CRC_OFF, crc,
					      h.crc);
	if (memcmp(h.uuid, g->meta_uuid, 16) != 0)
		n += (unsigned)xprob_emit(sink, k->bad_uuid, k->f_uuid, XFMT_RMT_UUID_OFF);
	if (h.blkno != exp->daddr)
		n += (unsigned)xprob_emit_val(sink, k->bad_blkno, k->f_bno, XFMT_RMT_BLKNO_OFF,
					      exp->daddr, h.blkno);
	if (h.bytes > space)
		n += (unsigned)xprob_emit_val(sink, k->bad_range, k->f_bytes, XFMT_RMT_BYTES_OFF,
					      space, h.bytes);
	/* A 64-bit sum: no wrap. */
	if ((uint64_t)h.offset + h.bytes > k->payload_max)
		n += (unsigned)xprob_emit_val(sink, k->bad_range, k->f_offset, XFMT_RMT_OFFSET_OFF,
					      k->payload_max, (uint64_t)h.offset + h.bytes);
	if (h.owner == 0 || h.owner != exp->owner)
		n += (unsigned)xprob_emit_val(sink, k->bad_owner, k->f_owner, XFMT_RMT_OWNER_OFF,
					      exp->owner, h.owner);
	if (exp->know_range && h.offset != exp->offset)
		n += (unsigned)xprob_emit_val(sink, k->mismatch, k->f_offset, XFMT_RMT_OFFSET_OFF,
					      exp->offset, h.offset);
	if (exp->know_range && h.bytes != exp->bytes)
		n += (unsigned)xprob_emit_val(sink, k->mismatch, k->f_bytes, XFMT_RMT_BYTES_OFF,
					      exp->bytes, h.bytes);
	if (k->check_lsn && h.lsn != k->lsn)
		n += (unsigned)xprob_emit_obs(sink, k->bad_lsn, k->f_lsn, XFMT_RMT_LSN_OFF, h.lsn);
	return n;
}
