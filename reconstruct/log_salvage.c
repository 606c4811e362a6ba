/*
 * log_salvage.c - inodes whose core is gone brought back whole from the last
 * copy the log region holds of them (log_stale.h).
 *
 * Where a chunk of inodes was zeroed with the tree that indexed it (the
 * start of a disk overwritten), nothing on disk says what those inodes
 * were; xfs_repair loses them.  The log often does: every change to an
 * inode logs its core and, for small forks, the fork itself, and the
 * records stay in the log region long after.  An inode comes back from
 * such a copy only when everything in it still holds: it decodes and
 * verifies as an inode in use, its forks are short-form, device or extent
 * lists (a bmbt root names blocks that may have moved since), and every
 * block its extents name is one nothing else owns now (a stale copy whose
 * blocks were freed and reused would cross-link), and a remote symlink's
 * blocks still hold its target.  Each is reported with
 * the LSN of the copy: it is the inode as of then.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/log/log_stale.h"
#include "analyzer/model/bitmap.h"
#include "formats/bmap.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/geom.h"
#include "formats/log_item.h"
#include "formats/symlink.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

struct errcount {
	unsigned errors;
};

static void count_error(void *arg, const struct xprob *p)
{
	struct errcount *c = arg;

	if (xprob_severity_of(p->code) == XSEV_ERROR)
		c->errors++;
}

/* The extents of one fork of buf (decoded d), into *recs (owned); -1 when
 * the fork is not one a stale copy can be trusted with. */
static int fork_extents(const uint8_t *buf, const struct xfmt_dinode *d, int whichfork,
			struct xfmt_bmbt_rec **recs, size_t *n)
{
	size_t size;
	const uint8_t *fork = xfmt_dinode_fork(buf, d, whichfork, &size);
	uint8_t fmt = whichfork == XFMT_DATA_FORK ? d->format : d->aformat;
	uint64_t next = whichfork == XFMT_DATA_FORK ? d->nextents : d->anextents;

	*recs = NULL;
	*n = 0;
	if (!fork)
		return 0;
	if (fmt == XFS_DINODE_FMT_LOCAL || fmt == XFS_DINODE_FMT_DEV)
		return 0;
	if (fmt != XFS_DINODE_FMT_EXTENTS || next > xfmt_bmap_extents_capacity(size))
		return -1;
	if (!next)
		return 0;
	*recs = calloc(next, sizeof(**recs));
	if (!*recs)
		return XERR_NOMEM;
	*n = xfmt_bmap_extents_decode(fork, size, next, *recs, next);
	return 0;
}

/* Every block of recs lies in a known AG and is owned by nothing now. */
static bool blocks_free(struct xr_rp *rp, const struct xfmt_bmbt_rec *recs, size_t n)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	for (size_t i = 0; i < n; i++) {
		uint32_t agno = xfmt_geom_fsb_agno(g, recs[i].startblock);
		uint32_t agbno = xfmt_geom_fsb_agbno(g, recs[i].startblock);
		const struct xa_bitmap *own = rp_space_owned(rp, agno);

		if (!own || (uint64_t)agbno + recs[i].blockcount > xfmt_geom_ag_length(g, agno))
			return false;
		for (uint64_t b = agbno; b < (uint64_t)agbno + recs[i].blockcount; b++)
			if (xa_bitmap_test(own, b))
				return false;
	}
	return true;
}

/* A remote symlink's blocks still hold its target: the copy's map is only
 * worth reviving where they do (a zeroed block would come back as a link
 * the kernel refuses to read). */
