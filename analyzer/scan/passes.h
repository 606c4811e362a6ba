/*
 * passes.h - the analyzer's passes, in the order engine.c runs them.
 * Each returns 0, or a negative xerr when the run cannot go on.
 */
#ifndef XA_PASSES_H
#define XA_PASSES_H

#include <stdint.h>

struct xa_ctx;

struct xa_pass {
	const char *name;
	int       (*run)(struct xa_ctx *ctx);
	unsigned    modes;   /* XA_RUN_* */
};

int xa_pass_superblocks(struct xa_ctx *ctx);  /* scan/pass_sb.c */
int xa_pass_ag_headers(struct xa_ctx *ctx);   /* scan/pass_agheaders.c */
int xa_pass_log(struct xa_ctx *ctx);          /* scan/pass_log.c */
int xa_pass_btrees(struct xa_ctx *ctx);       /* scan/pass_btrees.c */
int xa_pass_inodes(struct xa_ctx *ctx);       /* scan/pass_inodes.c */
int xa_pass_counters(struct xa_ctx *ctx);     /* scan/pass_counters.c */
int xa_pass_namespace(struct xa_ctx *ctx);    /* scan/pass_namespace.c */

/*
 * 1 when the four header sectors of AG agno (sb, AGF, AGI, AGFL) are all
 * zero or cannot be read (the AG is not there), 0 when any holds a byte, or
 * XERR_NOMEM.  buf is scratch of 4 sectors.  One read, around the block
 * cache, so that looking at AGs that are not there fills no cache.
 * (scan/pass_agheaders.c)
 */
int xa_ag_blank(struct xa_ctx *ctx, uint32_t agno, uint8_t *buf);

/*
 * Whether repair (opts.walk_blank) walks nblank blank AGs beside nreal ones:
 * a zeroed AG or the missing end of a truncated image is rebuilt, but a
 * geometry claiming far more AGs than were ever written must still cost
 * nothing.  The bound is on blocks: eight times those of the real AGs, plus
 * 2^22 (16 GiB of 4 KiB blocks, a few MiB of claim maps).
 */
bool xa_walk_blank_ok(const struct xa_ctx *ctx, uint32_t nblank, uint32_t nreal);

#endif /* XA_PASSES_H */
