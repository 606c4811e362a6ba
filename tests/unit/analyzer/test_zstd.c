/*
 * test_zstd.c - the zstd backend.  Seekable and plain files are built here
 * with libzstd from a mostly-zero test image; random ranges read through the
 * backend must equal the original bytes.  Damaged frames, bad checksums,
 * hostile seek tables, truncation and garbage must give XERR_FORMAT (or
 * XERR_UNSUPPORTED) with a message, never a crash.  XXH64 is checked against
 * libzstd's own frame checksums, which use the same function.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/zstd_seek.h"
#include "formats/endian.h"

/* 4 MiB + 1234 bytes: not a whole number of pages, nor of frames. */
#define ORIG_LEN ((4u << 20) + 1234)

static uint8_t *orig;
static uint32_t rng = 2463534242u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Like an XFS image: zeros, with scattered non-zero pages and a tail. */
static int setup(void **state)
{
	(void)state;
	orig = calloc(1, ORIG_LEN);
	if (!orig)
		return -1;
	for (uint32_t pg = 0; pg < ORIG_LEN / 4096; pg++) {
		if (pg % 37 == 0 || (pg >= 300 && pg < 310))
			for (uint32_t k = 0; k < 4096; k++)
				orig[pg * 4096 + k] = (uint8_t)next_rand();
		else if (pg % 11 == 0)
			orig[pg * 4096 + 4095] = 0x5A;  /* non-zero only in the last byte */
	}
	memset(orig + ORIG_LEN - 1234, 0xC3, 1000);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(orig);
	return 0;
}

struct zbuf {
	uint8_t *p;
	size_t   len, cap;
};

static void zb_put(struct zbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/*
 * Seekable file of src in frames of frame bytes; with checksums, each taken
 * from the frame's own content checksum (computed by libzstd).
 */
static struct zbuf make_seekable(const uint8_t *src, size_t len, size_t frame, int checksums)
{
	struct zbuf out = { 0 }, tab = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(frame), n = 0;
	uint8_t *cbuf = malloc(cap), le[4], desc = checksums ? 0x80 : 0;

	assert_non_null(cc);
	assert_non_null(cbuf);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksums);
	for (size_t off = 0; off < len; off += frame, n++) {
		size_t d = len - off < frame ? len - off : frame;
		size_t c = ZSTD_compress2(cc, cbuf, cap, src + off, d);

		assert_false(ZSTD_isError(c));
		zb_put(&out, cbuf, c);
		xfmt_put_le32(le, (uint32_t)c);
		zb_put(&tab, le, 4);
		xfmt_put_le32(le, (uint32_t)d);
		zb_put(&tab, le, 4);
		if (checksums)
			zb_put(&tab, cbuf + c - 4, 4);
	}
	xfmt_put_le32(le, XZST_SKIPPABLE_SEEK_MAGIC);
	zb_put(&out, le, 4);
	xfmt_put_le32(le, (uint32_t)(tab.len + 9));
	zb_put(&out, le, 4);
	zb_put(&out, tab.p, tab.len);
	xfmt_put_le32(le, (uint32_t)n);
	zb_put(&out, le, 4);
	zb_put(&out, &desc, 1);
	xfmt_put_le32(le, XZST_SEEKABLE_MAGIC);
	zb_put(&out, le, 4);
	free(tab.p);
	free(cbuf);
	ZSTD_freeCCtx(cc);
	return out;
}

/*
 * Plain zstd in nframes frames, each followed by a skippable frame when asked.
 * Frames carry content checksums, as the zstd command line writes them.
 */
