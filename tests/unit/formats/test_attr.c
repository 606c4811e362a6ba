/*
 * test_attr.c - extended attributes against real inodes and attr blocks
 * (fixtures/attr_v5.h and attr_v4.h, made by fixtures/attr_recipe.sh and
 * attr_mkfixtures.sh).  Expected values are what xfs_db 6.1 printed for
 * the same images: `xfs_db -r -c 'inode N' -c p` (a.sfattr.*),
 * `-c 'inode N' -c 'ablock K' -c p` (leaf, node and remote blocks) and
 * `-c 'hash NAME'`.  Then one field at a time is corrupted, with and
 * without a fresh CRC, and the exact findings are checked; truncated and
 * random blocks must be read safely (the suite runs under ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/attr.h"
#include "formats/attr_sf_enc.h"
#include "formats/block.h"
#include "formats/crc32c.h"
#include "formats/danode.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/attr_fx.h"
#include "fixtures/attr_v4.h"
#include "fixtures/attr_v5.h"

static const struct xfmt_geom *G5 = &afx_geom_v5;
static const struct xfmt_geom *G4 = &afx_geom_v4;

/* Where the blocks were read from (xfs_db "stack" / hdr.info.bno). */
#define LEAF_INO     132
#define LEAF_DADDR   120
#define NODE_INO     133
#define NODE_DADDR   112
#define NODE_LEAF1_DADDR 104
#define RMT_INO      134
#define RMT_LEAF_DADDR 272
#define RMT_FIRST_DADDR 280
#define RMT_LAST_DADDR  408
#define SF_AFORK_OFF 368   /* 176 + forkoff 24 * 8 */

static void reset(struct fx_sink *s)
{
	memset(s, 0, sizeof(*s));
}

/* The fields of one expected finding (field NULL = any). */
struct want {
	enum xprob_code code;
	const char *field;
};

/* s must hold exactly the findings in w[0..n) (order free), plus daBadCrc if crc_stale. */
static void assert_findings(const struct fx_sink *s, const struct want *w, unsigned n,
			    bool crc_stale, enum xprob_code crc_code, const char *what)
{
	unsigned total = n + (crc_stale ? 1 : 0);

	if (s->n != total) {
		fprintf(stderr, "case %s (crc %s): %u findings, want %u\n", what,
			crc_stale ? "stale" : "fresh", s->n, total);
		fx_dump(s);
	}
	assert_int_equal(s->n, total);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;

		for (unsigned j = 0; j < n; j++)
			if (w[j].code == w[i].code &&
			    (!w[j].field || !w[i].field || !strcmp(w[j].field, w[i].field)))
				k++;
		if (fx_count(s, w[i].code, w[i].field) != k) {
			fprintf(stderr, "case %s: want %s/%s\n", what, xprob_id(w[i].code),
				w[i].field ? w[i].field : "-");
			fx_dump(s);
		}
		assert_int_equal(fx_count(s, w[i].code, w[i].field), k);
	}
	if (crc_stale)
		assert_int_equal(fx_count(s, crc_code, NULL), 1);
}

/* Compare a field table, field by field, with xfs_db's lines. */
static void assert_fields(const uint8_t *buf, size_t len, const struct xfmt_field *t,
			  const char *const *want, unsigned nwant)
{
	char line[200];
	unsigned i = 0;

	for (const struct xfmt_field *f = t; f->name; f++, i++) {
		assert_true(i < nwant);
		assert_int_equal(fx_print_field(buf, len, f, line, sizeof(line)), 0);
		assert_string_equal(line, want[i]);
	}
	assert_int_equal(i, nwant);
}

/* ------------------------------------------------------------ namespaces */

static void test_namespaces(void **state)
{
	(void)state;
	assert_int_equal(xfmt_attr_ns_of(0), XFMT_ATTR_NS_USER);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_LOCAL), XFMT_ATTR_NS_USER);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_ROOT | XFS_ATTR_LOCAL), XFMT_ATTR_NS_TRUSTED);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_SECURE), XFMT_ATTR_NS_SECURE);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_PARENT | XFS_ATTR_INCOMPLETE),
			 XFMT_ATTR_NS_PARENT);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_ROOT | XFS_ATTR_SECURE), XFMT_ATTR_NS_INVALID);
	assert_int_equal(xfmt_attr_ns_of(XFS_ATTR_PARENT | XFS_ATTR_SECURE),
			 XFMT_ATTR_NS_INVALID);
	assert_string_equal(xfmt_attr_ns_prefix(XFMT_ATTR_NS_USER), "user.");
	assert_string_equal(xfmt_attr_ns_prefix(XFMT_ATTR_NS_TRUSTED), "trusted.");
	assert_string_equal(xfmt_attr_ns_prefix(XFMT_ATTR_NS_SECURE), "security.");
	assert_string_equal(xfmt_attr_ns_prefix(XFMT_ATTR_NS_PARENT), "parent.");
	assert_string_equal(xfmt_attr_ns_prefix(XFMT_ATTR_NS_INVALID), "");
	/* xfs_db -c 'hash attr_37' / 'hash big' */
	assert_int_equal(xfmt_attr_hashval(G5, XFS_ATTR_ROOT, (const uint8_t *)"attr_37", 7,
					   NULL, 0), 0x4e565e10);
	assert_int_equal(xfmt_attr_hashval(G5, 0, (const uint8_t *)"big", 3, NULL, 65536),
			 0x18b4e7);
}

/* ------------------------------------------------------------ shortform */

struct sf_fx {
	uint8_t *buf;
	struct xfmt_dinode d;
	uint8_t *fork;
	size_t size;
};

static void load_sf(struct sf_fx *f)
{
	const uint8_t *fork;

	f->buf = afx_load(&attr_sf_ino);
	assert_int_equal(xfmt_dinode_decode(f->buf, attr_sf_ino.len, G5, &f->d), 0);
	fork = xfmt_dinode_fork(f->buf, &f->d, 1, &f->size);
	f->fork = f->buf + (fork - f->buf);
}

