/*
 * test_agi.c - AGI decoder, verifier, inobt height limit and field table,
 * against AGI sectors captured from mkfs.xfs 6.1 images (fixtures/),
 * including one frozen while two unlinked files were still open.  Expected
 * values are what `xfs_db -r -c 'agi N' -c p` printed; the height limit is
 * cross-checked with `xfs_db -c 'btheight -w min -n RECORDS inobt'`.
 *
 * Each corruption runs with the CRC recomputed (no agiBadCrc allowed) and
 * with the stale CRC (agiBadCrc required on v5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/agi.h"
#include "formats/crc32c.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/v5_sb0.h"
#include "fixtures/v5_agi0.h"
#include "fixtures/v4_sb0.h"
#include "fixtures/v4_agi0.h"
#include "fixtures/s4k_sb0.h"
#include "fixtures/s4k_agi0.h"
#include "fixtures/ag3_sb0.h"
#include "fixtures/ag3_agi2.h"
#include "fixtures/unl_sb0.h"
#include "fixtures/unl_agi0.h"

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

static unsigned verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		       uint32_t agno, struct fx_sink *store)
{
	FX_SINK(sink, store);
	struct xfmt_agi agi;
	unsigned n;

	assert_int_equal(xfmt_agi_decode(buf, len, &agi), 0);
	n = xfmt_agi_verify(buf, len, &agi, g, agno, &sink);
	assert_int_equal(n, store->n);
	return n;
}

/* ---------------------------------------------------------------- decode */