static struct zbuf make_plain(const uint8_t *src, size_t len, int nframes, int with_skippable)
{
	struct zbuf out = { 0 };
	size_t cap = ZSTD_compressBound(len);
	uint8_t *cbuf = malloc(cap);
	size_t step = len / (size_t)nframes + 1;
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	assert_non_null(cbuf);
	assert_non_null(cc);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (size_t off = 0; off < len; off += step) {
		size_t d = len - off < step ? len - off : step;
		size_t c = ZSTD_compress2(cc, cbuf, cap, src + off, d);

		assert_false(ZSTD_isError(c));
		zb_put(&out, cbuf, c);
		if (with_skippable) {
			static const uint8_t skip[12] = { 0x53, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4 };

			zb_put(&out, skip, sizeof(skip));
		}
	}
	free(cbuf);
	ZSTD_freeCCtx(cc);
	return out;
}

/* A zstd image over the bytes of zb (borrowed). */
static int open_z(const struct zbuf *zb, const struct xzst_opts *o, struct ximg **img,
		  char *err, size_t errlen)
{
	struct ximg *src = NULL;
	int rc;

	assert_int_equal(ximg_open_mem(zb->p, zb->len, 0, "test.zst", &src), 0);
	rc = ximg_open_zstd_img(src, o, img, err, errlen);
	if (rc)
		ximg_free(&src);
	return rc;
}

/* Read many random ranges (and some fixed edge cases) and compare. */
static void check_reads(struct ximg *img)
{
	uint8_t *buf = malloc(300000);

	assert_non_null(buf);
	assert_int_equal(img->size, ORIG_LEN);
	for (int i = 0; i < 1500; i++) {
		size_t len = i % 10 == 0 ? next_rand() % 300000 : next_rand() % 9000;
		uint64_t off;

		if (len > ORIG_LEN)
			len = ORIG_LEN;
		off = next_rand() % (ORIG_LEN - len + 1);
		assert_int_equal(ximg_pread(img, buf, len, off), 0);
		assert_memory_equal(buf, orig + off, len);
	}
	assert_int_equal(ximg_pread(img, buf, 1234, ORIG_LEN - 1234), 0);
	assert_memory_equal(buf, orig + ORIG_LEN - 1234, 1234);
	assert_int_equal(ximg_pread(img, buf, 1, ORIG_LEN), XERR_RANGE);
	assert_int_equal(ximg_pread(img, buf, 2, ORIG_LEN - 1), XERR_RANGE);
	free(buf);
}

static void test_seekable_reads(void **state)
{
	static const size_t frames[] = { 4096, 65536, 100000, ORIG_LEN, 8u << 20 };

	(void)state;
	for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
		for (int cs = 0; cs < 2; cs++) {
			struct zbuf zb = make_seekable(orig, ORIG_LEN, frames[f], cs);
			struct ximg *img = NULL;
			char err[256];

			assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
			assert_string_equal(img->ops->kind, "zstd");
			check_reads(img);
			ximg_free(&img);
			free(zb.p);
		}
	}
}

static void test_plain_reads(void **state)
{
	(void)state;
	for (int nf = 1; nf <= 7; nf += 3) {
		for (int skip = 0; skip < 2; skip++) {
			struct zbuf zb = make_plain(orig, ORIG_LEN, nf, skip);
			struct ximg *img = NULL;
			char err[256];

			assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
			check_reads(img);
			ximg_free(&img);
			free(zb.p);
		}
	}
}

/* A frame without a content size in its header: the size comes from the data. */
static void test_plain_streamed_frame(void **state)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(ORIG_LEN) + 1024;
	struct zbuf zb = { malloc(cap), 0, cap };
	ZSTD_inBuffer in = { orig, ORIG_LEN / 2, 0 };
	ZSTD_outBuffer o = { zb.p, cap, 0 };
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	assert_non_null(zb.p);
	/* Fed in two pieces, the compressor cannot know the size up front. */
	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &o, &in, ZSTD_e_continue)));
	in.size = ORIG_LEN;
	assert_int_equal(ZSTD_compressStream2(cc, &o, &in, ZSTD_e_end), 0);
	zb.len = o.pos;
	assert_int_equal(ZSTD_getFrameContentSize(zb.p, zb.len), ZSTD_CONTENTSIZE_UNKNOWN);
	assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
	check_reads(img);
	ximg_free(&img);
	free(zb.p);
	ZSTD_freeCCtx(cc);
}

