/*
 * tree.c - the directory-tree walk shared by ls -R, bodyfile and map.
 *
 * An explicit stack of pending directories (not recursion) and a set of
 * directories already stacked bound the walk on damaged trees: cycles and
 * directories with two parents are entered once, depth is capped.
 *
 * Memory stays linear in the number of directories however deep the tree:
 * a directory is a frame (inode, parent frame, depth, its name's place in
 * one arena of raw names), never a stored path.  The display and raw paths
 * live in two buffers that hold the chain of the directory being listed;
 * moving to the next directory cuts them back to the common ancestor and
 * appends the names below it, so every name is escaped and copied about
 * once per directory entered, not once per level of every path.
 */
#include "analyzer/model/tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/messages.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/escape.h"

#define XA_TREE_MAX_DEPTH 4096u

static int ent_cmp(const void *a, const void *b)
{
	const struct xa_dirent_copy *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (int)x->namelen - (int)y->namelen;
}

struct frame {
	uint64_t ino;
	size_t   parent;    /* frame index; the starting directory is its own */
	size_t   name_off;  /* into the name arena */
	uint8_t  namelen;
	unsigned depth;
};

struct buf {
	char  *p;
	size_t n, cap;
};

struct xa_tree_walker {
	struct frame *fr;        /* every directory stacked, in stacking order */
	size_t        nfr, capfr;
	size_t       *stack;     /* frames still to visit */
	size_t        nst, capst;
	uint8_t      *names;     /* raw names of the frames */
	size_t        nnames, capnames;
	/* The chain of the directory being listed: chain[d] is its ancestor at
	 * depth d; dcut/rcut[d] the path lengths up to it (d = depth + 1: the
	 * entry being emitted). */
	size_t       *chain;
	size_t       *dcut, *rcut;
	unsigned      nchain;
	struct buf    disp, raw;
	size_t       *up;        /* scratch: frames to append */
};

static int buf_put(struct buf *b, const void *s, size_t len)
{
	if (xa_grow((void **)&b->p, &b->cap, b->n + len + 1, 1))
		return XERR_NOMEM;
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
	return 0;
}

static void buf_cut(struct buf *b, size_t n)
{
	b->n = n;
	if (b->p)
		b->p[n] = '\0';
}

/* Append "/" and the name to both paths (display escaped, raw as stored
 * unless it holds a NUL) and record the lengths at chain depth d. */
static int append_name(struct xa_tree_walker *w, unsigned d, const uint8_t *name, size_t len)
{
	char *esc = xa_escape_name(name, len);
	int rc;

	if (!esc)
		return XERR_NOMEM;
	rc = buf_put(&w->disp, "/", 1);
	if (!rc)
		rc = buf_put(&w->disp, esc, strlen(esc));
	if (!rc)
		rc = buf_put(&w->raw, "/", 1);
	if (!rc && memchr(name, 0, len)) {
		char *x = xa_escape_text(name, len);

		rc = x ? buf_put(&w->raw, x, strlen(x)) : XERR_NOMEM;
		free(x);
	} else if (!rc) {
		rc = buf_put(&w->raw, name, len);
	}
	free(esc);
	if (rc)
		return rc;
	w->dcut[d] = w->disp.n;
	w->rcut[d] = w->raw.n;
	return 0;
}

/* Make the path buffers hold frame f's paths. */
static int set_current(struct xa_tree_walker *w, size_t f)
{
	size_t nup = 0, a = f;
	int rc;

	/* Climb to the nearest ancestor already on the chain (the starting
	 * directory, frame 0, always is). */
	while (!(w->fr[a].depth < w->nchain && w->chain[w->fr[a].depth] == a)) {
		w->up[nup++] = a;
		a = w->fr[a].parent;
	}
	w->nchain = w->fr[a].depth + 1;
	buf_cut(&w->disp, w->dcut[w->fr[a].depth]);
	buf_cut(&w->raw, w->rcut[w->fr[a].depth]);
	while (nup) {
		const struct frame *g = &w->fr[w->up[--nup]];

		rc = append_name(w, g->depth, w->names + g->name_off, g->namelen);
		if (rc)
			return rc;
		w->chain[g->depth] = w->up[nup];
		w->nchain = g->depth + 1;
	}
	return 0;
}

static int push(struct xa_tree_walker *w, uint64_t ino, size_t parent, const uint8_t *name,
		size_t namelen, unsigned depth)
{
	if (xa_grow((void **)&w->fr, &w->capfr, w->nfr + 1, sizeof(*w->fr)) ||
	    xa_grow((void **)&w->stack, &w->capst, w->nst + 1, sizeof(*w->stack)) ||
	    xa_grow((void **)&w->names, &w->capnames, w->nnames + namelen, 1))
		return XERR_NOMEM;
	if (namelen)
		memcpy(w->names + w->nnames, name, namelen);
	w->fr[w->nfr] = (struct frame){ ino, parent, w->nnames, (uint8_t)namelen, depth };
	w->nnames += namelen;
	w->stack[w->nst++] = w->nfr++;
	return 0;
}

char *xa_tree_path_cut(const struct xa_tree_entry *e, size_t raw_max, bool *cut)
{
	const struct xa_tree_walker *w = e->w;
	unsigned last = e->depth, k = 0;
	size_t dlen, rlen, rest;
	char *tail, *out;

	*cut = w->rcut[last] > raw_max;
	if (!*cut)
		return strdup(w->disp.p);
	/* k: the deepest level whose whole raw path fits. */
	while (k + 1 <= last && w->rcut[k + 1] <= raw_max)
		k++;
	if (w->rcut[k] > raw_max) {
		/* Even the starting directory's path is cut. */
		return xa_escape_text(w->raw.p, raw_max);
	}
	dlen = w->dcut[k];
	rlen = w->rcut[k];
	rest = raw_max - rlen;  /* "/" and the first bytes of the next name */
	tail = xa_escape_name(w->raw.p + rlen + (rest ? 1 : 0), rest ? rest - 1 : 0);
	if (!tail)
		return NULL;
	out = malloc(dlen + 1 + strlen(tail) + 1);
	if (out) {
		memcpy(out, w->disp.p, dlen);
		if (rest)
			out[dlen++] = '/';
		strcpy(out + dlen, tail);
	}
	free(tail);
	return out;
}

