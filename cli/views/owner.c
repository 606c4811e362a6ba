/*
 * owner.c - what a block is and who owns it, from the check's maps.
 *
 * The forward map (what primary metadata says) answers, because it is what
 * the files themselves claim and it exists on every filesystem; the rmapbt
 * is only compared with it, and a disagreement is printed, not resolved:
 * deciding which side is right is the check's and the repair's business.
 *
 * Lookups: each AG's lists are indexed once (sorted by start block, with the
 * running maximum of their ends), so a block's covering records are found
 * by a binary search and a walk back over the records that can still reach
 * it, however long the ranges asked.
 */
#include "cli/views/owner.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/paths.h"
#include "analyzer/model/span_index.h"
#include "analyzer/model/u64set.h"
#include "cli/message_streams.h"
#include "formats/btrec.h"

/* Owners of one block kept for one line at most (a hostile map may stack
 * any number of records on one block). */
#define OWNERS_MAX 64u

struct rec_index {
	struct xa_ownrec    *recs;   /* a sorted copy */
	struct xa_span_index ends;   /* which records reach past a block */
	size_t               n;
	bool                 built;
};

struct ag_index {
	struct rec_index fwd, rmap, free;
	bool             fwd_complete;
};

struct line;

struct owner_state {
	struct xa_ctx         *ctx;
	struct ag_index       *ags;
	struct xa_paths        paths;
	FILE                  *out;
	bool                   runs;      /* merge consecutive blocks into one line */
	struct xc_owner_stats *stats;     /* may be NULL */
	struct xa_u64set       inodes_seen;
	struct line           *pending;   /* runs still growing */
	bool                  *touched;   /* ... and continued by the current block */
	size_t                 npending;
};

static int cmp_start(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	return (a->agbno > b->agbno) - (a->agbno < b->agbno);
}

static int index_build(struct rec_index *ix, const struct xa_ownlist *l)
{
	uint64_t *ends;
	int rc;

	ix->built = true;
	if (!l || !l->n)
		return 0;
	ix->recs = malloc(l->n * sizeof(*ix->recs));
	ends = malloc(l->n * sizeof(*ends));
	if (!ix->recs || !ends) {
		free(ends);
		return XERR_NOMEM;
	}
	memcpy(ix->recs, l->recs, l->n * sizeof(*ix->recs));
	qsort(ix->recs, l->n, sizeof(*ix->recs), cmp_start);
	ix->n = l->n;
	for (size_t i = 0; i < ix->n; i++)
		ends[i] = (uint64_t)ix->recs[i].agbno + ix->recs[i].len;
	rc = xa_span_index_build(&ix->ends, ends, ix->n);
	free(ends);
	return rc;
}

static void index_release(struct rec_index *ix)
{
	free(ix->recs);
	xa_span_index_release(&ix->ends);
	memset(ix, 0, sizeof(*ix));
}

/* Up to max records of ix covering agbno into hit, in start order;
 * returns how many. */
static size_t covering(const struct rec_index *ix, uint32_t agbno, const struct xa_ownrec **hit,
		       size_t max)
{
	size_t lo = 0, hi = ix->n, idx[OWNERS_MAX], k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->recs[mid].agbno <= agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = xa_span_index_reaching(&ix->ends, lo, agbno, idx, max < OWNERS_MAX ? max : OWNERS_MAX);
	for (size_t i = 0; i < k; i++)
		hit[i] = &ix->recs[idx[i]];
	return k;
}

static int ag_index_of(struct owner_state *st, uint32_t agno, struct ag_index **out)
{
	struct ag_index *ai = &st->ags[agno];
	int rc = 0;

	if (!ai->fwd.built) {
		const struct xa_ownlist *fwd = xa_own_forward(st->ctx, agno, &ai->fwd_complete);

		rc = index_build(&ai->fwd, fwd);
		if (!rc && xfmt_geom_has_rmapbt(&st->ctx->geom))
			rc = index_build(&ai->rmap, xa_own_rmap(st->ctx, agno));
		if (!rc)
			rc = index_build(&ai->free, xa_own_free_list(st->ctx, agno));
	}
	*out = ai;
	return rc;
}

