/*
 * test_btrec.c - btree records and keys: decoding against what xfs_db
 * printed for the fixture blocks (fixtures/bt_*.h), key order and parent
 * keys across real node/leaf pairs, and the per-record sanity rules with one
 * corrupted field at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "formats/btrec.h"
#include "formats/endian.h"

#include "fixtures/bt_alloc.h"
#include "fixtures/bt_bmbt.h"
#include "fixtures/bt_geom.h"
#include "fixtures/bt_inobt.h"
#include "fixtures/bt_refc.h"
#include "fixtures/bt_rmap.h"
#include "fixtures/bt_v4.h"

#define BS 4096u

static const uint8_t *rec(const uint8_t *blk, enum xfmt_btnum bt, bool v5, unsigned i)
{
	const uint8_t *p = xfmt_bt_rec(blk, BS, bt, v5, i);

	assert_non_null(p);
	return p;
}

static uint16_t numrecs(const uint8_t *blk)
{
	return xfmt_get_be16(blk + 6);
}

/* ------------------------------------------------------------ decoding */

static void test_alloc_records(void **state)
{
	struct xfmt_alloc_rec r;

	(void)state;
	/* bno leaf: recs 1:[2348,1] 100:[2547,1] 505:[3362,1] */
	xfmt_alloc_rec_decode(rec(bt_bno_leaf, XFMT_BT_BNO, true, 0), &r);
	assert_int_equal(r.startblock, 2348);
	assert_int_equal(r.blockcount, 1);
	xfmt_alloc_rec_decode(rec(bt_bno_leaf, XFMT_BT_BNO, true, 99), &r);
	assert_int_equal(r.startblock, 2547);
	xfmt_alloc_rec_decode(rec(bt_bno_leaf, XFMT_BT_BNO, true, 504), &r);
	assert_int_equal(r.startblock, 3362);
	assert_int_equal(r.blockcount, 1);
	/* cnt leaf (same extents, by size): 1:[2348,1] 505:[3362,1] */
	xfmt_alloc_rec_decode(rec(bt_cnt_leaf, XFMT_BT_CNT, true, 504), &r);
	assert_int_equal(r.startblock, 3362);
	/* bno root key 2 = [2348,1], key 19 = [19473,1] */
	xfmt_alloc_key_decode(xfmt_bt_key(bt_bno_node, BS, XFMT_BT_BNO, true, 18), &r);
	assert_int_equal(r.startblock, 19473);
	assert_int_equal(r.blockcount, 1);
	/* v4 fresh AG: 1:[12,20468] */
	xfmt_alloc_rec_decode(rec(bt_v4_bno_leaf, XFMT_BT_BNO, false, 0), &r);
	assert_int_equal(r.startblock, 12);
	assert_int_equal(r.blockcount, 20468);
}

static void test_inobt_records(void **state)
{
	struct xfmt_inobt_rec r;

	(void)state;
	/* [startino,holemask,count,freecount,free] 1:[8832,0,64,32,0x5555555555555555] */
	xfmt_inobt_rec_decode(rec(bt_ino_leaf, XFMT_BT_INO, true, 0), true, &r);
	assert_int_equal(r.startino, 8832);
	assert_int_equal(r.holemask, 0);
	assert_int_equal(r.count, 64);
	assert_int_equal(r.freecount, 32);
	assert_int_equal(r.freecount_sparse, 32);
	assert_int_equal(r.free, 0x5555555555555555ull);
	/* 187:[151680,0,64,46,0xfffffff555555555] */
	xfmt_inobt_rec_decode(rec(bt_ino_leaf, XFMT_BT_INO, true, 186), true, &r);
	assert_int_equal(r.startino, 151680);
	assert_int_equal(r.freecount, 46);
	assert_int_equal(r.free, 0xfffffff555555555ull);
	assert_int_equal(xfmt_inobt_rec_freecount(&r), 46);
	/* finobt 100:[81664,0,64,32,...] */
	xfmt_inobt_rec_decode(rec(bt_fino_leaf, XFMT_BT_FINO, true, 99), true, &r);
	assert_int_equal(r.startino, 81664);
	assert_int_equal(xfmt_inobt_key_decode(xfmt_bt_key(bt_ino_node, BS, XFMT_BT_INO, true, 1)),
			 8832);
	/* v4 full layout [startino,freecount,free] 1:[128,61,0xfffffffffffffff8] */
	xfmt_inobt_rec_decode(rec(bt_v4_ino_leaf, XFMT_BT_INO, false, 0), false, &r);
	assert_int_equal(r.startino, 128);
	assert_int_equal(r.freecount, 61);
	assert_int_equal(r.holemask, 0);
	assert_int_equal(r.count, 64);
	assert_int_equal(r.free, 0xfffffffffffffff8ull);
	/* The same bytes read with the sparse layout mean something else. */
	xfmt_inobt_rec_decode(rec(bt_v4_ino_leaf, XFMT_BT_INO, false, 0), true, &r);
	assert_int_equal(r.count, 0);
	assert_int_equal(r.freecount, 61);
}

