/*
 * test_dir2_data.c - directory data blocks and single-block directories
 * against real blocks (fixtures/dir_*.h, recipe in fixtures/dir_recipe.sh):
 * v5 block form with deletions (/blk), a v5 data block (db 1 of /node), an
 * 8 KiB data block, v4 block and data blocks without ftype, and an ASCII-CI
 * block.  Expected values are what `xfs_db -r IMG -c 'path P' -c 'dblock
 * N' -c p` printed; each corruption must give exactly its findings, plus
 * daBadCrc while the CRC is stale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/endian.h"

#include "fixtures/dir_ci.h"
#include "fixtures/dir_geom.h"
#include "fixtures/dir_k8.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"

struct rec_want { uint32_t idx; const char *name; uint64_t ino; uint8_t ftype; uint16_t tag; };

struct data_case {
	const char *name;
	const uint8_t *buf;
	const struct xfmt_geom *g;
	bool block_form;
	uint64_t ino, daddr;
	uint32_t dablk;
	uint32_t db_crc;   /* as xfs_db prints it (v5) */
	uint64_t lsn;
	struct xfmt_dir2_bestfree bf[3];
	unsigned nents, nunused;
	uint32_t tail_count, tail_stale;
	struct rec_want first, last;         /* entries by index among entries */
	uint32_t unused_off, unused_len;     /* first unused region */
	uint32_t leaf0_hash, leaf0_addr, leafl_hash, leafl_addr;
};

