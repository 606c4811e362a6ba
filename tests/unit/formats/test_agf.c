/*
 * test_agf.c - AGF decoder, verifier, btree height limits and field table,
 * against AGF sectors captured from mkfs.xfs 6.1 images (fixtures/).  The
 * expected values are what `xfs_db -r -c 'agf N' -c p` printed; the height
 * limits are cross-checked with `xfs_db -c 'btheight -w min ...'`.
 *
 * Each corruption pokes one field of a copy and must raise its finding,
 * once with the CRC recomputed (good CRC, insane value: no agfBadCrc) and
 * once with the stale CRC (agfBadCrc too, on v5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/agf.h"
#include "formats/crc32c.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/v5_sb0.h"
#include "fixtures/v5_agf0.h"
#include "fixtures/v4_sb0.h"
#include "fixtures/v4_agf0.h"
#include "fixtures/s4k_sb0.h"
#include "fixtures/s4k_agf0.h"
#include "fixtures/ag3_sb0.h"
#include "fixtures/ag3_agf2.h"

static uint32_t bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static void geom_of(const struct fx_sector *sbfx, struct xfmt_geom *g)
{
	uint8_t *buf = fx_load(sbfx);
	struct xfmt_sb sb;

	assert_int_equal(xfmt_sb_decode(buf, sbfx->len, &sb), 0);
	assert_int_equal(xfmt_geom_from_sb(&sb, g), 0);
	free(buf);
}

/* ---------------------------------------------------------------- decode */

static void test_decode_v5(void **state)
{
	uint8_t *buf = fx_load(&fx_v5_agf0);
	struct xfmt_agf agf;
	static const uint8_t uuid[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};

	(void)state;
	assert_int_equal(xfmt_agf_decode(buf, 512, &agf), 0);
	/* xfs_db -r -c 'agf 0' -c p v5.img */
	assert_int_equal(agf.magicnum, 0x58414746);
	assert_int_equal(agf.versionnum, 1);
	assert_int_equal(agf.seqno, 0);
	assert_int_equal(agf.length, 65536);
	assert_int_equal(agf.bno_root, 1);
	assert_int_equal(agf.cnt_root, 2);
	assert_int_equal(agf.rmap_root, 5);
	assert_int_equal(agf.refcount_root, 6);
	assert_int_equal(agf.bno_level, 1);
	assert_int_equal(agf.cnt_level, 1);
	assert_int_equal(agf.rmap_level, 1);
	assert_int_equal(agf.refcount_level, 1);
	assert_int_equal(agf.rmap_blocks, 1);
	assert_int_equal(agf.refcount_blocks, 1);
	assert_int_equal(agf.flfirst, 1);
	assert_int_equal(agf.fllast, 6);
	assert_int_equal(agf.flcount, 6);
	assert_int_equal(agf.freeblks, 65515);
	assert_int_equal(agf.longest, 65512);
	assert_int_equal(agf.btreeblks, 0);
	assert_memory_equal(agf.uuid, uuid, 16);
	assert_int_equal(agf.lsn, 0);
	assert_int_equal(agf.crc, bswap32(0xba98c676));   /* xfs_db: crc = 0xba98c676 */
	free(buf);
}