static void test_rmap_records(void **state)
{
	struct xfmt_rmap_rec r;
	struct xfmt_rmap_key k;

	(void)state;
	/* [startblock,blockcount,owner,offset,extentflag,attrfork,bmbtblock]
	 * 1:[20358,1,132,19,1,0,0] 3:[20359,1,134,20,0,0,0] 168:[20469,1,134,130,0,0,0] */
	xfmt_rmap_rec_decode(rec(bt_rmap_leaf, XFMT_BT_RMAP, true, 0), &r);
	assert_int_equal(r.startblock, 20358);
	assert_int_equal(r.blockcount, 1);
	assert_int_equal(r.owner, 132);
	assert_int_equal(r.offset, 19);
	assert_true(r.unwritten);
	assert_false(r.attr_fork);
	assert_false(r.bmbt_block);
	assert_int_equal(r.raw_offset, XFS_RMAP_OFF_UNWRITTEN | 19);
	xfmt_rmap_rec_decode(rec(bt_rmap_leaf, XFMT_BT_RMAP, true, 2), &r);
	assert_int_equal(r.startblock, 20359);
	assert_int_equal(r.owner, 134);
	assert_int_equal(r.offset, 20);
	assert_false(r.unwritten);
	xfmt_rmap_rec_decode(rec(bt_rmap_leaf, XFMT_BT_RMAP, true, 167), &r);
	assert_int_equal(r.startblock, 20469);
	assert_int_equal(r.owner, 134);
	assert_int_equal(r.offset, 130);
	/* node key 1: [17360,-5,0,0,0, 17525,84111,0,0,0] */
	xfmt_rmap_key_decode(xfmt_bt_key(bt_rmap_node, BS, XFMT_BT_RMAP, true, 0), &k);
	assert_int_equal(k.startblock, 17360);
	assert_int_equal(k.owner, XFS_RMAP_OWN_AG);
	assert_int_equal(k.offset, 0);
	xfmt_rmap_key_decode(xfmt_bt_highkey(bt_rmap_node, BS, XFMT_BT_RMAP, true, 0), &k);
	assert_int_equal(k.startblock, 17525);
	assert_int_equal(k.owner, 84111);
	/* node key 16: [20358,132,19,0,0, 20469,134,130,0,0] */
	xfmt_rmap_key_decode(xfmt_bt_key(bt_rmap_node, BS, XFMT_BT_RMAP, true, 15), &k);
	assert_int_equal(k.startblock, 20358);
	assert_int_equal(k.owner, 132);
	assert_int_equal(k.offset, 19);
	assert_false(k.unwritten);  /* keys never carry UNWRITTEN */
	xfmt_rmap_key_decode(xfmt_bt_highkey(bt_rmap_node, BS, XFMT_BT_RMAP, true, 15), &k);
	assert_int_equal(k.startblock, 20469);
	assert_int_equal(k.owner, 134);
	assert_int_equal(k.offset, 130);
}

static void test_refc_and_bmbt_records(void **state)
{
	struct xfmt_refc_rec r;
	struct xfmt_bmbt_rec b;

	(void)state;
	/* [startblock,blockcount,refcount,cowflag] 1:[21029,1,2,0] 336:[21699,1,2,0] */
	xfmt_refc_rec_decode(rec(bt_refc_leaf, XFMT_BT_REFC, true, 0), &r);
	assert_int_equal(r.startblock, 21029);
	assert_int_equal(r.blockcount, 1);
	assert_int_equal(r.refcount, 2);
	assert_false(r.cow);
	xfmt_refc_rec_decode(rec(bt_refc_leaf, XFMT_BT_REFC, true, 335), &r);
	assert_int_equal(r.startblock, 21699);
	assert_int_equal(xfmt_refc_key_decode(xfmt_bt_key(bt_refc_node, BS, XFMT_BT_REFC, true, 17)),
			 31685);
	/* The CoW example from xfs-ondisk.md 3.4. */
	{
		static const uint8_t cow[12] = { 0x80, 0, 0x31, 0xea, 0, 0, 0, 0x0a, 0, 0, 0, 1 };
		xfmt_refc_rec_decode(cow, &r);
		assert_true(r.cow);
		assert_int_equal(r.startblock, 12778);
		assert_int_equal(r.blockcount, 10);
		assert_int_equal(r.refcount, 1);
	}
	/* [startoff,startblock,blockcount,extentflag] 1:[260,20599,1,0] 2:[261,20600,1,1]
	 * 251:[510,20849,1,0] */
	xfmt_bmbt_rec_decode(rec(bt_bmbt_leaf, XFMT_BT_BMAP, true, 0), &b);
	assert_int_equal(b.startoff, 260);
	assert_int_equal(b.startblock, 20599);
	assert_int_equal(b.blockcount, 1);
	assert_false(b.unwritten);
	xfmt_bmbt_rec_decode(rec(bt_bmbt_leaf, XFMT_BT_BMAP, true, 1), &b);
	assert_int_equal(b.startoff, 261);
	assert_int_equal(b.startblock, 20600);
	assert_true(b.unwritten);
	xfmt_bmbt_rec_decode(rec(bt_bmbt_leaf, XFMT_BT_BMAP, true, 250), &b);
	assert_int_equal(b.startoff, 510);
	assert_int_equal(b.startblock, 20849);
	assert_int_equal(xfmt_bmbt_key_decode(xfmt_bt_key(bt_bmbt_node, BS, XFMT_BT_BMAP, true, 1)),
			 260);
	/* xfs-ondisk.md 3.4 example: unwritten, startoff 0, startblock 13830, count 256. */
	{
		static const uint8_t ex[16] = { 0x80, 0, 0, 0, 0, 0, 0, 0,
						0, 0, 0, 0x06, 0xc0, 0xc0, 0x01, 0x00 };
		xfmt_bmbt_rec_decode(ex, &b);
		assert_true(b.unwritten);
		assert_int_equal(b.startoff, 0);
		assert_int_equal(b.startblock, 13830);
		assert_int_equal(b.blockcount, 256);
	}
}

