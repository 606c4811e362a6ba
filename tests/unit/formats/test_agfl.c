/*
 * test_agfl.c - AGFL decoder, active-window helpers, verifier and header
 * field table, against AGFL sectors captured from mkfs.xfs 6.1 images
 * (fixtures/).  Expected values are what `xfs_db -r -c 'agfl N' -c p` and
 * `-c 'agf N' -c 'p flfirst fllast flcount'` printed.  The wrapped window
 * and the old-kernel padding case cannot be made with mkfs, so they are
 * built from the real v5 sector by moving its window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/crc32c.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/v5_sb0.h"
#include "fixtures/v5_agf0.h"
#include "fixtures/v5_agfl0.h"
#include "fixtures/v4_sb0.h"
#include "fixtures/v4_agf0.h"
#include "fixtures/v4_agfl0.h"
#include "fixtures/s4k_sb0.h"
#include "fixtures/s4k_agf0.h"
#include "fixtures/s4k_agfl0.h"
#include "fixtures/ag3_sb0.h"
#include "fixtures/ag3_agf2.h"
#include "fixtures/ag3_agfl2.h"

#define SLOT_OFF_V5(i) (XFS_AGFL_HDR_SIZE + 4 * (i))

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

static void agf_of(const struct fx_sector *fx, struct xfmt_agf *agf)
{
	uint8_t *buf = fx_load(fx);

	assert_int_equal(xfmt_agf_decode(buf, fx->len, agf), 0);
	free(buf);
}

static unsigned verify(const uint8_t *buf, size_t len, const struct xfmt_agf *agf,
		       const struct xfmt_geom *g, uint32_t agno, struct fx_sink *store)
{
	FX_SINK(sink, store);
	struct xfmt_agfl agfl;
	unsigned n;

	assert_int_equal(xfmt_agfl_decode(buf, len, g, &agfl), 0);
	n = xfmt_agfl_verify(buf, len, &agfl, agf, g, agno, &sink);
	assert_int_equal(n, store->n);
	return n;
}

/* ---------------------------------------------------------------- decode */

static void test_decode_v5(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agfl agfl;
	uint8_t *buf = fx_load(&fx_v5_agfl0);

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	assert_int_equal(xfmt_agfl_decode(buf, 512, &g, &agfl), 0);
	/* xfs_db -r -c 'agfl 0' -c p v5.img */
	assert_int_equal(agfl.magicnum, 0x5841464c);
	assert_int_equal(agfl.seqno, 0);
	assert_int_equal(agfl.uuid[0], 0x01);
	assert_int_equal(agfl.lsn, 0);
	assert_int_equal(agfl.crc, bswap32(0x2d65e580));   /* xfs_db: crc = 0x2d65e580 */
	assert_int_equal(agfl.size, 119);                  /* bno[0-118] */
	assert_ptr_equal(agfl.slots, buf + 36);
	/* bno[0-118] = 0:null 1:7 2:8 3:9 4:10 5:11 6:12 7:null ... */
	assert_int_equal(xfmt_agfl_slot(&agfl, 0), XFS_NULLAGBLOCK);
	for (uint32_t i = 1; i <= 6; i++)
		assert_int_equal(xfmt_agfl_slot(&agfl, i), 6 + i);
	assert_int_equal(xfmt_agfl_slot(&agfl, 7), XFS_NULLAGBLOCK);
	assert_int_equal(xfmt_agfl_slot(&agfl, 118), XFS_NULLAGBLOCK);
	assert_int_equal(xfmt_agfl_slot(&agfl, 119), XFS_NULLAGBLOCK);      /* past the array */
	assert_int_equal(xfmt_agfl_slot(&agfl, UINT32_MAX), XFS_NULLAGBLOCK);
	free(buf);
}