static const struct data_case cases[] = {
	{ "v5 block", fx_dir_v5_block, &dir_geom_v5, true, DIR_V5_BLK_INO, 120, 0, 0xf6150334,
	  0x100000002ull, { { 0x498, 0xa10 }, { 0x118, 0x28 }, { 0x70, 0x10 } }, 39, 6, 42, 3,
	  { 0, ".", 134, 2, 0x40 }, { 38, NULL, 0, 0, 0 }, 0x70, 0x10,
	  0x2e, 0x8, 0x98000000, 0x6e },
	{ "v5 data", fx_dir_v5_data, &dir_geom_v5, false, DIR_V5_NODE_INO, 96, 1, 0x07d3ad1f,
	  0x100000002ull, { { 0x6b8, 0x28 }, { 0xfa8, 0x28 }, { 0x58, 0x18 } }, 147, 13, 0, 0,
	  { 0, "n_181", 354, 1, 0x40 }, { 146, "n_341", 514, 1, 0xfe8 }, 0x58, 0x18, 0, 0, 0, 0 },
	{ "k8 data", fx_dir_k8_data, &dir_geom_k8, false, DIR_K8_NODE_INO, 112, 0, 0xf1b66c66,
	  0x100000002ull, { { 0x558, 0x28 }, { 0xd88, 0x28 }, { 0x1678, 0x28 } }, 320, 27, 0, 0,
	  { 2, "n0", 132, 1, 0x60 }, { 319, "n_344", 476, 1, 0x1fe8 }, 0x70, 0x10, 0, 0, 0, 0 },
	{ "v4 block", fx_dir_v4_block, &dir_geom_v4, true, DIR_V4_BLK_INO, 458848, 0, 0, 0,
	  { { 0x340, 0xb68 }, { 0, 0 }, { 0, 0 } }, 42, 1, 42, 0,
	  { 2, "b0", 1310852, 0, 0x30 }, { 41, NULL, 0, 0, 0 }, 0x340, 0xb68,
	  0x2e, 0x2, 0x6b456fb5, 0x3f },
	{ "v4 data", fx_dir_v4_data, &dir_geom_v4, false, DIR_V4_LEAF_INO, 96, 0, 0, 0,
	  { { 0, 0 }, { 0, 0 }, { 0, 0 } }, 210, 0, 0, 0,
	  { 0, ".", 132, 0, 0x10 }, { 209, "l_207", 372, 0, 0xff0 }, 0, 0, 0, 0, 0, 0 },
	{ "ci block", fx_dir_ci_block, &dir_geom_ci, true, DIR_CI_INO, 458872, 0, 0x0824861a, 0,
	  { { 0x4e8, 0x9c8 }, { 0, 0 }, { 0, 0 } }, 41, 1, 41, 0,
	  { 2, "Alpha", 655489, 1, 0x60 }, { 40, NULL, 0, 0, 0 }, 0x4e8, 0x9c8,
	  0x2e, 0x8, 0, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const struct data_case *case_named(const char *name)
{
	for (size_t i = 0; i < NCASES; i++)
		if (strcmp(cases[i].name, name) == 0)
			return &cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

static unsigned verify_of(const struct data_case *c, const uint8_t *buf, size_t len,
			  const struct xfmt_da_expect *e, const struct xprob_sink *sink)
{
	return c->block_form ? xfmt_dir2_block_verify(buf, len, c->g, e, sink)
			     : xfmt_dir2_data_verify(buf, len, c->g, e, sink);
}

static struct xfmt_da_expect exp_of(const struct data_case *c)
{
	struct xfmt_da_expect e;

	xfmt_dir2_da_expect_init(&e, c->g, c->ino, c->dablk, c->daddr);
	return e;
}

static void test_constants(void **state)
{
	(void)state;
	assert_int_equal(xfmt_dir2_data_hdr_len(&dir_geom_v5), 64);
	assert_int_equal(xfmt_dir2_data_hdr_len(&dir_geom_v4), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 1), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 2), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 3), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 4), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 5), 24);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v4, 5), 16);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v4, 6), 24);
	assert_int_equal(xfmt_dir2_data_entsize(&dir_geom_v5, 255), 272);
	assert_int_equal(xfmt_dir2_data_first_offset(&dir_geom_v5), 0x60);
	assert_int_equal(xfmt_dir2_data_first_offset(&dir_geom_v4), 0x30);
	/* Block tail capacity: (4096 - 8 - 64) / 8. */
	assert_int_equal(xfmt_dir2_block_max_leaf(&dir_geom_v5), 503);
	assert_int_equal(xfmt_dir2_block_max_leaf(&dir_geom_v4), 509);
	/* dataptrs: xfs_db ls lists "." at 8, "..": 10, the first name at 12. */
	assert_int_equal(xfmt_dir2_db_off_to_dataptr(&dir_geom_v5, 0, 0x60), 12);
	assert_int_equal(xfmt_dir2_dataptr_to_db(&dir_geom_v5, 0x4b8), 2);
	assert_int_equal(xfmt_dir2_dataptr_to_off(&dir_geom_v5, 0x4b8), 0x5c0);
	assert_int_equal(xfmt_dir2_dataptr_to_db(&dir_geom_k8, 0x4b8), 1);
	assert_int_equal(xfmt_dir2_dataptr_to_off(&dir_geom_k8, 0x4b8), 0x5c0);
	assert_int_equal(xfmt_dir2_db_off_to_dataptr(&dir_geom_k8, 1, 0x5c0), 0x4b8);
	/* Segments and block numbers: 8 KiB dir blocks step by 2 fs blocks. */
	assert_int_equal(xfmt_dir2_leaf_firstda(&dir_geom_v5), DIR_LEAF_DA);
	assert_int_equal(xfmt_dir2_free_firstda(&dir_geom_k8), DIR_FREE_DA);
	assert_int_equal(xfmt_dir2_db_to_da(&dir_geom_k8, 3), 6);
	assert_int_equal(xfmt_dir2_da_to_db(&dir_geom_k8, 7), 3);
	assert_int_equal(xfmt_dir2_byte_to_db(&dir_geom_k8, XFS_DIR2_LEAF_OFFSET), 4194304);
	assert_int_equal(xfmt_dir2_db_to_byte(&dir_geom_k8, 4194304), XFS_DIR2_LEAF_OFFSET);
	assert_int_equal(xfmt_dir2_byte_to_da(&dir_geom_v5, XFS_DIR2_FREE_OFFSET), DIR_FREE_DA);
	/* Names and types. */
	assert_true(xfmt_dir2_name_ok((const uint8_t *)"a", 1));
	assert_false(xfmt_dir2_name_ok((const uint8_t *)"a/b", 3));
	assert_false(xfmt_dir2_name_ok((const uint8_t *)"a\0b", 3));
	assert_false(xfmt_dir2_name_ok((const uint8_t *)"", 0));
	assert_int_equal(xfmt_dir2_name_dots((const uint8_t *)"..", 2), 2);
	assert_int_equal(xfmt_dir2_name_dots((const uint8_t *)".", 1), 1);
	assert_int_equal(xfmt_dir2_name_dots((const uint8_t *)".a", 2), 0);
	assert_int_equal(xfmt_dir3_ftype_from_mode(0100644), XFS_DIR3_FT_REG_FILE);
	assert_int_equal(xfmt_dir3_ftype_from_mode(040755), XFS_DIR3_FT_DIR);
	assert_int_equal(xfmt_dir3_ftype_from_mode(0120777), XFS_DIR3_FT_SYMLINK);
	assert_int_equal(xfmt_dir3_ftype_from_mode(0), XFS_DIR3_FT_UNKNOWN);
	/* The words xfs_db's ls prints. */
	assert_string_equal(xfmt_dir3_ftype_name(1), "regular");
	assert_string_equal(xfmt_dir3_ftype_name(2), "directory");
	assert_string_equal(xfmt_dir3_ftype_name(7), "symlink");
	assert_string_equal(xfmt_dir3_ftype_name(200), "invalid");
	/* Inode numbers: in the fs, not on AG headers. */
	assert_true(xfmt_dir2_ino_ok(&dir_geom_v5, 128));
	assert_false(xfmt_dir2_ino_ok(&dir_geom_v5, 0));
	assert_false(xfmt_dir2_ino_ok(&dir_geom_v5, 7));
	assert_false(xfmt_dir2_ino_ok(&dir_geom_v5, 2ull << 19));
	assert_true(xfmt_dir2_ino_ok(&dir_geom_big, 4294967424ull));
}