static bool remote_target_holds(struct xr_rp *rp, uint64_t ino, uint64_t size,
				const struct xfmt_bmbt_rec *recs, size_t n)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct errcount ec = { 0 };
	struct xprob_sink sink = { count_error, &ec };
	struct xfmt_symlink_asm a;
	uint8_t *buf;
	bool ok = true;

	buf = malloc((size_t)g->blocksize * 4);
	if (!buf)
		return false;
	xfmt_symlink_asm_init(&a, g, ino, size);
	/* a target spans at most XFMT_SYMLINK_MAPS mappings, 1 KiB in all */
	for (size_t i = 0; i < n && i < XFMT_SYMLINK_MAPS && !xfmt_rmt_cursor_done(&a.cur); i++) {
		uint32_t nb = recs[i].blockcount < 4 ? (uint32_t)recs[i].blockcount : 4;
		uint64_t byte = xfmt_geom_fsb_byte(g, recs[i].startblock);
		size_t len = (size_t)nb << g->blocklog;

		if (ximg_pread(rp->ctx->img, buf, len, byte) != 0) {
			ok = false;
			break;
		}
		xfmt_symlink_asm_add(&a, buf, len, byte >> XFS_BB_SHIFT, g, &sink);
	}
	xfmt_symlink_asm_finish(&a, &sink);
	free(buf);
	return ok && ec.errors == 0 && a.cur.have == size;
}

/* The blocks of recs become ino's (fork flags) for the AG rebuilds. */
static int claim(struct xr_rp *rp, uint64_t ino, const struct xfmt_bmbt_rec *recs, size_t n,
		 uint32_t flags)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	for (size_t i = 0; i < n; i++) {
		uint32_t agno = xfmt_geom_fsb_agno(g, recs[i].startblock);
		uint32_t agbno = xfmt_geom_fsb_agbno(g, recs[i].startblock);
		int rc = xa_ownlist_add(&rp->ags[agno].added, agbno, (uint32_t)recs[i].blockcount, ino,
					recs[i].startoff,
					flags | (recs[i].unwritten ? XA_OWN_UNWRITTEN : 0));

		if (rc)
			return rc;
		rp_space_hold(rp, agno, agbno, (uint32_t)recs[i].blockcount);
		rp_need_rebuild(rp, agno);
	}
	return 0;
}

