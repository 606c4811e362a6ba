/*
 * fuzz_image.c - libFuzzer target for the whole analyzer: the input is an
 * entire filesystem image and the full `check` runs over it, then every
 * report and view renders it.
 *
 * Input, two forms:
 *  - the compact container of sparse_image.h: the non-zero bytes of a small
 *    mkfs image (made by tests/fuzz/make-seeds.sh).  Why: mkfs images are
 *    tens to hundreds of megabytes but hold a few kilobytes of metadata;
 *    listing only those keeps inputs small enough for libFuzzer while the
 *    geometry (AG count and size, log position) stays that of a real
 *    filesystem, so the passes get past the superblock vote and reach the AG
 *    headers, btree walks, inode chunks, log and counters.  A mutation of a
 *    record header moves, resizes or duplicates one piece of metadata.
 *    The image is served by a sparse in-memory backend written here (the
 *    records are never expanded, so a 1 GiB image costs nothing) and handed
 *    to xa_ctx_open_img after the same partition-table step ximg_open takes
 *    (a GPT or MBR in front of the filesystem is found and sliced).
 *  - anything else is the raw image: it is written to a memfd and opened by
 *    path with xa_ctx_open, which adds the file-type detection (raw, zstd).
 *
 * After the run: the text findings and info reports, the XML report (to
 * /dev/null) and `show` of the primary headers, the root inode (and its
 * attr fork), two btree roots and one block read as attr, symlink and
 * directory block are rendered, since they read every finding and header
 * field; the block-ownership map is drawn (SVG of every AG, HTML of one AG
 * zoomed, both to /dev/null) so hostile owner records, marks and paths
 * reach the grid and the drawing; then the file views walk the namespace:
 * `ls -lR --deleted /`, `bodyfile`, `stat` and `cat` of a few inodes, and
 * `extract /` into a scratch directory.  Extraction is checked to have written nothing beside its
 * destination (rule 1: we write only where the user said), then removed.
 * Last, the repair is planned (a dry run: nothing is written) and its
 * report rendered; an answer outside the actions table (a finding tied to
 * an action whose row lacks its fix class) is a failure, as in the shell
 * tests' strict runs.  File size is capped (RLIMIT_FSIZE, SIGXFSZ ignored) so that a hostile
 * image cannot fill the disk through extract, and `cat` writes into a stream
 * that fails after FZ_CAT_LIMIT bytes: a file may legally claim an exabyte
 * of holes, and cat is meant to stop at the first write error.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/partition.h"
#include "cli/views/report_text.h"
#include "analyzer/report/report_xml.h"
#include "cli/views/bodyfile.h"
#include "cli/views/extract.h"
#include "cli/views/files.h"
#include "cli/views/log_events.h"
#include "cli/views/ls.h"
#include "cli/views/ncheck.h"
#include "cli/views/owner.h"
#include "cli/views/map.h"
#include "cli/views/show.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair.h"
#include "reconstruct/repair_report.h"
#include "tests/fuzz/harness.h"
#include "tests/fuzz/sparse_image.h"

/* Bounded like a default run but smaller, so a fuzzing process stays lean. */
#define FZ_CACHE_BYTES (8u << 20)
/* Largest file extract may write while fuzzing. */
#define FZ_FSIZE_LIMIT (256ull << 20)
/* Bytes cat may write before its output stream fails. */
#define FZ_CAT_LIMIT   (4u << 20)

static int fz_memfd = -1;
static char fz_path[64];
static FILE *fz_null;
static char fz_xroot[64];      /* scratch parent of the extract destination */
static char fz_xdest[96];

/* ------------------------------------------------ sparse in-memory backend */

struct fz_piece {
	uint64_t       off;
	const uint8_t *src;   /* NULL: fill */
	uint8_t        fill;
	size_t         len;
};

/*
 * Reads look pieces up through `order` (piece numbers sorted by offset):
 * every block of the image is read when the inode btrees are gone and the
 * check scans for inode chunks, and a scan of every piece per read made such
 * inputs take a minute under coverage instrumentation.
 */
struct fz_sparse {
	struct fz_piece *pieces;
	size_t           n, cap;
	size_t          *order;
	size_t           maxlen;  /* longest piece: how far back a read looks */
};

