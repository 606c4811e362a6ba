/*
 * repair_names.c - the planner's namespace phase: the directory tree of
 * the repaired filesystem, orphans into lost+found, link counts.
 *
 * Model: every live directory's entries as read (damaged blocks give what
 * is still readable), filtered: an entry survives when its name is legal,
 * unique in the directory, and it names a live inode (one the check found
 * in use and the plan keeps).  The tree is walked from the root; a
 * directory keeps the first name that reaches it, later ones are dropped.
 * Inodes the walk does not reach are orphans: one whose directory is an
 * orphan too moves with it, the others (and a directory found in a loop of
 * orphan directories) are linked into /lost+found under their inode number,
 * which is created when missing.  A directory is rewritten when it lost an
 * entry, had a damaged block, gains lost+found or orphans, or its ".."
 * must change; link counts are then what the tree says.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/dir2.h"
#include "formats/dir2_build.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

#define NONE SIZE_MAX

struct ns_ent {
	uint64_t ino;
	size_t   name_off;
	uint8_t  namelen;
	uint8_t  ftype;      /* as stored */
	bool     keep;
	const char *src;     /* where the name was found when not in the
	                        directory's own blocks (static), else NULL */
};

struct ns_dir {
	uint64_t ino;
	size_t   irec;       /* index into ctx->irecs, NONE for a new directory */
	uint64_t dotdot;     /* as stored */
	size_t   first, n;   /* its entries in ns.ents */
	bool     rewrite;
	uint32_t subdirs;    /* kept entries naming directories */
	uint32_t corrected;  /* entries whose inode number lost one bit, put back */
	bool     from_log;   /* some entries come from the log's copies of its blocks */
	uint32_t from_pptr;  /* entries only its children's parent pointers gave */
};

struct ns {
	struct xr_rp  *rp;
	struct xa_ctx *ctx;
	struct ns_dir *dirs;
	size_t         ndirs, dirs_cap;
	struct ns_ent *ents;
	size_t         nents, ents_cap;
	uint8_t       *names;
	size_t         nnames, names_cap;
	/* per irec index */
	size_t        *dir_of;     /* its ns_dir, or NONE */
	uint64_t      *parent;     /* directories: the directory that keeps it (0 = none) */
	uint32_t      *links;      /* names kept for it */
	uint8_t       *reached;
	uint64_t      *via;        /* non-directories: the first directory that reaches it */
	size_t         cur;        /* directory being read */
	/* lost+found */
	size_t         lf;         /* ns_dir index of lost+found, NONE = none */
	uint64_t      *orphans;    /* top-level orphans (irec indices) */
	size_t         norphans, orphans_cap;
	char         (*onames)[24];  /* their names in lost+found, once written */
};

/* Free what the namespace pass built; ns can be filled again. */
static void ns_release(struct ns *ns)
{
	free(ns->dirs);
	free(ns->ents);
	free(ns->names);
	free(ns->dir_of);
	free(ns->parent);
	free(ns->links);
	free(ns->reached);
	free(ns->via);
	free(ns->orphans);
	free(ns->onames);
	ns->onames = NULL;
	ns->dirs = NULL;
	ns->ents = NULL;
	ns->names = NULL;
	ns->dir_of = NULL;
	ns->parent = NULL;
	ns->via = NULL;
	ns->orphans = NULL;
	ns->links = NULL;
	ns->reached = NULL;
	ns->ndirs = ns->dirs_cap = ns->nents = ns->ents_cap = 0;
	ns->nnames = ns->names_cap = ns->norphans = ns->orphans_cap = 0;
	ns->lf = NONE;
	ns->cur = 0;
}

static bool is_dir(uint16_t mode)
{
	return (mode & XFMT_S_IFMT) == XFMT_S_IFDIR;
}

/* Index of live inode ino in ctx->irecs, or NONE. */
static size_t live(struct ns *ns, uint64_t ino)
{
	struct xa_irec *r = xa_irec_find(ns->ctx, ino);

	if (!r || (xa_u64set_has(&ns->rp->cleared, ino) &&
		   !xa_u64set_has(&ns->rp->new_inodes, ino)))
		return NONE;
	return (size_t)(r - ns->ctx->irecs);
}

static int entry_cb(void *arg, const struct xfmt_dirent *de)
{
	struct ns *ns = arg;
	struct ns_dir *d = &ns->dirs[ns->cur];
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);
	struct ns_ent *e;

	/* a dot entry of another file type: the rewrite writes it right */
	if (dots && xfmt_geom_has_ftype(&ns->ctx->geom) && de->ftype != XFS_DIR3_FT_DIR)
		d->rewrite = true;
	if (dots == 1)
		return 0;
	if (dots == 2) {
		d->dotdot = de->ino;
		return 0;
	}
	if (xa_grow((void **)&ns->ents, &ns->ents_cap, ns->nents + 1, sizeof(*ns->ents)) ||
	    xa_grow((void **)&ns->names, &ns->names_cap, ns->nnames + de->namelen + 1, 1))
		return XERR_NOMEM;
	e = &ns->ents[ns->nents++];
	e->ino = de->ino;
	e->name_off = ns->nnames;
	e->namelen = de->namelen;
	e->ftype = de->ftype;
	e->keep = true;
	e->src = NULL;
	memcpy(ns->names + ns->nnames, de->name, de->namelen);
	ns->nnames += de->namelen;
	d->n++;
	return 0;
}

/* Directories the check found damaged (an error in their blocks or
 * entries), into *set once, so each directory is a look-up. */
static int damaged_dirs(const struct xa_ctx *ctx, struct xa_u64set *set)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		unsigned fam = rp_family(f->p.code);

		if (!(f->p.has & XPROB_HAS_INO) || xprob_severity_of(f->p.code) != XSEV_ERROR)
			continue;
		/* Entry-level faults (a dead target, a wrong ftype, a second
		 * link) are judged again against the repaired inodes by the
		 * filter and the walk; only damage to the directory itself
		 * forces a rewrite here. */
		if ((fam == FAM_DIR || f->p.code == XP_nsBadDot) && xa_u64set_add(set, f->p.ino) < 0)
			return XERR_NOMEM;
	}
	return 0;
}

static int add_dir(struct ns *ns, uint64_t ino, size_t irec)
{
	struct ns_dir *d;

	if (xa_grow((void **)&ns->dirs, &ns->dirs_cap, ns->ndirs + 1, sizeof(*ns->dirs)))
		return XERR_NOMEM;
	d = &ns->dirs[ns->ndirs];
	memset(d, 0, sizeof(*d));
	d->ino = ino;
	d->irec = irec;
	d->first = ns->nents;
	if (irec != NONE)
		ns->dir_of[irec] = ns->ndirs;
	ns->ndirs++;
	return 0;
}

static int add_pptr_entries(struct ns *ns, struct ns_dir *d);

