/*
 * ag_rebuild.c - rebuild one AG's space and inode indexes (see
 * ag_rebuild.h): bnobt, cntbt, inobt, finobt, rmapbt, refcountbt, AGFL,
 * AGF and AGI, from what stays owned and the final inode chunks.
 *
 * Order of work, and why: everything that can fail on the input (records
 * outside the AG, overlaps that are not reflink sharing, chunks the inobt
 * verifier rejects, too little free space) is decided before the first
 * block is planned, so an AG we cannot rebuild leaves the plan untouched.
 *
 * Where the new blocks come from: the free space is what `kept` leaves.
 * The new trees need blocks out of it, and the free-space trees' size
 * depends on how many free extents remain, so the allocation is a fixed
 * point: take T blocks (largest free extents first, the last one from its
 * end so that the extent survives), recompute what the trees and the AGFL
 * need for the free extents that remain, and grow T until it covers the
 * need.  Taking from the end of an extent never adds a free extent and
 * taking whole extents only removes some, so each step can only lower the
 * free-space trees' size while the rmapbt bound grows by at most two
 * records per extent taken; T rises monotonically and stops within a few
 * rounds.  Blocks taken beyond the final need, and rmapbt blocks the
 * bound reserved but the real record count does not use, go to the AGFL,
 * as xfs_repair puts its leftover reservations there; they are OWN_AG
 * either way, so the rmapbt does not change.
 */
#include "reconstruct/ag_rebuild.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/btrec.h"
#include "formats/sb.h"
#include "reconstruct/bulkload.h"
#include "reconstruct/env.h"
#include "reconstruct/plan.h"

#define MAX_ROUNDS 64

struct ext {
	uint32_t start, len;
};

/* Working state of one AG's rebuild. */
struct agr {
	const struct xr_env   *env;
	const struct xfmt_geom *g;
	uint32_t agno, aglen, hdr_end;
	bool     rmapbt, reflink, finobt, sparse, slack;
	struct xa_ownlist kept;       /* validated, normalised copy of the input */
	struct ext *free;             /* free extents before allocation, by start */
	size_t      nfree;
	uint64_t    freeblks0;
	struct xfmt_refc_rec *refc;   /* shared extents, then CoW staging */
	size_t      nrefc, refc_cap;
	uint8_t    *inorecs, *finorecs;
	size_t      nino, nfino;
	uint64_t    icount, ifree;
	uint32_t    newino;
	/* the allocation */
	uint32_t   *seq;              /* blocks taken, ascending */
	size_t      nseq;
	struct ext *left;             /* free extents after allocation, by start */
	size_t      nleft;
	struct xr_btshape bno, cnt, rmap_res, rmap, ino, fino, refcs;
	uint32_t    agfl_res;         /* AGFL blocks besides unused rmap reserve */
	struct xa_ownlist rmaps;      /* the new rmapbt's records */
};

/* A verifier sink that only counts. */
static void count_report(void *arg, const struct xprob *p)
{
	(void)p;
	(*(unsigned *)arg)++;
}

static bool rec_ok(const struct agr *a, enum xfmt_btnum bt, const uint8_t *rec)
{
	unsigned n = 0;
	struct xprob_sink sink = { count_report, &n };

	xfmt_bt_rec_verify(bt, rec, 0, a->g, a->agno, &sink);
	return n == 0;
}