static void test_decode_header(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct data_case *c = &cases[k];
		struct xfmt_dir2_data_hdr h;
		uint32_t magic;

		if (c->g->v5)
			magic = c->block_form ? XFS_DIR3_BLOCK_MAGIC : XFS_DIR3_DATA_MAGIC;
		else
			magic = c->block_form ? XFS_DIR2_BLOCK_MAGIC : XFS_DIR2_DATA_MAGIC;
		assert_int_equal(xfmt_dir2_data_hdr_decode(c->buf, c->g->dirblksize, c->g->v5, &h), 0);
		assert_int_equal(h.magic, magic);
		assert_int_equal(h.hdr_len, c->g->v5 ? 64 : 16);
		for (unsigned i = 0; i < 3; i++) {
			assert_int_equal(h.bestfree[i].offset, c->bf[i].offset);
			assert_int_equal(h.bestfree[i].length, c->bf[i].length);
		}
		if (c->g->v5) {
			assert_int_equal(h.crc, dir_db_crc(c->db_crc));
			assert_int_equal(h.blkno, c->daddr);
			assert_int_equal(h.lsn, c->lsn);
			assert_int_equal(h.owner, c->ino);
			assert_memory_equal(h.uuid, c->g->meta_uuid, 16);
			assert_int_equal(h.pad, 0);
		}
		if (c->block_form) {
			struct xfmt_dir2_block_tail t;

			assert_int_equal(xfmt_dir2_block_tail_decode(c->buf, c->g->dirblksize, c->g, &t), 0);
			assert_int_equal(t.count, c->tail_count);
			assert_int_equal(t.stale, c->tail_stale);
			assert_int_equal(t.leaf_off, c->g->dirblksize - 8 - 8 * c->tail_count);
		}
	}
}

/* Walk every record: entries, unused regions, pos strictly increasing. */
static void test_iterate(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct data_case *c = &cases[k];
		size_t end = xfmt_dir2_data_end(c->buf, c->g->dirblksize, c->g, c->block_form);
		struct xfmt_dir2_rec rec;
		struct xfmt_dirent de;
		struct xfmt_dir2_unused un;
		size_t pos = 0, last = 0;
		unsigned ents = 0, unused = 0;
		int r;

		assert_int_equal(end, c->block_form ? c->g->dirblksize - 8 - 8 * c->tail_count
						    : c->g->dirblksize);
		while ((r = xfmt_dir2_data_rec_next(c->buf, c->g->dirblksize, c->g, c->block_form,
						    &pos, &rec)) == 1) {
			assert_true(pos > last);
			last = pos;
			assert_int_equal(rec.tag, rec.offset);
			if (rec.kind == XFMT_DIR2_REC_ENTRY)
				ents++;
			else
				unused++;
		}
		assert_int_equal(r, 0);
		assert_int_equal(pos, end);
		assert_int_equal(ents, c->nents);
		assert_int_equal(unused, c->nunused);

		/* Entries only: the ones xfs_db printed at these indexes. */
		pos = 0;
		for (unsigned i = 0; (r = xfmt_dir2_data_next(c->buf, c->g->dirblksize, c->g,
							      c->block_form, &pos, &de)) == 1; i++) {
			const struct rec_want *w = i == c->first.idx ? &c->first
						   : i == c->last.idx ? &c->last : NULL;

			if (!w || !w->name)
				continue;
			assert_int_equal(de.namelen, strlen(w->name));
			assert_memory_equal(de.name, w->name, de.namelen);
			assert_int_equal(de.ino, w->ino);
			assert_int_equal(de.ftype, w->ftype);
			assert_int_equal(de.tag, w->tag);
			assert_int_equal(de.offset, w->tag);
		}
		assert_int_equal(r, 0);

		pos = 0;
		if (c->nunused) {
			assert_int_equal(xfmt_dir2_unused_next(c->buf, c->g->dirblksize, c->g,
							       c->block_form, &pos, &un), 1);
			assert_int_equal(un.offset, c->unused_off);
			assert_int_equal(un.length, c->unused_len);
			assert_int_equal(un.tag, c->unused_off);
		} else {
			assert_int_equal(xfmt_dir2_unused_next(c->buf, c->g->dirblksize, c->g,
							       c->block_form, &pos, &un), 0);
		}

		if (c->block_form) {
			struct xfmt_dir2_block_tail t;
			uint32_t hv, addr;

			assert_int_equal(xfmt_dir2_block_tail_decode(c->buf, c->g->dirblksize, c->g, &t), 0);
			assert_int_equal(xfmt_dir2_block_leaf(c->buf, c->g->dirblksize, c->g, &t, 0,
							      &hv, &addr), 0);
			assert_int_equal(hv, c->leaf0_hash);
			assert_int_equal(addr, c->leaf0_addr);
			if (c->leafl_hash) {
				assert_int_equal(xfmt_dir2_block_leaf(c->buf, c->g->dirblksize, c->g, &t,
								      t.count - 1, &hv, &addr), 0);
				assert_int_equal(hv, c->leafl_hash);
				assert_int_equal(addr, c->leafl_addr);
			}
		}
	}
}

