/*
 * test_encode.c - the encoders of btree blocks (header, records, keys,
 * pointers), AGF, AGI and AGFL, against real structures written by mkfs
 * and the kernel (fixtures/): each is decoded, encoded again from the
 * decoded values, and must come out byte for byte as the kernel wrote it,
 * CRC included; then the decoders and verifiers must accept what was
 * encoded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/btrec.h"
#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/bt_geom.h"
#include "fixtures/bt_alloc.h"
#include "fixtures/bt_inobt.h"
#include "fixtures/bt_rmap.h"
#include "fixtures/bt_refc.h"
#include "fixtures/bt_v4.h"
#include "fixtures/v5_sb0.h"
#include "fixtures/v5_agf0.h"
#include "fixtures/v5_agi0.h"
#include "fixtures/v4_sb0.h"
#include "fixtures/v4_agf0.h"
#include "fixtures/v4_agi0.h"
#include "fixtures/s4k_sb0.h"
#include "fixtures/s4k_agf0.h"
#include "fixtures/s4k_agi0.h"

#define BS 4096u

struct blk {
	const char     *name;
	const uint8_t  *buf;
	enum xfmt_btnum bt;
	bool            v5;
	uint64_t        daddr;
	bool            root;
};

/* The AG-tree blocks of test_btree.c's table (same provenance). */
static const struct blk blocks[] = {
	{ "bno_node", bt_bno_node, XFMT_BT_BNO, true, 148320, true },
	{ "bno_leaf", bt_bno_leaf, XFMT_BT_BNO, true, 146976, false },
	{ "cnt_leaf", bt_cnt_leaf, XFMT_BT_CNT, true, 151912, false },
	{ "ino_node", bt_ino_node, XFMT_BT_INO, true, 83584, true },
	{ "ino_leaf", bt_ino_leaf, XFMT_BT_INO, true, 82872, false },
	{ "fino_leaf", bt_fino_leaf, XFMT_BT_FINO, true, 664, false },
	{ "rmap_node", bt_rmap_node, XFMT_BT_RMAP, true, 130816, false },
	{ "rmap_leaf", bt_rmap_leaf, XFMT_BT_RMAP, true, 11384, false },
	{ "refc_node", bt_refc_node, XFMT_BT_REFC, true, 11656, true },
	{ "refc_leaf", bt_refc_leaf, XFMT_BT_REFC, true, 11640, false },
	{ "v4_bno_leaf", bt_v4_bno_leaf, XFMT_BT_BNO, false, 8, true },
	{ "v4_ino_leaf", bt_v4_ino_leaf, XFMT_BT_INO, false, 24, true },
};
#define NBLOCKS (sizeof(blocks) / sizeof(blocks[0]))

/* Re-encode one leaf record of tree bt from its decoded form. */
static void reencode_rec(enum xfmt_btnum bt, const struct xfmt_geom *g, const uint8_t *src,
			 uint8_t *out)
{
	struct xfmt_alloc_rec a;
	struct xfmt_inobt_rec i;
	struct xfmt_rmap_rec r;
	struct xfmt_refc_rec c;
	bool sparse = xfmt_geom_has_sparse_inodes(g);

	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT:
		xfmt_alloc_rec_decode(src, &a);
		xfmt_alloc_rec_encode(out, &a);
		break;
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		xfmt_inobt_rec_decode(src, sparse, &i);
		xfmt_inobt_rec_encode(out, sparse, &i);
		break;
	case XFMT_BT_RMAP:
		xfmt_rmap_rec_decode(src, &r);
		xfmt_rmap_rec_encode(out, &r);
		break;
	case XFMT_BT_REFC:
		xfmt_refc_rec_decode(src, &c);
		xfmt_refc_rec_encode(out, &c);
		break;
	default:
		fail();
	}
}

/*
 * Rebuild block b with the encoders.  The kernel leaves stale bytes past the
 * last record, so the rebuilt block starts as a copy with every byte the
 * encoders own cleared: header, used records, used keys and pointers.
 */
