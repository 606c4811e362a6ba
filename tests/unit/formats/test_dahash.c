/*
 * test_dahash.c - the directory/attribute name hash against xfs_db 6.1
 * (`xfs_db -c 'hash NAME'`) and the ASCII-CI hash against the hashes a
 * case-insensitive filesystem made by mkfs.xfs 6.1 stores (`xfs_db -c
 * 'path /ci' -c ls` on ci.img, dir_recipe.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "formats/dahash.h"

#include "fixtures/dir_geom.h"

static uint32_t h(const char *s)
{
	return xfmt_da_hashname((const uint8_t *)s, strlen(s));
}

static uint32_t hci(const char *s)
{
	return xfmt_ascii_ci_hashname((const uint8_t *)s, strlen(s));
}

/* Every remainder length (0..3 after the 4-byte steps), long and non-ASCII names. */
static void test_hash_vs_xfs_db(void **state)
{
	char l255[256];

	(void)state;
	assert_int_equal(h(""), 0);
	assert_int_equal(h("."), XFS_DA_HASH_DOT);
	assert_int_equal(h(".."), XFS_DA_HASH_DOTDOT);
	assert_int_equal(h("a"), 0x61);
	assert_int_equal(h("ab"), 0x30e2);
	assert_int_equal(h("abc"), 0x187163);
	assert_int_equal(h("abcd"), 0xc38b1e4);
	assert_int_equal(h("abcde"), 0x1c58f263);
	assert_int_equal(h("abcdefgh"), 0x4c7a38f6);
	assert_int_equal(h("file_with_name_1"), 0x8f332094);
	assert_int_equal(h("lost+found"), 0x21aa60c);
	assert_int_equal(h("Makefile.am"), 0x276038d3);
	/* UTF-8 "été_中文" and bytes >= 0x80: names are unsigned bytes. */
	assert_int_equal(h("\303\251t\303\251_\344\270\255\346\226\207"), 0x57d2fad6);
	assert_int_equal(h("\377\376\375\374\373"), 0xefff3ef4);
	memset(l255, 'L', 255);
	l255[255] = 0;
	assert_int_equal(h(l255), 0x98000000);
	/* Same hashes the v5 block directory's leaf stores (xfs_db ls). */
	assert_int_equal(h("f1"), 0x3331);
	assert_int_equal(h("d2"), 0x3232);
	assert_int_equal(h("l3"), 0x3633);
}

static void test_ci_xfrm(void **state)
{
	(void)state;
	assert_int_equal(xfmt_ascii_ci_xfrm('A'), 'a');
	assert_int_equal(xfmt_ascii_ci_xfrm('Z'), 'z');
	assert_int_equal(xfmt_ascii_ci_xfrm('a'), 'a');
	assert_int_equal(xfmt_ascii_ci_xfrm('@'), '@');
	assert_int_equal(xfmt_ascii_ci_xfrm('['), '[');
	assert_int_equal(xfmt_ascii_ci_xfrm('`'), '`');
	assert_int_equal(xfmt_ascii_ci_xfrm(0xC0), 0xE0);
	assert_int_equal(xfmt_ascii_ci_xfrm(0xD6), 0xF6);
	assert_int_equal(xfmt_ascii_ci_xfrm(0xD7), 0xD7);   /* multiplication sign */
	assert_int_equal(xfmt_ascii_ci_xfrm(0xD8), 0xF8);
	assert_int_equal(xfmt_ascii_ci_xfrm(0xDE), 0xFE);
	assert_int_equal(xfmt_ascii_ci_xfrm(0xDF), 0xDF);   /* sharp s */
	assert_int_equal(xfmt_ascii_ci_xfrm(0xE0), 0xE0);
	assert_int_equal(xfmt_ascii_ci_xfrm(0xBF), 0xBF);
	for (unsigned c = 0; c < 256; c++) {
		uint8_t x = xfmt_ascii_ci_xfrm((uint8_t)c);
		bool folds = (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7);

		assert_int_equal(x, folds ? c + 0x20 : c);
	}
}

/* Hashes stored in ci.img's leaf entries, as `xfs_db ls` lists them (good). */
static void test_ci_hash_vs_image(void **state)
{
	static const struct { const char *name; uint32_t hash; } ci[] = {
		{ "Alpha", 0x1d9c3467 }, { "BETA", 0x0c597a61 }, { "gamma", 0x7c3b76e7 },
		{ "MiXeD_CaSe", 0x1589eef6 }, { "ZZtop", 0xaf5d37f7 }, { "abcXYZ", 0x2c7e3ff4 },
		{ "Hello_World", 0x912512a9 }, { "[AZ]@_`az{", 0x1ded0b53 }, { "09_Q", 0x060e6ff1 },
		{ "File_Number_0.TXT", 0xca8df84a }, { "File_Number_29.TXT", 0x3dbf2300 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ci) / sizeof(ci[0]); i++) {
		const uint8_t *nm = (const uint8_t *)ci[i].name;
		size_t len = strlen(ci[i].name);
		char lower[32];

		assert_int_equal(hci(ci[i].name), ci[i].hash);
		assert_int_equal(xfmt_dir2_hashname(&dir_geom_ci, nm, len), ci[i].hash);
		/* Folding then hashing classically gives the same value. */
		for (size_t k = 0; k <= len; k++)
			lower[k] = (char)xfmt_ascii_ci_xfrm((uint8_t)ci[i].name[k]);
		assert_int_equal(h(lower), ci[i].hash);
	}
	/* A name with capitals hashes differently without the BORG bit. */
	assert_true(xfmt_dir_is_ci(&dir_geom_ci));
	assert_false(xfmt_dir_is_ci(&dir_geom_v5));
	assert_int_not_equal(xfmt_dir2_hashname(&dir_geom_v5, (const uint8_t *)"Alpha", 5),
			     0x1d9c3467);
	assert_int_equal(xfmt_dir2_hashname(&dir_geom_v5, (const uint8_t *)"Alpha", 5), h("Alpha"));
	/* Latin-1 capitals fold on the kernel's rule (xfs-ondisk.md 7.8, from source). */
	assert_int_equal(hci("\300\326\330\336"), h("\340\366\370\376"));
	assert_int_equal(hci("\327\337"), h("\327\337"));
}

/* The hash never reads past len: heap copies of exactly len bytes (ASan). */
static void test_hash_bounds(void **state)
{
	/* xfs_db hash of each prefix of "abcdefghi". */
	static const uint32_t want[10] = {
		0, 0x61, 0x30e2, 0x187163, 0xc38b1e4, 0x1c58f263, 0x2c7931e8, 0x3c98f471,
		0x4c7a38f6, 0x3d1c7b4f,
	};

	(void)state;
	for (size_t len = 0; len <= 9; len++) {
		uint8_t *p = fx_dup((const uint8_t *)"abcdefghi", len);

		assert_int_equal(xfmt_da_hashname(p, len), want[len]);
		/* Lower-case names hash the same either way. */
		assert_int_equal(xfmt_ascii_ci_hashname(p, len), want[len]);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_vs_xfs_db),
		cmocka_unit_test(test_ci_xfrm),
		cmocka_unit_test(test_ci_hash_vs_image),
		cmocka_unit_test(test_hash_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
