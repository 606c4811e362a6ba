/*
 * test_dir2_sf.c - shortform directories against real inodes
 * (fixtures/dir_v5.h /sf, dir_v4.h /sf without ftype, dir_big.h /top with
 * 8-byte inode numbers; recipe in fixtures/dir_recipe.sh).  Expected values
 * are what `xfs_db -r IMG -c 'path P' -c p` printed (u3.sfdir3.* /
 * u.sfdir2.*); corruptions are made on copies of the data fork.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/dinode.h"
#include "formats/dir2.h"
#include "formats/dir2_carve.h"
#include "formats/endian.h"

#include "fixtures/dir_big.h"
#include "fixtures/dir_geom.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"

struct sf_ent { const char *name; uint32_t offset; uint64_t ino; uint8_t ftype; };

struct sf_case {
	const char *name;
	const uint8_t *inode;
	const struct xfmt_geom *g;
	uint64_t size;
	uint8_t count, i8count;
	uint64_t parent;
	const struct sf_ent *ents;
	const char *fields[3];   /* the header as xfs_db prints it */
};

static const struct sf_ent v5_ents[] = {
	{ "f1", 0x60, 132, 1 }, { "d2", 0x70, 655488, 2 }, { "l3", 0x80, 133, 7 },
};
static const struct sf_ent v4_ents[] = {
	{ "f1", 0x30, 1310849, 0 }, { "d2", 0x40, 131, 0 }, { "l3", 0x50, 1310850, 0 },
};
static const struct sf_ent big_ents[] = {
	{ "s1", 0x60, 2147614848ull, 2 }, { "s2", 0x70, 4294967424ull, 2 }, { "s3", 0x80, 132, 2 },
	{ "s4", 0x90, 2147614849ull, 2 }, { "s5", 0xa0, 4294967425ull, 2 }, { "s6", 0xb0, 133, 2 },
};

static const struct sf_case cases[] = {
	{ "v5", fx_dir_v5_sf_ino, &dir_geom_v5, 36, 3, 0, 128, v5_ents,
	  { "u3.sfdir3.hdr.count = 3", "u3.sfdir3.hdr.i8count = 0", "u3.sfdir3.hdr.parent.i4 = 128" } },
	{ "v4", fx_dir_v4_sf_ino, &dir_geom_v4, 33, 3, 0, 128, v4_ents,
	  { "u.sfdir2.hdr.count = 3", "u.sfdir2.hdr.i8count = 0", "u.sfdir2.hdr.parent.i4 = 128" } },
	{ "big", fx_dir_big_sf_ino, &dir_geom_big, 94, 6, 2, 128, big_ents,
	  { "u3.sfdir3.hdr.count = 6", "u3.sfdir3.hdr.i8count = 2", "u3.sfdir3.hdr.parent.i8 = 128" } },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* The data fork of a case's inode, as the analyzer would hand it over. */
static const uint8_t *fork_of(const struct sf_case *c, size_t *forksize, uint64_t *di_size)
{
	struct xfmt_dinode d;
	const uint8_t *f;

	assert_int_equal(xfmt_dinode_decode(c->inode, c->g->inodesize, c->g, &d), 0);
	assert_int_equal(d.format, XFS_DINODE_FMT_LOCAL);
	f = xfmt_dinode_fork(c->inode, &d, 0, forksize);
	assert_non_null(f);
	*di_size = d.size;
	return f;
}

static void test_decode_and_iterate(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct sf_case *c = &cases[k];
		struct xfmt_dir2_sf_hdr h;
		struct xfmt_dirent de;
		size_t fsz, pos = 0;
		uint64_t size;
		const uint8_t *f = fork_of(c, &fsz, &size);
		unsigned i = 0;
		int r;

		assert_int_equal(size, c->size);
		assert_int_equal(xfmt_dir2_sf_hdr_decode(f, size, &h), 0);
		assert_int_equal(h.count, c->count);
		assert_int_equal(h.i8count, c->i8count);
		assert_int_equal(h.parent, c->parent);
		assert_int_equal(h.hdr_len, c->i8count ? 10 : 6);
		while ((r = xfmt_dir2_sf_next(f, size, c->g, &pos, &de)) == 1) {
			assert_true(i < c->count);
			assert_int_equal(de.namelen, strlen(c->ents[i].name));
			assert_memory_equal(de.name, c->ents[i].name, de.namelen);
			assert_int_equal(de.offset, c->ents[i].offset);
			assert_int_equal(de.ino, c->ents[i].ino);
			assert_int_equal(de.ftype, c->ents[i].ftype);
			assert_int_equal(de.tag, 0);
			i++;
		}
		assert_int_equal(r, 0);
		assert_int_equal(i, c->count);
		assert_int_equal(pos, size);
		/* Entry sizes: 3 + namelen + ftype + 4 or 8. */
		assert_int_equal(xfmt_dir2_sf_entsize(c->g, c->i8count != 0, 2),
				 5 + (xfmt_geom_has_ftype(c->g) ? 1 : 0) + (c->i8count ? 8 : 4));
	}
}