static void rebuild_block(const struct blk *b, uint8_t *out)
{
	const struct xfmt_geom *g = b->v5 ? &bt_geom_v5 : &bt_geom_v4;
	size_t hl = xfmt_bt_hdr_len(b->bt, b->v5), rl = xfmt_bt_rec_len(b->bt);
	size_t kl = xfmt_bt_key_len(b->bt), ks = xfmt_bt_keyslot_len(b->bt);
	unsigned nodemax = xfmt_bt_maxrecs(b->bt, BS, b->v5, false);
	struct xfmt_bt_hdr h;

	assert_int_equal(xfmt_bt_hdr_decode(b->buf, BS, b->bt, b->v5, &h), 0);
	memcpy(out, b->buf, BS);
	memset(out, 0, hl);
	h.crc = 0;
	assert_int_equal(xfmt_bt_hdr_encode(out, BS, b->bt, &h), 0);
	if (h.level == 0) {
		memset(out + hl, 0, (size_t)h.numrecs * rl);
		for (unsigned i = 0; i < h.numrecs; i++) {
			uint8_t rec[24];

			reencode_rec(b->bt, g, xfmt_bt_rec(b->buf, BS, b->bt, b->v5, i), rec);
			assert_int_equal(xfmt_bt_put_rec(out, BS, b->bt, b->v5, i, rec), 0);
		}
	} else {
		memset(out + hl, 0, (size_t)h.numrecs * ks);
		memset(out + hl + (size_t)nodemax * ks, 0, (size_t)h.numrecs * 4);
		for (unsigned i = 0; i < h.numrecs; i++) {
			const uint8_t *k = xfmt_bt_key(b->buf, BS, b->bt, b->v5, i);
			const uint8_t *hk = xfmt_bt_highkey(b->buf, BS, b->bt, b->v5, i);
			uint64_t ptr;

			assert_non_null(k);
			assert_int_equal(xfmt_bt_ptr(b->buf, BS, b->bt, b->v5, BS, i, &ptr), 0);
			assert_int_equal(xfmt_bt_put_key(out, BS, b->bt, b->v5, i, k, hk), 0);
			assert_int_equal(xfmt_bt_put_ptr(out, BS, b->bt, b->v5, BS, i, ptr), 0);
		}
		(void)kl;
	}
	if (b->v5)
		xfmt_bt_set_crc(out, BS, b->bt);
}

static void test_btree_blocks_roundtrip(void **state)
{
	uint8_t out[BS];

	(void)state;
	for (size_t i = 0; i < NBLOCKS; i++) {
		const struct blk *b = &blocks[i];
		const struct xfmt_geom *g = b->v5 ? &bt_geom_v5 : &bt_geom_v4;
		struct xfmt_bt_expect e = { .level = -1, .daddr = b->daddr, .owner = 0,
					    .is_root = b->root };
		struct xfmt_bt_hdr h;
		struct bt_rec r;
		struct xprob_sink s = bt_rec_sink(&r);

		rebuild_block(b, out);
		if (memcmp(out, b->buf, BS) != 0)
			fail_msg("%s: the encoded block differs from the kernel's", b->name);
		assert_int_equal(xfmt_bt_verify_hdr(out, BS, b->bt, g, &e, &s), 0);
		assert_int_equal(xfmt_bt_hdr_decode(out, BS, b->bt, b->v5, &h), 0);
		for (unsigned k = 0; h.level == 0 && k < h.numrecs; k++)
			assert_int_equal(xfmt_bt_rec_verify(b->bt, xfmt_bt_rec(out, BS, b->bt,
							    b->v5, k), k, g, 0, &s), 0);
	}
}

static void test_put_bounds(void **state)
{
	uint8_t blk[BS], rec[24] = { 0 }, key[20] = { 0 };
	unsigned leafmax = xfmt_bt_maxrecs(XFMT_BT_RMAP, BS, true, true);
	unsigned nodemax = xfmt_bt_maxrecs(XFMT_BT_RMAP, BS, true, false);
	struct xfmt_bt_hdr h = { .v5 = true, .leftsib = 1ull << 32 };

	(void)state;
	memset(blk, 0xAB, sizeof(blk));
	assert_int_equal(xfmt_bt_put_rec(blk, BS, XFMT_BT_RMAP, true, leafmax, rec), -1);
	assert_int_equal(xfmt_bt_put_rec(blk, BS, XFMT_BT_RMAP, true, leafmax - 1, rec), 0);
	assert_int_equal(xfmt_bt_put_key(blk, BS, XFMT_BT_RMAP, true, nodemax, key, key), -1);
	/* The rmapbt needs its high key; other trees have none. */
	assert_int_equal(xfmt_bt_put_key(blk, BS, XFMT_BT_RMAP, true, 0, key, NULL), -1);
	assert_int_equal(xfmt_bt_put_key(blk, BS, XFMT_BT_BNO, true, 0, key, key), -1);
	assert_int_equal(xfmt_bt_put_ptr(blk, BS, XFMT_BT_RMAP, true, BS, nodemax, 1), -1);
	assert_int_equal(xfmt_bt_put_ptr(blk, BS, XFMT_BT_RMAP, true, BS, 0, 1ull << 32), -1);
	assert_int_equal(xfmt_bt_put_ptr(blk, 100, XFMT_BT_RMAP, true, BS, 0, 7), -1);
	/* Short-form siblings are 32-bit; a short buffer holds no header. */
	assert_int_equal(xfmt_bt_hdr_encode(blk, BS, XFMT_BT_BNO, &h), -1);
	h.leftsib = XFS_NULLAGBLOCK;
	h.rightsib = XFS_NULLAGBLOCK;
	assert_int_equal(xfmt_bt_hdr_encode(blk, 40, XFMT_BT_BNO, &h), -1);
	assert_int_equal(xfmt_bt_hdr_encode(blk, BS, XFMT_BT_BNO, &h), 0);
}

