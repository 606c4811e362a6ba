/*
 * crosslink.c - the planner's cross-link phase: blocks two owners claim
 * (ownCrossLinked) get one owner, so that the AG holding them can be
 * rebuilt.  Runs after the inode and namespace phases (inodes cleared and
 * directories rewritten there claim nothing any more) and before the AGs
 * are rebuilt.
 *
 * Who keeps the blocks (rule 4, evidence): the claims of each AG with a
 * cross-link are ranked and searched as the check searches them
 * (analyzer/check/crosslink.h):
 *   1. filesystem metadata (AG headers, log, inode chunks, AG btree
 *      blocks; not leftover CoW staging, which the repair frees) - the
 *      walks verified it; but a btree block the
 *      check found damaged is weak evidence and ranks last (its tree is
 *      rebuilt elsewhere anyway);
 *   2. an inode's bmbt block - verified by the fork walk;
 *   3. file data and attr blocks: the claim the rmapbt names, then the
 *      inode with no error finding of its own, then the lower inode number
 *      (the first claim in the order xfs_repair walks inodes).
 * What the loser gets: first, where the rmapbt has a record of the loser's
 * own at that file offset on blocks nobody owns now, those blocks (its
 * mapping's startblock strayed onto the winner's: the reverse map says where
 * it was); else, where the winner is file data, the blocks hold data
 * both files read until now, so the loser gets its own copy of them on new
 * blocks (nothing is lost, unlike xfs_repair, which clears the later
 * inode); where the winner is metadata, the bytes were never the file's
 * data, so the loser's mapping becomes a hole (an attr fork that would
 * lose blocks to metadata is left alone: the AG then stays unrebuilt).
 * The loser's fork is written anew (extent list, or a new bmbt), its
 * ownership replaced, every AG it touched rebuilt.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/crosslink.h"
#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/btrec.h"
#include "formats/dinode_enc.h"
#include "reconstruct/fork_write.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

/* One run of blocks a fork loses. */
struct loss {
	uint64_t ino;
	uint32_t attr;       /* XA_OWN_ATTR or 0 */
	uint64_t fileoff;
	uint32_t agno, agbno, len;
	bool     copy;       /* the winner is file data: the loser gets a copy */
};

struct xl_state {
	struct xr_rp       *rp;
	uint32_t            agno;
	struct xa_xlink_ev  ev;
	const struct xa_ownlist *rmap;    /* NULL when the rmapbt is no evidence */
	uint32_t           *weak;         /* damaged AG btree blocks, sorted */
	size_t              nweak;
	struct xa_u64set   *damaged;      /* inodes with error findings of their own */
	struct loss        *loss;
	size_t              nloss, cap;
};

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_loss(const void *x, const void *y)
{
	const struct loss *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->attr != b->attr)
		return a->attr < b->attr ? -1 : 1;
	return a->fileoff < b->fileoff ? -1 : a->fileoff > b->fileoff;
}

/* Is a block of [agbno, agbno + len) one the check found damaged? */
static bool weak_range(const struct xl_state *st, uint32_t agbno, uint32_t len)
{
	size_t lo = 0, hi = st->nweak;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->weak[mid] < agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nweak && (uint64_t)st->weak[lo] < (uint64_t)agbno + len;
}

static uint64_t xl_rank(void *arg, const struct xa_ownrec *r)
{
	struct xl_state *st = arg;
	uint64_t named, bad;

	if (xa_owner_is_special(r->owner)) {
		bool tree = r->owner == XFS_RMAP_OWN_AG || r->owner == XFS_RMAP_OWN_INOBT ||
			    r->owner == XFS_RMAP_OWN_REFC;

		return (tree && weak_range(st, r->agbno, r->len)) ? 3ull << 60 : 0;
	}
	if (r->flags & XA_OWN_BMBT)
		return 1ull << 60;
	named = st->rmap && xa_xlink_rmap_names(st->rmap, r, r->agbno, r->len) ? 0 : 1;
	bad = xa_u64set_has(st->damaged, r->owner) ? 1 : 0;
	return (2ull << 60) | (named << 59) | (bad << 58) | (r->owner & ((1ull << 58) - 1));
}

