/*
 * cmd_files.c - the file commands: `ls`, `stat`, `cat`, `extract` and
 * `bodyfile`, each a view over the checked-free (info) run of the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/model/orphans.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/message_streams.h"
#include "cli/views/bodyfile.h"
#include "cli/views/extract.h"
#include "cli/views/files.h"
#include "cli/views/ls.h"

/* Add what one extract did to the run's totals. */
static void add_stats(struct xc_extract_stats *t, const struct xc_extract_stats *s)
{
	t->files += s->files;
	t->dirs += s->dirs;
	t->symlinks += s->symlinks;
	t->specials += s->specials;
	t->bytes += s->bytes;
	t->skipped += s->skipped;
	t->damaged += s->damaged;
	t->strip_modes += s->strip_modes;
	t->strip_owners += s->strip_owners;
	t->strip_devices += s->strip_devices;
	t->strip_xattrs += s->strip_xattrs;
	t->dup_blocks += s->dup_blocks;
	t->hardlinks += s->hardlinks;
	t->link_copies += s->link_copies;
	t->deleted_files += s->deleted_files;
	t->deleted_lost += s->deleted_lost;
	t->limit_hit |= s->limit_hit;
}

/*
 * extract --orphans: each top of the unreachable trees into DIR/INODE (a
 * directory made for an unreachable directory, its tree below it).  A
 * manifest, when asked, is the first top's (one file per run: the others
 * are refused as existing), so --manifest is refused here.
 */
static int extract_orphans(struct xa_ctx *ctx, const struct xc_extract_opts *eo,
			   struct xc_extract_stats *es)
{
	struct xc_message_streams ms;
	uint64_t *tops = NULL;
	size_t n = 0;
	int rc = xa_orphan_tops(ctx, xc_message_streams(&ms, NULL, stderr), &tops, &n), result = 0;
	int destfd = rc ? -1 : open(eo->dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(es, 0, sizeof(*es));
	if (!rc && destfd < 0) {
		fprintf(stderr, "xfsrecon: %s: %s\n", eo->dest, strerror(errno));
		rc = XERR_USAGE;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct xc_extract_opts one = *eo;
		struct xc_extract_stats s;
		const struct xa_irec *r = xa_irec_find(ctx, tops[i]);
		char name[32], *sub = NULL;

		snprintf(name, sizeof(name), "%" PRIu64, tops[i]);
		if (r && (r->mode & 0170000u) == 0040000u) {
			if (mkdirat(destfd, name, 0700) != 0) {
				fprintf(stderr, "xfsrecon: %s/%s: cannot create directory: %s\n",
					eo->dest, name, strerror(errno));
				es->skipped++;
				continue;
			}
			if (asprintf(&sub, "%s/%s", eo->dest, name) < 0) {
				rc = XERR_NOMEM;
				break;
			}
			one.dest = sub;
		}
		rc = xc_cmd_extract(ctx, name, &one, &s, stderr);
		free(sub);
		add_stats(es, &s);
		if (rc == XERR_IO) {
			result = rc;
			rc = 0;
		}
	}
	if (destfd >= 0)
		close(destfd);
	free(tops);
	return rc ? rc : result;
}

static int run_extract(struct xa_ctx *ctx, const struct xc_args *a)
{
	struct xc_extract_opts eo = { a->dest, true, xc_has(a, XC_OPT_VERBOSE),
				      xc_has(a, XC_OPT_SAME_OWNER),
				      xc_has(a, XC_OPT_PRESERVE_PRIVILEGES), a->max_bytes,
				      xc_has(a, XC_OPT_PROGRESS), a->manifest,
				      xc_has(a, XC_OPT_DELETED) };
	struct xc_extract_stats es;
	int rc;

	if (xc_has(a, XC_OPT_ORPHANS))
		rc = extract_orphans(ctx, &eo, &es);
	else
		rc = xc_cmd_extract(ctx, a->nwords > 2 ? a->words[2] : "/", &eo, &es, stderr);
	if (!xc_has(a, XC_OPT_QUIET)) {
		printf("extracted %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64 " directories, %"
		       PRIu64 " symlinks, %" PRIu64 " special files, %" PRIu64 " hard links; %" PRIu64
		       " skipped, %" PRIu64 " damaged\n", es.files, es.bytes, es.dirs, es.symlinks,
		       es.specials, es.hardlinks, es.skipped, es.damaged);
		if (eo.deleted)
			printf("deleted: %" PRIu64 " files written, %" PRIu64 " names whose file could "
			       "not be\n", es.deleted_files, es.deleted_lost);
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
	if (xc_has(a, XC_OPT_ORPHANS) && a->nwords > 2) {
		fprintf(stderr, "xfsrecon: --orphans lists the unreachable inodes: no PATH with it\n");
		return XC_EXIT_USAGE;
	}
	if (xc_has(a, XC_OPT_ORPHANS) && a->manifest) {
		fprintf(stderr, "xfsrecon: --manifest is for one tree; not with --orphans\n");
		return XC_EXIT_USAGE;
	}
	/* Which inodes no path reaches is the check's namespace pass's word. */
	rc = xc_ctx_run(a, xc_has(a, XC_OPT_ORPHANS) ||
			   (!strcmp(cmd->name, "extract") && xc_has(a, XC_OPT_DELETED)) ?
			XA_RUN_CHECK : XA_RUN_INFO,
			!strcmp(cmd->name, "extract") && xc_has(a, XC_OPT_DELETED), false, &ctx);
	if (rc)
		return rc;
	if (!strcmp(cmd->name, "ls")) {
		struct xc_ls_opts lo = { xc_has(a, XC_OPT_LONG), xc_has(a, XC_OPT_RECURSIVE),
					 xc_has(a, XC_OPT_DELETED), xc_has(a, XC_OPT_NULL),
					 xc_has(a, XC_OPT_ORPHANS) };

		rc = lo.orphans ? xc_cmd_ls_orphans(&ctx, &lo, stdout, stderr)
				: xc_cmd_ls(&ctx, target, &lo, stdout, stderr);
	} else if (!strcmp(cmd->name, "stat")) {
		rc = xc_cmd_stat(&ctx, target, stdout, stderr);
	} else if (!strcmp(cmd->name, "cat")) {
		rc = xc_cmd_cat(&ctx, target, stdout, stderr);
	} else if (!strcmp(cmd->name, "extract")) {
		rc = run_extract(&ctx, a);
	} else {
		rc = xc_cmd_bodyfile(&ctx, xc_has(a, XC_OPT_DELETED), stdout, stderr);
	}
	xa_ctx_release(&ctx);
	return xc_exit_after(rc);
}