static void test_rmap_flags(void **state)
{
	struct xfmt_rmap_rec in = { .startblock = 10, .blockcount = 3, .owner = 131,
				    .offset = 77, .attr_fork = true, .unwritten = false,
				    .bmbt_block = false };
	struct xfmt_rmap_rec out;
	uint8_t rec[24];

	(void)state;
	xfmt_rmap_rec_encode(rec, &in);
	xfmt_rmap_rec_decode(rec, &out);
	assert_int_equal(out.raw_offset, 77 | XFS_RMAP_OFF_ATTR_FORK);
	assert_true(out.attr_fork && !out.bmbt_block && !out.unwritten);
	in.attr_fork = false;
	in.unwritten = true;
	xfmt_rmap_rec_encode(rec, &in);
	xfmt_rmap_rec_decode(rec, &out);
	assert_int_equal(out.raw_offset, 77 | XFS_RMAP_OFF_UNWRITTEN);
	assert_int_equal(xfmt_rmap_raw_offset(1ull << 60, false, true, false),
			 XFS_RMAP_OFF_BMBT_BLOCK | ((1ull << 60) & XFS_RMAP_OFF_MASK));
}

static void test_refc_cow(void **state)
{
	struct xfmt_refc_rec in = { .startblock = 500, .cow = true, .blockcount = 4,
				    .refcount = 1 }, out;
	uint8_t rec[12];
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	(void)state;
	xfmt_refc_rec_encode(rec, &in);
	assert_int_equal(rec[0], 0x80);
	xfmt_refc_rec_decode(rec, &out);
	assert_true(out.cow);
	assert_int_equal(out.startblock, 500);
	assert_int_equal(xfmt_bt_rec_verify(XFMT_BT_REFC, rec, 0, &bt_geom_v5, 0, &s), 0);
}

/* ------------------------------------------------------------ AG headers */

static void geom_of(const struct fx_sector *sbfx, struct xfmt_geom *g)
{
	uint8_t *buf = fx_load(sbfx);
	struct xfmt_sb sb;

	assert_int_equal(xfmt_sb_decode(buf, sbfx->len, &sb), 0);
	assert_int_equal(xfmt_geom_from_sb(&sb, g), 0);
	free(buf);
}

static void agf_roundtrip(const struct fx_sector *sbfx, const struct fx_sector *agffx)
{
	struct xfmt_geom g;
	struct xfmt_agf agf, again;
	uint8_t *orig = fx_load(agffx);
	uint8_t *buf = malloc(agffx->len);
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	assert_non_null(buf);
	geom_of(sbfx, &g);
	assert_int_equal(xfmt_agf_decode(orig, agffx->len, &agf), 0);
	memset(buf, 0x5A, agffx->len);
	assert_int_equal(xfmt_agf_encode(buf, agffx->len, &agf, &g), 0);
	assert_memory_equal(buf, orig, agffx->len);
	assert_int_equal(xfmt_agf_decode(buf, agffx->len, &again), 0);
	assert_int_equal(xfmt_agf_verify(buf, agffx->len, &again, &g, 0, &s), 0);
	/* Too short a buffer is refused, nothing written. */
	assert_int_equal(xfmt_agf_encode(buf, g.sectsize - 1, &agf, &g), -1);
	free(orig);
	free(buf);
}

