/*
 * dahash.c - directory and attribute name hashes (xfs-ondisk.md 7.8).
 * All arithmetic is on uint32_t, so shifts of bytes >= 0x80 wrap exactly as
 * the on-disk hashes expect.
 */
#include "formats/dahash.h"

static uint32_t rol32(uint32_t x, unsigned n)
{
	/* Callers pass n in 1..31, so neither shift is undefined. */
	return (x << n) | (x >> (32u - n));
}

uint32_t xfmt_da_hashname(const uint8_t *name, size_t len)
{
	uint32_t h = 0;

	while (len >= 4) {
		h = ((uint32_t)name[0] << 21) ^ ((uint32_t)name[1] << 14) ^
		    ((uint32_t)name[2] << 7) ^ (uint32_t)name[3] ^ rol32(h, 7 * 4);
		name += 4;
		len -= 4;
	}
	switch (len) {
	case 3:
		return ((uint32_t)name[0] << 14) ^ ((uint32_t)name[1] << 7) ^
		       (uint32_t)name[2] ^ rol32(h, 7 * 3);
	case 2:
		return ((uint32_t)name[0] << 7) ^ (uint32_t)name[1] ^ rol32(h, 7 * 2);
	case 1:
		return (uint32_t)name[0] ^ rol32(h, 7);
	default:
		return h;
	}
}

uint8_t xfmt_ascii_ci_xfrm(uint8_t c)
{
	if ((c >= 0x41 && c <= 0x5A) ||   /* A-Z */
	    (c >= 0xC0 && c <= 0xD6) ||   /* Latin-1 capitals up to O-diaeresis */
	    (c >= 0xD8 && c <= 0xDE))     /* O-stroke to Thorn; 0xD7 is the multiplication sign */
		return (uint8_t)(c + 0x20);
	return c;
}

uint32_t xfmt_ascii_ci_hashname(const uint8_t *name, size_t len)
{
	uint32_t h = 0;

	for (size_t i = 0; i < len; i++)
		h = (uint32_t)xfmt_ascii_ci_xfrm(name[i]) ^ rol32(h, 7);
	return h;
}

bool xfmt_dir_is_ci(const struct xfmt_geom *g)
{
	return (g->versionnum & XFS_SB_VERSION_BORGBIT) != 0;
}

uint32_t xfmt_dir2_hashname(const struct xfmt_geom *g, const uint8_t *name, size_t len)
{
	return xfmt_dir_is_ci(g) ? xfmt_ascii_ci_hashname(name, len)
				 : xfmt_da_hashname(name, len);
}