/* A damaged namelen in the middle of a block: the plain walk loses what
 * follows, the resyncing one still lists every other entry. */
static void test_resync(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct data_case *c = &cases[k];
		uint8_t buf[65536];
		struct xfmt_dirent de;
		uint32_t offs[512];
		size_t pos = 0;
		unsigned n = 0, got = 0;
		bool skipped = false;
		int r;

		if (c->nents < 4 || c->g->dirblksize > sizeof(buf))
			continue;
		memcpy(buf, c->buf, c->g->dirblksize);
		while (n < 512 && xfmt_dir2_data_next(buf, c->g->dirblksize, c->g, c->block_form,
						      &pos, &de) == 1)
			offs[n++] = de.offset;
		/* the namelen byte (after the 8-byte inode number) of entry 2 */
		buf[offs[2] + 8] = (uint8_t)(buf[offs[2] + 8] + 8);
		pos = 0;
		while ((r = xfmt_dir2_data_next_resync(buf, c->g->dirblksize, c->g, c->block_form,
						       &pos, &de, &skipped)) == 1)
			got += de.offset != offs[2];
		assert_int_equal(r, 0);
		assert_true(skipped);
		assert_int_equal(got, n - 1);
		/* an intact block walks as the plain walk does */
		pos = 0;
		skipped = false;
		got = 0;
		while (xfmt_dir2_data_next_resync(c->buf, c->g->dirblksize, c->g, c->block_form,
						  &pos, &de, &skipped) == 1)
			got++;
		assert_false(skipped);
		assert_int_equal(got, n);
	}
}

/* A deleted name is still in its unused region: "b_1" at 0x70 of /blk. */
static void test_deleted_name_remains(void **state)
{
	struct xfmt_dir2_unused un;
	size_t pos = 0;

	(void)state;
	assert_int_equal(xfmt_dir2_unused_next(fx_dir_v5_block, 4096, &dir_geom_v5, true, &pos, &un), 1);
	assert_int_equal(un.offset, 0x70);
	assert_int_equal(fx_dir_v5_block[un.offset + 8], 3);
	assert_memory_equal(fx_dir_v5_block + un.offset + 9, "b_1", 3);
}