static void agi_roundtrip(const struct fx_sector *sbfx, const struct fx_sector *agifx)
{
	struct xfmt_geom g;
	struct xfmt_agi agi, again;
	uint8_t *orig = fx_load(agifx);
	uint8_t *buf = malloc(agifx->len);
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	assert_non_null(buf);
	geom_of(sbfx, &g);
	assert_int_equal(xfmt_agi_decode(orig, agifx->len, &agi), 0);
	memset(buf, 0x5A, agifx->len);
	assert_int_equal(xfmt_agi_encode(buf, agifx->len, &agi, &g), 0);
	assert_memory_equal(buf, orig, agifx->len);
	assert_int_equal(xfmt_agi_decode(buf, agifx->len, &again), 0);
	assert_int_equal(xfmt_agi_verify(buf, agifx->len, &again, &g, 0, &s), 0);
	assert_int_equal(xfmt_agi_encode(buf, g.sectsize - 1, &agi, &g), -1);
	free(orig);
	free(buf);
}

static void test_agf_roundtrip(void **state)
{
	(void)state;
	agf_roundtrip(&fx_v5_sb0, &fx_v5_agf0);
	agf_roundtrip(&fx_v4_sb0, &fx_v4_agf0);
	agf_roundtrip(&fx_s4k_sb0, &fx_s4k_agf0);
}

static void test_agi_roundtrip(void **state)
{
	(void)state;
	agi_roundtrip(&fx_v5_sb0, &fx_v5_agi0);
	agi_roundtrip(&fx_v4_sb0, &fx_v4_agi0);
	agi_roundtrip(&fx_s4k_sb0, &fx_s4k_agi0);
}

static void agfl_roundtrip(const struct fx_sector *sbfx, const struct fx_sector *agffx)
{
	static const uint32_t fl[] = { 7, 8, 9, 10, 11, 12 };
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct xfmt_agfl agfl;
	uint8_t *agfbuf = fx_load(agffx);
	uint8_t *buf;
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	geom_of(sbfx, &g);
	buf = malloc(g.sectsize);
	assert_non_null(buf);
	assert_int_equal(xfmt_agf_decode(agfbuf, agffx->len, &agf), 0);
	agf.flfirst = 0;
	agf.fllast = 5;
	agf.flcount = 6;
	assert_int_equal(xfmt_agfl_encode(buf, g.sectsize, &g, 0, 0x100000005ull, fl, 6), 0);
	assert_int_equal(xfmt_agfl_decode(buf, g.sectsize, &g, &agfl), 0);
	assert_int_equal(agfl.size, xfmt_geom_agfl_size(&g));
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(xfmt_agfl_active(&agfl, &agf, i), fl[i]);
	for (uint32_t i = 6; i < agfl.size; i++)
		assert_int_equal(xfmt_agfl_slot(&agfl, i), XFS_NULLAGBLOCK);
	if (g.v5) {
		assert_int_equal(agfl.magicnum, XFS_AGFL_MAGIC);
		assert_int_equal(agfl.lsn, 0x100000005ull);
		assert_memory_equal(agfl.uuid, g.meta_uuid, 16);
		assert_true(xfmt_crc_ok(buf, g.sectsize, XFS_AGFL_CRC_OFF));
	}
	assert_int_equal(xfmt_agfl_verify(buf, g.sectsize, &agfl, &agf, &g, 0, &s), 0);
	/* More blocks than slots, or a short buffer, are refused. */
	assert_int_equal(xfmt_agfl_encode(buf, g.sectsize, &g, 0, 0, fl, agfl.size + 1), -1);
	assert_int_equal(xfmt_agfl_encode(buf, g.sectsize - 1, &g, 0, 0, fl, 6), -1);
	free(agfbuf);
	free(buf);
}

static void test_agfl_encode(void **state)
{
	(void)state;
	agfl_roundtrip(&fx_v5_sb0, &fx_v5_agf0);
	agfl_roundtrip(&fx_v4_sb0, &fx_v4_agf0);
	agfl_roundtrip(&fx_s4k_sb0, &fx_s4k_agf0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btree_blocks_roundtrip),
		cmocka_unit_test(test_put_bounds),
		cmocka_unit_test(test_rmap_flags),
		cmocka_unit_test(test_refc_cow),
		cmocka_unit_test(test_agf_roundtrip),
		cmocka_unit_test(test_agi_roundtrip),
		cmocka_unit_test(test_agfl_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