static void test_sf_matches_xfs_db(void **state)
{
	struct sf_fx f;
	struct xfmt_attr_sf_hdr h;
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	/* a.sfattr.list[0-2]: small=value1 (user), t1=tv (root), s1=sv (secure) */
	static const struct { const char *name, *value; enum xfmt_attr_ns ns; } want[] = {
		{ "small", "value1", XFMT_ATTR_NS_USER },
		{ "t1", "tv", XFMT_ATTR_NS_TRUSTED },
		{ "s1", "sv", XFMT_ATTR_NS_SECURE },
	};
	unsigned n = 0;

	(void)state;
	load_sf(&f);
	assert_int_equal(f.d.aformat, XFS_DINODE_FMT_LOCAL);
	assert_int_equal(f.d.forkoff, 24);
	assert_int_equal(f.fork - f.buf, SF_AFORK_OFF);
	assert_int_equal(f.size, 144);
	/* a.sfattr.hdr.totsize = 32, count = 3 */
	assert_int_equal(xfmt_attr_sf_hdr_decode(f.fork, f.size, &h), 0);
	assert_int_equal(h.totsize, 32);
	assert_int_equal(h.count, 3);
	xfmt_attr_sf_iter_init(&it, f.fork, f.size);
	while (xfmt_attr_sf_next(&it, &e) == 1) {
		assert_true(n < 3);
		assert_int_equal(e.idx, n);
		assert_int_equal(e.namelen, strlen(want[n].name));
		assert_memory_equal(e.name, want[n].name, e.namelen);
		assert_int_equal(e.valuelen, strlen(want[n].value));
		assert_memory_equal(e.value, want[n].value, e.valuelen);
		assert_int_equal(e.ns, want[n].ns);
		assert_true(e.local);
		assert_false(e.incomplete);
		assert_int_equal(e.entsize, 3 + e.namelen + e.valuelen);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(it.pos, 32);
	assert_int_equal(xfmt_attr_sf_next(&it, &e), 0);
	assert_int_equal(xfmt_attr_sf_verify(f.fork, f.size, G5, &sink), 0);
	assert_int_equal(xfmt_dinode_verify(f.buf, attr_sf_ino.len, G5, 131, &f.d, &sink), 0);
	assert_int_equal(s.n, 0);
	free(f.buf);
}

/*
 * The encoder writes what the kernel wrote: the fixture's three entries
 * (made by setfattr on a mounted filesystem) decoded and encoded again
 * give the same bytes; a list that does not fit is refused untouched; a
 * parent pointer written verifies and decodes back.
 */
static void test_sf_encode(void **state)
{
	struct sf_fx f;
	struct xfmt_attr_sf_in in[3];
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	struct xfmt_geom gp = *G5;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint8_t out[144], small[31], val[12];
	uint64_t pino;
	uint32_t pgen;
	unsigned n = 0;

	(void)state;
	load_sf(&f);
	xfmt_attr_sf_iter_init(&it, f.fork, f.size);
	while (n < 3 && xfmt_attr_sf_next(&it, &e) == 1) {
		in[n] = (struct xfmt_attr_sf_in){ .flags = e.flags, .name = e.name,
						  .namelen = e.namelen, .value = e.value,
						  .valuelen = (uint8_t)e.valuelen };
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(xfmt_attr_sf_size(in, 3), 32);
	memset(out, 0xAA, sizeof(out));
	assert_int_equal(xfmt_attr_sf_encode(in, 3, out, sizeof(out)), 32);
	assert_memory_equal(out, f.fork, f.size);
	memset(small, 0xAA, sizeof(small));
	assert_int_equal(xfmt_attr_sf_encode(in, 3, small, sizeof(small)), 0);
	assert_int_equal(small[0], 0xAA);

	gp.incompat |= XFS_SB_FEAT_INCOMPAT_PARENT;
	xfmt_attr_pptr_encode(val, 655488, 3382448242u);
	in[0] = (struct xfmt_attr_sf_in){ .flags = XFS_ATTR_PARENT, .name = (const uint8_t *)"f5",
					  .namelen = 2, .value = val, .valuelen = 12 };
	/* 21 bytes, as xfs_db 6.13 prints a.sfattr.hdr.totsize for one such name */
	assert_int_equal(xfmt_attr_sf_encode(in, 1, out, sizeof(out)), 21);
	assert_int_equal(xfmt_attr_sf_verify(out, sizeof(out), &gp, &sink), 0);
	xfmt_attr_sf_iter_init(&it, out, sizeof(out));
	assert_int_equal(xfmt_attr_sf_next(&it, &e), 1);
	assert_int_equal(e.ns, XFMT_ATTR_NS_PARENT);
	assert_int_equal(xfmt_attr_pptr_decode(e.value, e.valuelen, &pino, &pgen), 0);
	assert_int_equal(pino, 655488);
	assert_int_equal(pgen, 3382448242u);
	assert_int_equal(s.n, 0);
	free(f.buf);
}

/* A shortform corruption: byte patches inside the attr fork. */
struct sf_case {
	const char *what;
	struct { unsigned off; uint8_t val; } patch[4];
	unsigned npatch;
	struct want w[3];
	unsigned nw;
	bool parent_fs;
};

static void run_sf_case(const struct sf_case *c)
{
	struct xfmt_geom gp = *G5;

	gp.incompat |= XFS_SB_FEAT_INCOMPAT_PARENT;
	for (int fresh = 0; fresh < 2; fresh++) {
		struct sf_fx f;
		struct fx_sink s = { 0 }, si = { 0 };
		FX_SINK(sink, &s);
		FX_SINK(isink, &si);

		load_sf(&f);
		for (unsigned i = 0; i < c->npatch; i++)
			f.fork[c->patch[i].off] = c->patch[i].val;
		if (fresh)
			xfmt_crc_update(f.buf, attr_sf_ino.len, XFMT_DINODE_CRC_OFF);
		assert_int_equal(xfmt_dinode_decode(f.buf, attr_sf_ino.len, G5, &f.d), 0);
		xfmt_attr_sf_verify(f.fork, f.size, c->parent_fs ? &gp : G5, &sink);
		/* the attr findings do not depend on the inode CRC */
		assert_findings(&s, c->w, c->nw, false, 0, c->what);
		xfmt_dinode_verify(f.buf, attr_sf_ino.len, G5, 131, &f.d, &isink);
		assert_int_equal(fx_count(&si, XP_inoBadCrc, NULL), fresh ? 0 : 1);
		free(f.buf);
	}
}

static void test_sf_corruptions(void **state)
{
	/* fork bytes: 00 20 03 00 | 05 06 00 "small" "value1" (4..17) |
	 * 02 02 02 "t1" "tv" (18..24) | 02 02 04 "s1" "sv" (25..31) */
	static const struct sf_case cases[] = {
		{ "totsize over fork", { { 0, 0x00 }, { 1, 200 } }, 2,
		  { { XP_attrSfBadTotsize, "hdr.totsize" } }, 1, false },
		{ "totsize 3", { { 1, 3 } }, 1,
		  { { XP_attrSfBadTotsize, "hdr.totsize" }, { XP_attrSfEntryOverflow, NULL } }, 2,
		  false },
		{ "totsize 40", { { 1, 40 } }, 1,
		  { { XP_attrSfSizeMismatch, "hdr.totsize" } }, 1, false },
		{ "count 4", { { 2, 4 } }, 1, { { XP_attrSfEntryOverflow, "hdr.count" } }, 1, false },
		{ "count 2", { { 2, 2 } }, 1, { { XP_attrSfSizeMismatch, "hdr.totsize" } }, 1, false },
		{ "namelen 0", { { 25, 0 }, { 26, 4 } }, 2, { { XP_attrBadNamelen, "namelen" } }, 1,
		  false },
		{ "leaf-only LOCAL bit", { { 20, 0x03 } }, 1, { { XP_attrBadFlags, "flags" } }, 1,
		  false },
		{ "INCOMPLETE", { { 20, 0x82 } }, 1, { { XP_attrBadFlags, "flags" } }, 1, false },
		{ "unknown bit", { { 20, 0x22 } }, 1, { { XP_attrBadFlags, "flags" } }, 1, false },
		{ "two namespaces", { { 20, 0x06 } }, 1, { { XP_attrMultipleNs, "flags" } }, 1, false },
		{ "NUL in name", { { 9, 0 } }, 1, { { XP_attrBadName, "name" } }, 1, false },
		{ "parent, no feature", { { 20, 0x08 } }, 1,
		  { { XP_attrParentNoFeature, "flags" } }, 1, false },
		{ "parent, 2-byte value", { { 20, 0x08 } }, 1,
		  { { XP_attrParentBadValue, "valuelen" } }, 1, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_sf_case(&cases[i]);
}

static void test_sf_parent_pointer(void **state)
{
	/* A synthetic parent pointer list: child -> (ino 131, gen 7). */
	uint8_t fork[64] = { 0 };
	struct xfmt_geom gp = *G5;
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint64_t pino;
	uint32_t pgen;

	(void)state;
	gp.incompat |= XFS_SB_FEAT_INCOMPAT_PARENT;
	xfmt_put_be16(fork, 4 + 3 + 5 + 12);
	fork[2] = 1;
	fork[4] = 5;
	fork[5] = 12;
	fork[6] = XFS_ATTR_PARENT;
	memcpy(fork + 7, "child", 5);
	xfmt_put_be64(fork + 12, 131);
	xfmt_put_be32(fork + 20, 7);
	assert_int_equal(xfmt_attr_sf_verify(fork, sizeof(fork), &gp, &sink), 0);
	xfmt_attr_sf_iter_init(&it, fork, sizeof(fork));
	assert_int_equal(xfmt_attr_sf_next(&it, &e), 1);
	assert_int_equal(e.ns, XFMT_ATTR_NS_PARENT);
	assert_int_equal(xfmt_attr_pptr_decode(e.value, e.valuelen, &pino, &pgen), 0);
	assert_int_equal(pino, 131);
	assert_int_equal(pgen, 7);
	assert_int_equal(xfmt_attr_pptr_decode(e.value, 11, &pino, &pgen), -1);
	assert_int_equal(xfmt_attr_pptr_decode(NULL, 12, &pino, &pgen), -1);

	/* '/' is legal in an xattr name but not in a parent pointer's dirent name */
	fork[9] = '/';
	assert_int_equal(xfmt_attr_sf_verify(fork, sizeof(fork), &gp, &sink), 1);
	assert_int_equal(s.p[0].code, XP_attrBadName);
	fork[6] = 0;
	reset(&s);
	assert_int_equal(xfmt_attr_sf_verify(fork, sizeof(fork), &gp, &sink), 0);
	fork[6] = XFS_ATTR_PARENT;
	fork[9] = 'i';
	/* a parent inode outside the filesystem */
	xfmt_put_be64(fork + 12, 1ull << 50);
	reset(&s);
	assert_int_equal(xfmt_attr_sf_verify(fork, sizeof(fork), &gp, &sink), 1);
	assert_int_equal(fx_count(&s, XP_attrParentBadValue, "parent_ino"), 1);
	assert_int_equal(s.p[0].observed, 1ull << 50);
	/* a v4 filesystem never has parent pointers */
	reset(&s);
	xfmt_put_be64(fork + 12, 131);
	assert_int_equal(xfmt_attr_sf_verify(fork, sizeof(fork), G4, &sink), 1);
	assert_int_equal(s.p[0].code, XP_attrParentNoFeature);
}

/* ------------------------------------------------------------ leaf */

/* entries[] of `xfs_db -c 'inode 132' -c 'ablock 0' -c p` and the nvlist names. */
static const struct {
	uint32_t hash;
	uint16_t nameidx;
	uint8_t ns;
	const char *name;
} leaf_want[40] = {
	{ 0x4e565e10, 2160, XFS_ATTR_ROOT, "attr_37" }, { 0x4e565e11, 2212, 0, "attr_36" },
	{ 0x4e565e12, 2264, XFS_ATTR_SECURE, "attr_35" }, { 0x4e565e13, 2316, XFS_ATTR_ROOT, "attr_34" },
	{ 0x4e565e14, 2368, 0, "attr_33" }, { 0x4e565e15, 2420, XFS_ATTR_SECURE, "attr_32" },
	{ 0x4e565e16, 2472, XFS_ATTR_ROOT, "attr_31" }, { 0x4e565e17, 2524, 0, "attr_30" },
	{ 0x4e565e1e, 2056, 0, "attr_39" }, { 0x4e565e1f, 2108, XFS_ATTR_SECURE, "attr_38" },
	{ 0x4e565e90, 2680, 0, "attr_27" }, { 0x4e565e91, 2732, XFS_ATTR_SECURE, "attr_26" },
	{ 0x4e565e92, 2784, XFS_ATTR_ROOT, "attr_25" }, { 0x4e565e93, 2836, 0, "attr_24" },
	{ 0x4e565e94, 2888, XFS_ATTR_SECURE, "attr_23" }, { 0x4e565e95, 2940, XFS_ATTR_ROOT, "attr_22" },
	{ 0x4e565e96, 2992, 0, "attr_21" }, { 0x4e565e97, 3044, XFS_ATTR_SECURE, "attr_20" },
	{ 0x4e565e9e, 2576, XFS_ATTR_SECURE, "attr_29" }, { 0x4e565e9f, 2628, XFS_ATTR_ROOT, "attr_28" },
	{ 0x4e565f10, 3200, XFS_ATTR_SECURE, "attr_17" }, { 0x4e565f11, 3252, XFS_ATTR_ROOT, "attr_16" },
	{ 0x4e565f12, 3304, 0, "attr_15" }, { 0x4e565f13, 3356, XFS_ATTR_SECURE, "attr_14" },
	{ 0x4e565f14, 3408, XFS_ATTR_ROOT, "attr_13" }, { 0x4e565f15, 3460, 0, "attr_12" },
	{ 0x4e565f16, 3512, XFS_ATTR_SECURE, "attr_11" }, { 0x4e565f17, 3564, XFS_ATTR_ROOT, "attr_10" },
	{ 0x4e565f1e, 3096, XFS_ATTR_ROOT, "attr_19" }, { 0x4e565f1f, 3148, 0, "attr_18" },
	{ 0x4e9cacb6, 3616, 0, "attr_9" }, { 0x4e9cacb7, 3664, XFS_ATTR_SECURE, "attr_8" },
	{ 0x4e9cacb8, 3712, XFS_ATTR_ROOT, "attr_7" }, { 0x4e9cacb9, 3760, 0, "attr_6" },
	{ 0x4e9cacba, 3808, XFS_ATTR_SECURE, "attr_5" }, { 0x4e9cacbb, 3856, XFS_ATTR_ROOT, "attr_4" },
	{ 0x4e9cacbc, 3904, 0, "attr_3" }, { 0x4e9cacbd, 3952, XFS_ATTR_SECURE, "attr_2" },
	{ 0x4e9cacbe, 4000, XFS_ATTR_ROOT, "attr_1" }, { 0x4e9cacbf, 4048, 0, "attr_0" },
};

static void leaf_exp(struct xfmt_da_expect *exp)
{
	/* attr fork of inode 132: one block, [0,15,1] */
	xfmt_attr_da_expect_init(exp, LEAF_DADDR, LEAF_INO, 0, -1, 1);
}

static void test_leaf_matches_xfs_db(void **state)
{
	uint8_t *b = afx_load(&attr_leaf_blk);
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_da_expect exp;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint32_t last;
	static const char *const want[] = {
		"hdr.info.hdr.forw = 0", "hdr.info.hdr.back = 0", "hdr.info.hdr.magic = 0x3bee",
		"hdr.info.crc = 0xefe3e49f", "hdr.info.bno = 120", "hdr.info.lsn = 0x100000002",
		"hdr.info.uuid = aaaaaaaa-1111-2222-3333-444444444444", "hdr.info.owner = 132",
		"hdr.count = 40", "hdr.usedbytes = 2040", "hdr.firstused = 2056", "hdr.holes = 0",
	};

	(void)state;
	assert_fields(b, 4096, xfmt_attr_leaf_hdr_fields_for(true), want, 12);
	assert_int_equal(xfmt_blk_classify(b, 4096, xfmt_blk_ver_of(G5->v5)), XFMT_BLK_ATTR_LEAF);
	assert_int_equal(xfmt_attr_leaf_hdr_decode(b, 4096, G5, &h), 0);
	assert_int_equal(h.info.magic, XFS_ATTR3_LEAF_MAGIC);
	assert_int_equal(h.info.owner, LEAF_INO);
	assert_int_equal(h.info.blkno, LEAF_DADDR);
	assert_int_equal(h.count, 40);
	assert_int_equal(h.usedbytes, 2040);
	assert_int_equal(h.firstused, 2056);
	assert_int_equal(h.hdr_len, 80);
	/* hdr.freemap[0-2] = 0:[400,1656] 1:[0,0] 2:[0,0] */
	assert_int_equal(h.freemap[0].base, 400);
	assert_int_equal(h.freemap[0].size, 1656);
	assert_int_equal(h.freemap[1].size, 0);

	for (unsigned i = 0; i < 40; i++) {
		struct xfmt_attr_entry e;
		char val[64];
		unsigned num = (unsigned)atoi(leaf_want[i].name + 5);

		assert_int_equal(xfmt_attr_leaf_entry(b, 4096, &h, i, &e), 0);
		assert_int_equal(e.hashval, leaf_want[i].hash);
		assert_int_equal(e.nameidx, leaf_want[i].nameidx);
		assert_int_equal(e.flags, leaf_want[i].ns | XFS_ATTR_LOCAL);
		assert_true(e.local);
		assert_int_equal(e.namelen, strlen(leaf_want[i].name));
		assert_memory_equal(e.name, leaf_want[i].name, e.namelen);
		/* the recipe's value, e.g. "leaf value number 37 padded to be longer" */
		snprintf(val, sizeof(val), "leaf value number %u padded to be longer", num);
		assert_int_equal(e.valuelen, strlen(val));
		assert_memory_equal(e.value, val, e.valuelen);
		assert_int_equal(e.entsize, (3 + e.namelen + e.valuelen + 3) & ~3u);
		/* every name hashes to what the block stores */
		assert_int_equal(xfmt_attr_hashval(G5, e.flags, e.name, e.namelen, e.value,
						   e.valuelen), e.hashval);
	}
	assert_int_equal(xfmt_attr_leaf_lasthash(b, 4096, G5, &last), 0);
	assert_int_equal(last, 0x4e9cacbf);

	leaf_exp(&exp);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 0);
	fx_dump(&s);
	assert_int_equal(s.n, 0);
	free(b);
}

/* A leaf corruption: be16/be32/u8 writes at block offsets. */
struct leaf_case {
	const char *what;
	struct { unsigned off; unsigned width; uint32_t val; } patch[3];
	unsigned npatch;
	struct want w[4];
	unsigned nw;
};

/* Byte offset of entry i's slot in the v5 leaf. */
#define ENT(i) (80u + 8u * (i))

static void patch(uint8_t *b, unsigned off, unsigned width, uint32_t val)
{
	if (width == 4)
		xfmt_put_be32(b + off, val);
	else if (width == 2)
		xfmt_put_be16(b + off, (uint16_t)val);
	else
		b[off] = (uint8_t)val;
}

static void run_leaf_case(const struct leaf_case *c)
{
	for (int fresh = 0; fresh < 2; fresh++) {
		uint8_t *b = afx_load(&attr_leaf_blk);
		struct xfmt_da_expect exp;
		struct fx_sink s = { 0 };
		FX_SINK(sink, &s);

		for (unsigned i = 0; i < c->npatch; i++)
			patch(b, c->patch[i].off, c->patch[i].width, c->patch[i].val);
		if (fresh)
			xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
		leaf_exp(&exp);
		xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink);
		assert_findings(&s, c->w, c->nw, !fresh, XP_daBadCrc, c->what);
		free(b);
	}
}

static void test_leaf_corruptions(void **state)
{
	static const struct leaf_case cases[] = {
		{ "magic", { { 8, 2, 0x3bef } }, 1, { { XP_daBadMagic, "magic" } }, 1 },
		{ "owner", { { 48, 4, 7 } }, 1, { { XP_daBadOwner, "owner" } }, 1 },
		{ "bno", { { 20, 4, 121 } }, 1, { { XP_daBadBlkno, "bno" } }, 1 },
		{ "uuid", { { 40, 1, 0 } }, 1, { { XP_daBadUuid, "uuid" } }, 1 },
		/* block 0 of a one-block fork with a sibling */
		{ "forw", { { 0, 4, 5 } }, 1,
		  { { XP_attrLeafBadSibling, "hdr.info.forw" }, { XP_daBadSibling, "forw" } }, 2 },
		{ "pad1", { { 63, 1, 1 } }, 1, { { XP_attrLeafNonzeroPad, "hdr.pad1" } }, 1 },
		{ "pad2", { { 76, 4, 9 } }, 1, { { XP_attrLeafNonzeroPad, "hdr.pad2" } }, 1 },
		{ "firstused in header", { { 60, 2, 40 } }, 1,
		  { { XP_attrLeafBadFirstused, NULL }, { XP_attrLeafFirstusedMismatch, NULL } }, 2 },
		/* 0 means 65536, on a 4 KiB block it is wrong */
		{ "firstused 0", { { 60, 2, 0 } }, 1,
		  { { XP_attrLeafBadFirstused, NULL }, { XP_attrLeafFirstusedMismatch, NULL } }, 2 },
		{ "firstused too high", { { 60, 2, 2060 } }, 1,
		  { { XP_attrLeafFirstusedMismatch, "hdr.firstused" } }, 1 },
		/* with holes, firstused may be below the lowest name, not above */
		{ "holes", { { 62, 1, 1 }, { 60, 2, 2000 } }, 2, { { 0, NULL } }, 0 },
		{ "count 41", { { 56, 2, 41 } }, 1,
		  { { XP_attrLeafHashOrder, "hashval" }, { XP_attrLeafBadNameidx, "nameidx" } }, 2 },
		{ "count 0", { { 56, 2, 0 } }, 1,
		  { { XP_attrLeafEmpty, NULL }, { XP_attrLeafBadUsedbytes, NULL } }, 2 },
		{ "usedbytes", { { 58, 2, 2044 } }, 1,
		  { { XP_attrLeafBadUsedbytes, "hdr.usedbytes" } }, 1 },
		/* entry 5's hash becomes entry 6's: a legal tie, but not its name's hash */
		{ "hash", { { ENT(5), 4, 0x4e565e16 } }, 1, { { XP_attrBadHash, "hashval" } }, 1 },
		{ "hash order", { { ENT(4), 4, 0x4e565e15 }, { ENT(5), 4, 0x4e565e14 } }, 2,
		  { { XP_attrLeafHashOrder, NULL }, { XP_attrBadHash, NULL }, { XP_attrBadHash, NULL } },
		  3 },
		{ "unknown flag", { { ENT(1) + 6, 1, 0x41 } }, 1, { { XP_attrBadFlags, "flags" } }, 1 },
		{ "two namespaces", { { ENT(0) + 6, 1, 0x07 } }, 1,
		  { { XP_attrMultipleNs, "flags" } }, 1 },
		{ "incomplete", { { ENT(1) + 6, 1, 0x81 } }, 1, { { XP_attrIncomplete, "flags" } }, 1 },
		/* entry 3 points at entry 2's name/value */
		{ "overlap", { { ENT(3) + 4, 2, 2264 } }, 1,
		  { { XP_attrLeafOverlap, "name/value" }, { XP_attrBadHash, NULL } }, 2 },
		{ "nameidx at the end", { { ENT(3) + 4, 2, 4094 } }, 1,
		  { { XP_attrLeafEntryOverflow, "nameidx" }, { XP_attrLeafBadUsedbytes, NULL } }, 2 },
		{ "nameidx in the table", { { ENT(3) + 4, 2, 100 } }, 1,
		  { { XP_attrLeafBadNameidx, "nameidx" }, { XP_attrLeafBadUsedbytes, NULL } }, 2 },
		/* the flags are judged even when the name/value cannot be read */
		{ "nameidx and flags", { { ENT(3) + 4, 2, 100 }, { ENT(3) + 6, 1, 0x43 } }, 2,
		  { { XP_attrLeafBadNameidx, "nameidx" }, { XP_attrLeafBadUsedbytes, NULL },
		    { XP_attrBadFlags, "flags" } }, 3 },
		{ "nameidx past the block", { { ENT(3) + 4, 2, 5000 } }, 1,
		  { { XP_attrLeafBadNameidx, "nameidx" }, { XP_attrLeafBadUsedbytes, NULL } }, 2 },
		/* attr_0's name/value at 4048 (48 bytes): namelen 0 shrinks it to 44 */
		{ "namelen 0", { { 4048 + 2, 1, 0 } }, 1,
		  { { XP_attrBadNamelen, "namelen" }, { XP_attrLeafBadUsedbytes, NULL } }, 2 },
		{ "NUL in name", { { 4048 + 4, 1, 0 } }, 1,
		  { { XP_attrBadName, "name" }, { XP_attrBadHash, NULL } }, 2 },
		{ "freemap base", { { 64, 2, 401 } }, 1,
		  { { XP_attrLeafBadFreemap, "hdr.freemap[0].base" } }, 1 },
		{ "freemap size", { { 70, 2, 5000 } }, 1,
		  { { XP_attrLeafBadFreemap, "hdr.freemap[1].size" } }, 1 },
		/* a byte of the free space between table and names: the CRC alone */
		{ "free byte", { { 1000, 1, 0x5a } }, 1, { { 0, NULL } }, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_leaf_case(&cases[i]);
}

static void test_leaf_values(void **state)
{
	uint8_t *b = afx_load(&attr_leaf_blk);
	struct xfmt_da_expect exp;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	const struct xprob *p;

	(void)state;
	leaf_exp(&exp);
	xfmt_put_be16(b + 58, 2044);
	xfmt_put_be32(b + ENT(5), 0x4e565e16);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 2);
	p = fx_find(&s, XP_attrLeafBadUsedbytes);
	assert_int_equal(p->observed, 2044);
	assert_int_equal(p->expected, 2040);
	p = fx_find(&s, XP_attrBadHash);
	assert_int_equal(p->off, 5);
	assert_int_equal(p->observed, 0x4e565e16);
	assert_int_equal(p->expected, 0x4e565e15);
	free(b);
}

/* A parent pointer in a real leaf: attr_0 (entry 39) rewritten in place. */
static void test_leaf_parent_pointer(void **state)
{
	uint8_t *b = afx_load(&attr_leaf_blk);
	struct xfmt_geom gp = *G5;
	struct xfmt_da_expect exp;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_attr_entry e;

	(void)state;
	gp.incompat |= XFS_SB_FEAT_INCOMPAT_PARENT;
	leaf_exp(&exp);
	/* flags PARENT with the old 40-byte value */
	b[ENT(39) + 6] = XFS_ATTR_PARENT | XFS_ATTR_LOCAL;
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, &gp, &exp, &sink), 2);
	assert_int_equal(fx_count(&s, XP_attrParentBadValue, "valuelen"), 1);
	assert_int_equal(fx_count(&s, XP_daBadCrc, NULL), 1);
	reset(&s);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 2);
	assert_int_equal(fx_count(&s, XP_attrParentNoFeature, NULL), 1);

	/* A proper record: valuelen 12, parent 64 gen 1; structure 24 bytes, not 48.
	 * Its hash is xfs_db's hash of "attr_0" (0x4e9cacbf) ^ 0 ^ 64. */
	xfmt_put_be16(b + 4048, 12);
	xfmt_put_be64(b + 4048 + 3 + 6, 64);
	xfmt_put_be32(b + 4048 + 3 + 6 + 8, 1);
	xfmt_put_be16(b + 58, 2040 - 48 + 24);
	xfmt_put_be32(b + ENT(39), 0x4e9cacbf ^ 64u);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	reset(&s);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, &gp, &exp, &sink), 0);
	fx_dump(&s);
	assert_int_equal(xfmt_attr_leaf_hdr_decode(b, 4096, &gp, &h), 0);
	assert_int_equal(xfmt_attr_leaf_entry(b, 4096, &h, 39, &e), 0);
	assert_int_equal(e.ns, XFMT_ATTR_NS_PARENT);
	assert_int_equal(e.entsize, 24);
	/* the hash uses the parent inode: another parent, another hash */
	xfmt_put_be64(b + 4048 + 3 + 6, 72);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	reset(&s);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, &gp, &exp, &sink), 1);
	assert_int_equal(s.p[0].code, XP_attrBadHash);
	assert_int_equal(s.p[0].expected, 0x4e9cacbf ^ 72u);
	/* a remote parent pointer value is never legal: make attr_0 a remote
	 * entry (valueblk 2, valuelen 12, the name; 20 bytes) */
	b[ENT(39) + 6] = XFS_ATTR_PARENT;
	xfmt_put_be32(b + 4048, 2);
	xfmt_put_be32(b + 4052, 12);
	b[4056] = 6;
	memcpy(b + 4057, "attr_0", 6);
	xfmt_put_be16(b + 58, 2040 - 48 + 20);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	reset(&s);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, &gp, &exp, &sink), 1);
	assert_int_equal(fx_count(&s, XP_attrParentBadValue, "valuelen"), 1);
	free(b);
}

