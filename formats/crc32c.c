/*
 * crc32c.c - CRC-32C: the x86 crc32 instruction (SSE4.2) where the CPU has
 * it, else table-driven slicing by 8.  XFS checksums every metadata block it
 * reads, so this sits on the hot path of a full check (every inode of a
 * million-inode image is half a gigabyte of checksummed bytes).
 */
#include "formats/crc32c.h"

#include <string.h>

#include "formats/endian.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <nmmintrin.h>
#define CRC_HAVE_X86 1
#endif

/*
 * Coverage-guided fuzzing learns nothing inside a checksum loop, and its
 * callback on every loop comparison made checksums the largest cost of the
 * whole-image fuzz target (a repair plan checksums the whole log it clears).
 * GCC has no such sanitizer, and warns about the attribute.
 */
#if defined(__clang__)
#define CRC_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define CRC_NO_COVERAGE
#endif

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

/* Raw register update by table: no seed, no final inversion. */
CRC_NO_COVERAGE
uint32_t xfmt_crc32c_raw_portable(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table_ready)
		crc_table_build();
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
			      (uint32_t)p[7] << 24;
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

#ifdef CRC_HAVE_X86
/* The instruction computes this very polynomial, reflected, on the raw register. */
__attribute__((target("sse4.2"))) CRC_NO_COVERAGE
static uint32_t crc_update_x86(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);  /* x86 is little-endian: byte order as the table path */
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}

static int crc_x86_state = -1;  /* -1 not asked yet, 0 no SSE4.2, 1 yes */

static int crc_x86_usable(void)
{
	if (crc_x86_state < 0) {
		unsigned a, b, c, d;

		crc_x86_state = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) ? 1 : 0;
	}
	return crc_x86_state;
}
#endif

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t len)
{
#ifdef CRC_HAVE_X86
	if (crc_x86_usable())
		return crc_update_x86(crc, p, len);
#endif
	return xfmt_crc32c_raw_portable(crc, p, len);
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
