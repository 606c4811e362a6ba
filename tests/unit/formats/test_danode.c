/*
 * test_danode.c - DA node blocks and the blkinfo header against real blocks
 * (fixtures/dir_v5.h, dir_k8.h, dir_v4.h; recipe in fixtures/dir_recipe.sh).
 * Expected values are what `xfs_db -r IMG -c 'path /node' -c 'dblock
 * 8388608' -c p` printed; every corruption must give exactly its finding,
 * plus daBadCrc while the CRC is stale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/danode.h"
#include "formats/dir2.h"
#include "formats/endian.h"

#include "fixtures/dir_geom.h"
#include "fixtures/dir_k8.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"

struct node_case {
	const char *name;
	const uint8_t *buf;
	const struct xfmt_geom *g;
	uint64_t ino, daddr;
	uint32_t db_crc;          /* as xfs_db prints it; 0 on v4 */
	uint16_t count;
	uint32_t first_hash, first_before, last_hash, last_before;
};

static const struct node_case cases[] = {
	{ "v5", fx_dir_v5_danode, &dir_geom_v5, DIR_V5_NODE_INO, 104, 0x6fc56368, 22,
	  0x22b6198c, 8388610, 0xf6ae5fcd, 8388630 },
	{ "k8", fx_dir_k8_danode, &dir_geom_k8, DIR_K8_NODE_INO, 96, 0xf42bddfd, 10,
	  0x5bec4129, 8388612, 0xf6ae5fcd, 8388628 },
	{ "v4", fx_dir_v4_danode, &dir_geom_v4, DIR_V4_NODE_INO, 458928, 0, 22,
	  0x22b61a8d, 8388610, 0xf6ae5fcd, 8388630 },
};

static unsigned node_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			    const struct xfmt_da_expect *exp, const struct xprob_sink *sink)
{
	return xfmt_da_node_verify(buf, len, g->dirblksize, g, exp, sink);
}

static struct xfmt_da_expect exp_of(const struct node_case *c)
{
	struct xfmt_da_expect e;

	xfmt_dir2_da_expect_init(&e, c->g, c->ino, DIR_LEAF_DA, c->daddr);
	e.level = 1;
	return e;
}

static void test_decode(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct node_case *c = &cases[k];
		struct xfmt_da_node_hdr h;
		uint32_t hash, before;

		assert_int_equal(xfmt_da_node_hdr_decode(c->buf, c->g->dirblksize, c->g->v5, &h), 0);
		assert_int_equal(h.info.forw, 0);
		assert_int_equal(h.info.back, 0);
		assert_int_equal(h.info.magic, c->g->v5 ? 0x3ebe : 0xfebe);
		assert_int_equal(h.count, c->count);
		assert_int_equal(h.level, 1);
		assert_int_equal(h.hdr_len, c->g->v5 ? 64 : 16);
		if (c->g->v5) {
			assert_int_equal(h.info.crc, dir_db_crc(c->db_crc));
			assert_int_equal(h.info.blkno, c->daddr);
			assert_int_equal(h.info.lsn, 0x100000002ull);
			assert_int_equal(h.info.owner, c->ino);
			assert_memory_equal(h.info.uuid, c->g->meta_uuid, 16);
		}
		assert_int_equal(xfmt_da_node_entry(c->buf, c->g->dirblksize, c->g->v5, 0,
						    &hash, &before), 0);
		assert_int_equal(hash, c->first_hash);
		assert_int_equal(before, c->first_before);
		assert_int_equal(xfmt_da_node_entry(c->buf, c->g->dirblksize, c->g->v5,
						    c->count - 1u, &hash, &before), 0);
		assert_int_equal(hash, c->last_hash);
		assert_int_equal(before, c->last_before);
		/* The last slot that fits, and one past it. */
		assert_int_equal(xfmt_da_node_entry(c->buf, c->g->dirblksize, c->g->v5,
						    xfmt_da_node_max_ents(c->g->dirblksize, c->g->v5) - 1,
						    &hash, &before), 0);
		assert_int_equal(xfmt_da_node_entry(c->buf, c->g->dirblksize, c->g->v5,
						    xfmt_da_node_max_ents(c->g->dirblksize, c->g->v5),
						    &hash, &before), -1);
	}
	assert_int_equal(xfmt_da_node_max_ents(4096, true), 504);
	assert_int_equal(xfmt_da_node_max_ents(4096, false), 510);
	assert_int_equal(xfmt_da_node_max_ents(8192, true), 1016);
	assert_int_equal(xfmt_da_node_max_ents(64, true), 0);
}