/* ------------------------------------------------------------ node form */

static void test_node_form(void **state)
{
	uint8_t *nb = afx_load(&attr_node_blk), *lb = afx_load(&attr_node_leaf1);
	struct xfmt_da_expect exp;
	struct xfmt_attr_leaf_hdr h;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint32_t hash, before, last;
	/* btree[0-10] = [hashval,before] of ablock 0 */
	static const uint32_t want[11][2] = {
		{ 0x43032a86, 1 }, { 0x43032f0e, 2 }, { 0x81950317, 3 }, { 0x81950517, 8 },
		{ 0x81950717, 7 }, { 0x81954495, 6 }, { 0x81954617, 11 }, { 0x81954795, 10 },
		{ 0x8195c417, 9 }, { 0x8195c617, 5 }, { 0x8195c799, 4 },
	};

	(void)state;
	assert_int_equal(xfmt_blk_classify(nb, 4096, xfmt_blk_ver_of(G5->v5)), XFMT_BLK_DA_NODE);
	assert_int_equal(xfmt_blk_classify(lb, 4096, xfmt_blk_ver_of(G5->v5)), XFMT_BLK_ATTR_LEAF);
	/* the attr fork maps logical blocks 0..11 ([0,14,1] [1,13,1] [2,24,10]) */
	xfmt_attr_da_expect_init(&exp, NODE_DADDR, NODE_INO, 0, 1, 12);
	assert_int_equal(exp.blk_lo, 1);
	assert_int_equal(exp.blk_hi, 12);
	assert_int_equal(xfmt_da_node_verify(nb, 4096, 4096, G5, &exp, &sink), 0);
	for (unsigned i = 0; i < 11; i++) {
		assert_int_equal(xfmt_da_node_entry(nb, 4096, true, i, &hash, &before), 0);
		assert_int_equal(hash, want[i][0]);
		assert_int_equal(before, want[i][1]);
	}

	/* ablock 1: forw 2, back 0, count 51, usedbytes 3264, firstused 832 */
	assert_int_equal(xfmt_attr_leaf_hdr_decode(lb, 4096, G5, &h), 0);
	assert_int_equal(h.info.forw, 2);
	assert_int_equal(h.info.back, 0);
	assert_int_equal(h.count, 51);
	assert_int_equal(h.usedbytes, 3264);
	assert_int_equal(h.firstused, 832);
	assert_int_equal(h.freemap[0].base, 488);
	assert_int_equal(h.freemap[0].size, 344);
	xfmt_attr_da_expect_init(&exp, NODE_LEAF1_DADDR, NODE_INO, 1, 0, 12);
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G5, &exp, &sink), 0);
	/* the node key of child 1 is the leaf's highest hash */
	assert_int_equal(xfmt_attr_leaf_lasthash(lb, 4096, G5, &last), 0);
	assert_int_equal(last, want[0][0]);
	fx_dump(&s);
	assert_int_equal(s.n, 0);

	/* the same leaf taken for block 0: a lone leaf cannot have siblings */
	xfmt_attr_da_expect_init(&exp, NODE_LEAF1_DADDR, NODE_INO, 0, 0, 12);
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G5, &exp, &sink), 1);
	assert_int_equal(fx_count(&s, XP_attrLeafBadSibling, "hdr.info.forw"), 1);
	/* a sibling past the fork's end */
	reset(&s);
	xfmt_attr_da_expect_init(&exp, NODE_LEAF1_DADDR, NODE_INO, 1, 0, 2);
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G5, &exp, &sink), 1);
	assert_int_equal(fx_count(&s, XP_daBadSibling, "forw"), 1);
	free(nb);
	free(lb);
}