/* ---------------------------------------------------------- key order */

/* Every leaf's records are strictly increasing in their tree's key order. */
static void test_leaves_in_key_order(void **state)
{
	static const struct { const uint8_t *blk; enum xfmt_btnum bt; bool v5; } t[] = {
		{ bt_bno_leaf, XFMT_BT_BNO, true }, { bt_cnt_leaf, XFMT_BT_CNT, true },
		{ bt_ino_leaf, XFMT_BT_INO, true }, { bt_fino_leaf, XFMT_BT_FINO, true },
		{ bt_rmap_leaf, XFMT_BT_RMAP, true }, { bt_refc_leaf, XFMT_BT_REFC, true },
		{ bt_bmbt_leaf, XFMT_BT_BMAP, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned n = numrecs(t[i].blk);

		for (unsigned j = 1; j < n; j++) {
			const uint8_t *a = rec(t[i].blk, t[i].bt, t[i].v5, j - 1);
			const uint8_t *b = rec(t[i].blk, t[i].bt, t[i].v5, j);

			assert_true(xfmt_bt_rec_cmp(t[i].bt, a, b) < 0);
			assert_true(xfmt_bt_rec_cmp(t[i].bt, b, a) > 0);
			assert_false(xfmt_bt_recs_overlap(t[i].bt, a, b));
		}
	}
}

static void test_nodes_in_key_order(void **state)
{
	static const struct { const uint8_t *blk; enum xfmt_btnum bt; } t[] = {
		{ bt_bno_node, XFMT_BT_BNO }, { bt_ino_node, XFMT_BT_INO },
		{ bt_rmap_node, XFMT_BT_RMAP }, { bt_refc_node, XFMT_BT_REFC },
		{ bt_bmbt_node, XFMT_BT_BMAP },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned n = numrecs(t[i].blk);

		for (unsigned j = 1; j < n; j++)
			assert_true(xfmt_bt_key_cmp(t[i].bt,
				    xfmt_bt_key(t[i].blk, BS, t[i].bt, true, j - 1),
				    xfmt_bt_key(t[i].blk, BS, t[i].bt, true, j)) < 0);
	}
}

/* Parent key i equals the key of the first record of child i (ptr i). */
static void test_parent_keys_match_children(void **state)
{
	static const struct {
		const uint8_t *node, *leaf;
		enum xfmt_btnum bt;
		unsigned slot;
	} t[] = {
		{ bt_bno_node, bt_bno_leaf, XFMT_BT_BNO, 1 },    /* ptrs[2] = 18372 */
		{ bt_ino_node, bt_ino_leaf, XFMT_BT_INO, 1 },    /* ptrs[2] = 10359 */
		{ bt_refc_node, bt_refc_leaf, XFMT_BT_REFC, 1 }, /* ptrs[2] = 1455 */
		{ bt_bmbt_node, bt_bmbt_leaf, XFMT_BT_BMAP, 1 }, /* ptrs[2] = 36757 */
		{ bt_rmap_node, bt_rmap_leaf, XFMT_BT_RMAP, 15 },/* ptrs[16] = 1423 */
	};
	uint8_t k[XFMT_BT_KEY_MAX], hk[XFMT_BT_KEY_MAX], best[XFMT_BT_KEY_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const uint8_t *pk = xfmt_bt_key(t[i].node, BS, t[i].bt, true, t[i].slot);
		int kl = xfmt_bt_rec_key(t[i].bt, rec(t[i].leaf, t[i].bt, true, 0), k);

		assert_true(kl > 0);
		assert_int_equal(kl, (int)xfmt_bt_key_len(t[i].bt));
		assert_int_equal(xfmt_bt_key_cmp(t[i].bt, pk, k), 0);
		/* Stored keys are byte-identical to the computed ones. */
		assert_memory_equal(pk, k, (size_t)kl);
	}

	/* rmap high key 16 = the largest record high key of leaf 1423. */
	memset(best, 0, sizeof(best));
	for (unsigned j = 0; j < numrecs(bt_rmap_leaf); j++) {
		assert_int_equal(xfmt_bt_rec_highkey(XFMT_BT_RMAP,
				 rec(bt_rmap_leaf, XFMT_BT_RMAP, true, j), hk), 20);
		if (j == 0 || xfmt_bt_key_cmp(XFMT_BT_RMAP, hk, best) > 0)
			memcpy(best, hk, sizeof(best));
	}
	assert_memory_equal(best, xfmt_bt_highkey(bt_rmap_node, BS, XFMT_BT_RMAP, true, 15), 20);
	assert_int_equal(xfmt_bt_rec_highkey(XFMT_BT_BNO, bt_bno_leaf + 56, hk), -1);
	assert_int_equal(xfmt_bt_rec_key(XFMT_BT_COUNT, bt_bno_leaf + 56, hk), -1);
}

static void test_key_order_rules(void **state)
{
	uint8_t a[20], b[20];

	(void)state;
	/* cntbt: (blockcount, startblock) although bytes are startblock first. */
	xfmt_put_be32(a, 100); xfmt_put_be32(a + 4, 5);
	xfmt_put_be32(b, 50); xfmt_put_be32(b + 4, 6);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_CNT, a, b) < 0);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_BNO, a, b) > 0);
	xfmt_put_be32(b + 4, 5);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_CNT, a, b) > 0);

	/* rmapbt: owner unsigned (special owners after inodes), UNWRITTEN ignored,
	 * ATTR_FORK significant. */
	memset(a, 0, 20); memset(b, 0, 20);
	xfmt_put_be32(a, 7); xfmt_put_be32(b, 7);
	xfmt_put_be64(a + 4, XFS_RMAP_OWN_AG);
	xfmt_put_be64(b + 4, 84113);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_RMAP, a, b) > 0);
	xfmt_put_be64(a + 4, 84113);
	xfmt_put_be64(a + 12, 3);
	xfmt_put_be64(b + 12, XFS_RMAP_OFF_UNWRITTEN | 3);
	assert_int_equal(xfmt_bt_key_cmp(XFMT_BT_RMAP, a, b), 0);
	xfmt_put_be64(b + 12, XFS_RMAP_OFF_ATTR_FORK | 0);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_RMAP, a, b) < 0);
	xfmt_put_be32(b, 6);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_RMAP, a, b) > 0);

	/* refcountbt: CoW staging records sort after all shared ones. */
	xfmt_put_be32(a, 5 | XFS_REFC_COWFLAG);
	xfmt_put_be32(b, 40000);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_REFC, a, b) > 0);

	/* bmbt: 64-bit startoff. */
	xfmt_put_be64(a, 1ull << 40);
	xfmt_put_be64(b, 1);
	assert_true(xfmt_bt_key_cmp(XFMT_BT_BMAP, a, b) > 0);
	assert_int_equal(xfmt_bt_key_cmp(XFMT_BT_COUNT, a, b), 0);
}

