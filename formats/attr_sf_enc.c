/*
 * attr_sf_enc.c - short-form attr fork and parent pointer value encoding
 * (the layout xfs_attr_shortform_add writes: a 4-byte header of total
 * size and count, then per entry namelen, valuelen, flags, name, value).
 */
#include <string.h>

#include "formats/attr.h"
#include "formats/attr_sf_enc.h"
#include "formats/endian.h"

size_t xfmt_attr_sf_size(const struct xfmt_attr_sf_in *e, size_t n)
{
	size_t len = XFMT_ATTR_SF_HDR_LEN;

	for (size_t i = 0; i < n; i++)
		len += XFMT_ATTR_SF_ENTRY_HDR + e[i].namelen + e[i].valuelen;
	return len;
}

size_t xfmt_attr_sf_encode(const struct xfmt_attr_sf_in *e, size_t n, uint8_t *fork, size_t cap)
{
	size_t len = xfmt_attr_sf_size(e, n), pos = XFMT_ATTR_SF_HDR_LEN;

	if (n > 255 || len > cap || len > 0xFFFF)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!e[i].namelen || !e[i].name || (e[i].valuelen && !e[i].value))
			return 0;
	memset(fork, 0, cap);
	xfmt_put_be16(fork, (uint16_t)len);
	fork[2] = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		fork[pos] = e[i].namelen;
		fork[pos + 1] = e[i].valuelen;
		fork[pos + 2] = e[i].flags;
		memcpy(fork + pos + XFMT_ATTR_SF_ENTRY_HDR, e[i].name, e[i].namelen);
		if (e[i].valuelen)
			memcpy(fork + pos + XFMT_ATTR_SF_ENTRY_HDR + e[i].namelen, e[i].value,
			       e[i].valuelen);
		pos += XFMT_ATTR_SF_ENTRY_HDR + e[i].namelen + e[i].valuelen;
	}
	return len;
}

void xfmt_attr_pptr_encode(uint8_t value[12], uint64_t parent_ino, uint32_t parent_gen)
{
	xfmt_put_be64(value, parent_ino);
	xfmt_put_be32(value + 8, parent_gen);
}
