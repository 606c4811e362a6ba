/*
 * map_grid.c - one AG of the block-ownership picture as a grid of cells
 * (see map_grid.h).
 *
 * Work and memory are bounded by the records plus the cells: every record
 * adds its blocks to the cells it covers through difference arrays (its two
 * end cells directly, the cells between by one mark at each end of the
 * run), so a record spanning the whole AG costs as much as one spanning a
 * block.  Only the capped owner and finding lists of the cells are filled
 * cell by cell, and that under a fixed budget of visits per AG.
 */
#include "cli/views/map_grid.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/errors.h"
#include "formats/btrec.h"

/* Cell visits allowed per AG to fill owner and finding lists; a sound AG
 * needs about one per cell plus one per record. */
#define LIST_VISITS_MAX (1u << 24)

static const struct xc_map_class_info class_info[XC_MC_COUNT] = {
	[XC_MC_FS]          = { "fs",          "superblock and AG headers (FS)",         "#1f3a93" },
	[XC_MC_AGSPACE]     = { "agspace",     "free-space and reverse-map btrees, AGFL (AG)",
				"#3f88c5" },
	[XC_MC_INOBT]       = { "inobt",       "inode btrees (INOBT)",                   "#8e44ad" },
	[XC_MC_REFCBT]      = { "refcbt",      "refcount btree (REFC)",                  "#e377c2" },
	[XC_MC_INODES]      = { "inodes",      "inode chunks (INODES)",                  "#f39c12" },
	[XC_MC_LOG]         = { "log",         "internal log (LOG)",                     "#555555" },
	[XC_MC_COW]         = { "cow",         "copy-on-write staging (COW)",            "#bcbd22" },
	[XC_MC_DATA]        = { "data",        "file data",                              "#2ca02c" },
	[XC_MC_DIR]         = { "dir",         "directory blocks",                       "#17becf" },
	[XC_MC_SYMLINK]     = { "symlink",     "symbolic link targets",                  "#aec7e8" },
	[XC_MC_XATTR]       = { "xattr",       "extended attribute blocks",              "#ff9896" },
	[XC_MC_BMBT]        = { "bmbt",        "block map btrees of files (bmbt, either fork)",
				"#8c564b" },
	[XC_MC_INODE_OTHER] = { "inode-other", "inode blocks of unknown type",           "#c49c94" },
	[XC_MC_OTHER]       = { "other",       "unknown special owner",                  "#000000" },
	[XC_MC_FREE]        = { "free",        "free space",                             "#eeeeee" },
	[XC_MC_UNACCOUNTED] = { "unaccounted", "neither free nor owned",                 "#fff3b0" },
};

const struct xc_map_class_info *xc_map_class_info(enum xc_map_class c)
{
	return &class_info[c < XC_MC_COUNT ? c : XC_MC_OTHER];
}

enum xc_map_class xc_map_classify(const struct xc_map_src *src, uint64_t owner, uint32_t flags)
{
	switch (owner) {
	case XFS_RMAP_OWN_FS:     return XC_MC_FS;
	case XFS_RMAP_OWN_AG:     return XC_MC_AGSPACE;
	case XFS_RMAP_OWN_INOBT:  return XC_MC_INOBT;
	case XFS_RMAP_OWN_REFC:   return XC_MC_REFCBT;
	case XFS_RMAP_OWN_INODES: return XC_MC_INODES;
	case XFS_RMAP_OWN_LOG:    return XC_MC_LOG;
	case XFS_RMAP_OWN_COW:    return XC_MC_COW;
	default:
		break;
	}
	if (xa_owner_is_special(owner))
		return XC_MC_OTHER;
	if (flags & XA_OWN_BMBT)
		return XC_MC_BMBT;
	if (flags & XA_OWN_ATTR)
		return XC_MC_XATTR;
	return src->inode_class ? src->inode_class(src->arg, owner) : XC_MC_INODE_OTHER;
}