static void test_decode_others(void **state)
{
	uint8_t *buf;
	struct xfmt_agf agf;

	(void)state;
	/* xfs_db -r -c 'agf 0' -c p v4.img */
	buf = fx_load(&fx_v4_agf0);
	assert_int_equal(xfmt_agf_decode(buf, 512, &agf), 0);
	assert_int_equal(agf.rmap_root, 0);
	assert_int_equal(agf.refcount_root, 0);
	assert_int_equal(agf.rmap_level, 0);
	assert_int_equal(agf.fllast, 4);
	assert_int_equal(agf.flcount, 4);
	assert_int_equal(agf.freeblks, 65524);
	assert_int_equal(agf.longest, 65524);
	assert_int_equal(agf.crc, 0);
	free(buf);

	/* xfs_db -r -c 'agf 0' -c p s4k.img: roots after four 4 KiB header blocks */
	buf = fx_load(&fx_s4k_agf0);
	assert_int_equal(xfmt_agf_decode(buf, 4096, &agf), 0);
	assert_int_equal(agf.bno_root, 4);
	assert_int_equal(agf.cnt_root, 5);
	assert_int_equal(agf.refcount_root, 8);
	assert_int_equal(agf.rmap_root, 0);
	assert_int_equal(agf.freeblks, 65515);
	assert_int_equal(agf.crc, bswap32(0x5ce720c3));
	free(buf);

	/* xfs_db -r -c 'agf 2' -c p ag3.img: the short last AG */
	buf = fx_load(&fx_ag3_agf2);
	assert_int_equal(xfmt_agf_decode(buf, 512, &agf), 0);
	assert_int_equal(agf.seqno, 2);
	assert_int_equal(agf.length, 85332);
	assert_int_equal(agf.refcount_root, 5);
	assert_int_equal(agf.freeblks, 85322);
	assert_int_equal(agf.longest, 85322);
	assert_int_equal(agf.crc, bswap32(0x8d7d2efd));
	free(buf);
}

static void test_decode_truncated(void **state)
{
	uint8_t *full = fx_load(&fx_v5_agf0);
	struct xfmt_agf agf;

	(void)state;
	for (size_t len = 0; len < XFS_AGF_STRUCT_SIZE; len += 31) {
		uint8_t *cut = fx_dup(full, len);

		assert_int_equal(xfmt_agf_decode(cut, len, &agf), -1);
		free(cut);
	}
	{
		uint8_t *cut = fx_dup(full, XFS_AGF_STRUCT_SIZE - 1);

		assert_int_equal(xfmt_agf_decode(cut, XFS_AGF_STRUCT_SIZE - 1, &agf), -1);
		free(cut);
		cut = fx_dup(full, XFS_AGF_STRUCT_SIZE);
		assert_int_equal(xfmt_agf_decode(cut, XFS_AGF_STRUCT_SIZE, &agf), 0);
		free(cut);
	}
	free(full);
}

/* ---------------------------------------------------------------- heights */

static void test_maxlevels(void **state)
{
	struct xfmt_geom g;

	(void)state;
	/* xfs_db -c 'btheight -w min -n 32768 bnobt' v5.img: 2 levels */
	geom_of(&fx_v5_sb0, &g);
	assert_int_equal(xfmt_agf_alloc_maxlevels(&g), 2);
	/* -n 65536 refcountbt: 3 levels */
	assert_int_equal(xfmt_agf_refcount_maxlevels(&g), 3);
	/* reflink: the kernel's space_to_height(45 keyptrs, 65536 blocks) */
	assert_int_equal(xfmt_agf_rmap_maxlevels(&g), 4);
	geom_of(&fx_v4_sb0, &g);
	assert_int_equal(xfmt_agf_alloc_maxlevels(&g), 2);   /* 255/170 per block */
	assert_int_equal(xfmt_agf_rmap_maxlevels(&g), 0);
	assert_int_equal(xfmt_agf_refcount_maxlevels(&g), 0);
	geom_of(&fx_s4k_sb0, &g);
	assert_int_equal(xfmt_agf_rmap_maxlevels(&g), 0);
	assert_int_equal(xfmt_agf_refcount_maxlevels(&g), 3);
	/* the core: ceil(ceil(records / leaf) / node) ... */
	assert_int_equal(xfmt_agf_tree_maxlevels(84, 45, 65536), 3);  /* btheight rmapbt */
	assert_int_equal(xfmt_agf_tree_maxlevels(10, 10, 1), 1);
	assert_int_equal(xfmt_agf_tree_maxlevels(10, 10, 100), 2);
	assert_int_equal(xfmt_agf_tree_maxlevels(10, 10, 101), 3);
	assert_int_equal(xfmt_agf_tree_maxlevels(0, 10, 101), 0);
	assert_int_equal(xfmt_agf_tree_maxlevels(10, 1, 101), 0);   /* would never end */
}

