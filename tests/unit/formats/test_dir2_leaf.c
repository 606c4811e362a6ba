/*
 * test_dir2_leaf.c - leaf1 and leafN directory blocks against real blocks
 * (fixtures/dir_v5.h /leaf and /node, dir_v4.h /leaf; recipe in
 * fixtures/dir_recipe.sh).  Expected values are what `xfs_db -r IMG -c
 * 'path P' -c 'dblock D' -c p` printed; each corruption must give exactly
 * its findings, plus daBadCrc while the CRC is stale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/dir2.h"
#include "formats/endian.h"

#include "fixtures/dir_geom.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"

struct leaf_case {
	const char *name;
	const uint8_t *buf;
	const struct xfmt_geom *g;
	bool leaf1;
	uint64_t ino, daddr;
	uint32_t dablk;
	uint32_t db_crc;
	uint32_t forw, back;
	uint16_t count, stale;
	uint32_t h0, a0, hl, al;        /* first and last entry */
	uint32_t bestcount;
	uint16_t bests[3];
};

static const struct leaf_case cases[] = {
	{ "v5 leaf1", fx_dir_v5_leaf1, &dir_geom_v5, true, DIR_V5_LEAF_INO, 458864, DIR_LEAF_DA,
	  0x84ff4f20, 0, 0, 402, 37, 0x2e, 0x8, 0xcbecdcbe, 0x4b8, 3, { 0x28, 0x28, 0xa18 } },
	{ "v5 leafn", fx_dir_v5_leafn, &dir_geom_v5, false, DIR_V5_NODE_INO, 712, DIR_LEAF_DA + 1,
	  0x39a25fe0, 8388611, 8388627, 252, 19, 0xebec5a3f, 0x198, 0xebed5830, 0x613, 0, { 0 } },
	{ "v4 leaf1", fx_dir_v4_leaf1, &dir_geom_v4, true, DIR_V4_LEAF_INO, 104, DIR_LEAF_DA,
	  0, 0, 0, 402, 0, 0x2e, 0x2, 0xcbecdcbe, 0x3cf, 2, { 0, 0x168 } },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static struct xfmt_da_expect exp_of(const struct leaf_case *c)
{
	struct xfmt_da_expect e;

	xfmt_dir2_da_expect_init(&e, c->g, c->ino, c->dablk, c->daddr);
	return e;
}

static unsigned v_leaf1(const uint8_t *b, size_t l, const struct xfmt_geom *g,
			const struct xfmt_da_expect *e, const struct xprob_sink *s)
{
	return xfmt_dir2_leaf_verify(b, l, g, e, true, s);
}

static unsigned v_leafn(const uint8_t *b, size_t l, const struct xfmt_geom *g,
			const struct xfmt_da_expect *e, const struct xprob_sink *s)
{
	return xfmt_dir2_leaf_verify(b, l, g, e, false, s);
}

static void test_decode(void **state)
{
	(void)state;
	assert_int_equal(xfmt_dir2_leaf_max_ents(&dir_geom_v5), 504);
	assert_int_equal(xfmt_dir2_leaf_max_ents(&dir_geom_v4), 510);
	assert_int_equal(xfmt_dir2_leaf_max_ents(&dir_geom_k8), 1016);
	for (size_t k = 0; k < NCASES; k++) {
		const struct leaf_case *c = &cases[k];
		struct xfmt_dir2_leaf_hdr h;
		uint32_t hv, addr;
		uint16_t magic = c->g->v5 ? (c->leaf1 ? 0x3df1 : 0x3dff) : (c->leaf1 ? 0xd2f1 : 0xd2ff);

		assert_int_equal(xfmt_dir2_leaf_hdr_decode(c->buf, 4096, c->g->v5, &h), 0);
		assert_int_equal(h.info.magic, magic);
		assert_int_equal(h.info.forw, c->forw);
		assert_int_equal(h.info.back, c->back);
		assert_int_equal(h.count, c->count);
		assert_int_equal(h.stale, c->stale);
		assert_int_equal(h.hdr_len, c->g->v5 ? 64 : 16);
		if (c->g->v5) {
			assert_int_equal(h.info.crc, dir_db_crc(c->db_crc));
			assert_int_equal(h.info.blkno, c->daddr);
			assert_int_equal(h.info.owner, c->ino);
			assert_int_equal(h.info.lsn, 0x100000002ull);
			assert_int_equal(h.pad, 0);
		}
		assert_int_equal(xfmt_dir2_leaf_entry(c->buf, 4096, c->g->v5, 0, &hv, &addr), 0);
		assert_int_equal(hv, c->h0);
		assert_int_equal(addr, c->a0);
		assert_int_equal(xfmt_dir2_leaf_entry(c->buf, 4096, c->g->v5, c->count - 1u, &hv, &addr), 0);
		assert_int_equal(hv, c->hl);
		assert_int_equal(addr, c->al);
		if (c->leaf1) {
			struct xfmt_dir2_leaf_tail t;
			uint16_t best;

			assert_int_equal(xfmt_dir2_leaf1_tail_decode(c->buf, 4096, c->g, &t), 0);
			assert_int_equal(t.bestcount, c->bestcount);
			assert_int_equal(t.bests_off, 4096 - 4 - 2 * c->bestcount);
			for (unsigned i = 0; i < c->bestcount; i++) {
				assert_int_equal(xfmt_dir2_leaf1_best(c->buf, &t, i, &best), 0);
				assert_int_equal(best, c->bests[i]);
			}
			assert_int_equal(xfmt_dir2_leaf1_best(c->buf, &t, c->bestcount, &best), -1);
		}
	}
}

static void test_fields(void **state)
{
	static const char *v5[] = {
		"lhdr.info.hdr.forw = 0", "lhdr.info.hdr.back = 0", "lhdr.info.hdr.magic = 0x3df1",
		"lhdr.info.crc = 0x84ff4f20", "lhdr.info.bno = 458864", "lhdr.info.lsn = 0x100000002",
		"lhdr.info.uuid = d1d1d1d1-0000-4000-8000-000000000005", "lhdr.info.owner = 655489",
		"lhdr.count = 402", "lhdr.stale = 37",
	};
	static const char *v5n[] = {
		"lhdr.info.hdr.forw = 8388611", "lhdr.info.hdr.back = 8388627",
		"lhdr.info.hdr.magic = 0x3dff",
	};
	static const char *v4[] = {
		"lhdr.info.forw = 0", "lhdr.info.back = 0", "lhdr.info.magic = 0xd2f1",
		"lhdr.count = 402", "lhdr.stale = 0",
	};
	const struct xfmt_field *f;
	char line[128];
	unsigned i;

	(void)state;
	for (i = 0, f = xfmt_dir2_leaf_fields(true); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v5_leaf1, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v5[i]);
		if (i < 3) {
			assert_int_equal(fx_print_field(fx_dir_v5_leafn, 4096, f, line, sizeof(line)), 0);
			assert_string_equal(line, v5n[i]);
		}
	}
	assert_int_equal(i, 10);
	for (i = 0, f = xfmt_dir2_leaf_fields(false); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v4_leaf1, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v4[i]);
	}
	assert_int_equal(i, 5);
	f = xfmt_dir2_leaf_tail_fields;
	assert_int_equal(fx_print_field(fx_dir_v5_leaf1 + 4092, 4, f, line, sizeof(line)), 0);
	assert_string_equal(line, "ltail.bestcount = 3");
	assert_int_equal(fx_print_field(fx_dir_v4_leaf1 + 4092, 4, f, line, sizeof(line)), 0);
	assert_string_equal(line, "ltail.bestcount = 2");
	assert_null(f[1].name);
}

