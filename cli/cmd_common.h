/*
 * cmd_common.h - what every command that reads an image does first: open
 * it, run the engine, and say in one line why that failed.
 */
#ifndef XC_CMD_COMMON_H
#define XC_CMD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/engine.h"
#include "cli/options.h"

/* Pass and AG progress on standard error (the engine's progress hook). */
void xc_progress_cb(void *arg, const char *pass, uint32_t agno, uint32_t nags);

/*
 * The input's SHA-256 into ctx (have_sha256 set on success), with a line on
 * standard error at every tenth of the way when progress is asked for.
 */
void xc_hash_input(struct xa_ctx *ctx, bool progress);

/*
 * Open a->words[1] with a's image options (--offset, --partition,
 * --no-replay, --progress) and run the engine in mode (XA_RUN_*).
 * keep_ownership keeps the forward map (fsmap, map).  Returns 0 with *ctx
 * ready (release it with xa_ctx_release), or an exit code after saying why
 * on standard error, *ctx released.  With findings_if_not_xfs, the findings
 * of an image without a usable superblock are printed first (check).
 */
int xc_ctx_run(const struct xc_args *a, unsigned mode, bool keep_ownership,
	       bool findings_if_not_xfs, struct xa_ctx *ctx);

/* The exit code of a command whose work returned rc, after flushing
 * standard output (a failed flush is an I/O error). */
int xc_exit_after(int rc);

#endif /* XC_CMD_COMMON_H */
