/*
 * repair.c - the repair planner's driver (see repair.h).
 *
 * Order of the phases, and why:
 *   1. inodes: which inodes are cleared or mended decides which blocks stay
 *      owned and which inodes stay allocated; then the namespace; then
 *      blocks claimed twice get one owner (crosslink.c);
 *   2. AGs: every AG whose headers, trees or counters are damaged, or whose
 *      ownership changed in phase 1, gets new free-space, inode, rmap and
 *      refcount trees, AGFL, AGF and AGI from what stays owned;
 *   3. superblocks: counters summed from the AGs, copies from the primary;
 *   4. the log: a dirty log the analyzer replayed goes into OUT (its
 *      sectors around the changes planned from the replayed view) with a
 *      clean log; one it did not replay is refused unless the user
 *      discards it.
 * Every finding an action covers is answered by it; error findings left
 * unanswered make the plan incomplete (exit 4), which the CLI reports.  The
 * kinds of action, and the fix classes of the findings each may answer, are
 * the table reconstruct/actions.def.
 */
#include "reconstruct/repair.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/log/log_stale.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "formats/dinode_enc.h"
#include "formats/geom.h"
#include "formats/lsn.h"
#include "reconstruct/log_clear.h"
#include "reconstruct/log_replay_plan.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"
#include "reconstruct/sb_write.h"

/* ------------------------------------------------------------------ */
/* Which findings an AG rebuild answers. */

static bool is_ag_finding(const struct xa_finding *f)
{
	unsigned fam = rp_family(f->p.code);

	if (!(f->p.has & XPROB_HAS_AG))
		return false;
	switch (fam) {
	case FAM_AGF:
	case FAM_AGI:
	case FAM_AGFL:
	case FAM_ICHUNK:
	case FAM_OWN:
		return true;
	case FAM_BTREE:
		/* bmbt blocks belong to an inode: the inode phase answers them */
		return !rp_is_bmbt_finding(f);
	case FAM_COUNTER:
		return f->p.code != XP_cntSbCounter;
	case FAM_INODE:
		/* the inobt's view of an inode: rebuilt from the inode cores */
		return f->p.code == XP_inoFreeButInUse || f->p.code == XP_inoUsedButFree;
	default:
		return false;
	}
}

/* The kept records of AG agno: forward ownership without the structures
 * the rebuild replaces and without what the inode phase released. */
static int ag_kept(struct xr_rp *rp, uint32_t agno, struct xa_ownlist *out)
{
	const struct xa_ownlist *fwd = xa_own_forward(rp->ctx, agno, NULL);

	for (size_t i = 0; fwd && i < fwd->n; i++) {
		const struct xa_ownrec *r = &fwd->recs[i];
		int rc;

		/* Leftover CoW staging extents are freed, as the kernel's
		 * mount and xfs_repair free them (finding cowLeftover). */
		if (r->owner == XFS_RMAP_OWN_AG || r->owner == XFS_RMAP_OWN_INOBT ||
		    r->owner == XFS_RMAP_OWN_REFC || r->owner == XFS_RMAP_OWN_COW)
			continue;
		if (rp_record_dropped(rp, r->owner, r->flags))
			continue;
		rc = xa_ownlist_add(out, r->agbno, r->len, r->owner, r->offset, r->flags);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < rp->ags[agno].added.n; i++) {
		const struct xa_ownrec *r = &rp->ags[agno].added.recs[i];
		int rc = xa_ownlist_add(out, r->agbno, r->len, r->owner, r->offset, r->flags);

		if (rc)
			return rc;
	}
	return 0;
}

/* The AG's inode chunks with free masks from the repaired inode cores: an
 * inode is in use when the check found it in use and the plan keeps it. */