static int collect_dirs(struct ns *ns)
{
	struct xa_ctx *ctx = ns->ctx;
	struct xa_u64set damaged = { 0 };
	int drc = damaged_dirs(ctx, &damaged);

	if (drc) {
		xa_u64set_release(&damaged);
		return drc;
	}

	for (size_t i = 0; i < ctx->nirecs; i++) {
		const struct xa_irec *r = &ctx->irecs[i];
		struct xa_inode ip;
		bool complete = true;
		int rc;

		if (!is_dir(r->mode) || live(ns, r->ino) == NONE || xa_is_metadata_inode(ctx, r->ino))
			continue;
		if (xa_u64set_has(&ns->rp->new_inodes, r->ino)) {
			/* revived: its entries come from where they still are */
			rc = add_dir(ns, r->ino, i);
			if (!rc) {
				struct ns_dir *d;

				ns->cur = ns->ndirs - 1;
				rc = rp_dir_salvage(ns->rp, r->ino, entry_cb, ns,
						    &ns->dirs[ns->cur].dotdot);
				d = &ns->dirs[ns->cur];
				d->from_log = ns->rp->salvage_nlog > 0;
				for (size_t k = d->first; rc > 0 && k < d->first + d->n; k++)
					ns->ents[k].src = ns->rp->salvage_source;
				if (rc >= 0)
					rc = add_pptr_entries(ns, d);
			}
			if (rc < 0) {
				xa_u64set_release(&damaged);
				return rc;
			}
			ns->dirs[ns->cur].rewrite = true;
			continue;
		}
		if (rp_read_planned_inode(ns->rp, r->ino, &ip) != 0)
			continue;  /* unreadable now: treated as not a directory */
		rc = add_dir(ns, r->ino, i);
		if (rc) {
			xa_inode_release(&ip);
			xa_u64set_release(&damaged);
			return rc;
		}
		ns->cur = ns->ndirs - 1;
		rc = xa_dir_iterate(ctx, &ip, NULL, entry_cb, ns, &complete);
		/* blocks gone on disk may still be in the log */
		if (!rc && !complete) {
			size_t before = ns->nents;
			int lrc = rp_dir_log_blocks(ns->rp, &ip, entry_cb, ns);

			if (lrc < 0)
				rc = lrc;
			else if (lrc > 0)
				ns->dirs[ns->cur].from_log = true;
			for (size_t k = before; k < ns->nents; k++)
				ns->ents[k].src = "log-blocks";
		}
		xa_inode_release(&ip);
		if (rc == XERR_NOMEM) {
			xa_u64set_release(&damaged);
			return rc;
		}
		if (rc || !complete || xa_u64set_has(&damaged, r->ino)) {
			ns->dirs[ns->cur].rewrite = true;
			/* what its blocks lost, its children may still say */
			rc = add_pptr_entries(ns, &ns->dirs[ns->cur]);
			if (rc < 0) {
				xa_u64set_release(&damaged);
				return rc;
			}
		}
	}
	xa_u64set_release(&damaged);
	return 0;
}

static const uint8_t *ent_name(const struct ns *ns, const struct ns_ent *e)
{
	return ns->names + e->name_off;
}

static const struct ns *sort_ns;

