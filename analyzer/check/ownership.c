/*
 * ownership.c - the forward ownership map of every AG and its cross-checks
 * against the rmapbt and the free-space btree (see ownership.h).
 *
 * Why a forward map built from the walks rather than a second scan: the
 * btrees and inodes passes already read every block that names an owner, so
 * noting what they see costs no extra I/O; only the header sectors, the
 * AGFL and the log (which no walk visits) are added here.
 * Why both sides are merged before comparing: see ownrec.c.
 */
#include "analyzer/check/ownership.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/crosslink.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/check/reflink_flag.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/sorted.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/agfl.h"
#include "formats/btrec.h"

/* Unmatched records of one start block compared pairwise only up to this
 * many (hostile trees could put every record on one block). */
#define PAIR_MAX 64

struct own_ag {
	bool              complete; /* both sides were complete and compared */
	struct xa_ownlist fwd;    /* forward: what primary metadata says */
	struct xa_ownlist rmap;   /* observed: the rmapbt's records */
	struct xa_ownlist free;   /* bnobt extents (owner and offset unused) */
	struct xa_ownlist refc;   /* refcountbt shared extents (owner holds the count) */
	/* Which AG structure each AG-owned block is (owner = enum xa_own_kind),
	 * for the views that name a block's structure; kept with the lists. */
	struct xa_ownlist kinds;
};

struct xa_own {
	struct own_ag *ags;
	uint32_t       nags;
	bool           incomplete;   /* some inode or fork could not be read */
	struct xa_u64set reflinked;  /* inodes with the reflink flag */
	struct xa_u64set unflagged;  /* inodes reported for sharing without it */
};

int xa_own_begin(struct xa_ctx *ctx)
{
	struct xa_own *own;

	if (ctx->own)
		return 0;
	own = calloc(1, sizeof(*own));
	if (!own)
		return XERR_NOMEM;
	own->ags = calloc(ctx->nags ? ctx->nags : 1, sizeof(*own->ags));
	if (!own->ags) {
		free(own);
		return XERR_NOMEM;
	}
	own->nags = ctx->nags;
	ctx->own = own;
	return 0;
}

static void own_ag_release(struct own_ag *oa)
{
	xa_ownlist_release(&oa->fwd);
	xa_ownlist_release(&oa->rmap);
	xa_ownlist_release(&oa->free);
	xa_ownlist_release(&oa->refc);
	xa_ownlist_release(&oa->kinds);
}

void xa_own_free(struct xa_own **ownp)
{
	struct xa_own *own = *ownp;

	if (!own)
		return;
	for (uint32_t i = 0; i < own->nags; i++)
		own_ag_release(&own->ags[i]);
	xa_u64set_release(&own->reflinked);
	xa_u64set_release(&own->unflagged);
	free(own->ags);
	free(own);
	*ownp = NULL;
}

static struct own_ag *ag_of(struct xa_ctx *ctx, uint32_t agno)
{
	if (!ctx->own || agno >= ctx->own->nags)
		return NULL;
	return &ctx->own->ags[agno];
}

int xa_own_note_btree_block(struct xa_ctx *ctx, uint32_t agno, enum xfmt_btnum bt,
			    uint32_t agbno)
{
	struct own_ag *oa = ag_of(ctx, agno);
	uint64_t owner;

	if (!oa)
		return 0;
	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT:
	case XFMT_BT_RMAP:
		owner = XFS_RMAP_OWN_AG;
		break;
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		owner = XFS_RMAP_OWN_INOBT;
		break;
	case XFMT_BT_REFC:
		owner = XFS_RMAP_OWN_REFC;
		break;
	default:
		return 0;
	}
	if (xa_ownlist_add(&oa->kinds, agbno, 1, (uint64_t)bt, 0, 0))
		return XERR_NOMEM;
	return xa_ownlist_add(&oa->fwd, agbno, 1, owner, 0, 0);
}

int xa_own_note_free(struct xa_ctx *ctx, uint32_t agno, uint32_t agbno, uint32_t len)
{
	struct own_ag *oa = ag_of(ctx, agno);

	return oa && len ? xa_ownlist_add(&oa->free, agbno, len, 0, 0, 0) : 0;
}

