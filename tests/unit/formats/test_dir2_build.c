/*
 * test_dir2_build.c - the directory encoder.  Entry sets of many sizes and
 * shapes (none, one, a few, each side of every form's limit, thousands,
 * 255-byte names, 8-byte inode numbers, ascii-ci) are encoded on v5, v4
 * (no ftype), 1 KiB, 4 KiB, 8 KiB and 64 KiB directory blocks, sealed, and
 * read back through the decoders and verifiers: every block verifies with
 * no finding, every name/inode/ftype comes back once, leaf hashes are
 * sorted along the whole leaf chain, node keys are the highest hash below
 * them, bests[] match the data blocks.  Short form is also checked byte
 * for byte against directories the kernel wrote (fixtures/dir_*.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/dir2_build.h"
#include "formats/endian.h"

#include "fixtures/dir_big.h"
#include "fixtures/dir_geom.h"
#include "fixtures/dir_v4.h"
#include "fixtures/dir_v5.h"

/* 1 KiB blocks and directory blocks (mkfs -b size=1024). */
static const struct xfmt_geom geom_1k = {
	.blocksize = 1024, .blocklog = 10, .sectsize = 512, .sectlog = 9,
	.inodesize = 512, .inodelog = 9, .inopblock = 2, .inopblog = 1,
	.agblocks = 81920, .agblklog = 17, .agcount = 4, .dblocks = 327680,
	.dirblksize = 1024, .dirblklog = 0, .v5 = true, .versionnum = 0xb4b5,
	.features2 = 0x18a, .ro_compat = 0xd, .incompat = 0xb,
	.meta_uuid = DIR_UUID(0x01),
	.logstart = 131078, .logblocks = 16384, .inoalignmt = 32, .spino_align = 16,
};

/* 4 KiB blocks, 64 KiB directory blocks (mkfs -n size=65536). */
static const struct xfmt_geom geom_64k = {
	.blocksize = 4096, .blocklog = 12, .sectsize = 512, .sectlog = 9,
	.inodesize = 512, .inodelog = 9, .inopblock = 8, .inopblog = 3,
	.agblocks = 40960, .agblklog = 16, .agcount = 2, .dblocks = 81920,
	.dirblksize = 65536, .dirblklog = 4, .v5 = true, .versionnum = 0xb4b5,
	.features2 = 0x18a, .ro_compat = 0xd, .incompat = 0xb,
	.meta_uuid = DIR_UUID(0x64),
	.logstart = 65542, .logblocks = 16384, .inoalignmt = 8, .spino_align = 4,
};

/* ------------------------------------------------------------ helpers */

struct count_sink {
	unsigned n;
	enum xprob_code first;
};

static void count_report(void *arg, const struct xprob *p)
{
	struct count_sink *c = arg;

	if (c->n++ == 0)
		c->first = p->code;
}

/* An entry set: names owned here. */
struct set {
	struct xfmt_dirent_in *e;
	uint8_t (*names)[256];
	size_t n;
};

/* A valid inode number of g: AG agno, from block 64 on. */
static uint64_t make_ino(const struct xfmt_geom *g, uint32_t agno, size_t i)
{
	uint32_t agino = (uint32_t)(((64 + i / g->inopblock) << g->inopblog) | (i % g->inopblock));

	return xfmt_geom_ino(g, agno, agino);
}

/*
 * n entries; shape 0: "e<i>"; 1: lengths cycling 1..255 (unique by a
 * numeric prefix); 2: all 255 bytes long.  agno picks the inodes' AG.
 */
static struct set make_set(const struct xfmt_geom *g, size_t n, int shape, uint32_t agno)
{
	struct set s = { calloc(n ? n : 1, sizeof(*s.e)), calloc(n ? n : 1, 256), n };

	assert_non_null(s.e);
	assert_non_null(s.names);
	for (size_t i = 0; i < n; i++) {
		char pre[24];
		size_t len = 0, plen = (size_t)snprintf(pre, sizeof(pre), "e%zu", i);

		switch (shape) {
		case 0: len = plen; break;
		case 1: len = plen + (i * 37) % (256 - plen); break;
		default: len = 255; break;
		}
		memset(s.names[i], 'a' + (int)(i % 26), len);
		memcpy(s.names[i], pre, plen);
		s.e[i].name = s.names[i];
		s.e[i].namelen = (uint8_t)len;
		s.e[i].ino = make_ino(g, agno, i);
		s.e[i].ftype = (uint8_t)(1 + i % 7);
	}
	return s;
}

