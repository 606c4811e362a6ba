/*
 * map_svg.c - the map's document: an SVG picture (legend, one grid per AG,
 * per-AG totals, machine-readable totals in <metadata>), or an HTML page
 * holding that picture and the same numbers as tables.
 *
 * The HTML page is written as well-formed XHTML (every element closed, no
 * empty non-void element), so that an XML parser and a browser read it the
 * same way and the SVG inside needs no second serialisation.  Everything
 * from the image (paths, the image name) reaches the writer escaped.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/report/escape.h"
#include "analyzer/report/xml_writer.h"
#include "cli/views/map.h"
#include "cli/views/map_int.h"

#define SVG_NS  "http://www.w3.org/2000/svg"
#define XHTML_NS "http://www.w3.org/1999/xhtml"
#define MAP_NS  "urn:xfsrecon:map:1"
#define MARGIN  16u
#define LINE    18u       /* legend and heading lines */
#define TLINE   16u       /* totals lines */
#define MARK_COLOR "#d00000"
/* Findings listed in the HTML page at most (the check report has them all). */
#define HTML_FINDINGS_MAX 1000u

struct doc {
	struct xc_map_run *r;
	struct xa_xw       x;
	char              *name;   /* image name, escaped */
};

/* ------------------------------------------------------------ text */

/* A bounded title: pieces that do not fit whole are dropped (a cut piece
 * could split a UTF-8 character), and the text says it was cut. */
struct tbuf {
	char   s[1024];
	size_t n;
	bool   full;
};

static void tb_add(struct tbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tb_add(struct tbuf *t, const char *fmt, ...)
{
	char piece[512];
	va_list ap;
	int len;

	if (t->full)
		return;
	va_start(ap, fmt);
	len = vsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(piece) || t->n + (size_t)len + 5 > sizeof(t->s)) {
		memcpy(t->s + t->n, " ...", 5);
		t->n += 4;
		t->full = true;
		return;
	}
	memcpy(t->s + t->n, piece, (size_t)len + 1);
	t->n += (size_t)len;
}

static void text_el(struct doc *d, const char *name, const char *text)
{
	xa_xw_start(&d->x, name);
	if (!d->x.failed)
		xa_xw_check(&d->x, xmlTextWriterWriteString(d->x.w, xa_xc(text)));
	/* Full end: <td></td>, never <td/>, which HTML would read as an open tag. */
	if (!d->x.failed)
		xa_xw_check(&d->x, xmlTextWriterFullEndElement(d->x.w));
}

static void attr_u(struct doc *d, const char *name, uint64_t v)
{
	xa_xw_attr_u64(&d->x, name, v);
}

static void svg_text(struct doc *d, unsigned x, unsigned y, const char *weight, const char *text)
{
	xa_xw_start(&d->x, "text");
	attr_u(d, "x", x);
	attr_u(d, "y", y);
	if (weight)
		xa_xw_attr(&d->x, "font-weight", weight);
	if (!d->x.failed)
		xa_xw_check(&d->x, xmlTextWriterWriteString(d->x.w, xa_xc(text)));
	xa_xw_end(&d->x);
}

static void svg_rect(struct doc *d, unsigned x, unsigned y, unsigned w, unsigned h,
		     const char *fill)
{
	xa_xw_start(&d->x, "rect");
	attr_u(d, "x", x);
	attr_u(d, "y", y);
	attr_u(d, "width", w);
	attr_u(d, "height", h);
	xa_xw_attr(&d->x, "fill", fill);
}

/* ------------------------------------------------------------ layout */

static unsigned nonzero_classes(const struct xc_map_agsum *s)
{
	unsigned n = 0;

	for (unsigned k = 0; k < XC_MC_COUNT; k++)
		n += s->total[k] != 0;
	return n;
}

static unsigned legend_lines(void)
{
	return (XC_MC_COUNT + 1 + 1) / 2;   /* the classes and the damage mark */
}

