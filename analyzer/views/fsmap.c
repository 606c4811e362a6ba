/*
 * fsmap.c - the reverse map printed as xfs_db's `fsmap` prints it, or with
 * owner names.
 *
 * The rmapbt of each AG is walked with the shared btree walker, which hands
 * leaf records over in key order (the order xfs_db's range query returns
 * them on a sound tree) and refuses cycles and blocks outside the AG, so a
 * hostile tree prints each readable record at most once.
 */
#include "analyzer/views/fsmap.h"

#include <inttypes.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/scan/btree_walk.h"
#include "formats/btrec.h"

struct fsmap_state {
	FILE    *out;
	bool     xfs_db;
	uint64_t nr;       /* records printed so far, over all AGs (xfs_db numbers them) */
};

static int print_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct fsmap_state *st = w->arg;
	struct xfmt_rmap_rec r;
	const char *name;

	(void)idx;
	(void)agbno;
	xfmt_rmap_rec_decode(rec, &r);
	if (st->xfs_db) {
		fprintf(st->out, "%" PRIu64 ": %" PRIu32 "/%" PRIu32 " len %" PRIu32 " owner %" PRId64
			" offset %" PRIu64 " bmbt %d attrfork %d extflag %d\n",
			st->nr, w->ag->agno, r.startblock, r.blockcount, (int64_t)r.owner, r.offset,
			r.bmbt_block, r.attr_fork, r.unwritten);
	} else {
		fprintf(st->out, "%" PRIu32 "/%" PRIu32 " len %" PRIu32, w->ag->agno, r.startblock,
			r.blockcount);
		name = xa_owner_name(r.owner);
		if (name)
			fprintf(st->out, " %s", name);
		else if (xa_owner_is_special(r.owner))
			fprintf(st->out, " owner %" PRId64, (int64_t)r.owner);
		else
			fprintf(st->out, " inode %" PRIu64 " offset %" PRIu64, r.owner, r.offset);
		fprintf(st->out, "%s%s%s\n", r.attr_fork ? " attr" : "",
			r.bmbt_block ? " bmbt" : "", r.unwritten ? " unwritten" : "");
	}
	st->nr++;
	return 0;
}

int xa_cmd_fsmap(struct xa_ctx *ctx, bool xfs_db_format, FILE *out, FILE *err)
{
	struct fsmap_state st = { out, xfs_db_format, 0 };
	int result = 0;

	if (!xfmt_geom_has_rmapbt(&ctx->geom)) {
		fprintf(err, "xfsrecon: %s: the filesystem has no reverse-mapping btree (rmapbt)\n",
			ctx->image_path);
		return XERR_USAGE;
	}
	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];
		struct xa_walk w;
		int rc;

		if (!ag->agf_ok) {
			fprintf(err, "xfsrecon: AG %" PRIu32 ": the AGF is unusable; its rmapbt is skipped\n",
				agno);
			result = XERR_IO;
			continue;
		}
		rc = xa_walk_btree(ctx, ag, XFMT_BT_RMAP, ag->agf.rmap_root, ag->agf.rmap_level,
				   print_rec, &st, &w);
		if (rc)
			return rc;
		if (!w.complete) {
			fprintf(err, "xfsrecon: AG %" PRIu32 ": the rmapbt could not be read completely; "
				"run check for details\n", agno);
			result = XERR_IO;
		}
	}
	return result;
}
