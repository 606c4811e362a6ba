/*
 * test_sha256.c - SHA-256 against the FIPS 180-4 example vectors ("abc", the
 * empty message, the 448-bit message, one million 'a'), against digests of
 * the padding edge lengths computed by an independent implementation
 * (Python's hashlib), streaming in odd pieces, ximg_sha256 over a memory
 * image that spans several 1 MiB reads, the digest of a worker thread fed
 * from one reused buffer (one million 'a' in odd pieces), and two streams
 * hashed together against each alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/sha256.h"
#include "analyzer/io/sha256_worker.h"

static void assert_digest(const uint8_t d[32], const char *hex)
{
	char got[65];

	xsha256_hex(d, got);
	assert_string_equal(got, hex);
}

static void test_fips_vectors(void **state)
{
	uint8_t d[32];
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	xsha256("abc", 3, d);
	assert_digest(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	xsha256("", 0, d);
	assert_digest(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	xsha256(m448, strlen(m448), d);
	assert_digest(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a(void **state)
{
	struct xsha256 ctx;
	uint8_t d[32], chunk[1000];

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	xsha256_init(&ctx);
	for (int i = 0; i < 1000; i++)
		xsha256_update(&ctx, chunk, sizeof(chunk));
	xsha256_final(&ctx, d);
	assert_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the 55/56 and 64-byte padding boundaries. */
static void test_padding_edges(void **state)
{
	static const struct { size_t n; const char *hex; } v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	uint8_t buf[128], d[32];

	(void)state;
	memset(buf, 'a', sizeof(buf));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		xsha256(buf, v[i].n, d);
		assert_digest(d, v[i].hex);
	}
}

/* Any split of the input gives the same digest as one call. */
static void test_streaming_splits(void **state)
{
	uint8_t buf[1000], whole[32], parts[32];
	static const size_t steps[] = { 1, 3, 63, 64, 65, 127, 500 };

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 17);
	xsha256(buf, sizeof(buf), whole);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		struct xsha256 ctx;
		size_t off = 0;

		xsha256_init(&ctx);
		while (off < sizeof(buf)) {
			size_t n = sizeof(buf) - off < steps[s] ? sizeof(buf) - off : steps[s];

			xsha256_update(&ctx, buf + off, n);
			off += n;
		}
		xsha256_final(&ctx, parts);
		assert_memory_equal(whole, parts, 32);
	}
}

/* As repair's output pass uses it: one buffer, refilled only after wait.
 * A stale or reordered chunk would change the digest.  Threaded (where two
 * CPUs are online) and inline. */
static void test_worker(void **state)
{
	static const size_t steps[] = { 1, 63, 4096, 65537, 333333 };
	uint8_t *buf = malloc(333333), d[32];

	(void)state;
	assert_non_null(buf);
	for (int threaded = 0; threaded < 2; threaded++) {
		for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
			struct xsha256_worker w;
			size_t done = 0;

			xsha256_worker_start(&w, threaded);
			while (done < 1000000) {
				size_t n = 1000000 - done < steps[s] ? 1000000 - done : steps[s];

				memset(buf, 'a', n);
				xsha256_worker_feed(&w, buf, n);
				xsha256_worker_wait(&w);
				memset(buf, 'b', n);   /* what the next read would do */
				done += n;
			}
			xsha256_worker_finish(&w, d);
			assert_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67"
				      "f1809a48a497200e046d39ccc7112cd0");
		}
	}
	free(buf);
}

/* Two streams hashed together (xsha256_update2, interleaved with the SHA
 * extensions) give each stream's own digest: pieces that keep the two
 * block-aligned and pieces that do not, against each hashed alone. */
static void test_pair(void **state)
{
	static const size_t steps[] = { 1, 63, 64, 4096, 65537, 1 << 20 };
	const size_t total = 3u << 20;
	uint8_t *a = malloc(total), *b = malloc(total), da[32], db[32], ea[32], eb[32];

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < total; i++) {
		a[i] = (uint8_t)(i * 7 + (i >> 11));
		b[i] = (uint8_t)(i * 13 + 5);
	}
	xsha256(a, total, ea);
	xsha256(b, total, eb);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		struct xsha256 ha, hb;
		size_t done = 0;

		xsha256_init(&ha);
		xsha256_init(&hb);
		while (done < total) {
			size_t n = total - done < steps[s] ? total - done : steps[s];

			xsha256_update2(&ha, a + done, &hb, b + done, n);
			done += n;
		}
		xsha256_final(&ha, da);
		xsha256_final(&hb, db);
		assert_memory_equal(da, ea, 32);
		assert_memory_equal(db, eb, 32);
	}
	free(a);
	free(b);
}

/* ximg_sha256 reads 1 MiB at a time: 3 MiB + 17 bytes needs four reads. */
static void test_image_digest(void **state)
{
	size_t n = 3 * 1048576 + 17;
	uint8_t *buf = malloc(n), d[32];
	struct ximg *img = NULL;

	(void)state;
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	assert_int_equal(ximg_open_mem(buf, n, 0, "pattern", &img), 0);
	assert_int_equal(ximg_sha256(img, d), 0);
	/* hashlib.sha256(bytes((i*31+7)&0xff for i in range(3*1048576+17))) */
	assert_digest(d, "27f3f0120d4a72b66e7b58152c631644bd689231ebd4487469b59226f1be13af");
	ximg_free(&img);

	/* An empty image hashes like an empty message. */
	assert_int_equal(ximg_open_mem(buf, 0, 0, "empty", &img), 0);
	assert_int_equal(ximg_sha256(img, d), 0);
	assert_digest(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ximg_free(&img);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_padding_edges),
		cmocka_unit_test(test_streaming_splits),
		cmocka_unit_test(test_image_digest),
		cmocka_unit_test(test_worker),
		cmocka_unit_test(test_pair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
