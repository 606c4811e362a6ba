/*
 * zstd_seek.c - the seek table of the zstd seekable format, parsed and
 * validated from bytes, lookup of the frame holding an offset, XXH64 for the
 * per-frame checksums, and the size parser for XFSRECON_ZSTD_MAX_MEM.
 *
 * Nothing here does I/O: image_zstd.c reads the bytes and hands them over.
 */
#include "analyzer/io/zstd_seek.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "formats/endian.h"

/* Footer layout, relative to the start of the 9-byte footer. */
#define FOOT_NFRAMES  0u
#define FOOT_DESC     4u
#define FOOT_MAGIC    5u
/* Skippable frame header. */
#define SKIP_MAGIC    0u
#define SKIP_SIZE     4u

static unsigned entry_size(uint8_t desc)
{
	return (desc & XZST_DESC_CHECKSUM) ? 12u : 8u;
}

int xzst_seek_footer(const uint8_t footer[XZST_FOOTER_SIZE], uint64_t *table_size)
{
	uint32_t n;

	if (xfmt_get_le32(footer + FOOT_MAGIC) != XZST_SEEKABLE_MAGIC)
		return 0;
	n = xfmt_get_le32(footer + FOOT_NFRAMES);
	*table_size = XZST_SKIP_HEADER_SIZE + (uint64_t)n * entry_size(footer[FOOT_DESC]) +
		      XZST_FOOTER_SIZE;
	return 1;
}

void xzst_seek_release(struct xzst_seek_table *t)
{
	free(t->coff);
	free(t->doff);
	free(t->checksum);
	memset(t, 0, sizeof(*t));
}

int xzst_seek_parse(const uint8_t *tab, size_t tab_len, uint64_t file_size,
		    struct xzst_seek_table *t, char *why, size_t whylen)
{
	const uint8_t *foot;
	uint64_t want_len, data_size, csum = 0, dsum = 0;
	uint32_t n, max_dsize = 0;
	unsigned esz;
	uint8_t desc;

	memset(t, 0, sizeof(*t));
	if (tab_len < XZST_SKIP_HEADER_SIZE + XZST_FOOTER_SIZE || tab_len > file_size) {
		snprintf(why, whylen, "seek table of %zu bytes does not fit", tab_len);
		return XERR_FORMAT;
	}
	foot = tab + tab_len - XZST_FOOTER_SIZE;
	if (xfmt_get_le32(foot + FOOT_MAGIC) != XZST_SEEKABLE_MAGIC) {
		snprintf(why, whylen, "seek table footer magic missing");
		return XERR_FORMAT;
	}
	desc = foot[FOOT_DESC];
	if (desc & XZST_DESC_RESERVED) {
		snprintf(why, whylen, "seek table descriptor 0x%02x has reserved bits set "
			 "(a newer seekable format?)", desc);
		return XERR_UNSUPPORTED;
	}
	n = xfmt_get_le32(foot + FOOT_NFRAMES);
	esz = entry_size(desc);
	want_len = XZST_SKIP_HEADER_SIZE + (uint64_t)n * esz + XZST_FOOTER_SIZE;
	if (want_len != tab_len) {
		snprintf(why, whylen, "seek table of %u frames needs %llu bytes, have %zu",
			 (unsigned)n, (unsigned long long)want_len, tab_len);
		return XERR_FORMAT;
	}
	if (xfmt_get_le32(tab + SKIP_MAGIC) != XZST_SKIPPABLE_SEEK_MAGIC) {
		snprintf(why, whylen, "seek table does not start with skippable magic 0x%08X",
			 XZST_SKIPPABLE_SEEK_MAGIC);
		return XERR_FORMAT;
	}
	if (xfmt_get_le32(tab + SKIP_SIZE) != tab_len - XZST_SKIP_HEADER_SIZE) {
		snprintf(why, whylen, "seek table frame size %u disagrees with its %u entries",
			 (unsigned)xfmt_get_le32(tab + SKIP_SIZE), (unsigned)n);
		return XERR_FORMAT;
	}
	data_size = file_size - tab_len;
	/* Bound the count before allocating for it. */
	if (n > XZST_MAX_FRAMES || (uint64_t)n * XZST_MIN_FRAME_CSIZE > data_size) {
		snprintf(why, whylen, "seek table claims %u frames in %llu compressed bytes",
			 (unsigned)n, (unsigned long long)data_size);
		return XERR_FORMAT;
	}

