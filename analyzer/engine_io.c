/*
 * engine_io.c - how passes read the image and report what they find: reads
 * through the context's block cache, a failed read recorded as a finding.
 */
#include "analyzer/engine_io.h"

#include <stdint.h>

#include "analyzer/errors.h"

int xa_read(struct xa_ctx *ctx, uint64_t off, size_t len, struct xbuf **out,
	    const struct xa_loc *loc)
{
	int rc = xcache_read(ctx->cache, off, len, out);

	if (rc == 0 || rc == XERR_NOMEM)
		return rc;
	ctx->read_errors++;
	{
		struct xprob p = {
			.code = XP_imageReadError,
			.has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED | XPROB_HAS_BYTE,
			.off = off, .byte = off, .observed = len,
		};
		xa_findings_add(&ctx->findings, &p, loc);
	}
	return rc;
}

void xa_put(struct xa_ctx *ctx, struct xbuf **b)
{
	xcache_release(ctx->cache, b);
}

void xa_report(struct xa_ctx *ctx, const struct xa_loc *loc, enum xprob_code code,
	       const char *field, uint64_t expected, uint64_t observed, unsigned has)
{
	struct xprob p = {
		.code = code, .has = has, .field = field,
		.expected = expected, .observed = observed,
	};

	xa_findings_add(&ctx->findings, &p, loc);
}