/* The field tables print exactly what xfs_db printed. */
static void test_fields(void **state)
{
	static const char *v5blk[] = {
		"bhdr.hdr.magic = 0x58444233", "bhdr.hdr.crc = 0xf6150334", "bhdr.hdr.bno = 120",
		"bhdr.hdr.lsn = 0x100000002", "bhdr.hdr.uuid = d1d1d1d1-0000-4000-8000-000000000005",
		"bhdr.hdr.owner = 134", "bhdr.bestfree[0].offset = 0x498",
		"bhdr.bestfree[0].length = 0xa10", "bhdr.bestfree[1].offset = 0x118",
		"bhdr.bestfree[1].length = 0x28", "bhdr.bestfree[2].offset = 0x70",
		"bhdr.bestfree[2].length = 0x10",
	};
	static const char *v5data[] = {
		"dhdr.hdr.magic = 0x58444433", "dhdr.hdr.crc = 0x7d3ad1f", "dhdr.hdr.bno = 96",
		"dhdr.hdr.lsn = 0x100000002", "dhdr.hdr.uuid = d1d1d1d1-0000-4000-8000-000000000005",
		"dhdr.hdr.owner = 136", "dhdr.bestfree[0].offset = 0x6b8",
		"dhdr.bestfree[0].length = 0x28", "dhdr.bestfree[1].offset = 0xfa8",
		"dhdr.bestfree[1].length = 0x28", "dhdr.bestfree[2].offset = 0x58",
		"dhdr.bestfree[2].length = 0x18",
	};
	static const char *v4blk[] = {
		"bhdr.magic = 0x58443242", "bhdr.bestfree[0].offset = 0x340",
		"bhdr.bestfree[0].length = 0xb68", "bhdr.bestfree[1].offset = 0",
		"bhdr.bestfree[1].length = 0", "bhdr.bestfree[2].offset = 0",
		"bhdr.bestfree[2].length = 0",
	};
	static const char *v4data[] = {
		"dhdr.magic = 0x58443244", "dhdr.bestfree[0].offset = 0",
		"dhdr.bestfree[0].length = 0", "dhdr.bestfree[1].offset = 0",
		"dhdr.bestfree[1].length = 0", "dhdr.bestfree[2].offset = 0",
		"dhdr.bestfree[2].length = 0",
	};
	static const struct { const uint8_t *buf; bool v5, blk; const char **want; unsigned n; } t[] = {
		{ fx_dir_v5_block, true, true, v5blk, 12 }, { fx_dir_v5_data, true, false, v5data, 12 },
		{ fx_dir_v4_block, false, true, v4blk, 7 }, { fx_dir_v4_data, false, false, v4data, 7 },
	};
	const struct xfmt_field *f;
	char line[128];
	unsigned i;

	(void)state;
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		for (i = 0, f = xfmt_dir2_data_fields(t[k].v5, t[k].blk); f->name; f++, i++) {
			assert_true(i < t[k].n);
			assert_int_equal(fx_print_field(t[k].buf, 4096, f, line, sizeof(line)), 0);
			assert_string_equal(line, t[k].want[i]);
		}
		assert_int_equal(i, t[k].n);
	}
	/* The tail table is relative to the tail. */
	for (i = 0, f = xfmt_dir2_block_tail_fields; f->name; f++, i++) {
		static const char *want[] = { "btail.count = 42", "btail.stale = 3" };

		assert_int_equal(fx_print_field(fx_dir_v5_block + 4096 - 8, 8, f, line, sizeof(line)), 0);
		assert_string_equal(line, want[i]);
	}
	assert_int_equal(i, 2);
}

static void test_verify_clean(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct data_case *c = &cases[k];
		struct xfmt_da_expect e = exp_of(c);
		struct fx_sink s;
		FX_SINK(sink, &s);
		uint8_t *b = fx_dup(c->buf, c->g->dirblksize);

		unsigned n;

		memset(&s, 0, sizeof(s));
		n = verify_of(c, b, c->g->dirblksize, &e, &sink);
		assert_int_equal(n, s.n);
		if (s.n) {
			fprintf(stderr, "%s:\n", c->name);
			fx_dump(&s);
		}
		assert_int_equal(s.n, 0);
		free(b);
	}
}

/* Verifier wrappers in the shape dir_expect wants. */
static unsigned v_block(const uint8_t *b, size_t l, const struct xfmt_geom *g,
			const struct xfmt_da_expect *e, const struct xprob_sink *s)
{
	return xfmt_dir2_block_verify(b, l, g, e, s);
}

static unsigned v_data(const uint8_t *b, size_t l, const struct xfmt_geom *g,
		       const struct xfmt_da_expect *e, const struct xprob_sink *s)
{
	return xfmt_dir2_data_verify(b, l, g, e, s);
}

typedef void (*mutate_fn)(uint8_t *b, struct xfmt_da_expect *e);

/* Corrupt a copy of the named case; exactly codes (+ daBadCrc while stale). */
static void corrupt(const char *name, mutate_fn m, const enum xprob_code *codes)
{
	const struct data_case *c = case_named(name);
	struct xfmt_da_expect e = exp_of(c);
	uint8_t *b = fx_dup(c->buf, c->g->dirblksize);

	m(b, &e);
	dir_expect(c->block_form ? v_block : v_data, b, c->g->dirblksize, c->g, &e,
		   XFMT_DIR3_DATA_CRC_OFF, codes);
	free(b);
}

/*
 * v5 /blk: "." 0x40, ".." 0x50, "b0" 0x60 (ino 135, ftype at 0x6b, tag at
 * 0x6e), unused 0x70 len 0x10 (tag 0x7e), ...; unused 0x118/0x28, 0x1d8,
 * 0x280, 0x328 (0x10 each), 0x498/0xa10; leaf array at 0xea8 (42 entries),
 * tail at 0xff8.  Leaf entry i is at 0xeb0 + 8 i.
 */
