/*
 * test_sorted.c - analyzer/model/sorted.c against qsort: arrays already in
 * order, nearly in order (a few runs, the case it is for), reversed,
 * random, with many equal keys and of every small length; the result is
 * sorted, holds the same elements, and keeps equal elements in their order
 * where it merged runs (a stable merge).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/model/sorted.h"

struct el {
	uint32_t key;
	uint32_t seq;   /* the position before sorting */
};

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int cmp_key(const void *x, const void *y)
{
	const struct el *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

static int cmp_both(const void *x, const void *y)
{
	const struct el *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

enum shape { SORTED, RUNS, REVERSED, RANDOM, FEW_KEYS, SHAPES };

static void fill(struct el *v, size_t n, enum shape s)
{
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++) {
		switch (s) {
		case SORTED: k += (uint32_t)(rnd() % 3); break;
		case RUNS: k = rnd() % 97 == 0 ? (uint32_t)(rnd() % 100000) : k + (uint32_t)(rnd() % 3); break;
		case REVERSED: k = (uint32_t)(n - i); break;
		case RANDOM: k = (uint32_t)rnd(); break;
		default: k = (uint32_t)(rnd() % 4); break;
		}
		v[i].key = k;
		v[i].seq = (uint32_t)i;
	}
}

static void check_one(size_t n, enum shape s)
{
	struct el *v = malloc((n + 1) * sizeof(*v)), *w = malloc((n + 1) * sizeof(*w));

	assert_non_null(v);
	assert_non_null(w);
	fill(v, n, s);
	memcpy(w, v, n * sizeof(*v));
	xa_sort(v, n, sizeof(*v), cmp_key);
	for (size_t i = 1; i < n; i++) {
		assert_true(v[i - 1].key <= v[i].key);
		/* equal keys keep their order where runs were merged */
		if (s == SORTED || s == RUNS)
			assert_true(v[i - 1].key < v[i].key || v[i - 1].seq < v[i].seq);
	}
	/* the same elements: both sorted by key and position agree */
	if (n > 1) {
		qsort(v, n, sizeof(*v), cmp_both);
		qsort(w, n, sizeof(*w), cmp_both);
	}
	assert_memory_equal(v, w, n * sizeof(*v));
	free(v);
	free(w);
}

static void test_shapes(void **state)
{
	(void)state;
	for (int s = 0; s < SHAPES; s++) {
		for (size_t n = 0; n < 70; n++)
			check_one(n, (enum shape)s);
		check_one(5000, (enum shape)s);
		check_one(100003, (enum shape)s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