int xa_own_note_rmap(struct xa_ctx *ctx, uint32_t agno, const uint8_t *rec)
{
	struct own_ag *oa = ag_of(ctx, agno);
	struct xfmt_rmap_rec r;
	struct xa_ownrec o;

	if (!oa)
		return 0;
	xfmt_rmap_rec_decode(rec, &r);
	xa_ownrec_from_rmap(&r, &o);
	return xa_ownlist_add(&oa->rmap, o.agbno, o.len, o.owner, o.offset, o.flags);
}

int xa_own_note_refc(struct xa_ctx *ctx, uint32_t agno, const uint8_t *rec)
{
	struct own_ag *oa = ag_of(ctx, agno);
	struct xfmt_refc_rec r;

	if (!oa)
		return 0;
	xfmt_refc_rec_decode(rec, &r);
	if (!r.blockcount)
		return 0;
	if (!r.cow)
		return xa_ownlist_add(&oa->refc, r.startblock, r.blockcount, r.refcount, 0, 0);
	return xa_ownlist_add(&oa->fwd, r.startblock, r.blockcount, XFS_RMAP_OWN_COW, 0, 0);
}

int xa_own_note_bmbt_block(struct xa_ctx *ctx, uint64_t ino, int whichfork, uint64_t fsb)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct own_ag *oa = ag_of(ctx, xfmt_geom_fsb_agno(g, fsb));

	if (!oa)
		return 0;
	return xa_ownlist_add(&oa->fwd, xfmt_geom_fsb_agbno(g, fsb), 1, ino, 0,
			      XA_OWN_BMBT | (whichfork == XA_ATTR_FORK ? XA_OWN_ATTR : 0));
}

int xa_own_fork_rec(void *arg, const struct xfmt_bmbt_rec *r)
{
	struct xa_own_fork *f = arg;
	const struct xfmt_geom *g = &f->ctx->geom;
	struct own_ag *oa;
	uint32_t flags = 0;

	if (f->realtime || !r->blockcount || !xfmt_geom_fsb_valid(g, r->startblock))
		return 0;
	oa = ag_of(f->ctx, xfmt_geom_fsb_agno(g, r->startblock));
	if (!oa)
		return 0;
	if (f->whichfork == XA_ATTR_FORK)
		flags |= XA_OWN_ATTR;
	if (r->unwritten)
		flags |= XA_OWN_UNWRITTEN;
	return xa_ownlist_add(&oa->fwd, xfmt_geom_fsb_agbno(g, r->startblock), r->blockcount,
			      f->ino, r->startoff, flags);
}

int xa_own_note_reflink(struct xa_ctx *ctx, uint64_t ino)
{
	if (!ctx->own)
		return 0;
	return xa_u64set_add(&ctx->own->reflinked, ino) < 0 ? XERR_NOMEM : 0;
}

void xa_own_mark_incomplete(struct xa_ctx *ctx)
{
	if (ctx->own)
		ctx->own->incomplete = true;
}

/* ------------------------------------------------------------------ */
/* What no walk visits: header sectors, AGFL, internal log, inode chunks. */

static int add_agfl(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa, bool *ok)
{
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, 0, 0,
			      xfmt_geom_ag_byte(&ctx->geom, ag->agno) + 3ull * ctx->geom.sectsize,
			      "agfl" };
	struct xfmt_agfl agfl;
	struct xbuf *b = NULL;
	int rc = 0;

	if (xa_read(ctx, loc.byte, ctx->geom.sectsize, &b, &loc) != 0) {
		*ok = false;
		return 0;
	}
	if (xfmt_agfl_decode(b->data, b->len, &ctx->geom, &agfl) != 0 ||
	    ag->agf.flcount > agfl.size) {
		*ok = false;
	} else {
		for (uint32_t i = 0; i < ag->agf.flcount && !rc; i++) {
			uint32_t bno = xfmt_agfl_active(&agfl, &ag->agf, i);

			if (bno >= ag->length) {
				*ok = false;  /* reported by the AGFL verifier */
				continue;
			}
			rc = xa_ownlist_add(&oa->fwd, bno, 1, XFS_RMAP_OWN_AG, 0, 0);
			if (!rc)
				rc = xa_ownlist_add(&oa->kinds, bno, 1, XA_KIND_AGFL, 0, 0);
		}
	}
	xa_put(ctx, &b);
	return rc;
}