#define LEAF(i) (0xea8 + 8 * (i))
static void m_magic(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[3] ^= 0x10; }
static void m_blkno(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 8, 121); }
static void m_uuid(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[30] ^= 4; }
static void m_owner(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 40, 1); }
static void m_pad(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[63] = 1; }
static void m_bf2_len(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 58, 0x18); }
static void m_bf_swap(uint8_t *b, struct xfmt_da_expect *e)
{
	uint8_t t[4];

	(void)e;
	memcpy(t, b + 52, 4);
	memcpy(b + 52, b + 56, 4);
	memcpy(b + 56, t, 4);
}
static void m_bf2_clear(uint8_t *b, struct xfmt_da_expect *e) { (void)e; memset(b + 56, 0, 4); }
static void m_bf2_off_only(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 58, 0); }
static void m_bf1_nowhere(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 52, 0x120); }
static void m_last_unused_long(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + 0x498 + 2, 0xa18); }
static void m_unused_len_odd(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be16(b + 0x70 + 2, 0x0c); }
static void m_entry_tag(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 0x6e, 0x68); }
static void m_unused_tag(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 0x7e, 0); }
static void m_b0_to_unused(uint8_t *b, struct xfmt_da_expect *e)
{
	(void)e;
	xfmt_put_be16(b + 0x60, 0xffff);
	xfmt_put_be16(b + 0x62, 0x10);
	xfmt_put_be16(b + 0x6e, 0x60);
}
static void m_namelen0(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x68] = 0; }
static void m_slash(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x6a] = '/'; }
static void m_ftype(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x6b] = 9; }
static void m_ino0(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 0x60, 0); }
static void m_dot_renamed(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x49] = 'x'; }
static void m_dot_ino(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 0x40, 135); }
static void m_b0_dotdot(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x69] = '.'; b[0x6a] = '.'; }
static void m_count_max(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 0xff8, 503); }
static void m_count_max_v4(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 0xff8, 509); }
static void m_stale2(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + 0xffc, 2); }
static void m_leaf_addr_mid(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + LEAF(2) + 4, 0xd); }
static void m_leaf_addr_db1(uint8_t *b, struct xfmt_da_expect *e)
{ (void)e; xfmt_put_be32(b + LEAF(2) + 4, 0xc + 4096 / 8); }
static void m_leaf_hash(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + LEAF(0), 0x2d); }
static void m_leaf_dup(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + LEAF(1) + 4, 0x8); }
static void m_leaf_order(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + LEAF(3), 0); }
static void m_leaf_stale(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be32(b + LEAF(2) + 4, 0); }
/* v5 data block 1 of /node checked as if it were block 0: no "." / "..". */
static void m_as_block0(uint8_t *b, struct xfmt_da_expect *e) { (void)b; e->dablk = 0; }
/* k8 data block 0 checked as if it were the second dir block (fork block 2). */
static void m_as_block1(uint8_t *b, struct xfmt_da_expect *e) { (void)b; e->dablk = 2; }
static void m_k8_tail_byte(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[8190] ^= 0x80; }