static void test_verify_clean(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct leaf_case *c = &cases[k];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		uint8_t *b = fx_dup(c->buf, 4096);

		dir_run(c->leaf1 ? v_leaf1 : v_leafn, b, 4096, c->g, &e, &s);
		if (s.n)
			fx_dump(&s);
		assert_int_equal(s.n, 0);
		free(b);
	}
}

typedef void (*mutate_fn)(uint8_t *b, struct xfmt_da_expect *e);

static void corrupt_as(size_t k, bool leaf1, mutate_fn m, const enum xprob_code *codes)
{
	const struct leaf_case *c = &cases[k];
	struct xfmt_da_expect e = exp_of(c);
	uint8_t *b = fx_dup(c->buf, 4096);

	m(b, &e);
	dir_expect(leaf1 ? v_leaf1 : v_leafn, b, 4096, c->g, &e, XFMT_DA_CRC_OFF, codes);
	free(b);
}

static void corrupt(size_t k, mutate_fn m, const enum xprob_code *codes)
{
	corrupt_as(k, cases[k].leaf1, m, codes);
}

static void m_none(uint8_t *b, struct xfmt_da_expect *e) { (void)b; (void)e; }
static void m_magic(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[9] ^= 2; }
static void m_forw(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b, DIR_LEAF_DA + 1); }
static void m_forw_low(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b, 5); }
static void m_back_self(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 4, DIR_LEAF_DA + 1); }
static void m_blkno(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 16, 1); }
static void m_uuid(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[47] ^= 1; }
static void m_owner(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 48, 2); }
static void m_infopad(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[11] = 1; }
static void m_pad(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[62] = 1; }
static void m_stale36(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 58, 36); }
static void m_order(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 64 + 8 * 5, 0); }
static void m_addr_hdr(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 64 + 4, 1); }
static void m_addr_db5(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + 64 + 8 * 401 + 4, 5 * 512 + 8); }
static void m_best_odd(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 4090, 0xa1a); }
static void m_best_big(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 4086, 0x1000); }
static void m_bestcount_huge(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 4092, 3000); }
static void m_bestcount2(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 4092, 2); }
/* Fill slots 402..501 with copies of entry 401, then claim more entries. */
static void fill_copies(uint8_t *b)
{
	for (unsigned i = 402; i < 502; i++)
		memcpy(b + 64 + 8 * i, b + 64 + 8 * 401, 8);
}
static void m_overlap(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; fill_copies(b); xfmt_put_be16(b + 56, 503); }
static void m_count_max(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; fill_copies(b); xfmt_put_be16(b + 56, 505); }
/* v4 leaf1: header 16 bytes, count at 12, stale at 14. */
static void m4_stale(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 14, 1); }
static void m4_best(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 4090, 0xffe); }
static void m4_best0_null(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 4088, 0xffff); }

