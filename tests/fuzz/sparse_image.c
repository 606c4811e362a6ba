/*
 * sparse_image.c - reader of the compact image container (sparse_image.h).
 */
#include "tests/fuzz/sparse_image.h"

#include <string.h>

#include "formats/endian.h"

int fzi_parse(const uint8_t *in, size_t len, uint64_t *size, fzi_emit_fn emit, void *arg)
{
	size_t pos = FZI_HDR_LEN;
	uint64_t kib;

	if (len < FZI_HDR_LEN || memcmp(in, FZI_MAGIC, 4) != 0) {
		*size = len;
		return len ? emit(arg, 0, in, 0, len) : 0;
	}
	kib = xfmt_get_be32(in + 4);
	if (kib > FZI_MAX_KIB)
		kib = FZI_MAX_KIB;
	*size = kib << 10;
	while (len - pos >= FZI_REC_LEN) {
		uint64_t off = (uint64_t)xfmt_get_be32(in + pos) * 512u + xfmt_get_be16(in + pos + 4);
		uint16_t word = xfmt_get_be16(in + pos + 6);
		const uint8_t *src = NULL;
		uint8_t fill = 0;
		size_t n;
		int rc;

		pos += FZI_REC_LEN;
		if (word & FZI_FILL_BIT) {
			if (pos >= len)
				break;
			fill = in[pos++];
			n = word & ~FZI_FILL_BIT;
		} else {
			src = in + pos;
			n = word;
			if (n > len - pos)
				n = len - pos;
			pos += n;
		}
		if (off >= *size || n == 0)
			continue;
		if (n > *size - off)
			n = (size_t)(*size - off);
		rc = emit(arg, off, src, fill, n);
		if (rc)
			return rc;
	}
	return 0;
}