static int ag_chunks(struct xr_rp *rp, uint32_t agno, struct xa_ichunk **out, size_t *n)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xa_ag *ag = &ctx->ags[agno];
	struct xa_ichunk *c;

	*out = NULL;
	*n = 0;
	if (!ag->nchunks)
		return 0;
	c = calloc(ag->nchunks, sizeof(*c));
	if (!c)
		return XERR_NOMEM;
	for (size_t i = 0; i < ag->nchunks; i++) {
		c[i] = ag->chunks[i];
		c[i].free = 0;
		c[i].freecount = 0;
		/* The count the holemask gives, not the one a damaged inobt record
		 * stored: the rebuilt record must satisfy the record verifier. */
		c[i].count = 0;
		for (unsigned j = 0; j < 16; j++)
			if (!(c[i].holemask & (1u << j)))
				c[i].count += 4;
		for (unsigned k = 0; k < 64; k++) {
			uint64_t ino = xfmt_geom_ino(&ctx->geom, agno, c[i].startino + k);
			bool used;

			if ((c[i].holemask >> (k / 4)) & 1) {
				c[i].free |= 1ull << k;  /* holes are recorded free */
				continue;
			}
			used = (xa_irec_find(ctx, ino) && !xa_u64set_has(&rp->cleared, ino)) ||
			       xa_u64set_has(&rp->new_inodes, ino);
			if (!used) {
				c[i].free |= 1ull << k;
				c[i].freecount++;
			}
		}
	}
	*out = c;
	*n = ag->nchunks;
	return 0;
}

static int plan_ag(struct xr_rp *rp, uint32_t agno)
{
	struct xa_ctx *ctx = rp->ctx;
	struct rp_ag *ra = &rp->ags[agno];
	struct xa_ownlist kept = { 0 };
	struct xa_ichunk *chunks = NULL;
	struct xr_ag_input in;
	size_t nchunks = 0;
	int rc;

	ra->blocked = rp_ag_blocked(rp, agno);
	if (ra->blocked) {
		rp->sum->ags_blocked++;
		return 0;
	}
	rc = ag_kept(rp, agno, &kept);
	if (!rc)
		rc = ag_chunks(rp, agno, &chunks, &nchunks);
	if (rc)
		goto out;
	rc = xr_plan_action(rp->plan, XR_ACT_REBUILD_AG, agno, 0,
			    "AG %" PRIu32 ": free-space, inode%s%s btrees, AGFL, AGF and AGI rebuilt "
			    "from %zu owned extents and %zu inode chunks", agno,
			    xfmt_geom_has_rmapbt(&ctx->geom) ? ", rmap" : "",
			    xfmt_geom_has_reflink(&ctx->geom) ? ", refcount" : "", kept.n, nchunks);
	if (rc < 0)
		goto out;
	ra->action = rc;
	in.agno = agno;
	in.kept = &kept;
	in.chunks = chunks;
	in.nchunks = nchunks;
	rc = xr_ag_rebuild(&rp->env, &in, ra->action, &ra->res);
	if (rc == XERR_UNSUPPORTED) {
		ra->blocked = "the rebuild found the owned extents inconsistent";
		rp->sum->ags_blocked++;
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	ra->have_res = true;
	rp->sum->ags_rebuilt++;
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];

		if (is_ag_finding(f) && f->p.agno == agno) {
			rc = rp_answer(rp, ra->action, i);
			if (rc)
				goto out;
		}
	}
out:
	xa_ownlist_release(&kept);
	free(chunks);
	return rc;
}

/* Record per AG what was decided and on whose word, for the report. */
static int note_ags(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct xr_plan *p = rp->plan;

	p->ag_notes = calloc(ctx->nags ? ctx->nags : 1, sizeof(*p->ag_notes));
	if (!p->ag_notes)
		return XERR_NOMEM;
	p->nag_notes = ctx->nags;
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ag *ag = &ctx->ags[a];
		const struct rp_ag *ra = &rp->ags[a];
		struct xr_ag_note *n = &p->ag_notes[a];

		n->agno = a;
		n->chunks = ag->chunks_from_rmap ? "rmapbt OWN_INODES records (the inode btree is unreadable)"
			  : ag->chunks_from_scan ? "a scan of the AG for inode blocks (the inode btree is unreadable, no rmapbt)"
						 : "inode btree";
		if (ra->have_res) {
			n->decision = "rebuilt";
			n->believed = xfmt_geom_has_rmapbt(&ctx->geom)
				? "primary metadata (inode forks, inode chunks, headers) for the new trees; "
				  "the rmapbt for inodes whose own map was lost"
				: "primary metadata (inode forks, inode chunks, headers)";
		} else if (ra->rebuild) {
			n->decision = "needed a rebuild that could not be done";
			n->believed = ra->blocked ? ra->blocked : "";
		} else {
			n->decision = "untouched";
			n->believed = "its own headers and trees (no damage found, nothing moved)";
		}
	}
	return 0;
}

/*
 * The superblock's root inode must be a directory in use, and not the
 * metadata tree's; when it is not, the root is where mkfs puts it, the first
 * inode of AG 0's first chunk, as xfs_repair computes it, when that inode is
 * such a directory.  The planner's copy of the superblock (written by the
 * superblock phase) takes it.
 */