uint32_t xc_map_cell_size(const struct xc_map_ag *m, uint32_t idx)
{
	uint64_t start = (uint64_t)idx * m->cell_blocks;
	uint64_t end = start + m->cell_blocks;

	if (start >= m->length)
		return 0;
	return (uint32_t)((end > m->length ? m->length : end) - start);
}

void xc_map_ag_release(struct xc_map_ag *m)
{
	free(m->cells);
	memset(m, 0, sizeof(*m));
}

/* One record of the AG, clipped to it: blocks [start, end). */
struct mrec {
	uint32_t start, end;
	uint64_t owner;
	uint8_t  flags;   /* XA_OWN_ATTR | XA_OWN_BMBT */
	uint8_t  cls;
};

static int cmp_mrec(const void *x, const void *y)
{
	const struct mrec *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->flags != b->flags)
		return a->flags < b->flags ? -1 : 1;
	return (a->cls > b->cls) - (a->cls < b->cls);
}

/* Build state: difference arrays over the cells (ncells + 1 entries each). */
struct build {
	struct xc_map_ag *m;
	int64_t  *diff;       /* XC_MC_COUNT class arrays, then covered, disputed, marked */
	uint64_t *covered;    /* blocks of each cell covered by any record (direct part) */
	uint32_t  budget;     /* list visits left */
};

enum { DIFF_COVERED = XC_MC_COUNT, DIFF_DISPUTED, DIFF_MARKED, DIFF_ARRAYS };

static int64_t *diff_of(struct build *b, unsigned which)
{
	return b->diff + (size_t)which * ((size_t)b->m->ncells + 1);
}

/* Add the blocks [s, e) to a per-cell count: the end cells directly (into
 * the class count of the cell, or the covered array), the cells between
 * through the difference array (they are whole cells, never the last). */
static void span_add(struct build *b, unsigned which, uint32_t s, uint32_t e)
{
	struct xc_map_ag *m = b->m;
	uint32_t cb = m->cell_blocks, c0 = s / cb, c1 = (e - 1) / cb;
	int64_t *diff = diff_of(b, which);
	uint64_t first, last;

	if (c0 == c1) {
		first = e - s;
		last = 0;
	} else {
		first = (uint64_t)(c0 + 1) * cb - s;
		last = e - (uint64_t)c1 * cb;
	}
	if (which == DIFF_COVERED) {
		b->covered[c0] += first;
		b->covered[c1] += last;
	} else {
		m->cells[c0].n[which] += first;
		m->cells[c1].n[which] += last;
	}
	if (c1 > c0 + 1) {
		diff[c0 + 1]++;
		diff[c1]--;
	}
}

/* Flag every cell holding a block of [s, e). */
static void span_flag(struct build *b, unsigned which, uint32_t s, uint32_t e)
{
	uint32_t cb = b->m->cell_blocks;
	int64_t *diff = diff_of(b, which);

	diff[s / cb]++;
	diff[(e - 1) / cb + 1]--;
}

static void cell_add_owner(struct xc_map_cell *c, uint64_t owner, uint8_t flags)
{
	for (unsigned i = 0; i < c->nowners; i++)
		if (c->owner[i] == owner && c->oflags[i] == flags)
			return;
	if (c->nowners < XC_MAP_CELL_OWNERS) {
		c->owner[c->nowners] = owner;
		c->oflags[c->nowners] = flags;
		c->nowners++;
	} else {
		c->more_owners = true;
	}
}

static void cell_add_code(struct xc_map_cell *c, uint16_t code)
{
	for (unsigned i = 0; i < c->ncodes; i++)
		if (c->codes[i] == code)
			return;
	if (c->ncodes < XC_MAP_CELL_CODES)
		c->codes[c->ncodes++] = code;
	else
		c->more_codes = true;
}

