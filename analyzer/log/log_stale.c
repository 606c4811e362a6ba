/*
 * log_stale.c - old copies of inodes anywhere in the log region (see
 * log_stale.h).
 *
 * Why the assembler is reset when it refuses a record: the sweep starts in
 * the middle of history, so the first records continue transactions whose
 * start was overwritten, and transactions whose commit was overwritten
 * stay open; neither may stop what follows from being read.
 */
#include "analyzer/log/log_stale.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/log/log_replay.h"
#include "analyzer/log/log_scan.h"
#include "formats/dinode_enc.h"
#include "formats/geom.h"
#include "formats/log.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"

struct sweep {
	struct xa_ctx         *ctx;
	struct xa_stale_inode *v;
	size_t                 n, cap, max;
	uint32_t              *slot;   /* open addressing: index + 1 into v, 0 = empty */
	size_t                 nslot;  /* a power of two, at least twice n */
	struct xfmt_log_asm    asm_;
	int                    err;
};

static size_t hash_ino(uint64_t ino, size_t nslot)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdull;
	ino ^= ino >> 33;
	return (size_t)ino & (nslot - 1);
}

static int grow_slots(struct sweep *s)
{
	size_t nslot = s->nslot ? s->nslot * 2 : 1024;
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return XERR_NOMEM;
	for (size_t i = 0; i < s->n; i++) {
		size_t h = hash_ino(s->v[i].ino, nslot);

		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(s->slot);
	s->slot = slot;
	s->nslot = nslot;
	return 0;
}

/* The entry of ino, made when new; NULL past the bound (or out of memory,
 * with s->err set). */
static struct xa_stale_inode *find_or_add(struct sweep *s, uint64_t ino)
{
	size_t h;

	if (s->nslot) {
		for (h = hash_ino(ino, s->nslot); s->slot[h]; h = (h + 1) & (s->nslot - 1))
			if (s->v[s->slot[h] - 1].ino == ino)
				return &s->v[s->slot[h] - 1];
	}
	if (s->n >= s->max)
		return NULL;
	if ((s->n + 1) * 2 > s->nslot && grow_slots(s) != 0) {
		s->err = XERR_NOMEM;
		return NULL;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct xa_stale_inode *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv) {
			s->err = XERR_NOMEM;
			return NULL;
		}
		s->v = nv;
		s->cap = ncap;
	}
	for (h = hash_ino(ino, s->nslot); s->slot[h]; h = (h + 1) & (s->nslot - 1))
		;
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->v[s->n].ino = ino;
	s->slot[h] = (uint32_t)(++s->n);
	return &s->v[s->n - 1];
}

static int on_commit(void *arg, const struct xfmt_log_trans *t)
{
	struct sweep *s = arg;
	const struct xfmt_geom *g = &s->ctx->geom;

	for (size_t i = 0; i < t->nitems; i++) {
		const struct xfmt_log_titem *it = &t->items[i];
		struct xfmt_log_inode in;
		struct xa_stale_inode *si;

		if (it->type != XFS_LI_INODE || xfmt_log_inode_decode(it, t->big, &in) != 0 ||
		    !(in.fields & XFS_ILOG_CORE) || !xfmt_geom_ino_valid(g, in.ino))
			continue;
		si = find_or_add(s, in.ino);
		if (!si) {
			if (s->err)
				return 1;
			continue;
		}
		if (!si->dip) {
			si->dip = malloc(g->inodesize);
			if (!si->dip) {
				s->err = XERR_NOMEM;
				return 1;
			}
			xfmt_dinode_free_encode(si->dip, g, in.ino, 0, 0);
		}
		if (xfmt_log_inode_apply(it, &in, t->big, si->dip, g->inodesize, g->v5,
					 t->commit_lsn) == XLOG_INODE_REPLAYED) {
			si->lsn = t->commit_lsn;
			si->fields |= in.fields;
		}
	}
	return 0;
}

static int on_record(void *arg, const struct xfmt_log_rec *r, const uint8_t *payload,
		     uint32_t block, const char **why)
{
	struct sweep *s = arg;
	enum xfmt_log_asm_err e;

	(void)block;
	(void)why;
	e = xfmt_log_asm_record(&s->asm_, payload, r->len, r->num_logops, r->lsn,
				xfmt_log_fmt_big(r->fmt), NULL);
	if (e == XLOG_ASM_OK)
		return 0;
	if (s->err)
		return s->err;
	if (e == XLOG_ASM_NOMEM)
		return XERR_NOMEM;
	xfmt_log_asm_release(&s->asm_);
	xfmt_log_asm_init(&s->asm_, XA_LOG_REPLAY_MAX_BYTES, on_commit, s);
	return 1;
}

static int cmp_ino(const void *x, const void *y)
{
	const struct xa_stale_inode *a = x, *b = y;

	return (a->ino > b->ino) - (a->ino < b->ino);
}

int xa_log_stale_collect(struct xa_ctx *ctx, struct xa_stale_inode **out, size_t *n)
{
	uint64_t bound = XA_LOG_STALE_MAX_BYTES;
	const char *env = getenv("XFSRECON_STALE_MAX");
	struct xa_log_pos pos;
	struct sweep s;
	int rc;

	*out = NULL;
	*n = 0;
	if (xa_log_locate(ctx, &pos) != 0)
		return 0;
	if (env && *env) {
		char *end;
		unsigned long long mb = strtoull(env, &end, 10);

		if (*end == '\0' && mb > 0 && mb < (1ull << 20))
			bound = (uint64_t)mb << 20;
	}
	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.max = (size_t)(bound / (ctx->geom.inodesize + sizeof(struct xa_stale_inode)));
	if (s.max > UINT32_MAX - 1)
		s.max = UINT32_MAX - 1;
	xfmt_log_asm_init(&s.asm_, XA_LOG_REPLAY_MAX_BYTES, on_commit, &s);
	rc = xa_log_sweep(ctx, &pos, ctx->log.bounds.found ? ctx->log.bounds.head : 0, on_record, &s);
	xfmt_log_asm_release(&s.asm_);
	free(s.slot);
	if (!rc)
		rc = s.err;
	if (rc) {
		xa_stale_inodes_release(s.v, s.n);
		free(s.v);
		return rc;
	}
	if (s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), cmp_ino);
	*out = s.v;
	*n = s.n;
	return 0;
}

const struct xa_stale_inode *xa_stale_find(const struct xa_stale_inode *v, size_t n, uint64_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].ino == ino)
			return v[mid].dip ? &v[mid] : NULL;
		if (v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void xa_stale_inodes_release(struct xa_stale_inode *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dip);
		v[i].dip = NULL;
	}
}
