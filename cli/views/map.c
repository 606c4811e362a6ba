/*
 * map.c - `xfsrecon map`: gathers what the picture needs from the finished
 * check (owner records per AG, findings located on blocks, paths of the
 * inodes the picture names) into the run map_run.c answers from, and saves
 * the document map_svg.c draws.
 *
 * The grids are built twice: a first pass learns each AG's totals and rows
 * (the document's size and legend come before any cell) and which inodes
 * the cells name; the namespace is then walked once for those inodes' paths
 * alone, so memory follows the size of the picture, not of the filesystem;
 * the second pass draws.  Building a grid costs only CPU over lists already
 * in memory.
 */
#include "cli/views/map.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/model/paths.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/report_xml.h"
#include "analyzer/report/xml_writer.h"
#include "cli/message_streams.h"
#include "cli/views/map_int.h"
#include "formats/btrec.h"

/* Rows per AG: the whole filesystem at most, and per AG alone (--ag).  With
 * titles of at most 1 KiB (map_svg.c), the picture stays below about 70 MiB
 * whatever the image holds; a sound one is far smaller (runs of alike cells
 * are one rect). */
#define OVERVIEW_ROWS_MAX 8u
#define OVERVIEW_CELLS_MAX (1u << 16)
#define ZOOM_ROWS 96u
/* Raw bytes of a path kept for a title (longer paths are cut). */
#define PATH_BYTES_MAX 120u

/* ------------------------------------------------------------ findings */

struct located {
	uint32_t agno;
	struct xc_map_mark m;
	size_t finding;
};

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Where a finding lies: its AG block (with the length the ownership
 * findings give), its inode's block, or its image byte. */
static bool locate(const struct xa_ctx *ctx, const struct xa_finding *fd, struct located *out)
{
	const struct xprob *p = &fd->p;
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t len = 1;

	if ((p->has & XPROB_HAS_AG) && (p->has & XPROB_HAS_AGBNO)) {
		out->agno = p->agno;
		out->m.agbno = p->agbno;
		switch (p->code) {
		case XP_rmapMissing:
			len = p->expected;
			break;
		case XP_rmapUnowned:
		case XP_spaceFreeAndOwned:
		case XP_spaceUnaccounted:
			len = p->observed;
			break;
		case XP_rmapWrongLength:
			len = p->expected > p->observed ? p->expected : p->observed;
			break;
		default:
			break;
		}
	} else if ((p->has & XPROB_HAS_INO) && xfmt_geom_ino_valid(g, p->ino)) {
		out->agno = xfmt_geom_ino_agno(g, p->ino);
		out->m.agbno = xfmt_geom_agino_agbno(g, xfmt_geom_ino_agino(g, p->ino));
	} else if ((p->has & XPROB_HAS_BYTE) && g->agblocks) {
		uint64_t d = p->byte >> g->blocklog;

		if (d / g->agblocks > UINT32_MAX)
			return false;
		out->agno = (uint32_t)(d / g->agblocks);
		out->m.agbno = (uint32_t)(d % g->agblocks);
	} else {
		return false;
	}
	if (out->agno >= ctx->nags)
		return false;
	out->m.len = clamp32(len ? len : 1);
	out->m.code = (uint16_t)p->code;
	return true;
}

static int cmp_located(const void *x, const void *y)
{
	const struct located *a = x, *b = y;

	if (a->agno != b->agno)
		return a->agno < b->agno ? -1 : 1;
	if (a->m.agbno != b->m.agbno)
		return a->m.agbno < b->m.agbno ? -1 : 1;
	return (a->finding > b->finding) - (a->finding < b->finding);
}