static void test_decode_v5(void **state)
{
	uint8_t *buf = fx_load(&fx_v5_agi0);
	struct xfmt_agi agi;

	(void)state;
	assert_int_equal(xfmt_agi_decode(buf, 512, &agi), 0);
	/* xfs_db -r -c 'agi 0' -c p v5.img */
	assert_int_equal(agi.magicnum, 0x58414749);
	assert_int_equal(agi.versionnum, 1);
	assert_int_equal(agi.seqno, 0);
	assert_int_equal(agi.length, 65536);
	assert_int_equal(agi.count, 64);
	assert_int_equal(agi.root, 3);
	assert_int_equal(agi.level, 1);
	assert_int_equal(agi.freecount, 61);
	assert_int_equal(agi.newino, 128);
	assert_int_equal(agi.dirino, XFS_NULLAGINO);
	for (int i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
		assert_int_equal(agi.unlinked[i], XFS_NULLAGINO);
	assert_int_equal(agi.uuid[0], 0x01);
	assert_int_equal(agi.uuid[15], 0xef);
	assert_int_equal(agi.crc, bswap32(0xd0ece16a));   /* xfs_db: crc = 0xd0ece16a */
	assert_int_equal(agi.lsn, 0);
	assert_int_equal(agi.pad32, 0);
	assert_int_equal(agi.free_root, 4);
	assert_int_equal(agi.free_level, 1);
	assert_int_equal(agi.iblocks, 1);
	assert_int_equal(agi.fblocks, 1);
	free(buf);
}

static void test_decode_others(void **state)
{
	struct xfmt_agi agi;
	uint8_t *buf;

	(void)state;
	/* xfs_db -r -c 'agi 0' -c p v4.img */
	buf = fx_load(&fx_v4_agi0);
	assert_int_equal(xfmt_agi_decode(buf, 512, &agi), 0);
	assert_int_equal(agi.root, 3);
	assert_int_equal(agi.free_root, 0);
	assert_int_equal(agi.free_level, 0);
	assert_int_equal(agi.iblocks, 0);
	assert_int_equal(agi.crc, 0);
	free(buf);

	/* xfs_db -r -c 'agi 0' -c p s4k.img */
	buf = fx_load(&fx_s4k_agi0);
	assert_int_equal(xfmt_agi_decode(buf, 4096, &agi), 0);
	assert_int_equal(agi.root, 6);
	assert_int_equal(agi.free_root, 7);
	assert_int_equal(agi.crc, bswap32(0xaeb648c3));
	free(buf);

	/* xfs_db -r -c 'agi 2' -c p ag3.img: an AG without inodes */
	buf = fx_load(&fx_ag3_agi2);
	assert_int_equal(xfmt_agi_decode(buf, 512, &agi), 0);
	assert_int_equal(agi.seqno, 2);
	assert_int_equal(agi.length, 85332);
	assert_int_equal(agi.count, 0);
	assert_int_equal(agi.freecount, 0);
	assert_int_equal(agi.newino, XFS_NULLAGINO);
	assert_int_equal(agi.crc, bswap32(0xcd72c2ce));
	free(buf);

	/* xfs_db -r -c 'agi 0' -c p unl-frozen.img: unlinked[0-63] = 4:132 5:133 */
	buf = fx_load(&fx_unl_agi0);
	assert_int_equal(xfmt_agi_decode(buf, 512, &agi), 0);
	assert_int_equal(agi.freecount, 58);
	assert_int_equal(agi.unlinked[4], 132);
	assert_int_equal(agi.unlinked[5], 133);
	assert_int_equal(agi.unlinked[3], XFS_NULLAGINO);
	assert_int_equal(agi.unlinked[6], XFS_NULLAGINO);
	assert_int_equal(agi.lsn, 0x100000002);
	assert_int_equal(agi.crc, bswap32(0xe66f44ab));
	free(buf);
}

static void test_decode_truncated(void **state)
{
	uint8_t *full = fx_load(&fx_v5_agi0);
	struct xfmt_agi agi;

	(void)state;
	for (size_t len = 0; len < XFS_AGI_STRUCT_SIZE; len += 43) {
		uint8_t *cut = fx_dup(full, len);

		assert_int_equal(xfmt_agi_decode(cut, len, &agi), -1);
		free(cut);
	}
	{
		uint8_t *cut = fx_dup(full, XFS_AGI_STRUCT_SIZE - 1);

		assert_int_equal(xfmt_agi_decode(cut, XFS_AGI_STRUCT_SIZE - 1, &agi), -1);
		free(cut);
		/* Exactly the structure: decodes and verifies, CRC left unjudged. */
		cut = fx_dup(full, XFS_AGI_STRUCT_SIZE);
		cut[XFS_AGI_CRC_OFF] ^= 0xFF;
		{
			struct xfmt_geom g;
			struct fx_sink store = { 0 };

			geom_of(&fx_v5_sb0, &g);
			assert_int_equal(verify(cut, XFS_AGI_STRUCT_SIZE, &g, 0, &store), 0);
		}
		free(cut);
	}
	free(full);
}

static void test_maxlevels(void **state)
{
	struct xfmt_geom g;

	(void)state;
	/* xfs_db -c 'btheight -w min -n 8192 inobt' v5.img: 2 levels */
	geom_of(&fx_v5_sb0, &g);
	assert_int_equal(xfmt_agi_inobt_maxlevels(&g), 2);
	/* -n 16384 (agblklog 16 + inopblog 4) on v4.img: 2 levels */
	geom_of(&fx_v4_sb0, &g);
	assert_int_equal(xfmt_agi_inobt_maxlevels(&g), 2);
}

/* ---------------------------------------------------------------- clean */

static void test_clean(void **state)
{
	static const struct { const struct fx_sector *sb, *agi; uint32_t agno; } all[] = {
		{ &fx_v5_sb0, &fx_v5_agi0, 0 },
		{ &fx_v4_sb0, &fx_v4_agi0, 0 },
		{ &fx_s4k_sb0, &fx_s4k_agi0, 0 },
		{ &fx_ag3_sb0, &fx_ag3_agi2, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct xfmt_geom g;
		struct fx_sink store = { 0 };
		uint8_t *buf = fx_load(all[i].agi);

		geom_of(all[i].sb, &g);
		if (verify(buf, all[i].agi->len, &g, all[i].agno, &store))
			fx_dump(&store);
		assert_int_equal(store.n, 0);
		free(buf);
	}
}

/* Two open-but-unlinked inodes: two warnings naming bucket and agino, nothing else. */
static void test_unlinked_in_use(void **state)
{
	struct xfmt_geom g;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_unl_agi0);

	(void)state;
	geom_of(&fx_unl_sb0, &g);
	verify(buf, 512, &g, 0, &store);
	assert_int_equal(store.n, 2);
	assert_int_equal(store.p[0].code, XP_agiUnlinkedInUse);
	assert_int_equal(store.p[0].off, 4);
	assert_int_equal(store.p[0].observed, 132);
	assert_int_equal(store.p[1].code, XP_agiUnlinkedInUse);
	assert_int_equal(store.p[1].off, 5);
	assert_int_equal(store.p[1].observed, 133);
	assert_int_equal(xprob_severity_of(XP_agiUnlinkedInUse), XSEV_WARNING);
	free(buf);
}

static void test_crc_coverage(void **state)
{
	struct xfmt_geom g;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_s4k_agi0);

	(void)state;
	geom_of(&fx_s4k_sb0, &g);
	assert_true(xfmt_crc_ok(buf, 4096, XFS_AGI_CRC_OFF));
	assert_false(xfmt_crc_ok(buf, 512, XFS_AGI_CRC_OFF));
	buf[2048] = 7;
	verify(buf, 4096, &g, 0, &store);
	assert_int_equal(fx_count(&store, XP_agiBadCrc, "crc"), 1);
	assert_int_equal(fx_count(&store, XP_agiNonzeroPad, "sector tail"), 1);
	assert_int_equal(store.n, 2);
	free(buf);
}

