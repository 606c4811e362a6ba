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
