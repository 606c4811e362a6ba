/*
 * test_btree.c - btree block layout, header decoding and header verification
 * against real blocks (fixtures/bt_*.h, recipe in fixtures/bt_recipe.sh).
 * Expected values are what `xfs_db -r ... -c p` printed for the same blocks;
 * capacities are `xfs_db -c 'btheight -w max -b N ...'` output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/endian.h"

#include "fixtures/bt_alloc.h"
#include "fixtures/bt_bmbt.h"
#include "fixtures/bt_geom.h"
#include "fixtures/bt_inobt.h"
#include "fixtures/bt_refc.h"
#include "fixtures/bt_rmap.h"
#include "fixtures/bt_v4.h"
#include "fixtures/ino_v5.h"

#define BS 4096u

/* xfs_db prints a CRC as the on-disk bytes read big-endian. */
static uint32_t db_crc(uint32_t printed)
{
	return (printed >> 24) | ((printed >> 8) & 0xFF00u) |
	       ((printed << 8) & 0xFF0000u) | (printed << 24);
}

/* One real block: where it came from and what xfs_db printed. */
struct blk {
	const char     *name;
	const uint8_t  *buf;
	enum xfmt_btnum bt;
	bool            v5;
	uint64_t        daddr;
	uint64_t        owner;
	bool            root;
	uint32_t        magic;
	uint16_t        level, numrecs;
	uint64_t        leftsib, rightsib, lsn;
	uint32_t        db_crc;
};

#define NUL32 0xFFFFFFFFull
#define NUL64 0xFFFFFFFFFFFFFFFFull

static const struct blk blocks[] = {
	{ "bno_node", bt_bno_node, XFMT_BT_BNO, true, 148320, 0, true, 0x41423342, 1, 19,
	  NUL32, NUL32, 0x100005a51, 0xbe9202ab },
	{ "bno_leaf", bt_bno_leaf, XFMT_BT_BNO, true, 146976, 0, false, 0x41423342, 0, 505,
	  1, 19325, 0x100005636, 0x47be3d66 },
	{ "cnt_leaf", bt_cnt_leaf, XFMT_BT_CNT, true, 151912, 0, false, 0x41423343, 0, 505,
	  2, 19493, 0x100005636, 0x1a3f334c },
	{ "ino_node", bt_ino_node, XFMT_BT_INO, true, 83584, 0, true, 0x49414233, 1, 2,
	  NUL32, NUL32, 0x100005a51, 0xd16b8a53 },
	{ "ino_leaf", bt_ino_leaf, XFMT_BT_INO, true, 82872, 0, false, 0x49414233, 0, 187,
	  3, NUL32, 0x100003738, 0x71bed15f },
	{ "fino_leaf", bt_fino_leaf, XFMT_BT_FINO, true, 664, 0, false, 0x46494233, 0, 187,
	  4, NUL32, 0x100003738, 0x89afec60 },
	{ "rmap_node", bt_rmap_node, XFMT_BT_RMAP, true, 130816, 0, false, 0x524d4233, 1, 67,
	  8, 1435, 0x100005a51, 0xc3565e2b },
	{ "rmap_leaf", bt_rmap_leaf, XFMT_BT_RMAP, true, 11384, 0, false, 0x524d4233, 0, 168,
	  18036, 20348, 0x100005a51, 0x9aa7eb05 },
	{ "refc_node", bt_refc_node, XFMT_BT_REFC, true, 11656, 0, true, 0x52334643, 1, 18,
	  NUL32, NUL32, 0x100005a51, 0xbb36dc52 },
	{ "refc_leaf", bt_refc_leaf, XFMT_BT_REFC, true, 11640, 0, false, 0x52334643, 0, 336,
	  6, 1467, 0x100005a51, 0xb4a8004a },
	{ "bmbt_node", bt_bmbt_node, XFMT_BT_BMAP, true, 294032, 132, false, 0x424d4133, 1, 48,
	  NUL64, NUL64, 0x10000576a, 0x0f37d683 },
	{ "bmbt_leaf", bt_bmbt_leaf, XFMT_BT_BMAP, true, 294056, 132, false, 0x424d4133, 0, 251,
	  36756, 36758, 0x100003738, 0x74086e36 },
	{ "v4_bno_leaf", bt_v4_bno_leaf, XFMT_BT_BNO, false, 8, 0, true, 0x41425442, 0, 1,
	  NUL32, NUL32, 0, 0 },
	{ "v4_ino_leaf", bt_v4_ino_leaf, XFMT_BT_INO, false, 24, 0, true, 0x49414254, 0, 1,
	  NUL32, NUL32, 0, 0 },
};
#define NBLOCKS (sizeof(blocks) / sizeof(blocks[0]))

static const struct xfmt_geom *geom_of(const struct blk *b)
{
	return b->v5 ? &bt_geom_v5 : &bt_geom_v4;
}

