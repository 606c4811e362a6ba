/*
 * test_cache.c - the block cache over a counting test backend: hits and
 * misses (checked against the reads the backend really saw), LRU eviction
 * order and the memory bound, reference counts protecting buffers from
 * eviction, the 2 * max_bytes hard limit, range and I/O errors (not cached),
 * and a hash table that grows while buffers are held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "analyzer/io/cache.h"
#include "analyzer/io/image.h"

#define IMG_SIZE (4u << 20)

/* A backend over a pattern that counts its reads and can fail a range. */
struct count_priv {
	uint8_t *data;
	unsigned reads;
	uint64_t fail_off;  /* reads touching [fail_off, fail_off + 1) fail */
	int      fail;
};

static int count_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct count_priv *p = img->priv;

	p->reads++;
	if (p->fail && off <= p->fail_off && p->fail_off < off + len) {
		snprintf(img->errmsg, sizeof(img->errmsg), "injected error");
		return XERR_IO;
	}
	memcpy(buf, p->data + off, len);
	return 0;
}

static void count_release(struct ximg *img)
{
	struct count_priv *p = img->priv;

	free(p->data);
	free(p);
}

static const struct ximg_ops count_ops = { "memory", count_pread, count_release };

static struct ximg *count_img(struct count_priv **pp)
{
	struct count_priv *p = calloc(1, sizeof(*p));
	struct ximg *img;

	assert_non_null(p);
	p->data = malloc(IMG_SIZE);
	assert_non_null(p->data);
	for (size_t i = 0; i < IMG_SIZE; i++)
		p->data[i] = (uint8_t)((i >> 9) * 13 + i);
	img = ximg_alloc(&count_ops, IMG_SIZE, "count");
	assert_non_null(img);
	img->priv = p;
	*pp = p;
	return img;
}

/* What one cached block of len bytes is charged. */
#define CHARGE(len) ((len) + sizeof(struct xbuf))

static void test_hit_and_miss(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *a, *b, *d;
	struct xcache_stats st;

	(void)state;
	assert_int_equal(xcache_new(img, 1u << 20, &c), 0);
	assert_int_equal(xcache_read(c, 8192, 512, &a), 0);
	assert_int_equal(a->off, 8192);
	assert_int_equal(a->len, 512);
	assert_memory_equal(a->data, p->data + 8192, 512);
	assert_int_equal(xcache_read(c, 8192, 512, &b), 0);
	assert_ptr_equal(a, b);
	/* Same offset, other length: another key, another read. */
	assert_int_equal(xcache_read(c, 8192, 4096, &d), 0);
	assert_ptr_not_equal(a, d);
	assert_memory_equal(d->data, p->data + 8192, 4096);
	assert_int_equal(p->reads, 2);
	xcache_get_stats(c, &st);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.bytes_read, 512 + 4096);
	assert_int_equal(st.evictions, 0);
	xcache_release(c, &a);
	assert_null(a);
	xcache_release(c, &a);  /* NULL: no-op */
	xcache_release(c, &b);
	xcache_release(c, &d);
	/* Still cached after the last release. */
	assert_int_equal(xcache_read(c, 8192, 512, &a), 0);
	assert_int_equal(p->reads, 2);
	xcache_release(c, &a);
	xcache_free(&c);
	assert_null(c);
	ximg_free(&img);
}

/* Least recently released goes first; a hit refreshes a buffer. */
static void test_lru_eviction(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *b;
	struct xcache_stats st;

	(void)state;
	assert_int_equal(xcache_new(img, 4 * CHARGE(4096), &c), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(xcache_read(c, i * 4096, 4096, &b), 0);
		xcache_release(c, &b);
	}
	assert_int_equal(xcache_bytes(c), 4 * CHARGE(4096));
	/* Touch block 0 so that block 1 becomes the oldest. */
	assert_int_equal(xcache_read(c, 0, 4096, &b), 0);
	xcache_release(c, &b);
	assert_int_equal(xcache_read(c, 4 * 4096, 4096, &b), 0);  /* evicts block 1 */
	xcache_release(c, &b);
	assert_true(xcache_bytes(c) <= 4 * CHARGE(4096));
	p->reads = 0;
	assert_int_equal(xcache_read(c, 0, 4096, &b), 0);  /* still there */
	xcache_release(c, &b);
	assert_int_equal(p->reads, 0);
	assert_int_equal(xcache_read(c, 1 * 4096, 4096, &b), 0);  /* was evicted */
	xcache_release(c, &b);
	assert_int_equal(p->reads, 1);
	xcache_get_stats(c, &st);
	assert_int_equal(st.evictions, 2);

	/* Many more blocks: memory stays within the bound throughout. */
	for (unsigned i = 0; i < 200; i++) {
		assert_int_equal(xcache_read(c, (uint64_t)i * 4096, 4096, &b), 0);
		assert_memory_equal(b->data, p->data + (uint64_t)i * 4096, 4096);
		xcache_release(c, &b);
		assert_true(xcache_bytes(c) <= 4 * CHARGE(4096));
	}
	xcache_free(&c);
	ximg_free(&img);
}

