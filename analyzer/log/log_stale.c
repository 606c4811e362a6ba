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
#include "formats/log.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"

struct sweep {
	struct xa_ctx         *ctx;
	struct xa_stale_inode *v;
	size_t                 n;
	struct xfmt_log_asm    asm_;
	int                    err;
};

static struct xa_stale_inode *find(struct sweep *s, uint64_t ino)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].ino == ino)
			return &s->v[mid];
		if (s->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
		    !(in.fields & XFS_ILOG_CORE) || !(si = find(s, in.ino)))
			continue;
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

int xa_log_stale_inodes(struct xa_ctx *ctx, struct xa_stale_inode *v, size_t n)
{
	struct xa_log_pos pos;
	struct sweep s;
	int rc;

	if (!n || xa_log_locate(ctx, &pos) != 0)
		return 0;
	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.v = v;
	s.n = n;
	xfmt_log_asm_init(&s.asm_, XA_LOG_REPLAY_MAX_BYTES, on_commit, &s);
	rc = xa_log_sweep(ctx, &pos, ctx->log.bounds.found ? ctx->log.bounds.head : 0, on_record, &s);
	xfmt_log_asm_release(&s.asm_);
	if (!rc)
		rc = s.err;
	return rc;
}

void xa_stale_inodes_release(struct xa_stale_inode *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dip);
		v[i].dip = NULL;
	}
}