/* Live entries of the v5 leaf1 pointing into data block db. */
static unsigned v5_leaf1_db_count(uint32_t db)
{
	unsigned n = 0;

	for (unsigned i = 0; i < 402; i++) {
		uint32_t hv, addr;

		assert_int_equal(xfmt_dir2_leaf_entry(fx_dir_v5_leaf1, 4096, true, i, &hv, &addr), 0);
		if (addr && xfmt_dir2_dataptr_to_db(&dir_geom_v5, addr) == db)
			n++;
	}
	return n;
}

static void test_corruptions(void **state)
{
	enum xprob_code many[64];
	unsigned k;

	(void)state;
	corrupt(0, m_magic, CODES(XP_daBadMagic));
	corrupt(0, m_forw, CODES(XP_daBadSibling));
	corrupt(0, m_blkno, CODES(XP_daBadBlkno));
	corrupt(0, m_uuid, CODES(XP_daBadUuid));
	corrupt(0, m_owner, CODES(XP_daBadOwner));
	corrupt(0, m_infopad, CODES(XP_daNonzeroPad));
	corrupt(0, m_pad, CODES(XP_daNonzeroPad));
	corrupt(0, m_stale36, CODES(XP_dirLeafBadStale));
	corrupt(0, m_order, CODES(XP_daHashOrder));
	corrupt(0, m_addr_hdr, CODES(XP_dirLeafBadAddress));
	corrupt(0, m_addr_db5, CODES(XP_dirLeafBadDb));
	corrupt(0, m_best_odd, CODES(XP_dirBadBest));
	corrupt(0, m_best_big, CODES(XP_dirBadBest));
	corrupt(0, m_bestcount_huge, CODES(XP_daBadCount));
	corrupt(0, m_overlap, CODES(XP_dirLeafBestsOverlap));
	corrupt(0, m_count_max, CODES(XP_daBadCount, XP_dirLeafBestsOverlap));
	/* Two bests: every entry of data block 2 has lost its slot. */
	assert_int_equal(v5_leaf1_db_count(2), 52);
	for (k = 0; k < 52; k++)
		many[k] = XP_dirLeafBadDb;
	many[k] = (enum xprob_code)0;
	corrupt(0, m_bestcount2, many);

	/* leafN: siblings must stay in the leaf segment and not be the block. */
	corrupt(1, m_forw_low, CODES(XP_daBadSibling));
	corrupt(1, m_back_self, CODES(XP_daBadSibling));
	corrupt(1, m_order, CODES(XP_daHashOrder));
	corrupt(1, m_owner, CODES(XP_daBadOwner));
	/*
	 * A leafN read where a leaf1 belongs: wrong magic, leaf1 has no siblings,
	 * and its last word (stale entry bytes, 0xa65) is no believable bestcount.
	 */
	corrupt_as(1, true, m_none, CODES(XP_daBadMagic, XP_daBadSibling, XP_daBadSibling,
					  XP_daBadCount));
	/* And a leaf1 read as leafN. */
	corrupt_as(0, false, m_none, CODES(XP_daBadMagic));

	corrupt(2, m_magic, CODES(XP_daBadMagic));
	corrupt(2, m4_stale, CODES(XP_dirLeafBadStale));
	corrupt(2, m4_best, CODES(XP_dirBadBest));
	/* bests[0] = NULLDATAOFF: every entry of data block 0 now points at nothing. */
	{
		const struct leaf_case *c = &cases[2];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		uint8_t *b = fx_dup(c->buf, 4096);
		unsigned n0 = 0;

		for (unsigned i = 0; i < 402; i++) {
			uint32_t hv, addr;

			(void)xfmt_dir2_leaf_entry(fx_dir_v4_leaf1, 4096, false, i, &hv, &addr);
			n0 += addr && xfmt_dir2_dataptr_to_db(&dir_geom_v4, addr) == 0;
		}
		assert_int_equal(n0, 210);   /* xfs_db: du[0..209] in data block 0 */
		m4_best0_null(b, &e);
		dir_run(v_leaf1, b, 4096, c->g, &e, &s);
		assert_int_equal(s.n, n0);
		assert_int_equal(fx_count(&s, XP_dirLeafBadDb, NULL), FX_MAX_FINDINGS);
		free(b);
	}
}

