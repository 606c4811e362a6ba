/*
 * plan.c - the repair plan's bookkeeping (see plan.h).
 *
 * Changes stay in the order writers add them until xr_plan_finish sorts
 * them; an AVL tree over their offsets (struct xr_plan_index) answers "which
 * changes touch this range" in O(log n), for the overlap check of every
 * write and for xr_plan_read, which writers use to see earlier planned
 * bytes.  A damaged filesystem can need a write to every inode, so both are
 * on the hot path of a large repair.
 *
 * Bytes beyond the memory bound go to an unnamed temporary file (the spill
 * file): a repair's memory does not grow with how much of the image it
 * rewrites.
 */
#include "reconstruct/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/fd_io.h"
#include "analyzer/io/image.h"

/* Grow *arr (element size sz) so that one more element fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / sz)
		return XERR_NOMEM;
	na = realloc(*arr, ncap * sz);
	if (!na)
		return XERR_NOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------ the index */

#define NIL (-1)

/* An AVL tree whose nodes are change indices, keyed by change offset (two
 * changes never share an offset: they would overlap). */
struct xr_plan_index {
	int32_t  root;
	int32_t *left, *right;
	uint8_t *height;
	size_t   cap;
};

static int idx_height(const struct xr_plan_index *t, int32_t n)
{
	return n == NIL ? 0 : t->height[n];
}

static void idx_fix(struct xr_plan_index *t, int32_t n)
{
	int hl = idx_height(t, t->left[n]), hr = idx_height(t, t->right[n]);

	t->height[n] = (uint8_t)((hl > hr ? hl : hr) + 1);
}

static int32_t idx_rotate_right(struct xr_plan_index *t, int32_t n)
{
	int32_t l = t->left[n];

	t->left[n] = t->right[l];
	t->right[l] = n;
	idx_fix(t, n);
	idx_fix(t, l);
	return l;
}

static int32_t idx_rotate_left(struct xr_plan_index *t, int32_t n)
{
	int32_t r = t->right[n];

	t->right[n] = t->left[r];
	t->left[r] = n;
	idx_fix(t, n);
	idx_fix(t, r);
	return r;
}

static int32_t idx_balance(struct xr_plan_index *t, int32_t n)
{
	int bal;

	idx_fix(t, n);
	bal = idx_height(t, t->left[n]) - idx_height(t, t->right[n]);
	if (bal > 1) {
		if (idx_height(t, t->left[t->left[n]]) < idx_height(t, t->right[t->left[n]]))
			t->left[n] = idx_rotate_left(t, t->left[n]);
		return idx_rotate_right(t, n);
	}
	if (bal < -1) {
		if (idx_height(t, t->right[t->right[n]]) < idx_height(t, t->left[t->right[n]]))
			t->right[n] = idx_rotate_right(t, t->right[n]);
		return idx_rotate_left(t, n);
	}
	return n;
}

/* Insert node k under n; the depth is at most about 1.44 log2(n), so the
 * recursion is shallow. */
static int32_t idx_insert_at(struct xr_plan_index *t, const struct xr_change *ch, int32_t n,
			     int32_t k)
{
	if (n == NIL)
		return k;
	if (ch[k].offset < ch[n].offset)
		t->left[n] = idx_insert_at(t, ch, t->left[n], k);
	else
		t->right[n] = idx_insert_at(t, ch, t->right[n], k);
	return idx_balance(t, n);
}

static int idx_insert(struct xr_plan *p, size_t k)
{
	struct xr_plan_index *t = p->index;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return XERR_NOMEM;
		t->root = NIL;
		p->index = t;
	}
	if (k >= INT32_MAX)
		return XERR_NOMEM;
	if (k >= t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		int32_t *l, *r;
		uint8_t *h;

		while (ncap <= k)
			ncap *= 2;
		l = realloc(t->left, ncap * sizeof(*l));
		if (!l)
			return XERR_NOMEM;
		t->left = l;
		r = realloc(t->right, ncap * sizeof(*r));
		if (!r)
			return XERR_NOMEM;
		t->right = r;
		h = realloc(t->height, ncap);
		if (!h)
			return XERR_NOMEM;
		t->height = h;
		t->cap = ncap;
	}
	t->left[k] = t->right[k] = NIL;
	t->height[k] = 1;
	t->root = idx_insert_at(t, p->changes, t->root, (int32_t)k);
	return 0;
}

static void idx_free(struct xr_plan *p)
{
	if (p->index) {
		free(p->index->left);
		free(p->index->right);
		free(p->index->height);
		free(p->index);
		p->index = NULL;
	}
}