/* ------------------------------------------------------------ remote values */

static void test_rmt_leaf(void **state)
{
	uint8_t *b = afx_load(&attr_rmt_leaf), *ib = afx_load(&attr_rmt_ino);
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_attr_entry e;
	struct xfmt_da_expect exp;
	struct xfmt_dinode d;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);

	(void)state;
	/* inode 134: a.bmx[0] = [0,34,18,0] */
	assert_int_equal(xfmt_dinode_decode(ib, attr_rmt_ino.len, G5, &d), 0);
	assert_int_equal(d.aformat, XFS_DINODE_FMT_EXTENTS);
	assert_int_equal(d.anextents, 1);
	assert_int_equal(xfmt_get_be64(ib + d.afork_off + 8) >> 21, 34);
	assert_int_equal(xfmt_get_be64(ib + d.afork_off + 8) & 0x1fffff, 18);

	/* count 2, usedbytes 24, firstused 4072; entries 0:[0x18b4e7,4080,remote]
	 * 1:[0xe9a7779,4072,local]; big: valueblk 1, valuelen 65536; tiny = "t" */
	assert_int_equal(xfmt_attr_leaf_hdr_decode(b, 4096, G5, &h), 0);
	assert_int_equal(h.count, 2);
	assert_int_equal(h.usedbytes, 24);
	assert_int_equal(h.firstused, 4072);
	assert_int_equal(xfmt_attr_leaf_entry(b, 4096, &h, 0, &e), 0);
	assert_false(e.local);
	assert_null(e.value);
	assert_int_equal(e.hashval, 0x18b4e7);
	assert_int_equal(e.nameidx, 4080);
	assert_int_equal(e.valueblk, 1);
	assert_int_equal(e.valuelen, 65536);
	assert_int_equal(e.namelen, 3);
	assert_memory_equal(e.name, "big", 3);
	assert_int_equal(e.entsize, 16);
	assert_int_equal(xfmt_attr_leaf_entry(b, 4096, &h, 1, &e), 0);
	assert_true(e.local);
	assert_int_equal(e.hashval, 0xe9a7779);
	assert_int_equal(e.valuelen, 1);
	assert_memory_equal(e.value, "t", 1);
	assert_int_equal(e.entsize, 8);
	assert_int_equal(xfmt_attr_rmt_blocks(G5, 65536), 17);
	assert_int_equal(xfmt_attr_rmt_space(G5), 4040);

	xfmt_attr_da_expect_init(&exp, RMT_LEAF_DADDR, RMT_INO, 0, -1, 18);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 0);

	/* remote entry rules */
	xfmt_put_be32(b + 4080, 0);
	xfmt_put_be32(b + 4084, 70000);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 2);
	assert_int_equal(fx_count(&s, XP_attrLeafBadRemote, "valueblk"), 1);
	assert_int_equal(fx_count(&s, XP_attrLeafBadRemote, "valuelen"), 1);
	/* valueblk 0 is expected while the entry is INCOMPLETE */
	reset(&s);
	b[ENT(0) + 6] = XFS_ATTR_INCOMPLETE;
	xfmt_put_be32(b + 4084, 65536);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	assert_int_equal(xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink), 1);
	assert_int_equal(fx_count(&s, XP_attrIncomplete, NULL), 1);
	free(b);
	free(ib);
}