/* ---------------------------------------------------------------- clean */

struct pair {
	const struct fx_sector *sb, *agf;
	uint32_t agno;
};

static const struct pair clean[] = {
	{ &fx_v5_sb0, &fx_v5_agf0, 0 },
	{ &fx_v4_sb0, &fx_v4_agf0, 0 },
	{ &fx_s4k_sb0, &fx_s4k_agf0, 0 },
	{ &fx_ag3_sb0, &fx_ag3_agf2, 2 },
};

static unsigned verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		       uint32_t agno, struct fx_sink *store)
{
	FX_SINK(sink, store);
	struct xfmt_agf agf;
	unsigned n;

	assert_int_equal(xfmt_agf_decode(buf, len, &agf), 0);
	n = xfmt_agf_verify(buf, len, &agf, g, agno, &sink);
	assert_int_equal(n, store->n);
	return n;
}

static void test_clean(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		struct xfmt_geom g;
		struct fx_sink store = { 0 };
		uint8_t *buf = fx_load(clean[i].agf);

		geom_of(clean[i].sb, &g);
		if (verify(buf, clean[i].agf->len, &g, clean[i].agno, &store))
			fx_dump(&store);
		assert_int_equal(store.n, 0);
		free(buf);
	}
}

/* The same AGF checked as another AG's: seqno and (for the short AG) length. */
static void test_wrong_ag(void **state)
{
	struct xfmt_geom g;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_ag3_agf2);
	const struct xprob *f;

	(void)state;
	geom_of(&fx_ag3_sb0, &g);
	verify(buf, 512, &g, 1, &store);
	assert_int_equal(fx_count(&store, XP_agfBadSeqno, "seqno"), 1);
	f = fx_find(&store, XP_agfBadLength);
	assert_non_null(f);
	assert_int_equal(f->expected, 85334);
	assert_int_equal(f->observed, 85332);
	assert_int_equal(store.n, 2);
	free(buf);
}

/* CRC covers the whole 4 KiB sector; a short buffer gets no CRC verdict. */
static void test_crc_coverage(void **state)
{
	struct xfmt_geom g;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_s4k_agf0);
	uint8_t *cut;

	(void)state;
	geom_of(&fx_s4k_sb0, &g);
	assert_true(xfmt_crc_ok(buf, 4096, XFS_AGF_CRC_OFF));
	assert_false(xfmt_crc_ok(buf, 512, XFS_AGF_CRC_OFF));
	buf[4095] = 1;
	verify(buf, 4096, &g, 0, &store);
	assert_int_equal(fx_count(&store, XP_agfBadCrc, "crc"), 1);
	assert_int_equal(fx_count(&store, XP_agfNonzeroSpare, "sector tail"), 1);
	assert_int_equal(store.n, 2);

	store.n = 0;
	cut = fx_dup(buf, 512);
	verify(cut, 512, &g, 0, &store);
	assert_int_equal(store.n, 0);
	free(cut);
	free(buf);
}

/* ---------------------------------------------------------------- fields */

/* `xfs_db -r -c 'agf 0' -c p v5.img`, " (correct)" dropped. */
static const char *const xfs_db_v5_agf0[] = {
	"magicnum = 0x58414746", "versionnum = 1", "seqno = 0", "length = 65536",
	"bnoroot = 1", "cntroot = 2", "rmaproot = 5", "refcntroot = 6", "bnolevel = 1",
	"cntlevel = 1", "rmaplevel = 1", "refcntlevel = 1", "rmapblocks = 1",
	"refcntblocks = 1", "flfirst = 1", "fllast = 6", "flcount = 6", "freeblks = 65515",
	"longest = 65512", "btreeblks = 0", "uuid = 01234567-89ab-cdef-0123-456789abcdef",
	"lsn = 0", "crc = 0xba98c676",
};