static unsigned ag_height(const struct xc_map_run *r, const struct xc_map_agsum *s)
{
	return LINE + s->rows * r->cell_h + 6 + (nonzero_classes(s) + 1) / 2 * TLINE + 14;
}

static unsigned svg_width(const struct xc_map_run *r)
{
	return 2 * MARGIN + XC_MAP_COLS * r->cell_w;
}

static unsigned svg_height(const struct xc_map_run *r)
{
	unsigned h = MARGIN + 24 + legend_lines() * LINE + 10;

	for (uint32_t a = r->ag_first; a < r->ag_end; a++)
		h += ag_height(r, &r->sums[a - r->ag_first]);
	return h + MARGIN;
}

/* ------------------------------------------------------------ cells */

static bool cell_same(const struct xc_map_cell *a, const struct xc_map_cell *b)
{
	if (a->cls != b->cls || a->marked != b->marked || a->disputed != b->disputed ||
	    a->nowners != b->nowners || a->more_owners != b->more_owners ||
	    a->ncodes != b->ncodes || a->more_codes != b->more_codes)
		return false;
	for (unsigned i = 0; i < a->nowners; i++)
		if (a->owner[i] != b->owner[i] || a->oflags[i] != b->oflags[i])
			return false;
	for (unsigned i = 0; i < a->ncodes; i++)
		if (a->codes[i] != b->codes[i])
			return false;
	return true;
}

static void owner_text(struct tbuf *t, const struct xc_map_run *r, uint64_t owner, uint8_t flags)
{
	const char *name = xa_owner_name(owner), *path;

	if (name) {
		tb_add(t, "%s", name);
		return;
	}
	if (xa_owner_is_special(owner)) {
		tb_add(t, "owner %" PRId64, (int64_t)owner);
		return;
	}
	tb_add(t, "inode %" PRIu64, owner);
	path = xc_map_path_of(r, owner);
	if (path)
		tb_add(t, " %s", path);
	if (flags & XA_OWN_BMBT)
		tb_add(t, (flags & XA_OWN_ATTR) ? " (attr fork bmbt)" : " (bmbt)");
	else if (flags & XA_OWN_ATTR)
		tb_add(t, " (attr fork)");
}

/* The title of cells [c0, c1] of one row, which cell_same found alike. */
static void run_title(struct tbuf *t, const struct xc_map_run *r, const struct xc_map_ag *m,
		      uint32_t c0, uint32_t c1)
{
	const struct xc_map_cell *cell = &m->cells[c0];
	uint64_t n[XC_MC_COUNT] = { 0 }, first = (uint64_t)c0 * m->cell_blocks, count = 0;
	const char *sep = "";

	for (uint32_t c = c0; c <= c1; c++) {
		count += xc_map_cell_size(m, c);
		for (unsigned k = 0; k < XC_MC_COUNT; k++)
			n[k] += m->cells[c].n[k];
	}
	tb_add(t, "AG %" PRIu32 " blocks %" PRIu64 "-%" PRIu64 " (%" PRIu64 "): ", m->agno, first,
	       first + count - 1, count);
	for (unsigned k = 0; k < XC_MC_COUNT; k++) {
		if (!n[k])
			continue;
		tb_add(t, "%s%s %" PRIu64, sep, xc_map_class_info(k)->label, n[k]);
		sep = ", ";
	}
	if (cell->nowners) {
		tb_add(t, "\nowners: ");
		for (unsigned i = 0; i < cell->nowners; i++) {
			if (i)
				tb_add(t, "; ");
			owner_text(t, r, cell->owner[i], cell->oflags[i]);
		}
		if (cell->more_owners)
			tb_add(t, "; and others");
	}
	if (cell->marked) {
		tb_add(t, "\ndamaged or disputed:");
		for (unsigned i = 0; i < cell->ncodes; i++) {
			const char *id = xprob_id(cell->codes[i]);

			if (!cell->codes[i])
				tb_add(t, " claimed twice");
			else if (id)
				tb_add(t, " %s", id);
			else
				tb_add(t, " 0x%04X", (unsigned)cell->codes[i]);
		}
		if (cell->more_codes)
			tb_add(t, " and more");
	}
}