static void test_rmt_blocks_match_xfs_db(void **state)
{
	uint8_t *first = afx_load(&attr_rmt_first), *last = afx_load(&attr_rmt_last);
	struct xfmt_rmt_expect e1 = { RMT_FIRST_DADDR, RMT_INO, true, 0, 4040 };
	struct xfmt_rmt_expect e17 = { RMT_LAST_DADDR, RMT_INO, true, 64640, 896 };
	struct xfmt_rmt_hdr h;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	/* xfs_db -c 'inode 134' -c 'ablock 1' -c p */
	static const char *const want1[] = {
		"hdr.magic = 0x5841524d", "hdr.offset = 0", "hdr.bytes = 4040",
		"hdr.crc = 0x5d010e53", "hdr.uuid = aaaaaaaa-1111-2222-3333-444444444444",
		"hdr.owner = 134", "hdr.bno = 280", "hdr.lsn = 0xffffffffffffffff",
	};
	/* ... -c 'ablock 17' -c p */
	static const char *const want17[] = {
		"hdr.magic = 0x5841524d", "hdr.offset = 64640", "hdr.bytes = 896",
		"hdr.crc = 0x48f440d9", "hdr.uuid = aaaaaaaa-1111-2222-3333-444444444444",
		"hdr.owner = 134", "hdr.bno = 408", "hdr.lsn = 0xffffffffffffffff",
	};

	(void)state;
	assert_fields(first, 4096, xfmt_attr3_rmt_hdr_fields, want1, 8);
	assert_fields(last, 4096, xfmt_attr3_rmt_hdr_fields, want17, 8);
	assert_int_equal(xfmt_blk_classify(first, 4096, xfmt_blk_ver_of(G5->v5)), XFMT_BLK_ATTR_RMT);
	assert_int_equal(xfmt_rmt_hdr_decode(last, 4096, &h), 0);
	assert_int_equal(h.offset, 64640);
	assert_int_equal(h.bytes, 896);
	assert_int_equal(h.lsn, XFMT_ATTR_RMT_LSN);
	assert_int_equal(xfmt_rmt_hdr_decode(last, 55, &h), -1);
	/* attr block 1 is fsblock 35, block 17 fsblock 51 */
	assert_int_equal(afx_fsb_daddr(G5, 35), RMT_FIRST_DADDR);
	assert_int_equal(afx_fsb_daddr(G5, 51), RMT_LAST_DADDR);
	assert_int_equal(xfmt_attr_rmt_verify(first, 4096, G5, &e1, &sink), 0);
	assert_int_equal(xfmt_attr_rmt_verify(last, 4096, G5, &e17, &sink), 0);
	/* without an expectation of the range, too */
	e1.know_range = false;
	assert_int_equal(xfmt_attr_rmt_verify(first, 4096, G5, &e1, &sink), 0);
	fx_dump(&s);
	assert_int_equal(s.n, 0);
	free(first);
	free(last);
}