static int add_chunks(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t run_start = 0, run_end = 0;   /* pending OWN_INODES run [start, end) */
	int rc = 0;

	for (size_t c = 0; c < ag->nchunks && !rc; c++) {
		const struct xa_ichunk *ch = &ag->chunks[c];

		for (unsigned i = 0; i < XFS_INODES_PER_CHUNK; i++) {
			uint32_t agino = ch->startino + i, agbno;

			if ((ch->holemask >> (i / 4)) & 1)
				continue;
			if (!xfmt_geom_agino_valid(g, ag->agno, agino))
				break;
			agbno = xfmt_geom_agino_agbno(g, agino);
			/* Several inodes share a block; with more than 64 inodes
			 * per block, several chunks share one too. */
			if (agbno >= run_start && agbno < run_end)
				continue;
			if (agbno == run_end && run_end > run_start) {
				run_end++;
				continue;
			}
			if (run_end > run_start) {
				rc = xa_ownlist_add(&oa->fwd, (uint32_t)run_start,
						    (uint32_t)(run_end - run_start),
						    XFS_RMAP_OWN_INODES, 0, 0);
				if (rc)
					return rc;
			}
			run_start = agbno;
			run_end = (uint64_t)agbno + 1;
		}
	}
	if (!rc && run_end > run_start)
		rc = xa_ownlist_add(&oa->fwd, (uint32_t)run_start, (uint32_t)(run_end - run_start),
				    XFS_RMAP_OWN_INODES, 0, 0);
	return rc;
}

static int add_static(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa, bool *ok)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t hdr_blocks = ((4ull * g->sectsize) + g->blocksize - 1) >> g->blocklog;
	int rc;

	rc = xa_ownlist_add(&oa->fwd, 0, (uint32_t)hdr_blocks, XFS_RMAP_OWN_FS, 0, 0);
	if (!rc && ag->agf_ok && ag->agfl_ok)
		rc = add_agfl(ctx, ag, oa, ok);
	if (!rc && g->logstart && xfmt_geom_fsb_valid(g, g->logstart) &&
	    xfmt_geom_fsb_agno(g, g->logstart) == ag->agno && g->logblocks)
		rc = xa_ownlist_add(&oa->fwd, xfmt_geom_fsb_agbno(g, g->logstart), g->logblocks,
				    XFS_RMAP_OWN_LOG, 0, 0);
	if (!rc)
		rc = add_chunks(ctx, ag, oa);
	return rc;
}

