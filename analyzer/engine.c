/*
 * engine.c - the analyzer context: open an image, run the ordered passes,
 * release everything.
 *
 * Pass order matters and each pass leaves state for the next:
 *   superblocks  geometry (primary, or a recorded vote of the secondaries)
 *   log          head and tail found: clean or dirty; a dirty log is
 *                replayed into an overlay and every later read goes through
 *                it (the superblocks are then read again, as replayed)
 *   ag-headers   AGF/AGI/AGFL of every AG decoded and verified
 *   btrees       every AG btree walked; free-space and inode records kept
 *   inodes       every inode chunk named by the inobt read and verified
 *   ownership    forward ownership vs the rmapbt and free space (check/)
 *   counters     header counters compared with what the walks counted
 * A pass that cannot run (no geometry) is skipped; findings never stop a run,
 * only an operational error (out of memory) does.
 */
#include "analyzer/engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/lsn_order.h"
#include "analyzer/check/ownership.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/overlay.h"
#include "analyzer/scan/passes.h"

#define XA_DEFAULT_CACHE_BYTES (256u << 20)

/* Room for one more chunk record at the end of ag->chunks; NULL when out
 * of memory. */
struct xa_ichunk *xa_ag_chunk_append(struct xa_ag *ag)
{
	if (ag->nchunks == ag->chunks_cap) {
		size_t ncap = ag->chunks_cap ? ag->chunks_cap * 2 : 64;
		struct xa_ichunk *n = realloc(ag->chunks, ncap * sizeof(*n));

		if (!n)
			return NULL;
		ag->chunks = n;
		ag->chunks_cap = ncap;
	}
	return &ag->chunks[ag->nchunks++];
}

void xa_ag_release(struct xa_ag *ag)
{
	free(ag->chunks);
	ag->chunks = NULL;
	ag->nchunks = ag->chunks_cap = 0;
	xa_bitmap_release(&ag->claimed);
}

int xa_ctx_open_img(struct xa_ctx *ctx, struct ximg *img, const struct xa_options *opts)
{
	size_t cache_bytes;
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	xa_findings_init(&ctx->findings);
	ctx->image_path = img->name;
	if (opts)
		ctx->opts = *opts;
	cache_bytes = ctx->opts.cache_bytes ? (size_t)ctx->opts.cache_bytes
					    : XA_DEFAULT_CACHE_BYTES;
	rc = xcache_new(img, cache_bytes, &ctx->cache);
	if (rc)
		return rc;
	ctx->img = img;
	ctx->input = img;
	ctx->image_size = img->size;
	return 0;
}

int xa_ctx_use_overlay(struct xa_ctx *ctx, struct ximg_overlay *ov)
{
	struct xcache *cache = NULL;
	struct ximg *view = NULL;
	size_t cache_bytes = ctx->opts.cache_bytes ? (size_t)ctx->opts.cache_bytes
						   : XA_DEFAULT_CACHE_BYTES;
	int rc;

	if (ctx->overlay)
		return XERR_USAGE;
	rc = ximg_open_overlay(xa_base_image(ctx), ov, &view);
	if (!rc)
		rc = xcache_new(view, cache_bytes, &cache);
	if (rc) {
		ximg_free(&view);
		return rc;
	}
	xcache_free(&ctx->cache);
	ctx->cache = cache;
	ctx->img = view;
	ctx->overlay = ov;
	return 0;
}

int xa_ctx_use_zero_tail(struct xa_ctx *ctx, uint64_t size)
{
	struct xcache *cache = NULL;
	struct ximg *view = NULL;
	size_t cache_bytes = ctx->opts.cache_bytes ? (size_t)ctx->opts.cache_bytes
						   : XA_DEFAULT_CACHE_BYTES;
	int rc;

	/* Before the log pass: an overlay is made over the view, not under it. */
	if (ctx->tail || ctx->overlay)
		return XERR_USAGE;
	rc = ximg_open_zero_tail(ctx->input, size, &view);
	if (!rc)
		rc = xcache_new(view, cache_bytes, &cache);
	if (rc) {
		ximg_free(&view);
		return rc;
	}
	xcache_free(&ctx->cache);
	ctx->cache = cache;
	ctx->img = view;
	ctx->tail = view;
	ctx->image_size = size;
	return 0;
}

int xa_ctx_open(struct xa_ctx *ctx, const char *path,
		const struct ximg_open_opts *io, const struct xa_options *opts,
		char *err, size_t errlen)
{
	struct ximg *img = NULL;
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	rc = ximg_open(path, io, &img, err, errlen);
	if (rc)
		return rc;
	rc = xa_ctx_open_img(ctx, img, opts);
	if (rc) {
		snprintf(err, errlen, "%s: cannot set up the block cache: %s", path, xerr_str(rc));
		ximg_free(&img);
		return rc;
	}
	ctx->image_path = path;
	return 0;
}