static void free_set(struct set *s)
{
	free(s->e);
	free(s->names);
}

static const uint8_t *blk_at(const struct xfmt_dir2_build *b, uint32_t da)
{
	for (size_t i = 0; i < b->nblks; i++)
		if (b->blks[i].da == da)
			return b->blks[i].buf;
	return NULL;
}

static uint64_t fake_daddr(const struct xfmt_dir2_build *b, size_t i)
{
	(void)b;
	return 1000 + 64 * (uint64_t)i;
}

/* Found-entry bookkeeping: which input entry each name is. */
static int cmp_ent(const void *pa, const void *pb)
{
	const struct xfmt_dirent_in *a = pa, *b = pb;
	int c = memcmp(a->name, b->name, a->namelen < b->namelen ? a->namelen : b->namelen);

	return c ? c : (int)a->namelen - (int)b->namelen;
}

static bool want_ftype(const struct xfmt_geom *g)
{
	return xfmt_geom_has_ftype(g);
}

/* Look an address up in the data blocks: the entry's hash must equal hv. */
static void check_addr(const struct xfmt_geom *g, const struct xfmt_dir2_build *b,
		       uint32_t hv, uint32_t addr)
{
	uint32_t db = xfmt_dir2_dataptr_to_db(g, addr), off = xfmt_dir2_dataptr_to_off(g, addr);
	const uint8_t *blk = blk_at(b, xfmt_dir2_db_to_da(g, db));

	assert_non_null(blk);
	assert_true(db < b->ndata);
	assert_true(off + 11 < g->dirblksize);
	assert_int_equal(xfmt_dir2_hashname(g, blk + off + 9, blk[off + 8]), hv);
}

/*
 * Walk the node tree from da at level level; append leaves in order to
 * leaves[]; return the highest hash below.
 */
static uint32_t walk_tree(const struct xfmt_geom *g, const struct xfmt_dir2_build *b, uint32_t da,
			  int level, uint32_t *leaves, size_t *nleaves, uint32_t owner)
{
	const uint8_t *blk = blk_at(b, da);
	struct xfmt_da_node_hdr h;
	struct count_sink cs = { 0 };
	struct xprob_sink sink = { count_report, &cs };
	struct xfmt_da_expect exp;
	uint32_t last = 0;

	assert_non_null(blk);
	xfmt_dir2_da_expect_init(&exp, g, owner, da, fake_daddr(b, (size_t)(blk - b->mem) / g->dirblksize));
	if (level == 0) {
		struct xfmt_dir2_leaf_hdr lh;
		uint32_t hv, addr;

		assert_int_equal(xfmt_dir2_leaf_verify(blk, g->dirblksize, g, &exp, false, &sink), 0);
		assert_int_equal(xfmt_dir2_leaf_hdr_decode(blk, g->dirblksize, g->v5, &lh), 0);
		assert_true(lh.count > 0);
		assert_int_equal(xfmt_dir2_leaf_entry(blk, g->dirblksize, g->v5, lh.count - 1u, &hv,
						      &addr), 0);
		leaves[(*nleaves)++] = da;
		return hv;
	}
	exp.level = level;
	assert_int_equal(xfmt_da_node_verify(blk, g->dirblksize, g->dirblksize, g, &exp, &sink), 0);
	assert_int_equal(xfmt_da_node_hdr_decode(blk, g->dirblksize, g->v5, &h), 0);
	assert_int_equal(h.level, level);
	for (unsigned i = 0; i < h.count; i++) {
		uint32_t hv, before, got;

		assert_int_equal(xfmt_da_node_entry(blk, g->dirblksize, g->v5, i, &hv, &before), 0);
		got = walk_tree(g, b, before, level - 1, leaves, nleaves, owner);
		assert_int_equal(got, hv);
		assert_true(hv >= last);
		last = hv;
	}
	return last;
}

/*
 * Build, seal and read back.  Returns the build (caller releases) so tests
 * can look at its shape.
 */
