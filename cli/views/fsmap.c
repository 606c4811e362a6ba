/*
 * fsmap.c - the reverse map printed as xfs_db's `fsmap` prints it, or with
 * owner names.
 *
 * Without an rmapbt, or with --forward, the map is the one the check builds
 * from primary metadata (headers, btree blocks, inode chunks, every fork
 * mapping), merged the way the kernel merges rmap records, so the two can
 * be compared line for line.
 *
 * The rmapbt of each AG is walked with the shared btree walker, which hands
 * leaf records over in key order (the order xfs_db's range query returns
 * them on a sound tree) and refuses cycles and blocks outside the AG, so a
 * hostile tree prints each readable record at most once.
 */
#include "cli/views/fsmap.h"

#include <inttypes.h>

#include "analyzer/check/ownership.h"
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

static void print_one(struct fsmap_state *st, uint32_t agno, const struct xfmt_rmap_rec *rp)
{
	const struct xfmt_rmap_rec r = *rp;
	const char *name;

	if (st->xfs_db) {
		fprintf(st->out, "%" PRIu64 ": %" PRIu32 "/%" PRIu32 " len %" PRIu32 " owner %" PRId64
			" offset %" PRIu64 " bmbt %d attrfork %d extflag %d\n",
			st->nr, agno, r.startblock, r.blockcount, (int64_t)r.owner, r.offset,
			r.bmbt_block, r.attr_fork, r.unwritten);
	} else {
		fprintf(st->out, "%" PRIu32 "/%" PRIu32 " len %" PRIu32, agno, r.startblock,
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
}

static int print_rec(struct xa_walk *w, const uint8_t *rec, unsigned idx, uint32_t agbno)
{
	struct xfmt_rmap_rec r;

	(void)idx;
	(void)agbno;
	xfmt_rmap_rec_decode(rec, &r);
	print_one(w->arg, w->ag->agno, &r);
	return 0;
}

/* The map built from primary metadata (check's forward ownership). */
static int print_forward(struct xa_ctx *ctx, struct fsmap_state *st, FILE *err)
{
	int result = 0;

	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		bool complete = false;
		const struct xa_ownlist *fwd = xa_own_forward(ctx, agno, &complete);
		struct xa_ownlist copy = { 0 };

		if (!fwd) {
			result = XERR_IO;
			continue;
		}
		for (size_t i = 0; i < fwd->n; i++) {
			const struct xa_ownrec *o = &fwd->recs[i];

			if (xa_ownlist_add(&copy, o->agbno, o->len, o->owner, o->offset, o->flags)) {
				xa_ownlist_release(&copy);
				return XERR_NOMEM;
			}
		}
		xa_ownlist_normalize(&copy);
		for (size_t i = 0; i < copy.n; i++) {
			const struct xa_ownrec *o = &copy.recs[i];
			struct xfmt_rmap_rec r = { 0 };

			r.startblock = o->agbno;
			r.blockcount = o->len;
			r.owner = o->owner;
			r.offset = o->offset;
			r.attr_fork = (o->flags & XA_OWN_ATTR) != 0;
			r.bmbt_block = (o->flags & XA_OWN_BMBT) != 0;
			r.unwritten = (o->flags & XA_OWN_UNWRITTEN) != 0;
			print_one(st, agno, &r);
		}
		xa_ownlist_release(&copy);
		if (!complete) {
			fprintf(err, "xfsrecon: AG %" PRIu32 ": primary metadata could not be read "
				"completely; the map may miss owners (run check for details)\n", agno);
			result = XERR_IO;
		}
	}
	return result;
}

int xc_cmd_fsmap(struct xa_ctx *ctx, bool xfs_db_format, bool forward, FILE *out, FILE *err)
{
	struct fsmap_state st = { out, xfs_db_format, 0 };
	int result = 0;

	if (forward || !xfmt_geom_has_rmapbt(&ctx->geom))
		return print_forward(ctx, &st, err);
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
