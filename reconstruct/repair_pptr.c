/*
 * repair_pptr.c - parent pointers in the repair: evidence for names, and
 * written again to match the repaired tree.
 *
 * On a filesystem with parent pointers every inode carries, as a "parent."
 * attribute, each name it has: the directory, that directory's generation,
 * and the name.  A directory whose blocks are gone (and whose core too) is
 * therefore still described by its children: the namespace phase takes the
 * names they carry where the directory's own blocks no longer hold them,
 * and a directory nothing else describes is revived from them, with the
 * generation they name so that they stay true.
 *
 * After the tree is settled, every inode whose parent pointers do not name
 * exactly its entries (an orphan moved to lost+found, a revived directory,
 * lost+found itself, an entry dropped) gets them written again, as
 * xfs_repair 6.10 and later would demand.  The attributes are rewritten
 * where they are kept in short form in the inode (the form nearly every
 * inode uses: a few names); an inode whose attributes live in blocks is
 * left as it is and counted.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/xattr.h"
#include "formats/attr.h"
#include "formats/attr_sf_enc.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

bool rp_has_pptrs(const struct xa_ctx *ctx)
{
	return xfmt_geom_has_parent(&ctx->geom);
}

/* ------------------------------------------------------------------ */
/* The index: every parent pointer of every live inode. */

struct collect {
	struct rp_pptrs *x;
	uint64_t         child;
};

static int collect_cb(void *arg, const struct xa_xattr *a)
{
	struct collect *c = arg;
	struct rp_pptrs *x = c->x;
	struct rp_pptr *p;
	uint64_t pino;
	uint32_t pgen;

	if (a->ns != XFMT_ATTR_NS_PARENT || !a->namelen || !a->value_complete ||
	    xfmt_attr_pptr_decode(a->value, a->valuelen, &pino, &pgen) != 0)
		return 0;
	if (x->nnames > UINT32_MAX - 256)
		return 0;  /* a pool this large cannot come from a sane image */
	if (xa_grow((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v)) ||
	    xa_grow((void **)&x->names, &x->names_cap, x->nnames + a->namelen, 1))
		return XERR_NOMEM;
	p = &x->v[x->n++];
	p->child = c->child;
	p->parent = pino;
	p->gen = pgen;
	p->name_off = (uint32_t)x->nnames;
	p->namelen = a->namelen;
	memcpy(x->names + x->nnames, a->name, a->namelen);
	x->nnames += a->namelen;
	return 0;
}

static const struct rp_pptrs *sort_x;

static int cmp_name(const struct rp_pptrs *x, const struct rp_pptr *a, const struct rp_pptr *b)
{
	size_t n = a->namelen < b->namelen ? a->namelen : b->namelen;
	int c = memcmp(x->names + a->name_off, x->names + b->name_off, n);

	if (c)
		return c;
	return a->namelen < b->namelen ? -1 : a->namelen > b->namelen;
}

/* By parent, then name, then child: a directory's names in one run. */
static int cmp_by_parent(const void *l, const void *r)
{
	const struct rp_pptr *a = l, *b = r;
	int c;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	c = cmp_name(sort_x, a, b);
	if (c)
		return c;
	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

int rp_pptr_prepare(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct rp_pptrs *x = &rp->pptrs;

	if (x->built || !rp_has_pptrs(ctx))
		return 0;
	x->built = true;
	for (size_t i = 0; i < ctx->nirecs; i++) {
		struct collect c = { .x = x, .child = ctx->irecs[i].ino };
		struct xa_inode ip;
		int rc;

		if (xa_u64set_has(&rp->cleared, c.child) || xa_is_metadata_inode(ctx, c.child))
			continue;
		rc = rp_read_planned_inode(rp, c.child, &ip);
		if (rc == XERR_NOMEM)
			return rc;
		if (rc)
			continue;
		rc = ip.d.has_attr_fork ? xa_xattr_iterate(ctx, &ip, NULL, collect_cb, &c, NULL) : 0;
		xa_inode_release(&ip);
		if (rc == XERR_NOMEM)
			return rc;
	}
	sort_x = x;
	if (x->n > 1)
		qsort(x->v, x->n, sizeof(*x->v), cmp_by_parent);
	return 0;
}

void rp_pptr_release(struct rp_pptrs *x)
{
	free(x->v);
	free(x->names);
	memset(x, 0, sizeof(*x));
}

size_t rp_pptr_children(const struct rp_pptrs *x, uint64_t parent, size_t *first)
{
	size_t lo = 0, hi = x->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->v[mid].parent < parent)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < x->n && x->v[end].parent == parent; end++)
		;
	*first = lo;
	return end - lo;
}