static void test_corruptions(void **state)
{
	(void)state;
	corrupt("v5 block", m_magic, CODES(XP_daBadMagic));
	corrupt("v5 block", m_blkno, CODES(XP_daBadBlkno));
	corrupt("v5 block", m_uuid, CODES(XP_daBadUuid));
	corrupt("v5 block", m_owner, CODES(XP_daBadOwner));
	corrupt("v5 block", m_pad, CODES(XP_daNonzeroPad));
	corrupt("v5 block", m_bf2_len, CODES(XP_dirBestfreeBad));
	corrupt("v5 block", m_bf_swap, CODES(XP_dirBestfreeOrder));
	corrupt("v5 block", m_bf2_clear, CODES(XP_dirBestfreeMissing, XP_dirBestfreeMissing,
					       XP_dirBestfreeMissing, XP_dirBestfreeMissing));
	corrupt("v5 block", m_bf2_off_only, CODES(XP_dirBestfreeBad, XP_dirBestfreeMissing,
						  XP_dirBestfreeMissing, XP_dirBestfreeMissing,
						  XP_dirBestfreeMissing));
	corrupt("v5 block", m_bf1_nowhere, CODES(XP_dirBestfreeBad, XP_dirBestfreeMissing));
	corrupt("v5 block", m_last_unused_long, CODES(XP_dirRecordOverrun));
	corrupt("v5 block", m_unused_len_odd, CODES(XP_dirBadUnusedLength));
	corrupt("v5 block", m_entry_tag, CODES(XP_dirBadTag));
	corrupt("v5 block", m_unused_tag, CODES(XP_dirBadTag));
	corrupt("v5 block", m_b0_to_unused, CODES(XP_dirAdjacentUnused, XP_dirLeafBadAddress,
						  XP_dirLeafBadLive));
	corrupt("v5 block", m_namelen0, CODES(XP_dirBadNamelen));
	corrupt("v5 block", m_slash, CODES(XP_dirBadName, XP_dirLeafBadHash));
	corrupt("v5 block", m_ftype, CODES(XP_dirBadFtype));
	corrupt("v5 block", m_ino0, CODES(XP_dirBadInumber));
	corrupt("v5 block", m_dot_renamed, CODES(XP_dirMissingDot, XP_dirLeafBadHash));
	corrupt("v5 block", m_dot_ino, CODES(XP_dirBadDotIno));
	corrupt("v5 block", m_b0_dotdot, CODES(XP_dirDotMisplaced, XP_dirLeafBadHash));
	corrupt("v5 block", m_count_max, CODES(XP_dirBlockBadCount));
	corrupt("v5 block", m_stale2, CODES(XP_dirLeafBadStale, XP_dirLeafBadLive));
	corrupt("v5 block", m_leaf_addr_mid, CODES(XP_dirLeafBadAddress, XP_dirLeafMissing));
	corrupt("v5 block", m_leaf_addr_db1, CODES(XP_dirLeafBadAddress, XP_dirLeafMissing));
	corrupt("v5 block", m_leaf_hash, CODES(XP_dirLeafBadHash));
	corrupt("v5 block", m_leaf_dup, CODES(XP_dirLeafDupAddress, XP_dirLeafBadHash,
					      XP_dirLeafMissing));
	corrupt("v5 block", m_leaf_order, CODES(XP_daHashOrder, XP_dirLeafBadHash));
	corrupt("v5 block", m_leaf_stale, CODES(XP_dirLeafBadStale, XP_dirLeafMissing));

	corrupt("v5 data", m_magic, CODES(XP_daBadMagic));
	corrupt("v5 data", m_owner, CODES(XP_daBadOwner));
	corrupt("v5 data", m_as_block0, CODES(XP_dirMissingDot, XP_dirMissingDot));
	corrupt("k8 data", m_as_block1, CODES(XP_dirDotMisplaced, XP_dirDotMisplaced));
	corrupt("k8 data", m_blkno, CODES(XP_daBadBlkno));
	corrupt("k8 data", m_k8_tail_byte, CODES(XP_dirBadTag));   /* last entry's tag */

	/* v4: the same rules without CRC or ftype; records start at 0x10. */
	corrupt("v4 block", m_magic, CODES(XP_daBadMagic));
	corrupt("v4 block", m_count_max_v4, CODES(XP_dirBlockBadCount));
}

/* v4 entries (no ftype): ". " at 0x10, ".." 0x20, "b0" 0x30 ... */
static void v4_b0_slash(uint8_t *b, struct xfmt_da_expect *e) { (void)e; b[0x3a] = '/'; }
static void v4_b0_tag(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be16(b + 0x3e, 0x38); }
static void v4_dot_ino(uint8_t *b, struct xfmt_da_expect *e) { (void)e; xfmt_put_be64(b + 0x10, 128); }

static void test_v4_entries(void **state)
{
	(void)state;
	corrupt("v4 block", v4_b0_slash, CODES(XP_dirBadName, XP_dirLeafBadHash));
	corrupt("v4 block", v4_b0_tag, CODES(XP_dirBadTag));
	corrupt("v4 data", v4_dot_ino, CODES(XP_dirBadDotIno));
}

/* CRC only, its values, and several problems at once. */
static void test_crc_and_context(void **state)
{
	const struct data_case *c = case_named("v5 block");
	struct xfmt_da_expect e = exp_of(c);
	struct fx_sink s;
	FX_SINK(sink, &s);
	uint8_t *b = fx_dup(c->buf, 4096);
	const struct xprob *p;

	(void)state;
	b[0x600] ^= 1;   /* inside the big unused region: only the CRC notices */
	memset(&s, 0, sizeof(s));
	xfmt_dir2_block_verify(b, 4096, c->g, &e, &sink);
	assert_true(dir_findings_are(&s, CODES(XP_daBadCrc)));
	p = fx_find(&s, XP_daBadCrc);
	assert_int_equal(p->observed, dir_db_crc(0xf6150334));
	assert_int_equal(p->expected, xfmt_crc32c_excluding(b, 4096, 4));
	assert_int_equal(p->off, 4);

	xfmt_put_be16(b + 0x6e, 0x68);      /* b0's tag */
	b[0x6b] = 200;                       /* b0's ftype */
	xfmt_put_be32(b + LEAF(0), 0x2d);   /* "." leaf hash */
	memset(&s, 0, sizeof(s));
	xfmt_dir2_block_verify(b, 4096, c->g, &e, &sink);
	assert_true(dir_findings_are(&s, CODES(XP_daBadCrc, XP_dirBadTag, XP_dirBadFtype,
					       XP_dirLeafBadHash)));
	p = fx_find(&s, XP_dirBadTag);
	assert_int_equal(p->off, 0x6e);
	assert_int_equal(p->expected, 0x60);
	assert_int_equal(p->observed, 0x68);
	p = fx_find(&s, XP_dirBadFtype);
	assert_int_equal(p->observed, 200);
	p = fx_find(&s, XP_dirLeafBadHash);
	assert_int_equal(p->off, 0);
	assert_int_equal(p->expected, 0x2e);
	assert_int_equal(p->observed, 0x2d);
	free(b);
}