/* rm_offset is advanced for inode data only (xfs-ondisk.md 3.4). */
static void test_rmap_highkey_rules(void **state)
{
	uint8_t r[24], k[20];
	struct xfmt_rmap_key d;

	(void)state;
	/* Real record 2 of the first rmap leaf: [17528,5,-5,0] (OWN_AG). */
	xfmt_put_be32(r, 17528); xfmt_put_be32(r + 4, 5);
	xfmt_put_be64(r + 8, XFS_RMAP_OWN_AG); xfmt_put_be64(r + 16, 0);
	xfmt_bt_rec_highkey(XFMT_BT_RMAP, r, k);
	xfmt_rmap_key_decode(k, &d);
	assert_int_equal(d.startblock, 17532);
	assert_int_equal(d.owner, XFS_RMAP_OWN_AG);
	assert_int_equal(d.offset, 0);
	/* bmbt block of inode 134: offset stays 0. */
	xfmt_put_be64(r + 8, 134); xfmt_put_be64(r + 16, XFS_RMAP_OFF_BMBT_BLOCK);
	xfmt_bt_rec_highkey(XFMT_BT_RMAP, r, k);
	xfmt_rmap_key_decode(k, &d);
	assert_true(d.bmbt_block);
	assert_int_equal(d.offset, 0);
	/* Unwritten attr-fork extent: offset advanced, ATTR kept, UNWRITTEN dropped. */
	xfmt_put_be64(r + 16, XFS_RMAP_OFF_ATTR_FORK | XFS_RMAP_OFF_UNWRITTEN | 50);
	xfmt_bt_rec_highkey(XFMT_BT_RMAP, r, k);
	xfmt_rmap_key_decode(k, &d);
	assert_int_equal(d.offset, 54);
	assert_true(d.attr_fork);
	assert_false(d.unwritten);
	/* The low key masks UNWRITTEN too. */
	assert_int_equal(xfmt_bt_rec_key(XFMT_BT_RMAP, r, k), 20);
	assert_int_equal(xfmt_get_be64(k + 12), XFS_RMAP_OFF_ATTR_FORK | 50);
}