static bool xl_share(void *arg, const struct xa_ownrec *a, const struct xa_ownrec *b,
		     uint32_t agbno, uint32_t len)
{
	struct xl_state *st = arg;

	return xa_xlink_shared(&st->ev, a, b, agbno, len);
}

static int xl_conflict(void *arg, const struct xa_xlink *x)
{
	struct xl_state *st = arg;
	const struct xa_ownrec *l = x->loser, *w = x->winner;
	bool w_file = !xa_owner_is_special(w->owner) && !(w->flags & XA_OWN_BMBT);

	/* A special loser is an AG btree block (rebuilt elsewhere anyway) or
	 * metadata against metadata (the rebuild refuses it). */
	if (xa_owner_is_special(l->owner) || (l->flags & XA_OWN_BMBT))
		return 0;
	if (l->owner == w->owner && l->flags == w->flags &&
	    (uint64_t)l->agbno - l->offset == (uint64_t)w->agbno - w->offset)
		return 0;   /* one mapping listed twice */
	if ((l->flags & XA_OWN_ATTR) && !w_file)
		return 0;   /* an attr fork cannot have a hole */
	if (st->nloss == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 16;
		struct loss *n = realloc(st->loss, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		st->loss = n;
		st->cap = ncap;
	}
	st->loss[st->nloss++] = (struct loss){
		l->owner, l->flags & XA_OWN_ATTR, l->offset + (x->agbno - l->agbno),
		st->agno, x->agbno, x->len, w_file,
	};
	return 0;
}

/* The claims of AG agno as the rebuild will see them, metadata included
 * (the old AG btree blocks too: a file must not keep them as data), but
 * not leftover CoW staging extents, which the repair frees. */
static int ag_claims(struct xr_rp *rp, uint32_t agno, struct xa_ownlist *out)
{
	const struct xa_ownlist *fwd = xa_own_forward(rp->ctx, agno, NULL);
	int rc = 0;

	for (size_t i = 0; fwd && i < fwd->n && !rc; i++) {
		const struct xa_ownrec *r = &fwd->recs[i];

		if (r->owner != XFS_RMAP_OWN_COW && !rp_record_dropped(rp, r->owner, r->flags))
			rc = xa_ownlist_add(out, r->agbno, r->len, r->owner, r->offset, r->flags);
	}
	for (size_t i = 0; i < rp->ags[agno].added.n && !rc; i++) {
		const struct xa_ownrec *r = &rp->ags[agno].added.recs[i];

		rc = xa_ownlist_add(out, r->agbno, r->len, r->owner, r->offset, r->flags);
	}
	if (!rc)
		xa_ownlist_sort(out);
	return rc;
}

/* Damaged AG btree blocks of agno: btree findings not about a bmbt. */
static int weak_blocks(struct xl_state *st)
{
	const struct xa_findings *f = &st->rp->ctx->findings;
	size_t n = 0;

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];

		if (rp_family(x->p.code) == FAM_BTREE && (x->p.has & XPROB_HAS_AG) &&
		    (x->p.has & XPROB_HAS_AGBNO) && x->p.agno == st->agno && !rp_is_bmbt_finding(x))
			n++;
	}
	if (!n)
		return 0;
	st->weak = malloc(n * sizeof(*st->weak));
	if (!st->weak)
		return XERR_NOMEM;
	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];

		if (rp_family(x->p.code) == FAM_BTREE && (x->p.has & XPROB_HAS_AG) &&
		    (x->p.has & XPROB_HAS_AGBNO) && x->p.agno == st->agno && !rp_is_bmbt_finding(x))
			st->weak[st->nweak++] = x->p.agbno;
	}
	if (st->nweak > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(st->weak, st->nweak, sizeof(*st->weak), cmp_u32);
	return 0;
}

