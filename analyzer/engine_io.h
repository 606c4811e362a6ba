/*
 * engine_io.h - how passes read the image: through the block cache, with a
 * failed read turned into a finding (and remembered, so the run ends with
 * exit 8) instead of an abort.
 */
#ifndef XA_ENGINE_IO_H
#define XA_ENGINE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/engine.h"
#include "analyzer/io/cache.h"

/*
 * Read len bytes at image byte off.  On success returns 0 and a referenced
 * buffer in *out (release it with xa_put).  A read that fails because of the
 * image (I/O error, past the end, damaged container) is recorded as an
 * imageReadError finding at loc (may be NULL) and returns that negative xerr;
 * XERR_NOMEM is returned without a finding (it is operational).
 */
int xa_read(struct xa_ctx *ctx, uint64_t off, size_t len, struct xbuf **out,
	    const struct xa_loc *loc);

/* Drop a buffer returned by xa_read; *b becomes NULL. */
void xa_put(struct xa_ctx *ctx, struct xbuf **b);

/* Report one finding at loc (for checks the analyzer does itself). */
void xa_report(struct xa_ctx *ctx, const struct xa_loc *loc, enum xprob_code code,
	       const char *field, uint64_t expected, uint64_t observed, unsigned has);

#endif /* XA_ENGINE_IO_H */