/* Referenced buffers survive any pressure; past 2 * max_bytes reads fail. */
static void test_refs_and_hard_limit(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *held[8] = { 0 }, *b;
	int n = 0, rc = 0;

	(void)state;
	assert_int_equal(xcache_new(img, 2 * CHARGE(4096), &c), 0);
	/* Hold every buffer: the cache may go over max_bytes, up to twice it. */
	while (n < 8) {
		rc = xcache_read(c, (uint64_t)n * 4096, 4096, &held[n]);
		if (rc)
			break;
		n++;
	}
	assert_int_equal(rc, XERR_NOMEM);
	assert_int_equal(n, 4);
	assert_true(xcache_bytes(c) <= 4 * CHARGE(4096));
	/* A larger read than the limit allows fails too, cached or not. */
	assert_int_equal(xcache_read(c, 0, 5 * CHARGE(4096), &b), XERR_NOMEM);
	for (int i = 0; i < n; i++)
		assert_memory_equal(held[i]->data, p->data + (uint64_t)i * 4096, 4096);
	/* A second reference to a held buffer costs nothing. */
	assert_int_equal(xcache_read(c, 0, 4096, &b), 0);
	assert_ptr_equal(b, held[0]);
	xcache_release(c, &held[0]);
	/* Buffer 0 is still referenced by b: not evicted, still valid. */
	assert_int_equal(xcache_read(c, 100 * 4096, 4096, &held[0]), XERR_NOMEM);
	assert_memory_equal(b->data, p->data, 4096);
	xcache_release(c, &b);
	/* Now buffer 0 is free; releasing it brought us back toward the bound. */
	assert_int_equal(xcache_read(c, 100 * 4096, 4096, &held[0]), 0);
	assert_memory_equal(held[0]->data, p->data + 100 * 4096, 4096);
	for (int i = 0; i < n; i++)
		xcache_release(c, &held[i]);
	assert_true(xcache_bytes(c) <= 2 * CHARGE(4096));
	xcache_free(&c);
	ximg_free(&img);
}

static void test_range_and_io_errors(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *b = NULL;
	struct xcache_stats st;

	(void)state;
	assert_int_equal(xcache_new(img, 1u << 20, &c), 0);
	assert_int_equal(xcache_read(c, IMG_SIZE - 512, 1024, &b), XERR_RANGE);
	assert_int_equal(xcache_read(c, IMG_SIZE + 1, 1, &b), XERR_RANGE);
	assert_int_equal(xcache_read(c, UINT64_MAX - 1, 4, &b), XERR_RANGE);
	assert_null(b);
	assert_int_equal(p->reads, 0);
	assert_int_equal(xcache_read(c, IMG_SIZE - 512, 512, &b), 0);  /* the last sector */
	xcache_release(c, &b);

	p->fail = 1;
	p->fail_off = 65536 + 100;
	assert_int_equal(xcache_read(c, 65536, 4096, &b), XERR_IO);
	assert_string_equal(img->errmsg, "injected error");
	assert_int_equal(xcache_read(c, 65536, 4096, &b), XERR_IO);  /* not cached */
	assert_int_equal(p->reads, 3);
	p->fail = 0;
	assert_int_equal(xcache_read(c, 65536, 4096, &b), 0);
	assert_memory_equal(b->data, p->data + 65536, 4096);
	xcache_release(c, &b);
	xcache_get_stats(c, &st);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.hits, 0);
	assert_int_equal(xcache_bytes(c), CHARGE(512) + CHARGE(4096));
	xcache_free(&c);
	ximg_free(&img);
}

/* Thousands of keys: the table grows while some buffers are held. */
static void test_many_keys(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *held[16], *b;
	struct xcache_stats st;
	const unsigned n = 8000;

	(void)state;
	assert_int_equal(xcache_new(img, 64u << 20, &c), 0);
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(xcache_read(c, (uint64_t)i * 512, 512, &held[i]), 0);
	for (unsigned i = 16; i < n; i++) {
		assert_int_equal(xcache_read(c, (uint64_t)i * 512, 512, &b), 0);
		xcache_release(c, &b);
	}
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(xcache_read(c, (uint64_t)i * 512, 512, &b), 0);
		assert_int_equal(b->off, (uint64_t)i * 512);
		assert_memory_equal(b->data, p->data + (uint64_t)i * 512, 512);
		xcache_release(c, &b);
	}
	for (unsigned i = 0; i < 16; i++)
		xcache_release(c, &held[i]);
	xcache_get_stats(c, &st);
	assert_int_equal(st.misses, n);
	assert_int_equal(st.hits, n);
	assert_int_equal(p->reads, n);
	xcache_free(&c);
	ximg_free(&img);
}

/* A zero budget still works (every released buffer goes at once). */
static void test_zero_budget(void **state)
{
	struct count_priv *p;
	struct ximg *img = count_img(&p);
	struct xcache *c;
	struct xbuf *b;

	(void)state;
	assert_int_equal(xcache_new(img, 0, &c), 0);
	assert_int_equal(xcache_read(c, 0, 512, &b), XERR_NOMEM);
	xcache_free(&c);
	assert_int_equal(xcache_new(img, CHARGE(512), &c), 0);
	assert_int_equal(xcache_read(c, 0, 512, &b), 0);
	xcache_release(c, &b);
	assert_int_equal(xcache_read(c, 512, 512, &b), 0);
	xcache_release(c, &b);
	assert_int_equal(xcache_bytes(c), CHARGE(512));
	xcache_free(&c);
	ximg_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_and_miss),
		cmocka_unit_test(test_lru_eviction),
		cmocka_unit_test(test_refs_and_hard_limit),
		cmocka_unit_test(test_range_and_io_errors),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_zero_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