static void test_fields(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct sf_case *c = &cases[k];
		const struct xfmt_field *f = xfmt_dir2_sf_hdr_fields(c->g->v5, xfmt_geom_has_ftype(c->g),
								     c->i8count != 0);
		size_t fsz;
		uint64_t size;
		const uint8_t *fork = fork_of(c, &fsz, &size);
		char line[128];

		for (unsigned i = 0; i < 3; i++, f++) {
			assert_non_null(f->name);
			assert_int_equal(fx_print_field(fork, size, f, line, sizeof(line)), 0);
			assert_string_equal(line, c->fields[i]);
		}
		assert_null(f->name);
	}
}

static void sf_run(const uint8_t *fork, size_t fsz, uint64_t size, const struct xfmt_geom *g,
		   struct fx_sink *s)
{
	FX_SINK(sink, s);
	unsigned n;

	memset(s, 0, sizeof(*s));
	n = xfmt_dir2_sf_verify(fork, fsz, size, g, &sink);
	assert_int_equal(n, s->n);
}

static void test_verify_clean(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		struct fx_sink s;
		size_t fsz;
		uint64_t size;
		const uint8_t *f = fork_of(&cases[k], &fsz, &size);

		sf_run(f, fsz, size, cases[k].g, &s);
		if (s.n)
			fx_dump(&s);
		assert_int_equal(s.n, 0);
	}
}

/* Corrupt a copy of case k's fork with mutate, check exactly codes. */
static void corrupt(size_t k, void (*mutate)(uint8_t *f, uint64_t *size),
		    const enum xprob_code *codes)
{
	struct fx_sink s;
	size_t fsz;
	uint64_t size;
	const uint8_t *f = fork_of(&cases[k], &fsz, &size);
	uint8_t *b = fx_dup(f, fsz);

	mutate(b, &size);
	sf_run(b, fsz, size, cases[k].g, &s);
	assert_true(dir_findings_are(&s, codes));
	free(b);
}

