/*
 * crc32c.c - table-driven CRC-32C (slicing by 8).  XFS checksums every
 * metadata block it reads, so this sits on the hot path of a full check.
 */
#include "formats/crc32c.h"

#include "formats/endian.h"

#define CRC32C_POLY_REFLECTED 0x82F63B78u

static uint32_t crc_table[8][256];
static int crc_table_ready;

static void crc_table_build(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xFF];
	crc_table_ready = 1;
}

/* Raw register update: no seed, no final inversion. */
static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t len)
{
	if (!crc_table_ready)
		crc_table_build();
	while (len >= 8) {
		uint32_t lo = crc ^ xfmt_get_le32(p);
		uint32_t hi = xfmt_get_le32(p + 4);
		crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
		      crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
		      crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

uint32_t xfmt_crc32c(const void *buf, size_t len)
{
	return ~crc_update(0xFFFFFFFFu, buf, len);
}

uint32_t xfmt_crc32c_raw(uint32_t reg, const void *buf, size_t len)
{
	return crc_update(reg, buf, len);
}

uint32_t xfmt_crc32c_excluding(const uint8_t *buf, size_t len, size_t crc_off)
{
	static const uint8_t zero[4];
	uint32_t crc;

	if (crc_off > len || len - crc_off < 4)
		return 0;
	crc = crc_update(0xFFFFFFFFu, buf, crc_off);
	crc = crc_update(crc, zero, 4);
	crc = crc_update(crc, buf + crc_off + 4, len - crc_off - 4);
	return ~crc;
}

int xfmt_crc_ok(const uint8_t *buf, size_t len, size_t crc_off)
{
	if (crc_off > len || len - crc_off < 4)
		return 0;
	return xfmt_crc32c_excluding(buf, len, crc_off) == xfmt_get_le32(buf + crc_off);
}

void xfmt_crc_update(uint8_t *buf, size_t len, size_t crc_off)
{
	if (crc_off > len || len - crc_off < 4)
		return;
	xfmt_put_le32(buf + crc_off, xfmt_crc32c_excluding(buf, len, crc_off));
}