static void test_field_table(void **state)
{
	uint8_t *buf = fx_load(&fx_v5_agf0);
	struct xfmt_agf agf;
	size_t n = 0;
	char line[128];

	(void)state;
	assert_int_equal(xfmt_agf_decode(buf, 512, &agf), 0);
	for (const struct xfmt_field *f = xfmt_agf_fields; f->name; f++, n++) {
		assert_true(n < sizeof(xfs_db_v5_agf0) / sizeof(xfs_db_v5_agf0[0]));
		assert_int_equal(fx_print_field(buf, 512, f, line, sizeof(line)), 0);
		assert_string_equal(line, xfs_db_v5_agf0[n]);
		assert_non_null(f->doc);
		assert_true(f->off + f->size <= XFS_AGF_STRUCT_SIZE);
	}
	assert_int_equal(n, sizeof(xfs_db_v5_agf0) / sizeof(xfs_db_v5_agf0[0]));
	free(buf);

	/* The table's offsets agree with the decoder on a different AGF. */
	buf = fx_load(&fx_ag3_agf2);
	assert_int_equal(xfmt_agf_decode(buf, 512, &agf), 0);
	{
		uint64_t v;
#define SAME(name, member) do { \
	assert_int_equal(xfmt_field_get(buf, 512, xfmt_field_find(xfmt_agf_fields, name), &v), 0); \
	assert_int_equal(v, agf.member); } while (0)
		SAME("seqno", seqno); SAME("length", length); SAME("bnoroot", bno_root);
		SAME("cntroot", cnt_root); SAME("refcntroot", refcount_root);
		SAME("refcntlevel", refcount_level); SAME("flfirst", flfirst);
		SAME("fllast", fllast); SAME("flcount", flcount); SAME("freeblks", freeblks);
		SAME("longest", longest); SAME("btreeblks", btreeblks); SAME("crc", crc);
		SAME("refcntblocks", refcount_blocks); SAME("lsn", lsn);
#undef SAME
	}
	free(buf);
}

/* ---------------------------------------------------------------- corruption */

struct poke {
	uint16_t off;
	uint8_t width;   /* 1, 4 or 8; 0 = unused */
	uint64_t value;
};

struct corrupt {
	const char *name;
	const struct pair *fx;
	struct poke poke[2];
	enum xprob_code code;
	const char *field;
	unsigned exact;      /* total findings with a good CRC; 0 = not checked */
};

static const struct pair v5 = { &fx_v5_sb0, &fx_v5_agf0, 0 };
static const struct pair v4 = { &fx_v4_sb0, &fx_v4_agf0, 0 };
static const struct pair s4k = { &fx_s4k_sb0, &fx_s4k_agf0, 0 };
static const struct pair ag3 = { &fx_ag3_sb0, &fx_ag3_agf2, 2 };