/* Ignoring the seek table, the same file reads as a plain stream. */
static void test_seekable_as_plain(void **state)
{
	struct zbuf zb = make_seekable(orig, ORIG_LEN, 65536, 1);
	struct xzst_opts o = { .ignore_seek_table = 1 };
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	assert_int_equal(open_z(&zb, &o, &img, err, sizeof(err)), 0);
	check_reads(img);
	ximg_free(&img);
	free(zb.p);
}

/* Counts the bytes read from the compressed source. */
struct counting {
	struct ximg *inner;
	uint64_t     bytes;
};

static int counting_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct counting *c = img->priv;

	c->bytes += len;
	return ximg_pread(c->inner, buf, len, off);
}

static void counting_release(struct ximg *img)
{
	struct counting *c = img->priv;

	ximg_free(&c->inner);
	free(c);
}

static const struct ximg_ops counting_ops = { "memory", counting_pread, counting_release };

/* Only the frames a read touches are read and decompressed, and kept. */
static void test_seekable_reads_only_needed_frames(void **state)
{
	struct zbuf zb = make_seekable(orig, ORIG_LEN, 65536, 0);
	struct counting *cnt = calloc(1, sizeof(*cnt));
	struct ximg *src, *img = NULL;
	struct xzst_seek_table t;
	uint64_t tsize, base;
	char why[200], err[256];
	uint8_t buf[16];

	(void)state;
	assert_non_null(cnt);
	assert_int_equal(xzst_seek_footer(zb.p + zb.len - 9, &tsize), 1);
	assert_int_equal(xzst_seek_parse(zb.p + zb.len - tsize, (size_t)tsize, zb.len, &t,
					 why, sizeof(why)), 0);
	assert_int_equal(t.nframes, (ORIG_LEN + 65535) / 65536);
	assert_int_equal(t.content_size, ORIG_LEN);
	assert_int_equal(ximg_open_mem(zb.p, zb.len, 0, "c.zst", &cnt->inner), 0);
	src = ximg_alloc(&counting_ops, zb.len, "c.zst");
	assert_non_null(src);
	src->priv = cnt;
	assert_int_equal(ximg_open_zstd_img(src, NULL, &img, err, sizeof(err)), 0);
	base = cnt->bytes;
	assert_true(base == 9 + tsize);  /* the footer, then the table */

	/* Frame 5: 10 bytes from its middle cost exactly that frame. */
	assert_int_equal(ximg_pread(img, buf, 10, 5 * 65536 + 30000), 0);
	assert_memory_equal(buf, orig + 5 * 65536 + 30000, 10);
	assert_int_equal(cnt->bytes - base, t.coff[6] - t.coff[5]);
	/* Again, and elsewhere in it: served from the LRU. */
	assert_int_equal(ximg_pread(img, buf, 16, 5 * 65536 + 7), 0);
	assert_int_equal(cnt->bytes - base, t.coff[6] - t.coff[5]);
	/* Across the boundary of frames 5 and 6: only 6 is new. */
	assert_int_equal(ximg_pread(img, buf, 16, 6 * 65536 - 8), 0);
	assert_memory_equal(buf, orig + 6 * 65536 - 8, 16);
	assert_int_equal(cnt->bytes - base, t.coff[7] - t.coff[5]);
	/* Eight other frames push frame 5 out of the 8-slot LRU. */
	for (int f = 10; f < 18; f++)
		assert_int_equal(ximg_pread(img, buf, 1, (uint64_t)f * 65536), 0);
	base = cnt->bytes;
	assert_int_equal(ximg_pread(img, buf, 1, 5 * 65536), 0);
	assert_int_equal(cnt->bytes - base, t.coff[6] - t.coff[5]);
	ximg_free(&img);
	xzst_seek_release(&t);
	free(zb.p);
}