static int collect_piece(void *arg, uint64_t off, const uint8_t *src, uint8_t fill, size_t len)
{
	struct fz_sparse *s = arg;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct fz_piece *p = realloc(s->pieces, cap * sizeof(*p));

		if (!p)
			fz_fail("out of memory", cap, 0);
		s->pieces = p;
		s->cap = cap;
	}
	s->pieces[s->n++] = (struct fz_piece){ off, src, fill, len };
	if (len > s->maxlen)
		s->maxlen = len;
	return 0;
}

static const struct fz_piece *sort_pieces;

/* By offset, then by position in the input, so equal starts keep their order. */
static int cmp_piece_off(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t ox = sort_pieces[x].off, oy = sort_pieces[y].off;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void index_pieces(struct fz_sparse *s)
{
	if (!s->n)
		return;
	s->order = malloc(s->n * sizeof(*s->order));
	if (!s->order)
		fz_fail("out of memory", s->n, 0);
	for (size_t i = 0; i < s->n; i++)
		s->order[i] = i;
	sort_pieces = s->pieces;
	qsort(s->order, s->n, sizeof(*s->order), cmp_piece_off);
}

/* First position in s->order whose piece starts at or after off. */
static size_t first_at_or_after(const struct fz_sparse *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pieces[s->order[mid]].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int sparse_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	const struct fz_sparse *s = img->priv;
	uint8_t *out = buf;

	if (off > img->size || len > img->size - off)
		return XERR_RANGE;
	memset(out, 0, len);
	if (!s->n)
		return 0;
	/* Candidates start within maxlen before the read and before its end. */
	size_t lo = first_at_or_after(s, off > s->maxlen ? off - s->maxlen : 0);
	size_t hi = first_at_or_after(s, off + len);
	size_t stackbuf[64], *hits = stackbuf, k = 0;

	if (hi - lo > sizeof(stackbuf) / sizeof(stackbuf[0])) {
		hits = malloc((hi - lo) * sizeof(*hits));
		if (!hits)
			fz_fail("out of memory", hi - lo, 0);
	}
	for (size_t j = lo; j < hi; j++) {
		const struct fz_piece *p = &s->pieces[s->order[j]];

		if (p->off + p->len > off)
			hits[k++] = s->order[j];
	}
	/* Later pieces overwrite earlier ones, as the container says. */
	qsort(hits, k, sizeof(*hits), cmp_index);
	for (size_t j = 0; j < k; j++) {
		const struct fz_piece *p = &s->pieces[hits[j]];
		uint64_t a = p->off > off ? p->off : off;
		uint64_t b = p->off + p->len < off + len ? p->off + p->len : off + len;

		if (p->src)
			memcpy(out + (a - off), p->src + (a - p->off), (size_t)(b - a));
		else
			memset(out + (a - off), p->fill, (size_t)(b - a));
	}
	if (hits != stackbuf)
		free(hits);
	return 0;
}

static void sparse_release(struct ximg *img)
{
	struct fz_sparse *s = img->priv;

	free(s->pieces);
	free(s->order);
	free(s);
	img->priv = NULL;
}

static const struct ximg_ops sparse_ops = { "fuzz-sparse", sparse_pread, sparse_release };

/* The container as an image, with a partition table resolved as ximg_open does. */
static struct ximg *open_sparse(const uint8_t *data, size_t size)
{
	struct fz_sparse *s = calloc(1, sizeof(*s));
	struct ximg *img, *sl = NULL;
	struct xpart part;
	uint64_t imgsize = 0;
	uint8_t magic[4];
	char err[256];

	if (!s)
		fz_fail("out of memory", 0, 0);
	fzi_parse(data, size, &imgsize, collect_piece, s);
	index_pieces(s);
	img = ximg_alloc(&sparse_ops, imgsize, "fuzz-image");
	if (!img)
		fz_fail("out of memory", 0, 0);
	img->priv = s;
	if (ximg_pread(img, magic, 4, 0) == 0 && !memcmp(magic, "XFSB", 4))
		return img;
	if (xpart_find_xfs(img, 0, &part, err, sizeof(err)) != 0)
		return img;  /* no table: the analyzer looks for secondaries */
	if (ximg_open_slice(img, part.start, part.length, &sl) != 0) {
		ximg_free(&img);
		return NULL;
	}
	return sl;
}

/* ------------------------------------------------------------ memfd path */

static int emit_memfd(void *arg, uint64_t off, const uint8_t *src, uint8_t fill, size_t len)
{
	(void)arg;
	(void)fill;
	if (pwrite(fz_memfd, src, len, (off_t)off) != (ssize_t)len)
		fz_fail("pwrite to the memfd failed", off, len);
	return 0;
}

static int open_raw(const uint8_t *data, size_t size, struct xa_ctx *ctx,
		    const struct xa_options *opts)
{
	uint64_t imgsize = 0;
	char err[512];

	if (fz_memfd < 0) {
		fz_memfd = memfd_create("fuzz_image", MFD_CLOEXEC);
		if (fz_memfd < 0)
			fz_fail("memfd_create failed", 0, 0);
		snprintf(fz_path, sizeof(fz_path), "/proc/self/fd/%d", fz_memfd);
	}
	if (ftruncate(fz_memfd, 0) != 0)
		fz_fail("ftruncate of the memfd failed", 0, 0);
	fzi_parse(data, size, &imgsize, emit_memfd, NULL);
	if (ftruncate(fz_memfd, (off_t)imgsize) != 0)
		fz_fail("ftruncate of the memfd failed", imgsize, 0);
	return xa_ctx_open(ctx, fz_path, NULL, opts, err, sizeof(err));
}

/* ------------------------------------------------------------ extraction */

static void remove_xroot(void)
{
	rmdir(fz_xdest);
	rmdir(fz_xroot);
}

static void setup(void)
{
	struct rlimit rl = { FZ_FSIZE_LIMIT, FZ_FSIZE_LIMIT };

	if (fz_null)
		return;
	fz_null = fopen("/dev/null", "w");
	if (!fz_null)
		fz_fail("cannot open /dev/null", 0, 0);
	/* A write past the cap fails with EFBIG instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		fz_fail("cannot cap the file size", 0, 0);
	snprintf(fz_xroot, sizeof(fz_xroot), "%s/xfz-extract.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(fz_xroot))
		fz_fail("cannot make the extract scratch directory", 0, 0);
	snprintf(fz_xdest, sizeof(fz_xdest), "%s/dest", fz_xroot);
	atexit(remove_xroot);
}

static int open_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	/* Pre-order: a directory is opened up before nftw reads it. */
	if ((flag == FTW_D || flag == FTW_DNR) && (st->st_mode & 0700) != 0700)
		chmod(path, 0700);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	if (f->level > 0 && remove(path) != 0)
		fz_fail("cannot clean up an extracted file", (unsigned long long)f->level, 0);
	return 0;
}

static void extract_all(struct xa_ctx *ctx)
{
	struct xc_extract_opts o = { .dest = fz_xdest, .deleted = true };
	struct xc_extract_stats st;
	struct dirent *e;
	DIR *d;

	if (mkdir(fz_xdest, 0700) != 0)
		fz_fail("cannot make the extract destination", 0, 0);
	memset(&st, 0, sizeof(st));
	xc_cmd_extract(ctx, "/", &o, &st, fz_null);
	/* Directories may come out with the image's modes (0000 even):
	 * open them up, then remove everything below the destination. */
	nftw(fz_xdest, open_entry, 16, FTW_PHYS);
	nftw(fz_xdest, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (rmdir(fz_xdest) != 0)
		fz_fail("cannot clean up the extract destination", 0, 0);
	/* Nothing may exist beside the destination. */
	d = opendir(fz_xroot);
	if (!d)
		fz_fail("extract scratch directory vanished", 0, 0);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			fprintf(stderr, "extract created %s/%s\n", fz_xroot, e->d_name);
			fz_fail("extract wrote outside its destination", 0, 0);
		}
	}
	closedir(d);
}