static int cmp_ent_name(const void *x, const void *y)
{
	const struct ns_ent *a = &sort_ns->ents[*(const size_t *)x];
	const struct ns_ent *b = &sort_ns->ents[*(const size_t *)y];
	size_t n = a->namelen < b->namelen ? a->namelen : b->namelen;
	int c = memcmp(ent_name(sort_ns, a), ent_name(sort_ns, b), n);

	if (c)
		return c;
	if (a->namelen != b->namelen)
		return a->namelen < b->namelen ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

/* Index into sort_ns->ents of the entry of d named (name, len), or NONE;
 * idx holds d's entries sorted by cmp_ent_name. */
static size_t find_name(const struct ns *ns, const size_t *idx, size_t n, const uint8_t *name,
			uint8_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ns_ent *e = &ns->ents[idx[mid]];
		size_t m = e->namelen < len ? e->namelen : len;
		int c = memcmp(ent_name(ns, e), name, m);

		if (!c)
			c = e->namelen < len ? -1 : e->namelen > len;
		if (!c)
			return idx[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

/*
 * Directory d (the last one collected) lost blocks or its core: the names
 * its children's parent pointers give it that its entries lack are added.
 * A parent pointer counts when it carries the directory's generation (a
 * revived directory took the one its children name), names a live inode,
 * and its name is not already an entry; of two children claiming one
 * name, the first keeps it.  0 or XERR_NOMEM.
 */
static int add_pptr_entries(struct ns *ns, struct ns_dir *d)
{
	struct xr_rp *rp = ns->rp;
	const struct rp_pptrs *x = &rp->pptrs;
	const struct rp_pptr *prev = NULL;
	struct xa_u64set named = { 0 };
	struct xa_inode ip;
	size_t first, n, *idx, nidx = 0;
	uint32_t gen;
	int rc;

	if (!rp_has_pptrs(ns->ctx))
		return 0;
	rc = rp_pptr_prepare(rp);
	if (rc)
		return rc;
	n = rp_pptr_children(x, d->ino, &first);
	if (!n)
		return 0;
	rc = rp_read_planned_inode(rp, d->ino, &ip);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	gen = ip.d.gen;
	xa_inode_release(&ip);
	idx = malloc((d->n + 1) * sizeof(*idx));
	if (!idx)
		return XERR_NOMEM;
	/* the names it holds that stand: an entry naming no live inode (a
	 * damaged inode number) gives its name up to the parent pointer */
	for (size_t k = 0; k < d->n; k++) {
		uint64_t ino = ns->ents[d->first + k].ino;

		if (!xfmt_dir2_ino_ok(&ns->ctx->geom, ino) || live(ns, ino) == NONE)
			continue;
		idx[nidx++] = d->first + k;
		if (xa_u64set_add(&named, ino) < 0) {
			free(idx);
			xa_u64set_release(&named);
			return XERR_NOMEM;
		}
	}
	sort_ns = ns;
	if (nidx > 1)
		qsort(idx, nidx, sizeof(*idx), cmp_ent_name);
	for (size_t i = first; i < first + n; i++) {
		const struct rp_pptr *p = &x->v[i];
		const uint8_t *name = x->names + p->name_off;
		size_t t = live(ns, p->child);
		struct ns_ent *e;

		/* a child the directory still names (under another name, a
		 * damaged one maybe) keeps that entry: no second name is made */
		if (p->gen != gen || t == NONE || p->child == d->ino ||
		    xa_u64set_has(&named, p->child) ||
		    p->child == ns->ctx->sb.rootino || xa_is_metadata_inode(ns->ctx, p->child) ||
		    !xfmt_dir2_name_ok(name, p->namelen) ||
		    find_name(ns, idx, nidx, name, p->namelen) != NONE ||
		    (prev && prev->namelen == p->namelen &&
		     !memcmp(x->names + prev->name_off, name, p->namelen)))
			continue;
		prev = p;
		if (xa_grow((void **)&ns->ents, &ns->ents_cap, ns->nents + 1, sizeof(*ns->ents)) ||
		    xa_grow((void **)&ns->names, &ns->names_cap, ns->nnames + p->namelen, 1)) {
			free(idx);
			xa_u64set_release(&named);
			return XERR_NOMEM;
		}
		e = &ns->ents[ns->nents++];
		e->ino = p->child;
		e->name_off = ns->nnames;
		e->namelen = p->namelen;
		e->ftype = xfmt_dir3_ftype_from_mode(ns->ctx->irecs[t].mode);
		e->keep = true;
		e->src = "parent-pointer";
		memcpy(ns->names + ns->nnames, name, p->namelen);
		ns->nnames += p->namelen;
		d->from_pptr++;
	}
	/* d's entries grew at the end of the pool: d is the last directory */
	d->n += d->from_pptr;
	free(idx);
	xa_u64set_release(&named);
	return 0;
}

/*
 * An entry whose inode number names no live inode (or, where entries
 * carry a file type, a live inode of another type), but one bit away from
 * exactly one live inode that lacks a name: the file the entry named,
 * its number hit by a flipped bit (a dead sector or a bad bus does this).
 * The evidence is the pair: the entry's file type is the inode's, and the
 * inode has fewer names than links (a directory: none at all; its one
 * name is this one).  Anything less, or two candidates, and the entry is
 * dropped as before.  Each inode takes at most as many corrected entries
 * as it lacks names.
 */
static int correct_flipped_entries(struct ns *ns)
{
	const struct xfmt_geom *g = &ns->ctx->geom;
	uint32_t *names = calloc(ns->ctx->nirecs ? ns->ctx->nirecs : 1, sizeof(*names));

	if (!names)
		return XERR_NOMEM;
	for (size_t k = 0; k < ns->nents; k++) {
		size_t t = live(ns, ns->ents[k].ino);

		if (t != NONE && names[t] < UINT32_MAX)
			names[t]++;
	}
	for (size_t di = 0; di < ns->ndirs; di++) {
		struct ns_dir *d = &ns->dirs[di];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			struct ns_ent *e = &ns->ents[k];
			size_t was = live(ns, e->ino), ft = NONE;
			uint64_t found = 0;
			unsigned n = 0;

			/* An inode this repair cleared was real: its names were
			 * right.  A live target of another type than the entry
			 * says is as dead to the entry (a flip landed on a real
			 * inode). */
			if ((was == NONE && xa_irec_find(ns->ctx, e->ino)) ||
			    (was != NONE && (!xfmt_geom_has_ftype(g) ||
					     e->ftype == xfmt_dir3_ftype_from_mode(
							 ns->ctx->irecs[was].mode))) ||
			    !xfmt_dir2_name_ok(ent_name(ns, e), e->namelen))
				continue;
			for (unsigned b = 0; b < 64 && n < 2; b++) {
				uint64_t c = e->ino ^ (1ull << b);
				size_t t;
				const struct xa_irec *r;

				if (!xfmt_dir2_ino_ok(g, c) || (t = live(ns, c)) == NONE ||
				    xa_is_metadata_inode(ns->ctx, c) || c == ns->ctx->sb.rootino)
					continue;
				r = &ns->ctx->irecs[t];
				if (xfmt_geom_has_ftype(g) && e->ftype != xfmt_dir3_ftype_from_mode(r->mode))
					continue;
				if (is_dir(r->mode) ? names[t] != 0 : r->nlink <= names[t])
					continue;
				found = c;
				ft = t;
				n++;
			}
			if (n != 1)
				continue;
			e->ino = found;
			names[ft]++;
			if (was != NONE && names[was])
				names[was]--;
			d->corrected++;
			d->rewrite = true;
		}
	}
	free(names);
	return 0;
}

/* Drop entries that cannot stay: bad names, duplicates, dead targets. */
static int filter_entries(struct ns *ns)
{
	const struct xfmt_geom *g = &ns->ctx->geom;
	size_t *idx = NULL, cap = 0;

	for (size_t di = 0; di < ns->ndirs; di++) {
		struct ns_dir *d = &ns->dirs[di];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			struct ns_ent *e = &ns->ents[k];
			size_t t;

			if (!xfmt_dir2_name_ok(ent_name(ns, e), e->namelen) ||
			    !xfmt_dir2_ino_ok(g, e->ino) || (t = live(ns, e->ino)) == NONE ||
			    xa_is_metadata_inode(ns->ctx, e->ino) || e->ino == ns->ctx->sb.rootino) {
				e->keep = false;
				d->rewrite = true;
				continue;
			}
			if (xfmt_geom_has_ftype(g) &&
			    e->ftype != xfmt_dir3_ftype_from_mode(ns->ctx->irecs[t].mode))
				d->rewrite = true;
		}
		if (d->n < 2)
			continue;
		if (xa_grow((void **)&idx, &cap, d->n, sizeof(*idx))) {
			free(idx);
			return XERR_NOMEM;
		}
		for (size_t k = 0; k < d->n; k++)
			idx[k] = d->first + k;
		sort_ns = ns;
		if (d->n > 1)  /* qsort(NULL, 0, ...) is undefined */
			qsort(idx, d->n, sizeof(*idx), cmp_ent_name);
		for (size_t k = 1; k < d->n; k++) {
			struct ns_ent *a = &ns->ents[idx[k - 1]], *b = &ns->ents[idx[k]];

			/* (an entry already dropped, for a dead target, does
			 * not take the name from a good one) */
			if (a->namelen == b->namelen &&
			    !memcmp(ent_name(ns, a), ent_name(ns, b), a->namelen) && b->keep &&
			    a->keep) {
				b->keep = false;
				d->rewrite = true;
			}
		}
	}
	free(idx);
	return 0;
}

/*
 * Walk from directory index start (already marked reached): directory
 * children are kept only where parent[] names this directory and they
 * were not reached before; the rest of those entries are dropped.
 */
static int walk(struct ns *ns, size_t start)
{
	size_t *queue, head = 0, tail = 0;

	queue = malloc((ns->ndirs + 1) * sizeof(*queue));
	if (!queue)
		return XERR_NOMEM;
	queue[tail++] = start;
	while (head < tail) {
		struct ns_dir *d = &ns->dirs[queue[head++]];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			struct ns_ent *e = &ns->ents[k];
			size_t t;

			if (!e->keep)
				continue;
			t = live(ns, e->ino);
			if (ns->dir_of[t] != NONE) {
				if (ns->parent[t] != d->ino || ns->reached[t]) {
					e->keep = false;
					d->rewrite = true;
					continue;
				}
				ns->reached[t] = 1;
				queue[tail++] = ns->dir_of[t];
			} else if (is_dir(ns->ctx->irecs[t].mode)) {
				/* a directory we could not read: it cannot stay named */
				e->keep = false;
				d->rewrite = true;
				continue;
			} else {
				if (!ns->reached[t])
					ns->via[t] = d->ino;
				ns->reached[t] = 1;
			}
		}
	}
	free(queue);
	return 0;
}

/* First sight assigns parents: every directory's kept entries, in order. */
static void assign_parents(struct ns *ns, size_t from, bool only_unreached)
{
	struct ns_dir *d = &ns->dirs[from];

	if (only_unreached && d->irec != NONE && ns->reached[d->irec])
		return;
	for (size_t k = d->first; k < d->first + d->n; k++) {
		struct ns_ent *e = &ns->ents[k];
		size_t t;

		if (!e->keep)
			continue;
		t = live(ns, e->ino);
		if (ns->dir_of[t] != NONE && ns->parent[t] == 0 && e->ino != d->ino &&
		    !(only_unreached && ns->reached[t]))
			ns->parent[t] = d->ino;
	}
}

/* The tree from the root: parents by breadth-first first sight. */
static int root_tree(struct ns *ns, size_t root)
{
	size_t *queue, head = 0, tail = 0;
	int rc;

	queue = malloc((ns->ndirs + 1) * sizeof(*queue));
	if (!queue)
		return XERR_NOMEM;
	ns->parent[ns->dirs[root].irec] = ns->dirs[root].ino;
	queue[tail++] = root;
	while (head < tail) {
		struct ns_dir *d = &ns->dirs[queue[head++]];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			size_t t;

			if (!ns->ents[k].keep)
				continue;
			t = live(ns, ns->ents[k].ino);
			if (ns->dir_of[t] != NONE && ns->parent[t] == 0) {
				ns->parent[t] = d->ino;
				queue[tail++] = ns->dir_of[t];
			}
		}
	}
	free(queue);
	ns->reached[ns->dirs[root].irec] = 1;
	rc = walk(ns, root);
	return rc;
}

