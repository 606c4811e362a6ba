/*
 * test_actions.c - the actions table (reconstruct/actions.def) and the
 * findings table (formats/problems.def) speak one vocabulary: every error
 * has a fix class, every class but NONE and REPORT_ONLY is answered by some
 * action, every action answers some class and none answers those two,
 * names are unique and written as the report schema wants them.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "formats/problem.h"
#include "reconstruct/actions.h"

/* Some action's row lists fix class fix. */
static int answered_by_some_action(enum xprob_fix fix)
{
	for (unsigned k = 0; k < XR_ACT_COUNT; k++)
		if (xr_action_answers((enum xr_action_kind)k, fix))
			return 1;
	return 0;
}

static void test_errors_have_a_fix(void **state)
{
	(void)state;
	for (unsigned i = 0; i < xprob_table_size(); i++) {
		enum xprob_code code = xprob_table_code(i);

		if (xprob_severity_of(code) != XSEV_ERROR)
			continue;
		if (xprob_fix_of(code) == XFIX_NONE)
			fail_msg("error %s has fix class NONE (REPORT_ONLY if repair leaves it)",
				 xprob_id(code));
	}
}

/* REPORT_ONLY says why an error stays; a warning or note has no such need. */
static void test_report_only_is_for_errors(void **state)
{
	(void)state;
	for (unsigned i = 0; i < xprob_table_size(); i++) {
		enum xprob_code code = xprob_table_code(i);

		if (xprob_fix_of(code) == XFIX_REPORT_ONLY &&
		    xprob_severity_of(code) != XSEV_ERROR)
			fail_msg("%s is not an error but has REPORT_ONLY", xprob_id(code));
	}
}

static void test_every_class_answered(void **state)
{
	(void)state;
	for (unsigned f = 0; f < XFIX_COUNT; f++) {
		if (f == XFIX_NONE || f == XFIX_REPORT_ONLY)
			continue;
		if (!answered_by_some_action((enum xprob_fix)f))
			fail_msg("no action answers fix class %s", xprob_fix_name((enum xprob_fix)f));
	}
	assert_false(answered_by_some_action(XFIX_NONE));
	assert_false(answered_by_some_action(XFIX_REPORT_ONLY));
}

/* Every class has a description, for doc/findings.md. */
static void test_classes_described(void **state)
{
	(void)state;
	for (unsigned f = 0; f < XFIX_COUNT; f++)
		assert_true(strlen(xprob_fix_description((enum xprob_fix)f)) > 0);
	assert_string_equal(xprob_fix_description(XFIX_COUNT), "");
}

static void test_every_action_answers(void **state)
{
	(void)state;
	for (unsigned k = 0; k < XR_ACT_COUNT; k++) {
		uint64_t fixes = xr_action_fixes((enum xr_action_kind)k);

		if (!fixes)
			fail_msg("action %s answers no fix class", xr_action_name((enum xr_action_kind)k));
		/* no bit beyond the classes there are */
		assert_int_equal(fixes >> XFIX_COUNT, 0);
	}
}

/* Names: unique, and what doc/repair-report.xsd's actionKind allows. */
static void test_names(void **state)
{
	(void)state;
	for (unsigned k = 0; k < XR_ACT_COUNT; k++) {
		const char *name = xr_action_name((enum xr_action_kind)k);
		const char *desc = xr_action_description((enum xr_action_kind)k);

		assert_non_null(name);
		assert_non_null(desc);
		assert_true(strlen(desc) > 0);
		assert_true(islower((unsigned char)name[0]));
		for (const char *c = name; *c; c++)
			assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) ||
				    *c == '-' || *c == '+');
		for (unsigned j = k + 1; j < XR_ACT_COUNT; j++)
			assert_string_not_equal(name, xr_action_name((enum xr_action_kind)j));
	}
}

static void test_lookups(void **state)
{
	(void)state;
	assert_string_equal(xr_action_name(XR_ACT_REBUILD_AG), "rebuild-ag");
	assert_string_equal(xr_action_name(XR_ACT_LOST_FOUND), "lost+found");
	assert_true(xr_action_answers(XR_ACT_REBUILD_AG, XFIX_REBUILD_AGF));
	assert_false(xr_action_answers(XR_ACT_REBUILD_AG, XFIX_FIX_LINK_COUNT));
	assert_false(xr_action_answers(XR_ACT_REBUILD_AG, XFIX_COUNT));
	assert_null(xr_action_name(XR_ACT_COUNT));
	assert_null(xr_action_description(XR_ACT_COUNT));
	assert_int_equal(xr_action_fixes(XR_ACT_COUNT), 0);
	assert_false(xr_action_answers(XR_ACT_COUNT, XFIX_REBUILD_AGF));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_have_a_fix),
		cmocka_unit_test(test_report_only_is_for_errors),
		cmocka_unit_test(test_every_class_answered),
		cmocka_unit_test(test_classes_described),
		cmocka_unit_test(test_every_action_answers),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