/* Every walk that contributes owners reached all of its tree. */
static bool forward_complete(const struct xa_ctx *ctx, const struct xa_ag *ag)
{
	const struct xfmt_geom *g = &ctx->geom;

	if (ctx->own->incomplete || !ag->agf_ok || !ag->agi_ok || !ag->agfl_ok)
		return false;
	if (!ag->bt[XA_BT_BNO].walked || !ag->bt[XA_BT_CNT].walked || !ag->bt[XA_BT_INO].walked)
		return false;
	if (xfmt_geom_has_finobt(g) && !ag->bt[XA_BT_FINO].walked)
		return false;
	if (xfmt_geom_has_rmapbt(g) && !ag->bt[XA_BT_RMAP].walked)
		return false;
	if (xfmt_geom_has_reflink(g) && !ag->bt[XA_BT_REFC].walked)
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Findings. */

static void report_rec2(struct xa_ctx *ctx, const struct xa_ag *ag, const struct xa_ownrec *r,
			enum xprob_code code, uint64_t expected, uint64_t observed,
			const struct xa_ownrec *other)
{
	struct xa_loc loc = {
		XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, r->agbno, 0,
		xfmt_geom_agbno_byte(&ctx->geom, ag->agno, r->agbno), "rmapbt",
	};
	struct xprob p = {
		.code = code, .has = XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED | XPROB_HAS_OFF,
		.field = xa_ownrec_kind(r), .off = r->offset,
		.expected = expected, .observed = observed,
	};

	if (!xa_owner_is_special(r->owner)) {
		loc.has |= XPROB_HAS_INO;
		loc.ino = r->owner;
	}
	/* The renderer shows the inode instead of the block when both are set;
	 * the messages name the block themselves. */
	p.agbno = r->agbno;
	if (other) {
		/* both owners by name: a special owner is no number to a reader */
		p.has |= XPROB_HAS_OWNERS;
		p.owners[0] = (struct xprob_owner){ r->owner, r->offset, r->flags };
		p.owners[1] = (struct xprob_owner){ other->owner, other->offset, other->flags };
	}
	xa_findings_add(&ctx->findings, &p, &loc);
}

static void report_rec(struct xa_ctx *ctx, const struct xa_ag *ag, const struct xa_ownrec *r,
		       enum xprob_code code, uint64_t expected, uint64_t observed)
{
	report_rec2(ctx, ag, r, code, expected, observed, NULL);
}

static void report_space(struct xa_ctx *ctx, const struct xa_ag *ag, enum xprob_code code,
			 uint64_t agbno, uint64_t len)
{
	struct xa_loc loc = {
		XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, (uint32_t)agbno, 0,
		xfmt_geom_agbno_byte(&ctx->geom, ag->agno, (uint32_t)agbno), "free space",
	};

	xa_report(ctx, &loc, code, NULL, 0, len, XPROB_HAS_OBSERVED);
}

/* ------------------------------------------------------------------ */
/* Free space against ownership: disjoint, and together the whole AG. */

static int cmp_start(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	if (a->agbno != b->agbno)
		return a->agbno < b->agbno ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len;
}

static void check_space(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa)
{
	const struct xa_ownlist *own = &oa->fwd, *fr = &oa->free;
	uint64_t owned_end = 0, free_end = 0;
	size_t i = 0, j = 0;

	/* fwd is in key order, which is start order; the bnobt's order is
	 * only trusted after sorting. */
	xa_sort(oa->free.recs, oa->free.n, sizeof(*oa->free.recs), cmp_start);
	while (i < own->n || j < fr->n) {
		bool take_owned = j >= fr->n || (i < own->n && own->recs[i].agbno <= fr->recs[j].agbno);
		const struct xa_ownrec *r = take_owned ? &own->recs[i++] : &fr->recs[j++];
		uint64_t s = r->agbno, e = (uint64_t)r->agbno + r->len;
		uint64_t covered = owned_end > free_end ? owned_end : free_end;

		/* Extents past the AG end were reported by the record verifiers. */
		if (s >= ag->length)
			continue;
		if (e > ag->length)
			e = ag->length;
		if (s > covered)
			report_space(ctx, ag, XP_spaceUnaccounted, covered, s - covered);
		if (take_owned) {
			if (s < free_end)
				report_space(ctx, ag, XP_spaceFreeAndOwned, s,
					     (e < free_end ? e : free_end) - s);
			if (e > owned_end)
				owned_end = e;
		} else {
			if (s < owned_end)
				report_space(ctx, ag, XP_spaceFreeAndOwned, s,
					     (e < owned_end ? e : owned_end) - s);
			if (e > free_end)
				free_end = e;
		}
	}
	{
		uint64_t covered = owned_end > free_end ? owned_end : free_end;

		if (covered < ag->length)
			report_space(ctx, ag, XP_spaceUnaccounted, covered, ag->length - covered);
	}
}

/* ------------------------------------------------------------------ */
/* Forward records against rmapbt records, one start block at a time. */

static void pair_mismatch(struct xa_ctx *ctx, struct xa_ag *ag, const struct xa_ownrec *f,
			  const struct xa_ownrec *r)
{
	if (f->owner != r->owner)
		report_rec2(ctx, ag, f, XP_rmapWrongOwner, f->owner, r->owner, r);
	else if ((f->flags & (XA_OWN_ATTR | XA_OWN_BMBT | XA_OWN_UNWRITTEN)) !=
		 (r->flags & (XA_OWN_ATTR | XA_OWN_BMBT | XA_OWN_UNWRITTEN)))
		report_rec(ctx, ag, f, XP_rmapWrongFlags, f->flags, r->flags);
	else if (f->offset != r->offset)
		report_rec(ctx, ag, f, XP_rmapWrongOffset, f->offset, r->offset);
	else
		report_rec(ctx, ag, f, XP_rmapWrongLength, f->len, r->len);
}

static void compare_group(struct xa_ctx *ctx, struct xa_ag *ag, const struct xa_ownrec *f,
			  size_t nf, const struct xa_ownrec *r, size_t nr)
{
	bool fm[PAIR_MAX], rm[PAIR_MAX];
	size_t i = 0, j = 0, lf = 0, lr = 0;
	const struct xa_ownrec *left_f[PAIR_MAX], *left_r[PAIR_MAX];
	bool pairable;

	/* Exact matches first: both slices are sorted by the full key. */
	while (i < nf || j < nr) {
		int c = i >= nf ? 1 : j >= nr ? -1 : xa_ownrec_cmp(&f[i], &r[j]);

		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (lf < PAIR_MAX)
				left_f[lf] = &f[i];
			lf++;
			i++;
		} else {
			if (lr < PAIR_MAX)
				left_r[lr] = &r[j];
			lr++;
			j++;
		}
	}
	pairable = lf <= PAIR_MAX && lr <= PAIR_MAX;
	if (!pairable) {
		/* Too many to pair: report each leftover on its own. */
		i = j = 0;
		while (i < nf || j < nr) {
			int c = i >= nf ? 1 : j >= nr ? -1 : xa_ownrec_cmp(&f[i], &r[j]);

			if (c == 0) {
				i++;
				j++;
			} else if (c < 0) {
				report_rec(ctx, ag, &f[i], XP_rmapMissing, f[i].len, 0);
				i++;
			} else {
				report_rec(ctx, ag, &r[j], XP_rmapUnowned, 0, r[j].len);
				j++;
			}
		}
		return;
	}
	memset(fm, 0, sizeof(fm));
	memset(rm, 0, sizeof(rm));
	/* Same owner: the offset, flags or length differ. */
	for (i = 0; i < lf; i++)
		for (j = 0; j < lr; j++)
			if (!rm[j] && left_f[i]->owner == left_r[j]->owner) {
				pair_mismatch(ctx, ag, left_f[i], left_r[j]);
				fm[i] = rm[j] = true;
				break;
			}
	/* Different owners on the same blocks. */
	for (i = 0, j = 0; i < lf; i++) {
		if (fm[i])
			continue;
		while (j < lr && rm[j])
			j++;
		if (j < lr) {
			pair_mismatch(ctx, ag, left_f[i], left_r[j]);
			fm[i] = rm[j] = true;
		} else {
			report_rec(ctx, ag, left_f[i], XP_rmapMissing, left_f[i]->len, 0);
		}
	}
	for (j = 0; j < lr; j++)
		if (!rm[j])
			report_rec(ctx, ag, left_r[j], XP_rmapUnowned, 0, left_r[j]->len);
}