static void draw_run(struct doc *d, const struct xc_map_ag *m, uint32_t c0, uint32_t c1,
		     unsigned y0)
{
	const struct xc_map_run *r = d->r;
	const struct xc_map_cell *cell = &m->cells[c0];
	unsigned x = MARGIN + (c0 % XC_MAP_COLS) * r->cell_w;
	unsigned y = y0 + (c0 / XC_MAP_COLS) * r->cell_h;
	unsigned w = (c1 - c0 + 1) * r->cell_w;
	struct tbuf t = { .n = 0 };

	run_title(&t, r, m, c0, c1);
	if (cell->marked) {
		xa_xw_start(&d->x, "g");
		xa_xw_attr(&d->x, "class", "mark");
		text_el(d, "title", t.s);
		svg_rect(d, x, y, w, r->cell_h, xc_map_class_info(cell->cls)->color);
		xa_xw_end(&d->x);
		svg_rect(d, x, y, w, r->cell_h, "url(#mark)");
		xa_xw_attr(&d->x, "stroke", MARK_COLOR);
		xa_xw_attr(&d->x, "stroke-width", "0.6");
		xa_xw_end(&d->x);
		xa_xw_end(&d->x);
		return;
	}
	svg_rect(d, x, y, w, r->cell_h, xc_map_class_info(cell->cls)->color);
	text_el(d, "title", t.s);
	xa_xw_end(&d->x);
}

/* ------------------------------------------------------------ SVG parts */

static void write_metadata(struct doc *d)
{
	const struct xc_map_run *r = d->r;
	const struct xa_ctx *ctx = r->ctx;

	xa_xw_start(&d->x, "metadata");
	if (!d->x.failed)
		xa_xw_check(&d->x, xmlTextWriterStartElementNS(d->x.w, xa_xc("xr"), xa_xc("map"),
							   xa_xc(MAP_NS)));
	xa_xw_attr(&d->x, "image", d->name);
	attr_u(d, "blocksize", ctx->geom.blocksize);
	attr_u(d, "agcount", ctx->nags);
	attr_u(d, "columns", XC_MAP_COLS);
	for (uint32_t a = r->ag_first; a < r->ag_end; a++) {
		const struct xc_map_agsum *s = &r->sums[a - r->ag_first];

		if (!d->x.failed)
			xa_xw_check(&d->x, xmlTextWriterStartElementNS(d->x.w, xa_xc("xr"),
								   xa_xc("ag"), NULL));
		attr_u(d, "agno", a);
		attr_u(d, "blocks", s->length);
		attr_u(d, "cell-blocks", s->cell_blocks);
		attr_u(d, "rows", s->rows);
		xa_xw_attr(&d->x, "source", s->from_rmap ? "rmapbt" : "forward");
		xa_xw_attr_bool(&d->x, "complete", s->complete && s->free_complete);
		attr_u(d, "disputed-blocks", s->disputed_blocks);
		attr_u(d, "findings", s->findings);
		attr_u(d, "outside-blocks", s->outside_blocks);
		xa_xw_attr_bool(&d->x, "lists-capped", s->lists_capped);
		for (unsigned k = 0; k < XC_MC_COUNT; k++) {
			if (!d->x.failed)
				xa_xw_check(&d->x, xmlTextWriterStartElementNS(
						d->x.w, xa_xc("xr"), xa_xc("class"), NULL));
			xa_xw_attr(&d->x, "id", xc_map_class_info(k)->id);
			attr_u(d, "blocks", s->total[k]);
			xa_xw_end(&d->x);
		}
		xa_xw_end(&d->x);
	}
	xa_xw_end(&d->x);
	xa_xw_end(&d->x);
}