/* Offset of the seek table entry of frame i. */
static size_t entry_at(const struct zbuf *zb, uint32_t i)
{
	uint64_t tsize;

	assert_int_equal(xzst_seek_footer(zb->p + zb->len - 9, &tsize), 1);
	return zb->len - (size_t)tsize + 8 + i * (size_t)((zb->p[zb->len - 5] & 0x80) ? 12 : 8);
}

static void test_seekable_damaged_frame(void **state)
{
	struct zbuf zb = make_seekable(orig, ORIG_LEN, 65536, 1);
	struct ximg *img = NULL;
	char err[256];
	uint8_t buf[64];
	size_t e3 = entry_at(&zb, 3);
	uint64_t c3 = 0;

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		c3 += xfmt_get_le32(zb.p + entry_at(&zb, i));
	/* Frame 3 (frame checksums on): flip a byte in the middle of its compressed bytes. */
	zb.p[c3 + xfmt_get_le32(zb.p + e3) / 2] ^= 0x10;
	assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
	assert_int_equal(ximg_pread(img, buf, 64, 3 * 65536 + 100), XERR_FORMAT);
	assert_non_null(strstr(img->errmsg, "frame 3"));
	/* Other frames still read, and the bad one keeps failing. */
	assert_int_equal(ximg_pread(img, buf, 64, 2 * 65536 + 100), 0);
	assert_memory_equal(buf, orig + 2 * 65536 + 100, 64);
	assert_int_equal(ximg_pread(img, buf, 64, 3 * 65536), XERR_FORMAT);
	ximg_free(&img);
	zb.p[c3 + xfmt_get_le32(zb.p + e3) / 2] ^= 0x10;

	/* A wrong checksum in the table. */
	zb.p[e3 + 8] ^= 1;
	assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
	assert_int_equal(ximg_pread(img, buf, 8, 3 * 65536), XERR_FORMAT);
	assert_non_null(strstr(img->errmsg, "checksum"));
	ximg_free(&img);
	zb.p[e3 + 8] ^= 1;

	/* A decompressed size that disagrees with the frame (sum kept equal). */
	xfmt_put_le32(zb.p + e3 + 4, 65536 - 1);
	xfmt_put_le32(zb.p + entry_at(&zb, 4) + 4, 65536 + 1);
	assert_int_equal(open_z(&zb, NULL, &img, err, sizeof(err)), 0);
	assert_int_equal(ximg_pread(img, buf, 8, 3 * 65536), XERR_FORMAT);
	assert_int_equal(ximg_pread(img, buf, 8, 4 * 65536 + 10), XERR_FORMAT);
	assert_int_equal(ximg_pread(img, buf, 8, 2 * 65536), 0);
	ximg_free(&img);
	free(zb.p);
}

/* Hostile seek tables are refused at open. */
static void test_seekable_hostile_tables(void **state)
{
	struct zbuf good = make_seekable(orig, ORIG_LEN, 65536, 0);
	size_t foot = good.len - 9, e0 = entry_at(&good, 0);
	uint32_t n = xfmt_get_le32(good.p + foot);

	(void)state;
	for (int which = 0; which < 10; which++) {
		struct zbuf zb = { malloc(good.len), good.len, good.len };
		struct ximg *img = NULL;
		char err[256] = "";
		int rc, want = XERR_FORMAT;

		assert_non_null(zb.p);
		memcpy(zb.p, good.p, good.len);
		switch (which) {
		case 0: xfmt_put_le32(zb.p + foot, 0xFFFFFFFFu); break;       /* frame count */
		case 1: xfmt_put_le32(zb.p + foot, n + 1); break;
		case 2: zb.p[foot + 4] = 0x04; want = XERR_UNSUPPORTED; break; /* reserved bit */
		case 3: xfmt_put_le32(zb.p + e0, xfmt_get_le32(zb.p + e0) + 1); break; /* sum */
		case 4: xfmt_put_le32(zb.p + e0, 3); break;                  /* csize < 8 */
		case 5: xfmt_put_le32(zb.p + e0 + 4, 0x40000001u); break;    /* dsize > 1 GiB */
		case 6: xfmt_put_le32(zb.p + e0 - 4, 12345); break;          /* frame size */
		case 7: xfmt_put_le32(zb.p + e0 - 8, 0x184D2A50u); break;    /* skippable magic */
		case 8:  /* a table claiming the whole file and more */
			xfmt_put_le32(zb.p + foot, 0x7FFFFFF);
			break;
		case 9:  /* one byte more than zstd can make of the frame */
			assert_true((uint64_t)xfmt_get_le32(zb.p + e0) * XZST_MAX_RATIO < 0x40000000u);
			xfmt_put_le32(zb.p + e0 + 4, xfmt_get_le32(zb.p + e0) * XZST_MAX_RATIO + 1);
			break;
		}
		rc = open_z(&zb, NULL, &img, err, sizeof(err));
		assert_int_equal(rc, want);
		assert_non_null(strstr(err, "seek table"));
		if (which == 9)
			assert_non_null(strstr(err, "cannot come from"));
		assert_null(img);
		free(zb.p);
	}
	free(good.p);
}

