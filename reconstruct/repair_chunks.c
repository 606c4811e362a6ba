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

/* Record an all-free chunk at agino start of AG agno, in order. */
static int insert_chunk(struct xa_ag *ag, uint32_t start)
{
	struct xa_ichunk *c;
	size_t at;

	for (at = 0; at < ag->nchunks && ag->chunks[at].startino < start; at++)
		;
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
	return 0;
}

/* The first agino and the count of the chunks that the blocks of ino's
 * chunk hold: the chunk alone, or every chunk of a block of more than 64
 * inodes (the kernel allocates such a block whole, a record a chunk). */
static void block_chunks(const struct xfmt_geom *g, uint64_t ino, uint32_t *first, uint32_t *n)
{
	uint32_t agino = xfmt_geom_ino_agino(g, ino);

	if (g->inopblock > 64) {
		*first = agino & ~(g->inopblock - 1);
		*n = g->inopblock / 64;
	} else {
		*first = agino & ~63u;
		*n = 1;
	}
}

/*
 * No known chunk holds ino: the inode btree and the scan for inode blocks
 * both missed it (its blocks hold nothing now).  Its chunk is taken back
 * where the geometry puts it, when nothing owns those blocks: recorded in
 * its AG's chunks and owned by OWN_INODES for the rebuild.  Where a block
 * holds more than one chunk, every chunk of the block comes back (the
 * kernel verifies a cluster's inodes all together).  XERR_UNSUPPORTED when
 * that cannot be.
 */
int rp_add_chunk(struct xr_rp *rp, uint64_t ino)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino), first, nchunks, agbno, len;
	const struct xa_ownlist *lists[2];
	const struct xa_bitmap *own;
	struct xa_ag *ag;
	int rc;

	if (agno >= ctx->nags || !xfmt_geom_ino_valid(g, ino))
		return XERR_UNSUPPORTED;
	ag = &ctx->ags[agno];
	lists[0] = xa_own_forward(ctx, agno, NULL);
	lists[1] = &rp->ags[agno].added;
	if (!lists[0])
		return XERR_UNSUPPORTED;
	block_chunks(g, ino, &first, &nchunks);
	agbno = first >> g->inopblog;
	len = g->inopblock >= 64 ? 1 : 64u >> g->inopblog;
	if (agbno + len > xfmt_geom_ag_length(g, agno))
		return XERR_UNSUPPORTED;
	/* nothing else owns the blocks, nor has the plan handed them out or
	 * held them since, and no known chunk lies there */
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (lists[l]->recs[i].agbno < agbno + len &&
			    lists[l]->recs[i].agbno + lists[l]->recs[i].len > agbno)
				return XERR_UNSUPPORTED;
	own = rp_space_owned(rp, agno);
	for (uint32_t b = agbno; own && b < agbno + len; b++)
		if (xa_bitmap_test(own, b))
			return XERR_UNSUPPORTED;
	for (uint32_t k = 0; k < nchunks; k++)
		if (xa_ag_chunk_of(ag, first + 64 * k))
			return XERR_UNSUPPORTED;
	for (size_t i = 0; i < ag->nchunks; i++)
		if (ag->chunks[i].startino < first + 64 * nchunks &&
		    ag->chunks[i].startino + 64 > first)
			return XERR_UNSUPPORTED;
	if (xa_ownlist_add(&rp->ags[agno].added, agbno, len, XFS_RMAP_OWN_INODES, 0, 0))
		return XERR_NOMEM;
	rp_space_hold(rp, agno, agbno, len);
	for (uint32_t k = 0; k < nchunks; k++) {
		rc = insert_chunk(ag, first + 64 * k);
		if (rc)
			return rc;
	}
	rp_need_rebuild(rp, agno);
	return 0;
}

int rp_reinit_taken_back(struct xr_rp *rp, uint64_t ino, int action)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint32_t agno = xfmt_geom_ino_agno(g, ino), first, nchunks;
	int rc = 0;

	block_chunks(g, ino, &first, &nchunks);
	for (uint32_t k = 0; k < nchunks && !rc; k++) {
		const struct xa_ichunk *c = xa_ag_chunk_of(&rp->ctx->ags[agno], first + 64 * k);

		if (c)
			rc = rp_reinit_dead_slots(rp, agno, c, action);
	}
	return rc;
}

/* A chunk taken back under an action of its own (repair_int.h). */
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
		rc = rp_reinit_taken_back(rp, ino, action);
	return rc;
}