static struct xfmt_bt_expect expect_of(const struct blk *b)
{
	struct xfmt_bt_expect e = { .level = b->level, .daddr = b->daddr,
				    .owner = b->owner, .is_root = b->root };
	return e;
}

static const struct blk *blk_named(const char *name)
{
	for (size_t i = 0; i < NBLOCKS; i++)
		if (strcmp(blocks[i].name, name) == 0)
			return &blocks[i];
	fail_msg("no fixture %s", name);
	return NULL;
}

static void test_tree_constants(void **state)
{
	static const char *names[] = { "bnobt", "cntbt", "inobt", "finobt", "rmapbt",
				       "refcntbt", "bmbt" };

	(void)state;
	for (unsigned i = 0; i < XFMT_BT_COUNT; i++)
		assert_string_equal(xfmt_bt_name((enum xfmt_btnum)i), names[i]);
	assert_string_equal(xfmt_bt_name(XFMT_BT_COUNT), "?");
	assert_int_equal(xfmt_bt_magic(XFMT_BT_BNO, true), 0x41423342);   /* AB3B */
	assert_int_equal(xfmt_bt_magic(XFMT_BT_BNO, false), 0x41425442);  /* ABTB */
	assert_int_equal(xfmt_bt_magic(XFMT_BT_CNT, true), 0x41423343);
	assert_int_equal(xfmt_bt_magic(XFMT_BT_FINO, false), 0x46494254);
	assert_int_equal(xfmt_bt_magic(XFMT_BT_RMAP, false), 0);
	assert_int_equal(xfmt_bt_magic(XFMT_BT_REFC, false), 0);
	assert_int_equal(xfmt_bt_magic(XFMT_BT_REFC, true), 0x52334643);
	assert_int_equal(xfmt_bt_magic(XFMT_BT_BMAP, false), 0x424d4150);
	assert_true(xfmt_bt_is_long(XFMT_BT_BMAP));
	assert_false(xfmt_bt_is_long(XFMT_BT_RMAP));
	assert_int_equal(xfmt_bt_hdr_len(XFMT_BT_INO, true), 56);
	assert_int_equal(xfmt_bt_hdr_len(XFMT_BT_INO, false), 16);
	assert_int_equal(xfmt_bt_hdr_len(XFMT_BT_BMAP, true), 72);
	assert_int_equal(xfmt_bt_hdr_len(XFMT_BT_BMAP, false), 24);
	assert_int_equal(xfmt_bt_rec_len(XFMT_BT_RMAP), 24);
	assert_int_equal(xfmt_bt_key_len(XFMT_BT_RMAP), 20);
	assert_int_equal(xfmt_bt_keyslot_len(XFMT_BT_RMAP), 40);
	assert_int_equal(xfmt_bt_ptr_len(XFMT_BT_RMAP), 4);
	assert_int_equal(xfmt_bt_rec_len(XFMT_BT_REFC), 12);
	assert_int_equal(xfmt_bt_key_len(XFMT_BT_BMAP), 8);
	assert_int_equal(xfmt_bt_ptr_len(XFMT_BT_BMAP), 8);
	assert_int_equal(xfmt_bt_rec_len(XFMT_BT_COUNT), 0);
}

/* `xfs_db -r -c 'btheight -b B -w max -n 100 bnobt cntbt inobt finobt rmapbt
 * refcountbt bmapbt' v5.img` and the same on the v4 image. */
static void test_maxrecs_match_btheight(void **state)
{
	static const struct {
		uint32_t bs;
		bool v5;
		unsigned leaf[XFMT_BT_COUNT], node[XFMT_BT_COUNT];
	} t[] = {
		{ 1024, true, { 121, 121, 60, 60, 40, 80, 59 }, { 80, 80, 121, 121, 22, 121, 59 } },
		{ 4096, true, { 505, 505, 252, 252, 168, 336, 251 }, { 336, 336, 505, 505, 91, 505, 251 } },
		{ 65536, true, { 8185, 8185, 4092, 4092, 2728, 5456, 4091 },
		  { 5456, 5456, 8185, 8185, 1488, 8185, 4091 } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (unsigned b = 0; b < XFMT_BT_COUNT; b++) {
			assert_int_equal(xfmt_bt_maxrecs((enum xfmt_btnum)b, t[i].bs, t[i].v5, true),
					 t[i].leaf[b]);
			assert_int_equal(xfmt_bt_maxrecs((enum xfmt_btnum)b, t[i].bs, t[i].v5, false),
					 t[i].node[b]);
		}
	/* v4, 4096 and 512-byte blocks (bnobt, inobt, bmapbt). */
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BNO, 4096, false, true), 510);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BNO, 4096, false, false), 340);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_INO, 4096, false, true), 255);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_INO, 4096, false, false), 510);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BMAP, 4096, false, true), 254);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BMAP, 4096, false, false), 254);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BNO, 512, false, true), 62);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BNO, 512, false, false), 41);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_INO, 512, false, true), 31);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_INO, 512, false, false), 62);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BMAP, 512, false, true), 30);
	/* A block too small for its header holds nothing. */
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BMAP, 72, true, true), 0);
	assert_int_equal(xfmt_bt_maxrecs(XFMT_BT_BMAP, 0, true, false), 0);
}