static void write_defs(struct doc *d)
{
	xa_xw_start(&d->x, "defs");
	xa_xw_start(&d->x, "pattern");
	xa_xw_attr(&d->x, "id", "mark");
	xa_xw_attr(&d->x, "patternUnits", "userSpaceOnUse");
	xa_xw_attr(&d->x, "width", "4");
	xa_xw_attr(&d->x, "height", "4");
	xa_xw_start(&d->x, "path");
	xa_xw_attr(&d->x, "d", "M0,4 L4,0 M-1,1 L1,-1 M3,5 L5,3");
	xa_xw_attr(&d->x, "stroke", MARK_COLOR);
	xa_xw_attr(&d->x, "stroke-width", "1");
	xa_xw_end(&d->x);
	xa_xw_end(&d->x);
	xa_xw_end(&d->x);
}

/* The legend: every class with its blocks over the AGs drawn. */
static unsigned write_legend(struct doc *d, unsigned y)
{
	const struct xc_map_run *r = d->r;
	unsigned half = XC_MAP_COLS * r->cell_w / 2;
	char line[256];

	xa_xw_start(&d->x, "g");
	xa_xw_attr(&d->x, "id", "legend");
	for (unsigned k = 0; k <= XC_MC_COUNT; k++) {
		unsigned x = MARGIN + (k % 2) * half, ly = y + (k / 2) * LINE;
		uint64_t sum = 0;

		if (k == XC_MC_COUNT) {
			svg_rect(d, x, ly, 12, 12, "url(#mark)");
			xa_xw_attr(&d->x, "stroke", MARK_COLOR);
			xa_xw_end(&d->x);
			svg_text(d, x + 18, ly + 10, NULL,
				 "damaged or disputed: findings, blocks claimed twice, rmap disagreements");
			break;
		}
		for (uint32_t a = r->ag_first; a < r->ag_end; a++)
			sum += r->sums[a - r->ag_first].total[k];
		svg_rect(d, x, ly, 12, 12, xc_map_class_info(k)->color);
		xa_xw_attr(&d->x, "stroke", "#999999");
		xa_xw_attr(&d->x, "stroke-width", "0.5");
		xa_xw_end(&d->x);
		snprintf(line, sizeof(line), "%s: %" PRIu64 " block%s", xc_map_class_info(k)->label,
			 sum, sum == 1 ? "" : "s");
		svg_text(d, x + 18, ly + 10, NULL, line);
	}
	xa_xw_end(&d->x);
	return y + legend_lines() * LINE + 10;
}

/* One AG: heading, grid, totals.  Returns the y below it. */
static unsigned write_ag(struct doc *d, uint32_t agno, unsigned y, int *rc)
{
	struct xc_map_run *r = d->r;
	const struct xc_map_agsum *s = &r->sums[agno - r->ag_first];
	unsigned half = XC_MAP_COLS * r->cell_w / 2, k, i = 0;
	struct xc_map_ag m;
	char line[512];
	char id[32];

	if (xc_map_build_ag(r, agno, &m)) {
		*rc = XERR_NOMEM;
		return y;
	}
	snprintf(id, sizeof(id), "ag%" PRIu32, agno);
	xa_xw_start(&d->x, "g");
	xa_xw_attr(&d->x, "id", id);
	snprintf(line, sizeof(line), "AG %" PRIu32 ": %" PRIu32 " blocks, one cell = %" PRIu32
		 " block%s; owners from %s%s; %" PRIu64 " findings located, %" PRIu64
		 " blocks claimed twice%s%s", agno, m.length, m.cell_blocks,
		 m.cell_blocks == 1 ? "" : "s", s->from_rmap ? "the rmapbt" : "primary metadata",
		 s->complete && s->free_complete ? "" : " (incomplete)", s->findings,
		 s->disputed_blocks, s->outside_blocks ? "; records reach past the AG's end" : "",
		 s->lists_capped ? "; some owner lists cut short" : "");
	svg_text(d, MARGIN, y + 13, "bold", line);
	y += LINE;
	for (uint32_t row = 0; row < m.rows && !d->x.failed; row++) {
		uint32_t c = row * XC_MAP_COLS, end = c + XC_MAP_COLS;

		if (end > m.ncells)
			end = m.ncells;
		while (c < end) {
			uint32_t e = c;

			while (e + 1 < end && cell_same(&m.cells[c], &m.cells[e + 1]))
				e++;
			draw_run(d, &m, c, e, y);
			c = e + 1;
		}
	}
	y += m.rows * r->cell_h + 6;
	for (k = 0; k < XC_MC_COUNT; k++) {
		if (!s->total[k])
			continue;
		snprintf(line, sizeof(line), "%s: %" PRIu64, xc_map_class_info(k)->label, s->total[k]);
		svg_text(d, MARGIN + (i % 2) * half, y + (i / 2) * TLINE + 11, NULL, line);
		i++;
	}
	y += (i + 1) / 2 * TLINE + 14;
	xa_xw_end(&d->x);
	xc_map_ag_release(&m);
	return y;
}