static struct xfmt_dir2_build check_build(const struct xfmt_geom *g, const struct set *s,
					  uint64_t dir, uint64_t parent,
					  const struct xfmt_dir2_build_opts *opts)
{
	struct xfmt_dir2_build b;
	struct xfmt_dirent_in *got = calloc(s->n + 1, sizeof(*got));
	struct xfmt_dirent_in *want = calloc(s->n + 1, sizeof(*want));
	uint32_t *leaves;
	size_t ngot = 0, nleaves = 0, nle = 0;
	uint32_t lastkey = 0;
	bool block = false;

	assert_non_null(got);
	assert_non_null(want);
	assert_int_equal(xfmt_dir2_build(g, dir, parent, s->e, s->n, opts, &b), 0);
	assert_int_equal(b.nblks, b.ndata + b.nleaf + b.nnode + b.nfree);
	assert_int_equal(b.di_size, (uint64_t)b.ndata * g->dirblksize);
	block = b.form == XFMT_DIR2_FORM_BLOCK;
	for (size_t i = 0; i < b.nblks; i++) {
		assert_int_equal(xfmt_dir2_blk_seal(g, b.blks[i].buf, g->dirblksize,
						    fake_daddr(&b, i), dir, 0x100000002ull), 0);
		if (i > 0)
			assert_true(b.blks[i].da > b.blks[i - 1].da);
	}

	/* Data blocks: verify, collect entries. */
	for (uint32_t db = 0; db < b.ndata; db++) {
		const uint8_t *blk = b.blks[db].buf;
		struct count_sink cs = { 0 };
		struct xprob_sink sink = { count_report, &cs };
		struct xfmt_da_expect exp;
		struct xfmt_dirent de;
		size_t pos = 0;
		unsigned k = 0;
		int r;

		assert_int_equal(b.blks[db].da, xfmt_dir2_db_to_da(g, db));
		xfmt_dir2_da_expect_init(&exp, g, dir, b.blks[db].da, fake_daddr(&b, db));
		if (block)
			xfmt_dir2_block_verify(blk, g->dirblksize, g, &exp, &sink);
		else
			xfmt_dir2_data_verify(blk, g->dirblksize, g, &exp, &sink);
		if (cs.n)
			fail_msg("data block %u: %u findings, first %s", db, cs.n, xprob_id(cs.first));
		while ((r = xfmt_dir2_data_next(blk, g->dirblksize, g, block, &pos, &de)) == 1) {
			if (db == 0 && k < 2) {
				assert_int_equal(de.namelen, k + 1);
				assert_int_equal(de.ino, k == 0 ? dir : parent);
				if (want_ftype(g))
					assert_int_equal(de.ftype, XFS_DIR3_FT_DIR);
			} else {
				assert_true(ngot < s->n);
				got[ngot++] = (struct xfmt_dirent_in){ de.name, de.namelen, de.ino,
								      de.ftype };
			}
			k++;
		}
		assert_int_equal(r, 0);
	}
	assert_int_equal(ngot, s->n);
	memcpy(want, s->e, s->n * sizeof(*want));
	qsort(got, ngot, sizeof(*got), cmp_ent);
	qsort(want, s->n, sizeof(*want), cmp_ent);
	for (size_t i = 0; i < s->n; i++) {
		assert_int_equal(cmp_ent(&got[i], &want[i]), 0);
		assert_int_equal(got[i].ino, want[i].ino);
		assert_int_equal(got[i].ftype, want_ftype(g) ? want[i].ftype : 0);
	}

	/* The hash index, in order. */
	leaves = calloc(b.nleaf + 1, sizeof(*leaves));
	assert_non_null(leaves);
	if (b.form == XFMT_DIR2_FORM_BLOCK) {
		struct xfmt_dir2_block_tail t;

		assert_int_equal(b.nblks, 1);
		assert_int_equal(xfmt_dir2_block_tail_decode(b.blks[0].buf, g->dirblksize, g, &t), 0);
		assert_int_equal(t.count, s->n + 2);
		assert_int_equal(t.stale, 0);
		for (unsigned i = 0; i < t.count; i++) {
			uint32_t hv, addr;

			assert_int_equal(xfmt_dir2_block_leaf(b.blks[0].buf, g->dirblksize, g, &t, i,
							      &hv, &addr), 0);
			assert_true(hv >= lastkey);
			lastkey = hv;
			check_addr(g, &b, hv, addr);
		}
		nle = t.count;
	} else if (b.form == XFMT_DIR2_FORM_LEAF) {
		leaves[nleaves++] = xfmt_dir2_leaf_firstda(g);
		assert_int_equal(b.nfree, 0);
	} else {
		walk_tree(g, &b, xfmt_dir2_leaf_firstda(g), (int)b.node_levels, leaves, &nleaves, (uint32_t)dir);
		assert_int_equal(nleaves, b.nleaf);
	}
	for (size_t j = 0; j < nleaves; j++) {
		const uint8_t *blk = blk_at(&b, leaves[j]);
		struct xfmt_dir2_leaf_hdr lh;
		struct count_sink cs = { 0 };
		struct xprob_sink sink = { count_report, &cs };
		struct xfmt_da_expect exp;

		xfmt_dir2_da_expect_init(&exp, g, dir, leaves[j],
					 fake_daddr(&b, (size_t)(blk - b.mem) / g->dirblksize));
		xfmt_dir2_leaf_verify(blk, g->dirblksize, g, &exp, b.form == XFMT_DIR2_FORM_LEAF, &sink);
		if (cs.n)
			fail_msg("leaf %u: %u findings, first %s", leaves[j], cs.n, xprob_id(cs.first));
		assert_int_equal(xfmt_dir2_leaf_hdr_decode(blk, g->dirblksize, g->v5, &lh), 0);
		assert_int_equal(lh.stale, 0);
		/* Siblings follow the tree order. */
		assert_int_equal(lh.info.forw, j + 1 < nleaves ? leaves[j + 1] : 0);
		assert_int_equal(lh.info.back, j > 0 ? leaves[j - 1] : 0);
		for (unsigned i = 0; i < lh.count; i++) {
			uint32_t hv, addr;

			assert_int_equal(xfmt_dir2_leaf_entry(blk, g->dirblksize, g->v5, i, &hv, &addr), 0);
			assert_true(hv >= lastkey);
			lastkey = hv;
			check_addr(g, &b, hv, addr);
		}
		nle += lh.count;
		if (b.form == XFMT_DIR2_FORM_LEAF) {
			struct xfmt_dir2_leaf_tail t;

			assert_int_equal(xfmt_dir2_leaf1_tail_decode(blk, g->dirblksize, g, &t), 0);
			assert_int_equal(t.bestcount, b.ndata);
			for (uint32_t db = 0; db < b.ndata; db++) {
				struct xfmt_dir2_data_hdr dh;
				uint16_t best;

				assert_int_equal(xfmt_dir2_leaf1_best(blk, &t, db, &best), 0);
				xfmt_dir2_data_hdr_decode(b.blks[db].buf, g->dirblksize, g->v5, &dh);
				assert_int_equal(best, dh.bestfree[0].length);
			}
		}
	}
	assert_int_equal(nle, s->n + 2);

	/* Free index: every data block's best, nothing else. */
	for (uint32_t j = 0; j < b.nfree; j++) {
		size_t idx = b.nblks - b.nfree + j;
		const uint8_t *blk = b.blks[idx].buf;
		struct count_sink cs = { 0 };
		struct xprob_sink sink = { count_report, &cs };
		struct xfmt_da_expect exp;
		struct xfmt_dir2_free_hdr fh;

		assert_int_equal(b.blks[idx].da, xfmt_dir2_free_firstda(g) + (j << g->dirblklog));
		xfmt_dir2_da_expect_init(&exp, g, dir, b.blks[idx].da, fake_daddr(&b, idx));
		xfmt_dir2_free_verify(blk, g->dirblksize, g, &exp, &sink);
		if (cs.n)
			fail_msg("free %u: %u findings, first %s", j, cs.n, xprob_id(cs.first));
		assert_int_equal(xfmt_dir2_free_hdr_decode(blk, g->dirblksize, g->v5, &fh), 0);
		for (uint32_t i = 0; i < fh.nvalid; i++) {
			struct xfmt_dir2_data_hdr dh;
			uint16_t best;

			assert_int_equal(xfmt_dir2_free_best(blk, g->dirblksize, g->v5, i, &best), 0);
			xfmt_dir2_data_hdr_decode(b.blks[fh.firstdb + i].buf, g->dirblksize, g->v5, &dh);
			assert_int_equal(best, dh.bestfree[0].length);
		}
		assert_int_equal(fh.firstdb + fh.nvalid, j + 1 == b.nfree ? b.ndata : fh.firstdb + fh.nvalid);
	}
	if (b.form == XFMT_DIR2_FORM_NODE)
		assert_int_equal(b.nfree, (b.ndata + xfmt_dir2_free_max_bests(g) - 1) /
					  xfmt_dir2_free_max_bests(g));
	free(leaves);
	free(got);
	free(want);
	return b;
}