static void test_hdr_decode_matches_xfs_db(void **state)
{
	(void)state;
	for (size_t i = 0; i < NBLOCKS; i++) {
		const struct blk *b = &blocks[i];
		struct xfmt_bt_hdr h;

		assert_int_equal(xfmt_bt_hdr_decode(b->buf, BS, b->bt, b->v5, &h), 0);
		assert_int_equal(h.magic, b->magic);
		assert_int_equal(h.level, b->level);
		assert_int_equal(h.numrecs, b->numrecs);
		assert_int_equal(h.leftsib, b->leftsib);
		assert_int_equal(h.rightsib, b->rightsib);
		assert_int_equal(h.long_form, b->bt == XFMT_BT_BMAP);
		assert_int_equal(h.v5, b->v5);
		if (b->v5) {
			assert_int_equal(h.blkno, b->daddr);
			assert_int_equal(h.lsn, b->lsn);
			assert_int_equal(h.owner, b->owner);
			assert_int_equal(h.crc, db_crc(b->db_crc));
			assert_memory_equal(h.uuid, bt_geom_v5.meta_uuid, 16);
			assert_int_equal(h.pad, 0);
		} else {
			assert_int_equal(h.blkno, 0);
			assert_int_equal(h.crc, 0);
		}
	}
}

static void test_hdr_decode_short_buffer(void **state)
{
	struct xfmt_bt_hdr h;
	uint8_t *p = malloc(55);

	(void)state;
	memcpy(p, bt_bno_node, 55);
	assert_int_equal(xfmt_bt_hdr_decode(p, 55, XFMT_BT_BNO, true, &h), -1);
	assert_int_equal(h.magic, 0);
	/* The same 55 bytes are a complete v4 header. */
	assert_int_equal(xfmt_bt_hdr_decode(p, 55, XFMT_BT_BNO, false, &h), 0);
	assert_int_equal(h.numrecs, 19);
	free(p);
	p = malloc(71);
	memcpy(p, bt_bmbt_node, 71);
	assert_int_equal(xfmt_bt_hdr_decode(p, 71, XFMT_BT_BMAP, true, &h), -1);
	free(p);
}

static void test_real_blocks_verify_clean(void **state)
{
	(void)state;
	for (size_t i = 0; i < NBLOCKS; i++) {
		const struct blk *b = &blocks[i];
		struct xfmt_bt_expect e = expect_of(b);
		struct bt_rec r;
		struct xprob_sink s = bt_rec_sink(&r);

		if (xfmt_bt_verify_hdr(b->buf, BS, b->bt, geom_of(b), &e, &s) != 0)
			fail_msg("%s: %u findings, first code 0x%04x", b->name, r.n,
				 (unsigned)r.p[0].code);
		assert_int_equal(r.n, 0);
		/* Level unknown: still clean. */
		e.level = -1;
		assert_int_equal(xfmt_bt_verify_hdr(b->buf, BS, b->bt, geom_of(b), &e, &s), 0);
	}
}

/* Copy a fixture, apply a change, optionally refresh the CRC, verify. */
static unsigned corrupt_verify(const struct blk *b, size_t off, const uint8_t *bytes,
			       size_t n, bool fix_crc, struct xfmt_bt_expect *e,
			       struct bt_rec *r)
{
	uint8_t blk[BS];
	struct xprob_sink s = bt_rec_sink(r);

	memcpy(blk, b->buf, BS);
	if (n)
		memcpy(blk + off, bytes, n);
	if (fix_crc && b->v5)
		xfmt_crc_update(blk, BS, xfmt_bt_crc_off(b->bt));
	return xfmt_bt_verify_hdr(blk, BS, b->bt, geom_of(b), e, &s);
}

