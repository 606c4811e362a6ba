/*
 * test_prefetch.c - the read-ahead ring hands over every range of the
 * sequence in order, with the bytes a plain read of the file gives, at
 * every ring depth, whether the taker or the reader is the slower side (the
 * two sides wake each other only when the other waits: a lost wake-up would
 * hang the test), with what the post hook made of each range's bytes on
 * the reader thread; zero-length ranges and ranges past the image come back
 * unread; a stop in the middle returns; an image that cannot be read beside
 * the caller (in memory) gets no reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyzer/io/image.h"
#include "analyzer/io/prefetch.h"

#define FILE_SIZE (1u << 20)
#define MAXLEN    8192u

static char path[64];
static uint8_t content[FILE_SIZE];

struct seq {
	unsigned i, n;
	bool     slow;   /* the reader naps now and then */
};

/* Item i: a length of 0 to MAXLEN (0 every 13th), at a place spread over
 * the file; the 50th lies past its end. */
static void item(unsigned i, uint64_t *off, size_t *len)
{
	*len = i % 13 == 0 ? 0 : (size_t)((i * 2654435761u) % MAXLEN) + 1;
	*off = (uint64_t)((i * 40503u) % (FILE_SIZE - MAXLEN));
	if (i == 50)
		*off = FILE_SIZE - 10;
}

/* What the post hook computes on the reader thread: a hash of the bytes. */
static uint32_t sum(const uint8_t *d, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ d[i]) * 16777619u;
	return h;
}

static void sum_post(void *arg, const uint8_t *data, size_t len, void *meta)
{
	uint32_t h = sum(data, len);

	(void)arg;
	memcpy(meta, &h, sizeof(h));
}

static void nap(void)
{
	struct timespec ts = { 0, 200000 };

	nanosleep(&ts, NULL);
}

static bool next(void *arg, uint64_t *off, size_t *len)
{
	struct seq *s = arg;

	if (s->i >= s->n)
		return false;
	item(s->i++, off, len);
	if (s->slow && s->i % 7 == 0)
		nap();
	return true;
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	for (size_t i = 0; i < FILE_SIZE; i++)
		content[i] = (uint8_t)(i * 31 + (i >> 8));
	snprintf(path, sizeof(path), "/tmp/xa-prefetch-XXXXXX");
	{
		int fd = mkstemp(path);

		if (fd < 0)
			return -1;
		close(fd);
	}
	f = fopen(path, "wb");
	if (!f || fwrite(content, 1, FILE_SIZE, f) != FILE_SIZE)
		return -1;
	return fclose(f) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void run(unsigned depth, bool slow_reader, bool slow_taker)
{
	struct seq s = { 0, 400, slow_reader };
	struct xprefetch *p = NULL;
	struct ximg *img = NULL;
	char err[256];
	unsigned k = 0;
	const uint8_t *data;
	const void *meta;
	uint64_t off;
	size_t len;
	struct xprefetch_opts o = { MAXLEN, depth, next, sum_post, sizeof(uint32_t), &s };

	assert_int_equal(ximg_open_raw(path, &img, err, sizeof(err)), 0);
	assert_int_equal(xprefetch_start(img, 2, &o, &p), 0);
	if (!p) {   /* one CPU: nothing to test here */
		ximg_free(&img);
		skip();
	}
	while (xprefetch_take(p, &data, &meta, &off, &len)) {
		uint64_t woff;
		size_t wlen;

		item(k, &woff, &wlen);
		assert_int_equal(off, woff);
		assert_int_equal(len, wlen);
		if (wlen == 0 || woff + wlen > FILE_SIZE) {
			assert_null(data);
			assert_null(meta);
		} else {
			uint32_t want = sum(content + woff, wlen);

			assert_memory_equal(data, content + woff, wlen);
			assert_non_null(meta);
			assert_memory_equal(meta, &want, sizeof(want));
		}
		if (slow_taker && k % 5 == 0)
			nap();
		k++;
	}
	assert_int_equal(k, s.n);
	xprefetch_stop(&p);
	assert_null(p);
	ximg_free(&img);
}

static void test_depths(void **state)
{
	(void)state;
	for (unsigned depth = 2; depth <= 17; depth++)
		run(depth, false, false);
}

static void test_slow_reader(void **state)
{
	(void)state;
	run(2, true, false);
	run(16, true, false);
}

static void test_slow_taker(void **state)
{
	(void)state;
	run(3, false, true);
	run(16, false, true);
}

static void test_stop_midway(void **state)
{
	struct seq s = { 0, 100000, false };
	struct xprefetch *p = NULL;
	struct ximg *img = NULL;
	char err[256];
	const uint8_t *data;
	uint64_t off;
	size_t len;

	(void)state;
	struct xprefetch_opts o = { MAXLEN, 4, next, NULL, 0, &s };

	assert_int_equal(ximg_open_raw(path, &img, err, sizeof(err)), 0);
	assert_int_equal(xprefetch_start(img, 4, &o, &p), 0);
	if (!p) {
		ximg_free(&img);
		skip();
	}
	for (int i = 0; i < 10; i++)
		assert_true(xprefetch_take(p, &data, NULL, &off, &len));
	xprefetch_stop(&p);   /* the reader waits for room: it must still end */
	assert_null(p);
	ximg_free(&img);
}

static void test_no_reader(void **state)
{
	struct seq s = { 0, 10, false };
	struct xprefetch_opts o = { MAXLEN, 4, next, NULL, 0, &s };
	struct xprefetch *p = (struct xprefetch *)&s;
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	assert_int_equal(ximg_open_mem(content, 4096, 0, "mem", &img), 0);
	assert_int_equal(xprefetch_start(img, 2, &o, &p), 0);
	assert_null(p);
	ximg_free(&img);
	p = (struct xprefetch *)&s;
	assert_int_equal(ximg_open_raw(path, &img, err, sizeof(err)), 0);
	assert_int_equal(xprefetch_start(img, 1, &o, &p), 0);
	assert_null(p);   /* one thread allowed */
	ximg_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depths),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_slow_taker),
		cmocka_unit_test(test_stop_midway),
		cmocka_unit_test(test_no_reader),
	};

	/* A lost wake-up hangs: end the test as a failure instead. */
	alarm(120);
	return cmocka_run_group_tests(tests, setup, teardown);
}
