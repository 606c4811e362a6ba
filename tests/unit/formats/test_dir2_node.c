/*
 * test_dir2_node.c - free-index blocks of node-form directories against
 * real blocks (fixtures/dir_v5.h and dir_v4.h /node; recipe in
 * fixtures/dir_recipe.sh).  Expected values are what `xfs_db -r IMG -c
 * 'path /node' -c 'dblock 16777216' -c p` printed.
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

struct free_case {
	const char *name;
	const uint8_t *buf;
	const struct xfmt_geom *g;
	uint64_t ino, daddr;
	uint32_t db_crc;
	uint32_t nvalid;
	uint16_t best0, best_last;
	size_t nvalid_off, nused_off, firstdb_off, hdr;
};

static const struct free_case cases[] = {
	{ "v5", fx_dir_v5_free, &dir_geom_v5, DIR_V5_NODE_INO, 80, 0x1da4e732, 41, 0x28, 0xdb0,
	  52, 56, 48, 64 },
	{ "v4", fx_dir_v4_free, &dir_geom_v4, DIR_V4_NODE_INO, 459112, 0, 36, 0, 0x310,
	  8, 12, 4, 16 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static struct xfmt_da_expect exp_of(const struct free_case *c)
{
	struct xfmt_da_expect e;

	xfmt_dir2_da_expect_init(&e, c->g, c->ino, DIR_FREE_DA, c->daddr);
	return e;
}

static unsigned v_free(const uint8_t *b, size_t l, const struct xfmt_geom *g,
		       const struct xfmt_da_expect *e, const struct xprob_sink *s)
{
	return xfmt_dir2_free_verify(b, l, g, e, s);
}

static void test_decode(void **state)
{
	(void)state;
	assert_int_equal(xfmt_dir2_free_max_bests(&dir_geom_v5), 2016);
	assert_int_equal(xfmt_dir2_free_max_bests(&dir_geom_v4), 2040);
	assert_int_equal(xfmt_dir2_free_max_bests(&dir_geom_k8), 4064);
	assert_int_equal(xfmt_dir2_free_firstdb(&dir_geom_v5, DIR_FREE_DA), 0);
	assert_int_equal(xfmt_dir2_free_firstdb(&dir_geom_v5, DIR_FREE_DA + 1), 2016);
	/* 8 KiB dir blocks: the second free block is two fs blocks further. */
	assert_int_equal(xfmt_dir2_free_firstdb(&dir_geom_k8, DIR_FREE_DA + 2), 4064);
	for (size_t k = 0; k < NCASES; k++) {
		const struct free_case *c = &cases[k];
		struct xfmt_dir2_free_hdr h;
		uint16_t best;

		assert_int_equal(xfmt_dir2_free_hdr_decode(c->buf, 4096, c->g->v5, &h), 0);
		assert_int_equal(h.magic, c->g->v5 ? XFS_DIR3_FREE_MAGIC : XFS_DIR2_FREE_MAGIC);
		assert_int_equal(h.firstdb, 0);
		assert_int_equal(h.nvalid, c->nvalid);
		assert_int_equal(h.nused, c->nvalid);
		assert_int_equal(h.hdr_len, c->hdr);
		if (c->g->v5) {
			assert_int_equal(h.crc, dir_db_crc(c->db_crc));
			assert_int_equal(h.blkno, c->daddr);
			assert_int_equal(h.owner, c->ino);
			assert_int_equal(h.lsn, 0x100000002ull);
		}
		assert_int_equal(xfmt_dir2_free_best(c->buf, 4096, c->g->v5, 0, &best), 0);
		assert_int_equal(best, c->best0);
		assert_int_equal(xfmt_dir2_free_best(c->buf, 4096, c->g->v5, c->nvalid - 1, &best), 0);
		assert_int_equal(best, c->best_last);
		/* Slots past nvalid are zero in these blocks (the nvalid test relies on it). */
		for (unsigned i = c->nvalid; i < xfmt_dir2_free_max_bests(c->g); i++) {
			assert_int_equal(xfmt_dir2_free_best(c->buf, 4096, c->g->v5, i, &best), 0);
			assert_int_equal(best, 0);
		}
		assert_int_equal(xfmt_dir2_free_best(c->buf, 4096, c->g->v5,
						     xfmt_dir2_free_max_bests(c->g), &best), -1);
	}
}

static void test_fields(void **state)
{
	static const char *v5[] = {
		"fhdr.hdr.magic = 0x58444633", "fhdr.hdr.crc = 0x1da4e732", "fhdr.hdr.bno = 80",
		"fhdr.hdr.lsn = 0x100000002", "fhdr.hdr.uuid = d1d1d1d1-0000-4000-8000-000000000005",
		"fhdr.hdr.owner = 136", "fhdr.firstdb = 0", "fhdr.nvalid = 41", "fhdr.nused = 41",
	};
	static const char *v4[] = {
		"fhdr.magic = 0x58443246", "fhdr.firstdb = 0", "fhdr.nvalid = 36", "fhdr.nused = 36",
	};
	const struct xfmt_field *f;
	char line[128];
	unsigned i;

	(void)state;
	for (i = 0, f = xfmt_dir2_free_fields(true); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v5_free, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v5[i]);
	}
	assert_int_equal(i, 9);
	for (i = 0, f = xfmt_dir2_free_fields(false); f->name; f++, i++) {
		assert_int_equal(fx_print_field(fx_dir_v4_free, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, v4[i]);
	}
	assert_int_equal(i, 4);
}