static void fix_rootino(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xa_irec *r = xa_irec_find(ctx, ctx->sb.rootino);
	uint64_t want;

	if (r && (r->mode & 0170000u) == 0040000u && !r->metafile)
		return;
	if (!ctx->nags || !ctx->ags[0].nchunks)
		return;
	want = xfmt_geom_ino(&ctx->geom, 0, ctx->ags[0].chunks[0].startino);
	r = xa_irec_find(ctx, want);
	if (r && (r->mode & 0170000u) == 0040000u && !r->metafile) {
		ctx->sb.rootino = want;
		rp->root_fixed = true;
	}
}

/*
 * The superblock's metadirino naming no metadata directory while the tree's
 * root is elsewhere (sbMetadirInoWrong): the number the check found is
 * written back (rp_plan_metadir then finds the tree whole).
 */
static void fix_metadirino(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xa_irec *r, *next;
	uint64_t want = ctx->sb.rootino + 1;

	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];

		if (f->p.code == XP_sbMetadirInoWrong && (f->p.has & XPROB_HAS_EXPECTED)) {
			ctx->sb.metadirino = f->p.expected;
			rp->sb_fixed = true;
			return;
		}
	}
	/* No root found anywhere, and the number names a user's inode: the
	 * tree's root is made anew where mkfs puts it (and xfs_repair
	 * computes it), after the user's root, when that slot is no one's. */
	if (!xfmt_geom_has_metadir(&ctx->geom) || !xa_findings_have(&ctx->findings, XP_nsMetadirRootLost))
		return;
	r = xa_irec_find(ctx, ctx->sb.metadirino);
	next = xa_irec_find(ctx, want);
	if (!r || r->metafile || !(r->names || r->reached || r->ino == ctx->sb.rootino) ||
	    !xfmt_sb_ino_usable(&ctx->geom, ctx->sb.rootino) ||
	    !xfmt_sb_ino_usable(&ctx->geom, want) ||
	    (next && !next->metafile && (next->names || next->reached)) ||
	    !rp_chunk_of(ctx, want))
		return;
	ctx->sb.metadirino = want;
	rp->sb_fixed = true;
}

/* A fresh regular file at ino for a realtime inode mkfs would have made. */
static int new_rt_inode(struct xr_rp *rp, uint64_t ino, uint16_t flags, int action)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *buf = malloc(g->inodesize);
	int rc;

	if (!buf)
		return XERR_NOMEM;
	xfmt_dinode_new_encode(buf, g, ino, XFMT_S_IFREG, 1, flags, rp->env.lsn);
	rc = rp_write_inode(rp, action, ino, buf);
	free(buf);
	if (!rc && xa_u64set_add(&rp->new_inodes, ino) < 0)
		rc = XERR_NOMEM;
	if (!rc) {
		/* a core the inode phase cleared keeps its record */
		struct xa_irec *r = xa_irec_find(rp->ctx, ino);

		if (r)
			r->mode = XFMT_S_IFREG;
		else
			rc = rp_irec_insert(rp->ctx, ino, XFMT_S_IFREG);
	}
	if (!rc)
		rp_need_rebuild(rp, xfmt_geom_ino_agno(g, ino));
	return rc;
}

/*
 * The realtime bitmap and summary inodes, where the inode phase cleared
 * them or no inode is left at all (a zeroed sector of the first chunk),
 * made anew as mkfs makes them, and as xfs_repair does: only without a
 * realtime section, whose bitmap and summary they would have to describe
 * (there the findings stay unanswered).  Numbers that name an inode in
 * use of another type are left: that inode is someone's.
 */