static int write_svg(struct doc *d)
{
	struct xc_map_run *r = d->r;
	unsigned y = MARGIN;
	char line[512];
	int rc = 0;

	xa_xw_start(&d->x, "svg");
	xa_xw_attr(&d->x, "xmlns", SVG_NS);
	attr_u(d, "width", svg_width(r));
	attr_u(d, "height", svg_height(r));
	snprintf(line, sizeof(line), "0 0 %u %u", svg_width(r), svg_height(r));
	xa_xw_attr(&d->x, "viewBox", line);
	xa_xw_attr(&d->x, "font-family", "sans-serif");
	xa_xw_attr(&d->x, "font-size", "12");
	snprintf(line, sizeof(line), "Block map of %s", d->name);
	text_el(d, "title", line);
	text_el(d, "desc", "Every AG as rows of cells; a cell's colour is the owner class holding "
		"most of its blocks, its title names the blocks, classes and owners in it. Totals "
		"are exact block counts; a block shared by several owners counts once per owner.");
	write_metadata(d);
	write_defs(d);
	xa_xw_start(&d->x, "rect");
	xa_xw_attr(&d->x, "width", "100%");
	xa_xw_attr(&d->x, "height", "100%");
	xa_xw_attr(&d->x, "fill", "#ffffff");
	xa_xw_end(&d->x);
	snprintf(line, sizeof(line), "%s: %" PRIu32 " AGs of %" PRIu32 " blocks of %" PRIu32
		 " bytes%s", d->name, r->ctx->nags, r->ctx->geom.agblocks, r->ctx->geom.blocksize,
		 r->o->one_ag ? " (one AG drawn)" : "");
	svg_text(d, MARGIN, y + 14, "bold", line);
	y = write_legend(d, y + 24);
	for (uint32_t a = r->ag_first; a < r->ag_end && !rc && !d->x.failed; a++)
		y = write_ag(d, a, y, &rc);
	xa_xw_end(&d->x);
	return rc;
}

/* ------------------------------------------------------------ HTML */