/* Build set s and check it came out in form. */
static void run(const struct xfmt_geom *g, size_t n, int shape, uint32_t agno,
		enum xfmt_dir2_form form)
{
	struct set s = make_set(g, n, shape, agno);
	struct xfmt_dir2_build b = check_build(g, &s, make_ino(g, 0, 1), make_ino(g, 0, 2), NULL);

	if (b.form != form)
		fail_msg("n=%zu shape=%d: form %d, expected %d", n, shape, b.form, form);
	xfmt_dir2_build_release(&b);
	free_set(&s);
}

/* The form shape-0 sets of n entries get (auto). */
static enum xfmt_dir2_form form_of(const struct xfmt_geom *g, size_t n)
{
	struct set s = make_set(g, n, 0, 0);
	struct xfmt_dir2_build b;
	enum xfmt_dir2_form f;

	assert_int_equal(xfmt_dir2_build(g, make_ino(g, 0, 1), make_ino(g, 0, 2), s.e, s.n, NULL,
					 &b), 0);
	f = b.form;
	xfmt_dir2_build_release(&b);
	free_set(&s);
	return f;
}

/* Largest n of shape 0 that still builds in form or a smaller one (the forms grow with n). */
static size_t limit_of(const struct xfmt_geom *g, enum xfmt_dir2_form form)
{
	size_t lo = 0, hi = 1;

	while (form_of(g, hi) <= form)
		hi *= 2;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (form_of(g, mid) <= form)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* -------------------------------------------------------------- tests */

static const struct xfmt_geom *const geoms[] = {
	&dir_geom_v5, &dir_geom_v4, &dir_geom_k8, &geom_1k, &geom_64k, &dir_geom_ci,
};
#define NGEOMS (sizeof(geoms) / sizeof(geoms[0]))

/* Each side of each limit, on every geometry. */
static void test_form_limits(void **state)
{
	(void)state;
	for (size_t k = 0; k < NGEOMS; k++) {
		const struct xfmt_geom *g = geoms[k];
		size_t nb = limit_of(g, XFMT_DIR2_FORM_BLOCK);
		size_t nl = limit_of(g, XFMT_DIR2_FORM_LEAF);

		assert_true(nb > 0 && nl > nb);
		run(g, 0, 0, 0, XFMT_DIR2_FORM_BLOCK);
		run(g, 1, 0, 0, XFMT_DIR2_FORM_BLOCK);
		run(g, 5, 0, 0, XFMT_DIR2_FORM_BLOCK);
		run(g, nb, 0, 0, XFMT_DIR2_FORM_BLOCK);
		run(g, nb + 1, 0, 0, XFMT_DIR2_FORM_LEAF);
		run(g, nl, 0, 0, XFMT_DIR2_FORM_LEAF);
		run(g, nl + 1, 0, 0, XFMT_DIR2_FORM_NODE);
	}
	/*
	 * 4 KiB v5, names "e0".."e999" (16-byte entries): (4096 - 96 for the
	 * header, "." and "..", - 16 for their leaf entries - 8 for the tail)
	 * / (16 + 8) = 165 entries in a block.
	 */
	assert_int_equal(limit_of(&dir_geom_v5, XFMT_DIR2_FORM_BLOCK), 165);
}

/* Long names, mixed lengths, thousands of entries. */
static void test_shapes(void **state)
{
	(void)state;
	for (size_t k = 0; k < NGEOMS; k++) {
		run(geoms[k], 3, 2, 0, XFMT_DIR2_FORM_BLOCK);
		/* About 43 KiB of entries: one 64 KiB block; 302 leaf entries fit
		 * a leaf1 block unless it is 1 KiB. */
		run(geoms[k], 300, 1, 1, geoms[k]->dirblksize == 65536 ? XFMT_DIR2_FORM_BLOCK :
					 geoms[k]->dirblksize == 1024 ? XFMT_DIR2_FORM_NODE :
					 XFMT_DIR2_FORM_LEAF);
		run(geoms[k], 10000, 0, 1, XFMT_DIR2_FORM_NODE);
	}
	/* 8-byte inode numbers (AG 2 of a 1800 GiB filesystem). */
	run(&dir_geom_big, 40, 0, 2, XFMT_DIR2_FORM_BLOCK);
	run(&dir_geom_big, 4000, 1, 2, XFMT_DIR2_FORM_NODE);
}

/* Node trees of two and three levels on 1 KiB blocks. */
static void test_deep_tree(void **state)
{
	struct set s = make_set(&geom_1k, 30000, 0, 0);
	struct xfmt_dir2_build b = check_build(&geom_1k, &s, make_ino(&geom_1k, 0, 1),
					       make_ino(&geom_1k, 0, 2), NULL);
	struct xfmt_dir2_build_opts o = { .leaf_blocks = 15000 };

	(void)state;
	assert_int_equal(b.form, XFMT_DIR2_FORM_NODE);
	assert_int_equal(b.node_levels, 2);
	xfmt_dir2_build_release(&b);
	free_set(&s);

	/* One or two entries per leaf: 15000 leaves, 125 + 2 + 1 nodes. */
	s = make_set(&geom_1k, 20000, 0, 0);
	b = check_build(&geom_1k, &s, make_ino(&geom_1k, 0, 1), make_ino(&geom_1k, 0, 2), &o);
	assert_int_equal(b.node_levels, 3);
	assert_int_equal(b.nleaf, 15000);
	assert_int_equal(b.nnode, 125 + 2 + 1);
	xfmt_dir2_build_release(&b);
	free_set(&s);
}

/* Forced forms and block counts (rewriting inside a directory's own blocks). */
static void test_opts(void **state)
{
	const struct xfmt_geom *g = &dir_geom_v5;
	struct set s = make_set(g, 320, 0, 0);
	struct xfmt_dir2_build b;
	struct xfmt_dir2_build_opts o = { 0 };

	(void)state;
	o.data_blocks = 4;
	b = check_build(g, &s, make_ino(g, 0, 1), make_ino(g, 0, 2), &o);
	assert_int_equal(b.form, XFMT_DIR2_FORM_LEAF);
	assert_int_equal(b.ndata, 4);
	xfmt_dir2_build_release(&b);

	o = (struct xfmt_dir2_build_opts){ .form = XFMT_DIR2_FORM_NODE };
	b = check_build(g, &s, make_ino(g, 0, 1), make_ino(g, 0, 2), &o);
	assert_int_equal(b.form, XFMT_DIR2_FORM_NODE);
	assert_int_equal(b.nleaf, 1);     /* a lone leafN is the root */
	assert_int_equal(b.nnode, 0);
	xfmt_dir2_build_release(&b);

	o.leaf_blocks = 3;
	b = check_build(g, &s, make_ino(g, 0, 1), make_ino(g, 0, 2), &o);
	assert_int_equal(b.nleaf, 3);
	assert_int_equal(b.nnode, 1);
	xfmt_dir2_build_release(&b);

	o = (struct xfmt_dir2_build_opts){ .form = XFMT_DIR2_FORM_BLOCK };
	assert_int_equal(xfmt_dir2_build(g, make_ino(g, 0, 1), make_ino(g, 0, 2), s.e, s.n, &o, &b),
			 XFMT_DIRB_NOFIT);
	assert_null(b.blks);
	o = (struct xfmt_dir2_build_opts){ .data_blocks = 400 };   /* more than entries + 1 */
	assert_int_equal(xfmt_dir2_build(g, make_ino(g, 0, 1), make_ino(g, 0, 2), s.e, s.n, &o, &b),
			 XFMT_DIRB_NOFIT);
	o = (struct xfmt_dir2_build_opts){ .data_blocks = 1 };     /* too few */
	assert_int_equal(xfmt_dir2_build(g, make_ino(g, 0, 1), make_ino(g, 0, 2), s.e, s.n, &o, &b),
			 XFMT_DIRB_NOFIT);
	o = (struct xfmt_dir2_build_opts){ .form = XFMT_DIR2_FORM_NODE, .leaf_blocks = 323 };
	assert_int_equal(xfmt_dir2_build(g, make_ino(g, 0, 1), make_ino(g, 0, 2), s.e, s.n, &o, &b),
			 XFMT_DIRB_NOFIT);
	free_set(&s);

	/* A small set forced into leaf form keeps one data block. */
	s = make_set(g, 3, 0, 0);
	o = (struct xfmt_dir2_build_opts){ .form = XFMT_DIR2_FORM_LEAF };
	b = check_build(g, &s, make_ino(g, 0, 1), make_ino(g, 0, 2), &o);
	assert_int_equal(b.ndata, 1);
	xfmt_dir2_build_release(&b);
	free_set(&s);
}

/* Refusals: bad entries, duplicates, too many. */
static void test_refuse(void **state)
{
	const struct xfmt_geom *g = &dir_geom_v5;
	struct set s = make_set(g, 4, 0, 0);
	struct xfmt_dir2_build b;
	uint8_t fork[336];
	size_t size;
	uint64_t dir = make_ino(g, 0, 1), par = make_ino(g, 0, 2);
	static const uint8_t slash[] = "a/b", dot[] = "..", upper[] = "E1";

	(void)state;
	s.e[1].name = slash;
	s.e[1].namelen = 3;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_BADENT);
	assert_int_equal(xfmt_dir2_sf_encode(g, par, s.e, s.n, fork, sizeof(fork), &size),
			 XFMT_DIRB_BADENT);
	s.e[1].name = dot;
	s.e[1].namelen = 2;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_BADENT);
	s.e[1].namelen = 0;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_BADENT);
	s.e[1] = s.e[2];
	s.e[1].ino = 0;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_BADENT);
	s.e[1].ino = s.e[2].ino;
	s.e[1].ftype = XFS_DIR3_FT_MAX;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_BADENT);
	s.e[1].ftype = 1;
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_DUP);
	assert_int_equal(xfmt_dir2_sf_encode(g, par, s.e, s.n, fork, sizeof(fork), &size),
			 XFMT_DIRB_DUP);
	assert_int_equal(xfmt_dir2_build(g, 0, par, s.e, 0, NULL, &b), XFMT_DIRB_BADENT);
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, XFMT_DIR2_BUILD_MAX_ENTS + 1, NULL, &b),
			 XFMT_DIRB_TOOBIG);
	free_set(&s);

	/* ascii-ci: "E1" and "e1" are one name there, two elsewhere. */
	s = make_set(&dir_geom_ci, 3, 0, 0);
	s.e[2].name = upper;
	s.e[2].namelen = 2;
	assert_int_equal(xfmt_dir2_build(&dir_geom_ci, dir, par, s.e, s.n, NULL, &b), XFMT_DIRB_DUP);
	assert_int_equal(xfmt_dir2_build(g, dir, par, s.e, s.n, NULL, &b), 0);
	xfmt_dir2_build_release(&b);
	free_set(&s);
}

