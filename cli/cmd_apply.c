/*
 * cmd_apply.c - `apply PLAN TARGET` and `undo UNDO TARGET`: the stored
 * plan's writes into TARGET in place, and back.
 */
#include <string.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/message_streams.h"
#include "reconstruct/apply.h"

int xc_run_apply(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xr_apply_opts ao = { 0 };
	struct xc_message_streams ms;

	ao.file = a->words[1];
	ao.target = a->words[2];
	ao.undo = a->undo;
	ao.undo_mode = !strcmp(cmd->name, "undo");
	ao.dry_run = xc_has(a, XC_OPT_DRY_RUN);
	ao.have_offset = a->io.have_offset;
	ao.offset = a->io.offset;
	ao.partition = a->io.partition;
	switch (xr_apply(&ao, xc_message_streams(&ms, stdout, stderr))) {
	case XR_APPLY_DONE:
		return XC_EXIT_CLEAN;
	case XR_APPLY_REFUSED:
		return XC_EXIT_LEFT;
	case XR_APPLY_BAD_REQUEST:
		return XC_EXIT_USAGE;
	case XR_APPLY_FAILED:
		break;
	}
	return XC_EXIT_OPERATIONAL;
}