/* Collect the losses of AG agno into st (appending). */
static int ag_losses(struct xl_state *st, uint32_t agno)
{
	struct xr_rp *rp = st->rp;
	struct xa_ctx *ctx = rp->ctx;
	const struct xa_ag *ag = &ctx->ags[agno];
	struct xa_ownlist claims = { 0 };
	struct xa_xlink_ops ops = { xl_rank, xl_share, xl_conflict, st };
	int rc;

	st->agno = agno;
	memset(&st->ev, 0, sizeof(st->ev));
	st->ev.reflink = xfmt_geom_has_reflink(&ctx->geom);
	st->ev.refc = xa_own_refc(ctx, agno);
	st->ev.refc_ok = ag->agf_ok && ag->bt[XA_BT_REFC].walked;
	st->ev.rmap = xa_own_rmap(ctx, agno);
	st->ev.rmap_ok = xfmt_geom_has_rmapbt(&ctx->geom) && ag->agf_ok &&
			 ag->bt[XA_BT_RMAP].walked;
	st->rmap = st->ev.rmap_ok ? st->ev.rmap : NULL;
	st->weak = NULL;
	st->nweak = 0;
	rc = weak_blocks(st);
	if (!rc)
		rc = ag_claims(rp, agno, &claims);
	if (!rc)
		rc = xa_xlink_find(claims.recs, claims.n, &ops);
	/* A search cut short (hostile input) resolves what it found; the
	 * rebuild refuses what is left. */
	if (rc == XA_XLINK_TRUNCATED)
		rc = 0;
	xa_xlink_ev_release(&st->ev);
	xa_ownlist_release(&claims);
	free(st->weak);
	st->weak = NULL;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Moving one fork's losses. */

/* Blocks of ino's bmbt in one fork, as the plan stands. */
static uint64_t fork_bmbt_blocks(struct xr_rp *rp, uint64_t ino, uint32_t attr)
{
	uint64_t n = 0;

	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		const struct xa_ownlist *l = xa_own_forward(rp->ctx, a, NULL);

		for (size_t i = 0; l && i < l->n; i++) {
			const struct xa_ownrec *r = &l->recs[i];

			if (r->owner == ino && (r->flags & XA_OWN_BMBT) &&
			    (r->flags & XA_OWN_ATTR) == attr && !rp_record_dropped(rp, ino, r->flags))
				n += r->len;
		}
		for (size_t i = 0; i < rp->ags[a].added.n; i++) {
			const struct xa_ownrec *r = &rp->ags[a].added.recs[i];

			if (r->owner == ino && (r->flags & XA_OWN_BMBT) && (r->flags & XA_OWN_ATTR) == attr)
				n += r->len;
		}
	}
	return n;
}

/* Give back what was allocated since the snapshot of every AG's list. */
static void rollback(struct xr_rp *rp, const size_t *snap)
{
	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		struct rp_ag *ra = &rp->ags[a];

		for (size_t i = snap[a]; i < ra->added.n; i++) {
			const struct xa_ownrec *r = &ra->added.recs[i];

			for (uint32_t b = r->agbno; ra->space_ready && b < r->agbno + r->len; b++)
				xa_bitmap_clear(&ra->used, b);
		}
		ra->added.n = snap[a];
	}
}

struct copy_job {
	uint64_t from_fsb, to_fsb;
	uint32_t len;
};

struct remap {
	struct xfmt_bmbt_rec *m;       /* the new mappings */
	size_t                nm, mcap;
	struct copy_job      *cp;
	size_t                ncp, cpcap;
	struct xfmt_bmbt_rec *kept;    /* old mappings kept (ownership re-added) */
	size_t                nkept, kcap;
	uint64_t              holes, copied, restored;
};

static int push_rec(struct xfmt_bmbt_rec **v, size_t *n, size_t *cap, uint64_t off, uint64_t fsb,
		    uint64_t len, bool unwritten)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct xfmt_bmbt_rec *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return XERR_NOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[*n] = (struct xfmt_bmbt_rec){ .startoff = off, .startblock = fsb,
					   .blockcount = len, .unwritten = unwritten };
	(*n)++;
	return 0;
}