/* Visit the cells of [s, e) while the budget lasts; false once it ran out. */
static bool list_span(struct build *b, uint32_t s, uint32_t e, uint64_t owner, uint8_t flags,
		      bool is_code, uint16_t code)
{
	uint32_t cb = b->m->cell_blocks;

	for (uint32_t c = s / cb; c <= (e - 1) / cb; c++) {
		if (!b->budget) {
			b->m->lists_capped = true;
			return false;
		}
		b->budget--;
		if (is_code)
			cell_add_code(&b->m->cells[c], code);
		else
			cell_add_owner(&b->m->cells[c], owner, flags);
	}
	return true;
}

/* May two records overlapping each other both be right?  Only file data of
 * two mappings on a reflink filesystem may share blocks. */
static bool may_share(const struct mrec *a, const struct mrec *b, bool reflink)
{
	return reflink && a->cls == XC_MC_DATA && b->cls == XC_MC_DATA;
}

/* Union of all records (covered blocks) and the double claims among them;
 * recs are sorted by start. */
static uint64_t sweep(struct build *b, const struct mrec *recs, size_t n, bool reflink)
{
	uint64_t covered = 0;
	uint32_t us = 0, ue = 0;        /* union run being grown */
	uint32_t maxend = 0, dend = 0;  /* furthest record end; end of disputes so far */
	size_t maxi = 0;
	bool have = false;

	for (size_t i = 0; i < n; i++) {
		const struct mrec *r = &recs[i];

		if (have && r->start < maxend && !may_share(r, &recs[maxi], reflink)) {
			uint32_t ds = r->start, de = r->end < maxend ? r->end : maxend;
			uint32_t from = ds > dend ? ds : dend;

			if (de > from) {
				b->m->disputed_blocks += de - from;
				dend = de;
			}
			span_flag(b, DIFF_DISPUTED, ds, de);
			list_span(b, ds, de, 0, 0, true, 0);
		}
		if (!have || r->start > ue) {
			if (have) {
				span_add(b, DIFF_COVERED, us, ue);
				covered += ue - us;
			}
			us = r->start;
			ue = r->end;
		} else if (r->end > ue) {
			ue = r->end;
		}
		if (!have || r->end > maxend) {
			maxend = r->end;
			maxi = i;
		}
		have = true;
	}
	if (have) {
		span_add(b, DIFF_COVERED, us, ue);
		covered += ue - us;
	}
	return covered;
}

/* Append the records of l clipped to the AG; counts blocks past its end. */
static void gather(struct xc_map_ag *m, const struct xc_map_src *src, const struct xa_ownlist *l,
		   bool free_space, struct mrec *out, size_t *n)
{
	for (size_t i = 0; l && i < l->n; i++) {
		const struct xa_ownrec *o = &l->recs[i];
		uint64_t end = (uint64_t)o->agbno + o->len;
		struct mrec r;

		if (o->len == 0)
			continue;
		if (end > m->length) {
			m->outside_blocks += end - (o->agbno > m->length ? o->agbno : m->length);
			end = m->length;
		}
		if (o->agbno >= end)
			continue;
		r.start = o->agbno;
		r.end = (uint32_t)end;
		r.owner = free_space ? 0 : o->owner;
		r.flags = (uint8_t)(free_space ? 0 : o->flags & (XA_OWN_ATTR | XA_OWN_BMBT));
		r.cls = (uint8_t)(free_space ? XC_MC_FREE : xc_map_classify(src, o->owner, o->flags));
		m->total[r.cls] += r.end - r.start;
		out[(*n)++] = r;
	}
}