/* Bring ino back from its stale copy when it holds; *done says so. */
static int revive_from_copy(struct xr_rp *rp, const struct xa_stale_inode *si, bool *done)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_bmbt_rec *data = NULL, *attr = NULL;
	size_t ndata = 0, nattr = 0;
	struct errcount ec = { 0 };
	struct xprob_sink sink = { count_error, &ec };
	struct xfmt_dinode d;
	uint8_t *buf = NULL;
	int action, rc = 0;

	*done = false;
	if (!(si->fields & XFS_ILOG_CORE) ||
	    xfmt_dinode_decode(si->dip, g->inodesize, g, &d) != 0 || !xfmt_dinode_in_use(&d) ||
	    d.nlink == 0)
		return 0;
	/* A directory with blocks is revived from its blocks (dir_salvage.c),
	 * whose entries are newer than any copy of its map: here only the
	 * short-form ones, whose entries are the copy. */
	if ((d.mode & XFMT_S_IFMT) == XFMT_S_IFDIR && d.format != XFS_DINODE_FMT_LOCAL)
		return 0;
	/* a copy that names a fork it never logged holds no fork */
	if ((d.format == XFS_DINODE_FMT_LOCAL && !(si->fields & XFS_ILOG_DDATA)) ||
	    (d.format == XFS_DINODE_FMT_EXTENTS && d.nextents && !(si->fields & XFS_ILOG_DEXT)) ||
	    (d.forkoff && d.aformat == XFS_DINODE_FMT_LOCAL && !(si->fields & XFS_ILOG_ADATA)) ||
	    (d.forkoff && d.aformat == XFS_DINODE_FMT_EXTENTS && d.anextents &&
	     !(si->fields & XFS_ILOG_AEXT)))
		return 0;
	buf = malloc(g->inodesize);
	if (!buf)
		return XERR_NOMEM;
	memcpy(buf, si->dip, g->inodesize);
	xfmt_dinode_put_next_unlinked(buf, 0xFFFFFFFFu);
	xfmt_dinode_seal(buf, g, si->ino, rp->env.lsn);
	if (xfmt_dinode_decode(buf, g->inodesize, g, &d) != 0)
		goto out;
	xfmt_dinode_verify(buf, g->inodesize, g, si->ino, &d, &sink);
	if (ec.errors)
		goto out;
	rc = fork_extents(buf, &d, XFMT_DATA_FORK, &data, &ndata);
	if (rc == 0)
		rc = fork_extents(buf, &d, XFMT_ATTR_FORK, &attr, &nattr);
	if (rc < 0 && rc != -1)
		goto out;
	if (rc == -1 || !blocks_free(rp, data, ndata) || !blocks_free(rp, attr, nattr) ||
	    ((d.mode & XFMT_S_IFMT) == XFMT_S_IFLNK && d.format == XFS_DINODE_FMT_EXTENTS &&
	     !remote_target_holds(rp, si->ino, d.size, data, ndata))) {
		rc = 0;
		goto out;
	}
	action = xr_plan_action(rp->plan, XR_ACT_REVIVE_FROM_LOG, xfmt_geom_ino_agno(g, si->ino),
				si->ino, "inode %" PRIu64 " brought back whole from its copy in the "
				"log (LSN %" PRIu64 "): mode %06o, %zu extents", si->ino, si->lsn,
				d.mode, ndata + nattr);
	if (action < 0) {
		rc = action;
		goto out;
	}
	rc = rp_write_inode(rp, action, si->ino, buf);
	if (!rc)
		rc = rp_answer_entries(rp, action, si->ino);
	if (!rc)
		rc = claim(rp, si->ino, data, ndata, 0);
	if (!rc)
		rc = claim(rp, si->ino, attr, nattr, XA_OWN_ATTR);
	if (!rc && xa_u64set_add(&rp->new_inodes, si->ino) < 0)
		rc = XERR_NOMEM;
	if (!rc) {
		struct xa_irec *r = xa_irec_find(ctx, si->ino);

		/* the mode as revived (the damaged core's may be garbage: the
		 * namespace writes file types from it) */
		if (r)
			r->mode = d.mode;
		else
			rc = rp_irec_insert(ctx, si->ino, d.mode);
	}
	if (!rc) {
		struct xr_revived rv = {
			.ino = si->ino, .mode = d.mode, .source = "log", .lsn = si->lsn,
			.recovered = (d.mode & XFMT_S_IFMT) == XFMT_S_IFDIR
				? "mode uid gid times size nlink flags entries xattrs"
				: "mode uid gid times size nlink flags extents xattrs",
			.synthesized = "", .lost = "", .size = d.size, .size_from = "log",
		};

		rc = xr_plan_revived(rp->plan, &rv);
	}
	if (!rc) {
		rp_need_rebuild(rp, xfmt_geom_ino_agno(g, si->ino));
		*done = true;
	}
out:
	free(data);
	free(attr);
	free(buf);
	return rc;
}

bool rp_stale_in_use(struct xr_rp *rp, uint64_t ino)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	const struct xa_stale_inode *si = rp_stale_inode(rp, ino);
	struct xfmt_dinode d;

	return si && (si->fields & XFS_ILOG_CORE) &&
	       xfmt_dinode_decode(si->dip, g->inodesize, g, &d) == 0 && xfmt_dinode_in_use(&d) &&
	       d.nlink > 0;
}

int rp_revive_from_log(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	int rc = 0;

	if (!rp->cleared.used && !rp->dead.used)
		return 0;
	rc = rp_stale_prepare(rp);
	for (size_t i = 0; i < rp->stale.ninodes && !rc; i++) {
		const struct xa_stale_inode *si = &rp->stale.inodes[i];
		bool cleared = xa_u64set_has(&rp->cleared, si->ino), done;

		/* only slots nothing else fills: cleared and not brought back
		 * otherwise, or dead in a chunk taken back */
		if (!si->dip || si->ino == ctx->sb.rootino || xa_u64set_has(&rp->new_inodes, si->ino) ||
		    xa_is_metadata_inode(ctx, si->ino) ||
		    !(cleared || xa_u64set_has(&rp->dead, si->ino)) ||
		    (!cleared && xa_irec_find(ctx, si->ino)))
			continue;
		rc = revive_from_copy(rp, si, &done);
	}
	return rc;
}