/* ------------------------------------------------------------ short form */

/* Decode a kernel-written short-form inode, re-encode its entries, compare the bytes. */
static void sf_roundtrip(const struct xfmt_geom *g, const uint8_t *ino, size_t lit)
{
	uint64_t di_size = xfmt_get_be64(ino + 56);
	uint8_t forkoff = ino[82];
	size_t forksize = forkoff ? (size_t)forkoff * 8 : g->inodesize - lit;
	const uint8_t *fork = ino + lit;
	struct xfmt_dir2_sf_hdr h;
	struct xfmt_dirent_in e[32];
	struct xfmt_dirent de;
	uint8_t out[2048];
	size_t pos = 0, n = 0, size;
	struct count_sink cs = { 0 };
	struct xprob_sink sink = { count_report, &cs };

	assert_int_equal(xfmt_dir2_sf_hdr_decode(fork, (size_t)di_size, &h), 0);
	while (xfmt_dir2_sf_next(fork, (size_t)di_size, g, &pos, &de) == 1) {
		assert_true(n < 32);
		e[n++] = (struct xfmt_dirent_in){ de.name, de.namelen, de.ino, de.ftype };
	}
	assert_int_equal(n, h.count);
	assert_int_equal(xfmt_dir2_sf_encode(g, h.parent, e, n, out, forksize, &size), 0);
	assert_int_equal(size, di_size);
	assert_memory_equal(out, fork, size);
	assert_int_equal(xfmt_dir2_sf_verify(out, forksize, size, g, &sink), 0);
	/* One byte short does not fit. */
	assert_int_equal(xfmt_dir2_sf_encode(g, h.parent, e, n, out, size - 1, &size),
			 XFMT_DIRB_NOFIT);
}

