/*
 * test_block.c - the block registry against blocks read from real images
 * (the fixtures, captured with xfs_db): classify names each for what it is,
 * each v5 row's CRC offset is where the image's own CRC checks out, and its
 * owner offset reads what the kind's own decoder reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/block.h"
#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/danode.h"
#include "formats/dir2.h"
#include "formats/rmt_hdr.h"

#include "fixtures/fixture.h"
#include "fixtures/attr_fx.h"
#include "fixtures/attr_v4.h"
#include "fixtures/attr_v5.h"
#include "fixtures/bt_alloc.h"
#include "fixtures/bt_bmbt.h"
#include "fixtures/bt_inobt.h"
#include "fixtures/bt_refc.h"
#include "fixtures/bt_rmap.h"
#include "fixtures/bt_v4.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"
#include "fixtures/ino_v5.h"
#include "fixtures/sym_v5.h"
#include "fixtures/v4_agf0.h"
#include "fixtures/v5_agf0.h"
#include "fixtures/v5_agfl0.h"
#include "fixtures/v5_agi0.h"
#include "fixtures/v5_sb0.h"

struct real {
	const char *what;
	const uint8_t *buf;
	size_t len;
	bool v5;
	enum xfmt_blk_kind kind;
};

/* Every kind of block the fixtures hold, with what it is. */
static void real_blocks(struct real *r, size_t *n, uint8_t **heap, size_t *nheap)
{
	size_t i = 0, h = 0;
#define REAL(w, b, l, v, k) (r[i++] = (struct real){ (w), (b), (l), (v), (k) })
#define HEAP(x) (heap[h++] = (x))
	REAL("sb", HEAP(fx_load(&fx_v5_sb0)), fx_v5_sb0.len, true, XFMT_BLK_SB);
	REAL("agf", HEAP(fx_load(&fx_v5_agf0)), fx_v5_agf0.len, true, XFMT_BLK_AGF);
	REAL("agf v4", HEAP(fx_load(&fx_v4_agf0)), fx_v4_agf0.len, false, XFMT_BLK_AGF);
	REAL("agi", HEAP(fx_load(&fx_v5_agi0)), fx_v5_agi0.len, true, XFMT_BLK_AGI);
	REAL("agfl", HEAP(fx_load(&fx_v5_agfl0)), fx_v5_agfl0.len, true, XFMT_BLK_AGFL);
	REAL("bnobt node", bt_bno_node, 4096, true, XFMT_BLK_BNOBT);
	REAL("bnobt leaf", bt_bno_leaf, 4096, true, XFMT_BLK_BNOBT);
	REAL("cntbt leaf", bt_cnt_leaf, 4096, true, XFMT_BLK_CNTBT);
	REAL("inobt leaf", bt_ino_leaf, 4096, true, XFMT_BLK_INOBT);
	REAL("finobt leaf", bt_fino_leaf, 4096, true, XFMT_BLK_FINOBT);
	REAL("rmapbt leaf", bt_rmap_leaf, 4096, true, XFMT_BLK_RMAPBT);
	REAL("refcountbt leaf", bt_refc_leaf, 4096, true, XFMT_BLK_REFCBT);
	REAL("bmbt node", bt_bmbt_node, 4096, true, XFMT_BLK_BMBT);
	REAL("bmbt leaf", bt_bmbt_leaf, 4096, true, XFMT_BLK_BMBT);
	REAL("bnobt v4", bt_v4_bno_leaf, 4096, false, XFMT_BLK_BNOBT);
	REAL("inobt v4", bt_v4_ino_leaf, 4096, false, XFMT_BLK_INOBT);
	REAL("inode", ino_v5_root, 512, true, XFMT_BLK_INODES);
	REAL("dir block", fx_dir_v5_block, 4096, true, XFMT_BLK_DIR_BLOCK);
	REAL("dir data", fx_dir_v5_data, 4096, true, XFMT_BLK_DIR_DATA);
	REAL("dir leaf1", fx_dir_v5_leaf1, 4096, true, XFMT_BLK_DIR_LEAF1);
	REAL("dir leafn", fx_dir_v5_leafn, 4096, true, XFMT_BLK_DIR_LEAFN);
	REAL("dir free", fx_dir_v5_free, 4096, true, XFMT_BLK_DIR_FREE);
	REAL("dir node", fx_dir_v5_danode, 4096, true, XFMT_BLK_DA_NODE);
	REAL("dir block v4", fx_dir_v4_block, 4096, false, XFMT_BLK_DIR_BLOCK);
	REAL("dir data v4", fx_dir_v4_data, 4096, false, XFMT_BLK_DIR_DATA);
	REAL("dir leaf1 v4", fx_dir_v4_leaf1, 4096, false, XFMT_BLK_DIR_LEAF1);
	REAL("dir node v4", fx_dir_v4_danode, 4096, false, XFMT_BLK_DA_NODE);
	REAL("dir free v4", fx_dir_v4_free, 4096, false, XFMT_BLK_DIR_FREE);
	REAL("attr leaf", HEAP(afx_load(&attr_leaf_blk)), attr_leaf_blk.len, true,
	     XFMT_BLK_ATTR_LEAF);
	REAL("attr node", HEAP(afx_load(&attr_node_blk)), attr_node_blk.len, true,
	     XFMT_BLK_DA_NODE);
	REAL("attr remote", HEAP(afx_load(&attr_rmt_first)), attr_rmt_first.len, true,
	     XFMT_BLK_ATTR_RMT);
	REAL("attr leaf v4", HEAP(afx_load(&attr_v4_leaf)), attr_v4_leaf.len, false,
	     XFMT_BLK_ATTR_LEAF);
	REAL("symlink", HEAP(afx_load(&sym_remote_blk)), sym_remote_blk.len, true,
	     XFMT_BLK_SYMLINK);
#undef REAL
#undef HEAP
	*n = i;
	*nheap = h;
}