static int add_orphan(struct ns *ns, size_t irec)
{
	if (xa_grow((void **)&ns->orphans, &ns->orphans_cap, ns->norphans + 1, sizeof(*ns->orphans)))
		return XERR_NOMEM;
	ns->orphans[ns->norphans++] = irec;
	return 0;
}

/* Orphans: subtrees of orphan directories move with them; the rest, and
 * one directory of each orphan loop, become top-level orphans. */
static int find_orphans(struct ns *ns)
{
	struct xa_ctx *ctx = ns->ctx;
	uint8_t *named;
	int rc = 0;

	for (size_t di = 0; di < ns->ndirs; di++)
		assign_parents(ns, di, true);
	named = calloc(ctx->nirecs ? ctx->nirecs : 1, 1);
	if (!named)
		return XERR_NOMEM;
	/* non-directories named by an orphan directory move with it */
	for (size_t di = 0; di < ns->ndirs; di++) {
		struct ns_dir *d = &ns->dirs[di];

		if (d->irec == NONE || ns->reached[d->irec])
			continue;
		for (size_t k = d->first; k < d->first + d->n; k++)
			if (ns->ents[k].keep)
				named[live(ns, ns->ents[k].ino)] = 1;
	}
	for (size_t i = 0; i < ctx->nirecs && !rc; i++) {
		const struct xa_irec *r = &ctx->irecs[i];

		if (ns->reached[i] || live(ns, r->ino) == NONE || xa_is_metadata_inode(ctx, r->ino) ||
		    r->ino == ctx->sb.rootino)
			continue;
		if (ns->dir_of[i] != NONE ? ns->parent[i] == 0 : !named[i])
			rc = add_orphan(ns, i);
	}
	free(named);
	return rc;
}

/* Reach every orphan from lost+found (dirs through walk), loops included. */
static int reach_orphans(struct ns *ns)
{
	struct xa_ctx *ctx = ns->ctx;
	uint64_t lf_ino = ns->dirs[ns->lf].ino;
	int rc;

	for (size_t k = 0; k < ns->norphans; k++) {
		size_t i = ns->orphans[k];

		ns->reached[i] = 1;
		if (ns->dir_of[i] == NONE)
			ns->via[i] = lf_ino;
		if (ns->dir_of[i] != NONE) {
			ns->parent[i] = lf_ino;
			rc = walk(ns, ns->dir_of[i]);
			if (rc)
				return rc;
		}
	}
	/* Loops of orphan directories: the lowest-numbered one goes up. */
	for (size_t i = 0; i < ctx->nirecs; i++) {
		if (ns->reached[i] || ns->dir_of[i] == NONE)
			continue;
		ns->parent[i] = lf_ino;
		ns->reached[i] = 1;
		rc = add_orphan(ns, i);
		if (!rc)
			rc = walk(ns, ns->dir_of[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* A free inode slot for lost+found: the first free slot of a chunk that
 * nothing used before (cleared inodes keep their evidence). */
static uint64_t free_inode(struct ns *ns)
{
	struct xa_ctx *ctx = ns->ctx;

	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ag *ag = &ctx->ags[a];

		if (rp_ag_blocked(ns->rp, a))
			continue;
		for (size_t c = 0; c < ag->nchunks; c++)
			for (unsigned k = 0; k < 64; k++) {
				uint64_t ino = xfmt_geom_ino(&ctx->geom, a, ag->chunks[c].startino + k);

				if ((ag->chunks[c].holemask >> (k / 4)) & 1)
					continue;
				if (!xfmt_geom_ino_valid(&ctx->geom, ino) || xa_irec_find(ctx, ino) ||
				    xa_u64set_has(&ns->rp->cleared, ino) ||
				    xa_u64set_has(&ns->rp->new_inodes, ino))
					continue;
				return ino;
			}
	}
	return 0;
}

/*
 * Plan a fresh directory core for ino with permission bits perm: a copy of
 * the root's core as template (same owner, times and timestamp encoding),
 * empty short-form data fork, no attr fork; when the root's core is gone
 * too (its chunk destroyed, the root being recreated), a core built from
 * nothing.  The namespace phase writes its entries later (rp_dir_write
 * reads this core back through the plan).
 */
int rp_plan_dir_core(struct xr_rp *rp, uint64_t ino, uint16_t perm, int action, bool keep_old,
		     bool *kept)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint16_t mode = (uint16_t)(XFMT_S_IFDIR | (perm & 07777));
	uint8_t *buf = malloc(g->inodesize);
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	struct xfmt_dinode d;
	int rc;

	if (kept)
		*kept = false;
	if (!buf)
		return XERR_NOMEM;
	if (keep_old && ximg_pread(ctx->img, buf, g->inodesize, xfmt_geom_ino_byte(g, ino)) == 0 &&
	    xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 && d.magic == XFS_DINODE_MAGIC &&
	    is_dir(d.mode) && d.dfork_off < g->inodesize) {
		/* the old core's mode, owner and times; forks emptied */
		xfmt_dinode_tidy_kept_core(buf, g, ino, &d);
		memset(buf + d.dfork_off, 0, g->inodesize - d.dfork_off);
		buf[82] = 0;   /* no attr fork */
		buf[83] = XFS_DINODE_FMT_EXTENTS;
		xfmt_dinode_put_anextents(buf, &d, 0);
		xfmt_dinode_put_next_unlinked(buf, 0xFFFFFFFFu);
		xfmt_dinode_put_format(buf, XFS_DINODE_FMT_LOCAL);
		xfmt_dinode_put_size(buf, 0);
		xfmt_dinode_put_nblocks(buf, 0);
		xfmt_dinode_put_nextents(buf, &d, 0);
		xfmt_dinode_put_nlink(buf, 2);
		xfmt_dinode_seal(buf, g, ino, rp->env.lsn);
		if (kept)
			*kept = true;
	} else {
		xfmt_dinode_new_encode(buf, g, ino, mode, 2, 0, rp->env.lsn);
	}
	rc = rp_write_inode(rp, action, ino, buf);
	free(buf);
	if (!rc && xa_u64set_add(&rp->new_inodes, ino) < 0)
		rc = XERR_NOMEM;
	if (!rc)
		rp_need_rebuild(rp, agno);
	return rc;
}

/* Create lost+found in a free inode (mode 0700, as xfs_repair makes it),
 * named in the root. */
static int make_lost_found(struct ns *ns, size_t root, int action)
{
	struct xa_ctx *ctx = ns->ctx;
	static const uint8_t name[] = "lost+found";
	uint64_t ino = free_inode(ns);
	struct ns_ent *e;
	int rc;

	if (!ino)
		return XERR_UNSUPPORTED;
	rc = rp_plan_dir_core(ns->rp, ino, 0700, action, false, NULL);
	if (rc)
		return rc;
	/* its entry in the root goes at the end of the entry pool: the root's
	 * entries are moved there first so they stay contiguous */
	{
		struct ns_dir *r = &ns->dirs[root];
		size_t need = ns->nents + r->n + 1;

		if (xa_grow((void **)&ns->ents, &ns->ents_cap, need, sizeof(*ns->ents)) ||
		    xa_grow((void **)&ns->names, &ns->names_cap, ns->nnames + sizeof(name), 1))
			return XERR_NOMEM;
		memmove(ns->ents + ns->nents, ns->ents + r->first, r->n * sizeof(*ns->ents));
		r->first = ns->nents;
		ns->nents += r->n;
		e = &ns->ents[ns->nents++];
		r->n++;
		r->rewrite = true;
	}
	e->ino = ino;
	e->name_off = ns->nnames;
	e->namelen = sizeof(name) - 1;
	e->ftype = 2;  /* XFS_DIR3_FT_DIR */
	e->keep = true;
	e->src = NULL;
	memcpy(ns->names + ns->nnames, name, sizeof(name) - 1);
	ns->nnames += sizeof(name) - 1;
	rc = add_dir(ns, ino, NONE);
	if (rc)
		return rc;
	ns->lf = ns->ndirs - 1;
	ns->dirs[ns->lf].dotdot = ctx->sb.rootino;
	ns->dirs[ns->lf].rewrite = true;
	return 0;
}

/* lost+found as the root names it, or NONE. */
static size_t find_lost_found(struct ns *ns, size_t root)
{
	const struct ns_dir *r = &ns->dirs[root];

	for (size_t k = r->first; k < r->first + r->n; k++) {
		const struct ns_ent *e = &ns->ents[k];
		size_t t;

		if (e->keep && e->namelen == 10 && !memcmp(ent_name(ns, e), "lost+found", 10) &&
		    (t = live(ns, e->ino)) != NONE && ns->dir_of[t] != NONE)
			return ns->dir_of[t];
	}
	return NONE;
}

/* ------------------------------------------------------------------ */
/* Link counts and writes. */

static void count_links(struct ns *ns)
{
	memset(ns->links, 0, ns->ctx->nirecs * sizeof(*ns->links));
	for (size_t di = 0; di < ns->ndirs; di++) {
		struct ns_dir *d = &ns->dirs[di];

		d->subdirs = 0;
		if (d->irec != NONE && !ns->reached[d->irec])
			continue;
		for (size_t k = d->first; k < d->first + d->n; k++) {
			size_t t;

			if (!ns->ents[k].keep)
				continue;
			t = live(ns, ns->ents[k].ino);
			if (t == NONE) {
				d->subdirs++;  /* lost+found itself (a new inode) */
				continue;
			}
			if (ns->dir_of[t] != NONE)
				d->subdirs++;
			else
				ns->links[t]++;
		}
	}
	if (ns->lf != NONE)
		for (size_t k = 0; k < ns->norphans; k++) {
			size_t t = ns->orphans[k];

			if (ns->dir_of[t] != NONE)
				ns->dirs[ns->lf].subdirs++;
			else
				ns->links[t]++;
		}
}

/* Count the inodes in the subtree of directory di (entries kept). */
static uint64_t subtree(struct ns *ns, size_t di, uint64_t *entries)
{
	size_t *stack = malloc((ns->ndirs + 1) * sizeof(*stack));
	size_t sp = 0;
	uint64_t n = 0;

	*entries = 0;
	if (!stack)
		return 0;
	for (size_t k = ns->dirs[di].first; k < ns->dirs[di].first + ns->dirs[di].n; k++)
		*entries += ns->ents[k].keep;
	stack[sp++] = di;
	while (sp) {
		struct ns_dir *d = &ns->dirs[stack[--sp]];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			size_t t;

			if (!ns->ents[k].keep || (t = live(ns, ns->ents[k].ino)) == NONE)
				continue;
			n++;
			if (ns->dir_of[t] != NONE && ns->parent[t] == d->ino && sp < ns->ndirs)
				stack[sp++] = ns->dir_of[t];
		}
	}
	free(stack);
	return n;
}

/* Findings of one directory a rewrite answers. */
static int answer_dir(struct ns *ns, int action, uint64_t ino)
{
	const struct xa_findings *f = &ns->ctx->findings;

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *x = &f->items[i];
		unsigned fam = rp_family(x->p.code);

		if (!(x->p.has & XPROB_HAS_INO) || x->p.ino != ino)
			continue;
		if (fam == FAM_DIR || (fam == FAM_NS && x->p.code != XP_nsBadLinkCount &&
				       x->p.code != XP_nsOrphan && x->p.code != XP_nsOrphanDir &&
				       x->p.code != XP_nsUnlinkedOpen)) {
			int rc = rp_answer(ns->rp, action, i);

			if (rc)
				return rc;
		}
	}
	return 0;
}