/* The header a block of the first AG sectors holds first. */
static const char *header_name(const struct xfmt_geom *g, uint32_t agbno)
{
	static const char *const names[] = { "sb", "agf", "agi", "agfl" };
	uint64_t sect = ((uint64_t)agbno << g->blocklog) >> g->sectlog;

	return sect < 4 ? names[sect] : NULL;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case XFMT_BT_BNO:  return "bnobt";
	case XFMT_BT_CNT:  return "cntbt";
	case XFMT_BT_INO:  return "inobt";
	case XFMT_BT_FINO: return "finobt";
	case XFMT_BT_RMAP: return "rmapbt";
	case XFMT_BT_REFC: return "refcountbt";
	case XA_KIND_AGFL: return "freelist";
	}
	return NULL;
}

/* TYPE of a block a record of the forward map owns. */
static const char *type_of(struct owner_state *st, uint32_t agno, uint32_t agbno,
			   const struct xa_ownrec *r)
{
	const struct xa_irec *ir;
	const char *k;

	switch (r->owner) {
	case XFS_RMAP_OWN_FS:
		k = header_name(&st->ctx->geom, agbno);
		return k ? k : "sb";
	case XFS_RMAP_OWN_LOG:    return "log";
	case XFS_RMAP_OWN_INODES: return "inodes";
	case XFS_RMAP_OWN_COW:    return "cow";
	case XFS_RMAP_OWN_AG:
	case XFS_RMAP_OWN_INOBT:
	case XFS_RMAP_OWN_REFC:
		k = kind_name(xa_own_kind(st->ctx, agno, agbno));
		if (k)
			return k;
		return r->owner == XFS_RMAP_OWN_AG ? "ag-metadata" :
		       r->owner == XFS_RMAP_OWN_INOBT ? "inobt" : "refcountbt";
	}
	if (xa_owner_is_special(r->owner))
		return "unknown-owner";
	if (r->flags & XA_OWN_BMBT)
		return "bmbt";
	if (r->flags & XA_OWN_ATTR)
		return "attr";
	ir = xa_irec_find(st->ctx, r->owner);
	switch (ir ? ir->mode & 0170000u : 0) {
	case 0040000: return "dir";
	case 0120000: return "symlink";
	}
	return "data";
}

/* The owner as the rmapbt comparison prints it: "inode N", "inode N attr",
 * or a special owner's name. */
static void owner_label(const struct xa_ownrec *r, char *buf, size_t len)
{
	const char *name = xa_owner_name(r->owner);

	if (name)
		snprintf(buf, len, "%s", name);
	else if (xa_owner_is_special(r->owner))
		snprintf(buf, len, "owner-%" PRId64, (int64_t)r->owner);
	else
		snprintf(buf, len, "inode-%" PRIu64 "%s%s", r->owner,
			 r->flags & XA_OWN_ATTR ? "-attr" : "", r->flags & XA_OWN_BMBT ? "-bmbt" : "");
}

static bool same_owner(const struct xa_ownrec *a, const struct xa_ownrec *b)
{
	uint32_t m = XA_OWN_ATTR | XA_OWN_BMBT;

	return a->owner == b->owner && (a->flags & m) == (b->flags & m);
}

/* " rmapbt:..." when the rmapbt's owners of the block differ from the
 * forward map's, into buf ("" when they agree). */
static void rmap_diff(struct owner_state *st, const struct ag_index *ai, uint32_t agbno,
		      const struct xa_ownrec **fh, size_t nf, char *buf, size_t len)
{
	const struct xa_ownrec *rh[OWNERS_MAX];
	size_t nr, at = 0;
	bool same = true;
	char lab[64];

	buf[0] = '\0';
	if (!xfmt_geom_has_rmapbt(&st->ctx->geom))
		return;
	nr = covering(&ai->rmap, agbno, rh, OWNERS_MAX);
	for (size_t i = 0; i < nf && same; i++) {
		bool found = false;

		for (size_t j = 0; j < nr && !found; j++)
			found = same_owner(fh[i], rh[j]);
		same = found;
	}
	for (size_t j = 0; j < nr && same; j++) {
		bool found = false;

		for (size_t i = 0; i < nf && !found; i++)
			found = same_owner(fh[i], rh[j]);
		same = found;
	}
	if (same)
		return;
	if (!nr) {
		snprintf(buf, len, " rmapbt:none");
		return;
	}
	for (size_t j = 0; j < nr && at < len; j++) {
		owner_label(rh[j], lab, sizeof(lab));
		at += (size_t)snprintf(buf + at, len - at, "%s%s", j ? "," : " rmapbt:", lab);
	}
}