static const struct corrupt corruptions[] = {
	{ "magic", &v5, { { 0, 4, 0x58414747 } }, XP_agfBadMagic, "magicnum", 1 },
	{ "version", &v5, { { 4, 4, 2 } }, XP_agfBadVersion, "versionnum", 1 },
	{ "seqno", &v5, { { 8, 4, 1 } }, XP_agfBadSeqno, "seqno", 1 },
	{ "length", &v5, { { 12, 4, 65535 } }, XP_agfBadLength, "length", 1 },
	{ "last_ag_length", &ag3, { { 12, 4, 85334 } }, XP_agfBadLength, "length", 1 },
	{ "bnoroot_outside", &v5, { { 16, 4, 65536 } }, XP_agfBadRoot, "bnoroot", 1 },
	{ "bnoroot_header", &v5, { { 16, 4, 0 } }, XP_agfRootsCollide, "bnoroot", 1 },
	{ "cntroot_shared", &v5, { { 20, 4, 1 } }, XP_agfRootsCollide, "cntroot", 1 },
	{ "rmaproot_outside", &v5, { { 24, 4, 0xFFFFFFFF } }, XP_agfBadRoot, "rmaproot", 1 },
	{ "refcntroot_shared", &v5, { { 88, 4, 5 } }, XP_agfRootsCollide, "refcntroot", 1 },
	{ "s4k_bnoroot_header", &s4k, { { 16, 4, 3 } }, XP_agfRootsCollide, "bnoroot", 1 },
	{ "last_ag_root", &ag3, { { 20, 4, 85332 } }, XP_agfBadRoot, "cntroot", 1 },
	{ "bnolevel_zero", &v5, { { 28, 4, 0 } }, XP_agfBadLevel, "bnolevel", 1 },
	{ "cntlevel_high", &v5, { { 32, 4, 3 } }, XP_agfBadLevel, "cntlevel", 1 },
	{ "rmaplevel_zero", &v5, { { 36, 4, 0 } }, XP_agfBadLevel, "rmaplevel", 1 },
	{ "refcntlevel_high", &v5, { { 92, 4, 4 } }, XP_agfBadLevel, "refcntlevel", 1 },
	{ "flfirst", &v5, { { 40, 4, 119 } }, XP_agfBadFlIndex, "flfirst", 1 },
	{ "fllast", &v5, { { 44, 4, 200 } }, XP_agfBadFlIndex, "fllast", 1 },
	{ "flcount_short", &v5, { { 48, 4, 5 } }, XP_agfBadFlCount, "flcount", 1 },
	{ "flcount_huge", &v5, { { 48, 4, 120 } }, XP_agfBadFlCount, "flcount", 1 },
	{ "flcount_huge_bad_index", &v5, { { 40, 4, 500 }, { 48, 4, 120 } }, XP_agfBadFlCount,
	  "flcount", 2 },
	{ "freeblks", &v5, { { 52, 4, 65537 } }, XP_agfBadFreeblks, "freeblks", 1 },
	{ "longest", &v5, { { 56, 4, 65516 } }, XP_agfBadLongest, "longest", 1 },
	{ "btreeblks", &v5, { { 60, 4, 65537 } }, XP_agfCounterTooBig, "btreeblks", 1 },
	{ "v4_btreeblks", &v4, { { 60, 4, 65537 } }, XP_agfCounterTooBig, "btreeblks", 1 },
	{ "rmapblocks", &v5, { { 80, 4, 65537 } }, XP_agfCounterTooBig, "rmapblocks", 1 },
	{ "refcntblocks", &v5, { { 84, 4, 65537 } }, XP_agfCounterTooBig, "refcntblocks", 1 },
	{ "uuid", &v5, { { 70, 1, 0x00 } }, XP_agfBadUuid, "uuid", 1 },
	{ "spare64", &v5, { { 150, 1, 0x01 } }, XP_agfNonzeroSpare, "spare64", 1 },
	{ "spare2", &v5, { { 220, 4, 1 } }, XP_agfNonzeroSpare, "spare2", 1 },
	{ "sector_tail", &v5, { { 400, 1, 0x80 } }, XP_agfNonzeroSpare, "sector tail", 1 },
	{ "s4k_rmaproot_no_rmapbt", &s4k, { { 24, 4, 7 } }, XP_agfNonzeroSpare, "rmaproot", 1 },
	{ "s4k_rmaplevel_no_rmapbt", &s4k, { { 36, 4, 1 } }, XP_agfNonzeroSpare, "rmaplevel", 1 },
	{ "v4_refcntroot", &v4, { { 88, 4, 9 } }, XP_agfNonzeroSpare, "refcntroot", 1 },
	{ "v4_uuid", &v4, { { 64, 1, 0x11 } }, XP_agfNonzeroSpare, "uuid", 1 },
	{ "v4_crc", &v4, { { 216, 4, 0x12345678 } }, XP_agfNonzeroSpare, "crc", 1 },
};