/* Marks of every finding worth showing (warnings and errors), by AG. */
static int gather_marks(struct xc_map_run *r)
{
	struct xa_ctx *ctx = r->ctx;
	struct located *loc;
	size_t n = 0;

	loc = calloc(ctx->findings.count ? ctx->findings.count : 1, sizeof(*loc));
	r->marks = calloc(ctx->findings.count ? ctx->findings.count : 1, sizeof(*r->marks));
	r->mark_finding = calloc(ctx->findings.count ? ctx->findings.count : 1,
				 sizeof(*r->mark_finding));
	r->mark_start = calloc((size_t)ctx->nags + 1, sizeof(*r->mark_start));
	if (!loc || !r->marks || !r->mark_finding || !r->mark_start) {
		free(loc);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *fd = &ctx->findings.items[i];

		if (xprob_severity_of(fd->p.code) < XSEV_WARNING)
			continue;
		if (locate(ctx, fd, &loc[n])) {
			loc[n].finding = i;
			n++;
		}
	}
	if (n > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(loc, n, sizeof(*loc), cmp_located);
	for (size_t i = 0; i < n; i++) {
		r->marks[i] = loc[i].m;
		r->mark_finding[i] = loc[i].finding;
		r->mark_start[loc[i].agno + 1]++;
	}
	for (uint32_t a = 0; a < ctx->nags; a++)
		r->mark_start[a + 1] += r->mark_start[a];
	r->nmarks = n;
	free(loc);
	return 0;
}

/* ------------------------------------------------------------ paths */

/* Paths of the inodes in want (the namespace walked once; what cannot be
 * read simply has no path).  The first name met in the walk's order (name
 * order, depth first) is the one a title shows. */
static int find_paths(struct xc_map_run *r, struct xa_u64set *want, FILE *err)
{
	struct xc_message_streams ms;

	return xa_paths_find(r->ctx, want, 1, PATH_BYTES_MAX, xc_message_streams(&ms, NULL, err),
			     &r->paths);
}

/* ------------------------------------------------------------ command */

/* First pass: totals, rows and the inodes the cells name. */
static int first_pass(struct xc_map_run *r, struct xa_u64set *want)
{
	struct xc_map_ag m = { 0 };
	int rc = 0;

	for (uint32_t agno = r->ag_first; agno < r->ag_end && !rc; agno++) {
		struct xc_map_agsum *s = &r->sums[agno - r->ag_first];
		const struct xa_ag *ag = &r->ctx->ags[agno];
		bool fwd_complete = false;

		rc = xc_map_build_ag(r, agno, &m);
		if (rc)
			goto out;
		s->agno = agno;
		s->length = m.length;
		s->cell_blocks = m.cell_blocks;
		s->rows = m.rows;
		memcpy(s->total, m.total, sizeof(s->total));
		s->disputed_blocks = m.disputed_blocks;
		s->outside_blocks = m.outside_blocks;
		s->lists_capped = m.lists_capped;
		s->findings = r->mark_start[agno + 1] - r->mark_start[agno];
		s->from_rmap = xc_map_ag_from_rmap(r, agno);
		xa_own_forward(r->ctx, agno, &fwd_complete);
		/* The forward map is "complete" only when the AG was cross-checked. */
		s->complete = s->from_rmap ? ag->bt[XA_BT_RMAP].walked : fwd_complete;
		s->free_complete = ag->agf_ok && ag->bt[XA_BT_BNO].walked;
		for (uint32_t c = 0; c < m.ncells && !rc; c++) {
			const struct xc_map_cell *cell = &m.cells[c];

			for (unsigned k = 0; k < cell->nowners && !rc; k++)
				if (!xa_owner_is_special(cell->owner[k]) &&
				    xa_u64set_add(want, cell->owner[k]) < 0)
					rc = XERR_NOMEM;
		}
		xc_map_ag_release(&m);
	}
out:
	xc_map_ag_release(&m);
	return rc;
}

static void run_release(struct xc_map_run *r)
{
	xa_paths_release(&r->paths);
	free(r->sums);
	free(r->marks);
	free(r->mark_start);
	free(r->mark_finding);
	memset(r, 0, sizeof(*r));
}

int xc_cmd_map(struct xa_ctx *ctx, const struct xc_map_opts *o, FILE *err)
{
	struct xc_map_run r = { 0 };
	struct xa_u64set want = { 0 };
	xmlBufferPtr buf = NULL;
	xmlTextWriterPtr w = NULL;
	char msg[512];
	int rc;

	if (o->one_ag && o->ag >= ctx->nags) {
		fprintf(err, "xfsrecon: --ag %" PRIu32 ": the filesystem has %" PRIu32 " AGs\n",
			o->ag, ctx->nags);
		return XERR_USAGE;
	}
	r.ctx = ctx;
	r.o = o;
	r.ag_first = o->one_ag ? o->ag : 0;
	r.ag_end = o->one_ag ? o->ag + 1 : ctx->nags;
	if (o->one_ag) {
		r.max_rows = ZOOM_ROWS;
		r.cell_w = 2;
		r.cell_h = 6;
	} else {
		uint32_t per_ag = OVERVIEW_CELLS_MAX / XC_MAP_COLS / (ctx->nags ? ctx->nags : 1);

		r.max_rows = per_ag < 1 ? 1 : per_ag > OVERVIEW_ROWS_MAX ? OVERVIEW_ROWS_MAX : per_ag;
		r.cell_w = 2;
		r.cell_h = 8;
	}
	r.sums = calloc(r.ag_end > r.ag_first ? r.ag_end - r.ag_first : 1, sizeof(*r.sums));
	rc = XERR_NOMEM;
	if (!r.sums || gather_marks(&r) || first_pass(&r, &want))
		goto out;
	rc = find_paths(&r, &want, err);
	if (rc)
		goto out;
	rc = XERR_NOMEM;
	buf = xmlBufferCreate();
	if (!buf)
		goto out;
	xmlBufferSetAllocationScheme(buf, XML_BUFFER_ALLOC_DOUBLEIT);
	w = xmlNewTextWriterMemory(buf, 0);
	if (!w)
		goto out;
	rc = xc_map_write_doc(&r, w);
	xmlFreeTextWriter(w);
	w = NULL;
	if (rc)
		goto out;
	rc = xa_xml_save_new(ctx->image_path, ximg_raw_fd(ctx->input), o->out,
			     xmlBufferContent(buf), (size_t)xmlBufferLength(buf), o->force, "the map",
			     msg, sizeof(msg));
	if (rc)
		fprintf(err, "xfsrecon: %s\n", msg);
out:
	if (rc == XERR_NOMEM)
		fprintf(err, "xfsrecon: out of memory drawing the map\n");
	if (w)
		xmlFreeTextWriter(w);
	if (buf)
		xmlBufferFree(buf);
	xa_u64set_release(&want);
	run_release(&r);
	return rc;
}