/* What one line says of one block (and owner); with runs, of several. */
struct line {
	uint32_t    agno, first, last;  /* AG blocks [first, last] */
	const char *type;
	uint64_t    owner;              /* XFS_RMAP_OWN_* or an inode; 0: none */
	uint32_t    flags;              /* XA_OWN_* */
	uint64_t    offset;             /* file block at first */
	char        diff[160];          /* the rmapbt's disagreement */
};

/* Lines of consecutive blocks that are still growing (runs mode). */
#define PENDING_MAX OWNERS_MAX

static void print_paths(struct owner_state *st, uint64_t ino)
{
	size_t cnt, at = xa_paths_of(&st->paths, ino, &cnt);

	for (size_t k = 0; k < cnt; k++)
		fprintf(st->out, "\t%s", st->paths.v[at + k].path);
}

static void count_line(struct owner_state *st, const struct line *l)
{
	struct xc_owner_stats *c = st->stats;
	uint64_t nb = (uint64_t)l->last - l->first + 1;

	if (!c)
		return;
	if (!strcmp(l->type, "free")) {
		c->free_blocks += nb;
	} else if (!strcmp(l->type, "unowned")) {
		c->unowned_blocks += nb;
	} else if (xa_owner_is_special(l->owner)) {
		c->meta_blocks += nb;
	} else if (xa_u64set_add(&st->inodes_seen, l->owner) > 0) {
		if (!strcmp(l->type, "dir"))
			c->dirs++;
		else
			c->files++;
	}
}

static void emit(struct owner_state *st, const struct line *l)
{
	const struct xfmt_geom *g = &st->ctx->geom;
	uint64_t f0 = xfmt_geom_fsb(g, l->agno, l->first), f1 = xfmt_geom_fsb(g, l->agno, l->last);

	count_line(st, l);
	if (l->first == l->last)
		fprintf(st->out, "%" PRIu64 " %" PRIu32 "/%" PRIu32 " %s", f0, l->agno, l->first,
			l->type);
	else
		fprintf(st->out, "%" PRIu64 "-%" PRIu64 " %" PRIu32 "/%" PRIu32 "-%" PRIu32 " %s", f0,
			f1, l->agno, l->first, l->last, l->type);
	if (l->owner == XFS_RMAP_OWN_INODES) {
		fprintf(st->out, " first %" PRIu64 " count %" PRIu64,
			xfmt_geom_ino(g, l->agno, l->first << g->inopblog),
			((uint64_t)l->last - l->first + 1) * g->inopblock);
	} else if (l->owner && !xa_owner_is_special(l->owner)) {
		fprintf(st->out, " inode %" PRIu64 " fork %s", l->owner,
			l->flags & XA_OWN_ATTR ? "attr" : "data");
		if (!(l->flags & XA_OWN_BMBT)) {
			fprintf(st->out, " offset %" PRIu64, l->offset);
			if (l->last != l->first)
				fprintf(st->out, "-%" PRIu64, l->offset + (l->last - l->first));
		}
		if (l->flags & XA_OWN_UNWRITTEN)
			fprintf(st->out, " unwritten");
	}
	fputs(l->diff, st->out);
	if (l->owner && !xa_owner_is_special(l->owner))
		print_paths(st, l->owner);
	fputc('\n', st->out);
}

/* Does l continue run p (the next block, the same owner and everything)? */
static bool extends(const struct line *p, const struct line *l)
{
	if (p->agno != l->agno || (uint64_t)p->last + 1 != l->first || p->type != l->type ||
	    p->owner != l->owner || p->flags != l->flags || strcmp(p->diff, l->diff))
		return false;
	if (p->owner && !xa_owner_is_special(p->owner) && !(p->flags & XA_OWN_BMBT))
		return p->offset + (p->last - p->first) + 1 == l->offset;
	return true;
}

/* Runs mode: grow a pending run or start one; without runs, print at once. */
static void add_line(struct owner_state *st, const struct line *l)
{
	if (!st->runs) {
		emit(st, l);
		return;
	}
	for (size_t i = 0; i < st->npending; i++)
		if (extends(&st->pending[i], l)) {
			st->pending[i].last = l->last;
			st->touched[i] = true;
			return;
		}
	if (st->npending == PENDING_MAX) {
		emit(st, &st->pending[0]);
		memmove(st->pending, st->pending + 1, (PENDING_MAX - 1) * sizeof(*st->pending));
		memmove(st->touched, st->touched + 1, (PENDING_MAX - 1) * sizeof(*st->touched));
		st->npending--;
	}
	st->pending[st->npending] = *l;
	st->touched[st->npending++] = true;
}