static ssize_t capped_write(void *cookie, const char *buf, size_t len)
{
	size_t *left = cookie;

	(void)buf;
	if (len > *left) {
		errno = EFBIG;
		return -1;
	}
	*left -= len;
	return (ssize_t)len;
}

/* cat of one inode into a stream that refuses more than FZ_CAT_LIMIT bytes. */
static void cat_capped(struct xa_ctx *ctx, const char *target)
{
	static const cookie_io_functions_t io = { NULL, capped_write, NULL, NULL };
	size_t left = FZ_CAT_LIMIT;
	FILE *out = fopencookie(&left, "w", io);

	if (!out)
		fz_fail("fopencookie failed", 0, 0);
	xc_cmd_cat(ctx, target, out, fz_null);
	fclose(out);
}

static void file_views(struct xa_ctx *ctx)
{
	struct xc_ls_opts lo = { true, true, true, false };
	char ino[24];

	struct xc_owner_range r = { 0, 0, 256 };
	struct xc_owner_stats os = { 0 };
	uint64_t inos[3] = { ctx->sb.rootino, ctx->sb.rootino + 3, 1ull << 40 };

	xc_cmd_ls(ctx, "/", &lo, fz_null, fz_null);
	xc_cmd_ls_orphans(ctx, &lo, fz_null, fz_null);
	xc_cmd_bodyfile(ctx, true, fz_null, fz_null);
	xc_cmd_ncheck(ctx, NULL, 0, fz_null, fz_null);
	xc_cmd_ncheck(ctx, inos, 3, fz_null, fz_null);
	if (ctx->nags)
		xc_cmd_owner(ctx, &r, 1, true, &os, fz_null, fz_null);
	xc_cmd_log_events(ctx, NULL, XC_LOG_TEXT, fz_null, fz_null);
	xc_cmd_stat(ctx, "/", fz_null, fz_null);
	for (unsigned i = 0; i < 4; i++) {
		snprintf(ino, sizeof(ino), "%" PRIu64, ctx->sb.rootino + i);
		xc_cmd_stat(ctx, ino, fz_null, fz_null);
		cat_capped(ctx, ino);
	}
	extract_all(ctx);
}