static void html_totals(struct doc *d)
{
	const struct xc_map_run *r = d->r;
	bool many = r->ag_end - r->ag_first > 1;
	char num[32];

	xa_xw_start(&d->x, "table");
	xa_xw_attr(&d->x, "id", "totals");
	xa_xw_start(&d->x, "tr");
	text_el(d, "th", "owner class");
	for (uint32_t a = r->ag_first; a < r->ag_end; a++) {
		snprintf(num, sizeof(num), "AG %" PRIu32, a);
		text_el(d, "th", num);
	}
	if (many)
		text_el(d, "th", "all AGs");
	xa_xw_end(&d->x);
	for (unsigned k = 0; k < XC_MC_COUNT; k++) {
		uint64_t sum = 0;
		char style[64];

		xa_xw_start(&d->x, "tr");
		xa_xw_attr(&d->x, "data-class", xc_map_class_info(k)->id);
		xa_xw_start(&d->x, "th");
		xa_xw_start(&d->x, "span");
		xa_xw_attr(&d->x, "class", "sw");
		snprintf(style, sizeof(style), "background:%s", xc_map_class_info(k)->color);
		xa_xw_attr(&d->x, "style", style);
		if (!d->x.failed)
			xa_xw_check(&d->x, xmlTextWriterWriteString(d->x.w, xa_xc(" ")));
		xa_xw_end(&d->x);
		if (!d->x.failed)
			xa_xw_check(&d->x, xmlTextWriterWriteString(d->x.w,
								    xa_xc(xc_map_class_info(k)->label)));
		xa_xw_end(&d->x);
		for (uint32_t a = r->ag_first; a < r->ag_end; a++) {
			uint64_t v = r->sums[a - r->ag_first].total[k];

			sum += v;
			snprintf(num, sizeof(num), "%" PRIu64, v);
			xa_xw_start(&d->x, "td");
			attr_u(d, "data-ag", a);
			attr_u(d, "data-blocks", v);
			if (!d->x.failed)
				xa_xw_check(&d->x, xmlTextWriterWriteString(d->x.w, xa_xc(num)));
			xa_xw_end(&d->x);
		}
		if (many) {
			snprintf(num, sizeof(num), "%" PRIu64, sum);
			text_el(d, "td", num);
		}
		xa_xw_end(&d->x);
	}
	xa_xw_end(&d->x);
}