static int recreate_rt_inodes(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	const uint64_t rt[] = { ctx->sb.rbmino, ctx->sb.rsumino };
	static const uint16_t flags[] = { XFS_DIFLAG_NEWRTBM, 0 };
	bool made[2] = { false, false };
	int action = -1, rc = 0;

	if (ctx->sb.rblocks || ctx->sb.rextents)
		return 0;
	for (unsigned i = 0; i < 2 && !rc; i++) {
		const struct xa_irec *r;

		if (rt[i] == XFS_NULLFSINO || !xfmt_sb_ino_usable(g, rt[i]) ||
		    (i == 1 && rt[1] == rt[0]))
			continue;
		if (xa_u64set_has(&rp->new_inodes, rt[i])) {
			made[i] = true;  /* recreate_root made it */
			continue;
		}
		r = xa_irec_find(ctx, rt[i]);
		if (r && !xa_u64set_has(&rp->cleared, rt[i]))
			continue;
		if (!rp_chunk_of(ctx, rt[i]))
			continue;
		if (action < 0) {
			action = xr_plan_action(rp->plan, XR_ACT_RECREATE_RT_INODES,
						xfmt_geom_ino_agno(g, rt[i]), rt[i],
						"realtime %s inode %" PRIu64 " made anew, empty (there is "
						"no realtime section)", i ? "summary" : "bitmap", rt[i]);
			if (action < 0)
				return action;
		}
		rc = new_rt_inode(rp, rt[i], flags[i], action);
		made[i] = !rc;
	}
	for (size_t k = 0; k < ctx->findings.count && !rc; k++) {
		const struct xa_finding *f = &ctx->findings.items[k];

		if (f->p.code != XP_nsRtInodeGone || action < 0)
			continue;
		for (unsigned i = 0; i < 2; i++)
			if (made[i] && f->p.observed == rt[i] && !rp->answered[k])
				rc = rp_answer(rp, action, k);
	}
	return rc;
}

/*
 * The root directory's inode chunk destroyed (the first megabytes of the
 * disk overwritten): the superblock the vote chose names the root where mkfs
 * put it, but no inode is there, and a secondary names no realtime inodes.
 * As xfs_repair does, the root is made anew, empty (the namespace phase
 * links what it cannot reach into lost+found, whole subtrees with their
 * directories), and so are the realtime bitmap and summary inodes right
 * after it, when the filesystem has no realtime section to describe.  The
 * other slots of that chunk become free inodes.
 */
/* Counts a salvaged directory entry (rp_dir_salvage's callback). */
static int count_entry(void *arg, const struct xfmt_dirent *de)
{
	(void)de;
	(*(uint64_t *)arg)++;
	return 0;
}