static void test_decode_others(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agfl agfl;
	uint8_t *buf;

	(void)state;
	/* v4: no header, bno[0-127] = 0:null 1:4 2:5 3:6 4:7 5:null ... */
	geom_of(&fx_v4_sb0, &g);
	buf = fx_load(&fx_v4_agfl0);
	assert_int_equal(xfmt_agfl_decode(buf, 512, &g, &agfl), 0);
	assert_int_equal(agfl.size, 128);
	assert_ptr_equal(agfl.slots, buf);
	assert_int_equal(agfl.magicnum, 0);
	assert_int_equal(xfmt_agfl_slot(&agfl, 0), XFS_NULLAGBLOCK);
	assert_int_equal(xfmt_agfl_slot(&agfl, 1), 4);
	assert_int_equal(xfmt_agfl_slot(&agfl, 4), 7);
	assert_int_equal(xfmt_agfl_slot(&agfl, 127), XFS_NULLAGBLOCK);
	free(buf);

	/* 4 KiB sectors: bno[0-1014] = 0:null 1:9 2:10 3:11 4:12 5:null ... */
	geom_of(&fx_s4k_sb0, &g);
	buf = fx_load(&fx_s4k_agfl0);
	assert_int_equal(xfmt_agfl_decode(buf, 4096, &g, &agfl), 0);
	assert_int_equal(agfl.size, 1015);
	assert_int_equal(agfl.crc, bswap32(0x3041211b));
	assert_int_equal(xfmt_agfl_slot(&agfl, 1), 9);
	assert_int_equal(xfmt_agfl_slot(&agfl, 4), 12);
	assert_int_equal(xfmt_agfl_slot(&agfl, 1014), XFS_NULLAGBLOCK);
	free(buf);

	/* ag3, AG 2: seqno 2, bno 1:6 2:7 3:8 4:9 */
	geom_of(&fx_ag3_sb0, &g);
	buf = fx_load(&fx_ag3_agfl2);
	assert_int_equal(xfmt_agfl_decode(buf, 512, &g, &agfl), 0);
	assert_int_equal(agfl.seqno, 2);
	assert_int_equal(agfl.crc, bswap32(0xa19fa706));
	assert_int_equal(xfmt_agfl_slot(&agfl, 1), 6);
	assert_int_equal(xfmt_agfl_slot(&agfl, 4), 9);
	free(buf);
}

static void test_decode_truncated(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agfl agfl;
	uint8_t *full = fx_load(&fx_s4k_agfl0);

	(void)state;
	geom_of(&fx_s4k_sb0, &g);
	/* The array spans the whole sector: anything shorter is refused. */
	for (size_t len = 0; len < 4096; len += 511) {
		uint8_t *cut = fx_dup(full, len);

		assert_int_equal(xfmt_agfl_decode(cut, len, &g, &agfl), -1);
		free(cut);
	}
	{
		uint8_t *cut = fx_dup(full, 4095);

		assert_int_equal(xfmt_agfl_decode(cut, 4095, &g, &agfl), -1);
		free(cut);
	}
	g.sectsize = 0;   /* a geometry nobody validated */
	assert_int_equal(xfmt_agfl_decode(full, 4096, &g, &agfl), -1);
	free(full);
}

/* ---------------------------------------------------------------- window */

static void test_active_window(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct xfmt_agfl agfl;
	uint8_t *buf = fx_load(&fx_v5_agfl0);

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	agf_of(&fx_v5_agf0, &agf);   /* flfirst 1, fllast 6, flcount 6 */
	assert_int_equal(xfmt_agfl_decode(buf, 512, &g, &agfl), 0);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(xfmt_agfl_active(&agfl, &agf, i), 7 + i);
		assert_int_equal(xfmt_agfl_active_slot(&agfl, &agf, i), 1 + i);
	}
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 6), XFS_NULLAGBLOCK);
	assert_int_equal(xfmt_agfl_active_slot(&agfl, &agf, 6), UINT32_MAX);

	/* A window wrapping past slot 118 back to slot 0. */
	xfmt_put_be32(buf + SLOT_OFF_V5(117), 40);
	xfmt_put_be32(buf + SLOT_OFF_V5(118), 41);
	xfmt_put_be32(buf + SLOT_OFF_V5(0), 42);
	agf.flfirst = 117;
	agf.fllast = 1;
	agf.flcount = 4;
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 0), 40);
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 1), 41);
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 2), 42);
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 3), 7);
	assert_int_equal(xfmt_agfl_active_slot(&agfl, &agf, 2), 0);

	/* Damaged AGF fields never index outside the array. */
	agf.flfirst = 119;
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 0), XFS_NULLAGBLOCK);
	agf.flfirst = 0;
	agf.flcount = UINT32_MAX;
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 118), 41);   /* the whole array, once */
	assert_int_equal(xfmt_agfl_active(&agfl, &agf, 119), XFS_NULLAGBLOCK);
	free(buf);
}