static void test_bad_magic(void **state)
{
	const struct blk *b = blk_named("bno_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t v[4];
	struct bt_rec r;

	(void)state;
	xfmt_put_be32(v, 0x41425442);  /* the v4 magic on a v5 filesystem */
	assert_int_equal(corrupt_verify(b, 0, v, 4, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadMagic);
	assert_int_equal(r.p[0].expected, 0x41423342);
	assert_int_equal(r.p[0].observed, 0x41425442);
	/* Without the CRC refresh the checksum is a second, separate finding. */
	assert_int_equal(corrupt_verify(b, 0, v, 4, false, &e, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_btBadMagic, "magic"), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadCrc, "crc"), 1);
}

static void test_wrong_tree_type(void **state)
{
	const struct blk *b = blk_named("bno_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	(void)state;
	/* A bnobt leaf read as a cntbt block: the magic says otherwise. */
	assert_int_equal(xfmt_bt_verify_hdr(bt_bno_leaf, BS, XFMT_BT_CNT, &bt_geom_v5, &e, &s), 1);
	assert_int_equal(r.p[0].code, XP_btBadMagic);
	assert_int_equal(r.p[0].expected, 0x41423343);
	/* A v4 block checked with v5 geometry fails magic (and more). */
	b = blk_named("v4_bno_leaf");
	e = expect_of(b);
	s = bt_rec_sink(&r);
	assert_true(xfmt_bt_verify_hdr(bt_v4_bno_leaf, BS, XFMT_BT_BNO, &bt_geom_v5, &e, &s) >= 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadMagic, NULL), 1);
	/* No rmapbt on v4: expected magic is 0. */
	b = blk_named("rmap_leaf");
	e = expect_of(b);
	s = bt_rec_sink(&r);
	xfmt_bt_verify_hdr(bt_rmap_leaf, BS, XFMT_BT_RMAP, &bt_geom_v4, &e, &s);
	assert_non_null(bt_rec_find(&r, XP_btBadMagic));
	assert_int_equal(bt_rec_find(&r, XP_btBadMagic)->expected, 0);
}

static void test_crc_only(void **state)
{
	const struct blk *b = blk_named("refc_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	struct bt_rec r;
	uint8_t v = 0xAA;

	(void)state;
	/* Past the 336 records: unused space, but covered by the CRC. */
	assert_int_equal(corrupt_verify(b, 56 + 336 * 12 + 1, &v, 1, false, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadCrc);
	assert_int_equal(r.p[0].observed, db_crc(0xb4a8004a));
	assert_int_not_equal(r.p[0].expected, r.p[0].observed);
	assert_int_equal(r.p[0].off, 52);
	/* bmbt: CRC at 64. */
	b = blk_named("bmbt_leaf");
	e = expect_of(b);
	assert_int_equal(corrupt_verify(b, 4000, &v, 1, false, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadCrc);
	assert_int_equal(r.p[0].off, 64);
	/* v4 blocks have no CRC: the same change is silent. */
	b = blk_named("v4_bno_leaf");
	e = expect_of(b);
	assert_int_equal(corrupt_verify(b, 4000, &v, 1, false, &e, &r), 0);
}

static void test_bad_level(void **state)
{
	const struct blk *b = blk_named("ino_node");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t v[2] = { 0, 255 };
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt_verify(b, 4, v, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadLevel);
	assert_int_equal(r.p[0].expected, 1);
	assert_int_equal(r.p[0].observed, 255);
	/* Unknown expected level: 255 is beyond any tree height. */
	e.level = -1;
	assert_int_equal(corrupt_verify(b, 4, v, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadLevel);
	assert_int_equal(r.p[0].expected, XFS_BTREE_MAXLEVELS - 1);
	/* Plausible level, but not the one the parent implies. */
	e.level = 2;
	assert_int_equal(corrupt_verify(b, 0, NULL, 0, false, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadLevel);
	assert_int_equal(r.p[0].observed, 1);
	assert_int_equal(r.p[0].expected, 2);
	/* A leaf made a node: level 1 with 505 records is also over node capacity. */
	b = blk_named("bno_leaf");
	e = expect_of(b);
	v[1] = 1;
	assert_int_equal(corrupt_verify(b, 4, v, 2, false, &e, &r), 3);
	assert_int_equal(bt_rec_count(&r, XP_btBadLevel, "level"), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadNumrecs, "numrecs"), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadCrc, NULL), 1);
	assert_int_equal(bt_rec_find(&r, XP_btBadNumrecs)->expected, 336);
}

static void test_bad_numrecs(void **state)
{
	const struct blk *b = blk_named("bno_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t v[2];
	struct bt_rec r;

	(void)state;
	xfmt_put_be16(v, 506);
	assert_int_equal(corrupt_verify(b, 6, v, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadNumrecs);
	assert_int_equal(r.p[0].expected, 505);
	assert_int_equal(r.p[0].observed, 506);
	xfmt_put_be16(v, 505);
	assert_int_equal(corrupt_verify(b, 6, v, 2, true, &e, &r), 0);
	/* rmap node capacity is 91 (two keys per slot). */
	b = blk_named("rmap_node");
	e = expect_of(b);
	xfmt_put_be16(v, 92);
	assert_int_equal(corrupt_verify(b, 6, v, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadNumrecs);
	assert_int_equal(r.p[0].expected, 91);
	xfmt_put_be16(v, 0xFFFF);
	assert_int_equal(corrupt_verify(b, 6, v, 2, false, &e, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_btBadNumrecs, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadCrc, NULL), 1);
}

static void test_empty_blocks(void **state)
{
	const struct blk *b = blk_named("bno_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t z[2] = { 0, 0 };
	struct bt_rec r;

	(void)state;
	/* An empty non-root leaf is corrupt... */
	assert_int_equal(corrupt_verify(b, 6, z, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btEmptyBlock);
	/* ...an empty root leaf is an AG with nothing to index. */
	e.is_root = true;
	assert_int_equal(corrupt_verify(b, 6, z, 2, true, &e, &r), 0);
	/* An empty root node is still corrupt. */
	b = blk_named("ino_node");
	e = expect_of(b);
	assert_int_equal(corrupt_verify(b, 6, z, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btEmptyBlock);
	/* bmbt blocks on disk are never roots. */
	b = blk_named("bmbt_leaf");
	e = expect_of(b);
	e.is_root = true;
	assert_int_equal(corrupt_verify(b, 6, z, 2, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btEmptyBlock);
}

static void test_bad_v5_identity(void **state)
{
	const struct blk *b = blk_named("cnt_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t v[16];
	struct bt_rec r;

	(void)state;
	/* blkno: the block claims another home. */
	xfmt_put_be64(v, 151920);
	assert_int_equal(corrupt_verify(b, 16, v, 8, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadBlkno);
	assert_int_equal(r.p[0].expected, 151912);
	assert_int_equal(r.p[0].observed, 151920);
	/* Read from the wrong place: blkno mismatch, nothing else. */
	e.daddr = 151920;
	assert_int_equal(corrupt_verify(b, 0, NULL, 0, false, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadBlkno);
	e = expect_of(b);
	/* uuid */
	memset(v, 0x5A, 16);
	assert_int_equal(corrupt_verify(b, 32, v, 16, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadUuid);
	assert_int_equal(corrupt_verify(b, 32, v, 16, false, &e, &r), 2);
	/* owner: AG number */
	xfmt_put_be32(v, 1);
	assert_int_equal(corrupt_verify(b, 48, v, 4, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadOwner);
	assert_int_equal(r.p[0].expected, 0);
	assert_int_equal(r.p[0].observed, 1);
	/* bmbt owner: inode number, 64-bit at 56 */
	b = blk_named("bmbt_node");
	e = expect_of(b);
	xfmt_put_be64(v, 133);
	assert_int_equal(corrupt_verify(b, 56, v, 8, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadOwner);
	assert_int_equal(r.p[0].expected, 132);
	assert_int_equal(r.p[0].observed, 133);
	/* bmbt pad */
	xfmt_put_be32(v, 1);
	assert_int_equal(corrupt_verify(b, 68, v, 4, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btNonzeroPad);
	assert_string_equal(r.p[0].field, "pad");
}

static void test_bad_siblings(void **state)
{
	const struct blk *b = blk_named("rmap_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t v[8];
	struct bt_rec r;

	(void)state;
	/* Points at itself (agbno 1423). */
	xfmt_put_be32(v, 1423);
	assert_int_equal(corrupt_verify(b, 8, v, 4, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadSiblingPtr);
	assert_string_equal(r.p[0].field, "leftsib");
	assert_int_equal(r.p[0].observed, 1423);
	/* Past the end of the AG (agblocks 40960), and onto the AG headers (agbno 0). */
	xfmt_put_be32(v, 40960);
	assert_int_equal(corrupt_verify(b, 12, v, 4, true, &e, &r), 1);
	assert_string_equal(r.p[0].field, "rightsib");
	xfmt_put_be32(v, 0);
	assert_int_equal(corrupt_verify(b, 12, v, 4, true, &e, &r), 1);
	assert_int_equal(r.p[0].code, XP_btBadSiblingPtr);
	xfmt_put_be32(v, 40959);
	assert_int_equal(corrupt_verify(b, 12, v, 4, true, &e, &r), 0);
	/* Long form: fsblocks checked over the whole filesystem. */
	b = blk_named("bmbt_leaf");
	e = expect_of(b);
	xfmt_put_be64(v, 36757);  /* itself */
	assert_int_equal(corrupt_verify(b, 16, v, 8, true, &e, &r), 1);
	assert_string_equal(r.p[0].field, "rightsib");
	xfmt_put_be64(v, (2ull << 16) | 5);  /* AG 2 of a 2-AG filesystem */
	assert_int_equal(corrupt_verify(b, 8, v, 8, true, &e, &r), 1);
	assert_string_equal(r.p[0].field, "leftsib");
	xfmt_put_be64(v, (1ull << 16) | 40000);  /* AG 1, agbno 40000: fine */
	assert_int_equal(corrupt_verify(b, 8, v, 8, true, &e, &r), 0);
	xfmt_put_be64(v, (1ull << 16) | 40960);  /* agbno past agblocks */
	assert_int_equal(corrupt_verify(b, 8, v, 8, true, &e, &r), 1);
	/* Both siblings bad plus stale CRC: three findings. */
	b = blk_named("ino_leaf");
	e = expect_of(b);
	{
		uint8_t both[8] = { 0, 0, 0x28, 0x77, 0, 0, 0, 0 };  /* 10359 (self), 0 */
		assert_int_equal(corrupt_verify(b, 8, both, 8, false, &e, &r), 3);
		assert_int_equal(bt_rec_count(&r, XP_btBadSiblingPtr, NULL), 2);
		assert_int_equal(bt_rec_count(&r, XP_btBadCrc, NULL), 1);
	}
}

/* Every header field wrong at once: each one is its own finding. */
static void test_everything_wrong(void **state)
{
	const struct blk *b = blk_named("refc_leaf");
	struct xfmt_bt_expect e = expect_of(b);
	uint8_t blk[BS];
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	(void)state;
	memcpy(blk, b->buf, BS);
	xfmt_put_be32(blk + 0, 0xDEADBEEF);
	xfmt_put_be16(blk + 4, 255);
	xfmt_put_be16(blk + 6, 60000);
	xfmt_put_be32(blk + 8, 1455);
	xfmt_put_be32(blk + 12, 99999);
	xfmt_put_be64(blk + 16, 1);
	blk[40] ^= 1;
	xfmt_put_be32(blk + 48, 7);
	assert_int_equal(xfmt_bt_verify_hdr(blk, BS, XFMT_BT_REFC, &bt_geom_v5, &e, &s), 9);
	assert_int_equal(bt_rec_count(&r, XP_btBadMagic, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadCrc, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadLevel, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadNumrecs, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadBlkno, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadUuid, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadOwner, NULL), 1);
	assert_int_equal(bt_rec_count(&r, XP_btBadSiblingPtr, NULL), 2);
}

static void test_truncated_buffers(void **state)
{
	const struct blk *b = blk_named("bmbt_node");
	struct xfmt_bt_expect e = expect_of(b);
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);
	static const size_t lens[] = { 0, 1, 23, 71, 72, 100, 4095 };

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len = lens[i];
		uint8_t *p = malloc(len ? len : 1);   /* exact size: ASan sees over-reads */

		memcpy(p, b->buf, len);
		s = bt_rec_sink(&r);
		assert_true(xfmt_bt_verify_hdr(p, len, XFMT_BT_BMAP, &bt_geom_v5, &e, &s) >= 1);
		assert_int_equal(bt_rec_count(&r, XP_btUnreadable, NULL), 1);
		assert_int_equal(bt_rec_find(&r, XP_btUnreadable)->observed, len);
		assert_int_equal(bt_rec_find(&r, XP_btUnreadable)->expected, BS);
		/* Nothing but "unreadable": the CRC cannot be judged on a partial block. */
		assert_int_equal(bt_rec_count(&r, XP_btBadCrc, NULL), 0);
		if (len >= 72)
			assert_int_equal(r.n, 1);
		/* Element access never leaves the buffer. */
		for (unsigned k = 0; k < 300; k++) {
			const uint8_t *q = xfmt_bt_key(p, len, XFMT_BT_BMAP, true, k);
			uint64_t ptr;

			if (q)
				assert_true(q + 8 <= p + len);
			q = xfmt_bt_rec(p, len, XFMT_BT_BMAP, true, k);
			if (q)
				assert_true(q + 16 <= p + len);
			if (xfmt_bt_ptr(p, len, XFMT_BT_BMAP, true, BS, k, &ptr) == 0)
				assert_true(72 + 251 * 8 + (k + 1) * 8 <= len);
		}
		free(p);
	}
}

static void test_node_keys_and_ptrs(void **state)
{
	uint64_t ptr;
	const uint8_t *k;

	(void)state;
	/* bnobt root: keys[1-19] 1:[1672,1] 2:[2348,1] ... 19:[19473,1];
	 * ptrs 1:1 2:18372 3:19325 ... 19:20344 */
	k = xfmt_bt_key(bt_bno_node, BS, XFMT_BT_BNO, true, 0);
	assert_non_null(k);
	assert_int_equal(xfmt_get_be32(k), 1672);
	assert_int_equal(xfmt_get_be32(k + 4), 1);
	k = xfmt_bt_key(bt_bno_node, BS, XFMT_BT_BNO, true, 18);
	assert_int_equal(xfmt_get_be32(k), 19473);
	assert_int_equal(xfmt_bt_ptr(bt_bno_node, BS, XFMT_BT_BNO, true, BS, 0, &ptr), 0);
	assert_int_equal(ptr, 1);
	assert_int_equal(xfmt_bt_ptr(bt_bno_node, BS, XFMT_BT_BNO, true, BS, 1, &ptr), 0);
	assert_int_equal(ptr, 18372);
	assert_int_equal(xfmt_bt_ptr(bt_bno_node, BS, XFMT_BT_BNO, true, BS, 18, &ptr), 0);
	assert_int_equal(ptr, 20344);
	/* The pointer array sits after room for 336 keys, not after numrecs keys. */
	assert_int_equal(xfmt_get_be32(bt_bno_node + 56 + 336 * 8 + 4), 18372);
	assert_int_equal(xfmt_bt_ptr(bt_bno_node, BS, XFMT_BT_BNO, true, BS, 335, &ptr), 0);
	assert_int_equal(xfmt_bt_ptr(bt_bno_node, BS, XFMT_BT_BNO, true, BS, 336, &ptr), -1);
	assert_null(xfmt_bt_key(bt_bno_node, BS, XFMT_BT_BNO, true, 336));
	assert_null(xfmt_bt_highkey(bt_bno_node, BS, XFMT_BT_BNO, true, 0));

	/* inobt root: keys 128, 8832; ptrs 3, 10359 */
	assert_int_equal(xfmt_get_be32(xfmt_bt_key(bt_ino_node, BS, XFMT_BT_INO, true, 1)), 8832);
	assert_int_equal(xfmt_bt_ptr(bt_ino_node, BS, XFMT_BT_INO, true, BS, 1, &ptr), 0);
	assert_int_equal(ptr, 10359);

	/* rmapbt node: keys 1:[17360,-5,0,...,17525,84111,0] 2:[17527,84113,0,...,17698,84279,0];
	 * ptrs 1:16016 2:16184 ... 16:1423 ... 67:19997 */
	k = xfmt_bt_key(bt_rmap_node, BS, XFMT_BT_RMAP, true, 0);
	assert_int_equal(xfmt_get_be32(k), 17360);
	assert_int_equal(xfmt_get_be64(k + 4), (uint64_t)-5);
	k = xfmt_bt_highkey(bt_rmap_node, BS, XFMT_BT_RMAP, true, 0);
	assert_int_equal(xfmt_get_be32(k), 17525);
	assert_int_equal(xfmt_get_be64(k + 4), 84111);
	k = xfmt_bt_key(bt_rmap_node, BS, XFMT_BT_RMAP, true, 1);
	assert_int_equal(xfmt_get_be32(k), 17527);
	assert_int_equal(xfmt_get_be64(k + 4), 84113);
	assert_int_equal(xfmt_bt_ptr(bt_rmap_node, BS, XFMT_BT_RMAP, true, BS, 0, &ptr), 0);
	assert_int_equal(ptr, 16016);
	assert_int_equal(xfmt_bt_ptr(bt_rmap_node, BS, XFMT_BT_RMAP, true, BS, 15, &ptr), 0);
	assert_int_equal(ptr, 1423);
	assert_int_equal(xfmt_bt_ptr(bt_rmap_node, BS, XFMT_BT_RMAP, true, BS, 66, &ptr), 0);
	assert_int_equal(ptr, 19997);
	assert_int_equal(xfmt_bt_ptr(bt_rmap_node, BS, XFMT_BT_RMAP, true, BS, 91, &ptr), -1);
	assert_null(xfmt_bt_key(bt_rmap_node, BS, XFMT_BT_RMAP, true, 91));
	assert_non_null(xfmt_bt_highkey(bt_rmap_node, BS, XFMT_BT_RMAP, true, 90));

	/* refcountbt root: ptrs 1:6 2:1455 ... 18:1660; keys 17:[31109] 18:[31685] */
	assert_int_equal(xfmt_bt_ptr(bt_refc_node, BS, XFMT_BT_REFC, true, BS, 17, &ptr), 0);
	assert_int_equal(ptr, 1660);
	assert_int_equal(xfmt_get_be32(xfmt_bt_key(bt_refc_node, BS, XFMT_BT_REFC, true, 16)), 31109);

	/* bmbt node: keys 1:[0] 2:[260] 48:[11748]; ptrs 1:36756 ... 48:36803 (64-bit) */
	assert_int_equal(xfmt_get_be64(xfmt_bt_key(bt_bmbt_node, BS, XFMT_BT_BMAP, true, 1)), 260);
	assert_int_equal(xfmt_get_be64(xfmt_bt_key(bt_bmbt_node, BS, XFMT_BT_BMAP, true, 47)), 11748);
	assert_int_equal(xfmt_bt_ptr(bt_bmbt_node, BS, XFMT_BT_BMAP, true, BS, 0, &ptr), 0);
	assert_int_equal(ptr, 36756);
	assert_int_equal(xfmt_bt_ptr(bt_bmbt_node, BS, XFMT_BT_BMAP, true, BS, 47, &ptr), 0);
	assert_int_equal(ptr, 36803);
	assert_int_equal(xfmt_bt_ptr(bt_bmbt_node, BS, XFMT_BT_BMAP, true, BS, 251, &ptr), -1);
}

static void test_leaf_record_bounds(void **state)
{
	(void)state;
	/* 505 bnobt records fill a 4096-byte leaf exactly: 56 + 505 * 8 = 4096. */
	assert_ptr_equal(xfmt_bt_rec(bt_bno_leaf, BS, XFMT_BT_BNO, true, 504), bt_bno_leaf + 4088);
	assert_null(xfmt_bt_rec(bt_bno_leaf, BS, XFMT_BT_BNO, true, 505));
	assert_null(xfmt_bt_rec(bt_bno_leaf, BS, XFMT_BT_BNO, true, 0xFFFFFFFFu));
	assert_ptr_equal(xfmt_bt_rec(bt_v4_bno_leaf, BS, XFMT_BT_BNO, false, 0), bt_v4_bno_leaf + 16);
	assert_ptr_equal(xfmt_bt_rec(bt_bmbt_leaf, BS, XFMT_BT_BMAP, true, 0), bt_bmbt_leaf + 72);
	assert_null(xfmt_bt_rec(bt_bmbt_leaf, BS, XFMT_BT_BMAP, true, 251));
	assert_null(xfmt_bt_rec(bt_bmbt_leaf, 80, XFMT_BT_BMAP, true, 0));
	assert_null(xfmt_bt_rec(bt_bmbt_leaf, BS, XFMT_BT_COUNT, true, 0));
}

static void test_field_tables(void **state)
{
	static const char *order[] = { "magic", "level", "numrecs", "leftsib", "rightsib",
				       "bno", "lsn", "uuid", "owner", "crc" };
	const struct xfmt_field *f;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < 10; i++) {
		assert_string_equal(xfmt_bt_short_fields[i].name, order[i]);
		assert_string_equal(xfmt_bt_long_fields[i].name, order[i]);
		assert_int_equal(xfmt_bt_short_fields[i].v5only, i >= 5);
	}
	assert_null(xfmt_bt_short_fields[10].name);
	assert_null(xfmt_bt_long_fields[10].name);
	assert_ptr_equal(xfmt_bt_fields(XFMT_BT_BMAP), xfmt_bt_long_fields);
	assert_ptr_equal(xfmt_bt_fields(XFMT_BT_RMAP), xfmt_bt_short_fields);

	f = xfmt_field_find(xfmt_bt_short_fields, "rightsib");
	assert_int_equal(xfmt_field_get(bt_rmap_node, BS, f, &v), 0);
	assert_int_equal(v, 1435);
	f = xfmt_field_find(xfmt_bt_short_fields, "bno");
	assert_int_equal(xfmt_field_get(bt_rmap_node, BS, f, &v), 0);
	assert_int_equal(v, 130816);
	f = xfmt_field_find(xfmt_bt_long_fields, "owner");
	assert_int_equal(xfmt_field_get(bt_bmbt_leaf, BS, f, &v), 0);
	assert_int_equal(v, 132);
	f = xfmt_field_find(xfmt_bt_long_fields, "leftsib");
	assert_int_equal(xfmt_field_get(bt_bmbt_node, BS, f, &v), 0);
	assert_int_equal(v, NUL64);
	f = xfmt_field_find(xfmt_bt_long_fields, "crc");
	assert_int_equal(xfmt_field_get(bt_bmbt_node, BS, f, &v), 0);
	assert_int_equal(v, db_crc(0x0f37d683));
	f = xfmt_field_find(xfmt_bt_long_fields, "lsn");
	assert_int_equal(xfmt_field_get(bt_bmbt_node, BS, f, &v), 0);
	assert_int_equal(v, 0x10000576a);
}

/* The bmbt root of /frag in its inode: xfs_db prints u3.bmbt.level = 2,
 * numrecs = 1, keys[1] = [0], ptrs[1] = 36754 (forkoff 24: 192-byte fork). */
static void test_bmdr_root(void **state)
{
	const uint8_t *fork = ino_v5_frag + 176;
	uint16_t level, numrecs;
	uint64_t v;

	(void)state;
	assert_int_equal(xfmt_bmdr_maxrecs(192), 11);
	assert_int_equal(xfmt_bmdr_maxrecs(4), 0);
	assert_int_equal(xfmt_bmdr_decode(fork, 192, &level, &numrecs), 0);
	assert_int_equal(level, 2);
	assert_int_equal(numrecs, 1);
	assert_int_equal(xfmt_bmdr_key(fork, 192, 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(xfmt_bmdr_ptr(fork, 192, 0, &v), 0);
	assert_int_equal(v, 36754);
	/* Pointers start at fork + 4 + 11 * 8 = inode byte 268. */
	assert_int_equal(xfmt_get_be64(ino_v5_frag + 268), 36754);
	assert_int_equal(xfmt_bmdr_ptr(fork, 192, 11, &v), -1);
	assert_int_equal(xfmt_bmdr_key(fork, 192, 11, &v), -1);
	assert_int_equal(xfmt_bmdr_decode(fork, 3, &level, &numrecs), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_constants),
		cmocka_unit_test(test_maxrecs_match_btheight),
		cmocka_unit_test(test_hdr_decode_matches_xfs_db),
		cmocka_unit_test(test_hdr_decode_short_buffer),
		cmocka_unit_test(test_real_blocks_verify_clean),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_wrong_tree_type),
		cmocka_unit_test(test_crc_only),
		cmocka_unit_test(test_bad_level),
		cmocka_unit_test(test_bad_numrecs),
		cmocka_unit_test(test_empty_blocks),
		cmocka_unit_test(test_bad_v5_identity),
		cmocka_unit_test(test_bad_siblings),
		cmocka_unit_test(test_everything_wrong),
		cmocka_unit_test(test_truncated_buffers),
		cmocka_unit_test(test_node_keys_and_ptrs),
		cmocka_unit_test(test_leaf_record_bounds),
		cmocka_unit_test(test_field_tables),
		cmocka_unit_test(test_bmdr_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