static void html_ags(struct doc *d)
{
	const struct xc_map_run *r = d->r;
	static const char *const head[] = { "AG", "blocks", "blocks per cell", "owners from",
		"read completely", "blocks claimed twice", "findings located" };
	char num[32];

	xa_xw_start(&d->x, "table");
	xa_xw_attr(&d->x, "id", "ags");
	xa_xw_start(&d->x, "tr");
	for (unsigned i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		text_el(d, "th", head[i]);
	xa_xw_end(&d->x);
	for (uint32_t a = r->ag_first; a < r->ag_end; a++) {
		const struct xc_map_agsum *s = &r->sums[a - r->ag_first];
		uint64_t v[] = { a, s->length, s->cell_blocks };

		xa_xw_start(&d->x, "tr");
		for (unsigned i = 0; i < 3; i++) {
			snprintf(num, sizeof(num), "%" PRIu64, v[i]);
			text_el(d, "td", num);
		}
		text_el(d, "td", s->from_rmap ? "rmapbt" : "primary metadata");
		text_el(d, "td", s->complete && s->free_complete ? "yes" : "no");
		snprintf(num, sizeof(num), "%" PRIu64, s->disputed_blocks);
		text_el(d, "td", num);
		snprintf(num, sizeof(num), "%" PRIu64, s->findings);
		text_el(d, "td", num);
		xa_xw_end(&d->x);
	}
	xa_xw_end(&d->x);
}

static void html_findings(struct doc *d)
{
	const struct xc_map_run *r = d->r;
	size_t from = r->mark_start[r->ag_first], to = r->mark_start[r->ag_end], shown = 0;
	char num[32], msg[XA_XML_MSG_MAX];

	if (from == to) {
		text_el(d, "p", "No finding is located in the AGs drawn.");
		return;
	}
	xa_xw_start(&d->x, "table");
	xa_xw_attr(&d->x, "id", "findings");
	xa_xw_start(&d->x, "tr");
	text_el(d, "th", "finding");
	text_el(d, "th", "AG");
	text_el(d, "th", "block");
	text_el(d, "th", "message");
	xa_xw_end(&d->x);
	for (size_t i = from; i < to && shown < HTML_FINDINGS_MAX && !d->x.failed; i++, shown++) {
		const struct xa_finding *fd = &r->ctx->findings.items[r->mark_finding[i]];
		const char *id = xprob_id(fd->p.code);
		uint32_t agno = 0;
		char *safe;

		while (agno + 1 < r->ctx->nags && r->mark_start[agno + 1] <= i)
			agno++;
		xa_xw_start(&d->x, "tr");
		text_el(d, "td", id ? id : "unknown");
		snprintf(num, sizeof(num), "%" PRIu32, agno);
		text_el(d, "td", num);
		snprintf(num, sizeof(num), "%" PRIu32, r->marks[i].agbno);
		text_el(d, "td", num);
		xa_finding_render(fd, msg, sizeof(msg));
		safe = xa_escape_text(msg, strlen(msg));
		if (!safe)
			d->x.failed = true;
		else
			text_el(d, "td", safe);
		free(safe);
		xa_xw_end(&d->x);
	}
	xa_xw_end(&d->x);
	if (to - from > shown)
		text_el(d, "p", "More findings are located than listed here; the check report "
			"lists them all.");
}

static int write_html(struct doc *d)
{
	char line[512];
	int rc;

	xa_xw_check(&d->x, xmlTextWriterWriteDTD(d->x.w, xa_xc("html"), NULL, NULL, NULL));
	xa_xw_start(&d->x, "html");
	xa_xw_attr(&d->x, "xmlns", XHTML_NS);
	xa_xw_attr(&d->x, "lang", "en");
	xa_xw_start(&d->x, "head");
	xa_xw_start(&d->x, "meta");
	xa_xw_attr(&d->x, "charset", "utf-8");
	xa_xw_end(&d->x);
	snprintf(line, sizeof(line), "Block map of %s", d->name);
	text_el(d, "title", line);
	text_el(d, "style", "body{font-family:sans-serif;margin:1em}"
		"table{border-collapse:collapse;margin:0.5em 0 1.5em}"
		"td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
		"th:first-child{text-align:left}"
		".sw{display:inline-block;width:12px;height:12px;margin-right:6px;"
		"border:1px solid #999}");
	xa_xw_end(&d->x);
	xa_xw_start(&d->x, "body");
	text_el(d, "h1", line);
	rc = write_svg(d);
	text_el(d, "h2", "Blocks per owner class");
	text_el(d, "p", "Exact block counts; a block shared by several owners counts once per "
		"owner. Block map btrees (bmbt) of either fork are a class of their own.");
	html_totals(d);
	text_el(d, "h2", "Allocation groups");
	html_ags(d);
	text_el(d, "h2", "Findings located on the map");
	html_findings(d);
	xa_xw_end(&d->x);
	xa_xw_end(&d->x);
	return rc;
}

int xc_map_write_doc(struct xc_map_run *r, xmlTextWriterPtr w)
{
	struct doc d = { r, { w, false }, NULL };
	const char *path = r->ctx->image_path ? r->ctx->image_path : "image";
	const char *base = strrchr(path, '/');
	int rc;

	d.name = xa_escape_text(base ? base + 1 : path, strlen(base ? base + 1 : path));
	if (!d.name)
		return XERR_NOMEM;
	xa_xw_check(&d.x, xmlTextWriterSetIndent(w, 1));
	xa_xw_check(&d.x, xmlTextWriterSetIndentString(w, xa_xc("")));
	if (!r->o->html)
		xa_xw_check(&d.x, xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL));
	rc = r->o->html ? write_html(&d) : write_svg(&d);
	if (!d.x.failed)
		xa_xw_check(&d.x, xmlTextWriterEndDocument(w));
	if (!d.x.failed)
		xa_xw_check(&d.x, xmlTextWriterFlush(w));
	free(d.name);
	return rc ? rc : d.x.failed ? XERR_NOMEM : 0;
}