/* The change with the largest offset <= off, or NIL. */
static int32_t idx_floor(const struct xr_plan *p, uint64_t off)
{
	const struct xr_plan_index *t = p->index;
	int32_t n = t ? t->root : NIL, best = NIL;

	while (n != NIL) {
		if (p->changes[n].offset <= off) {
			best = n;
			n = t->right[n];
		} else {
			n = t->left[n];
		}
	}
	return best;
}

/* The change with the smallest offset > off, or NIL. */
static int32_t idx_above(const struct xr_plan *p, uint64_t off)
{
	const struct xr_plan_index *t = p->index;
	int32_t n = t ? t->root : NIL, best = NIL;

	while (n != NIL) {
		if (p->changes[n].offset > off) {
			best = n;
			n = t->left[n];
		} else {
			n = t->right[n];
		}
	}
	return best;
}

/* ------------------------------------------------------ the spill file */

/* An unnamed file only this process can reach (the bytes are a piece of
 * someone's disk): O_TMPFILE, else a named one unlinked at once. */
static int spill_open(struct xr_plan *p)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		p->spill_fd = fd;
		return 0;
	}
#endif
	if ((size_t)snprintf(path, sizeof(path), "%s/xfsrecon-plan-XXXXXX", dir) >= sizeof(path))
		return XERR_IO;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return XERR_IO;
	unlink(path);
	p->spill_fd = fd;
	return 0;
}

static uint64_t mem_max(const struct xr_plan *p)
{
	return p->mem_max ? p->mem_max : XR_PLAN_MEM_BYTES;
}

/* Give a new change c its bytes: in memory while the bound allows, else
 * at the end of the spill file. */
static int store_new(struct xr_plan *p, struct xr_change *c, const void *bytes, size_t len)
{
	int rc;

	c->bytes = NULL;
	c->spill_off = 0;
	if (p->mem_bytes + len <= mem_max(p)) {
		c->bytes = malloc(len);
		if (!c->bytes)
			return XERR_NOMEM;
		memcpy(c->bytes, bytes, len);
		p->mem_bytes += len;
		return 0;
	}
	if (p->spill_fd < 0 && spill_open(p) != 0) {
		p->over_bound = true;
		return XERR_IO;
	}
	rc = xio_pwrite_full(p->spill_fd, bytes, len, p->spill_end) ? XERR_IO : 0;
	if (rc) {
		p->over_bound = true;
		return rc;
	}
	c->spill_off = p->spill_end;
	p->spill_end += len;
	return 0;
}

/* ------------------------------------------------------------- the plan */

void xr_plan_init(struct xr_plan *p)
{
	const char *env = getenv("XFSRECON_PLAN_MAX");
	char *end = NULL;
	unsigned long long mib;

	memset(p, 0, sizeof(*p));
	p->spill_fd = -1;
	if (env && *env) {
		mib = strtoull(env, &end, 10);
		if (end && *end == '\0' && mib > 0 && mib < (1ull << 40))
			p->max_bytes = mib << 20;
	}
	env = getenv("XFSRECON_PLAN_MEM");
	if (env && *env) {
		end = NULL;
		mib = strtoull(env, &end, 10);
		if (end && *end == '\0' && mib < (1ull << 40))
			p->mem_max = mib ? mib << 20 : 1;  /* 0: spill everything */
	}
}

void xr_plan_release(struct xr_plan *p)
{
	for (size_t i = 0; i < p->nactions; i++) {
		free(p->actions[i].text);
		free(p->actions[i].findings);
	}
	for (size_t i = 0; i < p->nchanges; i++)
		free(p->changes[i].bytes);
	for (size_t i = 0; i < p->norphans; i++) {
		free(p->orphans[i].orig_name);
		free(p->orphans[i].new_path);
	}
	free(p->ag_notes);
	free(p->actions);
	free(p->changes);
	free(p->orphans);
	for (size_t i = 0; i < p->nreattached; i++)
		free(p->reattached[i].name);
	free(p->reattached);
	free(p->losses);
	free(p->revived);
	idx_free(p);
	if (p->spill_fd >= 0)
		close(p->spill_fd);
	memset(p, 0, sizeof(*p));
	p->spill_fd = -1;
}

int xr_plan_action(struct xr_plan *p, enum xr_action_kind kind, uint32_t agno, uint64_t ino,
		   const char *fmt, ...)
{
	struct xr_action *a;
	char line[512];
	va_list ap;

	if (!xr_action_name(kind))
		return XERR_USAGE;
	if (grow((void **)&p->actions, &p->actions_cap, p->nactions, sizeof(*p->actions)))
		return XERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	a = &p->actions[p->nactions];
	memset(a, 0, sizeof(*a));
	a->text = strdup(line);
	if (!a->text)
		return XERR_NOMEM;
	a->kind = kind;
	a->agno = agno;
	a->ino = ino;
	return (int)p->nactions++;
}

