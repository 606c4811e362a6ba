/*
 * map.h - `xfsrecon map IMAGE -o FILE`: a picture of who owns every block,
 * as SVG (or an HTML page holding the SVG and the per-AG tables).
 *
 * Every AG is drawn as rows of cells coloured by the class of owner holding
 * most of the cell's blocks (map_grid.h lists the classes); hovering a cell
 * (its SVG <title>) names the blocks, the classes and the owners in it, with
 * the paths of inodes where the namespace names them.  Cells holding blocks
 * that a finding locates, or that two owners claim, are hatched in red.  A
 * legend and per-AG totals (exact block counts per class) follow as text;
 * the same totals are in a <metadata> block (namespace urn:xfsrecon:map:1)
 * and, in the HTML page, in tables with data-* attributes, for programs.
 */
#ifndef XC_MAP_H
#define XC_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

struct xc_map_opts {
	const char *out;      /* file to write ("-": standard output) */
	bool        html;     /* a self-contained HTML page instead of bare SVG */
	bool        force;    /* overwrite an existing out */
	bool        forward;  /* owners from primary metadata even with an rmapbt */
	bool        one_ag;   /* draw AG ag alone, at a finer resolution */
	uint32_t    ag;
};

/*
 * Draw the map of ctx, which must have run XA_RUN_CHECK with
 * opts.keep_ownership (owners come from the rmapbt where the filesystem has
 * one and the AG's tree was walked completely, otherwise from the forward
 * map the check built; findings mark damage).  The document is written to
 * o->out, never over the image and never over an existing file unless
 * o->force.  Returns 0; XERR_USAGE (bad AG number, out is the image) or
 * XERR_EXISTS with a line on err; XERR_IO or XERR_NOMEM.
 */
int xc_cmd_map(struct xa_ctx *ctx, const struct xc_map_opts *o, FILE *err);

#endif /* XC_MAP_H */