/* After a block: the runs it did not continue are done. */
static void end_block(struct owner_state *st, bool all)
{
	size_t k = 0;

	for (size_t i = 0; i < st->npending; i++) {
		if (!all && st->touched[i]) {
			st->pending[k] = st->pending[i];
			st->touched[k++] = false;
		} else {
			emit(st, &st->pending[i]);
		}
	}
	st->npending = k;
}

/* Describe block agbno of AG agno (print false: only note the owning
 * inodes in want, for the paths). */
static int one_block(struct owner_state *st, uint32_t agno, uint32_t agbno, bool print,
		     struct xa_u64set *want)
{
	const struct xa_ownrec *fh[OWNERS_MAX], *free_hit[1];
	struct ag_index *ai;
	struct line l;
	size_t nf;
	int rc;

	rc = ag_index_of(st, agno, &ai);
	if (rc)
		return rc;
	nf = covering(&ai->fwd, agbno, fh, OWNERS_MAX);
	if (!print) {
		for (size_t i = 0; i < nf; i++)
			if (!xa_owner_is_special(fh[i]->owner) && xa_u64set_add(want, fh[i]->owner) < 0)
				return XERR_NOMEM;
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.agno = agno;
	l.first = l.last = agbno;
	if (!nf) {
		l.type = covering(&ai->free, agbno, free_hit, 1) > 0 ? "free" : "unowned";
		rmap_diff(st, ai, agbno, fh, 0, l.diff, sizeof(l.diff));
		add_line(st, &l);
		return 0;
	}
	for (size_t i = 0; i < nf; i++) {
		const struct xa_ownrec *r = fh[i];

		l.type = type_of(st, agno, agbno, r);
		l.owner = r->owner;
		l.flags = r->flags;
		l.offset = r->offset + (agbno - r->agbno);
		rmap_diff(st, ai, agbno, fh, nf, l.diff, sizeof(l.diff));
		add_line(st, &l);
	}
	return 0;
}

static int each_block(struct owner_state *st, const struct xc_owner_range *r, size_t n,
		      bool print, struct xa_u64set *want)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t end = (uint64_t)r[i].first + r[i].count;
		uint32_t len = xfmt_geom_ag_length(&st->ctx->geom, r[i].agno);

		if (end > len)
			end = len;
		for (uint64_t b = r[i].first; b < end; b++) {
			int rc = one_block(st, r[i].agno, (uint32_t)b, print, want);

			if (rc)
				return rc;
			if (print)
				end_block(st, false);
		}
	}
	if (print)
		end_block(st, true);
	return 0;
}

int xc_cmd_owner(struct xa_ctx *ctx, const struct xc_owner_range *r, size_t n, bool runs,
		 struct xc_owner_stats *stats, FILE *out, FILE *err)
{
	struct owner_state st = { .ctx = ctx, .out = out, .runs = runs, .stats = stats };
	struct xc_message_streams ms;
	struct xa_u64set want = { 0 };
	int rc;

	st.ags = calloc(ctx->nags ? ctx->nags : 1, sizeof(*st.ags));
	st.pending = calloc(PENDING_MAX, sizeof(*st.pending));
	st.touched = calloc(PENDING_MAX, sizeof(*st.touched));
	if (!st.ags || !st.pending || !st.touched) {
		free(st.ags);
		free(st.pending);
		free(st.touched);
		return XERR_NOMEM;
	}
	rc = each_block(&st, r, n, false, &want);
	if (!rc)
		rc = xa_paths_find(ctx, &want, 0, 0, xc_message_streams(&ms, NULL, err), &st.paths);
	if (!rc)
		rc = each_block(&st, r, n, true, NULL);
	for (uint32_t a = 0; a < ctx->nags; a++) {
		if (!rc && st.ags[a].fwd.built && !st.ags[a].fwd_complete) {
			fprintf(err, "xfsrecon: AG %" PRIu32 ": its metadata could not be read whole; "
				"an owner may be missing (run check for details)\n", a);
			rc = XERR_IO;
		}
		index_release(&st.ags[a].fwd);
		index_release(&st.ags[a].rmap);
		index_release(&st.ags[a].free);
	}
	if (!rc && st.paths.incomplete)
		rc = XERR_IO;
	free(st.ags);
	free(st.pending);
	free(st.touched);
	xa_u64set_release(&want);
	xa_u64set_release(&st.inodes_seen);
	xa_paths_release(&st.paths);
	return rc;
}