static int cmp_u32(const void *l, const void *r)
{
	uint32_t a = *(const uint32_t *)l, b = *(const uint32_t *)r;

	return (a > b) - (a < b);
}

size_t rp_pptr_gen_vote(const struct rp_pptrs *x, uint64_t parent, uint32_t *gen)
{
	size_t first, n = rp_pptr_children(x, parent, &first), best = 0;
	uint32_t *g;

	if (!n)
		return 0;
	/* the most common generation: sorted, the longest run (a hostile
	 * image may give a directory a million children, each its own) */
	g = malloc(n * sizeof(*g));
	if (!g)
		return 0;  /* out of memory: no generation is taken on a guess */
	for (size_t i = 0; i < n; i++)
		g[i] = x->v[first + i].gen;
	qsort(g, n, sizeof(*g), cmp_u32);
	for (size_t i = 0, run = 1; i < n; i++, run++) {
		if (i + 1 < n && g[i + 1] == g[i])
			continue;
		if (run > best) {
			best = run;
			*gen = g[i];
		}
		run = 0;
	}
	free(g);
	return best;
}

int rp_pptr_take_gen(struct xr_rp *rp, uint64_t ino, int action)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xa_inode ip;
	uint32_t gen;
	int rc;

	if (!rp_has_pptrs(rp->ctx))
		return 0;
	rc = rp_pptr_prepare(rp);
	if (rc || !rp_pptr_gen_vote(&rp->pptrs, ino, &gen))
		return rc;
	rc = rp_read_planned_inode(rp, ino, &ip);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (ip.d.gen != gen) {
		xfmt_dinode_put_gen(ip.raw, gen);
		xfmt_dinode_seal(ip.raw, g, ino, rp->env.lsn);
		rc = rp_write_inode(rp, action, ino, ip.raw);
	}
	xa_inode_release(&ip);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Writing them again. */

static int cmp_want(const void *l, const void *r)
{
	const struct rp_pptr_want *a = l, *b = r;
	size_t n;
	int c;

	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	n = a->namelen < b->namelen ? a->namelen : b->namelen;
	c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	return a->namelen < b->namelen ? -1 : a->namelen > b->namelen;
}