static int ext_add(struct ext **arr, size_t *n, size_t *cap, uint32_t start, uint32_t len)
{
	if (*n && (*arr)[*n - 1].start + (*arr)[*n - 1].len == start) {
		(*arr)[*n - 1].len += len;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct ext *na = realloc(*arr, nc * sizeof(**arr));

		if (!na)
			return XERR_NOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = (struct ext){ start, len };
	return 0;
}

static int refc_add(struct agr *a, uint32_t start, uint32_t len, uint32_t refcount, bool cow)
{
	struct xfmt_refc_rec *last = a->nrefc ? &a->refc[a->nrefc - 1] : NULL;

	/* The kernel keeps abutting extents of equal count as one record. */
	if (last && last->cow == cow && last->refcount == refcount &&
	    last->startblock + last->blockcount == start) {
		last->blockcount += len;
		return 0;
	}
	if (a->nrefc == a->refc_cap) {
		size_t nc = a->refc_cap ? a->refc_cap * 2 : 64;
		struct xfmt_refc_rec *na = realloc(a->refc, nc * sizeof(*na));

		if (!na)
			return XERR_NOMEM;
		a->refc = na;
		a->refc_cap = nc;
	}
	a->refc[a->nrefc++] = (struct xfmt_refc_rec){ .startblock = start, .cow = cow,
						      .blockcount = len, .refcount = refcount };
	return 0;
}

/* ------------------------------------------------------------ the input */

/* File data of an inode: the only records that may share blocks. */
static bool shareable(const struct xa_ownrec *r)
{
	return !xa_owner_is_special(r->owner) && !(r->flags & (XA_OWN_ATTR | XA_OWN_BMBT));
}

static void ownrec_encode(const struct xa_ownrec *r, uint8_t *out)
{
	struct xfmt_rmap_rec rr = {
		.startblock = r->agbno, .blockcount = r->len, .owner = r->owner,
		.offset = r->offset, .attr_fork = (r->flags & XA_OWN_ATTR) != 0,
		.bmbt_block = (r->flags & XA_OWN_BMBT) != 0,
		.unwritten = (r->flags & XA_OWN_UNWRITTEN) != 0,
	};

	xfmt_rmap_rec_encode(out, &rr);
}

/* Copy and check `kept`: every record a legal rmapbt record of this AG, no
 * owner of a structure rebuilt here, no two records with one key. */
static int take_kept(struct agr *a, const struct xa_ownlist *in)
{
	uint8_t rec[24];
	bool have_hdr = false;
	int rc;

	for (size_t i = 0; in && i < in->n; i++) {
		const struct xa_ownrec *r = &in->recs[i];

		if (r->owner == XFS_RMAP_OWN_AG || r->owner == XFS_RMAP_OWN_INOBT ||
		    r->owner == XFS_RMAP_OWN_REFC ||
		    (r->flags & ~(unsigned)(XA_OWN_ATTR | XA_OWN_BMBT | XA_OWN_UNWRITTEN)) ||
		    r->offset > XFS_RMAP_OFF_MASK || r->len == 0 ||
		    r->agbno >= a->aglen || r->len > a->aglen - r->agbno)
			return XERR_UNSUPPORTED;
		if (r->owner == XFS_RMAP_OWN_COW && !a->reflink)
			return XERR_UNSUPPORTED;
		ownrec_encode(r, rec);
		if (!rec_ok(a, XFMT_BT_RMAP, rec))
			return XERR_UNSUPPORTED;
		if (r->agbno == 0)
			have_hdr = true;
		rc = xa_ownlist_add(&a->kept, r->agbno, r->len, r->owner, r->offset, r->flags);
		if (rc)
			return rc;
	}
	/* The headers are always owned, whether or not the caller said so. */
	if (!have_hdr) {
		rc = xa_ownlist_add(&a->kept, 0, a->hdr_end, XFS_RMAP_OWN_FS, 0, 0);
		if (rc)
			return rc;
	}
	xa_ownlist_normalize(&a->kept);
	for (size_t i = 1; i < a->kept.n; i++) {
		const struct xa_ownrec *p = &a->kept.recs[i - 1], *c = &a->kept.recs[i];
		uint8_t kp[XFMT_BT_KEY_MAX], kc[XFMT_BT_KEY_MAX], rp[24], rcur[24];

		ownrec_encode(p, rp);
		ownrec_encode(c, rcur);
		xfmt_bt_rec_key(XFMT_BT_RMAP, rp, kp);
		xfmt_bt_rec_key(XFMT_BT_RMAP, rcur, kc);
		if (xfmt_bt_key_cmp(XFMT_BT_RMAP, kp, kc) == 0)
			return XERR_UNSUPPORTED;
	}
	return 0;
}

struct ev {
	uint32_t pos;
	int32_t  delta;
	bool     share;
};

static int cmp_ev(const void *x, const void *y)
{
	const struct ev *a = x, *b = y;

	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/*
 * Sweep the kept records in block order: where nothing owns a block it is
 * free, where file data overlaps file data it is shared (a refcount record
 * with the number of owners), any other overlap is refused.
 */
static int sweep(struct agr *a)
{
	struct ev *ev = NULL;
	size_t nev = 0, i = 0, free_cap = 0;
	uint32_t prev = 0, nshare = 0, nexcl = 0;
	int rc = XERR_NOMEM;

	ev = malloc((a->kept.n ? a->kept.n : 1) * 2 * sizeof(*ev));
	if (!ev)
		goto out;
	for (size_t k = 0; k < a->kept.n; k++) {
		const struct xa_ownrec *r = &a->kept.recs[k];
		bool s = shareable(r);

		ev[nev++] = (struct ev){ r->agbno, 1, s };
		ev[nev++] = (struct ev){ r->agbno + r->len, -1, s };
	}
	qsort(ev, nev, sizeof(*ev), cmp_ev);
	for (;;) {
		uint32_t next = i < nev ? ev[i].pos : a->aglen;

		if (next > prev) {
			rc = XERR_UNSUPPORTED;
			if (nexcl > 1 || (nexcl && nshare))
				goto out;
			if (nshare > 1 && !a->reflink)
				goto out;
			if (nshare > 1)
				rc = refc_add(a, prev, next - prev, nshare, false);
			else if (!nshare && !nexcl)
				rc = ext_add(&a->free, &a->nfree, &free_cap, prev, next - prev);
			else
				rc = 0;
			if (rc)
				goto out;
		}
		if (i >= nev)
			break;
		prev = ev[i].pos;
		for (; i < nev && ev[i].pos == prev; i++) {
			uint32_t *c = ev[i].share ? &nshare : &nexcl;

			*c = (uint32_t)((int64_t)*c + ev[i].delta);
		}
	}
	/* CoW staging extents follow the shared ones (the CoW bit sorts last). */
	for (size_t k = 0; k < a->kept.n; k++) {
		const struct xa_ownrec *r = &a->kept.recs[k];

		if (r->owner == XFS_RMAP_OWN_COW) {
			rc = refc_add(a, r->agbno, r->len, 1, true);
			if (rc)
				goto out;
		}
	}
	rc = XERR_UNSUPPORTED;
	a->freeblks0 = 0;
	for (size_t k = 0; k < a->nfree; k++) {
		if (a->free[k].start < a->hdr_end)
			goto out;
		a->freeblks0 += a->free[k].len;
	}
	for (size_t k = 0; k < a->nrefc; k++) {
		uint8_t rec[12];

		xfmt_refc_rec_encode(rec, &a->refc[k]);
		if (!rec_ok(a, XFMT_BT_REFC, rec))
			goto out;
	}
	rc = 0;
out:
	free(ev);
	return rc;
}

/* The inobt and finobt records, checked by the inobt record verifier. */
static int take_chunks(struct agr *a, const struct xa_ichunk *ch, size_t n)
{
	size_t rl = xfmt_bt_rec_len(XFMT_BT_INO);

	a->newino = XFS_NULLAGINO;
	if (!n)
		return 0;
	if (!ch || n > a->aglen)
		return XERR_UNSUPPORTED;
	a->inorecs = calloc(n, rl);
	a->finorecs = calloc(n, rl);
	if (!a->inorecs || !a->finorecs)
		return XERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		struct xfmt_inobt_rec r = {
			.startino = ch[i].startino, .holemask = ch[i].holemask,
			.count = ch[i].count, .freecount = ch[i].freecount, .free = ch[i].free,
		};
		uint8_t *rec = a->inorecs + a->nino * rl;

		if ((!a->sparse && (r.holemask || r.count != XFS_INODES_PER_CHUNK)) ||
		    (i && (uint64_t)ch[i - 1].startino + XFS_INODES_PER_CHUNK > r.startino))
			return XERR_UNSUPPORTED;
		xfmt_inobt_rec_encode(rec, a->sparse, &r);
		if (!rec_ok(a, XFMT_BT_INO, rec))
			return XERR_UNSUPPORTED;
		a->nino++;
		a->icount += r.count;
		a->ifree += r.freecount;
		if (r.freecount)
			memcpy(a->finorecs + a->nfino++ * rl, rec, rl);
	}
	a->newino = ch[0].startino;
	return 0;
}

/* ------------------------------------------------------------- the space */

static int cmp_ext_big(const void *x, const void *y)
{
	const struct ext *a = x, *b = y;

	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_ext_start(const void *x, const void *y)
{
	const struct ext *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Take t blocks: whole extents, largest first, while they fit, then the
 * end of the next.  Fills a->seq (ascending) and a->left; returns the
 * number of extents taken from, or XERR_UNSUPPORTED when t exceeds the
 * free space.
 */
static int take_blocks(struct agr *a, const struct ext *bysize, uint32_t t)
{
	struct ext *pieces = NULL;
	size_t np = 0, lcap = 0, k = 0;
	uint32_t remaining = t;
	int rc = XERR_UNSUPPORTED;

	if (t > a->freeblks0)
		goto out;
	rc = XERR_NOMEM;
	pieces = malloc((a->nfree ? a->nfree : 1) * sizeof(*pieces));
	if (!pieces)
		goto out;
	for (size_t i = 0; i < a->nfree && remaining; i++) {
		struct ext e = bysize[i];

		if (e.len > remaining) {
			e.start += e.len - remaining;
			e.len = remaining;
		}
		pieces[np++] = e;
		remaining -= e.len;
	}
	if (np > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(pieces, np, sizeof(*pieces), cmp_ext_start);
	a->nseq = 0;
	for (size_t i = 0; i < np; i++)
		for (uint32_t b = 0; b < pieces[i].len; b++)
			a->seq[a->nseq++] = pieces[i].start + b;
	/* What remains free: each original extent less the piece inside it. */
	a->nleft = 0;
	for (size_t i = 0; i < a->nfree; i++) {
		struct ext e = a->free[i];

		while (k < np && pieces[k].start < e.start)
			k++;
		if (k < np && pieces[k].start < e.start + e.len) {
			/* A piece is the whole extent or its end. */
			if (pieces[k].start > e.start &&
			    ext_add(&a->left, &a->nleft, &lcap, e.start, pieces[k].start - e.start))
				goto out;
			continue;
		}
		if (ext_add(&a->left, &a->nleft, &lcap, e.start, e.len))
			goto out;
	}
	rc = (int)np;
out:
	free(pieces);
	return rc;
}

/* AGFL blocks the kernel wants for trees of these heights
 * (xfs_alloc_min_freelist). */
static uint32_t min_freelist(const struct agr *a)
{
	uint32_t amax = xfmt_agf_alloc_maxlevels(a->g), n;

	n = (a->bno.levels + 1 < amax ? a->bno.levels + 1 : amax) +
	    (a->cnt.levels + 1 < amax ? a->cnt.levels + 1 : amax);
	if (a->rmapbt) {
		uint32_t rmax = xfmt_agf_rmap_maxlevels(a->g);

		n += a->rmap_res.levels + 1 < rmax ? a->rmap_res.levels + 1 : rmax;
	}
	return n;
}

/* Owner of the i-th block of the layout (see lay_out). */
static uint64_t layout_owner(const struct agr *a, size_t i)
{
	size_t ag = (size_t)a->bno.blocks + a->cnt.blocks + a->agfl_res +
		    (a->rmapbt ? a->rmap_res.blocks : 0);
	size_t inobt = (size_t)a->ino.blocks + (a->finobt ? a->fino.blocks : 0);

	if (i < ag)
		return XFS_RMAP_OWN_AG;
	if (i < ag + inobt)
		return XFS_RMAP_OWN_INOBT;
	return XFS_RMAP_OWN_REFC;
}

/* The rmapbt records: kept ones and one per run of new blocks of one owner. */
static int build_rmaps(struct agr *a)
{
	int rc;

	xa_ownlist_release(&a->rmaps);
	if (!a->rmapbt)
		return 0;
	for (size_t i = 0; i < a->kept.n; i++) {
		const struct xa_ownrec *r = &a->kept.recs[i];

		rc = xa_ownlist_add(&a->rmaps, r->agbno, r->len, r->owner, r->offset, r->flags);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < a->nseq;) {
		uint64_t owner = layout_owner(a, i);
		size_t j = i + 1;

		while (j < a->nseq && a->seq[j] == a->seq[j - 1] + 1 && layout_owner(a, j) == owner)
			j++;
		rc = xa_ownlist_add(&a->rmaps, a->seq[i], (uint32_t)(j - i), owner, 0, 0);
		if (rc)
			return rc;
		i = j;
	}
	xa_ownlist_normalize(&a->rmaps);
	return 0;
}

/* The fixed point described in the file comment. */
static int plan_space(struct agr *a)
{
	const struct xfmt_geom *g = a->g;
	uint32_t amax = xfmt_agf_alloc_maxlevels(g), t = 0, fixed;
	uint32_t agfl_size = xfmt_geom_agfl_size(g);
	uint64_t rmap_bound = a->kept.n + 3;
	struct ext *bysize = NULL;
	int rc = XERR_NOMEM, np;

	a->seq = malloc((a->freeblks0 ? a->freeblks0 : 1) * sizeof(*a->seq));
	bysize = malloc((a->nfree ? a->nfree : 1) * sizeof(*bysize));
	if (!a->seq || !bysize)
		goto out;
	if (a->nfree)
		memcpy(bysize, a->free, a->nfree * sizeof(*bysize));
	if (a->nfree > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(bysize, a->nfree, sizeof(*bysize), cmp_ext_big);

	rc = xr_btshape_compute(g, XFMT_BT_INO, a->nino, a->slack,
				xfmt_agi_inobt_maxlevels(g), &a->ino);
	if (!rc && a->finobt)
		rc = xr_btshape_compute(g, XFMT_BT_FINO, a->nfino, a->slack,
					xfmt_agi_inobt_maxlevels(g), &a->fino);
	if (!rc && a->reflink)
		rc = xr_btshape_compute(g, XFMT_BT_REFC, a->nrefc, a->slack,
					xfmt_agf_refcount_maxlevels(g), &a->refcs);
	if (rc)
		goto out;
	fixed = a->ino.blocks + (a->finobt ? a->fino.blocks : 0) +
		(a->reflink ? a->refcs.blocks : 0);

	for (int round = 0;; round++) {
		uint64_t need;

		rc = XERR_UNSUPPORTED;
		if (round == MAX_ROUNDS)
			goto out;
		np = take_blocks(a, bysize, t);
		if (np < 0) {
			rc = np;
			goto out;
		}
		rc = xr_btshape_compute(g, XFMT_BT_BNO, a->nleft, a->slack, amax, &a->bno);
		if (!rc)
			rc = xr_btshape_compute(g, XFMT_BT_CNT, a->nleft, a->slack, amax, &a->cnt);
		if (!rc && a->rmapbt) {
			/* One record per taken piece and per owner change. */
			if (a->kept.n + (uint64_t)np + 2 > rmap_bound)
				rmap_bound = a->kept.n + (uint64_t)np + 2;
			rc = xr_btshape_compute(g, XFMT_BT_RMAP, rmap_bound, a->slack,
						xfmt_agf_rmap_maxlevels(g), &a->rmap_res);
		}
		if (rc)
			goto out;
		need = (uint64_t)a->bno.blocks + a->cnt.blocks + fixed + min_freelist(a) +
		       (a->rmapbt ? a->rmap_res.blocks : 0);
		if (need <= t)
			break;
		rc = XERR_UNSUPPORTED;
		if (need > a->freeblks0)
			goto out;
		t = (uint32_t)need;
	}
	a->agfl_res = t - (a->bno.blocks + a->cnt.blocks + fixed +
			   (a->rmapbt ? a->rmap_res.blocks : 0));
	rc = build_rmaps(a);
	if (rc)
		goto out;
	if (a->rmapbt) {
		rc = xr_btshape_compute(g, XFMT_BT_RMAP, a->rmaps.n, a->slack,
					xfmt_agf_rmap_maxlevels(g), &a->rmap);
		if (rc)
			goto out;
		rc = XERR_UNSUPPORTED;
		if (a->rmap.blocks > a->rmap_res.blocks)
			goto out;
	}
	rc = XERR_UNSUPPORTED;
	if ((uint64_t)a->agfl_res + (a->rmapbt ? a->rmap_res.blocks - a->rmap.blocks : 0) >
	    agfl_size)
		goto out;
	rc = 0;
out:
	free(bysize);
	return rc;
}

/* ------------------------------------------------------------- writing */

static int cmp_ext_cnt(const void *x, const void *y)
{
	const struct ext *a = x, *b = y;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Encode the free extents in bnobt (by start) or cntbt (by length) order. */
static uint8_t *alloc_records(const struct agr *a, bool by_count)
{
	struct ext *sorted = malloc((a->nleft ? a->nleft : 1) * sizeof(*sorted));
	uint8_t *recs = malloc((a->nleft ? a->nleft : 1) * 8);

	if (!sorted || !recs) {
		free(sorted);
		free(recs);
		return NULL;
	}
	if (a->nleft)
		memcpy(sorted, a->left, a->nleft * sizeof(*sorted));
	if (by_count && a->nleft > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(sorted, a->nleft, sizeof(*sorted), cmp_ext_cnt);
	for (size_t i = 0; i < a->nleft; i++) {
		struct xfmt_alloc_rec r = { sorted[i].start, sorted[i].len };

		xfmt_alloc_rec_encode(recs + i * 8, &r);
	}
	free(sorted);
	return recs;
}

struct roots {
	uint32_t bno, cnt, rmap, ino, fino, refc;
};

static int load_trees(struct agr *a, int action, struct roots *rt)
{
	const uint32_t *s = a->seq;
	uint8_t *bnorecs = NULL, *cntrecs = NULL, *rmaprecs = NULL, *refcrecs = NULL;
	size_t at = 0;
	int rc = XERR_NOMEM;

	bnorecs = alloc_records(a, false);
	cntrecs = alloc_records(a, true);
	rmaprecs = malloc((a->rmaps.n ? a->rmaps.n : 1) * 24);
	refcrecs = malloc((a->nrefc ? a->nrefc : 1) * 12);
	if (!bnorecs || !cntrecs || !rmaprecs || !refcrecs)
		goto out;
	for (size_t i = 0; i < a->rmaps.n; i++)
		ownrec_encode(&a->rmaps.recs[i], rmaprecs + i * 24);
	for (size_t i = 0; i < a->nrefc; i++)
		xfmt_refc_rec_encode(refcrecs + i * 12, &a->refc[i]);

	rc = xr_bt_load(a->env, action, a->agno, &a->bno, bnorecs, s + at, &rt->bno);
	at += a->bno.blocks;
	if (!rc)
		rc = xr_bt_load(a->env, action, a->agno, &a->cnt, cntrecs, s + at, &rt->cnt);
	at += a->cnt.blocks;
	if (!rc && a->rmapbt) {
		rc = xr_bt_load(a->env, action, a->agno, &a->rmap, rmaprecs, s + at, &rt->rmap);
		at += a->rmap_res.blocks;
	}
	at += a->agfl_res;
	if (!rc)
		rc = xr_bt_load(a->env, action, a->agno, &a->ino, a->inorecs, s + at, &rt->ino);
	at += a->ino.blocks;
	if (!rc && a->finobt) {
		rc = xr_bt_load(a->env, action, a->agno, &a->fino, a->finorecs, s + at,
				&rt->fino);
		at += a->fino.blocks;
	}
	if (!rc && a->reflink)
		rc = xr_bt_load(a->env, action, a->agno, &a->refcs, refcrecs, s + at, &rt->refc);
out:
	free(bnorecs);
	free(cntrecs);
	free(rmaprecs);
	free(refcrecs);
	return rc;
}

/* Plan one header sector (sector index 1 = AGF, 2 = AGI, 3 = AGFL). */
static int write_sector(struct agr *a, int action, const char *name, unsigned sector,
			const uint8_t *buf)
{
	const struct xfmt_geom *g = a->g;
	uint64_t off = (uint64_t)sector * g->sectsize;

	return xr_plan_write(a->env->plan, action, name, a->agno,
			     (uint32_t)(off >> g->blocklog), 0,
			     xfmt_geom_ag_byte(g, a->agno) + off, buf, g->sectsize);
}

static bool lazy_counters(const struct xfmt_geom *g)
{
	return g->v5 || (g->features2 & XFS_SB_VERSION2_LAZYSBCOUNTBIT);
}

static int write_headers(struct agr *a, int action, const struct roots *rt,
			 struct xr_ag_result *out)
{
	const struct xfmt_geom *g = a->g;
	uint32_t agfl_size = xfmt_geom_agfl_size(g), nfl, unused_rmap;
	const uint32_t *fl;
	struct xfmt_agf agf;
	struct xfmt_agi agi;
	uint8_t *buf;
	uint64_t freeblks = 0, longest = 0;
	int rc = XERR_NOMEM;

	buf = malloc(g->sectsize);
	if (!buf)
		goto out;
	/* The AGFL: the rmapbt reserve it did not use, then the AGFL's own. */
	unused_rmap = a->rmapbt ? a->rmap_res.blocks - a->rmap.blocks : 0;
	fl = a->seq + a->bno.blocks + a->cnt.blocks + (a->rmapbt ? a->rmap.blocks : 0);
	nfl = unused_rmap + a->agfl_res;
	rc = XERR_USAGE;
	if (xfmt_agfl_encode(buf, g->sectsize, g, a->agno, a->env->lsn, fl, nfl))
		goto out;
	rc = write_sector(a, action, "agfl", 3, buf);
	if (rc)
		goto out;

	for (size_t i = 0; i < a->nleft; i++) {
		freeblks += a->left[i].len;
		if (a->left[i].len > longest)
			longest = a->left[i].len;
	}
	memset(&agf, 0, sizeof(agf));
	agf.magicnum = XFS_AGF_MAGIC;
	agf.versionnum = XFS_AGF_VERSION;
	agf.seqno = a->agno;
	agf.length = a->aglen;
	agf.bno_root = rt->bno;
	agf.bno_level = a->bno.levels;
	agf.cnt_root = rt->cnt;
	agf.cnt_level = a->cnt.levels;
	agf.flfirst = 0;
	agf.fllast = nfl ? nfl - 1 : agfl_size - 1;
	agf.flcount = nfl;
	agf.freeblks = (uint32_t)freeblks;
	agf.longest = (uint32_t)longest;
	if (a->rmapbt) {
		agf.rmap_root = rt->rmap;
		agf.rmap_level = a->rmap.levels;
		agf.rmap_blocks = a->rmap.blocks;
	}
	if (a->reflink) {
		agf.refcount_root = rt->refc;
		agf.refcount_level = a->refcs.levels;
		agf.refcount_blocks = a->refcs.blocks;
	}
	/* Blocks of the AGFL-fed trees beyond their roots (as xfs_repair counts);
	 * the AGF records them only with lazy counters, the free-block counter
	 * counts them always. */
	out->btreeblks = a->bno.blocks + a->cnt.blocks - 2 +
			 (a->rmapbt ? a->rmap.blocks - 1 : 0);
	if (lazy_counters(g))
		agf.btreeblks = (uint32_t)out->btreeblks;
	memcpy(agf.uuid, g->meta_uuid, 16);
	agf.lsn = a->env->lsn;
	rc = XERR_USAGE;
	if (xfmt_agf_encode(buf, g->sectsize, &agf, g))
		goto out;
	rc = write_sector(a, action, "agf", 1, buf);
	if (rc)
		goto out;

	memset(&agi, 0, sizeof(agi));
	agi.magicnum = XFS_AGI_MAGIC;
	agi.versionnum = XFS_AGI_VERSION;
	agi.seqno = a->agno;
	agi.length = a->aglen;
	agi.count = (uint32_t)a->icount;
	agi.root = rt->ino;
	agi.level = a->ino.levels;
	agi.freecount = (uint32_t)a->ifree;
	agi.newino = a->newino;
	agi.dirino = XFS_NULLAGINO;
	for (int i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
		agi.unlinked[i] = XFS_NULLAGINO;
	memcpy(agi.uuid, g->meta_uuid, 16);
	agi.lsn = a->env->lsn;
	if (a->finobt) {
		agi.free_root = rt->fino;
		agi.free_level = a->fino.levels;
	}
	if (xfmt_geom_has_inobtcnt(g)) {
		agi.iblocks = a->ino.blocks;
		agi.fblocks = a->finobt ? a->fino.blocks : 0;
	}
	rc = XERR_USAGE;
	if (xfmt_agi_encode(buf, g->sectsize, &agi, g))
		goto out;
	rc = write_sector(a, action, "agi", 2, buf);
	if (rc)
		goto out;

	out->freeblks = freeblks;
	out->flcount = nfl;
	out->icount = a->icount;
	out->ifree = a->ifree;
	rc = 0;
out:
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------- entry */

static void agr_release(struct agr *a)
{
	xa_ownlist_release(&a->kept);
	xa_ownlist_release(&a->rmaps);
	free(a->free);
	free(a->refc);
	free(a->inorecs);
	free(a->finorecs);
	free(a->seq);
	free(a->left);
}

int xr_ag_rebuild(const struct xr_env *env, const struct xr_ag_input *in, int action,
		  struct xr_ag_result *out)
{
	const struct xfmt_geom *g = env->g;
	struct agr a;
	struct roots rt;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&rt, 0, sizeof(rt));
	memset(out, 0, sizeof(*out));
	a.env = env;
	a.g = g;
	a.agno = in->agno;
	a.aglen = xfmt_geom_ag_length(g, in->agno);
	a.hdr_end = xfmt_bt_agfl_block(g) + 1;
	a.rmapbt = xfmt_geom_has_rmapbt(g);
	a.reflink = xfmt_geom_has_reflink(g);
	a.finobt = xfmt_geom_has_finobt(g);
	a.sparse = xfmt_geom_has_sparse_inodes(g);
	rc = XERR_UNSUPPORTED;
	if (!a.aglen || a.aglen <= a.hdr_end || g->sectsize > g->blocksize)
		goto out;

	rc = take_kept(&a, in->kept);
	if (!rc)
		rc = sweep(&a);
	if (!rc)
		rc = take_chunks(&a, in->chunks, in->nchunks);
	if (rc)
		goto out;
	/* xfs_repair loads blocks with slack while 3/32 of the AG is free. */
	a.slack = a.freeblks0 >= (((uint64_t)g->agblocks * 3) >> 5);
	rc = plan_space(&a);
	if (rc)
		goto out;

	/* Nothing below can fail on the input: only memory and the plan. */
	rc = load_trees(&a, action, &rt);
	if (!rc)
		rc = write_headers(&a, action, &rt, out);
out:
	agr_release(&a);
	return rc;
}