/* The CI block verifies only with the CI hash. */
static void test_ci(void **state)
{
	const struct data_case *c = case_named("ci block");
	struct xfmt_geom g = dir_geom_ci;
	struct xfmt_da_expect e = exp_of(c);
	struct fx_sink s;
	FX_SINK(sink, &s);

	(void)state;
	g.versionnum &= (uint16_t)~XFS_SB_VERSION_BORGBIT;
	memset(&s, 0, sizeof(s));
	xfmt_dir2_block_verify(c->buf, 4096, &g, &e, &sink);
	/* Every name with a capital letter: all but ".", "..", "gamma". */
	assert_int_equal(fx_count(&s, XP_dirLeafBadHash, NULL), 38);
	assert_int_equal(s.n, 38);
}

/* Short buffers: one daTruncated, and the iterators refuse. */
static void test_truncated(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCASES; k++) {
		const struct data_case *c = &cases[k];
		struct xfmt_da_expect e = exp_of(c);
		size_t lens[] = { 0, 3, 4, 15, 16, 63, 64, 65, 200, c->g->dirblksize - 1 };

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			struct fx_sink s;
			FX_SINK(sink, &s);
			struct xfmt_dir2_data_hdr h;
			struct xfmt_dir2_block_tail t;
			struct xfmt_dirent de;
			uint8_t *b = fx_dup(c->buf, lens[i]);
			size_t pos = 0;

			memset(&s, 0, sizeof(s));
			verify_of(c, b, lens[i], &e, &sink);
			assert_true(dir_findings_are(&s, CODES(XP_daTruncated)));
			assert_int_equal(xfmt_dir2_data_hdr_decode(b, lens[i], c->g->v5, &h),
					 lens[i] >= (c->g->v5 ? 64u : 16u) ? 0 : -1);
			assert_int_equal(xfmt_dir2_block_tail_decode(b, lens[i], c->g, &t), -1);
			assert_int_equal(xfmt_dir2_data_next(b, lens[i], c->g, c->block_form, &pos, &de), -1);
			assert_int_equal(xfmt_dir2_data_end(b, lens[i], c->g, c->block_form), 0);
			free(b);
		}
	}
}

/* Random damage: verifiers and iterators stay in bounds and terminate. */
static void test_random_damage(void **state)
{
	uint64_t st = 0xdeadbeefcafef00dull;

	(void)state;
	for (unsigned round = 0; round < 4000; round++) {
		const struct data_case *c = &cases[round % NCASES];
		size_t bs = c->g->dirblksize;
		struct xfmt_da_expect e = exp_of(c);
		struct xfmt_dir2_rec rec;
		struct fx_sink s;
		FX_SINK(sink, &s);
		uint8_t *b = fx_dup(c->buf, bs);
		size_t pos = 0, last = 0;
		unsigned steps = 0;

		for (unsigned f = 0; f < 1 + round % 6; f++) {
			uint64_t r = dir_rand(&st);
			/* Aim at the header, the first records and the tail. */
			size_t at = (r >> 8) % 3 == 0 ? (r >> 16) % 160
				  : (r >> 8) % 3 == 1 ? bs - 1 - (r >> 16) % 400 : (r >> 16) % bs;

			b[at] ^= (uint8_t)(r | 1);
		}
		memset(&s, 0, sizeof(s));
		(void)verify_of(c, b, bs, &e, &sink);
		(void)xfmt_dir2_block_verify(b, bs, c->g, &e, &sink);
		(void)xfmt_dir2_data_verify(b, bs, c->g, &e, &sink);
		while (xfmt_dir2_data_rec_next(b, bs, c->g, round & 1, &pos, &rec) == 1) {
			assert_true(pos > last && pos <= bs);
			last = pos;
			assert_true(++steps <= bs / 8);
		}
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_decode_header),
		cmocka_unit_test(test_iterate),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_deleted_name_remains),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_verify_clean),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_v4_entries),
		cmocka_unit_test(test_crc_and_context),
		cmocka_unit_test(test_ci),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