/* The field tables print exactly what xfs_db printed. */
static void test_fields(void **state)
{
	static const char *v5[] = {
		"nhdr.info.hdr.forw = 0", "nhdr.info.hdr.back = 0", "nhdr.info.hdr.magic = 0x3ebe",
		"nhdr.info.crc = 0x6fc56368", "nhdr.info.bno = 104", "nhdr.info.lsn = 0x100000002",
		"nhdr.info.uuid = d1d1d1d1-0000-4000-8000-000000000005", "nhdr.info.owner = 136",
		"nhdr.count = 22", "nhdr.level = 1",
	};
	static const char *v4[] = {
		"nhdr.info.forw = 0", "nhdr.info.back = 0", "nhdr.info.magic = 0xfebe",
		"nhdr.count = 22", "nhdr.level = 1",
	};
	const struct xfmt_field *f;
	char line[128];
	unsigned i;

	(void)state;
	for (i = 0, f = xfmt_da_node_fields_for(true); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v5_danode, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v5[i]);
	}
	assert_int_equal(i, 10);
	for (i = 0, f = xfmt_da_node_fields_for(false); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v4_danode, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v4[i]);
	}
	assert_int_equal(i, 5);
}

static void test_verify_clean(void **state)
{
	struct fx_sink s;

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct node_case *c = &cases[k];
		struct xfmt_da_expect e = exp_of(c);
		uint8_t *b = fx_dup(c->buf, c->g->dirblksize);

		dir_run(node_verify, b, c->g->dirblksize, c->g, &e, &s);
		if (s.n)
			fx_dump(&s);
		assert_int_equal(s.n, 0);
		/* Level unknown: the range 1..5 is enough. */
		e.level = -1;
		assert_int_equal(dir_run(node_verify, b, c->g->dirblksize, c->g, &e, &s), 0);
		free(b);
	}
}

/* One corruption of a copy of case k; exactly `codes` (+ daBadCrc if stale). */
static void corrupt(size_t k, void (*mutate)(uint8_t *b, const struct node_case *c,
					      struct xfmt_da_expect *e),
		    const enum xprob_code *codes)
{
	const struct node_case *c = &cases[k];
	struct xfmt_da_expect e = exp_of(c);
	uint8_t *b = fx_dup(c->buf, c->g->dirblksize);

	mutate(b, c, &e);
	dir_expect(node_verify, b, c->g->dirblksize, c->g, &e, XFMT_DA_CRC_OFF, codes);
	free(b);
}

static size_t hdr_of(const struct node_case *c) { return c->g->v5 ? 64 : 16; }

static void m_magic(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be16(b + 8, 0x3eb0); }
static void m_blkno(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be64(b + 16, 105); }
static void m_uuid(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; b[40] ^= 1; }
static void m_owner(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be64(b + 48, 137); }
static void m_pad(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be16(b + 10, 1); }
static void m_pad32(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be32(b + 60, 7); }
static void m_forw_self(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be32(b + 0, DIR_LEAF_DA); }
static void m_back_free(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be32(b + 4, DIR_FREE_DA); }
static void m_sib_same(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be32(b + 0, DIR_LEAF_DA + 40); xfmt_put_be32(b + 4, DIR_LEAF_DA + 40); }
static void m_level0(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + hdr_of(c) - (c->g->v5 ? 6 : 2), 0); }
static void m_level2_exp(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)b; (void)c; e->level = 2; }
static void m_level6_unknown(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ e->level = -1; xfmt_put_be16(b + hdr_of(c) - (c->g->v5 ? 6 : 2), 6); }
static void m_count0(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + hdr_of(c) - (c->g->v5 ? 8 : 4), 0); }
static void m_count_big(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{
	(void)e;
	/* Over capacity: the slots past count are zero, so they also break the hash
	 * order and name child 0; clamp the test to the count field alone by
	 * filling every slot with the last real entry. */
	unsigned max = xfmt_da_node_max_ents(c->g->dirblksize, c->g->v5);
	size_t h = hdr_of(c);

	for (unsigned i = c->count; i < max; i++)
		memcpy(b + h + 8u * i, b + h + 8u * (c->count - 1u), 8);
	xfmt_put_be16(b + h - (c->g->v5 ? 8 : 4), (uint16_t)(max + 1));
}
static void m_hash_order(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + hdr_of(c) + 8 * 3, 0x10); }
static void m_before_out(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + hdr_of(c) + 8 * 2 + 4, 5); }
static void m_before_zero(uint8_t *b, const struct node_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + hdr_of(c) + 4, 0); }

static void test_corruptions(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		bool v5 = cases[k].g->v5;

		corrupt(k, m_magic, CODES(XP_daBadMagic));
		corrupt(k, m_pad, CODES(XP_daNonzeroPad));
		corrupt(k, m_forw_self, CODES(XP_daBadSibling));
		corrupt(k, m_back_free, CODES(XP_daBadSibling));
		/* Each pointer is in range, but a block cannot be both neighbours. */
		corrupt(k, m_sib_same, CODES(XP_daBadSibling));
		corrupt(k, m_level0, CODES(XP_daBadLevel));
		corrupt(k, m_level2_exp, CODES(XP_daBadLevel));
		corrupt(k, m_level6_unknown, CODES(XP_daBadLevel));
		corrupt(k, m_count0, CODES(XP_daEmptyNode));
		corrupt(k, m_count_big, CODES(XP_daBadCount));
		corrupt(k, m_hash_order, CODES(XP_daHashOrder));
		corrupt(k, m_before_out, CODES(XP_daBadBefore));
		corrupt(k, m_before_zero, CODES(XP_daBadBefore));
		if (v5) {
			corrupt(k, m_blkno, CODES(XP_daBadBlkno));
			corrupt(k, m_uuid, CODES(XP_daBadUuid));
			corrupt(k, m_owner, CODES(XP_daBadOwner));
			corrupt(k, m_pad32, CODES(XP_daNonzeroPad));
		}
	}
}