static void test_truncated(void **state)
{
	static const size_t lens[] = { 0, 1, 12, 16, 56, 63, 64, 72, 2000, 4095 };

	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct leaf_case *c = &cases[k];
		struct xfmt_da_expect e = exp_of(c);

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			struct fx_sink s;
			struct xfmt_dir2_leaf_hdr h;
			struct xfmt_dir2_leaf_tail t;
			uint32_t hv, addr;
			uint8_t *b = fx_dup(c->buf, lens[i]);
			size_t hl = c->g->v5 ? 64 : 16;

			dir_run(c->leaf1 ? v_leaf1 : v_leafn, b, lens[i], c->g, &e, &s);
			assert_true(dir_findings_are(&s, CODES(XP_daTruncated)));
			assert_int_equal(xfmt_dir2_leaf_hdr_decode(b, lens[i], c->g->v5, &h),
					 lens[i] >= hl ? 0 : -1);
			assert_int_equal(xfmt_dir2_leaf_entry(b, lens[i], c->g->v5, 0, &hv, &addr),
					 lens[i] >= hl + 8 ? 0 : -1);
			assert_int_equal(xfmt_dir2_leaf1_tail_decode(b, lens[i], c->g, &t), -1);
			free(b);
		}
	}
}

static void test_random_damage(void **state)
{
	uint64_t st = 0x5555aaaa12345678ull;

	(void)state;
	for (unsigned round = 0; round < 3000; round++) {
		const struct leaf_case *c = &cases[round % NCASES];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		uint8_t *b = fx_dup(c->buf, 4096);

		for (unsigned f = 0; f < 1 + round % 6; f++) {
			uint64_t r = dir_rand(&st);
			size_t at = (r >> 8) & 1 ? (r >> 16) % 80 : 4096 - 1 - (r >> 16) % 16;

			b[at] ^= (uint8_t)(r | 1);
		}
		(void)dir_run(v_leaf1, b, 4096, c->g, &e, &s);
		(void)dir_run(v_leafn, b, 4096, c->g, &e, &s);
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
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