/* New blocks for a lost run [off, off + len) of mapping m: allocated,
 * mapped, and its bytes queued for copying. */
static int copy_run(struct xr_rp *rp, uint64_t ino, uint32_t attr, const struct loss *ls,
		    const struct xfmt_bmbt_rec *m, uint64_t off, uint64_t len, struct remap *rm)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	while (len) {
		uint32_t want = len > (1u << 20) ? (1u << 20) : (uint32_t)len, agno, agbno, got;
		uint64_t from = m->startblock + (off - m->startoff);
		int rc = rp_space_alloc(rp, ls->agno, want, 1, ino, off,
					attr | (m->unwritten ? XA_OWN_UNWRITTEN : 0), &agno, &agbno, &got);

		if (rc)
			return rc;
		rc = push_rec(&rm->m, &rm->nm, &rm->mcap, off, xfmt_geom_fsb(g, agno, agbno), got,
			      m->unwritten);
		if (rc)
			return rc;
		if (rm->ncp == rm->cpcap) {
			size_t ncap = rm->cpcap ? rm->cpcap * 2 : 8;
			struct copy_job *n = realloc(rm->cp, ncap * sizeof(*n));

			if (!n)
				return XERR_NOMEM;
			rm->cp = n;
			rm->cpcap = ncap;
		}
		rm->cp[rm->ncp++] = (struct copy_job){ from, xfmt_geom_fsb(g, agno, agbno), got };
		rm->copied += got;
		off += got;
		len -= got;
	}
	return 0;
}

/*
 * Where the rmapbt says the fork kept [off, off + len) itself: a record of
 * ino (this fork, not a bmbt block) covering off, at blocks the forward map
 * gives nobody and the plan has not handed out.  A mapping whose startblock
 * strayed onto another owner's blocks (a flipped bit) then takes its own
 * blocks back instead of a copy of the other's bytes.  The blocks restored
 * from off on (at most len; 0 when the rmapbt offers none), or a negative
 * xerr.
 */
static int64_t rmap_restore(struct xr_rp *rp, uint64_t ino, uint32_t attr, uint64_t off,
			    uint64_t len, bool unwritten, struct remap *rm)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;

	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ownlist *rl = xa_own_rmap(ctx, a);
		const struct xa_bitmap *own;

		if (!rl || !ctx->ags[a].bt[XA_BT_RMAP].walked || !(own = rp_space_owned(rp, a)))
			continue;
		for (size_t i = 0; i < rl->n; i++) {
			const struct xa_ownrec *r = &rl->recs[i];
			uint64_t n;
			uint32_t agbno;
			bool free_here = true;
			int rc;

			if (r->owner != ino || (r->flags & XA_OWN_ATTR) != attr ||
			    (r->flags & XA_OWN_BMBT) || off < r->offset || off - r->offset >= r->len ||
			    r->agbno >= xfmt_geom_ag_length(g, a) ||
			    r->len > xfmt_geom_ag_length(g, a) - r->agbno)
				continue;
			agbno = r->agbno + (uint32_t)(off - r->offset);
			n = r->offset + r->len - off;
			n = n < len ? n : len;
			for (uint64_t k = 0; k < n && free_here; k++)
				free_here = !xa_bitmap_test(own, agbno + (uint32_t)k);
			if (!free_here)
				continue;
			rc = push_rec(&rm->m, &rm->nm, &rm->mcap, off, xfmt_geom_fsb(g, a, agbno), n,
				      unwritten);
			if (!rc)
				rc = push_rec(&rm->kept, &rm->nkept, &rm->kcap, off,
					      xfmt_geom_fsb(g, a, agbno), n, unwritten);
			if (rc)
				return rc;
			rp_space_hold(rp, a, agbno, (uint32_t)n);
			rm->restored += n;
			return (int64_t)n;
		}
	}
	return 0;
}