/* Fold the difference arrays into the cells and pick each cell's class. */
static void finish_cells(struct build *b)
{
	struct xc_map_ag *m = b->m;
	int64_t run[DIFF_ARRAYS] = { 0 };

	for (uint32_t c = 0; c < m->ncells; c++) {
		struct xc_map_cell *cell = &m->cells[c];
		uint64_t size = xc_map_cell_size(m, c), covered;
		unsigned best = 0;

		for (unsigned k = 0; k < DIFF_ARRAYS; k++)
			run[k] += diff_of(b, k)[c];
		for (unsigned k = 0; k < XC_MC_COUNT; k++)
			cell->n[k] += (uint64_t)run[k] * m->cell_blocks;
		covered = b->covered[c] + (uint64_t)run[DIFF_COVERED] * m->cell_blocks;
		cell->n[XC_MC_UNACCOUNTED] = covered < size ? size - covered : 0;
		cell->disputed = run[DIFF_DISPUTED] > 0;
		cell->marked = cell->disputed || run[DIFF_MARKED] > 0;
		for (unsigned k = 1; k < XC_MC_COUNT; k++)
			if (cell->n[k] > cell->n[best])
				best = k;
		cell->cls = (uint8_t)best;
	}
}

int xc_map_ag_build(struct xc_map_ag *m, uint32_t agno, uint32_t length, uint32_t cols,
		    uint32_t max_rows, const struct xc_map_src *src)
{
	struct build b = { m, NULL, NULL, LIST_VISITS_MAX };
	struct mrec *recs = NULL;
	size_t cap, n = 0;
	uint64_t cells_max, covered;
	int rc = XERR_NOMEM;

	memset(m, 0, sizeof(*m));
	m->agno = agno;
	m->length = length;
	m->cols = cols ? cols : 1;
	cells_max = (uint64_t)m->cols * (max_rows ? max_rows : 1);
	m->cell_blocks = (uint32_t)((length + cells_max - 1) / cells_max);
	if (m->cell_blocks == 0)
		m->cell_blocks = 1;
	m->ncells = (uint32_t)(((uint64_t)length + m->cell_blocks - 1) / m->cell_blocks);
	m->rows = (m->ncells + m->cols - 1) / m->cols;

	cap = (src->owners ? src->owners->n : 0) + (src->free ? src->free->n : 0);
	m->cells = calloc(m->ncells ? m->ncells : 1, sizeof(*m->cells));
	b.covered = calloc(m->ncells ? m->ncells : 1, sizeof(*b.covered));
	b.diff = calloc((size_t)DIFF_ARRAYS * ((size_t)m->ncells + 1), sizeof(*b.diff));
	recs = calloc(cap ? cap : 1, sizeof(*recs));
	if (!m->cells || !b.covered || !b.diff || !recs)
		goto out;

	gather(m, src, src->owners, false, recs, &n);
	gather(m, src, src->free, true, recs, &n);
	if (n > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(recs, n, sizeof(*recs), cmp_mrec);
	for (size_t i = 0; i < n; i++)
		span_add(&b, recs[i].cls, recs[i].start, recs[i].end);
	/* Damage first: when the list budget runs out, owner names go, not marks. */
	covered = sweep(&b, recs, n, src->reflink);
	m->total[XC_MC_UNACCOUNTED] = length > covered ? length - covered : 0;
	for (size_t i = 0; i < src->nmarks; i++) {
		const struct xc_map_mark *k = &src->marks[i];
		uint64_t end = (uint64_t)k->agbno + (k->len ? k->len : 1);

		if (k->agbno >= length)
			continue;
		if (end > length)
			end = length;
		span_flag(&b, DIFF_MARKED, k->agbno, (uint32_t)end);
		list_span(&b, k->agbno, (uint32_t)end, 0, 0, true, k->code);
	}
	for (size_t i = 0; i < n; i++)
		if (recs[i].cls != XC_MC_FREE &&
		    !list_span(&b, recs[i].start, recs[i].end, recs[i].owner, recs[i].flags, false, 0))
			break;
	finish_cells(&b);
	rc = 0;
out:
	free(recs);
	free(b.covered);
	free(b.diff);
	if (rc)
		xc_map_ag_release(m);
	return rc;
}