static void test_verify_clean(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		struct xfmt_da_expect e = exp_of(&cases[k]);
		struct fx_sink s;

		dir_run(v_free, cases[k].buf, 4096, cases[k].g, &e, &s);
		if (s.n)
			fx_dump(&s);
		assert_int_equal(s.n, 0);
	}
}

typedef void (*mutate_fn)(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e);

static void corrupt(size_t k, mutate_fn m, const enum xprob_code *codes)
{
	const struct free_case *c = &cases[k];
	struct xfmt_da_expect e = exp_of(c);
	uint8_t *b = fx_dup(c->buf, 4096);

	m(b, c, &e);
	dir_expect(v_free, b, 4096, c->g, &e, XFMT_DIR3_DATA_CRC_OFF, codes);
	free(b);
}

static void m_magic(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; b[2] ^= 0x20; }
static void m_blkno(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be64(b + 8, 81); }
static void m_uuid(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; b[24] = 0; }
static void m_owner(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; xfmt_put_be64(b + 40, 135); }
static void m_pad(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)c; (void)e; b[61] = 4; }
static void m_firstdb(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + c->firstdb_off, 2016); }
static void m_second_block(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)b; (void)c; e->dablk = DIR_FREE_DA + 1; }
static void m_nvalid(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + c->nvalid_off, 5000); }
static void m_nused(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + c->nused_off, c->nvalid - 1); }
static void m_best_null(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + c->hdr + 2 * 3, 0xffff); }
static void m_best_bad(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + c->hdr + 2 * 3, 0x1001); }
static void m_best_odd(uint8_t *b, const struct free_case *c, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + c->hdr + 2 * (c->nvalid - 1), 0x311); }

static void test_corruptions(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		corrupt(k, m_magic, CODES(XP_daBadMagic));
		corrupt(k, m_firstdb, CODES(XP_dirFreeBadFirstdb));
		corrupt(k, m_second_block, CODES(XP_dirFreeBadFirstdb));
		/* Past the capacity, and the zero slots then count as in use. */
		corrupt(k, m_nvalid, CODES(XP_dirFreeBadNvalid, XP_dirFreeBadNused));
		corrupt(k, m_nused, CODES(XP_dirFreeBadNused));
		corrupt(k, m_best_null, CODES(XP_dirFreeBadNused));
		corrupt(k, m_best_bad, CODES(XP_dirBadBest));
		corrupt(k, m_best_odd, CODES(XP_dirBadBest));
		if (cases[k].g->v5) {
			corrupt(k, m_blkno, CODES(XP_daBadBlkno));
			corrupt(k, m_uuid, CODES(XP_daBadUuid));
			corrupt(k, m_owner, CODES(XP_daBadOwner));
			corrupt(k, m_pad, CODES(XP_daNonzeroPad));
		}
	}
}

static void test_truncated_and_random(void **state)
{
	static const size_t lens[] = { 0, 3, 4, 16, 47, 63, 64, 66, 4095 };
	uint64_t st = 0x0123456789abcdefull;

	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		struct xfmt_da_expect e = exp_of(&cases[k]);

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			struct fx_sink s;
			struct xfmt_dir2_free_hdr h;
			uint16_t best;
			uint8_t *b = fx_dup(cases[k].buf, lens[i]);

			dir_run(v_free, b, lens[i], cases[k].g, &e, &s);
			assert_true(dir_findings_are(&s, CODES(XP_daTruncated)));
			assert_int_equal(xfmt_dir2_free_hdr_decode(b, lens[i], cases[k].g->v5, &h),
					 lens[i] >= cases[k].hdr ? 0 : -1);
			assert_int_equal(xfmt_dir2_free_best(b, lens[i], cases[k].g->v5, 0, &best),
					 lens[i] >= cases[k].hdr + 2 ? 0 : -1);
			free(b);
		}
	}
	for (unsigned round = 0; round < 2000; round++) {
		const struct free_case *c = &cases[round % NCASES];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		uint8_t *b = fx_dup(c->buf, 4096);

		for (unsigned f = 0; f < 1 + round % 5; f++) {
			uint64_t r = dir_rand(&st);

			b[(r >> 8) % 160] ^= (uint8_t)(r | 1);
		}
		(void)dir_run(v_free, b, 4096, c->g, &e, &s);
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
		cmocka_unit_test(test_truncated_and_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
