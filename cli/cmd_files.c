/*
 * cmd_files.c - the file commands: `ls`, `stat`, `cat`, `extract` and
 * `bodyfile`, each a view over the checked-free (info) run of the engine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/errors.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/views/bodyfile.h"
#include "cli/views/extract.h"
#include "cli/views/files.h"
#include "cli/views/ls.h"

static int run_extract(struct xa_ctx *ctx, const struct xc_args *a)
{
	struct xc_extract_opts eo = { a->dest, true, xc_has(a, XC_OPT_VERBOSE),
				      xc_has(a, XC_OPT_SAME_OWNER),
				      xc_has(a, XC_OPT_PRESERVE_PRIVILEGES), a->max_bytes,
				      xc_has(a, XC_OPT_PROGRESS), a->manifest };
	struct xc_extract_stats es;
	int rc;

	rc = xc_cmd_extract(ctx, a->nwords > 2 ? a->words[2] : "/", &eo, &es, stderr);
	if (!xc_has(a, XC_OPT_QUIET)) {
		printf("extracted %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64 " directories, %"
		       PRIu64 " symlinks, %" PRIu64 " special files, %" PRIu64 " hard links; %" PRIu64
		       " skipped, %" PRIu64 " damaged\n", es.files, es.bytes, es.dirs, es.symlinks,
		       es.specials, es.hardlinks, es.skipped, es.damaged);
		if (es.link_copies)
			printf("hard links: %" PRIu64 " inodes' other names written as copies (no "
			       "descriptor left to link them)\n", es.link_copies);
		printf("stripped: %" PRIu64 " setuid/setgid/sticky modes, %" PRIu64 " device nodes, %"
		       PRIu64 " trusted/security attributes, %" PRIu64 " owners not reproduced; %"
		       PRIu64 " blocks mapped twice left as holes\n", es.strip_modes,
		       es.strip_devices, es.strip_xattrs, es.strip_owners, es.dup_blocks);
	}
	return rc;
}

int xc_run_files(const struct xc_command *cmd, const struct xc_args *a)
{
	const char *target = a->nwords > 2 ? a->words[2] : "/";
	struct xa_ctx ctx;
	int rc;

	if (!strcmp(cmd->name, "extract") && !a->dest) {
		fprintf(stderr, "xfsrecon: extract needs -C DIR, an existing directory to write into\n");
		return XC_EXIT_USAGE;
	}
	rc = xc_ctx_run(a, XA_RUN_INFO, false, false, &ctx);
	if (rc)
		return rc;
	if (!strcmp(cmd->name, "ls")) {
		struct xc_ls_opts lo = { xc_has(a, XC_OPT_LONG), xc_has(a, XC_OPT_RECURSIVE),
					 xc_has(a, XC_OPT_DELETED), xc_has(a, XC_OPT_NULL) };

		rc = xc_cmd_ls(&ctx, target, &lo, stdout, stderr);
	} else if (!strcmp(cmd->name, "stat")) {
		rc = xc_cmd_stat(&ctx, target, stdout, stderr);
	} else if (!strcmp(cmd->name, "cat")) {
		rc = xc_cmd_cat(&ctx, target, stdout, stderr);
	} else if (!strcmp(cmd->name, "extract")) {
		rc = run_extract(&ctx, a);
	} else {
		rc = xc_cmd_bodyfile(&ctx, stdout, stderr);
	}
	xa_ctx_release(&ctx);
	return xc_exit_after(rc);
}