int xr_plan_action_append(struct xr_plan *p, int action, const char *fmt, ...)
{
	char line[512], *t;
	size_t have;
	va_list ap;

	if (action < 0 || (size_t)action >= p->nactions)
		return XERR_USAGE;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	have = strlen(p->actions[action].text);
	t = realloc(p->actions[action].text, have + strlen(line) + 1);
	if (!t)
		return XERR_NOMEM;
	memcpy(t + have, line, strlen(line) + 1);
	p->actions[action].text = t;
	return 0;
}

int xr_plan_answer(struct xr_plan *p, int action, size_t fi, enum xprob_code code)
{
	struct xr_action *a;

	if (action < 0 || (size_t)action >= p->nactions)
		return XERR_USAGE;
	a = &p->actions[action];
	for (size_t i = 0; i < a->nfindings; i++)
		if (a->findings[i] == fi)
			return 0;
	if (grow((void **)&a->findings, &a->findings_cap, a->nfindings, sizeof(*a->findings)))
		return XERR_NOMEM;
	a->findings[a->nfindings++] = fi;
	/* Kept even so: refusing it would make a user's repair fail for a
	 * bug of ours; the caller decides (repair.c, strict in the tests). */
	if (!xr_action_answers(a->kind, xprob_fix_of(code))) {
		if (!p->mismatch.count) {
			p->mismatch.action = (size_t)action;
			p->mismatch.finding = fi;
			p->mismatch.code = code;
		}
		p->mismatch.count++;
	}
	return 0;
}

size_t xr_plan_mismatch_text(const struct xr_plan *p, char *buf, size_t len)
{
	const struct xr_plan_mismatch *m = &p->mismatch;
	const char *id;

	if (len)
		buf[0] = '\0';
	if (!m->count || m->action >= p->nactions)
		return 0;
	id = xprob_id(m->code);
	snprintf(buf, len,
		 "%zu answer%s outside the actions table (a planner bug): the first, A%zu %s "
		 "answers F%zu %s, whose fix class %s its row does not list", m->count,
		 m->count == 1 ? "" : "s", m->action + 1, xr_action_name(p->actions[m->action].kind),
		 m->finding + 1, id ? id : "unknown", xprob_fix_name(xprob_fix_of(m->code)));
	return m->count;
}

int xr_plan_write(struct xr_plan *p, int action, const char *structure, uint32_t agno,
		  uint32_t agbno, uint64_t ino, uint64_t offset, const void *bytes, size_t len)
{
	struct xr_change *c;
	int32_t f, a;
	int rc;

	if (!len || len > UINT32_MAX || offset > UINT64_MAX - len || action < 0 ||
	    (size_t)action >= p->nactions || p->sorted)
		return XERR_USAGE;
	f = idx_floor(p, offset);
	if (f != NIL) {
		c = &p->changes[f];
		if (c->offset == offset && c->len == len) {
			if (c->bytes)
				memcpy(c->bytes, bytes, len);
			else if (xio_pwrite_full(p->spill_fd, bytes, len, c->spill_off) != 0)
				return XERR_IO;
			c->structure = structure;
			c->agno = agno;
			c->agbno = agbno;
			c->ino = ino;
			c->action = (uint32_t)action;
			return 0;
		}
		if (c->offset + c->len > offset)
			return XERR_USAGE;
	}
	a = idx_above(p, offset);
	if (a != NIL && p->changes[a].offset < offset + len)
		return XERR_USAGE;
	if (grow((void **)&p->changes, &p->changes_cap, p->nchanges, sizeof(*p->changes)))
		return XERR_NOMEM;
	c = &p->changes[p->nchanges];
	rc = store_new(p, c, bytes, len);
	if (rc)
		return rc;
	c->offset = offset;
	c->len = (uint32_t)len;
	c->structure = structure;
	c->agno = agno;
	c->agbno = agbno;
	c->ino = ino;
	c->action = (uint32_t)action;
	rc = idx_insert(p, p->nchanges);
	if (rc) {
		if (c->bytes) {
			free(c->bytes);
			p->mem_bytes -= len;
		}
		return rc;
	}
	p->nchanges++;
	p->bytes += len;
	return 0;
}

const uint8_t *xr_plan_change_bytes(const struct xr_plan *p, const struct xr_change *c,
				    uint8_t *buf)
{
	if (c->bytes)
		return c->bytes;
	if (p->spill_fd < 0 || xio_pread_full(p->spill_fd, buf, c->len, c->spill_off) != 0)
		return NULL;
	return buf;
}

size_t xr_plan_max_change(const struct xr_plan *p)
{
	size_t m = 1;

	for (size_t i = 0; i < p->nchanges; i++)
		if (p->changes[i].len > m)
			m = p->changes[i].len;
	return m;
}

