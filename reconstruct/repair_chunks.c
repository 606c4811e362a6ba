/*
 * repair_chunks.c - inode chunks no tree or scan knows, taken back where the
 * geometry puts them (for a lost root, or an inode the entries and the log
 * still name), their dead slots written as free inodes.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/geom.h"
#include "reconstruct/actions.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

/* The known chunk holding ino (in its AG), or NULL. */
const struct xa_ichunk *rp_chunk_of(const struct xa_ctx *ctx, uint64_t ino)
{
	uint32_t agno = xfmt_geom_ino_agno(&ctx->geom, ino);

	if (agno >= ctx->nags)
		return NULL;
	return xa_ag_chunk_of(&ctx->ags[agno], xfmt_geom_ino_agino(&ctx->geom, ino));
}

/*
 * Slots of chunk c that hold no inode at all (zeroed or overwritten, as the
 * root's chunk is when the start of the disk was): written as free inodes,
 * as xfs_repair reinitialises them, so the rebuilt inode btree's free slots
 * are real inodes.  Slots in use, or that the plan writes anyway, are left.
 */
int rp_reinit_dead_slots(struct xr_rp *rp, uint32_t agno, const struct xa_ichunk *c,
			 int action)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint8_t *buf = malloc(g->inodesize);
	int rc = 0;

	if (!buf)
		return XERR_NOMEM;
	for (unsigned k = 0; k < 64 && !rc; k++) {
		uint64_t ino = xfmt_geom_ino(g, agno, c->startino + k);
		struct xfmt_dinode d;

		if (((c->holemask >> (k / 4)) & 1) || xa_irec_find(ctx, ino) ||
		    xa_u64set_has(&rp->new_inodes, ino))
			continue;
		rc = xr_plan_read(rp->plan, ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
		if (rc)
			break;
		if (xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 && d.magic == XFS_DINODE_MAGIC &&
		    (!g->v5 || xfmt_crc_ok(buf, g->inodesize, XFMT_DINODE_CRC_OFF)))
			continue;
		xfmt_dinode_free_encode(buf, g, ino, 0, rp->env.lsn);
		rc = rp_write_inode(rp, action, ino, buf);
		if (!rc && xa_u64set_add(&rp->dead, ino) < 0)
			rc = XERR_NOMEM;
	}
	free(buf);
	return rc;
}

/*
 * No known chunk holds ino: the inode btree and the scan for inode blocks
 * both missed it (its blocks hold nothing now).  Its chunk is taken back
 * where the geometry puts it, when nothing owns those blocks: recorded in
 * its AG's chunks and owned by OWN_INODES for the rebuild.  XERR_UNSUPPORTED
 * when that cannot be.
 */
int rp_add_chunk(struct xr_rp *rp, uint64_t ino)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	uint32_t start = xfmt_geom_ino_agino(g, ino) & ~63u, agbno, len;
	const struct xa_ownlist *fwd;
	const struct xa_bitmap *own;
	struct xa_ag *ag;
	struct xa_ichunk *c;
	size_t at;

	if (agno >= ctx->nags || g->inopblock > 64 || !xfmt_geom_ino_valid(g, ino))
		return XERR_UNSUPPORTED;
	ag = &ctx->ags[agno];
	fwd = xa_own_forward(ctx, agno, NULL);
	if (!fwd)
		return XERR_UNSUPPORTED;
	agbno = start >> g->inopblog;
	len = 64u >> g->inopblog;
	if (agbno + len > xfmt_geom_ag_length(g, agno))
		return XERR_UNSUPPORTED;
	for (size_t i = 0; i < fwd->n; i++)
		if (fwd->recs[i].agbno < agbno + len && fwd->recs[i].agbno + fwd->recs[i].len > agbno)
			return XERR_UNSUPPORTED;
	/* nor what the plan has handed out or held since */
	own = rp_space_owned(rp, agno);
	for (uint32_t b = agbno; own && b < agbno + len; b++)
		if (xa_bitmap_test(own, b))
			return XERR_UNSUPPORTED;
	for (at = 0; at < ag->nchunks && ag->chunks[at].startino < start; at++)
		;
	if ((at < ag->nchunks && ag->chunks[at].startino < start + 64) ||
	    (at > 0 && ag->chunks[at - 1].startino + 64 > start))
		return XERR_UNSUPPORTED;
	if (xa_ownlist_add(&rp->ags[agno].added, agbno, len, XFS_RMAP_OWN_INODES, 0, 0))
		return XERR_NOMEM;
	rp_space_hold(rp, agno, agbno, len);
	c = xa_ag_chunk_append(ag);
	if (!c)
		return XERR_NOMEM;
	memmove(ag->chunks + at + 1, ag->chunks + at, (ag->nchunks - 1 - at) * sizeof(*c));
	c = &ag->chunks[at];
	memset(c, 0, sizeof(*c));
	c->startino = start;
	c->count = 64;
	c->free = ~0ull;
	c->freecount = 64;
	rp_need_rebuild(rp, agno);
	return 0;
}

int rp_take_back_chunk(struct xr_rp *rp, uint64_t ino)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	int action, rc;

	action = xr_plan_action(rp->plan, XR_ACT_RESTORE_INODE_CHUNK, agno, 0,
				"AG %" PRIu32 ": the inode chunk at AG inode %" PRIu32 " taken back: "
				"no tree or scan knows it, but entries and the log name inode %" PRIu64
				" in it, and nothing owns its blocks; its slots written free, then "
				"filled by what can be revived", agno,
				xfmt_geom_ino_agino(g, ino) & ~63u, ino);
	if (action < 0)
		return action;
	rc = rp_add_chunk(rp, ino);
	if (!rc)
		rc = rp_reinit_dead_slots(rp, agno, rp_chunk_of(ctx, ino), action);
	return rc;
}
