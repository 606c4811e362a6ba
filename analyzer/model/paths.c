/*
 * paths.c - the paths of a set of inodes, from one walk of the tree.
 *
 * The wanted inodes are copied into a sorted array so that each has a slot
 * counting the paths kept for it: the cap per inode then holds however many
 * names a hostile directory gives one inode.
 */
#include "analyzer/model/paths.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/tree.h"
#include "analyzer/model/u64set.h"

struct paths_walk {
	struct xa_paths *out;
	uint64_t        *want;     /* sorted */
	unsigned        *kept;     /* per want[] slot */
	size_t           nwant;
	unsigned         max_per_inode;
	size_t           max_bytes;
	int              err;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static int cmp_path(const void *x, const void *y)
{
	const struct xa_path *a = x, *b = y;

	if (a->ino != b->ino)
		return (a->ino > b->ino) - (a->ino < b->ino);
	return (a->order > b->order) - (a->order < b->order);
}

static size_t slot_of(const struct paths_walk *pw, uint64_t ino)
{
	size_t lo = 0, hi = pw->nwant;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pw->want[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pw->nwant && pw->want[lo] == ino ? lo : SIZE_MAX;
}

/* Keep s (malloc'd, taken over) as a path of ino. */
static int keep(struct paths_walk *pw, uint64_t ino, char *s)
{
	struct xa_paths *o = pw->out;

	if (!s || xa_grow((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v))) {
		free(s);
		return XERR_NOMEM;
	}
	o->v[o->n].ino = ino;
	o->v[o->n].path = s;
	o->v[o->n].order = o->n;
	o->n++;
	return 0;
}

static int on_entry(void *arg, const struct xa_tree_entry *e)
{
	struct paths_walk *pw = arg;
	size_t slot = slot_of(pw, e->ino);
	bool cut = false;
	char *s;

	if (slot == SIZE_MAX)
		return 0;
	if (pw->max_per_inode && pw->kept[slot] >= pw->max_per_inode)
		return 0;
	s = pw->max_bytes ? xa_tree_path_cut(e, pw->max_bytes, &cut) : strdup(e->path);
	if (s && cut) {
		size_t sl = strlen(s);
		char *t = realloc(s, sl + 4);

		if (!t) {
			free(s);
			s = NULL;
		} else {
			s = t;
			memcpy(s + sl, "...", 4);
		}
	}
	pw->kept[slot]++;
	if (keep(pw, e->ino, s))
		return pw->err = XERR_NOMEM;
	return 0;
}

int xa_paths_find(struct xa_ctx *ctx, const struct xa_u64set *want, unsigned max_per_inode,
		  size_t max_bytes, const struct xa_messages *msgs, struct xa_paths *out)
{
	struct paths_walk pw = { out, NULL, NULL, 0, max_per_inode, max_bytes, 0 };
	uint64_t root = ctx->sb.rootino;
	bool incomplete = false;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!want->used)
		return 0;
	pw.want = malloc(want->used * sizeof(*pw.want));
	pw.kept = calloc(want->used, sizeof(*pw.kept));
	if (!pw.want || !pw.kept) {
		rc = XERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < want->cap; i++)
		if (want->slots[i])
			pw.want[pw.nwant++] = want->slots[i] - 1;
	qsort(pw.want, pw.nwant, sizeof(*pw.want), cmp_u64);
	if (slot_of(&pw, root) != SIZE_MAX) {
		pw.kept[slot_of(&pw, root)]++;
		rc = keep(&pw, root, strdup("/"));
		if (rc)
			goto out;
	}
	rc = xa_tree_walk(ctx, root, "", true, on_entry, &pw, msgs, &incomplete);
	if (pw.err)
		rc = pw.err;
	/* A namespace that cannot be walked leaves inodes without paths, no more. */
	if (rc && rc != XERR_NOMEM) {
		incomplete = true;
		rc = 0;
	}
	out->incomplete = incomplete;
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_path);
out:
	free(pw.want);
	free(pw.kept);
	if (rc)
		xa_paths_release(out);
	return rc;
}

size_t xa_paths_of(const struct xa_paths *p, uint64_t ino, size_t *count)
{
	size_t lo = 0, hi = p->n, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < p->n && p->v[lo].ino == ino)
		lo++;
	*count = lo - first;
	return first;
}

void xa_paths_release(struct xa_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