/* Value blocks 2..16 are not captured: make them from block 1 (header fields and CRC). */
static uint8_t *make_middle(const uint8_t *first, unsigned k)
{
	uint8_t *b = fx_dup(first, 4096);

	xfmt_put_be32(b + 4, (k - 1) * 4040u);
	xfmt_put_be64(b + 40, RMT_FIRST_DADDR + (k - 1) * 8u);
	xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
	return b;
}

static void test_rmt_assembles(void **state)
{
	uint8_t *first = afx_load(&attr_rmt_first), *last = afx_load(&attr_rmt_last);
	uint8_t *value = malloc(65536), *small = malloc(5000);
	struct xfmt_attr_rmt_asm a;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	size_t r = 0;

	(void)state;
	assert_non_null(value);
	assert_non_null(small);
	xfmt_attr_rmt_asm_init(&a, G5, RMT_INO, 65536, value, 65536);
	for (unsigned k = 1; k <= 17; k++) {
		uint8_t *b = k == 1 ? first : k == 17 ? last : make_middle(first, k);

		assert_false(xfmt_rmt_cursor_done(&a.cur));
		assert_int_equal(xfmt_attr_rmt_asm_add(&a, b, 4096, RMT_FIRST_DADDR + (k - 1) * 8u,
						       G5, &sink), 0);
		if (k != 1 && k != 17)
			free(b);
	}
	assert_true(xfmt_rmt_cursor_done(&a.cur));
	assert_int_equal(xfmt_attr_rmt_asm_finish(&a, &sink), 0);
	assert_int_equal(a.cur.blocks, 17);
	assert_int_equal(a.cur.have, 65536);
	/* the value setfattr stored: 65536 'R' */
	for (size_t i = 0; i < 65536; i++)
		r += value[i] == 'R';
	assert_int_equal(r, 65536);
	fx_dump(&s);
	assert_int_equal(s.n, 0);

	/* a smaller buffer gets the first 5000 bytes; nothing is written past it */
	xfmt_attr_rmt_asm_init(&a, G5, RMT_INO, 65536, small, 5000);
	xfmt_attr_rmt_asm_add(&a, first, 4096, RMT_FIRST_DADDR, G5, &sink);
	xfmt_attr_rmt_asm_add(&a, first, 4096, RMT_FIRST_DADDR + 8, G5, &sink);
	assert_int_equal(a.cur.have, 8080);
	assert_int_equal(small[4999], 'R');
	/* the second block is block 1 again: wrong offset and daddr */
	assert_int_equal(fx_count(&s, XP_attrRmtMismatch, "hdr.offset"), 1);
	assert_int_equal(fx_count(&s, XP_attrRmtBadBlkno, NULL), 1);
	/* stopped early: incomplete */
	reset(&s);
	assert_int_equal(xfmt_attr_rmt_asm_finish(&a, &sink), 1);
	assert_int_equal(s.p[0].code, XP_attrRmtIncomplete);
	assert_int_equal(s.p[0].observed, 8080);
	assert_int_equal(s.p[0].expected, 65536);
	free(first);
	free(last);
	free(value);
	free(small);
}

