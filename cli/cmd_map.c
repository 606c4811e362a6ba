/*
 * cmd_map.c - who owns which blocks: `fsmap` (as text) and `map` (as a
 * picture).  Both need the check's forward map kept after the run.
 */
#include <stdio.h>

#include "analyzer/errors.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/views/fsmap.h"
#include "cli/views/map.h"

int xc_run_fsmap(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	rc = xc_ctx_run(a, XA_RUN_CHECK, true, false, &ctx);
	if (rc)
		return rc;
	rc = xc_cmd_fsmap(&ctx, xc_has(a, XC_OPT_XFS_DB), xc_has(a, XC_OPT_FORWARD), stdout, stderr);
	xa_ctx_release(&ctx);
	return xc_exit_after(rc);
}

int xc_run_map(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xc_map_opts mo = { a->out, xc_has(a, XC_OPT_HTML), xc_has(a, XC_OPT_FORCE),
				  xc_has(a, XC_OPT_FORWARD), xc_has(a, XC_OPT_AG), a->ag };
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	if (!a->out) {
		fprintf(stderr, "xfsrecon: map needs -o FILE\n");
		return XC_EXIT_USAGE;
	}
	/* Owners and damage come from the check (the forward map, the rmapbt
	 * as read, the findings). */
	rc = xc_ctx_run(a, XA_RUN_CHECK, true, false, &ctx);
	if (rc)
		return rc;
	rc = xc_cmd_map(&ctx, &mo, stderr);
	xa_ctx_release(&ctx);
	if (rc == XERR_EXISTS)
		return XC_EXIT_USAGE;
	return rc ? xc_exit_for_error(rc) : XC_EXIT_CLEAN;
}