static void compare_rmap(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa)
{
	const struct xa_ownlist *F = &oa->fwd, *R = &oa->rmap;
	size_t i = 0, j = 0;

	while (i < F->n || j < R->n) {
		uint32_t g;
		size_t i2 = i, j2 = j;

		if (i >= F->n)
			g = R->recs[j].agbno;
		else if (j >= R->n)
			g = F->recs[i].agbno;
		else
			g = F->recs[i].agbno < R->recs[j].agbno ? F->recs[i].agbno : R->recs[j].agbno;
		while (i2 < F->n && F->recs[i2].agbno == g)
			i2++;
		while (j2 < R->n && R->recs[j2].agbno == g)
			j2++;
		compare_group(ctx, ag, F->recs + i, i2 - i, R->recs + j, j2 - j);
		i = i2;
		j = j2;
	}
}

const struct xa_ownlist *xa_own_forward(const struct xa_ctx *ctx, uint32_t agno, bool *complete)
{
	const struct own_ag *oa;

	if (!ctx->own || agno >= ctx->own->nags)
		return NULL;
	oa = &ctx->own->ags[agno];
	if (complete)
		*complete = oa->complete;
	return &oa->fwd;
}

const struct xa_ownlist *xa_own_rmap(const struct xa_ctx *ctx, uint32_t agno)
{
	if (!ctx->own || agno >= ctx->own->nags)
		return NULL;
	return &ctx->own->ags[agno].rmap;
}