static int write_dir(struct ns *ns, size_t di, int action)
{
	struct ns_dir *d = &ns->dirs[di];
	struct xfmt_dirent_in *in;
	char (*onames)[24] = NULL;
	size_t n = 0, extra = di == ns->lf ? ns->norphans : 0;
	uint64_t parent = d->irec != NONE ? ns->parent[d->irec] : ns->ctx->sb.rootino;
	int rc;

	in = calloc(d->n + extra + 1, sizeof(*in));
	if (extra)
		onames = calloc(extra, sizeof(*onames));
	if (!in || (extra && !onames)) {
		free(in);
		free(onames);
		return XERR_NOMEM;
	}
	for (size_t k = d->first; k < d->first + d->n; k++) {
		const struct ns_ent *e = &ns->ents[k];
		size_t t;

		if (!e->keep)
			continue;
		t = live(ns, e->ino);
		in[n].name = ent_name(ns, e);
		in[n].namelen = e->namelen;
		in[n].ino = e->ino;
		in[n].ftype = t == NONE ? 2 : xfmt_dir3_ftype_from_mode(ns->ctx->irecs[t].mode);
		n++;
	}
	for (size_t k = 0; k < extra; k++) {
		const struct xa_irec *r = &ns->ctx->irecs[ns->orphans[k]];
		unsigned suffix = 0;
		bool clash;

		/* The inode number, as xfs_repair names them; a clash gets ".N". */
		do {
			if (suffix)
				snprintf(onames[k], sizeof(onames[k]), "%" PRIu64 ".%u", r->ino, suffix);
			else
				snprintf(onames[k], sizeof(onames[k]), "%" PRIu64, r->ino);
			clash = false;
			for (size_t j = 0; j < n && !clash; j++)
				clash = in[j].namelen == strlen(onames[k]) &&
					!memcmp(in[j].name, onames[k], in[j].namelen);
			suffix++;
		} while (clash && suffix < 1000);
		in[n].name = (const uint8_t *)onames[k];
		in[n].namelen = (uint8_t)strlen(onames[k]);
		in[n].ino = r->ino;
		in[n].ftype = xfmt_dir3_ftype_from_mode(r->mode);
		n++;
	}
	rc = rp_dir_write(ns->rp, action, d->ino, parent, in, n, 2 + d->subdirs);
	if (!rc && extra) {
		/* the orphans' names, for their parent pointers */
		free(ns->onames);
		ns->onames = onames;
		onames = NULL;
	}
	if (!rc && extra)
		for (size_t k = 0; k < extra && !rc; k++) {
			const struct xa_irec *r = &ns->ctx->irecs[ns->orphans[k]];
			struct xr_orphan o;
			struct xa_inode ip;
			char path[64];

			memset(&o, 0, sizeof(o));
			o.ino = r->ino;
			o.mode = r->mode;
			if (xa_inode_read(ns->ctx, r->ino, &ip) == 0) {
				o.size = ip.d.size;
				xa_inode_release(&ip);
			}
			if (ns->dir_of[ns->orphans[k]] != NONE) {
				const struct ns_dir *od = &ns->dirs[ns->dir_of[ns->orphans[k]]];

				if (od->dotdot && live(ns, od->dotdot) != NONE)
					o.parent = od->dotdot;
				o.descendants = subtree(ns, ns->dir_of[ns->orphans[k]], &o.entries);
			}
			snprintf(path, sizeof(path), "/lost+found/%s", ns->onames[k]);
			o.new_path = strdup(path);
			if (!o.new_path) {
				rc = XERR_NOMEM;
				break;
			}
			rc = xr_plan_orphan(ns->rp->plan, &o);
			if (rc)
				free(o.new_path);
		}
	free(in);
	free(onames);
	return rc;
}