/* ---------------------------------------------------------------- fields */

/* `xfs_db -r -c 'agi 0' -c p unl-frozen.img`, " (correct)" dropped. */
static const char *const xfs_db_unl_agi0[] = {
	"magicnum = 0x58414749", "versionnum = 1", "seqno = 0", "length = 65536",
	"count = 64", "root = 3", "level = 1", "freecount = 58", "newino = 128",
	"dirino = null", "unlinked[0-63] = 4:132 5:133 ",
	"uuid = 44444444-5555-6666-7777-888888888888", "crc = 0xe66f44ab",
	"lsn = 0x100000002", "free_root = 4", "free_level = 1", "ino_blocks = 1",
	"fino_blocks = 1",
};

static void test_field_table(void **state)
{
	uint8_t *buf = fx_load(&fx_unl_agi0);
	size_t n = 0;
	char line[256];

	(void)state;
	for (const struct xfmt_field *f = xfmt_agi_fields; f->name; f++, n++) {
		assert_true(n < sizeof(xfs_db_unl_agi0) / sizeof(xfs_db_unl_agi0[0]));
		assert_non_null(f->doc);
		assert_true(f->off + f->size <= XFS_AGI_STRUCT_SIZE);
		if (strcmp(f->name, "unlinked") == 0) {
			/* xfs_db lists the non-null buckets as "bucket:agino ". */
			size_t o = (size_t)snprintf(line, sizeof(line), "unlinked[0-%u] = ",
						    f->size / 4 - 1);

			assert_int_equal(f->kind, XFK_BYTES);
			for (unsigned i = 0; i < f->size / 4; i++) {
				uint32_t v = xfmt_get_be32(buf + f->off + 4 * i);

				if (v != XFS_NULLAGINO)
					o += (size_t)snprintf(line + o, sizeof(line) - o, "%u:%u ", i, v);
			}
		} else {
			assert_int_equal(fx_print_field(buf, 512, f, line, sizeof(line)), 0);
		}
		assert_string_equal(line, xfs_db_unl_agi0[n]);
	}
	assert_int_equal(n, sizeof(xfs_db_unl_agi0) / sizeof(xfs_db_unl_agi0[0]));
	free(buf);
}

/* ---------------------------------------------------------------- corruption */

struct pair {
	const struct fx_sector *sb, *agi;
	uint32_t agno;
};

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
	int64_t off;         /* expected finding offset (bucket), -1 = not checked */
};

static const struct pair v5 = { &fx_v5_sb0, &fx_v5_agi0, 0 };
static const struct pair v4 = { &fx_v4_sb0, &fx_v4_agi0, 0 };
static const struct pair s4k = { &fx_s4k_sb0, &fx_s4k_agi0, 0 };
static const struct pair ag3 = { &fx_ag3_sb0, &fx_ag3_agi2, 2 };

#define BUCKET(i) ((uint16_t)(40 + 4 * (i)))

