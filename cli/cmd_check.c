/*
 * cmd_check.c - `info` and `check`: the summary of an image and the full
 * verification with its fsck-style exit code (and, for both, --log-only).
 */
#include <inttypes.h>
#include <stdio.h>

#include "analyzer/errors.h"
#include "analyzer/report/report_xml.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/views/loglist.h"
#include "cli/views/report_text.h"

/* The image could not be read whole: say so once, exit 8. */
static int damage_code(const struct xa_ctx *ctx, const char *image, int code)
{
	if (ctx->truncated) {
		fprintf(stderr, "xfsrecon: %s: image is truncated: the filesystem needs %" PRIu64
			" bytes, the image has %" PRIu64 "\n", image,
			ctx->geom.dblocks << ctx->geom.blocklog, ctx->image_size);
		return XC_EXIT_OPERATIONAL;
	}
	if (ctx->read_errors) {
		fprintf(stderr, "xfsrecon: %s: %" PRIu64 " reads failed; results are incomplete\n",
			image, ctx->read_errors);
		return XC_EXIT_OPERATIONAL;
	}
	return code;
}

static int log_only(struct xa_ctx *ctx)
{
	int rc = xc_cmd_log_list(ctx, stdout, stderr);

	xa_ctx_release(ctx);
	return xc_exit_after(rc);
}

int xc_run_info(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xa_ctx ctx;
	int code;

	(void)cmd;
	code = xc_ctx_run(a, XA_RUN_INFO, false, false, &ctx);
	if (code)
		return code;
	if (xc_has(a, XC_OPT_LOG_ONLY))
		return log_only(&ctx);
	xc_report_text_info(stdout, &ctx);
	code = damage_code(&ctx, a->words[1], XC_EXIT_CLEAN);
	xa_ctx_release(&ctx);
	return code;
}

int xc_run_check(const struct xc_command *cmd, const struct xc_args *a)
{
	bool quiet = xc_has(a, XC_OPT_QUIET);
	struct xa_ctx ctx;
	char err[512];
	int rc, code;

	(void)cmd;
	code = xc_ctx_run(a, XA_RUN_CHECK, false, !quiet, &ctx);
	if (code)
		return code;
	if (xc_has(a, XC_OPT_LOG_ONLY))
		return log_only(&ctx);
	if (a->xml && !xc_has(a, XC_OPT_NO_HASH))
		xc_hash_input(&ctx, xc_has(a, XC_OPT_PROGRESS));
	if (quiet) {
		fprintf(stdout, "%" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes\n",
			ctx.findings.by_severity[XSEV_ERROR], ctx.findings.by_severity[XSEV_WARNING],
			ctx.findings.by_severity[XSEV_INFO]);
	} else {
		if (ctx.log_dirty) {
			fprintf(stdout, "log:        dirty; %s\n", ctx.log.replayed ?
				"checked as replayed" : "checked as on disk (not replayed)");
			xc_report_text_log(stdout, &ctx);
		}
		xc_report_text_findings(stdout, &ctx);
	}
	code = XC_EXIT_CLEAN;
	if (a->xml) {
		rc = xa_report_xml_write(&ctx, a->xml, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "xfsrecon: %s\n", err);
			code = xc_exit_for_error(rc);
		}
	}
	if (code == XC_EXIT_CLEAN && xa_findings_count(&ctx.findings, XSEV_ERROR) > 0)
		code = XC_EXIT_LEFT;
	code = damage_code(&ctx, a->words[1], code);
	xa_ctx_release(&ctx);
	return code;
}