/* Original names: an orphan still named by some directory entry the
 * repair dropped (a name in a damaged or cut-off directory) gets it in the
 * report. */
static int original_names(struct ns *ns)
{
	struct xr_plan *p = ns->rp->plan;

	for (size_t di = 0; di < ns->ndirs; di++) {
		const struct ns_dir *d = &ns->dirs[di];

		for (size_t k = d->first; k < d->first + d->n; k++) {
			const struct ns_ent *e = &ns->ents[k];

			for (size_t o = 0; o < p->norphans; o++) {
				struct xr_orphan *x = &p->orphans[o];

				if (x->ino != e->ino || x->orig_name)
					continue;
				x->orig_name = malloc(e->namelen);
				if (!x->orig_name)
					return XERR_NOMEM;
				memcpy(x->orig_name, ent_name(ns, e), e->namelen);
				x->orig_namelen = e->namelen;
				if (!x->parent)
					x->parent = d->ino;
			}
		}
	}
	return 0;
}

/* Is irec t placed below lost+found in the repaired tree? */
static bool under_lost_found(struct ns *ns, size_t t)
{
	uint64_t lf = ns->lf != NONE ? ns->dirs[ns->lf].ino : 0;
	uint64_t p = ns->dir_of[t] != NONE ? ns->parent[t] : ns->via[t];

	for (size_t steps = 0; p && lf && steps <= ns->ndirs; steps++) {
		size_t pi;

		if (p == lf)
			return true;
		if (p == ns->ctx->sb.rootino)
			return false;
		pi = live(ns, p);
		if (pi == NONE)
			return false;
		p = ns->parent[pi];
	}
	return false;
}

/* Names rewritten directories hold again that their own blocks did not
 * give: each with where it was found, for the report. */
static int note_reattached(struct ns *ns)
{
	for (size_t di = 0; di < ns->ndirs; di++) {
		const struct ns_dir *d = &ns->dirs[di];

		if (!d->rewrite || (d->irec != NONE && !ns->reached[d->irec]))
			continue;
		for (size_t k = d->first; k < d->first + d->n; k++) {
			const struct ns_ent *e = &ns->ents[k];
			struct xr_reattached r;
			int rc;

			if (!e->keep || !e->src)
				continue;
			r.dir = d->ino;
			r.ino = e->ino;
			r.namelen = e->namelen;
			r.source = e->src;
			r.name = malloc(e->namelen ? e->namelen : 1);
			if (!r.name)
				return XERR_NOMEM;
			memcpy(r.name, ent_name(ns, e), e->namelen);
			rc = xr_plan_reattached(ns->rp->plan, &r);
			if (rc) {
				free(r.name);
				return rc;
			}
		}
	}
	return 0;
}

/*
 * On a filesystem with parent pointers: every name the repaired tree
 * gives (the kept entries of the directories it reaches, the orphans'
 * names in lost+found), with the generation each directory is left with,
 * for rp_pptr_write to make the inodes' parent pointers say.
 */
static int write_parent_pointers(struct ns *ns)
{
	struct rp_pptr_want *w = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!rp_has_pptrs(ns->ctx))
		return 0;
	for (size_t di = 0; di < ns->ndirs && !rc; di++) {
		const struct ns_dir *d = &ns->dirs[di];
		size_t extra = di == ns->lf && ns->onames ? ns->norphans : 0;
		struct xa_inode ip;
		uint32_t gen;

		if (d->irec != NONE && !ns->reached[d->irec])
			continue;
		rc = rp_read_planned_inode(ns->rp, d->ino, &ip);
		if (rc) {
			rc = rc == XERR_NOMEM ? rc : 0;
			continue;
		}
		gen = ip.d.gen;
		xa_inode_release(&ip);
		if (xa_grow((void **)&w, &cap, n + d->n + extra, sizeof(*w))) {
			rc = XERR_NOMEM;
			break;
		}
		for (size_t k = d->first; k < d->first + d->n; k++) {
			const struct ns_ent *e = &ns->ents[k];

			/* lost+found, when made here, has no record yet */
			if (!e->keep || (live(ns, e->ino) == NONE &&
					 !(ns->lf != NONE && e->ino == ns->dirs[ns->lf].ino)))
				continue;
			w[n++] = (struct rp_pptr_want){ .child = e->ino, .parent = d->ino, .gen = gen,
							.name = ent_name(ns, e), .namelen = e->namelen };
		}
		for (size_t k = 0; k < extra; k++)
			w[n++] = (struct rp_pptr_want){
				.child = ns->ctx->irecs[ns->orphans[k]].ino, .parent = d->ino,
				.gen = gen, .name = (const uint8_t *)ns->onames[k],
				.namelen = (uint8_t)strlen(ns->onames[k]) };
	}
	if (!rc)
		rc = rp_pptr_write(ns->rp, w, n);
	free(w);
	return rc;
}

