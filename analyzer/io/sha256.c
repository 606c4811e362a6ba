/*
 * sha256.c - SHA-256 as specified by FIPS 180-4, section 6.2, and the digest
 * of a whole image read through the image vtable.
 */
#include "analyzer/io/sha256.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define XSHA_HAVE_NI 1
#endif

#include "analyzer/errors.h"
#include "analyzer/io/badmap.h"
#include "analyzer/io/image.h"
#include "formats/endian.h"

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* Process one 64-byte block (FIPS 180-4 6.2.2). */
static void compress_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;

	for (int t = 0; t < 16; t++)
		w[t] = xfmt_get_be32(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K[t] + w[t];
		uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;

		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

#ifdef XSHA_HAVE_NI
/* Load a state {a..h} into the {a,b,e,f} / {c,d,g,h} register pair (the
 * order sha256rnds2 works in), and store it back. */
__attribute__((target("sha,sse4.1,ssse3")))
static inline void ni_load(const uint32_t h[8], __m128i *st0, __m128i *st1)
{
	__m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);

	*st0 = _mm_alignr_epi8(tmp, s1, 8);
	*st1 = _mm_blend_epi16(s1, tmp, 0xF0);
}

__attribute__((target("sha,sse4.1,ssse3")))
static inline void ni_store(uint32_t h[8], __m128i st0, __m128i st1)
{
	__m128i tmp = _mm_shuffle_epi32(st0, 0x1B);

	st1 = _mm_shuffle_epi32(st1, 0xB1);
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(tmp, st1, 0xF0));
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(st1, tmp, 8));
}

/*
 * The same compression with the x86 SHA extensions (SHA-NI), chosen at run
 * time where the CPU has them: hashing a whole image is the slowest step of
 * a check or repair report, and these instructions make it several times
 * faster.  The state lives in two registers as {a,b,e,f} and {c,d,g,h};
 * each group of four rounds adds K to four schedule words and runs two
 * sha256rnds2; schedule words 16..63 come from sha256msg1/msg2 and the
 * W[t-7] term (an alignr of the two previous groups).  Checked against the
 * portable code by the unit tests and against sha256sum by the io tests.
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_blocks_ni(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i st0, st1;

	ni_load(h, &st0, &st1);
	while (nblocks--) {
		__m128i save0 = st0, save1 = st1, w[4], msg;

		/* Unrolled, the four schedule registers stay registers (a
		 * quarter faster than the loop). */
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			if (i < 4) {
				w[i] = _mm_shuffle_epi8(
					_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
			} else {
				__m128i x = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);

				x = _mm_add_epi32(x, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
				w[i & 3] = _mm_sha256msg2_epu32(x, w[(i + 3) & 3]);
			}
			msg = _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)&K[4 * i]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			msg = _mm_shuffle_epi32(msg, 0x0E);
			st0 = _mm_sha256rnds2_epu32(st0, st1, msg);
		}
		st0 = _mm_add_epi32(st0, save0);
		st1 = _mm_add_epi32(st1, save1);
		p += XSHA256_BLOCK_LEN;
	}
	ni_store(h, st0, st1);
}

