/*
 * test_span_index.c - analyzer/model/span_index.c against a brute-force
 * search over the same spans: random lists with short and very long spans
 * (the case a running maximum handles badly), every point, every limit, and
 * the answer asked for in batches from a floor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyzer/model/span_index.h"

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void test_against_brute_force(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 40; round++) {
		size_t n = 1 + rnd() % 300, got, want;
		uint64_t start[300], end[300], s = 0;
		size_t out[300];
		struct xa_span_index ix;

		for (size_t i = 0; i < n; i++) {
			s += rnd() % 4;
			start[i] = s;
			/* now and then a span that reaches far */
			end[i] = s + 1 + (rnd() % 10 == 0 ? rnd() % 2000 : rnd() % 5);
		}
		assert_int_equal(xa_span_index_build(&ix, end, n), 0);
		for (uint64_t p = 0; p < s + 10; p++) {
			size_t limit = 0;

			while (limit < n && start[limit] <= p)
				limit++;
			got = xa_span_index_reaching(&ix, limit, p, out, 300);
			want = 0;
			for (size_t i = 0; i < limit; i++) {
				if (end[i] <= p)
					continue;
				assert_true(want < got);
				assert_int_equal(out[want], i);   /* ascending, none missed */
				want++;
			}
			assert_int_equal(got, want);
			/* a cap is honoured, and keeps the first ones */
			if (want > 1) {
				size_t two[2];

				assert_int_equal(xa_span_index_reaching(&ix, limit, p, two, 2), 2);
				assert_int_equal(two[0], out[0]);
				assert_int_equal(two[1], out[1]);
			}
			/* asked again past what was got, two at a time, the
			 * batches join into the whole answer */
			{
				size_t from = 0, k = 0, two[2], m;

				while ((m = xa_span_index_reaching_from(&ix, from, limit, p,
									two, 2)) > 0) {
					for (size_t j = 0; j < m; j++)
						assert_int_equal(two[j], out[k++]);
					from = two[m - 1] + 1;
				}
				assert_int_equal(k, want);
			}
		}
		xa_span_index_release(&ix);
	}
}

static void test_empty(void **state)
{
	struct xa_span_index ix;
	size_t out[1];

	(void)state;
	assert_int_equal(xa_span_index_build(&ix, NULL, 0), 0);
	assert_int_equal(xa_span_index_reaching(&ix, 5, 0, out, 1), 0);
	xa_span_index_release(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