static void test_overlaps(void **state)
{
	uint8_t a[16] = { 0 }, b[16] = { 0 };

	(void)state;
	xfmt_put_be32(a, 10); xfmt_put_be32(a + 4, 5);
	xfmt_put_be32(b, 14); xfmt_put_be32(b + 4, 2);
	assert_true(xfmt_bt_recs_overlap(XFMT_BT_BNO, a, b));
	xfmt_put_be32(b, 15);
	assert_false(xfmt_bt_recs_overlap(XFMT_BT_BNO, a, b));
	/* cntbt neighbours can be in either block order. */
	xfmt_put_be32(b, 8); xfmt_put_be32(b + 4, 3);
	assert_true(xfmt_bt_recs_overlap(XFMT_BT_CNT, a, b));
	/* inode chunks: 64 inodes each */
	xfmt_put_be32(a, 64); xfmt_put_be32(b, 127);
	assert_true(xfmt_bt_recs_overlap(XFMT_BT_INO, a, b));
	xfmt_put_be32(b, 128);
	assert_false(xfmt_bt_recs_overlap(XFMT_BT_FINO, a, b));
	/* refcount: shared vs CoW domains never overlap each other */
	xfmt_put_be32(a, 100); xfmt_put_be32(a + 4, 10);
	xfmt_put_be32(b, 105 | XFS_REFC_COWFLAG); xfmt_put_be32(b + 4, 1);
	assert_false(xfmt_bt_recs_overlap(XFMT_BT_REFC, a, b));
	xfmt_put_be32(b, 105);
	assert_true(xfmt_bt_recs_overlap(XFMT_BT_REFC, a, b));
	/* rmapbt: sharing is legal */
	assert_false(xfmt_bt_recs_overlap(XFMT_BT_RMAP, bt_rmap_leaf + 56 + 24, bt_rmap_leaf + 56 + 48));
	/* bmbt: startoff ranges */
	assert_true(xfmt_bt_recs_overlap(XFMT_BT_BMAP, bt_bmbt_leaf + 72, bt_bmbt_leaf + 72));
	assert_false(xfmt_bt_recs_overlap(XFMT_BT_BMAP, bt_bmbt_leaf + 72, bt_bmbt_leaf + 88));
}

/* ------------------------------------------------------ inode chunks */

static void test_inobt_helpers(void **state)
{
	struct xfmt_inobt_rec r = { .holemask = 0x00FF, .free = 0xFFFFFFFFull };
	uint32_t first, last;

	(void)state;
	assert_int_equal(xfmt_popcount64(0), 0);
	assert_int_equal(xfmt_popcount64(~0ull), 64);
	assert_int_equal(xfmt_popcount64(0x5555555555555555ull), 32);
	assert_int_equal(xfmt_inobt_allocmask(0), ~0ull);
	assert_int_equal(xfmt_inobt_allocmask(0x00FF), 0xFFFFFFFF00000000ull);
	assert_int_equal(xfmt_inobt_allocmask(0x8001), 0x0FFFFFFFFFFFFFF0ull);
	assert_int_equal(xfmt_inobt_holemask_count(0x00FF), 32);
	assert_int_equal(xfmt_inobt_holemask_count(0xFFFF), 0);
	/* Holes are marked free but are not free inodes. */
	assert_int_equal(xfmt_inobt_rec_freecount(&r), 0);
	r.free |= 1ull << 40;
	assert_int_equal(xfmt_inobt_rec_freecount(&r), 1);
	/* AG 0 of the v5 image: chunks from agbno 8 (agino 64) to the AG end. */
	assert_true(xfmt_agino_range(&bt_geom_v5, 0, &first, &last));
	assert_int_equal(first, 64);
	assert_int_equal(last, 40960 * 8 - 1);
	/* v4: 16 inodes per block, chunk alignment 2 blocks. */
	assert_true(xfmt_agino_range(&bt_geom_v4, 3, &first, &last));
	assert_int_equal(first, 32);
	assert_int_equal(last, 20480 * 16 - 1);
	assert_false(xfmt_agino_range(&bt_geom_v5, 2, &first, &last));
}

/* ---------------------------------------------------- record sanity */

