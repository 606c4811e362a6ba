/*
 * test_lsn.c - LSN order in the kernel's signed arithmetic, and the LSN of
 * v5 metadata blocks found by magic.  The blocks are the attr/symlink
 * fixtures (fixtures/attr_recipe.sh); their LSNs are what xfs_db 6.1
 * printed for them (test_attr.c, test_symlink.c quote the lines): the
 * symlink block and the attr leaf 0x100000002, the remote attr value
 * NULLCOMMITLSN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/endian.h"
#include "formats/lsn.h"
#include "formats/symlink.h"

#include "fixtures/fixture.h"
#include "fixtures/attr_fx.h"
#include "fixtures/attr_v5.h"
#include "fixtures/sym_v5.h"

static void test_ahead(void **state)
{
	uint64_t head = xfmt_lsn_make(1, 49);

	(void)state;
	/* xfs_repair: "Maximum metadata LSN (1:2019) is ahead of log (1:49)" */
	assert_true(xfmt_lsn_ahead(xfmt_lsn_make(1, 2019), head));
	assert_true(xfmt_lsn_ahead(xfmt_lsn_make(2, 0), head));
	/* the head itself counts as ahead, as xfs_repair counts it */
	assert_true(xfmt_lsn_ahead(head, head));
	assert_false(xfmt_lsn_ahead(xfmt_lsn_make(1, 48), head));
	assert_false(xfmt_lsn_ahead(0, head));
	/* never ahead: NULLCOMMITLSN, a negative cycle, a negative block of the same cycle */
	assert_false(xfmt_lsn_ahead(XFMT_NULLCOMMITLSN, head));
	assert_false(xfmt_lsn_ahead(xfmt_lsn_make(0x80000001u, 0), head));
	assert_false(xfmt_lsn_ahead(xfmt_lsn_make(1, 0x80000000u), head));
	/* a later cycle is ahead whatever its block says: xfs_repair -n,
	 * "Maximum metadata LSN (2:-16) is ahead of log (1:13810)" */
	assert_true(xfmt_lsn_ahead(xfmt_lsn_make(2, 0xfffffff0u), xfmt_lsn_make(1, 13810)));
	assert_false(xfmt_lsn_ahead(xfmt_lsn_make(5, 0), XFMT_NULLCOMMITLSN));
}

static void test_later(void **state)
{
	(void)state;
	assert_int_equal(xfmt_lsn_later(0, xfmt_lsn_make(1, 2)), xfmt_lsn_make(1, 2));
	assert_int_equal(xfmt_lsn_later(xfmt_lsn_make(2, 1), xfmt_lsn_make(1, 9)),
			 xfmt_lsn_make(2, 1));
	assert_int_equal(xfmt_lsn_later(xfmt_lsn_make(1, 9), xfmt_lsn_make(1, 10)),
			 xfmt_lsn_make(1, 10));
	assert_int_equal(xfmt_lsn_later(XFMT_NULLCOMMITLSN, xfmt_lsn_make(1, 2)),
			 xfmt_lsn_make(1, 2));
	assert_int_equal(xfmt_lsn_later(xfmt_lsn_make(3, 0), XFMT_NULLCOMMITLSN),
			 xfmt_lsn_make(3, 0));
	assert_int_equal(xfmt_lsn_later(XFMT_NULLCOMMITLSN, XFMT_NULLCOMMITLSN), 0);
	assert_int_equal(xfmt_lsn_later(xfmt_lsn_make(1, 9), xfmt_lsn_make(2, 0xfffffff0u)),
			 xfmt_lsn_make(2, 0xfffffff0u));
}

static void test_meta_lsn(void **state)
{
	uint8_t *sl = afx_load(&sym_remote_blk), *leaf = afx_load(&attr_leaf_blk);
	uint8_t *rmt = afx_load(&attr_rmt_first);
	uint64_t lsn = 0;

	(void)state;
	assert_true(xfmt_meta_lsn(sl, 4096, &afx_geom_v5, &lsn));
	assert_int_equal(lsn, 0x100000002ull);
	lsn = 0;
	assert_true(xfmt_meta_lsn(leaf, 4096, &afx_geom_v5, &lsn));
	assert_int_equal(lsn, 0x100000002ull);
	assert_true(xfmt_meta_lsn(rmt, 4096, &afx_geom_v5, &lsn));
	assert_int_equal(lsn, XFMT_NULLCOMMITLSN);
	/* v4 blocks carry none; a short buffer or an unknown magic neither */
	assert_false(xfmt_meta_lsn(sl, 4096, &afx_geom_v4, &lsn));
	assert_false(xfmt_meta_lsn(sl, 40, &afx_geom_v5, &lsn));
	memset(sl, 0, 16);
	assert_false(xfmt_meta_lsn(sl, 4096, &afx_geom_v5, &lsn));
	free(sl);
	free(leaf);
	free(rmt);
}

/* A header written anew around the payload equals the one the kernel wrote. */
static void test_symlink_header_rewritten(void **state)
{
	uint8_t *good = afx_load(&sym_remote_blk), *blk = afx_load(&sym_remote_blk);

	(void)state;
	memset(blk, 0x5a, XFMT_SYMLINK_HDR_LEN);
	/* xfs_db: owner = 136, bno = 416, offset 0, bytes 1000, lsn 0x100000002 */
	assert_int_equal(xfmt_rmt_hdr_encode(blk, 4096, &afx_geom_v5, XFS_SYMLINK_MAGIC, 136, 0,
					     1000, 416, 0x100000002ull),
			 0);
	assert_memory_equal(blk, good, 4096);
	assert_int_equal(xfmt_rmt_hdr_encode(blk, 55, &afx_geom_v5, XFS_SYMLINK_MAGIC, 136, 0,
					     1000, 416, 0),
			 -1);
	free(good);
	free(blk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_later),
		cmocka_unit_test(test_meta_lsn),
		cmocka_unit_test(test_symlink_header_rewritten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