/* -------------------------------------------------------------- the run */

static void show(struct xa_ctx *ctx, const char *what, uint64_t a, uint64_t b, int nargs)
{
	char s1[24], s2[24];
	char *argv[3] = { (char *)(uintptr_t)what, s1, s2 };

	snprintf(s1, sizeof(s1), "%" PRIu64, a);
	snprintf(s2, sizeof(s2), "%" PRIu64, b);
	xc_show(fz_null, fz_null, ctx, nargs, argv, (a & 1) != 0);
}

/* The whole-structure views, in text and JSON: bounded on any image. */
static void show_views(struct xa_ctx *ctx, uint32_t last)
{
	static const char *const trees[] = { "bnobt", "cntbt", "inobt", "finobt", "rmapbt",
					     "refcountbt" };
	struct xc_show_opts so = { false, true, NULL, "fuzz" };
	char ag[24], blk[48];
	char *argv[3];

	snprintf(ag, sizeof(ag), "%" PRIu32, last);
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		argv[0] = (char *)(uintptr_t)"btree";
		argv[1] = ag;
		argv[2] = (char *)(uintptr_t)trees[i];
		so.json = (i & 1) != 0;
		xc_show_cmd(fz_null, fz_null, ctx, 3, argv, &so);
	}
	argv[0] = (char *)(uintptr_t)"dir";
	argv[1] = (char *)(uintptr_t)"/";
	xc_show_cmd(fz_null, fz_null, ctx, 2, argv, &so);
	argv[0] = (char *)(uintptr_t)"path";
	argv[1] = (char *)(uintptr_t)"/lost+found/x";
	xc_show_cmd(fz_null, fz_null, ctx, 2, argv, &so);
	argv[0] = (char *)(uintptr_t)"log";
	xc_show_cmd(fz_null, fz_null, ctx, 1, argv, &so);
	snprintf(blk, sizeof(blk), "%" PRIu64, ctx->sb.rootino);
	argv[0] = (char *)(uintptr_t)"attr";
	argv[1] = blk;
	xc_show_cmd(fz_null, fz_null, ctx, 2, argv, &so);
	if (ctx->nags && ctx->ags[0].agf_ok) {
		/* One block read by its magic, then as each kind of fork block it is not. */
		static const char *const as[] = { NULL, "attr3", "symlink", "dir3" };

		snprintf(blk, sizeof(blk), "0/%" PRIu32, ctx->ags[0].agf.cnt_root);
		argv[0] = (char *)(uintptr_t)"block";
		argv[1] = blk;
		for (size_t i = 0; i < sizeof(as) / sizeof(as[0]); i++) {
			so.as = as[i];
			so.json = (i & 1) == 0;
			xc_show_cmd(fz_null, fz_null, ctx, 2, argv, &so);
		}
		so.as = NULL;
	}
}