/* v5 /sf layout: hdr 6; f1 at 6, d2 at 16, l3 at 26 (10 bytes each). */
static void m_size_big(uint8_t *f, uint64_t *size) { (void)f; *size = 400; }
static void m_size_2(uint8_t *f, uint64_t *size) { (void)f; *size = 2; }
static void m_size_5(uint8_t *f, uint64_t *size) { (void)f; *size = 5; }
static void m_size_37(uint8_t *f, uint64_t *size) { (void)f; *size = 37; }
static void m_count2(uint8_t *f, uint64_t *size) { (void)size; f[0] = 2; }
static void m_count4(uint8_t *f, uint64_t *size) { (void)size; f[0] = 4; }
static void m_namelen0(uint8_t *f, uint64_t *size) { (void)size; f[16] = 0; }
static void m_offset_back(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be16(f + 27, 0x78); }
static void m_offset_first(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be16(f + 7, 0x50); }
static void m_offset_huge(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be16(f + 27, 0xff00); }
static void m_slash(uint8_t *f, uint64_t *size) { (void)size; f[19] = '/'; }
static void m_nul(uint8_t *f, uint64_t *size) { (void)size; f[20] = 0; }
static void m_dotdot(uint8_t *f, uint64_t *size) { (void)size; f[29] = '.'; f[30] = '.'; }
static void m_ftype9(uint8_t *f, uint64_t *size) { (void)size; f[21] = 9; }
static void m_ino0(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be32(f + 22, 0); }
static void m_ino_out(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be32(f + 22, 0xfffffff0u); }
static void m_parent0(uint8_t *f, uint64_t *size) { (void)size; xfmt_put_be32(f + 2, 0); }
/* big /top: i8count 2 -> 1 (the width stays 8 bytes), an inode above 2^56. */
static void m_i8count1(uint8_t *f, uint64_t *size) { (void)size; f[1] = 1; }
static void m_ino_2p56(uint8_t *f, uint64_t *size) { (void)size; f[10 + 14 + 6] = 1; }

static void test_corruptions(void **state)
{
	(void)state;
	corrupt(0, m_size_big, CODES(XP_dirSfBadSize));
	corrupt(0, m_size_2, CODES(XP_dirSfTooShort));
	corrupt(0, m_size_5, CODES(XP_dirSfTooShort));
	corrupt(0, m_size_37, CODES(XP_dirSfSizeMismatch));
	corrupt(0, m_count2, CODES(XP_dirSfSizeMismatch));
	corrupt(0, m_count4, CODES(XP_dirSfEntryOverrun));
	corrupt(0, m_namelen0, CODES(XP_dirBadNamelen));
	corrupt(0, m_offset_back, CODES(XP_dirSfBadOffset));
	corrupt(0, m_offset_first, CODES(XP_dirSfBadOffset));
	corrupt(0, m_offset_huge, CODES(XP_dirSfTooBig));
	corrupt(0, m_slash, CODES(XP_dirBadName));
	corrupt(0, m_nul, CODES(XP_dirBadName));
	corrupt(0, m_dotdot, CODES(XP_dirDotMisplaced));
	corrupt(0, m_ftype9, CODES(XP_dirBadFtype));
	corrupt(0, m_ino0, CODES(XP_dirBadInumber));
	corrupt(0, m_ino_out, CODES(XP_dirBadInumber));
	corrupt(0, m_parent0, CODES(XP_dirSfBadParent));
	corrupt(2, m_i8count1, CODES(XP_dirSfBadI8count));
	corrupt(2, m_ino_2p56, CODES(XP_dirBadInumber));
	/* v4 has no ftype byte: the same offsets mean other fields there. */
	corrupt(1, m_count4, CODES(XP_dirSfEntryOverrun));
}

/* Findings carry their context. */
static void test_context(void **state)
{
	struct fx_sink s;
	size_t fsz;
	uint64_t size;
	const uint8_t *f = fork_of(&cases[0], &fsz, &size);
	uint8_t *b = fx_dup(f, fsz);

	(void)state;
	xfmt_put_be16(b + 27, 0x78);
	b[21] = 12;
	sf_run(b, fsz, size, &dir_geom_v5, &s);
	assert_true(dir_findings_are(&s, CODES(XP_dirSfBadOffset, XP_dirBadFtype)));
	assert_int_equal(fx_find(&s, XP_dirSfBadOffset)->off, 27);
	assert_int_equal(fx_find(&s, XP_dirSfBadOffset)->expected, 0x80);
	assert_int_equal(fx_find(&s, XP_dirSfBadOffset)->observed, 0x78);
	assert_int_equal(fx_find(&s, XP_dirBadFtype)->observed, 12);
	assert_int_equal(fx_find(&s, XP_dirBadFtype)->off, 21);
	free(b);
}