static void test_sf_kernel(void **state)
{
	(void)state;
	sf_roundtrip(&dir_geom_v5, fx_dir_v5_sf_ino, 176);
	sf_roundtrip(&dir_geom_v4, fx_dir_v4_sf_ino, 100);
	sf_roundtrip(&dir_geom_big, fx_dir_big_sf_ino, 176);     /* i8 */
}

/* Generated sets: fill the fork until the next entry does not fit. */
static void test_sf_sizes(void **state)
{
	(void)state;
	for (size_t k = 0; k < NGEOMS; k++) {
		const struct xfmt_geom *g = geoms[k];
		size_t room = g->inodesize - (g->v5 ? 176u : 100u), last = 0;
		struct set s = make_set(g, 100, 0, 0);
		uint8_t out[2048];

		for (size_t n = 0; n <= s.n; n++) {
			struct count_sink cs = { 0 };
			struct xprob_sink sink = { count_report, &cs };
			struct xfmt_dirent de;
			size_t size, pos = 0, got = 0;
			int rc = xfmt_dir2_sf_encode(g, make_ino(g, 0, 2), s.e, n, out, room, &size);

			if (rc == XFMT_DIRB_NOFIT) {
				assert_true(n > 0 && last > 0);
				break;
			}
			assert_int_equal(rc, 0);
			assert_true(size <= room && size > last);
			last = size;
			assert_int_equal(xfmt_dir2_sf_verify(out, room, size, g, &sink), 0);
			while (xfmt_dir2_sf_next(out, size, g, &pos, &de) == 1) {
				assert_memory_equal(de.name, s.e[got].name, de.namelen);
				assert_int_equal(de.ino, s.e[got].ino);
				assert_int_equal(de.ftype, xfmt_geom_has_ftype(g) ? s.e[got].ftype : 0);
				got++;
			}
			assert_int_equal(got, n);
		}
		free_set(&s);
	}
	/* i8: a large parent alone makes every number 8 bytes. */
	{
		const struct xfmt_geom *g = &dir_geom_big;
		struct set s = make_set(g, 2, 0, 0);
		struct xfmt_dir2_sf_hdr h;
		uint8_t out[336];
		size_t size;

		assert_int_equal(xfmt_dir2_sf_encode(g, make_ino(g, 2, 2), s.e, 2, out, sizeof(out),
						     &size), 0);
		assert_int_equal(xfmt_dir2_sf_hdr_decode(out, size, &h), 0);
		assert_int_equal(h.i8count, 1);
		assert_int_equal(size, XFMT_DIR2_SF_HDR8 + 2 * xfmt_dir2_sf_entsize(g, true, 2));
		free_set(&s);
	}
}