/* ---------------------------------------------------------------- clean */

static void test_clean(void **state)
{
	static const struct {
		const struct fx_sector *sb, *agf, *agfl;
		uint32_t agno;
	} all[] = {
		{ &fx_v5_sb0, &fx_v5_agf0, &fx_v5_agfl0, 0 },
		{ &fx_v4_sb0, &fx_v4_agf0, &fx_v4_agfl0, 0 },
		{ &fx_s4k_sb0, &fx_s4k_agf0, &fx_s4k_agfl0, 0 },
		{ &fx_ag3_sb0, &fx_ag3_agf2, &fx_ag3_agfl2, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct xfmt_geom g;
		struct xfmt_agf agf;
		struct fx_sink store = { 0 };
		uint8_t *buf = fx_load(all[i].agfl);

		geom_of(all[i].sb, &g);
		agf_of(all[i].agf, &agf);
		if (verify(buf, all[i].agfl->len, &agf, &g, all[i].agno, &store))
			fx_dump(&store);
		assert_int_equal(store.n, 0);
		/* Without a usable AGF only the header and the slot bounds are checked. */
		assert_int_equal(verify(buf, all[i].agfl->len, NULL, &g, all[i].agno, &store), 0);
		free(buf);
	}
}

/* CRC covers the whole 4 KiB sector: the last slot is inside it. */
static void test_crc_coverage(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_s4k_agfl0);

	(void)state;
	geom_of(&fx_s4k_sb0, &g);
	agf_of(&fx_s4k_agf0, &agf);
	assert_true(xfmt_crc_ok(buf, 4096, XFS_AGFL_CRC_OFF));
	assert_false(xfmt_crc_ok(buf, 512, XFS_AGFL_CRC_OFF));
	xfmt_put_be32(buf + 4092, 100);   /* slot 1014: stale but legal */
	verify(buf, 4096, &agf, &g, 0, &store);
	assert_int_equal(fx_count(&store, XP_agflBadCrc, "crc"), 1);
	assert_int_equal(store.n, 1);
	free(buf);
}

/* v4 mkfs left garbage in unused slots: ignored; the window is checked. */
static void test_v4_slots(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_v4_agfl0);
	const struct xprob *f;

	(void)state;
	geom_of(&fx_v4_sb0, &g);
	agf_of(&fx_v4_agf0, &agf);
	xfmt_put_be32(buf + 4 * 100, 0x12345678);
	assert_int_equal(verify(buf, 512, &agf, &g, 0, &store), 0);
	xfmt_put_be32(buf + 4 * 2, 0x12345678);   /* active slot 2 */
	assert_int_equal(verify(buf, 512, &agf, &g, 0, &store), 1);
	f = fx_find(&store, XP_agflBadBlock);
	assert_non_null(f);
	assert_int_equal(f->off, 2);
	assert_int_equal(f->observed, 0x12345678);
	free(buf);
}

/*
 * The old-kernel padding case: a wrapped window one slot longer than flcount.
 * The AGF verifier sees the same inconsistency as agfBadFlCount.
 */