static int plan_writes(struct ns *ns)
{
	struct xa_ctx *ctx = ns->ctx;
	struct xr_rp *rp = ns->rp;
	int lf_action = -1, nlink_action = -1, back_action = -1, rc;

	for (size_t di = 0; di < ns->ndirs; di++) {
		struct ns_dir *d = &ns->dirs[di];
		uint64_t want_parent;
		int action;

		if (d->irec != NONE && !ns->reached[d->irec])
			continue;
		want_parent = d->irec != NONE ? ns->parent[d->irec] : ctx->sb.rootino;
		if (d->dotdot != want_parent)
			d->rewrite = true;
		if (!d->rewrite)
			continue;
		if (di == ns->lf) {
			action = xr_plan_action(rp->plan, XR_ACT_LOST_FOUND, XR_NO_AG, d->ino,
						"lost+found (inode %" PRIu64 ") written with %zu orphans "
						"linked in", d->ino, ns->norphans);
			lf_action = action;
		} else {
			/* Inferred or old evidence, not read from the block: the
			 * report says so. */
			char log[160];

			snprintf(log, sizeof(log), "%s%s",
				 d->from_log ? "; entries of blocks gone on disk taken from the "
					       "log's copies of them" : "",
				 d->from_pptr ? "; names its blocks lost given back by its "
						"children's parent pointers" : "");

			if (d->corrected)
				action = xr_plan_action(rp->plan, XR_ACT_REWRITE_DIRECTORY,
							xfmt_geom_ino_agno(&ctx->geom, d->ino), d->ino,
							"directory %" PRIu64 " rewritten from the entries it "
							"still holds%s; the inode numbers of %" PRIu32
							" entries corrected by one bit (inferred: each named "
							"no inode or one of another type, and the one a bit "
							"away has the entry's type and lacked a name)",
							d->ino, log, d->corrected);
			else
				action = xr_plan_action(rp->plan, XR_ACT_REWRITE_DIRECTORY,
							xfmt_geom_ino_agno(&ctx->geom, d->ino), d->ino,
							"directory %" PRIu64 " rewritten from the entries it "
							"still holds%s", d->ino, log);
		}
		if (action < 0)
			return action;
		rc = write_dir(ns, di, action);
		if (rc == XERR_UNSUPPORTED)
			continue;  /* left as it is: its findings stay unanswered */
		if (!rc)
			rc = answer_dir(ns, action, d->ino);
		if (rc)
			return rc;
	}
	if (ns->lf != NONE)
		rc = original_names(ns);
	else
		rc = 0;
	if (!rc)
		rc = note_reattached(ns);
	if (rc)
		return rc;
	/* Link counts of everything not rewritten above. */
	for (size_t i = 0; i < ctx->nirecs; i++) {
		const struct xa_irec *r = &ctx->irecs[i];
		uint32_t want;

		if (!ns->reached[i] || live(ns, r->ino) == NONE)
			continue;
		want = ns->dir_of[i] != NONE ? 2 + ns->dirs[ns->dir_of[i]].subdirs : ns->links[i];
		if (ns->dir_of[i] != NONE && ns->dirs[ns->dir_of[i]].rewrite)
			continue;  /* rp_dir_write set it */
		if (want != r->nlink) {
			const struct xfmt_geom *g = &ctx->geom;
			uint8_t *buf = malloc(g->inodesize);
			uint64_t byte = xfmt_geom_ino_byte(g, r->ino);

			if (!buf)
				return XERR_NOMEM;
			if (nlink_action < 0) {
				nlink_action = xr_plan_action(rp->plan, XR_ACT_FIX_LINK_COUNTS, XR_NO_AG, 0,
							      "link counts set to the names the "
							      "repaired tree holds");
				if (nlink_action < 0) {
					free(buf);
					return nlink_action;
				}
			}
			rc = xr_plan_read(rp->plan, ctx, byte, buf, g->inodesize);
			if (!rc) {
				xfmt_dinode_put_nlink(buf, want);
				xfmt_dinode_seal(buf, g, r->ino, rp->env.lsn);
				rc = rp_write_inode(rp, nlink_action, r->ino, buf);
			}
			free(buf);
			if (rc)
				return rc;
		}
	}
	/* Answer what the repaired tree settles: an orphan of the check now
	 * under lost+found was placed there; one the tree reaches otherwise
	 * came back with a directory the repair rebuilt. */
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		size_t t;

		if (!(f->p.has & XPROB_HAS_INO))
			continue;
		t = live(ns, f->p.ino);
		if (t == NONE || !ns->reached[t])
			continue;
		if ((f->p.code == XP_nsOrphan || f->p.code == XP_nsOrphanDir) &&
		    lf_action >= 0 && under_lost_found(ns, t))
			rc = rp_answer(rp, lf_action, i);
		else if (f->p.code == XP_nsOrphan || f->p.code == XP_nsOrphanDir) {
			if (back_action < 0) {
				back_action = xr_plan_action(rp->plan, XR_ACT_RECONNECT, XR_NO_AG, 0,
							     "inodes no directory reached are reached "
							     "again through directories the repair "
							     "rebuilt");
				if (back_action < 0)
					return back_action;
			}
			rc = rp_answer(rp, back_action, i);
		}
		else if (f->p.code == XP_nsBadLinkCount) {
			if (nlink_action < 0) {
				nlink_action = xr_plan_action(rp->plan, XR_ACT_FIX_LINK_COUNTS, XR_NO_AG, 0,
							      "link counts set to the names the "
							      "repaired tree holds");
				if (nlink_action < 0)
					return nlink_action;
			}
			rc = rp_answer(rp, nlink_action, i);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ino is a valid inode number inside an inode chunk its AG knows (not in a
 * sparse hole). */
static bool in_known_chunk(const struct xa_ctx *ctx, uint64_t ino)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t agno, agino;

	if (!xfmt_geom_ino_valid(g, ino))
		return false;
	agno = xfmt_geom_ino_agno(g, ino);
	agino = xfmt_geom_ino_agino(g, ino);
	if (agno >= ctx->nags)
		return false;
	for (size_t i = 0; i < ctx->ags[agno].nchunks; i++) {
		const struct xa_ichunk *c = &ctx->ags[agno].chunks[i];

		if (agino >= c->startino && agino < c->startino + 64)
			return !((c->holemask >> ((agino - c->startino) / 4)) & 1);
	}
	return false;
}

/*
 * Bring directory ino back with a new core when its entries still exist
 * (dir_salvage.c: its blocks, its literal area or the log); r is its
 * record when the check saw it in use.  *done says whether it was.
 */
static int revive_one(struct xr_rp *rp, uint64_t ino, const struct xa_irec *r, bool *done)
{
	struct xa_ctx *ctx = rp->ctx;
	uint16_t perm = r ? (uint16_t)(r->mode & 07777) : 0755;
	uint64_t dotdot;
	bool kept;
	int action, rc;

	*done = false;
	if (ino == ctx->sb.rootino || xa_is_metadata_inode(ctx, ino) ||
	    xa_u64set_has(&rp->new_inodes, ino))
		return 0;
	rc = rp_dir_salvage(rp, ino, NULL, NULL, &dotdot);
	if (rc < 0)
		return rc;
	/* Nothing of its own left: its children's parent pointers still name
	 * it (their names and its generation). */
	if (rc == 0) {
		uint32_t gen;

		rc = rp_pptr_prepare(rp);
		if (rc)
			return rc;
		if (!rp_has_pptrs(ctx) || !rp_pptr_gen_vote(&rp->pptrs, ino, &gen))
			return 0;
		rp->salvage_source = "parent-pointers";
		rp->salvage_lsn = 0;
	}
	action = xr_plan_action(rp->plan, XR_ACT_REVIVE_DIRECTORY, xfmt_geom_ino_agno(&ctx->geom, ino),
				ino, "directory %" PRIu64 " given a new core: its entries survive in "
				"%s", ino, rp_salvage_source_text(rp->salvage_source));
	if (action < 0)
		return action;
	rc = rp_plan_dir_core(rp, ino, perm, action, true, &kept);
	if (rc == XERR_UNSUPPORTED)
		return 0;  /* no core could be made: its children become orphans */
	if (!rc)
		rc = rp_pptr_take_gen(rp, ino, action);
	if (!rc) {
		uint32_t gen;
		bool pgen = rp_has_pptrs(ctx) && rp_pptr_gen_vote(&rp->pptrs, ino, &gen);
		struct xr_revived rv = {
			.ino = ino, .mode = (uint16_t)(XFMT_S_IFDIR | perm),
			.source = rp->salvage_source,
			.recovered = kept ? (pgen ? "mode uid gid times entries gen" :
					     "mode uid gid times entries") :
				     (pgen ? "entries gen" : "entries"),
			.synthesized = kept ? "" : "mode uid gid times",
			.lost = "xattrs",
			.lsn = rp->salvage_lsn,
		};

		rc = xr_plan_revived(rp->plan, &rv);
	}
	if (!rc)
		rc = rp_answer_entries(rp, action, ino);
	/* the record says directory from now on (the damaged core's mode may
	 * say anything: entries naming it get their file type from it) */
	if (!rc) {
		struct xa_irec *now = xa_irec_find(ctx, ino);

		if (now)
			now->mode = (uint16_t)(XFMT_S_IFDIR | perm);
		else
			rc = rp_irec_insert(ctx, ino, XFMT_S_IFDIR | 0755);
	}
	*done = !rc;
	return rc;
}

/*
 * Cleared inodes that were directories and whose entries still exist
 * (dir_salvage.c) come back as directories with a fresh core, so their
 * children keep their paths.
 */
static int revive_dirs(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	uint64_t *cand;
	size_t n = 0;
	int rc = 0;

	/* Candidates: inodes the plan clears, and inodes whose core says free
	 * while the inode btree says allocated (a zeroed mode). */
	cand = malloc((rp->cleared.used + ctx->findings.count + 1) * sizeof(*cand));
	if (!cand)
		return XERR_NOMEM;
	for (size_t i = 0; i < rp->cleared.cap; i++)
		if (rp->cleared.slots[i])
			cand[n++] = rp->cleared.slots[i] - 1;
	for (size_t i = 0; i < ctx->findings.count; i++)
		if (ctx->findings.items[i].p.code == XP_inoUsedButFree &&
		    (ctx->findings.items[i].p.has & XPROB_HAS_INO) &&
		    !xa_irec_find(ctx, ctx->findings.items[i].p.ino))
			cand[n++] = ctx->findings.items[i].p.ino;
	for (size_t i = 0; i < n && !rc; i++) {
		struct xa_irec *r = xa_irec_find(ctx, cand[i]);
		bool done;

		if (r && !is_dir(r->mode))
			continue;
		/* a core gone: only an inode the inode btree calls allocated */
		if (!r && !rp_inobt_says_used(ctx, cand[i]))
			continue;
		rc = revive_one(rp, cand[i], r, &done);
	}
	free(cand);
	return rc;
}

/*
 * Entries the filter dropped because they name no allocated inode, where
 * the entry says directory: a directory whose core went with its inode
 * btree (a zeroed chunk).  Each comes back when its own blocks say they are
 * its (the v5 header's owner, the rmapbt, the log) and its chunk is known;
 * *revived counts them (the namespace must then be read again).
 */
static int revive_named(struct ns *ns, size_t *revived)
{
	const struct xfmt_geom *g = &ns->ctx->geom;
	struct xr_rp *rp = ns->rp;
	size_t took = 0;
	int rc = 0;

	*revived = 0;
	/* Chunks no tree or scan knows, where the log says a named inode lived
	 * in use: taken back, then filled with what the log still holds. */
	for (size_t k = 0; k < ns->nents && !rc; k++) {
		const struct ns_ent *e = &ns->ents[k];

		if (e->keep || !xfmt_dir2_ino_ok(g, e->ino) || live(ns, e->ino) != NONE ||
		    in_known_chunk(ns->ctx, e->ino) || !rp_stale_in_use(rp, e->ino))
			continue;
		rc = rp_take_back_chunk(rp, e->ino);
		if (rc == XERR_UNSUPPORTED)
			rc = 0;
		else if (!rc)
			took++;
	}
	if (!rc && took) {
		size_t before = rp->new_inodes.used;

		rc = rp_revive_from_log(rp);
		*revived += rp->new_inodes.used - before;
	}
	for (size_t k = 0; k < ns->nents && !rc; k++) {
		const struct ns_ent *e = &ns->ents[k];
		bool done;

		if (e->keep || !xfmt_dir2_ino_ok(g, e->ino) || live(ns, e->ino) != NONE ||
		    (xfmt_geom_has_ftype(g) && e->ftype != XFS_DIR3_FT_DIR) ||
		    !in_known_chunk(ns->ctx, e->ino))
			continue;
		rc = revive_one(ns->rp, e->ino, NULL, &done);
		*revived += done;
	}
	return rc;
}

/* Any finding about names, directories or link counts? */
static bool namespace_findings(const struct xa_ctx *ctx)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		unsigned fam = rp_family(ctx->findings.items[i].p.code);

		if (fam == FAM_NS || fam == FAM_DIR)
			return true;
	}
	return ctx->findings.dropped != 0;
}