/*
 * Two digests of two streams at once, block for block: each round waits
 * for the one before it, so one stream leaves the SHA unit idle most of
 * the time and a second one, interleaved, nearly doubles what a core hashes
 * (repair's output pass keeps the input's digest and OUT's).
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_blocks_ni2(uint32_t ha[8], const uint8_t *pa, uint32_t hb[8],
				const uint8_t *pb, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i a0, a1, b0, b1;

	ni_load(ha, &a0, &a1);
	ni_load(hb, &b0, &b1);
	while (nblocks--) {
		__m128i sa0 = a0, sa1 = a1, sb0 = b0, sb1 = b1, wa[4], wb[4], ma, mb;

#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			__m128i k = _mm_loadu_si128((const __m128i *)&K[4 * i]);

			if (i < 4) {
				wa[i] = _mm_shuffle_epi8(
					_mm_loadu_si128((const __m128i *)(pa + 16 * i)), bswap);
				wb[i] = _mm_shuffle_epi8(
					_mm_loadu_si128((const __m128i *)(pb + 16 * i)), bswap);
			} else {
				__m128i x = _mm_sha256msg1_epu32(wa[i & 3], wa[(i + 1) & 3]);
				__m128i y = _mm_sha256msg1_epu32(wb[i & 3], wb[(i + 1) & 3]);

				x = _mm_add_epi32(x, _mm_alignr_epi8(wa[(i + 3) & 3], wa[(i + 2) & 3], 4));
				y = _mm_add_epi32(y, _mm_alignr_epi8(wb[(i + 3) & 3], wb[(i + 2) & 3], 4));
				wa[i & 3] = _mm_sha256msg2_epu32(x, wa[(i + 3) & 3]);
				wb[i & 3] = _mm_sha256msg2_epu32(y, wb[(i + 3) & 3]);
			}
			ma = _mm_add_epi32(wa[i & 3], k);
			mb = _mm_add_epi32(wb[i & 3], k);
			a1 = _mm_sha256rnds2_epu32(a1, a0, ma);
			b1 = _mm_sha256rnds2_epu32(b1, b0, mb);
			ma = _mm_shuffle_epi32(ma, 0x0E);
			mb = _mm_shuffle_epi32(mb, 0x0E);
			a0 = _mm_sha256rnds2_epu32(a0, a1, ma);
			b0 = _mm_sha256rnds2_epu32(b0, b1, mb);
		}
		a0 = _mm_add_epi32(a0, sa0);
		a1 = _mm_add_epi32(a1, sa1);
		b0 = _mm_add_epi32(b0, sb0);
		b1 = _mm_add_epi32(b1, sb1);
		pa += XSHA256_BLOCK_LEN;
		pb += XSHA256_BLOCK_LEN;
	}
	ni_store(ha, a0, a1);
	ni_store(hb, b0, b1);
}

static bool have_ni(void)
{
	static int known = -1;

	/* cpuid itself, not __builtin_cpu_supports("sha"): clang 14 (the
	 * fuzzing build) does not know that feature name. */
	if (known < 0) {
		unsigned a, b, c, d;
		bool sse = false, sha = false;

		if (__get_cpuid(1, &a, &b, &c, &d))
			sse = (c & (1u << 19)) && (c & (1u << 9));     /* SSE4.1, SSSE3 */
		if (__get_cpuid_max(0, NULL) >= 7) {
			__cpuid_count(7, 0, a, b, c, d);
			sha = (b & (1u << 29)) != 0;                   /* SHA extensions */
		}
		known = sse && sha && getenv("XFSRECON_NO_SHA_NI") == NULL;
	}
	return known;
}
#endif

/* nblocks whole blocks from p. */
static void compress_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
#ifdef XSHA_HAVE_NI
	if (have_ni()) {
		compress_blocks_ni(h, p, nblocks);
		return;
	}
#endif
	for (size_t i = 0; i < nblocks; i++)
		compress_block(h, p + i * XSHA256_BLOCK_LEN);
}

void xsha256_init(struct xsha256 *ctx)
{
	/* FIPS 180-4 5.3.3 initial hash value. */
	static const uint32_t H0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(ctx->h, H0, sizeof(H0));
	ctx->total = 0;
	ctx->fill = 0;
}

void xsha256_update(struct xsha256 *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;

	ctx->total += len;
	if (ctx->fill) {
		size_t take = XSHA256_BLOCK_LEN - ctx->fill;

		if (take > len)
			take = len;
		memcpy(ctx->block + ctx->fill, p, take);
		ctx->fill += take;
		p += take;
		len -= take;
		if (ctx->fill < XSHA256_BLOCK_LEN)
			return;
		compress_blocks(ctx->h, ctx->block, 1);
		ctx->fill = 0;
	}
	/* Whole blocks straight from the caller's buffer, no copy. */
	if (len >= XSHA256_BLOCK_LEN) {
		size_t nb = len / XSHA256_BLOCK_LEN;

		compress_blocks(ctx->h, p, nb);
		p += nb * XSHA256_BLOCK_LEN;
		len -= nb * XSHA256_BLOCK_LEN;
	}
	if (len) {
		memcpy(ctx->block, p, len);
		ctx->fill = len;
	}
}

