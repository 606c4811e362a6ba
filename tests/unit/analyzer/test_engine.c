/*
 * test_engine.c - the engine on real corpus images, through backends that
 * misbehave: unreadable sectors become findings and the run goes on; a
 * truncated image is reported; garbage is "not XFS"; nothing is ever written
 * (the image vtable has no write operation, and the faulty backend counts
 * every call it gets).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static const char *corpus_path(const char *name, char *buf, size_t len)
{
	const char *top = getenv("top_srcdir");

	snprintf(buf, len, "%s/corpus/images/%s.img.zst", top ? top : TOP_SRCDIR, name);
	return buf;
}

/* A backend that fails reads overlapping [bad_lo, bad_hi). */
struct faulty {
	struct ximg *inner;
	uint64_t     bad_lo, bad_hi;
	unsigned     failed;
};

static int faulty_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct faulty *f = img->priv;

	if (off < f->bad_hi && off + len > f->bad_lo) {
		f->failed++;
		snprintf(img->errmsg, sizeof(img->errmsg), "injected read error");
		return XERR_IO;
	}
	return ximg_pread(f->inner, buf, len, off);
}

static void faulty_release(struct ximg *img)
{
	struct faulty *f = img->priv;

	ximg_free(&f->inner);
	free(f);
}

static const struct ximg_ops faulty_ops = { "faulty", faulty_pread, faulty_release };

static struct ximg *open_faulty(const char *name, uint64_t lo, uint64_t hi, struct faulty **fp)
{
	char path[4096], err[256];
	struct ximg *inner = NULL, *img;
	struct faulty *f;

	assert_int_equal(ximg_open(corpus_path(name, path, sizeof(path)), NULL, &inner, err,
				   sizeof(err)), 0);
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->inner = inner;
	f->bad_lo = lo;
	f->bad_hi = hi;
	img = ximg_alloc(&faulty_ops, inner->size, "faulty");
	assert_non_null(img);
	img->priv = f;
	*fp = f;
	return img;
}

static uint64_t count_code(const struct xa_ctx *ctx, enum xprob_code code)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ctx->findings.count; i++)
		if (ctx->findings.items[i].p.code == code)
			n++;
	return n;
}

static void test_clean_image_no_findings(void **state)
{
	struct faulty *f;
	struct ximg *img = open_faulty("v5-normap", 0, 0, &f);
	struct xa_ctx ctx;

	(void)state;
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_CHECK), 0);
	assert_int_equal(ctx.geom_source, XA_GEOM_PRIMARY);
	assert_int_equal(ctx.findings.count, 0);
	assert_true(ctx.log_checked);
	assert_false(ctx.log_dirty);
	assert_true(ctx.nags > 1);
	for (uint32_t i = 0; i < ctx.nags; i++) {
		assert_true(ctx.ags[i].agf_ok && ctx.ags[i].agi_ok && ctx.ags[i].agfl_ok);
		assert_true(ctx.ags[i].bt[XA_BT_BNO].walked);
		assert_true(ctx.ags[i].bt[XA_BT_INO].walked);
	}
	assert_true(ctx.ags[0].inodes_checked >= 64);
	xa_ctx_release(&ctx);
}

/* AG 1's AGF sector cannot be read: one finding there, the rest checked. */
static void test_unreadable_agf(void **state)
{
	struct faulty *probe;
	struct ximg *img = open_faulty("v5-normap", 0, 0, &probe);
	struct xa_ctx ctx;
	uint64_t agf1;

	(void)state;
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_INFO), 0);
	agf1 = (uint64_t)ctx.geom.agblocks * ctx.geom.blocksize + ctx.geom.sectsize;
	xa_ctx_release(&ctx);

	img = open_faulty("v5-normap", agf1, agf1 + 1, &probe);
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_CHECK), 0);
	assert_true(probe->failed >= 1);
	assert_true(ctx.read_errors >= 1);
	assert_true(count_code(&ctx, XP_imageReadError) >= 1);
	assert_false(ctx.ags[1].agf_ok);
	assert_true(ctx.ags[0].agf_ok);
	assert_true(ctx.ags[2].agf_ok);
	assert_true(ctx.ags[2].bt[XA_BT_BNO].walked);
	xa_ctx_release(&ctx);
}

/* The root inode's chunk is unreadable: reported, other AGs' inodes checked. */
static void test_unreadable_inode_chunk(void **state)
{
	struct faulty *probe;
	struct ximg *img = open_faulty("v5-normap", 0, 0, &probe);
	struct xa_ctx ctx;
	uint64_t root;

	(void)state;
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_INFO), 0);
	root = xfmt_geom_ino_byte(&ctx.geom, ctx.sb.rootino);
	xa_ctx_release(&ctx);

	img = open_faulty("v5-normap", root, root + 1, &probe);
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_CHECK), 0);
	assert_true(count_code(&ctx, XP_imageReadError) >= 1);
	assert_true(ctx.read_errors >= 1);
	for (uint32_t i = 1; i < ctx.nags; i++)
		if (ctx.ags[i].nchunks)
			assert_true(ctx.ags[i].inodes_checked > 0);
	xa_ctx_release(&ctx);
}

