/*
 * dir_write.c - write one directory of the repaired filesystem (see
 * rp_dir_write in repair_int.h).
 *
 * Why new blocks rather than the directory's own: a directory is rewritten
 * because its blocks are damaged or its entries changed; its old blocks are
 * evidence of what it held, so they are released untouched and the new
 * form goes to blocks nothing owned before.  The mapping is written as an
 * extent list in the inode, or as a new bmbt when it has more extents than
 * the fork holds (fork_write.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/btrec.h"
#include "formats/dinode_enc.h"
#include "formats/dir2_build.h"
#include "reconstruct/fork_write.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

/* Release ino's old data-fork blocks: the AGs holding them are rebuilt. */
static int release_data(struct xr_rp *rp, uint64_t ino)
{
	if (xa_u64set_add(&rp->dir_rewritten, ino) < 0)
		return XERR_NOMEM;
	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		const struct xa_ownlist *l = xa_own_forward(rp->ctx, a, NULL);

		for (size_t i = 0; l && i < l->n; i++)
			if (l->recs[i].owner == ino && !(l->recs[i].flags & XA_OWN_ATTR)) {
				rp_need_rebuild(rp, a);
				break;
			}
	}
	return 0;
}

static int map_err(int rc)
{
	if (rc == XFMT_DIRB_NOMEM)
		return XERR_NOMEM;
	return XERR_UNSUPPORTED;
}

struct ext {
	uint64_t startoff, fsb;
	uint32_t count;
};

/* Map every block of b to new space; extents into *out (caller frees). */
static int map_blocks(struct xr_rp *rp, uint64_t ino, const struct xfmt_dir2_build *b,
		      struct ext **out, size_t *next, uint64_t *total)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint32_t unit = 1u << g->dirblklog;
	uint32_t hint = xfmt_geom_ino_agno(g, ino);
	struct ext *ex = NULL;
	size_t n = 0, cap = 0;

	*total = 0;
	for (size_t i = 0; i < b->nblks;) {
		/* a run of consecutive directory blocks */
		size_t j = i + 1;
		uint32_t want, agno, agbno, got;
		int rc;

		while (j < b->nblks && b->blks[j].da == b->blks[j - 1].da + unit && j - i < 4096)
			j++;
		want = (uint32_t)(j - i) * unit;
		rc = rp_space_alloc(rp, hint, want, unit, ino, b->blks[i].da, 0, &agno, &agbno, &got);
		if (rc) {
			free(ex);
			return rc;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct ext *nx = realloc(ex, ncap * sizeof(*nx));

			if (!nx) {
				free(ex);
				return XERR_NOMEM;
			}
			ex = nx;
			cap = ncap;
		}
		ex[n].startoff = b->blks[i].da;
		ex[n].fsb = xfmt_geom_fsb(g, agno, agbno);
		ex[n].count = got;
		n++;
		*total += got;
		hint = agno;
		i += got / unit;
	}
	*out = ex;
	*next = n;
	return 0;
}

/* The filesystem block holding directory offset da, from the mapping. */
static uint64_t da_fsb(const struct ext *ex, size_t n, uint64_t da)
{
	for (size_t i = 0; i < n; i++)
		if (da >= ex[i].startoff && da < ex[i].startoff + ex[i].count)
			return ex[i].fsb + (da - ex[i].startoff);
	return UINT64_MAX;
}

/*
 * The new mapping into the inode's data fork: an extent list, or a bmbt
 * whose blocks are planned under action (*bmbt of them).  A mapping the
 * fork cannot hold is XERR_UNSUPPORTED, as no space is.
 */
static int write_map(struct xr_rp *rp, int action, uint64_t ino, uint8_t *buf,
		     const struct ext *ex, size_t nex, uint32_t *bmbt)
{
	struct xfmt_bmbt_rec *m = calloc(nex ? nex : 1, sizeof(*m));
	int rc;

	if (!m)
		return XERR_NOMEM;
	for (size_t i = 0; i < nex; i++)
		m[i] = (struct xfmt_bmbt_rec){ ex[i].startoff, ex[i].fsb, ex[i].count, false };
	rc = xr_fork_write(rp, action, ino, XR_DATA_FORK, buf, m, nex, bmbt);
	free(m);
	return rc == XERR_USAGE ? XERR_UNSUPPORTED : rc;
}

int rp_dir_write(struct xr_rp *rp, int action, uint64_t ino, uint64_t parent,
		 const struct xfmt_dirent_in *e, size_t n, uint32_t nlink)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_dir2_build b;
	struct xfmt_dinode d;
	struct ext *ex = NULL;
	size_t nex = 0, sfsize = 0;
	uint64_t total = 0;
	uint32_t bmbt = 0;
	uint8_t *buf, *fork;
	int rc;

	memset(&b, 0, sizeof(b));
	buf = malloc(g->inodesize);
	if (!buf)
		return XERR_NOMEM;
	rc = xr_plan_read(rp->plan, rp->ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (rc)
		goto out;
	if (xfmt_dinode_decode(buf, g->inodesize, g, &d) != 0 || d.magic != XFS_DINODE_MAGIC ||
	    d.dfork_off + d.dfork_size > g->inodesize) {
		rc = XERR_UNSUPPORTED;
		goto out;
	}
	fork = buf + d.dfork_off;

	rc = xfmt_dir2_sf_encode(g, parent, e, n, fork, d.dfork_size, &sfsize);
	if (rc == 0) {
		memset(fork + sfsize, 0, d.dfork_size - sfsize);
		xfmt_dinode_put_format(buf, XFS_DINODE_FMT_LOCAL);
		xfmt_dinode_put_size(buf, sfsize);
		xfmt_dinode_put_nextents(buf, &d, 0);
		xfmt_dinode_put_nblocks(buf, rp_attr_blocks(rp, ino));
	} else if (rc != XFMT_DIRB_NOFIT) {
		rc = map_err(rc);
		goto out;
	} else {
		rc = xfmt_dir2_build(g, ino, parent, e, n, NULL, &b);
		if (rc) {
			rc = map_err(rc);
			goto out;
		}
		rc = map_blocks(rp, ino, &b, &ex, &nex, &total);
		if (!rc)
			rc = write_map(rp, action, ino, buf, ex, nex, &bmbt);
		if (rc) {
			rp_space_unalloc(rp, ino);
			goto out;
		}
		for (size_t i = 0; i < b.nblks; i++) {
			uint64_t fsb = da_fsb(ex, nex, b.blks[i].da);
			uint64_t byte = xfmt_geom_fsb_byte(g, fsb);
			uint32_t agno = xfmt_geom_fsb_agno(g, fsb);

			xfmt_dir2_blk_seal(g, b.blks[i].buf, g->dirblksize, byte >> 9, ino, rp->env.lsn);
			rc = xr_plan_write(rp->plan, action, "dir", agno, xfmt_geom_fsb_agbno(g, fsb), ino,
					   byte, b.blks[i].buf, g->dirblksize);
			if (rc)
				goto out;
		}
		xfmt_dinode_put_size(buf, b.di_size);
		xfmt_dinode_put_nblocks(buf, rp_attr_blocks(rp, ino) + total + bmbt);
	}
	rc = release_data(rp, ino);
	if (rc)
		goto out;
	xfmt_dinode_put_nlink(buf, nlink);
	xfmt_dinode_seal(buf, g, ino, rp->env.lsn);
	rc = rp_write_inode(rp, action, ino, buf);
out:
	xfmt_dir2_build_release(&b);
	free(ex);
	free(buf);
	return rc;
}