/*
 * `map`: the overview as SVG and the last AG zoomed as HTML, each built in
 * memory and written to /dev/null (it exists, hence force; it is no regular
 * file, so the writer does not truncate it).
 */
static void draw_maps(struct xa_ctx *ctx, uint32_t last)
{
	struct xc_map_opts mo = { "/dev/null", false, true, false, false, 0 };

	xc_cmd_map(ctx, &mo, fz_null);
	mo.html = true;
	mo.one_ag = true;
	mo.forward = true;
	mo.ag = last;
	xc_cmd_map(ctx, &mo, fz_null);
}

static void render(struct xa_ctx *ctx)
{
	char err[256];
	uint32_t last = ctx->geom.agcount ? ctx->geom.agcount - 1 : 0;

	xc_report_text_findings(fz_null, ctx);
	xc_report_text_info(fz_null, ctx);
	xa_report_xml_write(ctx, "/dev/null", err, sizeof(err));
	if (ctx->geom_source == XA_GEOM_NONE)
		return;
	show(ctx, "sb", 0, 0, 2);
	show(ctx, "agf", last, 0, 2);
	show(ctx, "agi", 0, 0, 2);
	show(ctx, "agfl", 0, 0, 2);
	show(ctx, "inode", ctx->sb.rootino, 0, 2);
	if (ctx->nags && ctx->ags[0].agf_ok)
		show(ctx, "btree", 0, ctx->ags[0].agf.bno_root, 3);
	if (ctx->nags && ctx->ags[0].agi_ok)
		show(ctx, "btree", 0, ctx->ags[0].agi.root, 3);
	show_views(ctx, last);
	draw_maps(ctx, last);
	file_views(ctx);
}

/*
 * A dry-run repair: the whole planner (inodes, namespace, lost+found, AG
 * rebuilds, superblocks, a discarded log) over whatever the check found,
 * its writes held in the plan, and the repair report rendered.
 */
static void plan_repair(struct xa_ctx *ctx)
{
	struct xr_repair_opts ro = { true };
	struct xr_repair_summary sum;
	struct xr_report_info ri;
	struct xr_plan plan;
	char err[256] = "";

	if (ctx->geom_source == XA_GEOM_NONE)
		return;
	xr_plan_init(&plan);
	if (xr_repair_plan(ctx, &ro, &plan, &sum, err, sizeof(err)) == 0) {
		if (plan.mismatch.count)
			fz_fail("an answer outside the actions table (action, finding code)",
				plan.mismatch.action, (unsigned long long)plan.mismatch.code);
		memset(&ri, 0, sizeof(ri));
		ri.result = "planned";
		xr_repair_report_write(ctx, &plan, &sum, &ri, "/dev/null", err, sizeof(err));
	}
	xr_plan_release(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xa_options opts = { 0 };
	struct xa_ctx ctx;
	int rc;

	if (size > (1u << 20))
		return 0;
	setup();
	opts.cache_bytes = FZ_CACHE_BYTES;
	opts.keep_ownership = true;
	if (size >= FZI_HDR_LEN && !memcmp(data, FZI_MAGIC, 4)) {
		struct ximg *img = open_sparse(data, size);

		if (!img)
			return 0;
		rc = xa_ctx_open_img(&ctx, img, &opts);
		if (rc) {
			ximg_free(&img);
			return 0;
		}
	} else if (open_raw(data, size, &ctx, &opts) != 0) {
		return 0;
	}
	if (xa_run(&ctx, XA_RUN_CHECK) == 0) {
		render(&ctx);
		plan_repair(&ctx);
	}
	xa_ctx_release(&ctx);
	return 0;
}