int xr_plan_read(const struct xr_plan *p, struct xa_ctx *ctx, uint64_t offset, void *buf,
		 size_t len)
{
	uint8_t *out = buf;
	int32_t n;
	int rc;

	rc = ximg_pread(ctx->img, buf, len, offset);
	if (rc)
		return rc;
	if (!len || offset > UINT64_MAX - len)
		return 0;
	/* The change starting at or before offset, then every one after it
	 * that starts inside the range. */
	n = idx_floor(p, offset);
	if (n == NIL)
		n = idx_above(p, offset);
	for (; n != NIL && p->changes[n].offset < offset + len;
	     n = idx_above(p, p->changes[n].offset)) {
		const struct xr_change *c = &p->changes[n];
		uint64_t lo, hi;

		lo = c->offset > offset ? c->offset : offset;
		hi = c->offset + c->len < offset + len ? c->offset + c->len : offset + len;
		if (lo >= hi)
			continue;
		if (c->bytes)
			memcpy(out + (lo - offset), c->bytes + (lo - c->offset), hi - lo);
		else if (xio_pread_full(p->spill_fd, out + (lo - offset), hi - lo,
				   c->spill_off + (lo - c->offset)) != 0)
			return XERR_IO;
	}
	return 0;
}

int xr_plan_orphan(struct xr_plan *p, struct xr_orphan *o)
{
	if (grow((void **)&p->orphans, &p->orphans_cap, p->norphans, sizeof(*p->orphans)))
		return XERR_NOMEM;
	p->orphans[p->norphans++] = *o;
	memset(o, 0, sizeof(*o));
	return 0;
}

int xr_plan_reattached(struct xr_plan *p, struct xr_reattached *r)
{
	if (grow((void **)&p->reattached, &p->reattached_cap, p->nreattached,
		 sizeof(*p->reattached)))
		return XERR_NOMEM;
	p->reattached[p->nreattached++] = *r;
	memset(r, 0, sizeof(*r));
	return 0;
}

int xr_plan_revived(struct xr_plan *p, const struct xr_revived *r)
{
	if (grow((void **)&p->revived, &p->revived_cap, p->nrevived, sizeof(*p->revived)))
		return XERR_NOMEM;
	p->revived[p->nrevived++] = *r;
	return 0;
}

int xr_plan_loss(struct xr_plan *p, uint64_t ino, uint32_t flags, uint64_t blocks,
		 uint64_t first_byte)
{
	struct xr_loss *l = p->nlosses ? &p->losses[p->nlosses - 1] : NULL;

	if (l && l->ino == ino && l->flags == flags) {
		l->blocks += blocks;
		if (first_byte < l->first_byte)
			l->first_byte = first_byte;
		return 0;
	}
	if (grow((void **)&p->losses, &p->losses_cap, p->nlosses, sizeof(*p->losses)))
		return XERR_NOMEM;
	p->losses[p->nlosses++] = (struct xr_loss){ ino, flags, blocks, first_byte };
	return 0;
}

static int cmp_change(const void *x, const void *y)
{
	const struct xr_change *a = x, *b = y;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

int xr_plan_finish(struct xr_plan *p, struct xa_ctx *ctx)
{
	size_t maxlen = xr_plan_max_change(p), kept = 0;
	uint8_t *cur = malloc(maxlen), *spilled = malloc(maxlen);

	if (!cur || !spilled) {
		free(cur);
		free(spilled);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < p->nchanges; i++) {
		struct xr_change *c = &p->changes[i];
		const uint8_t *cb = xr_plan_change_bytes(p, c, spilled);

		if (!cb) {
			free(cur);
			free(spilled);
			return XERR_IO;
		}
		/* Against the bytes on disk, not a replayed log's view of them;
		 * past the end of a truncated input against zeros, which is
		 * what the output and a target hold there. */
		if (ximg_pread(xa_base_image(ctx), cur, c->len, c->offset) == 0 &&
		    memcmp(cur, cb, c->len) == 0) {
			p->bytes -= c->len;
			if (c->bytes) {
				p->mem_bytes -= c->len;
				free(c->bytes);
			}
			continue;
		}
		p->changes[kept++] = *c;
	}
	free(cur);
	free(spilled);
	p->nchanges = kept;
	if (p->nchanges > 1)
		qsort(p->changes, p->nchanges, sizeof(*p->changes), cmp_change);
	/* The tree named positions that moved: rebuild it over the sorted
	 * array, so xr_plan_read works on a finished plan too. */
	idx_free(p);
	for (size_t i = 0; i < p->nchanges; i++)
		if (idx_insert(p, i) != 0)
			return XERR_NOMEM;
	p->sorted = true;
	return 0;
}

uint64_t xr_plan_bytes(const struct xr_plan *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nchanges; i++)
		n += p->changes[i].len;
	return n;
}