static void test_plain_damage(void **state)
{
	struct zbuf good = make_plain(orig, ORIG_LEN, 3, 0);

	(void)state;
	for (int which = 0; which < 6; which++) {
		struct zbuf zb = { malloc(good.len + 64), good.len, good.len + 64 };
		struct ximg *img = NULL;
		char err[256] = "";

		assert_non_null(zb.p);
		memcpy(zb.p, good.p, good.len);
		switch (which) {
		case 0: zb.len -= 10; break;                               /* truncated */
		case 1: zb.len = 20; break;                                /* cut in the first block */
		case 2: memcpy(zb.p + zb.len, "garbage!", 8); zb.len += 8; break;
		case 3: zb.p[zb.len / 2] ^= 0xFF; zb.p[zb.len / 2 + 1] ^= 0x55; break;
		case 4: memset(zb.p + 4, 0xFF, 8); break;                  /* frame header */
		case 5: zb.len = 3; break;
		}
		if (open_z(&zb, NULL, &img, err, sizeof(err)) != XERR_FORMAT)
			fail_msg("damage %d not detected", which);
		assert_true(strlen(err) > 10);
		assert_null(img);
		free(zb.p);
	}
	free(good.p);
}

static void test_memory_cap(void **state)
{
	struct zbuf plain = make_plain(orig, ORIG_LEN, 1, 0);
	struct zbuf seek = make_seekable(orig, ORIG_LEN, 1u << 20, 0);
	struct xzst_opts o = { .max_resident = 64 * 1024 };
	struct ximg *img = NULL;
	char err[512];

	(void)state;
	assert_int_equal(open_z(&plain, &o, &img, err, sizeof(err)), XERR_UNSUPPORTED);
	assert_non_null(strstr(err, "decompress it to a file"));
	assert_non_null(strstr(err, XIMG_ZSTD_ENV_MAX_MEM));
	assert_int_equal(open_z(&seek, &o, &img, err, sizeof(err)), XERR_UNSUPPORTED);

	/* The environment variable does the same; a bad value is a usage error. */
	setenv(XIMG_ZSTD_ENV_MAX_MEM, "64K", 1);
	assert_int_equal(open_z(&plain, NULL, &img, err, sizeof(err)), XERR_UNSUPPORTED);
	setenv(XIMG_ZSTD_ENV_MAX_MEM, "4M", 1);
	assert_int_equal(open_z(&plain, NULL, &img, err, sizeof(err)), 0);  /* ~700 KiB non-zero */
	ximg_free(&img);
	setenv(XIMG_ZSTD_ENV_MAX_MEM, "lots", 1);
	assert_int_equal(open_z(&plain, NULL, &img, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, XIMG_ZSTD_ENV_MAX_MEM));
	unsetenv(XIMG_ZSTD_ENV_MAX_MEM);
	free(plain.p);
	free(seek.p);
}