static const struct corrupt corruptions[] = {
	{ "magic", &v5, { { 0, 4, 0 } }, XP_agiBadMagic, "magicnum", 1, -1 },
	{ "version", &v5, { { 4, 4, 2 } }, XP_agiBadVersion, "versionnum", 1, -1 },
	{ "seqno", &v5, { { 8, 4, 3 } }, XP_agiBadSeqno, "seqno", 1, -1 },
	{ "length", &v5, { { 12, 4, 1 } }, XP_agiBadLength, "length", 1, -1 },
	{ "last_ag_length", &ag3, { { 12, 4, 85334 } }, XP_agiBadLength, "length", 1, -1 },
	{ "count_over", &v5, { { 16, 4, 65536 * 8 + 64 } }, XP_agiBadCount, "count", 1, -1 },
	{ "v4_count_partial_chunk", &v4, { { 16, 4, 100 } }, XP_agiBadCount, "count", 1, -1 },
	{ "freecount", &v5, { { 28, 4, 65 } }, XP_agiBadCount, "freecount", 1, -1 },
	{ "root_outside", &v5, { { 20, 4, 65536 } }, XP_agiBadRoot, "root", 1, -1 },
	{ "root_header", &v5, { { 20, 4, 0 } }, XP_agiRootsCollide, "root", 1, -1 },
	{ "s4k_root_header", &s4k, { { 20, 4, 2 } }, XP_agiRootsCollide, "root", 1, -1 },
	{ "last_ag_root", &ag3, { { 20, 4, 85332 } }, XP_agiBadRoot, "root", 1, -1 },
	{ "free_root_shared", &v5, { { 328, 4, 3 } }, XP_agiRootsCollide, "free_root", 1, -1 },
	{ "free_root_outside", &v5, { { 328, 4, 70000 } }, XP_agiBadRoot, "free_root", 1, -1 },
	{ "level_zero", &v5, { { 24, 4, 0 } }, XP_agiBadLevel, "level", 1, -1 },
	{ "free_level_high", &v5, { { 332, 4, 3 } }, XP_agiBadLevel, "free_level", 1, -1 },
	{ "newino_header", &v5, { { 32, 4, 5 } }, XP_agiBadNewino, "newino", 1, -1 },
	{ "newino_outside", &v5, { { 32, 4, 65536 * 8 } }, XP_agiBadNewino, "newino", 1, -1 },
	{ "dirino", &v5, { { 36, 4, 128 } }, XP_agiBadDirino, "dirino", 1, -1 },
	{ "unlinked_in_use", &v5, { { BUCKET(4), 4, 132 } }, XP_agiUnlinkedInUse, "unlinked", 1, 4 },
	{ "unlinked_wrong_bucket", &v5, { { BUCKET(5), 4, 132 } }, XP_agiBadUnlinked,
	  "unlinked", 1, 5 },
	{ "unlinked_header", &v5, { { BUCKET(0), 4, 0 } }, XP_agiBadUnlinked, "unlinked", 1, 0 },
	{ "unlinked_huge", &v5, { { BUCKET(63), 4, 0x7FFFFFFF } }, XP_agiBadUnlinked,
	  "unlinked", 1, 63 },
	/* agino 682688 is a valid AG-0 number but past the end of the short AG 2 */
	{ "unlinked_past_short_ag", &ag3, { { BUCKET(0), 4, 682688 } }, XP_agiBadUnlinked,
	  "unlinked", 1, 0 },
	{ "ino_blocks", &v5, { { 336, 4, 70000 } }, XP_agiCounterTooBig, "ino_blocks", 1, -1 },
	{ "fino_blocks", &v5, { { 340, 4, 70000 } }, XP_agiCounterTooBig, "fino_blocks", 1, -1 },
	{ "uuid", &v5, { { 296, 1, 0x02 } }, XP_agiBadUuid, "uuid", 1, -1 },
	{ "pad32", &v5, { { 316, 4, 1 } }, XP_agiNonzeroPad, "pad32", 1, -1 },
	{ "sector_tail", &v5, { { 400, 1, 1 } }, XP_agiNonzeroPad, "sector tail", 1, -1 },
	{ "v4_free_root", &v4, { { 328, 4, 4 } }, XP_agiNonzeroPad, "free_root", 1, -1 },
	{ "v4_ino_blocks", &v4, { { 336, 4, 1 } }, XP_agiNonzeroPad, "ino_blocks", 1, -1 },
	{ "v4_uuid", &v4, { { 300, 1, 1 } }, XP_agiNonzeroPad, "uuid", 1, -1 },
	{ "v4_crc", &v4, { { 312, 4, 1 } }, XP_agiNonzeroPad, "crc", 1, -1 },
	{ "v4_lsn", &v4, { { 320, 8, 5 } }, XP_agiNonzeroPad, "lsn", 1, -1 },
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
	const struct fx_sector *fx = c->fx->agi;
	uint8_t *buf = fx_load(fx);
	struct fx_sink store = { 0 };
	struct xfmt_geom g;
	const struct xprob *f;

	geom_of(c->fx->sb, &g);
	apply_pokes(buf, c->poke);
	if (fix_crc && g.v5)
		xfmt_crc_update(buf, fx->len, XFS_AGI_CRC_OFF);
	verify(buf, fx->len, &g, c->fx->agno, &store);
	if (getenv("FX_VERBOSE") || fx_count(&store, c->code, c->field) != 1 ||
	    (fix_crc && c->exact && store.n != c->exact))
		fx_dump(&store);
	assert_int_equal(fx_count(&store, c->code, c->field), 1);
	f = fx_find(&store, c->code);
	if (c->off >= 0)
		assert_int_equal(f->off, (uint64_t)c->off);
	if (fix_crc) {
		assert_int_equal(fx_count(&store, XP_agiBadCrc, NULL), 0);
		if (c->exact)
			assert_int_equal(store.n, c->exact);
	} else {
		assert_int_equal(fx_count(&store, XP_agiBadCrc, "crc"), g.v5 ? 1 : 0);
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

static void test_garbage(void **state)
{
	struct xfmt_geom g;
	uint8_t *buf = malloc(512);
	uint32_t x = 7;

	(void)state;
	geom_of(&fx_ag3_sb0, &g);
	for (int round = 0; round < 200; round++) {
		struct fx_sink store = { 0 };

		for (int i = 0; i < 512; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		assert_true(verify(buf, 512, &g, (uint32_t)round % 4, &store) > 0);
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
		cmocka_unit_test(test_unlinked_in_use),
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
	return _cmocka_run_group_tests("test_agi", tests, NFIXED + 2 * NCORRUPT, NULL, NULL);
}