const struct xa_ownlist *xa_own_refc(const struct xa_ctx *ctx, uint32_t agno)
{
	if (!ctx->own || agno >= ctx->own->nags)
		return NULL;
	return &ctx->own->ags[agno].refc;
}

int xa_own_kind(const struct xa_ctx *ctx, uint32_t agno, uint32_t agbno)
{
	const struct own_ag *oa;
	size_t lo = 0, hi;

	if (!ctx->own || agno >= ctx->own->nags)
		return -1;
	oa = &ctx->own->ags[agno];
	hi = oa->kinds.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (oa->kinds.recs[mid].agbno < agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < oa->kinds.n && oa->kinds.recs[lo].agbno == agbno ?
		(int)oa->kinds.recs[lo].owner : -1;
}

const struct xa_ownlist *xa_own_free_list(const struct xa_ctx *ctx, uint32_t agno)
{
	if (!ctx->own || agno >= ctx->own->nags)
		return NULL;
	return &ctx->own->ags[agno].free;
}

/* ------------------------------------------------------------------ */
/* Reference counts: the refcountbt against the sharing the file mappings
 * show.  Both sides become step functions (block -> owners) and are
 * compared segment by segment, so records split or joined differently
 * still agree when they say the same thing. */

struct step {
	uint32_t pos;
	int32_t  delta;
};

static int cmp_step(const void *x, const void *y)
{
	const struct step *a = x, *b = y;

	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

#define REFC_FINDINGS_MAX 64

static void check_refcounts(struct xa_ctx *ctx, struct xa_ag *ag, struct own_ag *oa)
{
	const struct xa_ownlist *f = &oa->fwd;
	struct step *st;
	size_t n = 0, cap = 2 * (f->n + oa->refc.n) + 1, i = 0;
	unsigned reported = 0;
	int64_t files = 0, said = 0;
	uint32_t prev = 0;

	st = malloc(cap * sizeof(*st));
	if (!st)
		return;   /* a check skipped for memory is not a finding */
	/* file data: +1/-1 per mapping; the refcountbt: +count/-count per
	 * record, kept apart by scaling (files in the low 32 bits) */
	for (size_t k = 0; k < f->n; k++) {
		const struct xa_ownrec *r = &f->recs[k];

		if (xa_owner_is_special(r->owner) || (r->flags & (XA_OWN_ATTR | XA_OWN_BMBT)))
			continue;
		st[n++] = (struct step){ r->agbno, 1 };
		st[n++] = (struct step){ r->agbno + r->len, -1 };
	}
	for (size_t k = 0; k < oa->refc.n; k++) {
		const struct xa_ownrec *r = &oa->refc.recs[k];
		int32_t c = r->owner > INT32_MAX / 65536 ? INT32_MAX / 65536 : (int32_t)r->owner;

		if (r->len > UINT32_MAX - r->agbno)
			continue;  /* past the end of any AG: the walk reported the record */
		st[n++] = (struct step){ r->agbno, c * 65536 };
		st[n++] = (struct step){ r->agbno + r->len, -c * 65536 };
	}
	xa_sort(st, n, sizeof(*st), cmp_step);
	while (i < n) {
		uint32_t pos = st[i].pos;
		int64_t owners = files;
		int64_t rc_said = said;

		/* segment [prev, pos): shared blocks have a record with their
		 * count; a block one file owns has none */
		if (pos > prev && (owners >= 2 ? owners : 0) != rc_said &&
		    reported < REFC_FINDINGS_MAX) {
			struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_AGBNO, ag->agno, prev, 0, 0,
					      "refcountbt" };

			xa_report(ctx, &loc, XP_refcMismatch, NULL, owners >= 2 ? (uint64_t)owners : 0,
				  (uint64_t)rc_said, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
			reported++;
		}
		for (; i < n && st[i].pos == pos; i++) {
			if (st[i].delta == 1 || st[i].delta == -1)
				files += st[i].delta;
			else
				said += st[i].delta / 65536;
		}
		prev = pos;
	}
	free(st);
}

/*
 * CoW staging extents live only while a filesystem is mounted: the kernel
 * cancels them at unmount and frees leftovers at mount, after log recovery,
 * and xfs_repair frees them too.  One found here (on any image, a replayed
 * one included) is therefore a leftover, and blocks the planner frees.
 */
static void report_cow_leftovers(struct xa_ctx *ctx, const struct xa_ag *ag,
				 const struct own_ag *oa)
{
	unsigned reported = 0;

	for (size_t k = 0; k < oa->fwd.n && reported < REFC_FINDINGS_MAX; k++) {
		const struct xa_ownrec *r = &oa->fwd.recs[k];
		struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_AGBNO, ag->agno, r->agbno, 0, 0,
				      "refcountbt" };

		if (r->owner != XFS_RMAP_OWN_COW)
			continue;
		xa_report(ctx, &loc, XP_cowLeftover, NULL, 0, r->len, XPROB_HAS_OBSERVED);
		reported++;
	}
}

static int check_crosslinks(struct xa_ctx *ctx, const struct xa_ag *ag, struct own_ag *oa)
{
	struct xa_xlink_ev ev;
	int rc;

	memset(&ev, 0, sizeof(ev));
	ev.reflink = xfmt_geom_has_reflink(&ctx->geom);
	ev.refc = &oa->refc;
	ev.refc_ok = ag->agf_ok && ag->bt[XA_BT_REFC].walked;
	ev.rmap = &oa->rmap;
	ev.rmap_ok = xfmt_geom_has_rmapbt(&ctx->geom) && ag->agf_ok && ag->bt[XA_BT_RMAP].walked;
	rc = xa_check_crosslinks(ctx, ag->agno, &oa->fwd, &ev);
	xa_xlink_ev_release(&ev);
	return rc;
}

int xa_pass_ownership(struct xa_ctx *ctx)
{
	struct xa_own *own = ctx->own;

	if (!own)
		return 0;
	for (uint32_t agno = 0; agno < ctx->nags && agno < own->nags; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];
		struct own_ag *oa = &own->ags[agno];
		bool ok = true;
		int rc;

		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "ownership", agno, ctx->nags);
		/* A blank AG has its one finding for its run (pass_agheaders.c). */
		if (ag->blank)
			continue;
		rc = add_static(ctx, ag, oa, &ok);
		if (rc)
			return rc;
		xa_ownlist_sort(&oa->kinds);
		if (!(ok && forward_complete(ctx, ag))) {
			/* Say so: silence would read as "checked and agreed". */
			struct xa_loc loc = { XPROB_HAS_AG, agno, 0, 0, 0, "ownership" };

			xa_report(ctx, &loc, XP_ownCrossCheckSkipped, NULL, 0, 0, 0);
		} else {
			oa->complete = true;
			xa_ownlist_normalize(&oa->fwd);
			check_space(ctx, ag, oa);
			if (xfmt_geom_has_rmapbt(&ctx->geom)) {
				xa_ownlist_normalize(&oa->rmap);
				compare_rmap(ctx, ag, oa);
			}
			if (xfmt_geom_has_reflink(&ctx->geom)) {
				check_refcounts(ctx, ag, oa);
				report_cow_leftovers(ctx, ag, oa);
				rc = xa_check_reflink_flags(ctx, agno, &oa->fwd, &oa->refc,
							    &own->reflinked, &own->unflagged);
				if (rc)
					return rc;
			}
		}
		/* Blocks claimed twice are real whatever else could not be read:
		 * every AG is searched, an incomplete one over what was seen. */
		if (!oa->complete) {
			xa_ownlist_sort(&oa->fwd);
			xa_ownlist_sort(&oa->rmap);
		}
		rc = check_crosslinks(ctx, ag, oa);
		if (rc)
			return rc;
		/* Each AG's lists are done with once it is checked, unless the
		 * repair planner asked to keep them. */
		if (!ctx->opts.keep_ownership)
			own_ag_release(oa);
	}
	return 0;
}
