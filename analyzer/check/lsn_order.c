/*
 * lsn_order.c - the latest metadata LSN against the log head (see
 * lsn_order.h).
 */
#include "analyzer/check/lsn_order.h"

#include "analyzer/engine.h"
#include "analyzer/findings/findings.h"
#include "formats/lsn.h"

void xa_note_meta_lsn(struct xa_ctx *ctx, const uint8_t *buf, size_t len,
		      const struct xa_loc *loc)
{
	struct xa_meta_lsn *m = &ctx->meta_lsn;
	uint64_t lsn;

	if (!xfmt_meta_lsn(buf, len, &ctx->geom, &lsn))
		return;
	if (xfmt_lsn_later(m->lsn, lsn) != lsn || lsn == m->lsn)
		return;
	m->lsn = lsn;
	m->has = loc->has;
	m->agno = loc->agno;
	m->agbno = loc->agbno;
	m->ino = loc->ino;
	m->byte = loc->byte;
	m->what = loc->what;
}

uint64_t xa_log_head_lsn(const struct xa_ctx *ctx)
{
	const struct xa_log_state *ls = &ctx->log;

	if (!ls->present || !ls->bounds.found)
		return 0;
	return xfmt_lsn_make(ls->bounds.head_cycle, ls->bounds.head);
}

int xa_pass_lsn_order(struct xa_ctx *ctx)
{
	const struct xa_meta_lsn *m = &ctx->meta_lsn;
	uint64_t head = xa_log_head_lsn(ctx);
	struct xa_loc loc = { m->has, m->agno, m->agbno, m->ino, m->byte, m->what };

	if (!ctx->geom.v5 || !head || !m->lsn || !xfmt_lsn_ahead(m->lsn, head))
		return 0;
	/* off carries the LSN, printed cycle/block; expected and observed
	 * the two cycles. */
	struct xprob p = { .code = XP_logBehindMetadata, .field = "lsn", .off = m->lsn,
			   .expected = head >> 32, .observed = m->lsn >> 32,
			   .has = XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED };

	xa_findings_add(&ctx->findings, &p, &loc);
	return 0;
}