/* The CRC alone; and every check is reported, not just the first. */
static void test_crc_and_many(void **state)
{
	struct xfmt_da_expect e = exp_of(&cases[0]);
	struct fx_sink s;
	uint8_t *b = fx_dup(fx_dir_v5_danode, 4096);

	(void)state;
	b[4000] ^= 0x40;   /* unused tail of the node: only the CRC sees it */
	dir_run(node_verify, b, 4096, &dir_geom_v5, &e, &s);
	assert_true(dir_findings_are(&s, CODES(XP_daBadCrc)));
	assert_int_equal(fx_find(&s, XP_daBadCrc)->expected,
			 xfmt_crc32c_excluding(b, 4096, XFMT_DA_CRC_OFF));
	assert_int_equal(fx_find(&s, XP_daBadCrc)->observed, dir_db_crc(0x6fc56368));

	xfmt_put_be16(b + 8, 0x3dff);
	xfmt_put_be64(b + 48, 1);
	xfmt_put_be16(b + 58, 9);
	xfmt_put_be32(b + 64 + 8 * 5, 0);
	dir_run(node_verify, b, 4096, &dir_geom_v5, &e, &s);
	assert_true(dir_findings_are(&s, CODES(XP_daBadCrc, XP_daBadMagic, XP_daBadOwner,
					       XP_daBadLevel, XP_daHashOrder)));
	assert_int_equal(fx_find(&s, XP_daBadLevel)->observed, 9);
	assert_int_equal(fx_find(&s, XP_daHashOrder)->off, 5);
	free(b);
}

/* The attribute use: no segment range, block 0 is the root. */
static void test_attr_style_expect(void **state)
{
	struct xfmt_da_expect e = { .daddr = 104, .owner = DIR_V5_NODE_INO, .dablk = 0,
				    .level = 1, .blk_lo = 0, .blk_hi = 0 };
	struct fx_sink s;
	uint8_t *b = fx_dup(fx_dir_v5_danode, 4096);

	(void)state;
	assert_int_equal(dir_run(node_verify, b, 4096, &dir_geom_v5, &e, &s), 0);
	xfmt_put_be32(b + 64 + 4, 0);   /* a child at block 0 is the root itself */
	xfmt_crc_update(b, 4096, XFMT_DA_CRC_OFF);
	dir_run(node_verify, b, 4096, &dir_geom_v5, &e, &s);
	assert_true(dir_findings_are(&s, CODES(XP_daBadBefore)));
	free(b);
}

/* Short buffers: one daTruncated finding, no read past len (ASan). */
static void test_truncated(void **state)
{
	struct xfmt_da_expect e = exp_of(&cases[0]);
	static const size_t lens[] = { 0, 1, 11, 12, 55, 56, 63, 64, 100, 4095 };

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct xfmt_da_node_hdr h;
		struct xfmt_da_blkinfo bi;
		struct fx_sink s;
		uint32_t hv, bf;
		uint8_t *b = fx_dup(fx_dir_v5_danode, lens[i]);

		dir_run(node_verify, b, lens[i], &dir_geom_v5, &e, &s);
		assert_true(dir_findings_are(&s, CODES(XP_daTruncated)));
		assert_int_equal(xfmt_da_node_hdr_decode(b, lens[i], true, &h), lens[i] >= 64 ? 0 : -1);
		assert_int_equal(xfmt_da_blkinfo_decode(b, lens[i], true, &bi), lens[i] >= 56 ? 0 : -1);
		assert_int_equal(xfmt_da_blkinfo_decode(b, lens[i], false, &bi), lens[i] >= 12 ? 0 : -1);
		assert_int_equal(xfmt_da_node_entry(b, lens[i], true, 0, &hv, &bf),
				 lens[i] >= 72 ? 0 : -1);
		free(b);
	}
}

/* Random damage: never crashes, never reads out of bounds. */
static void test_random_damage(void **state)
{
	uint64_t st = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (unsigned round = 0; round < 3000; round++) {
		const struct node_case *c = &cases[round % 3];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		uint8_t *b = fx_dup(c->buf, c->g->dirblksize);

		for (unsigned f = 0; f < 1 + round % 8; f++) {
			uint64_t r = dir_rand(&st);

			/* Mostly the header and the first entries, where the counts live. */
			b[(r >> 8) % (f & 1 ? c->g->dirblksize : 128)] ^= (uint8_t)(r | 1);
		}
		(void)dir_run(node_verify, b, c->g->dirblksize, c->g, &e, &s);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_verify_clean),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_crc_and_many),
		cmocka_unit_test(test_attr_style_expect),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