static void test_classify_real(void **state)
{
	struct real r[40];
	uint8_t *heap[16];
	size_t n, nheap;

	(void)state;
	real_blocks(r, &n, heap, &nheap);
	for (size_t i = 0; i < n; i++) {
		enum xfmt_blk_ver ver = xfmt_blk_ver_of(r[i].v5);

		print_message("%s\n", r[i].what);
		assert_int_equal(xfmt_blk_classify(r[i].buf, r[i].len, ver), r[i].kind);
		assert_int_equal(xfmt_blk_classify(r[i].buf, r[i].len, XFMT_BLK_ANY), r[i].kind);
		/* The other version's magics never match it (the inode's is shared). */
		if (r[i].kind != XFMT_BLK_INODES && r[i].kind != XFMT_BLK_SB &&
		    r[i].kind != XFMT_BLK_AGF && r[i].kind != XFMT_BLK_AGI)
			assert_int_equal(xfmt_blk_classify(r[i].buf, r[i].len,
							   xfmt_blk_ver_of(!r[i].v5)),
					 XFMT_BLK_UNKNOWN);
		/* Too short to hold the magic: unknown, never a read past the end. */
		assert_int_equal(xfmt_blk_classify(r[i].buf, xfmt_blk_row(r[i].kind)->magic_off +
							     1u, ver),
				 XFMT_BLK_UNKNOWN);
	}
	for (size_t i = 0; i < nheap; i++)
		free(heap[i]);
}

/* Each v5 block's own CRC checks out at the row's offset (over the sector, inode or block). */
static void test_crc_offsets(void **state)
{
	struct real r[40];
	uint8_t *heap[16];
	size_t n, nheap;

	(void)state;
	real_blocks(r, &n, heap, &nheap);
	for (size_t i = 0; i < n; i++) {
		const struct xfmt_blk_row *row = xfmt_blk_row(r[i].kind);

		if (!r[i].v5)
			continue;
		print_message("%s\n", r[i].what);
		assert_true(row->crc_off > 0);
		assert_true(xfmt_crc_ok(r[i].buf, r[i].len, (size_t)row->crc_off));
	}
	for (size_t i = 0; i < nheap; i++)
		free(heap[i]);
}