static void apply_pokes(uint8_t *buf, const struct poke *poke)
{
	for (int i = 0; i < 2; i++) {
		if (poke[i].width == 1)
			buf[poke[i].off] = (uint8_t)poke[i].value;
		else if (poke[i].width == 4)
			xfmt_put_be32(buf + poke[i].off, (uint32_t)poke[i].value);
		else if (poke[i].width == 8)
			xfmt_put_be64(buf + poke[i].off, poke[i].value);
	}
}

static void run_corruption(const struct corrupt *c, bool fix_crc)
{
	const struct fx_sector *fx = c->fx->agf;
	uint8_t *buf = fx_load(fx);
	struct fx_sink store = { 0 };
	struct xfmt_geom g;

	geom_of(c->fx->sb, &g);
	apply_pokes(buf, c->poke);
	if (fix_crc && g.v5)
		xfmt_crc_update(buf, fx->len, XFS_AGF_CRC_OFF);
	verify(buf, fx->len, &g, c->fx->agno, &store);
	if (getenv("FX_VERBOSE") || fx_count(&store, c->code, c->field) != 1 ||
	    (fix_crc && c->exact && store.n != c->exact))
		fx_dump(&store);
	assert_int_equal(fx_count(&store, c->code, c->field), 1);
	if (fix_crc) {
		assert_int_equal(fx_count(&store, XP_agfBadCrc, NULL), 0);
		if (c->exact)
			assert_int_equal(store.n, c->exact);
	} else {
		assert_int_equal(fx_count(&store, XP_agfBadCrc, "crc"), g.v5 ? 1 : 0);
	}
	free(buf);
}

static void test_corrupt_good_crc(void **state)
{
	run_corruption(*state, true);
}

static void test_corrupt_stale_crc(void **state)
{
	run_corruption(*state, false);
}

/* Random sectors: no crash, no read past the buffer, always findings. */
static void test_garbage(void **state)
{
	struct xfmt_geom g;
	uint8_t *buf = malloc(512);
	uint32_t x = 99;

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	for (int round = 0; round < 200; round++) {
		struct fx_sink store = { 0 };

		for (int i = 0; i < 512; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		assert_true(verify(buf, 512, &g, (uint32_t)round % 5, &store) > 0);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_decode_v5),
		cmocka_unit_test(test_decode_others),
		cmocka_unit_test(test_decode_truncated),
		cmocka_unit_test(test_maxlevels),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_wrong_ag),
		cmocka_unit_test(test_crc_coverage),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_garbage),
	};
	enum { NFIXED = sizeof(fixed) / sizeof(fixed[0]),
	       NCORRUPT = sizeof(corruptions) / sizeof(corruptions[0]) };
	struct CMUnitTest tests[NFIXED + 2 * NCORRUPT];
	static char names[2 * NCORRUPT][64];

	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < NCORRUPT; i++) {
		for (int crc = 0; crc < 2; crc++) {
			struct CMUnitTest *t = &tests[NFIXED + 2 * i + (size_t)crc];

			snprintf(names[2 * i + (size_t)crc], sizeof(names[0]), "corrupt_%s_%s",
				 corruptions[i].name, crc ? "good_crc" : "stale_crc");
			memset(t, 0, sizeof(*t));
			t->name = names[2 * i + (size_t)crc];
			t->test_func = crc ? test_corrupt_good_crc : test_corrupt_stale_crc;
			t->initial_state = (void *)(uintptr_t)&corruptions[i];
		}
	}
	return _cmocka_run_group_tests("test_agf", tests, NFIXED + 2 * NCORRUPT, NULL, NULL);
}