static int recreate_root(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t root = ctx->sb.rootino;
	const struct xa_ichunk *c;
	/* the inode phase cleared it (its core damaged): made anew the same
	 * way, keeping what its old core still says */
	bool cleared = xa_u64set_has(&rp->cleared, root), kept = false;
	/* a core that still read as an inode in use (only its fields were
	 * damaged), as against one gone with the rest of its chunk */
	bool had_core = xa_irec_find(ctx, root) != NULL;
	bool want_rt;
	int action, rc;

	if (!xfmt_sb_ino_usable(g, root) || (had_core && !cleared))
		return 0;
	c = rp_chunk_of(ctx, root);
	if (!c) {
		rc = rp_add_chunk(rp, root);
		if (rc)
			return rc == XERR_UNSUPPORTED ? 0 : rc;
		c = rp_chunk_of(ctx, root);
	}
	if (!c)
		return 0;
	want_rt = !had_core && xfmt_geom_ino_agino(g, root) + 2 < c->startino + 64u &&
		  ctx->sb.rblocks == 0 && ctx->sb.rextents == 0 &&
		  (ctx->sb.rbmino == XFS_NULLFSINO || ctx->sb.rbmino == root + 1) &&
		  (ctx->sb.rsumino == XFS_NULLFSINO || ctx->sb.rsumino == root + 2) &&
		  !xa_irec_find(ctx, root + 1) && !xa_irec_find(ctx, root + 2);
	action = xr_plan_action(rp->plan, XR_ACT_RECREATE_ROOT, 0, root,
				"root directory %" PRIu64 " recreated (%s)%s", root,
				had_core ? "its core was cleared" : "no inode is left there",
				want_rt ? "; realtime bitmap and summary inodes recreated after it" : "");
	if (action < 0)
		return action;
	rc = rp_plan_dir_core(rp, root, 0755, action, cleared, &kept);
	if (!rc) {
		struct xa_irec *r = xa_irec_find(ctx, root);

		if (r)
			r->mode = XFMT_S_IFDIR | 0755;
		else
			rc = rp_irec_insert(ctx, root, XFMT_S_IFDIR | 0755);
	}
	if (!rc && want_rt) {
		rc = new_rt_inode(rp, root + 1, XFS_DIFLAG_NEWRTBM, action);
		if (!rc)
			rc = new_rt_inode(rp, root + 2, 0, action);
		if (!rc) {
			ctx->sb.rbmino = root + 1;
			ctx->sb.rsumino = root + 2;
		}
	}
	if (!rc)
		rc = rp_reinit_taken_back(rp, root, action);
	if (!rc) {
		/* Nothing of the old core is left: its fields are made up.  Its
		 * entries come back where its blocks or the log still hold them
		 * (the name phase salvages them as for any directory whose core
		 * is gone; after the dead slots are known, which the log sweep
		 * looks for too). */
		uint64_t entries = 0, dotdot;
		struct xr_revived rv = {
			.ino = root, .mode = XFMT_S_IFDIR | 0755, .source = "none",
			.recovered = "", .synthesized = "mode uid gid times",
			.lost = "entries xattrs",
		};

		rc = rp_dir_salvage(rp, root, count_entry, &entries, &dotdot);
		if (rc > 0 && entries) {
			rv.source = rp->salvage_source;
			rv.lsn = rp->salvage_lsn;
			rv.recovered = kept ? "mode uid gid times entries" : "entries";
			rv.lost = "xattrs";
		}
		if (kept)
			rv.synthesized = "";
		rc = rc < 0 ? rc : xr_plan_revived(rp->plan, &rv);
	}
	if (rc)
		return rc;
	rp->root_fixed = true;
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];

		if (f->p.code == XP_nsRootNotDir || (want_rt && f->p.code == XP_nsRtInodeGone) ||
		    (want_rt && f->p.code == XP_sbBadRootIno && f->p.field &&
		     (!strcmp(f->p.field, "rbmino") || !strcmp(f->p.field, "rsumino")))) {
			rc = rp_answer(rp, action, i);
			if (rc)
				return rc;
		}
	}
	rp_need_rebuild(rp, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Superblocks and log. */

/* The summary counters of the repaired filesystem: rebuilt AGs say theirs,
 * the others what their trees held (as the counters pass computes them). */
static void sum_counters(struct xr_rp *rp, struct xr_sb_counts *c)
{
	struct xa_ctx *ctx = rp->ctx;
	bool has_rmap = xfmt_geom_has_rmapbt(&ctx->geom);

	memset(c, 0, sizeof(*c));
	/* Free realtime extents are not counted here (the bitmap is not
	 * read): kept, but never more than there are, and none without a
	 * realtime section. */
	c->frextents = ctx->sb.frextents > ctx->sb.rextents ? ctx->sb.rextents : ctx->sb.frextents;
	if (!ctx->sb.rblocks)
		c->frextents = 0;
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ag *ag = &ctx->ags[a];
		const struct rp_ag *ra = &rp->ags[a];
		const struct xa_btree_sum *bno = &ag->bt[XA_BT_BNO], *cnt = &ag->bt[XA_BT_CNT];
		const struct xa_btree_sum *rmap = &ag->bt[XA_BT_RMAP];

		if (ra->have_res) {
			c->icount += ra->res.icount;
			c->ifree += ra->res.ifree;
			c->fdblocks += ra->res.freeblks + ra->res.flcount + ra->res.btreeblks;
			continue;
		}
		c->icount += ag->bt[XA_BT_INO].walked ? ag->inodes : ag->agi.count;
		c->ifree += ag->bt[XA_BT_INO].walked ? ag->free_inodes : ag->agi.freecount;
		c->fdblocks += (bno->walked ? ag->free_blocks : ag->agf.freeblks) + ag->agf.flcount;
		if (bno->walked && cnt->walked && (!has_rmap || rmap->walked))
			c->fdblocks += (bno->blocks - 1) + (cnt->blocks - 1) +
				       (has_rmap ? rmap->blocks - 1 : 0);
		else
			c->fdblocks += ag->agf.btreeblks;
	}
}