	t->coff = malloc(((size_t)n + 1) * sizeof(*t->coff));
	t->doff = malloc(((size_t)n + 1) * sizeof(*t->doff));
	t->checksum = esz == 12 && n ? malloc((size_t)n * sizeof(*t->checksum)) : NULL;
	if (!t->coff || !t->doff || (esz == 12 && n && !t->checksum)) {
		xzst_seek_release(t);
		snprintf(why, whylen, "out of memory for a seek table of %u frames", (unsigned)n);
		return XERR_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = tab + XZST_SKIP_HEADER_SIZE + (size_t)i * esz;
		uint32_t cs = xfmt_get_le32(e), ds = xfmt_get_le32(e + 4);

		if (cs < XZST_MIN_FRAME_CSIZE) {
			snprintf(why, whylen, "seek table entry %u: compressed size %u is too small",
				 (unsigned)i, (unsigned)cs);
			goto bad;
		}
		if (ds > XZST_MAX_FRAME_DSIZE) {
			snprintf(why, whylen, "seek table entry %u: decompressed size %u exceeds %u",
				 (unsigned)i, (unsigned)ds, XZST_MAX_FRAME_DSIZE);
			goto bad;
		}
		if ((uint64_t)ds > (uint64_t)cs * XZST_MAX_RATIO) {
			snprintf(why, whylen, "seek table entry %u: %u decompressed bytes cannot come "
				 "from %u compressed bytes (zstd yields at most %u per byte)",
				 (unsigned)i, (unsigned)ds, (unsigned)cs, XZST_MAX_RATIO);
			goto bad;
		}
		t->coff[i] = csum;
		t->doff[i] = dsum;
		/* n <= 2^27 entries of < 2^32 each: the sums cannot overflow. */
		csum += cs;
		dsum += ds;
		if (csum > data_size) {
			snprintf(why, whylen, "seek table entry %u: frames reach past the seek table",
				 (unsigned)i);
			goto bad;
		}
		if (ds > max_dsize)
			max_dsize = ds;
		if (t->checksum)
			t->checksum[i] = xfmt_get_le32(e + 8);
	}
	if (csum != data_size) {
		snprintf(why, whylen, "seek table frames cover %llu compressed bytes, the file has %llu",
			 (unsigned long long)csum, (unsigned long long)data_size);
		goto bad;
	}
	t->coff[n] = csum;
	t->doff[n] = dsum;
	t->nframes = n;
	t->has_checksums = esz == 12;
	t->data_size = data_size;
	t->content_size = dsum;
	t->max_dsize = max_dsize;
	return 0;
bad:
	xzst_seek_release(t);
	return XERR_FORMAT;
}

uint32_t xzst_seek_find(const struct xzst_seek_table *t, uint64_t off)
{
	/* First j in [1, n] with doff[j] > off; then frame j - 1 holds off. */
	uint32_t lo = 1, hi = t->nframes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->doff[mid] > off)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/* ---- XXH64 ---- */

#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	acc += lane * P64_2;
	acc = rotl64(acc, 31);
	return acc * P64_1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	acc ^= xxh_round(0, v);
	return acc * P64_1 + P64_4;
}

uint64_t xzst_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data, *end = p + len;
	uint64_t acc;

	if (len >= 32) {
		uint64_t v1 = seed + P64_1 + P64_2, v2 = seed + P64_2;
		uint64_t v3 = seed, v4 = seed - P64_1;

		do {
			v1 = xxh_round(v1, xfmt_get_le64(p));
			v2 = xxh_round(v2, xfmt_get_le64(p + 8));
			v3 = xxh_round(v3, xfmt_get_le64(p + 16));
			v4 = xxh_round(v4, xfmt_get_le64(p + 24));
			p += 32;
		} while (end - p >= 32);
		acc = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		acc = xxh_merge(acc, v1);
		acc = xxh_merge(acc, v2);
		acc = xxh_merge(acc, v3);
		acc = xxh_merge(acc, v4);
	} else {
		acc = seed + P64_5;
	}
	acc += (uint64_t)len;
	while (end - p >= 8) {
		acc ^= xxh_round(0, xfmt_get_le64(p));
		acc = rotl64(acc, 27) * P64_1 + P64_4;
		p += 8;
	}
	if (end - p >= 4) {
		acc ^= (uint64_t)xfmt_get_le32(p) * P64_1;
		acc = rotl64(acc, 23) * P64_2 + P64_3;
		p += 4;
	}
	while (p < end) {
		acc ^= (uint64_t)*p * P64_5;
		acc = rotl64(acc, 11) * P64_1;
		p++;
	}
	acc ^= acc >> 33;
	acc *= P64_2;
	acc ^= acc >> 29;
	acc *= P64_3;
	acc ^= acc >> 32;
	return acc;
}

int xzst_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}
