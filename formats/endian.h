/*
 * endian.h - unaligned-safe readers and writers for on-disk integers.
 *
 * XFS metadata is big-endian except the CRC fields (little-endian).  Never cast
 * a struct over disk bytes: every field is read through these helpers from an
 * explicit offset, so alignment and host byte order never matter.
 */
#ifndef XFMT_ENDIAN_H
#define XFMT_ENDIAN_H

#include <stdint.h>

static inline uint16_t xfmt_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t xfmt_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t xfmt_get_be64(const uint8_t *p)
{
	return (uint64_t)xfmt_get_be32(p) << 32 | xfmt_get_be32(p + 4);
}

static inline uint32_t xfmt_get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

static inline uint16_t xfmt_get_le16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[1] << 8 | p[0]);
}

static inline uint64_t xfmt_get_le64(const uint8_t *p)
{
	return (uint64_t)xfmt_get_le32(p + 4) << 32 | xfmt_get_le32(p);
}

static inline void xfmt_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void xfmt_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void xfmt_put_be64(uint8_t *p, uint64_t v)
{
	xfmt_put_be32(p, (uint32_t)(v >> 32));
	xfmt_put_be32(p + 4, (uint32_t)v);
}

static inline void xfmt_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Read an unsigned big-endian integer of 1, 2, 4 or 8 bytes. */
static inline uint64_t xfmt_get_be(const uint8_t *p, unsigned width)
{
	switch (width) {
	case 1: return p[0];
	case 2: return xfmt_get_be16(p);
	case 4: return xfmt_get_be32(p);
	case 8: return xfmt_get_be64(p);
	default: return 0;
	}
}

#endif /* XFMT_ENDIAN_H */
