/*
 * passes.h - the analyzer's passes, in the order engine.c runs them.
 * Each returns 0, or a negative xerr when the run cannot go on.
 */
#ifndef XA_PASSES_H
#define XA_PASSES_H

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

#endif /* XA_PASSES_H */