static void test_real_records_are_sane(void **state)
{
	static const struct {
		const uint8_t *blk; enum xfmt_btnum bt; const struct xfmt_geom *g;
	} t[] = {
		{ bt_bno_leaf, XFMT_BT_BNO, &bt_geom_v5 }, { bt_cnt_leaf, XFMT_BT_CNT, &bt_geom_v5 },
		{ bt_ino_leaf, XFMT_BT_INO, &bt_geom_v5 }, { bt_fino_leaf, XFMT_BT_FINO, &bt_geom_v5 },
		{ bt_rmap_leaf, XFMT_BT_RMAP, &bt_geom_v5 }, { bt_refc_leaf, XFMT_BT_REFC, &bt_geom_v5 },
		{ bt_bmbt_leaf, XFMT_BT_BMAP, &bt_geom_v5 },
		{ bt_v4_bno_leaf, XFMT_BT_BNO, &bt_geom_v4 }, { bt_v4_ino_leaf, XFMT_BT_INO, &bt_geom_v4 },
	};
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (unsigned j = 0; j < numrecs(t[i].blk); j++)
			if (xfmt_bt_rec_verify(t[i].bt, rec(t[i].blk, t[i].bt, t[i].g->v5, j), j,
					       t[i].g, 0, &s))
				fail_msg("tree %u record %u: code 0x%04x field %s", (unsigned)t[i].bt,
					 j, (unsigned)r.p[0].code, r.p[0].field);
	assert_int_equal(r.n, 0);
}

/* Verify one 24-byte-or-smaller record built from the given words. */
static unsigned verify1(enum xfmt_btnum bt, const uint8_t *recbuf, const struct xfmt_geom *g,
			struct bt_rec *r)
{
	struct xprob_sink s = bt_rec_sink(r);
	return xfmt_bt_rec_verify(bt, recbuf, 7, g, 0, &s);
}

static void expect1(const struct bt_rec *r, enum xprob_code code, const char *field)
{
	assert_int_equal(r->n, 1);
	assert_int_equal(r->p[0].code, code);
	assert_string_equal(r->p[0].field, field);
	assert_int_equal(r->p[0].off, 7);  /* the record index */
}

static void test_alloc_record_rules(void **state)
{
	uint8_t a[8];
	struct bt_rec r;

	(void)state;
	memcpy(a, bt_bno_leaf + 56, 8);   /* [2348,1] */
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a + 4, 0);
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	xfmt_put_be32(a, 0); xfmt_put_be32(a + 4, 1);    /* on the AG headers */
	assert_int_equal(verify1(XFMT_BT_CNT, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	assert_int_equal(r.p[0].observed, 0);
	xfmt_put_be32(a, 40950); xfmt_put_be32(a + 4, 11);  /* runs past agblocks */
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	xfmt_put_be32(a + 4, 10);
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a, 0xFFFFFFF0u); xfmt_put_be32(a + 4, 0x20);  /* wraps */
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	xfmt_put_be32(a, 100); xfmt_put_be32(a + 4, 0xFFFFFFFFu);
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	/* AG 1 of the v4 image is shorter-checked against its own length. */
	xfmt_put_be32(a, 20479); xfmt_put_be32(a + 4, 1);
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v4, &r), 0);
	xfmt_put_be32(a, 20480);
	assert_int_equal(verify1(XFMT_BT_BNO, a, &bt_geom_v4, &r), 1);
}