int rp_plan_names(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct ns ns;
	size_t root_irec, root;
	bool retried = false;
	int rc;

	memset(&ns, 0, sizeof(ns));
	ns.rp = rp;
	ns.ctx = ctx;
	ns.lf = NONE;
	if (!ctx->nirecs)
		return 0;
	/* With some AG's inodes unknown, an entry naming one of them cannot be
	 * told from a dangling one: leave the namespace alone. */
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ag *ag = &ctx->ags[a];

		if (!xa_ag_chunks_known(ag))
			return 0;
	}
	rc = revive_dirs(rp);
	if (!rc)
		rc = rp_revive_files(rp);
	if (!rc)
		rc = rp_revive_from_log(rp);
	if (rc)
		return rc;
	/* Nothing touched the namespace and the check found it sound: reading
	 * every directory again would only confirm it. */
	if (!rp->cleared.used && !rp->new_inodes.used && !rp->root_fixed &&
	    !namespace_findings(ctx) && !(rp_has_pptrs(ctx) && rp->attr_dropped.used))
		return 0;  /* (an attr fork emptied took its parent pointers with it) */
again:
	root_irec = live(&ns, ctx->sb.rootino);
	if (root_irec == NONE || !is_dir(ctx->irecs[root_irec].mode))
		return 0;  /* no root to hang a tree on: findings stay unanswered */
	ns.dir_of = malloc(ctx->nirecs * sizeof(*ns.dir_of));
	ns.parent = calloc(ctx->nirecs, sizeof(*ns.parent));
	ns.links = calloc(ctx->nirecs, sizeof(*ns.links));
	ns.reached = calloc(ctx->nirecs, 1);
	ns.via = calloc(ctx->nirecs, sizeof(*ns.via));
	if (!ns.dir_of || !ns.parent || !ns.links || !ns.reached || !ns.via) {
		rc = XERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < ctx->nirecs; i++)
		ns.dir_of[i] = NONE;
	rc = collect_dirs(&ns);
	if (!rc)
		rc = correct_flipped_entries(&ns);
	if (!rc)
		rc = filter_entries(&ns);
	if (!rc && !retried) {
		size_t revived;

		/* Once: directories revived here change the inode records the
		 * arrays above are indexed by, so the namespace is read again. */
		retried = true;
		rc = revive_named(&ns, &revived);
		if (!rc && revived) {
			ns_release(&ns);
			goto again;
		}
	}
	if (rc)
		goto out;
	root = ns.dir_of[root_irec];
	if (root == NONE)
		goto out;
	rc = root_tree(&ns, root);
	if (!rc)
		rc = find_orphans(&ns);
	if (rc)
		goto out;
	if (ns.norphans) {
		int action;

		ns.lf = find_lost_found(&ns, root);
		if (ns.lf == NONE) {
			action = xr_plan_action(rp->plan, XR_ACT_CREATE_LOST_FOUND, XR_NO_AG, 0,
						"/lost+found created for %zu orphans", ns.norphans);
			if (action < 0) {
				rc = action;
				goto out;
			}
			rc = make_lost_found(&ns, root, action);
			if (rc == XERR_UNSUPPORTED) {
				rc = 0;  /* no free inode: orphans stay where they are */
				goto out;
			}
			if (rc)
				goto out;
		} else {
			ns.dirs[ns.lf].rewrite = true;
		}
		rc = reach_orphans(&ns);
		if (rc)
			goto out;
	}
	count_links(&ns);
	rc = plan_writes(&ns);
	if (!rc)
		rc = write_parent_pointers(&ns);
out:
	ns_release(&ns);
	return rc;
}