/*
 * The new map of a fork: ex's mappings with the runs of ls (n of them,
 * sorted by file offset) copied or cut out.  XERR_UNSUPPORTED when a loss
 * does not sit where the fork maps it (the map is not what the check saw).
 */
static int remap_fork(struct xr_rp *rp, uint64_t ino, uint32_t attr, const struct xa_extents *ex,
		      const struct loss *ls, size_t n, struct remap *rm)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	size_t li = 0, matched = 0;
	int rc = 0;

	for (size_t k = 0; k < ex->n && !rc; k++) {
		const struct xfmt_bmbt_rec *m = &ex->v[k];
		uint64_t off = m->startoff, end = m->startoff + m->blockcount;

		while (off < end && !rc) {
			uint64_t run;

			while (li < n && ls[li].fileoff + ls[li].len <= off)
				li++;
			if (li < n && ls[li].fileoff <= off) {
				uint64_t fsb = m->startblock + (off - m->startoff);
				uint64_t want = xfmt_geom_fsb(g, ls[li].agno,
							      ls[li].agbno + (uint32_t)(off - ls[li].fileoff));

				if (fsb != want)
					return XERR_UNSUPPORTED;
				run = ls[li].fileoff + ls[li].len - off;
				run = run < end - off ? run : end - off;
				if (ls[li].copy) {
					int64_t got = rmap_restore(rp, ino, attr, off, run,
								   m->unwritten, rm);

					if (got < 0)
						rc = (int)got;
					else if ((uint64_t)got < run)
						rc = copy_run(rp, ino, attr, &ls[li], m,
							      off + (uint64_t)got,
							      run - (uint64_t)got, rm);
				} else {
					rm->holes += run;
				}
				if (off == ls[li].fileoff)
					matched++;
			} else {
				run = (li < n && ls[li].fileoff < end ? ls[li].fileoff : end) - off;
				rc = push_rec(&rm->m, &rm->nm, &rm->mcap, off,
					      m->startblock + (off - m->startoff), run, m->unwritten);
				if (!rc)
					rc = push_rec(&rm->kept, &rm->nkept, &rm->kcap, off,
						      m->startblock + (off - m->startoff), run,
						      m->unwritten);
			}
			off += run;
		}
	}
	if (!rc && matched != n)
		rc = XERR_UNSUPPORTED;   /* a loss the fork does not map */
	return rc;
}

/* Plan the copies of rm under action, in pieces of at most 256 blocks. */
static int plan_copies(struct xr_rp *rp, int action, uint64_t ino, const struct remap *rm)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *buf = malloc((size_t)256 << g->blocklog);
	int rc = 0;

	if (!buf)
		return XERR_NOMEM;
	for (size_t i = 0; i < rm->ncp && !rc; i++) {
		for (uint32_t done = 0; done < rm->cp[i].len && !rc;) {
			uint32_t k = rm->cp[i].len - done < 256 ? rm->cp[i].len - done : 256;
			uint64_t to = rm->cp[i].to_fsb + done;
			size_t bytes = (size_t)k << g->blocklog;

			rc = xr_plan_read(rp->plan, rp->ctx, xfmt_geom_fsb_byte(g, rm->cp[i].from_fsb + done),
					  buf, bytes);
			if (!rc)
				rc = xr_plan_write(rp->plan, action, "file-data", xfmt_geom_fsb_agno(g, to),
						   xfmt_geom_fsb_agbno(g, to), ino,
						   xfmt_geom_fsb_byte(g, to), buf, bytes);
			done += k;
		}
	}
	free(buf);
	return rc;
}

/* The fork's old records are replaced: drop them, re-add what stays,
 * rebuild every AG that held one. */
