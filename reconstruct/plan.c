/*
 * plan.c - the repair plan's bookkeeping (see plan.h).
 *
 * Why changes are kept unsorted until xr_plan_finish: writers append in the
 * order they decide, and a plan holds at most a few thousand changes, so a
 * linear overlap check per write is cheap; xr_plan_read, used by writers
 * that must see earlier planned bytes, scans the same list.
 */
#include "reconstruct/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
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

void xr_plan_init(struct xr_plan *p)
{
	const char *env = getenv("XFSRECON_PLAN_MAX");
	char *end = NULL;
	unsigned long long mib;

	memset(p, 0, sizeof(*p));
	if (env && *env) {
		mib = strtoull(env, &end, 10);
		if (end && *end == '\0' && mib > 0 && mib < (1ull << 40))
			p->max_bytes = mib << 20;
	}
}

static uint64_t plan_max(const struct xr_plan *p)
{
	return p->max_bytes ? p->max_bytes : XR_PLAN_MAX_BYTES;
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
	memset(p, 0, sizeof(*p));
}

int xr_plan_action(struct xr_plan *p, const char *kind, uint32_t agno, uint64_t ino,
		   const char *fmt, ...)
{
	struct xr_action *a;
	char line[512];
	va_list ap;

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

int xr_plan_answer(struct xr_plan *p, int action, size_t fi)
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
	return 0;
}

int xr_plan_write(struct xr_plan *p, int action, const char *structure, uint32_t agno,
		  uint32_t agbno, uint64_t ino, uint64_t offset, const void *bytes, size_t len)
{
	struct xr_change *c;
	uint8_t *copy;

	if (!len || len > UINT32_MAX || offset > UINT64_MAX - len || action < 0 ||
	    (size_t)action >= p->nactions)
		return XERR_USAGE;
	for (size_t i = 0; i < p->nchanges; i++) {
		c = &p->changes[i];
		if (c->offset == offset && c->len == len) {
			memcpy(c->bytes, bytes, len);
			c->structure = structure;
			c->agno = agno;
			c->agbno = agbno;
			c->ino = ino;
			c->action = (uint32_t)action;
			return 0;
		}
		if (offset < c->offset + c->len && c->offset < offset + len)
			return XERR_USAGE;
	}
	if (p->bytes + len > plan_max(p)) {
		p->over_bound = true;
		return XERR_NOMEM;
	}
	if (grow((void **)&p->changes, &p->changes_cap, p->nchanges, sizeof(*p->changes)))
		return XERR_NOMEM;
	copy = malloc(len);
	if (!copy)
		return XERR_NOMEM;
	memcpy(copy, bytes, len);
	p->bytes += len;
	c = &p->changes[p->nchanges++];
	c->offset = offset;
	c->len = (uint32_t)len;
	c->bytes = copy;
	c->structure = structure;
	c->agno = agno;
	c->agbno = agbno;
	c->ino = ino;
	c->action = (uint32_t)action;
	p->sorted = false;
	return 0;
}

int xr_plan_read(const struct xr_plan *p, struct xa_ctx *ctx, uint64_t offset, void *buf,
		 size_t len)
{
	uint8_t *out = buf;
	int rc;

	rc = ximg_pread(ctx->img, buf, len, offset);
	if (rc)
		return rc;
	for (size_t i = 0; i < p->nchanges; i++) {
		const struct xr_change *c = &p->changes[i];
		uint64_t lo, hi;

		lo = c->offset > offset ? c->offset : offset;
		hi = c->offset + c->len < offset + len ? c->offset + c->len : offset + len;
		if (lo < hi)
			memcpy(out + (lo - offset), c->bytes + (lo - c->offset), hi - lo);
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

static int cmp_change(const void *x, const void *y)
{
	const struct xr_change *a = x, *b = y;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

int xr_plan_finish(struct xr_plan *p, struct xa_ctx *ctx)
{
	uint8_t *cur;
	size_t maxlen = 1, kept = 0;

	for (size_t i = 0; i < p->nchanges; i++)
		if (p->changes[i].len > maxlen)
			maxlen = p->changes[i].len;
	cur = malloc(maxlen);
	if (!cur)
		return XERR_NOMEM;
	for (size_t i = 0; i < p->nchanges; i++) {
		struct xr_change *c = &p->changes[i];

		/* A change past the end of a truncated image is always kept. */
		if (ximg_pread(ctx->input, cur, c->len, c->offset) == 0 &&
		    memcmp(cur, c->bytes, c->len) == 0) {
			p->bytes -= c->len;
			free(c->bytes);
			continue;
		}
		p->changes[kept++] = *c;
	}
	free(cur);
	p->nchanges = kept;
	if (p->nchanges > 1)
		qsort(p->changes, p->nchanges, sizeof(*p->changes), cmp_change);
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