static void test_needs_reset(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *agfl = fx_load(&fx_v5_agfl0);
	uint8_t *agfbuf = fx_load(&fx_v5_agf0);
	FX_SINK(sink, &store);
	const struct xprob *f;

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	/* Window 116..118,0,1: five slots, valid distinct blocks. */
	xfmt_put_be32(agfl + SLOT_OFF_V5(116), 20);
	xfmt_put_be32(agfl + SLOT_OFF_V5(117), 21);
	xfmt_put_be32(agfl + SLOT_OFF_V5(118), 22);
	xfmt_put_be32(agfl + SLOT_OFF_V5(0), 23);
	xfmt_crc_update(agfl, 512, XFS_AGFL_CRC_OFF);
	xfmt_put_be32(agfbuf + 40, 116);   /* flfirst */
	xfmt_put_be32(agfbuf + 44, 1);     /* fllast */
	xfmt_put_be32(agfbuf + 48, 5);     /* flcount: consistent */
	xfmt_crc_update(agfbuf, 512, XFS_AGF_CRC_OFF);
	assert_int_equal(xfmt_agf_decode(agfbuf, 512, &agf), 0);
	assert_int_equal(xfmt_agf_verify(agfbuf, 512, &agf, &g, 0, &sink), 0);
	assert_int_equal(verify(agfl, 512, &agf, &g, 0, &store), 0);

	/* An old kernel counted one slot fewer. */
	xfmt_put_be32(agfbuf + 48, 4);
	xfmt_crc_update(agfbuf, 512, XFS_AGF_CRC_OFF);
	assert_int_equal(xfmt_agf_decode(agfbuf, 512, &agf), 0);
	assert_int_equal(xfmt_agfl_active(&(struct xfmt_agfl){ .size = 119, .slots = agfl + 36 },
					  &agf, 3), 23);
	assert_int_equal(verify(agfl, 512, &agf, &g, 0, &store), 1);
	f = fx_find(&store, XP_agflNeedsReset);
	assert_non_null(f);
	assert_int_equal(f->observed, 4);
	store.n = 0;
	assert_int_equal(xfmt_agf_verify(agfbuf, 512, &agf, &g, 0, &sink), 1);
	f = fx_find(&store, XP_agfBadFlCount);
	assert_non_null(f);
	assert_int_equal(f->expected, 5);

	/* Not a padding signature: off by two, or not wrapped. */
	store.n = 0;
	agf.flcount = 3;
	assert_int_equal(verify(agfl, 512, &agf, &g, 0, &store), 0);
	agf.flfirst = 1;
	agf.fllast = 6;
	agf.flcount = 5;
	assert_int_equal(verify(agfl, 512, &agf, &g, 0, &store), 0);
	free(agfl);
	free(agfbuf);
}

/* A damaged AGF cannot make the window read past the array or loop. */
static void test_damaged_agf(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_v5_agfl0);

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	agf_of(&fx_v5_agf0, &agf);
	agf.flcount = UINT32_MAX;       /* window covers all 119 slots, nulls included */
	verify(buf, 512, &agf, &g, 0, &store);
	assert_int_equal(fx_count(&store, XP_agflBadBlock, "bno"), 119 - 6);
	store.n = 0;
	agf.flfirst = UINT32_MAX;       /* unusable: header and slot bounds only */
	assert_int_equal(verify(buf, 512, &agf, &g, 0, &store), 0);
	free(buf);
}

/* ---------------------------------------------------------------- fields */

static void test_field_table(void **state)
{
	/* `xfs_db -r -c 'agfl 0' -c p v5.img`, before the bno array */
	static const char *const xfs_db_v5_agfl0[] = {
		"magicnum = 0x5841464c", "seqno = 0",
		"uuid = 01234567-89ab-cdef-0123-456789abcdef", "lsn = 0", "crc = 0x2d65e580",
	};
	uint8_t *buf = fx_load(&fx_v5_agfl0);
	size_t n = 0;
	char line[128];

	(void)state;
	for (const struct xfmt_field *f = xfmt_agfl_fields; f->name; f++, n++) {
		assert_true(n < 5);
		assert_int_equal(fx_print_field(buf, 512, f, line, sizeof(line)), 0);
		assert_string_equal(line, xfs_db_v5_agfl0[n]);
		assert_int_equal(f->v5only, 1);
		assert_true(f->off + f->size <= XFS_AGFL_HDR_SIZE);
	}
	assert_int_equal(n, 5);
	free(buf);
}

/* ---------------------------------------------------------------- corruption */

struct poke {
	uint16_t off;
	uint8_t width;   /* 1 or 4; 0 = unused */
	uint32_t value;
};

struct corrupt {
	const char *name;
	struct poke poke[2];
	enum xprob_code code;
	int64_t off;        /* expected finding offset (slot), -1 = not checked */
	unsigned exact;     /* total findings with a good CRC */
};