bool xsha256_pair_fast(void)
{
#ifdef XSHA_HAVE_NI
	return have_ni();
#else
	return false;
#endif
}

void xsha256_update2(struct xsha256 *a, const void *pa, struct xsha256 *b, const void *pb,
		     size_t len)
{
#ifdef XSHA_HAVE_NI
	/* Block-aligned streams: their whole blocks together, the rest apart. */
	if (!a->fill && !b->fill && len >= XSHA256_BLOCK_LEN && have_ni()) {
		size_t nb = len / XSHA256_BLOCK_LEN, whole = nb * XSHA256_BLOCK_LEN;

		compress_blocks_ni2(a->h, pa, b->h, pb, nb);
		a->total += whole;
		b->total += whole;
		pa = (const uint8_t *)pa + whole;
		pb = (const uint8_t *)pb + whole;
		len -= whole;
	}
#endif
	xsha256_update(a, pa, len);
	xsha256_update(b, pb, len);
}

void xsha256_final(struct xsha256 *ctx, uint8_t out[XSHA256_DIGEST_LEN])
{
	uint64_t bits = ctx->total * 8;

	/* Padding (FIPS 180-4 5.1.1): a 1 bit, zeros, then the 64-bit length. */
	ctx->block[ctx->fill++] = 0x80;
	if (ctx->fill > XSHA256_BLOCK_LEN - 8) {
		memset(ctx->block + ctx->fill, 0, XSHA256_BLOCK_LEN - ctx->fill);
		compress_block(ctx->h, ctx->block);
		ctx->fill = 0;
	}
	memset(ctx->block + ctx->fill, 0, XSHA256_BLOCK_LEN - 8 - ctx->fill);
	xfmt_put_be64(ctx->block + XSHA256_BLOCK_LEN - 8, bits);
	compress_block(ctx->h, ctx->block);
	for (int i = 0; i < 8; i++)
		xfmt_put_be32(out + 4 * i, ctx->h[i]);
	memset(ctx, 0, sizeof(*ctx));
}

void xsha256(const void *data, size_t len, uint8_t out[XSHA256_DIGEST_LEN])
{
	struct xsha256 ctx;

	xsha256_init(&ctx);
	xsha256_update(&ctx, data, len);
	xsha256_final(&ctx, out);
}

void xsha256_hex(const uint8_t digest[XSHA256_DIGEST_LEN], char hex[2 * XSHA256_DIGEST_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < XSHA256_DIGEST_LEN; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[2 * XSHA256_DIGEST_LEN] = '\0';
}

#define SHA_READ_CHUNK (1u << 20)

int ximg_sha256(struct ximg *img, uint8_t out[XSHA256_DIGEST_LEN])
{
	return ximg_sha256_progress(img, out, NULL, NULL);
}

int ximg_sha256_progress(struct ximg *img, uint8_t out[XSHA256_DIGEST_LEN],
			 ximg_progress_fn progress, void *arg)
{
	struct xsha256 ctx;
	uint8_t *buf = malloc(SHA_READ_CHUNK);
	uint64_t off = 0;
	int rc = 0;

	if (!buf)
		return XERR_NOMEM;
	xsha256_init(&ctx);
	while (off < img->size) {
		size_t n = img->size - off < SHA_READ_CHUNK ? (size_t)(img->size - off) : SHA_READ_CHUNK;

		/* the ranges of a bad-sector map hash as zeros, unread; so do
		 * the holes of a sparse file */
		if (ximg_is_hole(img, off, n)) {
			memset(buf, 0, n);
		} else {
			rc = ximg_pread_fill(img, buf, n, off, NULL);
			if (rc)
				goto out;
		}
		xsha256_update(&ctx, buf, n);
		off += n;
		if (progress)
			progress(arg, off, img->size);
	}
	xsha256_final(&ctx, out);
out:
	free(buf);
	return rc;
}
