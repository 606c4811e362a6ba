/*
 * map_run.c - what the drawing asks of a gathered map run: the grid of one
 * AG (owners from the rmapbt where it was read whole, else the check's
 * forward map) and the path found for an inode.  map.c fills the run,
 * map_svg.c draws from it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "cli/views/map.h"
#include "cli/views/map_int.h"
#include "formats/geom.h"

static enum xc_map_class inode_class(void *arg, uint64_t ino)
{
	const struct xa_irec *ir = xa_irec_find(arg, ino);

	if (!ir)
		return XC_MC_INODE_OTHER;
	switch (ir->mode & 0170000u) {
	case 0100000: return XC_MC_DATA;
	case 0040000: return XC_MC_DIR;
	case 0120000: return XC_MC_SYMLINK;
	default:      return XC_MC_INODE_OTHER;
	}
}

/* The rmapbt is believed where it was read completely, as fsmap does;
 * elsewhere (or with --forward) the map the check built from primary
 * metadata stands in. */
bool xc_map_ag_from_rmap(const struct xc_map_run *r, uint32_t agno)
{
	const struct xa_ag *ag = &r->ctx->ags[agno];

	return !r->o->forward && xfmt_geom_has_rmapbt(&r->ctx->geom) && ag->agf_ok &&
	       ag->bt[XA_BT_RMAP].walked && xa_own_rmap(r->ctx, agno);
}

int xc_map_build_ag(struct xc_map_run *r, uint32_t agno, struct xc_map_ag *m)
{
	struct xc_map_src src = { 0 };
	struct xa_ctx *ctx = r->ctx;

	src.owners = xc_map_ag_from_rmap(r, agno) ? xa_own_rmap(ctx, agno) : xa_own_forward(ctx, agno, NULL);
	src.free = xa_own_free_list(ctx, agno);
	src.reflink = xfmt_geom_has_reflink(&ctx->geom);
	src.inode_class = inode_class;
	src.arg = ctx;
	src.marks = r->marks + r->mark_start[agno];
	src.nmarks = r->mark_start[agno + 1] - r->mark_start[agno];
	return xc_map_ag_build(m, agno, ctx->ags[agno].length, XC_MAP_COLS, r->max_rows, &src);
}

const char *xc_map_path_of(const struct xc_map_run *r, uint64_t ino)
{
	size_t n, i = xa_paths_of(&r->paths, ino, &n);

	return n ? r->paths.v[i].path : NULL;
}