/* All on the v5 AGFL of AG 0, window slots 1..6 = blocks 7..12. */
static const struct corrupt corruptions[] = {
	{ "magic", { { 0, 4, 0x5841464d } }, XP_agflBadMagic, -1, 1 },
	{ "seqno", { { 4, 4, 1 } }, XP_agflBadSeqno, -1, 1 },
	{ "uuid", { { 8, 1, 0x00 } }, XP_agflBadUuid, -1, 1 },
	{ "active_in_header", { { SLOT_OFF_V5(3), 4, 0 } }, XP_agflBadBlock, 3, 1 },
	{ "active_outside_ag", { { SLOT_OFF_V5(6), 4, 65536 } }, XP_agflBadBlock, 6, 1 },
	{ "active_null", { { SLOT_OFF_V5(1), 4, 0xFFFFFFFF } }, XP_agflBadBlock, 1, 1 },
	{ "active_duplicate", { { SLOT_OFF_V5(2), 4, 7 } }, XP_agflDuplicateBlock, 2, 1 },
	{ "active_duplicate_last", { { SLOT_OFF_V5(6), 4, 9 } }, XP_agflDuplicateBlock, 6, 1 },
	{ "stale_slot_past_agblocks", { { SLOT_OFF_V5(50), 4, 70000 } }, XP_agflBadBlock, 50, 1 },
};

static void run_corruption(const struct corrupt *c, bool fix_crc)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_v5_agfl0);
	const struct xprob *f;

	geom_of(&fx_v5_sb0, &g);
	agf_of(&fx_v5_agf0, &agf);
	for (int i = 0; i < 2; i++) {
		if (c->poke[i].width == 1)
			buf[c->poke[i].off] = (uint8_t)c->poke[i].value;
		else if (c->poke[i].width == 4)
			xfmt_put_be32(buf + c->poke[i].off, c->poke[i].value);
	}
	if (fix_crc)
		xfmt_crc_update(buf, 512, XFS_AGFL_CRC_OFF);
	verify(buf, 512, &agf, &g, 0, &store);
	if (getenv("FX_VERBOSE") || fx_count(&store, c->code, NULL) != 1)
		fx_dump(&store);
	assert_int_equal(fx_count(&store, c->code, NULL), 1);
	f = fx_find(&store, c->code);
	if (c->off >= 0)
		assert_int_equal(f->off, (uint64_t)c->off);
	assert_int_equal(fx_count(&store, XP_agflBadCrc, NULL), fix_crc ? 0 : 1);
	assert_int_equal(store.n, c->exact + (fix_crc ? 0 : 1));
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

/* A stale slot that is any block below agblocks is legal (kernel rule). */
static void test_stale_slot_legal(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	struct fx_sink store = { 0 };
	uint8_t *buf = fx_load(&fx_v5_agfl0);

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	agf_of(&fx_v5_agf0, &agf);
	xfmt_put_be32(buf + SLOT_OFF_V5(50), 0);
	xfmt_put_be32(buf + SLOT_OFF_V5(51), 7);   /* even a copy of an active block */
	xfmt_crc_update(buf, 512, XFS_AGFL_CRC_OFF);
	assert_int_equal(verify(buf, 512, &agf, &g, 0, &store), 0);
	free(buf);
}

static void test_garbage(void **state)
{
	struct xfmt_geom g;
	struct xfmt_agf agf;
	uint8_t *buf = malloc(512);
	uint32_t x = 3;

	(void)state;
	geom_of(&fx_v5_sb0, &g);
	for (int round = 0; round < 200; round++) {
		struct fx_sink store = { 0 };

		for (int i = 0; i < 512; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		memset(&agf, 0, sizeof(agf));
		agf.flfirst = x % 130;
		agf.fllast = (x >> 8) % 130;
		agf.flcount = (x >> 16) % 140;
		assert_true(verify(buf, 512, &agf, &g, (uint32_t)round % 4, &store) > 0);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_decode_v5),
		cmocka_unit_test(test_decode_others),
		cmocka_unit_test(test_decode_truncated),
		cmocka_unit_test(test_active_window),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_crc_coverage),
		cmocka_unit_test(test_v4_slots),
		cmocka_unit_test(test_needs_reset),
		cmocka_unit_test(test_damaged_agf),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_stale_slot_legal),
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
	return _cmocka_run_group_tests("test_agfl", tests, NFIXED + 2 * NCORRUPT, NULL, NULL);
}