struct rmt_case {
	const char *what;
	unsigned off, width;
	uint64_t val;
	struct want w[3];
	unsigned nw;
};

static void test_rmt_corruptions(void **state)
{
	static const struct rmt_case cases[] = {
		{ "magic", 0, 4, 0x5841524e, { { XP_attrRmtBadMagic, "hdr.magic" } }, 1 },
		{ "uuid", 16, 1, 0, { { XP_attrRmtBadUuid, "hdr.uuid" } }, 1 },
		{ "bno", 40, 8, 288, { { XP_attrRmtBadBlkno, "hdr.bno" } }, 1 },
		{ "owner 0", 32, 8, 0, { { XP_attrRmtBadOwner, "hdr.owner" } }, 1 },
		{ "owner", 32, 8, 135, { { XP_attrRmtBadOwner, "hdr.owner" } }, 1 },
		{ "bytes", 8, 4, 4041,
		  { { XP_attrRmtBadRange, "hdr.bytes" }, { XP_attrRmtMismatch, "hdr.bytes" } }, 2 },
		{ "offset", 4, 4, 65000,
		  { { XP_attrRmtBadRange, "hdr.offset" }, { XP_attrRmtMismatch, "hdr.offset" } }, 2 },
		{ "lsn", 48, 8, 0x100000002ull, { { XP_attrRmtBadLsn, "hdr.lsn" } }, 1 },
		{ "value byte", 3000, 1, 0x53, { { 0, NULL } }, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int fresh = 0; fresh < 2; fresh++) {
			const struct rmt_case *c = &cases[i];
			uint8_t *b = afx_load(&attr_rmt_first);
			struct xfmt_rmt_expect e = { RMT_FIRST_DADDR, RMT_INO, true, 0, 4040 };
			struct fx_sink s = { 0 };
			FX_SINK(sink, &s);

			if (c->width == 8)
				xfmt_put_be64(b + c->off, c->val);
			else if (c->width == 4)
				xfmt_put_be32(b + c->off, (uint32_t)c->val);
			else
				b[c->off] = (uint8_t)c->val;
			if (fresh)
				xfmt_crc_update(b, 4096, XFMT_ATTR_CRC_OFF);
			xfmt_attr_rmt_verify(b, 4096, G5, &e, &sink);
			assert_findings(&s, c->w, c->nw, !fresh, XP_attrRmtBadCrc, c->what);
			free(b);
		}
	}
}

/* ------------------------------------------------------------ v4 */