/* Random damage anywhere in either format: errors are fine, crashes are not. */
static void test_random_damage(void **state)
{
	struct zbuf f[2] = { make_seekable(orig, ORIG_LEN, 65536, 1), make_plain(orig, ORIG_LEN, 2, 1) };
	uint8_t *buf = malloc(70000);

	(void)state;
	assert_non_null(buf);
	for (int iter = 0; iter < 60; iter++) {
		struct zbuf *g = &f[iter & 1];
		struct zbuf zb = { malloc(g->len), g->len, g->len };
		struct ximg *img = NULL;
		char err[256];

		assert_non_null(zb.p);
		memcpy(zb.p, g->p, g->len);
		for (int k = 0; k < 4; k++) {
			/* Half the time, hit the seek table at the end. */
			size_t pos = (iter & 2) ? zb.len - 1 - next_rand() % 200 : next_rand() % zb.len;

			zb.p[pos] = (uint8_t)next_rand();
		}
		if (open_z(&zb, NULL, &img, err, sizeof(err)) == 0) {
			for (int r = 0; r < 20; r++) {
				size_t len = next_rand() % 70000;
				uint64_t off = next_rand() % (img->size + 1);
				int rc = ximg_pread(img, buf, len, off);

				assert_true(rc == 0 || rc == XERR_FORMAT || rc == XERR_RANGE);
			}
			ximg_free(&img);
		}
		free(zb.p);
	}
	free(buf);
	free(f[0].p);
	free(f[1].p);
}

/* XXH64 agrees with the content checksums libzstd writes into frames. */
static void test_xxh64(void **state)
{
	static const size_t lens[] = { 0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 100, 1000, 65537 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *c = malloc(ZSTD_compressBound(70000));

	(void)state;
	assert_non_null(c);
	/* xxHash's published value for the empty input with seed 0. */
	assert_true(xzst_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = ZSTD_compress2(cc, c, ZSTD_compressBound(70000), orig + 300 * 4096 + i, lens[i]);

		assert_false(ZSTD_isError(n));
		assert_int_equal((uint32_t)xzst_xxh64(orig + 300 * 4096 + i, lens[i], 0),
				 xfmt_get_le32(c + n - 4));
	}
	free(c);
	ZSTD_freeCCtx(cc);
}

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(xzst_parse_size("123", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(xzst_parse_size("512M", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(xzst_parse_size("2GiB", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(xzst_parse_size("1t", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(xzst_parse_size("0", &v), -1);
	assert_int_equal(xzst_parse_size("-5", &v), -1);
	assert_int_equal(xzst_parse_size("5X", &v), -1);
	assert_int_equal(xzst_parse_size("", &v), -1);
	assert_int_equal(xzst_parse_size("99999999999999999999", &v), -1);
	assert_int_equal(xzst_parse_size("17000000000000000G", &v), -1);
}

/* Through a real file and ximg_open's magic-based dispatch. */
static void test_file_dispatch(void **state)
{
	char dir[] = "/tmp/xfsrecon-test-zstd.XXXXXX", path[64];
	struct zbuf zb = make_seekable(orig, ORIG_LEN, 65536, 1);
	struct ximg_open_opts o = { .have_offset = 1, .offset = 0 };
	struct ximg *img = NULL;
	char err[256];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/img.zst", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(zb.p, 1, zb.len, f), zb.len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), 0);
	check_reads(img);
	ximg_free(&img);
	assert_int_equal(ximg_open_zstd(path, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "zstd");
	assert_int_equal(img->size, ORIG_LEN);
	ximg_free(&img);
	unlink(path);
	rmdir(dir);
	free(zb.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seekable_reads),
		cmocka_unit_test(test_plain_reads),
		cmocka_unit_test(test_plain_streamed_frame),
		cmocka_unit_test(test_seekable_as_plain),
		cmocka_unit_test(test_seekable_reads_only_needed_frames),
		cmocka_unit_test(test_seekable_damaged_frame),
		cmocka_unit_test(test_seekable_hostile_tables),
		cmocka_unit_test(test_plain_damage),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_xxh64),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_file_dispatch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