/* The owner field read through the registry equals what each kind's own decoder reads. */
static void test_owner_offsets(void **state)
{
	struct real r[40];
	uint8_t *heap[16];
	size_t n, nheap;

	(void)state;
	real_blocks(r, &n, heap, &nheap);
	for (size_t i = 0; i < n; i++) {
		const struct xfmt_blk_row *row = xfmt_blk_row(r[i].kind);
		uint64_t owner = 0, want = 0;

		if (!r[i].v5 || row->owner_off < 0)
			continue;
		print_message("%s\n", r[i].what);
		assert_true(xfmt_blk_owner_of(r[i].buf, r[i].len, r[i].kind, &owner));
		if (row->btnum >= 0) {
			struct xfmt_bt_hdr h;

			assert_int_equal(xfmt_bt_hdr_decode(r[i].buf, r[i].len,
							    (enum xfmt_btnum)row->btnum, true, &h),
					 0);
			want = h.owner;
		} else if (xfmt_blk_is_dir_data(r[i].kind)) {
			struct xfmt_dir2_data_hdr h;

			assert_int_equal(xfmt_dir2_data_hdr_decode(r[i].buf, r[i].len, true, &h), 0);
			want = h.owner;
		} else if (r[i].kind == XFMT_BLK_DIR_FREE) {
			struct xfmt_dir2_free_hdr h;

			assert_int_equal(xfmt_dir2_free_hdr_decode(r[i].buf, r[i].len, true, &h), 0);
			want = h.owner;
		} else if (row->magic_off == 8) {
			struct xfmt_da_blkinfo h;

			assert_int_equal(xfmt_da_blkinfo_decode(r[i].buf, r[i].len, true, &h), 0);
			want = h.owner;
		} else {
			struct xfmt_rmt_hdr h;

			assert_int_equal(xfmt_rmt_hdr_decode(r[i].buf, r[i].len, &h), 0);
			want = h.owner;
		}
		assert_int_equal(owner, want);
		/* An AG tree of AG 0 is owned by 0; a file's block never is. */
		if (row->owner != XFMT_BLK_OWN_AG)
			assert_true(owner >= 128);
	}
	for (size_t i = 0; i < nheap; i++)
		free(heap[i]);
}

/* The rows agree with the btree module, and each kind has a table where it exists. */
static void test_rows(void **state)
{
	(void)state;
	for (int bt = 0; bt < XFMT_BT_COUNT; bt++) {
		const struct xfmt_blk_row *row = xfmt_blk_row_bt((enum xfmt_btnum)bt);

		assert_non_null(row);
		assert_int_equal(row->btnum, bt);
		assert_int_equal(xfmt_blk_magic(row, false), xfmt_bt_magic((enum xfmt_btnum)bt, false));
		assert_int_equal(xfmt_blk_magic(row, true), xfmt_bt_magic((enum xfmt_btnum)bt, true));
	}
	for (int k = 1; k < XFMT_BLK_KIND_COUNT; k++) {
		const struct xfmt_blk_row *row = xfmt_blk_row((enum xfmt_blk_kind)k);

		assert_int_equal(row->kind, k);
		assert_non_null(row->name);
		assert_non_null(row->verifier);
		assert_non_null(xfmt_blk_fields(row, true));
		if (row->magic_v4)
			assert_non_null(xfmt_blk_fields(row, false));
		else
			assert_null(xfmt_blk_fields(row, false));
	}
	assert_int_equal(xfmt_blk_row((enum xfmt_blk_kind)999)->kind, XFMT_BLK_UNKNOWN);
	assert_null(xfmt_blk_row_bt(XFMT_BT_COUNT));
	assert_int_equal(xfmt_blk_classify(NULL, 4096, XFMT_BLK_ANY), XFMT_BLK_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_real),
		cmocka_unit_test(test_crc_offsets),
		cmocka_unit_test(test_owner_offsets),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
