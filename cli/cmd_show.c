/*
 * cmd_show.c - `show`: structures field by field, as text or JSON.
 */
#include "analyzer/errors.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/views/show.h"

int xc_run_show(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xc_show_opts so = { xc_has(a, XC_OPT_ANNOTATE), xc_has(a, XC_OPT_JSON), a->show_as,
				   a->words[1] };
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	rc = xc_ctx_run(a, XA_RUN_INFO, false, false, &ctx);
	if (rc)
		return rc;
	rc = xc_show_cmd(stdout, stderr, &ctx, a->nwords - 2, a->words + 2, &so);
	xa_ctx_release(&ctx);
	return xc_exit_after(rc);
}