static int replace_ownership(struct xr_rp *rp, uint64_t ino, uint32_t attr, const struct remap *rm)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	for (uint32_t a = 0; a < rp->ctx->nags; a++) {
		const struct xa_ownlist *l = xa_own_forward(rp->ctx, a, NULL);

		for (size_t i = 0; l && i < l->n; i++)
			if (l->recs[i].owner == ino && (l->recs[i].flags & XA_OWN_ATTR) == attr) {
				rp_need_rebuild(rp, a);
				break;
			}
	}
	if (xa_u64set_add(attr ? &rp->attr_dropped : &rp->dir_rewritten, ino) < 0)
		return XERR_NOMEM;
	for (size_t i = 0; i < rm->nkept; i++) {
		const struct xfmt_bmbt_rec *k = &rm->kept[i];
		uint32_t agno = xfmt_geom_fsb_agno(g, k->startblock);
		int rc;

		if (agno >= rp->ctx->nags)
			continue;
		rc = xa_ownlist_add(&rp->ags[agno].added, xfmt_geom_fsb_agbno(g, k->startblock),
				    (uint32_t)k->blockcount, ino, k->startoff,
				    attr | (k->unwritten ? XA_OWN_UNWRITTEN : 0));
		if (rc)
			return rc;
		rp_need_rebuild(rp, agno);
	}
	return 0;
}

/* The cross-link findings of ino, and where its own blocks came back from
 * the rmapbt (restored), its remote symlink block's findings: they were
 * read from the other owner's block. */
static int answer_findings(struct xr_rp *rp, int action, uint64_t ino, bool restored)
{
	const struct xa_findings *f = &rp->ctx->findings;

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];
		bool sym = restored && (x->p.has & XPROB_HAS_INO) && x->p.ino == ino &&
			   (x->p.code == XP_symBadOwner || x->p.code == XP_symHdrMismatch ||
			    x->p.code == XP_symBadBlkno);
		int rc;

		if (!sym && (x->p.code != XP_ownCrossLinked || !(x->p.has & XPROB_HAS_OWNERS) ||
			     (x->p.owners[0].owner != ino && x->p.owners[1].owner != ino)))
			continue;
		rc = rp_answer(rp, action, i);
		if (rc)
			return rc;
	}
	return 0;
}

/* Move the n losses of one fork of ino; a fork that cannot be moved is
 * left as it is (its AG is then not rebuilt). */
static int move_fork(struct xr_rp *rp, const struct loss *ls, size_t n, size_t *snap)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t ino = ls[0].ino, old_bmbt;
	uint32_t attr = ls[0].attr;
	int fork = attr ? XR_ATTR_FORK : XR_DATA_FORK, action, rc;
	struct xa_inode ip = { 0 };
	struct xa_extents ex = { 0 };
	struct remap rm;
	struct xr_fork f;
	uint8_t *buf = malloc(g->inodesize);

	memset(&rm, 0, sizeof(rm));
	memset(&f, 0, sizeof(f));
	if (!buf)
		return XERR_NOMEM;
	for (uint32_t a = 0; a < ctx->nags; a++)
		snap[a] = rp->ags[a].added.n;
	rc = xr_plan_read(rp->plan, ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (rc)
		goto out;
	ip.ino = ino;
	ip.raw = buf;
	ip.len = g->inodesize;
	if (xfmt_dinode_decode(buf, g->inodesize, g, &ip.d) != 0 || ip.d.magic != XFS_DINODE_MAGIC)
		goto out;    /* not an inode the plan keeps: nothing to move */
	rc = xa_extents_load(ctx, &ip, attr ? XA_ATTR_FORK : XA_DATA_FORK, &ex);
	if (rc)
		goto out;
	if (!ex.complete)
		goto out;
	old_bmbt = fork_bmbt_blocks(rp, ino, attr);
	rc = remap_fork(rp, ino, attr, &ex, ls, n, &rm);
	if (!rc)
		rc = xr_fork_build(rp, ino, fork, buf, rm.m, rm.nm, &f);
	if (rc == XERR_UNSUPPORTED || rc == XERR_USAGE) {
		rollback(rp, snap);   /* no space, or a map the fork cannot hold */
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	{
		uint64_t nb = ip.d.nblocks - (old_bmbt < ip.d.nblocks ? old_bmbt : ip.d.nblocks);

		nb = nb > rm.holes ? nb - rm.holes : 0;
		xfmt_dinode_put_nblocks(buf, nb + f.nblocks);
	}
	xfmt_dinode_seal(buf, g, ino, rp->env.lsn);
	action = xr_plan_action(rp->plan, XR_ACT_RESOLVE_CROSSLINK, ls[0].agno, ino,
				"inode %" PRIu64 ": %s-fork blocks another owner keeps: %" PRIu64
				" mapped back to the blocks the rmapbt says were its own, %" PRIu64
				" copied to new blocks (the other owner is file data), %" PRIu64
				" left as a hole (filesystem metadata owns them)%s", ino,
				attr ? "attr" : "data", rm.restored, rm.copied, rm.holes,
				f.nblocks ? "; mapped by a new bmbt" : "");
	if (action < 0) {
		rc = action;
		goto out;
	}
	rc = plan_copies(rp, action, ino, &rm);
	if (!rc)
		rc = xr_fork_plan(rp, action, ino, &f);
	if (!rc)
		rc = rp_write_inode(rp, action, ino, buf);
	if (!rc)
		rc = replace_ownership(rp, ino, attr, &rm);
	if (!rc)
		rc = answer_findings(rp, action, ino, rm.restored > 0);
out:
	xr_fork_release(&f);
	xa_extents_release(&ex);
	free(rm.m);
	free(rm.cp);
	free(rm.kept);
	free(buf);
	return rc;
}

/* Inodes with an error finding of their own (not an ownership one). */
static int damaged_inodes(struct xa_ctx *ctx, struct xa_u64set *set)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *x = &ctx->findings.items[i];

		if ((x->p.has & XPROB_HAS_INO) && rp_family(x->p.code) != FAM_OWN &&
		    xprob_severity_of(x->p.code) == XSEV_ERROR &&
		    xa_u64set_add(set, x->p.ino) < 0)
			return XERR_NOMEM;
	}
	return 0;
}