/* Any size / garbage: bounded, never out of bounds (heap copies, ASan). */
static void test_truncated_and_random(void **state)
{
	uint64_t st = 0x123456789abcdefull;

	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		size_t fsz;
		uint64_t size;
		const uint8_t *f = fork_of(&cases[k], &fsz, &size);

		for (size_t len = 0; len <= size + 3; len++) {
			struct fx_sink s;
			struct xfmt_dirent de;
			struct xfmt_dir2_sf_hdr h;
			uint8_t *b = fx_dup(f, len);
			size_t pos = 0;
			unsigned steps = 0;

			(void)xfmt_dir2_sf_hdr_decode(b, len, &h);
			while (xfmt_dir2_sf_next(b, len, cases[k].g, &pos, &de) == 1)
				assert_true(++steps <= len);
			sf_run(b, len, size, cases[k].g, &s);
			if (len < size)
				assert_int_not_equal(s.n, 0);
			free(b);
		}
	}
	for (unsigned round = 0; round < 5000; round++) {
		const struct sf_case *c = &cases[round % NCASES];
		struct fx_sink s;
		struct xfmt_dirent de;
		size_t fsz, pos = 0;
		uint64_t size;
		const uint8_t *f = fork_of(c, &fsz, &size);
		uint8_t *b = fx_dup(f, fsz);
		unsigned steps = 0;

		for (unsigned i = 0; i < 1 + round % 4; i++) {
			uint64_t r = dir_rand(&st);

			b[(r >> 8) % (size + 2)] ^= (uint8_t)(r | 1);
		}
		if (round % 7 == 0)
			size = dir_rand(&st) % (fsz + 8);
		sf_run(b, fsz, size, c->g, &s);
		while (xfmt_dir2_sf_next(b, size < fsz ? size : fsz, c->g, &pos, &de) == 1)
			assert_true(++steps <= fsz);
		free(b);
	}
}

/*
 * The literal area past di_size keeps the old tail of the list where the
 * kernel does not zero it: the last entry removed is still there, found
 * with its inode and file type; a zeroed tail gives nothing.
 */
static void test_carve_tail(void **state)
{
	const struct sf_case *c = &cases[0];
	struct xfmt_dir2_carved cv;
	uint8_t fork[512];
	uint64_t di_size;
	size_t fsz, pos, live;
	const uint8_t *f = fork_of(c, &fsz, &di_size);

	(void)state;
	assert_true(fsz <= sizeof(fork));
	memcpy(fork, f, fsz);
	/* "l3" is the last entry: removing it only shrinks the size */
	live = (size_t)di_size - xfmt_dir2_sf_entsize(c->g, false, 2);
	pos = live;
	assert_int_equal(xfmt_dir2_sf_carve_next(fork, fsz, live, c->g, false, &pos, &cv), 1);
	assert_int_equal(cv.namelen, 2);
	assert_memory_equal(cv.name, "l3", 2);
	assert_int_equal(cv.ino, 133);
	assert_true(cv.ino_whole);
	assert_int_equal(cv.ftype, 7);
	assert_int_equal(cv.offset, live);
	assert_int_equal(xfmt_dir2_sf_carve_next(fork, fsz, live, c->g, false, &pos, &cv), 0);
	/* a zeroed tail holds nothing */
	memset(fork + live, 0, fsz - live);
	pos = live;
	assert_int_equal(xfmt_dir2_sf_carve_next(fork, fsz, live, c->g, false, &pos, &cv), 0);
	/* nor does a live area passed as tail start past its end */
	memcpy(fork, f, fsz);
	pos = 0;
	assert_int_equal(xfmt_dir2_sf_carve_next(fork, fsz, fsz, c->g, false, &pos, &cv), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_and_iterate),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_verify_clean),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_truncated_and_random),
		cmocka_unit_test(test_carve_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
