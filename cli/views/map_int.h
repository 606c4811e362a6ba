/*
 * map_int.h - what the parts of `xfsrecon map` share: map.c gathers
 * (owners, findings as marks, paths) into a run, map_run.c builds the grid
 * of each AG from it, map_svg.c draws the document.
 */
#ifndef XC_MAP_INT_H
#define XC_MAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlwriter.h>

#include "analyzer/model/paths.h"
#include "cli/views/map_grid.h"

struct xa_ctx;
struct xc_map_opts;

/* Columns of every grid; cells are drawn map_cell_w pixels wide. */
#define XC_MAP_COLS 512u

/* What the first pass learned of one drawn AG (the document's layout and
 * its totals are known before anything is drawn). */
struct xc_map_agsum {
	uint32_t agno;
	uint32_t length, cell_blocks, rows;
	uint64_t total[XC_MC_COUNT];
	uint64_t disputed_blocks;
	uint64_t outside_blocks;
	uint64_t findings;        /* findings located in the AG (warnings and errors) */
	bool     from_rmap;       /* owners from the rmapbt (else the forward map) */
	bool     complete;        /* the owners' source was read completely */
	bool     free_complete;   /* the bnobt was walked completely */
	bool     lists_capped;
};

struct xc_map_run {
	struct xa_ctx            *ctx;
	const struct xc_map_opts *o;
	uint32_t ag_first, ag_end;        /* AGs drawn: [ag_first, ag_end) */
	uint32_t max_rows;                /* rows per AG at most */
	unsigned cell_w, cell_h;          /* pixels per cell */
	struct xc_map_agsum *sums;        /* ag_end - ag_first */
	/* marks of all AGs, sorted by AG; those of AG a are
	 * marks[mark_start[a] .. mark_start[a + 1]) */
	struct xc_map_mark *marks;
	size_t             *mark_start;   /* nags + 1 */
	/* the located findings in the order marked, for the HTML list */
	size_t             *mark_finding; /* index into ctx->findings.items per mark */
	size_t              nmarks;
	struct xa_paths     paths;        /* one per inode named, escaped, may be cut */
};

/* Are AG agno's owners taken from its rmapbt (read whole, as fsmap does),
 * not from the check's forward map?  (map_run.c, as the two below) */
bool xc_map_ag_from_rmap(const struct xc_map_run *r, uint32_t agno);

/* Build the grid of AG agno (ag_first <= agno < ag_end) into m; 0 or XERR_NOMEM. */
int xc_map_build_ag(struct xc_map_run *r, uint32_t agno, struct xc_map_ag *m);

/* The path of inode ino, or NULL when none was found. */
const char *xc_map_path_of(const struct xc_map_run *r, uint64_t ino);

/* Write the whole document (SVG, or HTML around it) to w; 0 or XERR_NOMEM
 * (also for a writer failure). */
int xc_map_write_doc(struct xc_map_run *r, xmlTextWriterPtr w);

#endif /* XC_MAP_INT_H */