/* Only the first 100 MiB of a 320 MiB filesystem: truncated, no crash. */
static void test_truncated_image(void **state)
{
	char path[4096], err[256];
	struct ximg *full = NULL, *cut = NULL;
	struct xa_ctx ctx;

	(void)state;
	assert_int_equal(ximg_open(corpus_path("v5-normap", path, sizeof(path)), NULL, &full,
				   err, sizeof(err)), 0);
	assert_int_equal(ximg_open_slice(full, 0, 100u << 20, &cut), 0);
	assert_int_equal(xa_ctx_open_img(&ctx, cut, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_CHECK), 0);
	assert_true(ctx.truncated);
	assert_int_equal(count_code(&ctx, XP_imageTruncated), 1);
	assert_true(ctx.nags < ctx.geom.agcount || ctx.read_errors > 0);
	xa_ctx_release(&ctx);
}

static void test_zeros_not_xfs(void **state)
{
	static uint8_t zeros[1 << 20];
	struct ximg *img = NULL;
	struct xa_ctx ctx;

	(void)state;
	assert_int_equal(ximg_open_mem(zeros, sizeof(zeros), 0, "zeros", &img), 0);
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_CHECK), XERR_NOTXFS);
	assert_int_equal(ctx.geom_source, XA_GEOM_NONE);
	assert_int_equal(count_code(&ctx, XP_sbBadMagic), 1);
	xa_ctx_release(&ctx);
}

struct missing_log {
	uint64_t off[8], len[8];
	unsigned n;
};

static void log_missing(void *arg, uint64_t off, uint64_t len)
{
	struct missing_log *m = arg;

	if (m->n < 8) {
		m->off[m->n] = off;
		m->len[m->n] = len;
	}
	m->n++;
}

/*
 * A file whose second block sits on an unreadable sector: the read returns
 * the other bytes, zeros in that block, and names exactly that byte range.
 */
static void test_file_read_names_missing_range(void **state)
{
	struct faulty *probe;
	struct ximg *img = open_faulty("v5-normap", 0, 0, &probe);
	struct xa_ctx ctx;
	struct xa_inode ip;
	struct xa_extents ex;
	struct missing_log m = { { 0 }, { 0 }, 0 };
	uint8_t *good, *got;
	uint64_t ino, bad, bs;
	char err[256];
	const struct xfmt_bmbt_rec *r;

	(void)state;
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_INFO), 0);
	assert_int_equal(xa_path_resolve(&ctx, "/home/user/notes.txt", &ino, err, sizeof(err)), 0);
	assert_int_equal(xa_inode_read(&ctx, ino, &ip), 0);
	assert_int_equal(ip.d.size, 70000);
	assert_int_equal(xa_extents_load(&ctx, &ip, XA_DATA_FORK, &ex), 0);
	bs = ctx.geom.blocksize;
	good = malloc(ip.d.size);
	got = malloc(ip.d.size);
	assert_non_null(good);
	assert_non_null(got);
	assert_int_equal(xa_file_pread(&ctx, &ex, good, ip.d.size, 0, log_missing, &m), 0);
	assert_int_equal(m.n, 0);
	r = xa_extents_find(&ex, 1);
	assert_non_null(r);
	bad = xfmt_geom_fsb_byte(&ctx.geom, r->startblock + (1 - r->startoff));
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	xa_ctx_release(&ctx);

	img = open_faulty("v5-normap", bad, bad + 1, &probe);
	assert_int_equal(xa_ctx_open_img(&ctx, img, NULL), 0);
	assert_int_equal(xa_run(&ctx, XA_RUN_INFO), 0);
	assert_int_equal(xa_inode_read(&ctx, ino, &ip), 0);
	assert_int_equal(xa_extents_load(&ctx, &ip, XA_DATA_FORK, &ex), 0);
	assert_int_equal(xa_file_pread(&ctx, &ex, got, ip.d.size, 0, log_missing, &m), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.off[0], bs);
	assert_int_equal(m.len[0], bs);
	assert_memory_equal(got, good, bs);
	assert_memory_equal(got + 2 * bs, good + 2 * bs, ip.d.size - 2 * bs);
	for (uint64_t i = bs; i < 2 * bs; i++)
		assert_int_equal(got[i], 0);
	free(good);
	free(got);
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	xa_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_image_no_findings),
		cmocka_unit_test(test_unreadable_agf),
		cmocka_unit_test(test_unreadable_inode_chunk),
		cmocka_unit_test(test_truncated_image),
		cmocka_unit_test(test_zeros_not_xfs),
		cmocka_unit_test(test_file_read_names_missing_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