static int cmp_have(const void *l, const void *r)
{
	const struct rp_pptr *a = &sort_x->v[*(const size_t *)l];
	const struct rp_pptr *b = &sort_x->v[*(const size_t *)r];
	int c;

	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	c = cmp_name(sort_x, a, b);
	if (c)
		return c;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

/* Bytes the data fork must keep: what its format holds in the inode. */
static size_t data_fork_need(const struct xfmt_dinode *d, bool *movable)
{
	*movable = true;
	switch (d->format) {
	case XFS_DINODE_FMT_DEV:
		return 4;
	case XFS_DINODE_FMT_LOCAL:
		return (size_t)d->size;
	case XFS_DINODE_FMT_EXTENTS:
		return (size_t)d->nextents * 16;
	default:
		/* a bmbt root's layout follows the fork's size: it stays */
		*movable = false;
		return d->dfork_size;
	}
}

/* Where the kernel puts a new attr fork of a v5 inode (xfs_default_attroffset:
 * after a bmbt root of 12 pointers, 4 + 12 * 16 bytes, in 8-byte units). */
#define DEFAULT_ATTR_OFF ((4u + 12u * 16u) / 8u * 8u)

/*
 * Inode ino's short-form attributes: its own of other namespaces, then
 * the n parent pointers w.  Returns 1 when written, 0 when it cannot be
 * (its attributes live in blocks, or do not fit beside the data fork), or
 * a negative xerr.
 */
static int write_one(struct xr_rp *rp, int action, uint64_t ino, const struct rp_pptr_want *w,
		     size_t n)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_attr_sf_in *in = NULL;
	uint8_t (*vals)[XFMT_ATTR_PPTR_VALUE_LEN] = NULL, *orig = NULL;
	struct xa_inode ip;
	size_t nin = 0, need, dneed, off, sfsize;
	bool movable;
	int rc;

	rc = rp_read_planned_inode(rp, ino, &ip);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	if (ip.d.has_attr_fork && ip.d.aformat != XFS_DINODE_FMT_LOCAL &&
	    !(ip.d.aformat == XFS_DINODE_FMT_EXTENTS && ip.d.anextents == 0)) {
		xa_inode_release(&ip);
		return 0;
	}
	in = calloc(n + 256, sizeof(*in));
	vals = calloc(n ? n : 1, sizeof(*vals));
	/* the kept attributes are read from a copy: the inode's own bytes
	 * are rewritten below */
	orig = malloc(ip.len);
	if (!in || !vals || !orig) {
		rc = XERR_NOMEM;
		goto out;
	}
	memcpy(orig, ip.raw, ip.len);
	rc = 0;
	if (ip.d.has_attr_fork && ip.d.aformat == XFS_DINODE_FMT_LOCAL) {
		const uint8_t *fork = orig + ip.d.afork_off;
		struct xfmt_attr_sf_iter it;
		struct xfmt_attr_entry e;
		int more;

		xfmt_attr_sf_iter_init(&it, fork, ip.d.afork_size);
		while (nin < 255 && (more = xfmt_attr_sf_next(&it, &e)) == 1)
			if (e.ns != XFMT_ATTR_NS_PARENT && e.namelen && e.valuelen <= 255)
				in[nin++] = (struct xfmt_attr_sf_in){
					.flags = e.flags, .name = e.name, .namelen = e.namelen,
					.value = e.value, .valuelen = (uint8_t)e.valuelen };
		/* a list that cannot be read to its end is not rewritten: the
		 * attributes past the damage would be lost */
		if (more < 0 || nin == 255)
			goto out;
	}
	/* short form counts its entries in a byte: all of them or none */
	if (n > 255 - nin)
		goto out;
	for (size_t k = 0; k < n; k++) {
		xfmt_attr_pptr_encode(vals[k], w[k].parent, w[k].gen);
		in[nin++] = (struct xfmt_attr_sf_in){
			.flags = XFS_ATTR_PARENT, .name = w[k].name, .namelen = w[k].namelen,
			.value = vals[k], .valuelen = XFMT_ATTR_PPTR_VALUE_LEN };
	}
	need = (xfmt_attr_sf_size(in, nin) + 7) & ~(size_t)7;
	dneed = (data_fork_need(&ip.d, &movable) + 7) & ~(size_t)7;
	/* The fork offset: the one it has when both forks fit there; else
	 * the kernel's default (after a bmbt root of 12 pointers); else the
	 * attributes' bare need at the end of the literal area. */
	if (ip.d.has_attr_fork && ip.d.afork_size >= need && ip.d.dfork_size >= dneed)
		off = ip.d.dfork_size;
	else if (!movable)
		goto out;
	else if (DEFAULT_ATTR_OFF >= dneed && ip.d.lit_size >= DEFAULT_ATTR_OFF + need)
		off = DEFAULT_ATTR_OFF;
	else if (ip.d.lit_size >= need && ip.d.lit_size - need >= dneed && ip.d.lit_size - need > 0)
		off = (ip.d.lit_size - need) & ~(size_t)7;
	else
		goto out;
	if (off / 8 > 255)
		goto out;
	if (movable && dneed < off)
		memset(ip.raw + ip.d.lit_off + dneed, 0, off - dneed);
	sfsize = xfmt_attr_sf_encode(in, nin, ip.raw + ip.d.lit_off + off, ip.d.lit_size - off);
	if (!sfsize)
		goto out;
	xfmt_dinode_put_forkoff(ip.raw, (uint8_t)(off / 8));
	xfmt_dinode_put_aformat(ip.raw, XFS_DINODE_FMT_LOCAL);
	xfmt_dinode_put_anextents(ip.raw, &ip.d, 0);
	xfmt_dinode_seal(ip.raw, g, ino, rp->env.lsn);
	rc = rp_write_inode(rp, action, ino, ip.raw);
	if (!rc)
		rc = 1;
out:
	free(in);
	free(vals);
	free(orig);
	xa_inode_release(&ip);
	return rc;
}

