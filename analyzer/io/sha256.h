/*
 * sha256.h - SHA-256 (FIPS 180-4), streaming, and the digest of a whole image.
 *
 * The report records the SHA-256 of the input as read, so that a case file
 * can show which bytes were analyzed.  Our own implementation keeps the
 * dependency list short; it is checked against the FIPS 180-4 example vectors.
 */
#ifndef XA_SHA256_H
#define XA_SHA256_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct ximg;

#define XSHA256_DIGEST_LEN 32
#define XSHA256_BLOCK_LEN  64

struct xsha256 {
	uint32_t h[8];          /* chaining state */
	uint64_t total;         /* message bytes hashed so far */
	uint8_t  block[XSHA256_BLOCK_LEN]; /* partial block */
	size_t   fill;          /* bytes in block */
};

/* Start a new digest in ctx. */
void xsha256_init(struct xsha256 *ctx);

/* Append len bytes at data (NULL allowed when len == 0). */
void xsha256_update(struct xsha256 *ctx, const void *data, size_t len);

/* Finish: write the 32-byte digest to out; ctx must be re-initialized to reuse. */
/*
 * The same as xsha256_update(a, pa, len) and xsha256_update(b, pb, len),
 * in about the time of one where the CPU has the SHA extensions and both
 * digests are at a block boundary (feed them equal whole-block chunks).
 */
void xsha256_update2(struct xsha256 *a, const void *pa, struct xsha256 *b, const void *pb,
		     size_t len);

/* Whether xsha256_update2 hashes two streams faster than one core does
 * each in turn (the SHA extensions are there to use). */
bool xsha256_pair_fast(void);

void xsha256_final(struct xsha256 *ctx, uint8_t out[XSHA256_DIGEST_LEN]);

/* One-shot digest of a buffer. */
void xsha256(const void *data, size_t len, uint8_t out[XSHA256_DIGEST_LEN]);

/* Lower-case hex of a digest into hex (65 bytes including the NUL). */
void xsha256_hex(const uint8_t digest[XSHA256_DIGEST_LEN], char hex[2 * XSHA256_DIGEST_LEN + 1]);

/*
 * Hash every byte of img (img->size bytes from 0) in 1 MiB reads.  Returns 0,
 * XERR_NOMEM, or the error of the failing read (img->errmsg says more).
 */
int ximg_sha256(struct ximg *img, uint8_t out[XSHA256_DIGEST_LEN]);

/* Told how far a long read has come: done of total bytes. */
typedef void (*ximg_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* ximg_sha256, calling progress (when non-NULL) after every read. */
int ximg_sha256_progress(struct ximg *img, uint8_t out[XSHA256_DIGEST_LEN],
			 ximg_progress_fn progress, void *arg);

#endif /* XA_SHA256_H */
