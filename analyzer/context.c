/*
 * context.c - the analyzer context every pass shares: opened on an image,
 * switched to a view (a zeroed tail for a short image, a replayed log's
 * overlay), its per-AG chunk lists and inode records, released at the end.
 * The passes use it; engine.c runs them over it.
 */
#include "analyzer/engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/check/ownership.h"
#include "analyzer/errors.h"
#include "analyzer/io/cache.h"
#include "analyzer/io/image.h"
#include "analyzer/io/overlay.h"

/*
 * The block cache's bound when the user names none: a 256th of the image,
 * between 32 and 256 MiB.  Almost every block a check reads is read once
 * (inode clusters, directory blocks); what is read again is a btree's upper
 * levels and a directory's index, which a few MiB hold.  A larger cache only
 * keeps blocks nobody asks for again, and each new buffer is fresh memory to
 * fault in: on a million-inode image 256 MiB made check slower, not faster.
 * The floor keeps room for what one walk holds referenced at once.
 */
#define XA_CACHE_MIN_BYTES ((uint64_t)32 << 20)
#define XA_CACHE_MAX_BYTES ((uint64_t)256 << 20)

unsigned xa_jobs(const struct xa_ctx *ctx)
{
	long n;

	if (ctx->opts.jobs)
		return ctx->opts.jobs;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
}

static size_t cache_bytes_for(const struct xa_ctx *ctx, uint64_t image_size)
{
	uint64_t b = image_size / 256;

	if (ctx->opts.cache_bytes)
		return (size_t)ctx->opts.cache_bytes;
	return (size_t)(b < XA_CACHE_MIN_BYTES ? XA_CACHE_MIN_BYTES
		       : b > XA_CACHE_MAX_BYTES ? XA_CACHE_MAX_BYTES : b);
}

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

/* Index of ino's record in ctx->irecs (sorted), or nirecs.  The record
 * at hint and the one after it are tried first: a directory's entries
 * mostly name inodes made one after the other, so a walk of the tree asks
 * for neighbours (a binary search of a million records each time was a
 * twentieth of a check). */
static size_t irec_index(const struct xa_ctx *ctx, uint64_t ino, size_t hint)
{
	size_t lo = 0, hi = ctx->nirecs;

	if (hint < hi && ctx->irecs[hint].ino == ino)
		return hint;
	if (hint + 1 < hi && ctx->irecs[hint + 1].ino == ino)
		return hint + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->irecs[mid].ino == ino)
			return mid;
		if (ctx->irecs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ctx->nirecs;
}

bool xa_is_metadata_inode(const struct xa_ctx *ctx, uint64_t ino)
{
	const struct xfmt_sb *sb = &ctx->sb;

	/* With a metadata directory tree, metadata files say so themselves,
	 * and the inodes after the root may be anyone's. */
	if (xfmt_geom_has_metadir(&ctx->geom)) {
		size_t i = irec_index(ctx, ino, ctx->irec_hint);

		return (i < ctx->nirecs && ctx->irecs[i].metafile) || ino == sb->metadirino;
	}
	if (ino == sb->rootino + 1 || ino == sb->rootino + 2)
		return true;
	return ino == sb->rbmino || ino == sb->rsumino ||
	       (ino == sb->uquotino && ino != 0) || (ino == sb->gquotino && ino != 0) ||
	       (ino == sb->pquotino && ino != 0);
}

const struct xa_ichunk *xa_ag_chunk_of(const struct xa_ag *ag, uint32_t agino)
{
	for (size_t i = 0; i < ag->nchunks; i++) {
		const struct xa_ichunk *c = &ag->chunks[i];

		if (agino >= c->startino && agino - c->startino < XFS_INODES_PER_CHUNK)
			return (c->holemask >> ((agino - c->startino) / 4)) & 1 ? NULL : c;
	}
	return NULL;
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
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	xa_findings_init(&ctx->findings);
	ctx->image_path = img->name;
	if (opts)
		ctx->opts = *opts;
	rc = xcache_new(img, cache_bytes_for(ctx, img->size), &ctx->cache);
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
	int rc;

	if (ctx->overlay)
		return XERR_USAGE;
	rc = ximg_open_overlay(xa_base_image(ctx), ov, &view);
	if (!rc)
		rc = xcache_new(view, cache_bytes_for(ctx, ctx->image_size), &cache);
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
	int rc;

	/* Before the log pass: an overlay is made over the view, not under it. */
	if (ctx->tail || ctx->overlay)
		return XERR_USAGE;
	rc = ximg_open_zero_tail(ctx->input, size, &view);
	if (!rc)
		rc = xcache_new(view, cache_bytes_for(ctx, size), &cache);
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
	/* An external log is a second image: read as given, raw or zstd,
	 * without a partition table (a log device starts with log records). */
	if (io && io->logdev) {
		rc = ximg_open_plain(io->logdev, &ctx->logdev, err, errlen);
		if (rc) {
			xa_ctx_release(ctx);
			return rc;
		}
		ctx->logdev_path = io->logdev;
	}
	if (io && io->rtdev) {
		rc = ximg_open_plain(io->rtdev, &ctx->rtdev, err, errlen);
		if (rc) {
			xa_ctx_release(ctx);
			return rc;
		}
		ctx->rtdev_path = io->rtdev;
	}
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
	ximg_free(&ctx->logdev);
	ximg_free(&ctx->rtdev);
	ctx->img = NULL;
	ximg_overlay_free(&ctx->overlay);
	xa_findings_release(&ctx->findings);
}

struct xa_irec *xa_irec_find(struct xa_ctx *ctx, uint64_t ino)
{
	size_t i = irec_index(ctx, ino, ctx->irec_hint);

	if (i >= ctx->nirecs)
		return NULL;
	ctx->irec_hint = i;
	return &ctx->irecs[i];
}
