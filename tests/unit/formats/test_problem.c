/*
 * test_problem.c - the findings table is well formed: codes sorted and
 * unique, IDs unique camelCase, every row has a message, look-ups agree.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "formats/problem.h"

static void test_codes_sorted_unique(void **state)
{
	(void)state;
	assert_true(xprob_table_size() > 0);
	for (unsigned i = 1; i < xprob_table_size(); i++)
		assert_true((unsigned)xprob_table_code(i - 1) < (unsigned)xprob_table_code(i));
}

static void test_ids_unique_camel(void **state)
{
	(void)state;
	for (unsigned i = 0; i < xprob_table_size(); i++) {
		const char *id = xprob_id(xprob_table_code(i));
		assert_non_null(id);
		assert_true(islower((unsigned char)id[0]));
		for (const char *c = id; *c; c++)
			assert_true(isalnum((unsigned char)*c));
		for (unsigned j = i + 1; j < xprob_table_size(); j++)
			assert_string_not_equal(id, xprob_id(xprob_table_code(j)));
		assert_non_null(xprob_message(xprob_table_code(i)));
		assert_true(strlen(xprob_message(xprob_table_code(i))) > 0);
	}
}

static void test_lookup(void **state)
{
	(void)state;
	assert_string_equal(xprob_id(XP_sbBadMagic), "sbBadMagic");
	assert_int_equal(xprob_severity_of(XP_sbBadMagic), XSEV_ERROR);
	assert_int_equal(xprob_fix_of(XP_sbBadCrc), XFIX_RECOMPUTE_CRC);
	assert_string_equal(xprob_fix_name(XFIX_RECOMPUTE_CRC), "RECOMPUTE_CRC");
	assert_null(xprob_id((enum xprob_code)0x7FFF));
}

struct capture {
	int n;
	struct xprob last;
};

static void capture_report(void *arg, const struct xprob *p)
{
	struct capture *c = arg;
	c->n++;
	c->last = *p;
}

static void test_emit(void **state)
{
	struct capture c = { 0 };
	struct xprob_sink sink = { capture_report, &c };

	(void)state;
	assert_int_equal(xprob_emit_val(&sink, XP_agfBadSeqno, "seqno", 8, 3, 4), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.last.code, XP_agfBadSeqno);
	assert_int_equal(c.last.expected, 3);
	assert_int_equal(c.last.observed, 4);
	assert_true(c.last.has & XPROB_HAS_EXPECTED);
	assert_string_equal(c.last.field, "seqno");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_sorted_unique),
		cmocka_unit_test(test_ids_unique_camel),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_emit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