void xa_ctx_release(struct xa_ctx *ctx)
{
	if (ctx->ags) {
		for (uint32_t i = 0; i < ctx->nags; i++)
			xa_ag_release(&ctx->ags[i]);
	}
	free(ctx->ags);
	ctx->ags = NULL;
	free(ctx->irecs);
	ctx->irecs = NULL;
	ctx->nirecs = ctx->irecs_cap = 0;
	xa_own_free(&ctx->own);
	xcache_free(&ctx->cache);
	if (ctx->img != ctx->input && ctx->img != ctx->tail)
		ximg_free(&ctx->img);
	ximg_free(&ctx->tail);
	ximg_free(&ctx->input);
	ctx->img = NULL;
	ximg_overlay_free(&ctx->overlay);
	xa_findings_release(&ctx->findings);
}

int xa_read(struct xa_ctx *ctx, uint64_t off, size_t len, struct xbuf **out,
	    const struct xa_loc *loc)
{
	int rc = xcache_read(ctx->cache, off, len, out);

	if (rc == 0 || rc == XERR_NOMEM)
		return rc;
	ctx->read_errors++;
	{
		struct xprob p = {
			.code = XP_imageReadError,
			.has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED | XPROB_HAS_BYTE,
			.off = off, .byte = off, .observed = len,
		};
		xa_findings_add(&ctx->findings, &p, loc);
	}
	return rc;
}

void xa_put(struct xa_ctx *ctx, struct xbuf **b)
{
	xcache_release(ctx->cache, b);
}

struct xa_irec *xa_irec_find(struct xa_ctx *ctx, uint64_t ino)
{
	size_t lo = 0, hi = ctx->nirecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->irecs[mid].ino == ino)
			return &ctx->irecs[mid];
		if (ctx->irecs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void xa_report(struct xa_ctx *ctx, const struct xa_loc *loc, enum xprob_code code,
	       const char *field, uint64_t expected, uint64_t observed, unsigned has)
{
	struct xprob p = {
		.code = code, .has = has, .field = field,
		.expected = expected, .observed = observed,
	};

	xa_findings_add(&ctx->findings, &p, loc);
}

/*
 * The log was replayed: the superblocks may have changed with it, so the
 * superblock pass runs again over the replayed image.  Its first findings
 * and results are dropped; the log pass's findings are kept.
 */
static int reread_superblocks(struct xa_ctx *ctx, size_t nsb)
{
	struct xa_findings keep;

	/* Findings before nsb are the first superblock pass's. */
	xa_findings_init(&keep);
	for (size_t i = nsb; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		struct xa_loc loc = { 0, 0, 0, 0, 0, f->what };

		xa_findings_add(&keep, &f->p, &loc);
	}
	xa_findings_release(&ctx->findings);
	ctx->findings = keep;
	if (ctx->ags) {
		for (uint32_t i = 0; i < ctx->nags; i++)
			xa_ag_release(&ctx->ags[i]);
	}
	free(ctx->ags);
	ctx->ags = NULL;
	ctx->nags = 0;
	ctx->ags_in_image = 0;
	memset(&ctx->sb, 0, sizeof(ctx->sb));
	memset(&ctx->geom, 0, sizeof(ctx->geom));
	ctx->sb_primary_ok = false;
	ctx->geom_source = XA_GEOM_NONE;
	ctx->sb_votes_for = ctx->sb_votes_total = 0;
	ctx->truncated = false;
	return xa_pass_superblocks(ctx);
}

static const struct xa_pass xa_passes[] = {
	{ "superblocks", xa_pass_superblocks, XA_RUN_INFO | XA_RUN_CHECK },
	{ "log",         xa_pass_log,         XA_RUN_INFO | XA_RUN_CHECK },
	{ "ag-headers",  xa_pass_ag_headers,  XA_RUN_INFO | XA_RUN_CHECK },
	{ "btrees",      xa_pass_btrees,      XA_RUN_CHECK },
	{ "inodes",      xa_pass_inodes,      XA_RUN_CHECK },
	{ "ownership",   xa_pass_ownership,   XA_RUN_CHECK },
	{ "counters",    xa_pass_counters,    XA_RUN_CHECK },
	{ "namespace",   xa_pass_namespace,   XA_RUN_CHECK },
	{ "lsn-order",   xa_pass_lsn_order,   XA_RUN_CHECK },
};

int xa_run(struct xa_ctx *ctx, unsigned mode)
{
	size_t nsb = 0;

	for (size_t i = 0; i < sizeof(xa_passes) / sizeof(xa_passes[0]); i++) {
		const struct xa_pass *p = &xa_passes[i];
		int rc;

		if (!(p->modes & mode))
			continue;
		/* Without a geometry only the superblock pass can say anything. */
		if (i > 0 && ctx->geom_source == XA_GEOM_NONE)
			break;
		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, p->name, UINT32_MAX, ctx->nags);
		if (p->run == xa_pass_log)
			nsb = ctx->findings.count;
		rc = p->run(ctx);
		if (rc < 0)
			return rc;
		if (p->run == xa_pass_log && ctx->overlay) {
			rc = reread_superblocks(ctx, nsb);
			if (rc < 0)
				return rc;
		}
	}
	xa_findings_sort(&ctx->findings);
	return 0;
}
