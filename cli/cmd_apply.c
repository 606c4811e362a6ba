/*
 * cmd_apply.c - `apply PLAN TARGET` and `undo UNDO TARGET`: the stored
 * plan's writes into TARGET in place, and back.
 */
#include <string.h>

#include "cli/commands.h"
#include "reconstruct/apply.h"

int xc_run_apply(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xr_cmd_apply_opts ao = { 0 };

	ao.file = a->words[1];
	ao.target = a->words[2];
	ao.undo = a->undo;
	ao.undo_mode = !strcmp(cmd->name, "undo");
	ao.dry_run = xc_has(a, XC_OPT_DRY_RUN);
	ao.have_offset = a->io.have_offset;
	ao.offset = a->io.offset;
	ao.partition = a->io.partition;
	return xr_cmd_apply(&ao, stdout, stderr);
}