static void test_v4(void **state)
{
	uint8_t *ib = afx_load(&attr_v4_ino), *lb = afx_load(&attr_v4_leaf);
	uint8_t *rb = afx_load(&attr_v4_rmt), value[9000];
	struct xfmt_rmt_expect re = { 104, 131, true, 0, 4096 };
	struct xfmt_attr_rmt_asm a;
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_attr_entry e;
	struct xfmt_da_expect exp;
	struct xfmt_dinode d;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	static const char *const want[] = {
		"hdr.info.forw = 0", "hdr.info.back = 0", "hdr.info.magic = 0xfbee",
		"hdr.count = 31", "hdr.usedbytes = 1816", "hdr.firstused = 2280", "hdr.holes = 0",
	};

	(void)state;
	/* path /f = inode 131: forkoff 11, naextents 1, a.bmx[0] = [0,13,4,0] */
	assert_int_equal(xfmt_dinode_decode(ib, attr_v4_ino.len, G4, &d), 0);
	assert_int_equal(d.forkoff, 11);
	assert_int_equal(d.anextents, 1);
	assert_int_equal(xfmt_get_be64(ib + d.afork_off + 8) >> 21, 13);

	assert_fields(lb, 4096, xfmt_attr_leaf_hdr_fields_for(false), want, 7);
	assert_int_equal(xfmt_blk_classify(lb, 4096, xfmt_blk_ver_of(G4->v5)), XFMT_BLK_ATTR_LEAF);
	/* a v5 leaf magic on a v4 filesystem is not a leaf */
	assert_int_equal(xfmt_blk_classify(lb, 4096, xfmt_blk_ver_of(G5->v5)), XFMT_BLK_UNKNOWN);
	assert_int_equal(xfmt_attr_leaf_hdr_decode(lb, 4096, G4, &h), 0);
	assert_int_equal(h.hdr_len, 32);
	assert_int_equal(h.freemap[0].base, 280);
	assert_int_equal(h.freemap[0].size, 2000);
	/* entries[0] = [0x6698b4e0,2280,remote]: v4big, valueblk 1, valuelen 9000 */
	assert_int_equal(xfmt_attr_leaf_entry(lb, 4096, &h, 0, &e), 0);
	assert_int_equal(e.hashval, 0x6698b4e0);
	assert_int_equal(e.nameidx, 2280);
	assert_int_equal(e.valueblk, 1);
	assert_int_equal(e.valuelen, 9000);
	assert_memory_equal(e.name, "v4big", 5);
	/* nvlist[1] = v4_attribute_8, 40 'v' */
	assert_int_equal(xfmt_attr_leaf_entry(lb, 4096, &h, 1, &e), 0);
	assert_int_equal(e.hashval, 0x993730d6);
	assert_int_equal(e.valuelen, 40);
	assert_memory_equal(e.name, "v4_attribute_8", 14);
	assert_memory_equal(e.value, "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv", 40);
	xfmt_attr_da_expect_init(&exp, 104, 131, 0, -1, 4);
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G4, &exp, &sink), 0);
	/* v4 has no CRC: a changed byte in the free space goes unnoticed ... */
	lb[1000] ^= 0xff;
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G4, &exp, &sink), 0);
	/* ... a changed hash does not */
	xfmt_put_be32(lb + 32, 0x6698b4e1);
	assert_int_equal(xfmt_attr_leaf_verify(lb, 4096, G4, &exp, &sink), 1);
	assert_int_equal(s.p[0].code, XP_attrBadHash);

	/* raw remote blocks: 9000 bytes in ceil(9000 / 4096) = 3 blocks of 'v' */
	reset(&s);
	assert_int_equal(xfmt_attr_rmt_space(G4), 4096);
	assert_int_equal(xfmt_attr_rmt_blocks(G4, 9000), 3);
	assert_int_equal(xfmt_attr_rmt_verify(rb, 4096, G4, &re, &sink), 0);
	xfmt_attr_rmt_asm_init(&a, G4, 131, 9000, value, sizeof(value));
	for (unsigned k = 0; k < 3; k++)
		assert_int_equal(xfmt_attr_rmt_asm_add(&a, rb, 4096, 112 + 8 * k, G4, &sink), 0);
	assert_true(xfmt_rmt_cursor_done(&a.cur));
	assert_int_equal(xfmt_attr_rmt_asm_finish(&a, &sink), 0);
	for (size_t i = 0; i < sizeof(value); i++)
		assert_int_equal(value[i], 'v');
	assert_int_equal(s.n, 0);
	free(ib);
	free(lb);
	free(rb);
}

/* ------------------------------------------------------- hostile input */

static uint32_t rnd(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

static void test_truncated_and_garbage(void **state)
{
	uint8_t *leaf = afx_load(&attr_leaf_blk), *rmt = afx_load(&attr_rmt_first);
	uint8_t *sfi = afx_load(&attr_sf_ino);
	struct xfmt_da_expect exp;
	struct xfmt_rmt_expect re = { RMT_FIRST_DADDR, RMT_INO, true, 0, 4040 };
	struct fx_sink s;
	FX_SINK(sink, &s);
	uint32_t seed = 99, hash;

	(void)state;
	leaf_exp(&exp);
	/* Truncated copies: one finding (daTruncated / attrRmtUnreadable), no read past len. */
	for (size_t len = 0; len < 4096; len += (len < 128 ? 1 : 97)) {
		uint8_t *l = fx_dup(leaf, len), *r = fx_dup(rmt, len);
		struct xfmt_attr_leaf_hdr h;
		struct xfmt_attr_entry e;

		reset(&s);
		assert_int_equal(xfmt_attr_leaf_verify(l, len, G5, &exp, &sink), 1);
		assert_int_equal(s.p[0].code, XP_daTruncated);
		if (xfmt_attr_leaf_hdr_decode(l, len, G5, &h) == 0)
			for (unsigned i = 0; i < 60; i++)
				xfmt_attr_leaf_entry(l, len, &h, i, &e);
		xfmt_attr_leaf_lasthash(l, len, G5, &hash);
		xfmt_blk_classify(l, len, XFMT_BLK_V5);
		reset(&s);
		assert_int_equal(xfmt_attr_rmt_verify(r, len, G5, &re, &sink), 1);
		assert_int_equal(s.p[0].code, XP_attrRmtUnreadable);
		free(l);
		free(r);
	}
	/* Garbage leaves: real header, random body; random header fields too. */
	for (unsigned round = 0; round < 300; round++) {
		uint8_t *b = fx_dup(leaf, 4096);
		struct xfmt_attr_leaf_hdr h;
		struct xfmt_attr_entry e;

		for (size_t i = (round & 1) ? 56 : 80; i < 4096; i++)
			b[i] = (uint8_t)rnd(&seed);
		if (round % 3 == 0)
			xfmt_put_be16(b + 56, (uint16_t)(rnd(&seed) % 600));
		reset(&s);
		xfmt_attr_leaf_verify(b, 4096, G5, &exp, &sink);
		xfmt_attr_leaf_verify(b, 4096, G4, &exp, &sink);
		assert_int_equal(xfmt_attr_leaf_hdr_decode(b, 4096, G5, &h), 0);
		for (unsigned i = 0; i < h.count && i < 700; i++)
			xfmt_attr_leaf_entry(b, 4096, &h, i, &e);
		free(b);
	}
	/* Garbage shortform forks of every size up to 200 bytes. */
	for (size_t len = 0; len <= 200; len++) {
		uint8_t *f = malloc(len ? len : 1);
		struct xfmt_attr_sf_iter it;
		struct xfmt_attr_entry e;

		assert_non_null(f);
		for (unsigned round = 0; round < 10; round++) {
			for (size_t i = 0; i < len; i++)
				f[i] = (uint8_t)rnd(&seed);
			if (len >= 2 && round & 1)
				xfmt_put_be16(f, (uint16_t)len);
			reset(&s);
			xfmt_attr_sf_verify(f, len, G5, &sink);
			xfmt_attr_sf_iter_init(&it, f, len);
			while (xfmt_attr_sf_next(&it, &e) == 1)
				assert_true(e.value + e.valuelen <= f + len);
		}
		free(f);
	}
	/* The real shortform fork cut short. */
	for (size_t len = 0; len <= 40; len++) {
		reset(&s);
		xfmt_attr_sf_verify(sfi + SF_AFORK_OFF, len, G5, &sink);
		if (len < 32)
			assert_true(s.n >= 1);
	}
	reset(&s);
	assert_int_equal(xfmt_attr_sf_verify(NULL, 0, G5, &sink), 1);
	free(leaf);
	free(rmt);
	free(sfi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_sf_matches_xfs_db),
		cmocka_unit_test(test_sf_corruptions),
		cmocka_unit_test(test_sf_parent_pointer),
		cmocka_unit_test(test_sf_encode),
		cmocka_unit_test(test_leaf_matches_xfs_db),
		cmocka_unit_test(test_leaf_corruptions),
		cmocka_unit_test(test_leaf_values),
		cmocka_unit_test(test_leaf_parent_pointer),
		cmocka_unit_test(test_node_form),
		cmocka_unit_test(test_rmt_leaf),
		cmocka_unit_test(test_rmt_blocks_match_xfs_db),
		cmocka_unit_test(test_rmt_assembles),
		cmocka_unit_test(test_rmt_corruptions),
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_truncated_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