static void test_inobt_record_rules(void **state)
{
	uint8_t a[16];
	struct bt_rec r;

	(void)state;
	memcpy(a, bt_ino_leaf + 56, 16);   /* [8832,0,64,32,0x5555...] */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a, 8833);            /* not on a block boundary */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkMisaligned, "startino");
	assert_int_equal(r.p[0].observed, 8833);
	xfmt_put_be32(a, 8840);            /* block 1105: not on the 8-block alignment */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkMisaligned, "startino");
	xfmt_put_be32(a, 0);               /* on the AG headers */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkOutsideAg, "startino");
	xfmt_put_be32(a, 40960 * 8);       /* past the AG */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkOutsideAg, "startino");
	xfmt_put_be32(a, 40952 * 8);       /* last chunk of the AG */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a, 8832);
	a[6] = 63;                         /* count */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkBadCount, "count");
	assert_int_equal(r.p[0].expected, 64);
	assert_int_equal(r.p[0].observed, 63);
	a[6] = 64;
	a[7] = 33;                         /* freecount vs popcount(free) = 32 */
	assert_int_equal(verify1(XFMT_BT_FINO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkBadCount, "freecount");
	assert_int_equal(r.p[0].expected, 32);
	assert_int_equal(r.p[0].observed, 33);
	a[7] = 32;

	/* A sparse chunk, upper 32 inodes absent (xfs-ondisk.md 3.4 example). */
	{
		static const uint8_t sp[16] = { 0, 0, 0x3e, 0xc0, 0xff, 0, 0x20, 0,
						0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
		memcpy(a, sp, 16);
	}
	/* The example is consistent: holes (inodes 32..63) are marked free. */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 0);
	/* Lower half absent instead: holes not free, and the present inodes'
	 * free bits no longer match freecount 0. */
	xfmt_put_be16(a + 4, 0x00FF);
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_ichunkBadHolemask, "holemask"), 1);
	assert_int_equal(bt_rec_count(&r, XP_ichunkBadCount, "freecount"), 1);
	xfmt_put_be64(a + 8, 0x00000000FFFFFFFFull);      /* holes free, all inodes used */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 0);
	a[6] = 36;                                        /* count disagrees with holemask */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkBadCount, "count");
	assert_int_equal(r.p[0].expected, 32);
	a[6] = 32;
	/* Finobt holds only chunks with free inodes. */
	assert_int_equal(verify1(XFMT_BT_FINO, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_ichunkFinobtMismatch, "freecount");
	/* All holes: count 0 and holemask both wrong. */
	xfmt_put_be16(a + 4, 0xFFFF); a[6] = 0;
	xfmt_put_be64(a + 8, ~0ull);
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v5, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_ichunkBadCount, "count"), 1);
	assert_int_equal(bt_rec_count(&r, XP_ichunkBadHolemask, "holemask"), 1);

	/* v4 full layout: be32 freecount. */
	memcpy(a, bt_v4_ino_leaf + 16, 16);   /* [128,61,0xfffffffffffffff8] */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v4, &r), 0);
	xfmt_put_be32(a + 4, 65);
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v4, &r), 1);
	expect1(&r, XP_ichunkBadCount, "freecount");
	assert_int_equal(r.p[0].expected, 61);
	xfmt_put_be32(a + 4, 61);
	xfmt_put_be32(a, 160);                /* agbno 10, a multiple of inoalignmt 2 */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v4, &r), 0);
	xfmt_put_be32(a, 144);                /* agbno 9 */
	assert_int_equal(verify1(XFMT_BT_INO, a, &bt_geom_v4, &r), 1);
	expect1(&r, XP_ichunkMisaligned, "startino");
}

static void set_rmap(uint8_t *a, uint32_t start, uint32_t len, uint64_t owner, uint64_t off)
{
	xfmt_put_be32(a, start);
	xfmt_put_be32(a + 4, len);
	xfmt_put_be64(a + 8, owner);
	xfmt_put_be64(a + 16, off);
}

static void test_rmap_record_rules(void **state)
{
	uint8_t a[24];
	struct bt_rec r;

	(void)state;
	memcpy(a, bt_rmap_leaf + 56, 24);    /* [20358,1,132,19,unwritten] */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a + 4, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");

	/* The AG-header record: {0, agfl_block + 1 = 1, OWN_FS}. */
	set_rmap(a, 0, 1, XFS_RMAP_OWN_FS, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);
	set_rmap(a, 0, 2, XFS_RMAP_OWN_FS, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	set_rmap(a, 0, 1, XFS_RMAP_OWN_AG, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "owner");

	/* Owners: inodes must exist in the geometry, specials within [OWN_MIN, OWN_FS]. */
	set_rmap(a, 100, 1, 0, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "owner");
	set_rmap(a, 100, 1, XFS_RMAP_OWN_NULL, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "owner");
	set_rmap(a, 100, 1, XFS_RMAP_OWN_UNKNOWN, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	set_rmap(a, 100, 1, XFS_RMAP_OWN_COW, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);
	set_rmap(a, 100, 1, (2ull << 19) | 64, 0);   /* AG 2 of a 2-AG filesystem */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "owner");
	set_rmap(a, 100, 1, (1ull << 19) | 64, 0);   /* first inode of AG 1 */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);

	/* Extent inside the AG. */
	set_rmap(a, 40960, 1, 132, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	set_rmap(a, 40959, 2, 132, 0);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");

	/* Offset flags. */
	set_rmap(a, 100, 1, 132, 1ull << 55);                    /* reserved bit */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "offset");
	set_rmap(a, 100, 1, 132, XFS_RMAP_OFF_BMBT_BLOCK | 5);   /* bmbt block at offset 5 */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "offset");
	set_rmap(a, 100, 1, 132, XFS_RMAP_OFF_BMBT_BLOCK | XFS_RMAP_OFF_ATTR_FORK);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);
	set_rmap(a, 100, 1, XFS_RMAP_OWN_INODES, 8);             /* special owner, offset */
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "offset");
	set_rmap(a, 100, 1, 132, XFS_RMAP_OFF_UNWRITTEN | XFS_RMAP_OFF_ATTR_FORK | 2);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "extentflag");
	set_rmap(a, 100, 1, XFS_RMAP_OWN_LOG, XFS_RMAP_OFF_ATTR_FORK);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "attrfork");
	set_rmap(a, 100, 1, XFS_RMAP_OWN_LOG, XFS_RMAP_OFF_BMBT_BLOCK);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "bmbtblock");
	set_rmap(a, 100, 1, XFS_RMAP_OWN_LOG, XFS_RMAP_OFF_UNWRITTEN);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "extentflag");
	/* Offsets wider than 54 bits hit the reserved bits. */
	set_rmap(a, 100, 1, 132, XFS_MAX_FILEOFF);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "offset");
	/* The mapping must end at or below XFS_MAX_FILEOFF (here it also overruns the AG). */
	set_rmap(a, 100, (1u << 21) + 5, 132, XFS_RMAP_OFF_MASK);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_btBadRecord, "offset"), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadRecord, "blockcount"), 1);
	set_rmap(a, 100, 2, 132, XFS_RMAP_OFF_MASK - 1);
	assert_int_equal(verify1(XFMT_BT_RMAP, a, &bt_geom_v5, &r), 0);
}