/* ------------------------------------------------------------------ seal */

static void test_seal(void **state)
{
	uint8_t blk[4096] = { 0 };

	(void)state;
	/* Unknown magic: refused, untouched. */
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v5, blk, sizeof(blk), 8, 128, 0), -1);
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v5, blk, 100, 8, 128, 0), -1);
	/* A kernel leaf block re-sealed where it was read gives the same bytes. */
	memcpy(blk, fx_dir_v5_leaf1, sizeof(blk));
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v5, blk, sizeof(blk), xfmt_get_be64(blk + 16),
					    xfmt_get_be64(blk + 48), xfmt_get_be64(blk + 24)), 0);
	assert_memory_equal(blk, fx_dir_v5_leaf1, sizeof(blk));
	memcpy(blk, fx_dir_v5_free, sizeof(blk));
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v5, blk, sizeof(blk), xfmt_get_be64(blk + 8),
					    xfmt_get_be64(blk + 40), xfmt_get_be64(blk + 16)), 0);
	assert_memory_equal(blk, fx_dir_v5_free, sizeof(blk));
	memcpy(blk, fx_dir_v5_danode, sizeof(blk));
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v5, blk, sizeof(blk), xfmt_get_be64(blk + 16),
					    xfmt_get_be64(blk + 48), xfmt_get_be64(blk + 24)), 0);
	assert_memory_equal(blk, fx_dir_v5_danode, sizeof(blk));
	/* v4 blocks have nothing to seal. */
	memcpy(blk, fx_dir_v4_data, sizeof(blk));
	assert_int_equal(xfmt_dir2_blk_seal(&dir_geom_v4, blk, sizeof(blk), 8, 128, 5), 0);
	assert_memory_equal(blk, fx_dir_v4_data, sizeof(blk));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_form_limits),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_deep_tree),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_sf_kernel),
		cmocka_unit_test(test_sf_sizes),
		cmocka_unit_test(test_seal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
