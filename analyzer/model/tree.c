/*
 * tree.c - the directory-tree walk shared by ls -R and bodyfile.
 *
 * An explicit stack of pending directories (not recursion) and a set of
 * directories already entered bound the walk on damaged trees: cycles and
 * directories with two parents are entered once, depth is capped.
 */
#include "analyzer/model/tree.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/report_xml.h"

#define XA_TREE_MAX_DEPTH 4096u

struct ent {
	uint64_t ino;
	uint8_t  ftype;
	uint8_t  namelen;
	uint8_t  name[256];
};

struct entlist {
	struct ent *v;
	size_t      n, cap;
};

static int collect(void *arg, const struct xfmt_dirent *de)
{
	struct entlist *l = arg;

	if (xfmt_dir2_name_dots(de->name, de->namelen))
		return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 32;
		struct ent *n = realloc(l->v, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		l->v = n;
		l->cap = ncap;
	}
	l->v[l->n].ino = de->ino;
	l->v[l->n].ftype = de->ftype;
	l->v[l->n].namelen = de->namelen;
	memcpy(l->v[l->n].name, de->name, de->namelen);
	l->n++;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (int)x->namelen - (int)y->namelen;
}

struct frame {
	uint64_t ino;
	char    *path;
	char    *raw;
	unsigned depth;
};

struct stack {
	struct frame *v;
	size_t        n, cap;
};

static int push(struct stack *s, uint64_t ino, char *path, char *raw, unsigned depth)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct frame *n = realloc(s->v, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		s->v = n;
		s->cap = ncap;
	}
	s->v[s->n].ino = ino;
	s->v[s->n].path = path;
	s->v[s->n].raw = raw;
	s->v[s->n].depth = depth;
	s->n++;
	return 0;
}

static char *join(const char *dir, const uint8_t *name, size_t len, bool raw)
{
	char *esc, *p;
	size_t a = strlen(dir), b;

	if (raw && !memchr(name, 0, len)) {
		esc = malloc(len + 1);
		if (esc) {
			memcpy(esc, name, len);
			esc[len] = '\0';
		}
	} else {
		esc = xa_report_xml_escape(name, len);
	}
	if (!esc)
		return NULL;
	b = strlen(esc);
	p = malloc(a + b + 2);
	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, esc, b + 1);
	}
	free(esc);
	return p;
}

/* Visit one directory's entries; push its subdirectories (reverse order). */
static int visit_dir(struct xa_ctx *ctx, const struct frame *f, bool recursive, xa_tree_fn fn,
		     void *arg, FILE *err, bool *incomplete, struct stack *st)
{
	struct entlist l = { 0 };
	struct xa_inode dir;
	bool complete = true;
	size_t first_push = st->n;
	int rc;

	rc = xa_inode_read(ctx, f->ino, &dir);
	if (rc) {
		fprintf(err, "xfsrecon: %s: directory inode %" PRIu64 " cannot be read\n",
			f->path[0] ? f->path : "/", f->ino);
		*incomplete = true;
		return rc == XERR_NOMEM ? rc : 0;
	}
	rc = xa_dir_iterate(ctx, &dir, NULL, collect, &l, &complete);
	xa_inode_release(&dir);
	if (!complete) {
		fprintf(err, "xfsrecon: %s: directory inode %" PRIu64 " could not be read completely\n",
			f->path[0] ? f->path : "/", f->ino);
		*incomplete = true;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), ent_cmp);
	for (size_t i = 0; i < l.n && !rc; i++) {
		struct xa_tree_entry e;
		struct xa_inode ip;
		bool have = xa_inode_read(ctx, l.v[i].ino, &ip) == 0;
		char *path = join(f->path, l.v[i].name, l.v[i].namelen, false);
		char *raw = join(f->raw, l.v[i].name, l.v[i].namelen, true);

		if (!path || !raw) {
			free(path);
			free(raw);
			if (have)
				xa_inode_release(&ip);
			rc = XERR_NOMEM;
			break;
		}
		e.path = path;
		e.raw_path = raw;
		e.name = l.v[i].name;
		e.namelen = l.v[i].namelen;
		e.ino = l.v[i].ino;
		e.ftype = l.v[i].ftype;
		e.ip = have ? &ip : NULL;
		e.depth = f->depth + 1;
		rc = fn(arg, &e);
		if (!rc && recursive && have && (ip.d.mode & 0170000u) == 0040000u &&
		    f->depth + 1 < XA_TREE_MAX_DEPTH) {
			rc = push(st, l.v[i].ino, path, raw, f->depth + 1);
			if (!rc)
				path = raw = NULL;
		}
		free(path);
		free(raw);
		if (have)
			xa_inode_release(&ip);
	}
	free(l.v);
	/* Reverse what this directory pushed so it pops in name order. */
	for (size_t a = first_push, b = st->n; b > a + 1; a++, b--) {
		struct frame t = st->v[a];
		st->v[a] = st->v[b - 1];
		st->v[b - 1] = t;
	}
	return rc;
}

int xa_tree_walk(struct xa_ctx *ctx, uint64_t dir_ino, const char *dir_path, bool recursive,
		 xa_tree_fn fn, void *arg, FILE *err, bool *incomplete)
{
	struct stack st = { 0 };
	struct xa_u64set seen = { 0 };
	char *root = strdup(dir_path), *rroot = strdup(dir_path);
	int rc;

	*incomplete = false;
	if (!root || !rroot) {
		free(root);
		free(rroot);
		return XERR_NOMEM;
	}
	rc = push(&st, dir_ino, root, rroot, 0);
	if (rc) {
		free(root);
		free(rroot);
		return rc;
	}
	while (st.n && !rc) {
		struct frame f = st.v[--st.n];
		int added = xa_u64set_add(&seen, f.ino);

		if (added < 0) {
			rc = XERR_NOMEM;
		} else if (added == 0) {
			fprintf(err, "xfsrecon: %s: directory inode %" PRIu64 " was already listed "
				"under another name; not entered again\n", f.path, f.ino);
			*incomplete = true;
		} else {
			rc = visit_dir(ctx, &f, recursive, fn, arg, err, incomplete, &st);
		}
		free(f.path);
		free(f.raw);
	}
	while (st.n) {
		st.n--;
		free(st.v[st.n].path);
		free(st.v[st.n].raw);
	}
	free(st.v);
	xa_u64set_release(&seen);
	return rc;
}