static void test_refc_record_rules(void **state)
{
	uint8_t a[12];
	struct bt_rec r;

	(void)state;
	memcpy(a, bt_refc_leaf + 56, 12);   /* [21029,1,2,0] */
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a + 8, 1);            /* shared with one owner */
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "refcount");
	xfmt_put_be32(a, 21029 | XFS_REFC_COWFLAG);   /* CoW staging: exactly 1 */
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 0);
	xfmt_put_be32(a + 8, 2);
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "refcount");
	xfmt_put_be32(a, 21029);
	xfmt_put_be32(a + 4, 0);
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	xfmt_put_be32(a, 40960);
	xfmt_put_be32(a + 4, 1);
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	/* Everything wrong at once: three findings. */
	xfmt_put_be32(a + 4, 0);
	xfmt_put_be32(a + 8, 0);
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 2);
	xfmt_put_be32(a, 0);
	xfmt_put_be32(a + 4, 5);
	assert_int_equal(verify1(XFMT_BT_REFC, a, &bt_geom_v5, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_btBadRecord, "refcount"), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadRecord, "startblock"), 1);
}

static void set_bmbt(uint8_t *a, bool unwritten, uint64_t off, uint64_t start, uint32_t len)
{
	xfmt_put_be64(a, (uint64_t)unwritten << 63 | (off & XFS_BMBT_STARTOFF_MASK) << 9 |
			 (start >> 43));
	xfmt_put_be64(a + 8, start << 21 | (len & XFS_BMBT_BLOCKCOUNT_MASK));
}

static void test_bmbt_record_rules(void **state)
{
	uint8_t a[16];
	struct xfmt_bmbt_rec b;
	struct bt_rec r;

	(void)state;
	set_bmbt(a, true, 261, 20600, 1);
	assert_memory_equal(a, bt_bmbt_leaf + 72 + 16, 16);   /* round trip of real rec 2 */
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 0);
	set_bmbt(a, false, 5, 20600, 0);
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	set_bmbt(a, false, 5, (2ull << 16) | 10, 1);            /* AG 2: no such AG */
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	set_bmbt(a, false, 5, (1ull << 16) | 0, 1);             /* AG 1 headers */
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
	set_bmbt(a, false, 5, (1ull << 16) | 40959, 2);         /* crosses the AG end */
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");
	set_bmbt(a, false, 5, (1ull << 16) | 40959, 1);
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 0);
	set_bmbt(a, false, XFS_BMBT_STARTOFF_MASK, 20600, XFS_BMBT_BLOCKCOUNT_MASK);
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "blockcount");   /* also past the AG end; offset fits */
	set_bmbt(a, false, XFS_BMBT_STARTOFF_MASK, 20600, 1);
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 0);
	xfmt_bmbt_rec_decode(a, &b);
	assert_int_equal(b.startoff, XFS_BMBT_STARTOFF_MASK);
	/* A 52-bit startblock of all ones. */
	set_bmbt(a, false, 0, XFS_BMBT_STARTBLOCK_MASK, 1);
	xfmt_bmbt_rec_decode(a, &b);
	assert_int_equal(b.startblock, XFS_BMBT_STARTBLOCK_MASK);
	assert_int_equal(verify1(XFMT_BT_BMAP, a, &bt_geom_v5, &r), 1);
	expect1(&r, XP_btBadRecord, "startblock");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_records),
		cmocka_unit_test(test_inobt_records),
		cmocka_unit_test(test_rmap_records),
		cmocka_unit_test(test_refc_and_bmbt_records),
		cmocka_unit_test(test_leaves_in_key_order),
		cmocka_unit_test(test_nodes_in_key_order),
		cmocka_unit_test(test_parent_keys_match_children),
		cmocka_unit_test(test_key_order_rules),
		cmocka_unit_test(test_rmap_highkey_rules),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_inobt_helpers),
		cmocka_unit_test(test_real_records_are_sane),
		cmocka_unit_test(test_alloc_record_rules),
		cmocka_unit_test(test_inobt_record_rules),
		cmocka_unit_test(test_rmap_record_rules),
		cmocka_unit_test(test_refc_record_rules),
		cmocka_unit_test(test_bmbt_record_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