/* Visit one directory's entries; stack its subdirectories (reverse order). */
static int visit_dir(struct xa_ctx *ctx, struct xa_tree_walker *w, size_t fi,
		     struct xa_u64set *seen, bool recursive, xa_tree_fn fn, void *arg,
		     const struct xa_messages *msgs, bool *incomplete)
{
	struct xa_dirent_list l = { 0 };
	struct xa_inode dir;
	bool complete = true;
	size_t first_push = w->nst;
	uint64_t ino = w->fr[fi].ino;
	unsigned depth = w->fr[fi].depth;
	int rc;

	rc = set_current(w, fi);
	if (rc)
		return rc;
	rc = xa_inode_read(ctx, ino, &dir);
	if (rc) {
		xa_diag(msgs, "%s: directory inode %" PRIu64 " cannot be read",
			w->disp.p[0] ? w->disp.p : "/", ino);
		*incomplete = true;
		return rc == XERR_NOMEM ? rc : 0;
	}
	rc = xa_dir_iterate(ctx, &dir, NULL, xa_dirent_list_add, &l, &complete);
	xa_inode_release(&dir);
	if (!complete) {
		xa_diag(msgs, "%s: directory inode %" PRIu64 " could not be read completely",
			w->disp.p[0] ? w->disp.p : "/", ino);
		*incomplete = true;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), ent_cmp);
	for (size_t i = 0; i < l.n && !rc; i++) {
		size_t dbase = w->disp.n, rbase = w->raw.n;
		struct xa_tree_entry e;
		struct xa_inode ip;
		bool have;

		rc = append_name(w, depth + 1, l.v[i].name, l.v[i].namelen);
		if (rc)
			break;
		have = xa_inode_read(ctx, l.v[i].ino, &ip) == 0;
		e.path = w->disp.p;
		e.raw_path = w->raw.p;
		e.raw_name = w->raw.p + rbase + 1;
		e.name = l.v[i].name;
		e.namelen = l.v[i].namelen;
		e.ino = l.v[i].ino;
		e.ftype = l.v[i].ftype;
		e.ip = have ? &ip : NULL;
		e.depth = depth + 1;
		e.w = w;
		rc = fn(arg, &e);
		if (!rc && recursive && have && (ip.d.mode & 0170000u) == 0040000u &&
		    depth + 1 < XA_TREE_MAX_DEPTH) {
			int added = xa_u64set_add(seen, l.v[i].ino);

			if (added < 0) {
				rc = XERR_NOMEM;
			} else if (added == 0) {
				xa_diag(msgs, "%s: directory inode %" PRIu64 " was already "
					"listed under another name; not entered again", e.path,
					l.v[i].ino);
				*incomplete = true;
			} else {
				rc = push(w, l.v[i].ino, fi, l.v[i].name, l.v[i].namelen, depth + 1);
			}
		}
		if (have)
			xa_inode_release(&ip);
		buf_cut(&w->disp, dbase);
		buf_cut(&w->raw, rbase);
	}
	xa_dirent_list_release(&l);
	/* Reverse what this directory stacked so it pops in name order. */
	for (size_t a = first_push, b = w->nst; b > a + 1; a++, b--) {
		size_t t = w->stack[a];

		w->stack[a] = w->stack[b - 1];
		w->stack[b - 1] = t;
	}
	return rc;
}

static void walker_release(struct xa_tree_walker *w)
{
	free(w->fr);
	free(w->stack);
	free(w->names);
	free(w->chain);
	free(w->dcut);
	free(w->rcut);
	free(w->up);
	free(w->disp.p);
	free(w->raw.p);
}

int xa_tree_walk(struct xa_ctx *ctx, uint64_t dir_ino, const char *dir_path, bool recursive,
		 xa_tree_fn fn, void *arg, const struct xa_messages *msgs, bool *incomplete)
{
	struct xa_tree_walker w = { 0 };
	struct xa_u64set seen = { 0 };
	size_t levels = XA_TREE_MAX_DEPTH + 1;
	int rc;

	*incomplete = false;
	w.chain = calloc(levels, sizeof(*w.chain));
	w.dcut = calloc(levels, sizeof(*w.dcut));
	w.rcut = calloc(levels, sizeof(*w.rcut));
	w.up = calloc(levels, sizeof(*w.up));
	rc = !w.chain || !w.dcut || !w.rcut || !w.up ? XERR_NOMEM : 0;
	if (!rc)
		rc = buf_put(&w.disp, dir_path, strlen(dir_path));
	if (!rc)
		rc = buf_put(&w.raw, dir_path, strlen(dir_path));
	if (!rc)
		rc = push(&w, dir_ino, 0, NULL, 0, 0);
	if (!rc && xa_u64set_add(&seen, dir_ino) < 0)
		rc = XERR_NOMEM;
	if (!rc) {
		w.chain[0] = 0;
		w.nchain = 1;
		w.dcut[0] = w.disp.n;
		w.rcut[0] = w.raw.n;
	}
	while (!rc && w.nst)
		rc = visit_dir(ctx, &w, w.stack[--w.nst], &seen, recursive, fn, arg, msgs,
			       incomplete);
	walker_release(&w);
	xa_u64set_release(&seen);
	return rc;
}