/* Parent-pointer findings of inode ino an action that rewrote them answers. */
static int answer_pptr_findings(struct xr_rp *rp, int action, uint64_t ino)
{
	const struct xa_findings *f = &rp->ctx->findings;

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];

		if ((x->p.has & XPROB_HAS_INO) && x->p.ino == ino &&
		    xprob_fix_of(x->p.code) == XFIX_PARENT_POINTERS) {
			int rc = rp_answer(rp, action, i);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The write-parent-pointers action, made on first need; 0 or an xerr. */
static int the_action(struct xr_rp *rp, int *action)
{
	if (*action >= 0)
		return 0;
	*action = xr_plan_action(rp->plan, XR_ACT_WRITE_PARENT_POINTERS, XR_NO_AG, 0,
				 "parent pointers written to name each inode's directory entries "
				 "in the repaired tree");
	return *action < 0 ? *action : 0;
}

int rp_pptr_write(struct xr_rp *rp, struct rp_pptr_want *w, size_t n)
{
	struct rp_pptrs *x = &rp->pptrs;
	struct xa_u64set flagged = { 0 };
	size_t *have = NULL, hi = 0, written = 0, failed = 0, added = 0, removed = 0, settled = 0;
	int action = -1, rc;

	if (!rp_has_pptrs(rp->ctx))
		return 0;
	rc = rp_pptr_prepare(rp);
	if (rc)
		return rc;
	if (n > 1)
		qsort(w, n, sizeof(*w), cmp_want);
	/* the inodes the check found parent pointer faults in */
	for (size_t i = 0; i < rp->ctx->findings.count; i++) {
		const struct xa_finding *f = &rp->ctx->findings.items[i];

		if ((f->p.has & XPROB_HAS_INO) && xprob_fix_of(f->p.code) == XFIX_PARENT_POINTERS &&
		    xa_u64set_add(&flagged, f->p.ino) < 0) {
			xa_u64set_release(&flagged);
			return XERR_NOMEM;
		}
	}
	have = malloc((x->n ? x->n : 1) * sizeof(*have));
	if (!have) {
		xa_u64set_release(&flagged);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < x->n; i++)
		have[i] = i;
	sort_x = x;
	if (x->n > 1)
		qsort(have, x->n, sizeof(*have), cmp_have);
	for (size_t wi = 0; wi < n && !rc;) {
		uint64_t child = w[wi].child;
		size_t wn = 0, hn = 0, same = 0;

		while (wi + wn < n && w[wi + wn].child == child)
			wn++;
		while (hi < x->n && x->v[have[hi]].child < child)
			hi++;
		while (hi + hn < x->n && x->v[have[hi + hn]].child == child)
			hn++;
		/* both sorted by parent and name: count the pairs equal in all */
		for (size_t a = 0, b = 0; a < wn && b < hn;) {
			const struct rp_pptr_want *p = &w[wi + a];
			const struct rp_pptr *q = &x->v[have[hi + b]];
			size_t m = p->namelen < q->namelen ? p->namelen : q->namelen;
			int c = p->parent != q->parent ? (p->parent < q->parent ? -1 : 1) :
				memcmp(p->name, x->names + q->name_off, m);

			if (!c && p->parent == q->parent)
				c = p->namelen < q->namelen ? -1 : p->namelen > q->namelen;
			if (!c) {
				same += p->gen == q->gen;
				a++;
				b++;
			} else if (c < 0) {
				a++;
			} else {
				b++;
			}
		}
		if (same == wn && same == hn && xa_u64set_has(&flagged, child)) {
			/* a finding the repaired tree settled (an entry given back
			 * from this very parent pointer): nothing to write */
			rc = the_action(rp, &action);
			if (rc)
				break;
			settled++;
			rc = answer_pptr_findings(rp, action, child);
		} else if (same != wn || same != hn) {
			rc = the_action(rp, &action);
			if (rc)
				break;
			rc = write_one(rp, action, child, w + wi, wn);
			if (rc == 1) {
				written++;
				added += wn - same;
				removed += hn - same;
				rc = answer_pptr_findings(rp, action, child);
			} else if (!rc) {
				failed++;
			}
		}
		wi += wn;
		hi += hn;
	}
	free(have);
	xa_u64set_release(&flagged);
	rp->pptrs.written = written;
	rp->pptrs.unwritten = failed;
	rp->pptrs.added = added;
	rp->pptrs.removed = removed;
	if (!rc && action >= 0)
		rc = xr_plan_action_append(rp->plan, action,
					 "; %zu inodes rewritten (%zu parent pointers added, %zu "
					 "removed)%s%s", written, added, removed,
					 settled ? "; some already agree with the entries given back "
						   "from them" : "",
					 failed ? ", some left: their attributes are not in short form "
						  "or do not fit beside the data fork" : "");
	return rc < 0 ? rc : 0;
}