static int plan_superblocks(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct xr_sb_counts c;
	unsigned what = 0;
	int action, rc;

	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		unsigned fam = rp_family(f->p.code);

		if (fam == FAM_SB || f->p.code == XP_cntSbCounter)
			what |= XR_SB_PRIMARY;
		/* a secondary copy's own fault (its AG is not 0) */
		if (fam == FAM_SB && (f->p.has & XPROB_HAS_AG) && f->p.agno != 0)
			what |= XR_SB_SECONDARIES;
		if (fam == FAM_SBCOPY)
			what |= XR_SB_PRIMARY | XR_SB_SECONDARIES;
	}
	if (ctx->geom_source != XA_GEOM_PRIMARY || rp->root_fixed || rp->sb_fixed)
		what |= XR_SB_PRIMARY;
	for (uint32_t a = 0; a < ctx->nags; a++)
		if (rp->ags[a].have_res)
			what |= XR_SB_PRIMARY;
	if (rp->cleared.used || rp->new_inodes.used)
		what |= XR_SB_PRIMARY;
	/* Dropping a dirty log drops the counter updates it held too; a
	 * replayed one leaves lazy counters for the mount to recompute, which
	 * we do here instead. */
	if (ctx->log_dirty && (rp->zero_log || ctx->log.replayed))
		what |= XR_SB_PRIMARY;
	if (!what)
		return 0;
	sum_counters(rp, &c);
	/* A quota inode number that names no inode is dropped (null), and the
	 * quota accounting must be checked again, as xfs_repair does. */
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		uint64_t *q = NULL;

		if (f->p.code != XP_sbBadQuotaIno || !f->p.field || ((f->p.has & XPROB_HAS_AG) && f->p.agno))
			continue;
		if (!strcmp(f->p.field, "uquotino"))
			q = &ctx->sb.uquotino;
		else if (!strcmp(f->p.field, "gquotino"))
			q = &ctx->sb.gquotino;
		else if (!strcmp(f->p.field, "pquotino"))
			q = &ctx->sb.pquotino;
		if (q) {
			/* (none is 0 under a metadata directory tree) */
			*q = xfmt_geom_has_metadir(&ctx->geom) ? 0 : XFS_NULLFSINO;
			c.quota_recheck = true;
		}
	}
	action = xr_plan_action(rp->plan, XR_ACT_REWRITE_SUPERBLOCKS, XR_NO_AG, 0,
				"%s rewritten from the %s superblock with recomputed counters",
				(what & XR_SB_SECONDARIES) ? "primary and secondary superblocks" :
							     "primary superblock",
				ctx->geom_source == XA_GEOM_PRIMARY ? "primary" : "voted secondary");
	if (action < 0)
		return action;
	rc = xr_sb_plan(&rp->env, &c, what, action);
	if (rc)
		return rc;
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		unsigned fam = rp_family(f->p.code);

		/* A primary rebuilt from a secondary names the realtime inodes the
		 * secondary lacked: they were never orphans. */
		bool rt_orphan = ctx->geom_source != XA_GEOM_PRIMARY &&
				 (f->p.code == XP_nsOrphan) && (f->p.has & XPROB_HAS_INO) &&
				 (f->p.ino == ctx->sb.rootino + 1 || f->p.ino == ctx->sb.rootino + 2);

		if (fam == FAM_SB || fam == FAM_SBCOPY || f->p.code == XP_cntSbCounter || rt_orphan ||
		    (rp->root_fixed && f->p.code == XP_nsRootNotDir)) {
			rc = rp_answer(rp, action, i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The findings logBehindMetadata answered by action; 0 or XERR_NOMEM. */
static int answer_lsn_order(struct xr_rp *rp, int action)
{
	for (size_t i = 0; i < rp->ctx->findings.count; i++) {
		if (rp->ctx->findings.items[i].p.code != XP_logBehindMetadata)
			continue;
		int rc = rp_answer(rp, action, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* A clean log behind the latest metadata LSN: written anew at a cycle
 * past it, as xfs_repair formats it. */
static int plan_log_ahead(struct xr_rp *rp, uint32_t cycle)
{
	const struct xa_meta_lsn *m = &rp->ctx->meta_lsn;
	int action, rc;

	action = xr_plan_action(rp->plan, XR_ACT_FORMAT_LOG, XR_NO_AG, 0,
				"metadata stamped with LSN %" PRIu32 "/%" PRIu32 " is at or past "
				"the log head: a clean log of cycle %" PRIu32 " written",
				(uint32_t)(m->lsn >> 32), (uint32_t)m->lsn, cycle);
	if (action < 0)
		return action;
	rc = xr_log_clear_plan(&rp->env, cycle, action);
	return rc ? rc : answer_lsn_order(rp, action);
}

/* A dirty log: replayed into OUT, or discarded as the user asked; either
 * way OUT gets a clean log of a later cycle.  A clean log gets one when
 * metadata is stamped past its head. */
static int plan_log(struct xr_rp *rp, uint32_t cycle)
{
	struct xa_ctx *ctx = rp->ctx;
	int action, rc;

	if (!ctx->log_dirty && cycle)
		return plan_log_ahead(rp, cycle);
	if (!ctx->log_dirty || (!rp->zero_log && !ctx->log.replayed))
		return 0;
	if (!rp->o->zero_log && rp->zero_log)
		action = xr_plan_action(rp->plan, XR_ACT_ZERO_LOG, XR_NO_AG, 0,
					"the log holds no record (its region was lost): nothing to "
					"discard; a clean log of cycle %" PRIu32 " written", cycle);
	else if (rp->zero_log)
		action = xr_plan_action(rp->plan, XR_ACT_ZERO_LOG, XR_NO_AG, 0,
					"dirty log discarded: a clean log of cycle %" PRIu32 " written",
					cycle);
	else
		action = xr_plan_action(rp->plan, XR_ACT_REPLAY_LOG, XR_NO_AG, 0,
					"dirty log replayed: %" PRIu64 " transactions, %" PRIu64
					" bytes of metadata; a clean log of cycle %" PRIu32 " written",
					ctx->log.st.transactions, ctx->log.st.bytes, cycle);
	if (action < 0)
		return action;
	rc = rp->zero_log ? 0 : xr_log_replay_plan(ctx, rp->plan, action);
	if (!rc)
		rc = xr_log_clear_plan(&rp->env, cycle, action);
	for (size_t i = 0; !rc && i < ctx->findings.count; i++) {
		enum xprob_code c = ctx->findings.items[i].p.code;

		if (c == XP_imageDirtyLog || c == XP_logTornHead || c == XP_logDamaged ||
		    c == XP_logBehindMetadata)
			rc = rp_answer(rp, action, i);
	}
	return rc;
}

/*
 * An answer outside the actions table (xr_plan_answer) is a bug of the
 * planner or of the table, not the input's fault: users get the plan all the
 * same, with a note (cli/cmd_repair.c).  With $XFSRECON_STRICT_ACTIONS set
 * (not "0"), as the test suite sets it, it fails the repair instead, so that
 * no test passes over one.
 */
static int table_check(const struct xr_plan *plan, char *err, size_t errlen)
{
	const char *strict = getenv("XFSRECON_STRICT_ACTIONS");

	if (!plan->mismatch.count || !strict || !*strict || !strcmp(strict, "0"))
		return 0;
	xr_plan_mismatch_text(plan, err, errlen);
	return XERR_USAGE;
}

/* ------------------------------------------------------------------ */

int xr_repair_plan(struct xa_ctx *ctx, const struct xr_repair_opts *o, struct xr_plan *plan,
		   struct xr_repair_summary *sum, char *err, size_t errlen)
{
	struct xr_rp rp;
	uint32_t log_cycle = 0;
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	memset(&rp, 0, sizeof(rp));
	if (ctx->geom_source == XA_GEOM_NONE) {
		snprintf(err, errlen, "no usable superblock: the geometry is unknown");
		return XERR_NOTXFS;
	}
	/* A metadata directory tree is kept as it is (its inodes are owned,
	 * named and counted like any other); a realtime section under it has
	 * realtime groups, their superblocks and btrees, which are read, not
	 * rebuilt: a repair written without them would lose them. */
	if (xfmt_geom_has_metadir(&ctx->geom) && ctx->geom.rblocks) {
		snprintf(err, errlen, "a filesystem with a metadata directory tree and a realtime "
			 "section (realtime groups, xfsprogs 6.13 or later) is checked and read, not "
			 "yet repaired");
		return XERR_UNSUPPORTED;
	}
	/* An external log is a device of its own, and this repair writes
	 * only the filesystem's: it must be known clean (given with --logdev),
	 * or discarded by choice with nothing of it left to replay. */
	if (ctx->geom.logstart == 0 && !o->zero_log && !ctx->log_checked) {
		snprintf(err, errlen, ctx->logdev ? "the external log's image could not be read whole "
			 "(or discard the log with --zero-log, as xfs_repair -L)" :
			 "the log is on an external device: give its image with --logdev "
			 "FILE (or discard it with --zero-log, as xfs_repair -L)");
		return XERR_UNSUPPORTED;
	}
	if (ctx->geom.logstart == 0 && ctx->log_dirty) {
		snprintf(err, errlen, "the external log is dirty, and this repair writes no log device: "
			 "replay it by mounting the filesystem with it, or clear it (xfs_repair -L -l "
			 "LOGDEV) first");
		return XERR_UNSUPPORTED;
	}
	xa_findings_sort(&ctx->findings);
	rp.ctx = ctx;
	rp.plan = plan;
	rp.o = o;
	rp.sum = sum;
	rp.env.ctx = ctx;
	rp.env.plan = plan;
	rp.env.g = &ctx->geom;
	rp.env.sb = &ctx->sb;
	rp.env.v5 = ctx->geom.v5;
	rp.env.lsn = ctx->log_last_lsn;
	rp.ags = calloc(ctx->nags ? ctx->nags : 1, sizeof(*rp.ags));
	rp.answered = calloc(ctx->findings.count ? ctx->findings.count : 1, sizeof(*rp.answered));
	if (!rp.ags || !rp.answered) {
		rc = XERR_NOMEM;
		goto out;
	}
	for (uint32_t a = 0; a < ctx->nags; a++)
		rp.ags[a].action = -1;

	sum->dirty_log = ctx->log_dirty;
	/* A dirty log in which no record header is left (its blocks zeroed
	 * or overwritten) holds nothing a discard would lose: a fresh log is
	 * written unasked, as xfs_repair does. */
	rp.zero_log = o->zero_log ||
		      (ctx->log_dirty && !ctx->log.bounds.found && !ctx->log.replayed);
	if (ctx->log_dirty && !rp.zero_log && !ctx->log.replayed) {
		sum->refused = true;
		goto count;
	}
	if (ctx->log_dirty || xa_findings_have(&ctx->findings, XP_logBehindMetadata)) {
		/* Metadata written now must not be ahead of the new log's head,
		 * nor may any metadata left as it is. */
		uint64_t max_lsn = xfmt_lsn_later(xfmt_lsn_later(ctx->log_last_lsn, ctx->sb.lsn),
						  ctx->meta_lsn.lsn);

		rc = xr_log_clear_cycle(&rp.env, max_lsn, &log_cycle);
		if (rc && !ctx->log_dirty) {
			/* No cycle fits past it: the finding stays unanswered. */
			log_cycle = 0;
			rc = 0;
		} else if (rc) {
			snprintf(err, errlen, "the dirty log cannot be discarded: %s", xerr_str(rc));
			goto out;
		} else {
			/* The cleared log's unmount record, behind its head. */
			rp.env.lsn = (uint64_t)log_cycle << 32;
		}
	}

	fix_rootino(&rp);
	fix_metadirino(&rp);
	/* The inode phase first: a root whose core is garbage is cleared
	 * there, then made anew here (the new core replaces the free one). */
	rc = rp_plan_inodes(&rp);
	if (!rc)
		rc = recreate_root(&rp);
	if (!rc)
		rc = recreate_rt_inodes(&rp);
	if (!rc)
		rc = rp_plan_metadir(&rp);
	if (!rc)
		rc = rp_plan_names(&rp);
	if (!rc)
		rc = rp_plan_crosslinks(&rp);
	if (rc)
		goto out;
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];

		if (is_ag_finding(f))
			rp_need_rebuild(&rp, f->p.agno);
	}
	for (uint32_t a = 0; a < ctx->nags; a++) {
		if (!rp.ags[a].rebuild)
			continue;
		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "rebuild", a, ctx->nags);
		rc = plan_ag(&rp, a);
		if (rc)
			goto out;
	}
	rc = note_ags(&rp);
	if (!rc)
		rc = rp_plan_missing_tail(&rp);
	if (!rc)
		rc = plan_superblocks(&rp);
	if (!rc)
		rc = plan_log(&rp, log_cycle);
	if (!rc)
		rc = table_check(plan, err, errlen);
	if (!rc)
		rc = xr_plan_finish(plan, ctx);
	if (rc)
		goto out;
count:
	for (size_t i = 0; i < ctx->findings.count; i++) {
		if (ctx->findings.items[i].p.code == XP_imageDirtyLog ||
		    xprob_severity_of(ctx->findings.items[i].p.code) != XSEV_ERROR)
			continue;
		sum->errors++;
		if (rp.answered[i])
			sum->answered++;
	}
	/* Findings past the store's bound are errors no action can name. */
	sum->errors += ctx->findings.dropped;
out:
	if (rc && err[0] == '\0')
		snprintf(err, errlen, "%s", xerr_str(rc));
	xa_u64set_release(&rp.cleared);
	xa_u64set_release(&rp.attr_dropped);
	xa_u64set_release(&rp.dir_rewritten);
	xa_u64set_release(&rp.new_inodes);
	xa_u64set_release(&rp.dead);
	free(rp.dscan);
	free(rp.lscan);
	xa_stale_release(&rp.stale);
	rp_pptr_release(&rp.pptrs);
	rp_rmap_owners_release(&rp.rmo);
	if (rp.ags)
		rp_space_release(&rp);
	free(rp.ags);
	free(rp.answered);
	return rc;
}