int rp_plan_crosslinks(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct xl_state st;
	struct xa_u64set damaged = { 0 };
	bool *want = NULL, any = false;
	size_t *snap = NULL;
	int rc = 0;

	memset(&st, 0, sizeof(st));
	want = calloc(ctx->nags ? ctx->nags : 1, sizeof(*want));
	snap = calloc(ctx->nags ? ctx->nags : 1, sizeof(*snap));
	if (!want || !snap) {
		rc = XERR_NOMEM;
		goto out;
	}
	/* Only AGs the check found a cross-link in (all of them when findings
	 * were dropped past the store's bound). */
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *x = &ctx->findings.items[i];

		if (x->p.code == XP_ownCrossLinked && (x->p.has & XPROB_HAS_AG) &&
		    x->p.agno < ctx->nags) {
			want[x->p.agno] = true;
			any = true;
		}
	}
	if (ctx->findings.dropped) {
		for (uint32_t a = 0; a < ctx->nags; a++)
			want[a] = true;
		any = true;
	}
	if (!any)
		goto out;
	rc = damaged_inodes(ctx, &damaged);
	st.rp = rp;
	st.damaged = &damaged;
	for (uint32_t a = 0; a < ctx->nags && !rc; a++)
		if (want[a] && !rp_ag_blocked(rp, a))
			rc = ag_losses(&st, a);
	if (rc || !st.nloss)
		goto out;
	if (st.nloss > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(st.loss, st.nloss, sizeof(*st.loss), cmp_loss);
	for (size_t i = 0; i < st.nloss && !rc;) {
		size_t j = i + 1;

		while (j < st.nloss && st.loss[j].ino == st.loss[i].ino &&
		       st.loss[j].attr == st.loss[i].attr)
			j++;
		/* a fork cleared or rewritten by an earlier phase loses nothing */
		if (!rp_record_dropped(rp, st.loss[i].ino, st.loss[i].attr))
			rc = move_fork(rp, st.loss + i, j - i, snap);
		i = j;
	}
out:
	xa_u64set_release(&damaged);
	free(st.loss);
	free(want);
	free(snap);
	return rc;
}
