/*
 * badmap.c - the unreadable ranges of a map, named by what they hold.
 *
 * The map's offsets are the whole image's; the filesystem may start inside
 * it (a partition), so each range is moved by the filesystem's offset and
 * cut to the data device before its blocks are looked up.
 */
#include "cli/views/badmap.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/badmap.h"
#include "analyzer/io/image.h"
#include "cli/views/owner.h"

/* Where the filesystem starts in the image the map describes. */
static uint64_t fs_offset(const struct xa_ctx *ctx)
{
	uint64_t base = 0, b;
	const struct ximg *img = ctx->input;
	const struct ximg *parent;

	while ((parent = ximg_slice_parent(img, &b))) {
		base += b;
		img = parent;
	}
	return base;
}

/* The AG header sectors (sb, agf, agi, agfl) of [s, e) (filesystem bytes). */
static void header_hits(const struct xa_ctx *ctx, uint64_t s, uint64_t e, FILE *out)
{
	static const char *const names[] = { "sb", "agf", "agi", "agfl" };
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t agbytes = (uint64_t)g->agblocks << g->blocklog;

	for (uint32_t a = (uint32_t)(s / agbytes); a < g->agcount && (uint64_t)a * agbytes < e; a++)
		for (unsigned k = 0; k < 4; k++) {
			uint64_t hs = (uint64_t)a * agbytes + (uint64_t)k * g->sectsize;

			if (hs < e && hs + g->sectsize > s)
				fprintf(out, "  AG %" PRIu32 " %s sector (byte %" PRIu64 ")\n", a,
					names[k], hs);
		}
}

int xc_cmd_badmap(struct xa_ctx *ctx, const char *mapfile, FILE *out, FILE *err)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t base = fs_offset(ctx), fsbytes = g->dblocks << g->blocklog, outside = 0;
	uint64_t agbytes = (uint64_t)g->agblocks << g->blocklog, total = 0;
	struct xc_owner_stats stats;
	struct ximg_badmap bm;
	char msg[512];
	bool incomplete = false;
	int rc = ximg_badmap_load(mapfile, &bm, msg, sizeof(msg));

	if (rc) {
		fprintf(err, "xfsrecon: %s\n", msg);
		return rc == XERR_NOMEM ? rc : XERR_USAGE;
	}
	memset(&stats, 0, sizeof(stats));
	for (size_t i = 0; i < bm.n && !rc; i++) {
		uint64_t s = bm.start[i], e = bm.end[i];
		struct xc_owner_range *r = NULL;
		size_t nr = 0;

		total += e - s;
		if (e <= base || s - (s > base ? base : s) >= fsbytes) {
			outside += e - s;
			continue;
		}
		s = s > base ? s - base : 0;
		e = e - base > fsbytes ? fsbytes : e - base;
		fprintf(out, "range %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes)\n", s + base,
			e + base - 1, e - s);
		header_hits(ctx, s, e, out);
		/* the range's blocks, AG by AG */
		r = calloc(g->agcount ? g->agcount : 1, sizeof(*r));
		if (!r) {
			rc = XERR_NOMEM;
			break;
		}
		for (uint64_t pos = s; pos < e;) {
			uint32_t agno = (uint32_t)(pos / agbytes);
			uint64_t in_ag = pos - (uint64_t)agno * agbytes;
			uint64_t ag_end = (uint64_t)(agno + 1) * agbytes < e ? (uint64_t)(agno + 1) * agbytes : e;
			uint64_t b0 = in_ag >> g->blocklog, b1 = ((ag_end - 1) - (uint64_t)agno * agbytes) >> g->blocklog;

			if (agno >= g->agcount || nr >= g->agcount)
				break;
			r[nr].agno = agno;
			r[nr].first = (uint32_t)b0;
			r[nr].count = b1 - b0 + 1;
			nr++;
			pos = ag_end;
		}
		rc = xc_cmd_owner(ctx, r, nr, true, &stats, out, err);
		free(r);
		/* Bad sectors in metadata leave AGs incomplete: said, and on. */
		if (rc == XERR_IO) {
			incomplete = true;
			rc = 0;
		}
	}
	if (rc >= 0) {
		fprintf(out, "unreadable: %" PRIu64 " bytes in %zu ranges (%" PRIu64 " outside the "
			"filesystem); they touch %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
			" metadata blocks, %" PRIu64 " free blocks, %" PRIu64 " blocks no one owns\n",
			total, bm.n, outside, stats.files, stats.dirs, stats.meta_blocks,
			stats.free_blocks, stats.unowned_blocks);
	}
	ximg_badmap_release(&bm);
	if (rc < 0)
		return rc;
	if (incomplete)
		fprintf(err, "xfsrecon: unreadable metadata hides some owners: files in those "
			"structures' care are not all listed\n");
	return stats.files || stats.dirs || stats.meta_blocks ? 1 : 0;
}
