/*
 * cmd_lookup.c - the reverse lookups: `ncheck` (an inode's paths) and
 * `owner` (a block's structure and owner).  Operands are checked against
 * the geometry once the image is open: a number outside the filesystem is
 * a usage error, not an empty answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "cli/cli_number.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/views/badmap.h"
#include "cli/views/log_events.h"
#include "cli/views/ncheck.h"
#include "cli/views/owner.h"

int xc_run_ncheck(const struct xc_command *cmd, const struct xc_args *a)
{
	size_t n = a->nwords > 2 ? (size_t)a->nwords - 2 : 0;
	uint64_t *inos = NULL;
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	if (n && !(inos = calloc(n, sizeof(*inos)))) {
		fprintf(stderr, "xfsrecon: out of memory\n");
		return XC_EXIT_OPERATIONAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (xc_parse_u64(a->words[2 + i], &inos[i])) {
			fprintf(stderr, "xfsrecon: '%s' is not an inode number\n", a->words[2 + i]);
			free(inos);
			return XC_EXIT_USAGE;
		}
	}
	rc = xc_ctx_run(a, XA_RUN_INFO, false, false, &ctx);
	if (rc) {
		free(inos);
		return rc;
	}
	rc = xc_cmd_ncheck(&ctx, inos, n, stdout, stderr);
	xa_ctx_release(&ctx);
	free(inos);
	if (rc > 0) {
		fflush(stdout);
		return XC_EXIT_LEFT;
	}
	return xc_exit_after(rc);
}

/*
 * BLOCK is a filesystem block number as xfs_db's fsblock takes it (the AG
 * number in the high bits), AG/AGBNO, or either form followed by -LAST (a
 * range, LAST included, in the same form).  Returns 0, or -1 after saying
 * why on standard error.
 */
static int parse_block(const struct xfmt_geom *g, const char *word, uint32_t *agno,
		       uint32_t *agbno)
{
	char buf[64];
	const char *slash = strchr(word, '/');
	uint64_t x, y;

	if (slash) {
		size_t l = (size_t)(slash - word);

		if (l >= sizeof(buf))
			return -1;
		memcpy(buf, word, l);
		buf[l] = '\0';
		if (xc_parse_u64(buf, &x) || xc_parse_u64(slash + 1, &y) || x >= g->agcount ||
		    y >= xfmt_geom_ag_length(g, (uint32_t)x))
			return -1;
	} else {
		if (xc_parse_u64(word, &x) || !xfmt_geom_fsb_valid(g, x))
			return -1;
		y = xfmt_geom_fsb_agbno(g, x);
		x = xfmt_geom_fsb_agno(g, x);
	}
	*agno = (uint32_t)x;
	*agbno = (uint32_t)y;
	return 0;
}

static int parse_range(const struct xfmt_geom *g, const char *word, struct xc_owner_range *r)
{
	const char *dash = strchr(word, '-');
	char first[64];
	uint32_t a2, b2;

	if (!dash)
		dash = word + strlen(word);
	if ((size_t)(dash - word) >= sizeof(first))
		return -1;
	memcpy(first, word, (size_t)(dash - word));
	first[dash - word] = '\0';
	if (parse_block(g, first, &r->agno, &r->first))
		return -1;
	r->count = 1;
	if (!*dash)
		return 0;
	if (parse_block(g, dash + 1, &a2, &b2) || a2 < r->agno ||
	    (a2 == r->agno && b2 < r->first))
		return -1;
	/* Across AGs: every block from first to the end of its AG, the AGs
	 * between whole, and the last AG up to LAST (split by the caller). */
	r->count = (uint64_t)a2 << 32 | b2;
	return 1;
}

/* The map is the image's too: the check under it never reads those
 * sectors, so what it finds is what a ddrescue copy really holds. */
int xc_run_badmap(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xc_args b = *a;
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	if (a->io.badmap && strcmp(a->io.badmap, a->words[2])) {
		fprintf(stderr, "xfsrecon: badmap takes its map as an operand; --badmap names "
			"another\n");
		return XC_EXIT_USAGE;
	}
	b.io.badmap = a->words[2];
	rc = xc_ctx_run(&b, XA_RUN_CHECK, true, false, &ctx);
	if (rc)
		return rc;
	rc = xc_cmd_badmap(&ctx, a->words[2], stdout, stderr);
	xa_ctx_release(&ctx);
	if (rc == 1) {
		fflush(stdout);
		return XC_EXIT_LEFT;
	}
	return xc_exit_after(rc);
}

/* The events of the dirty log, with the paths of the replayed tree. */
int xc_run_log(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	if (xc_has(a, XC_OPT_JSON) && xc_has(a, XC_OPT_BODYFILE)) {
		fprintf(stderr, "xfsrecon: --json and --bodyfile exclude each other\n");
		return XC_EXIT_USAGE;
	}
	if (xc_has(a, XC_OPT_NO_REPLAY)) {
		fprintf(stderr, "xfsrecon: log names events by the paths of the replayed tree; "
			"--no-replay does not apply\n");
		return XC_EXIT_USAGE;
	}
	struct xc_args b = *a;
	struct xa_ctx before;
	bool have_before;

	rc = xc_ctx_run(a, XA_RUN_INFO, false, false, &ctx);
	if (rc)
		return rc;
	if (!ctx.log_dirty)
		fprintf(stderr, "xfsrecon: the log is clean: it holds no events\n");
	/* The tree before the replay names what the log deleted. */
	b.given |= UINT64_C(1) << XC_OPT_NO_REPLAY;
	have_before = ctx.log_dirty && xc_ctx_run(&b, XA_RUN_INFO, false, false, &before) == 0;
	rc = xc_cmd_log_events(&ctx, have_before ? &before : NULL,
			       xc_has(a, XC_OPT_JSON) ? XC_LOG_JSON :
			       xc_has(a, XC_OPT_BODYFILE) ? XC_LOG_BODYFILE : XC_LOG_TEXT, stdout, stderr);
	if (have_before)
		xa_ctx_release(&before);
	xa_ctx_release(&ctx);
	return xc_exit_after(rc);
}

int xc_run_owner(const struct xc_command *cmd, const struct xc_args *a)
{
	size_t n = (size_t)a->nwords - 2, nr = 0, cap = 0;
	struct xc_owner_range *r = NULL;
	struct xa_ctx ctx;
	int rc;

	(void)cmd;
	rc = xc_ctx_run(a, XA_RUN_CHECK, true, false, &ctx);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		struct xc_owner_range one;
		int kind = parse_range(&ctx.geom, a->words[2 + i], &one);
		uint32_t last_ag, last_bno;

		if (kind < 0) {
			fprintf(stderr, "xfsrecon: '%s' is not a block of this filesystem (BLOCK, "
				"AG/AGBNO, or FIRST-LAST of either)\n", a->words[2 + i]);
			rc = XC_EXIT_USAGE;
			break;
		}
		last_ag = kind ? (uint32_t)(one.count >> 32) : one.agno;
		last_bno = kind ? (uint32_t)one.count : one.first;
		for (uint32_t ag = one.agno; ag <= last_ag; ag++) {
			uint32_t from = ag == one.agno ? one.first : 0;
			uint32_t to = ag == last_ag ? last_bno : xfmt_geom_ag_length(&ctx.geom, ag) - 1;

			if (nr == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct xc_owner_range *nv = realloc(r, ncap * sizeof(*nv));

				if (!nv) {
					fprintf(stderr, "xfsrecon: out of memory\n");
					rc = XC_EXIT_OPERATIONAL;
					break;
				}
				r = nv;
				cap = ncap;
			}
			r[nr].agno = ag;
			r[nr].first = from;
			r[nr].count = (uint64_t)to - from + 1;
			nr++;
		}
	}
	if (!rc)
		rc = xc_exit_after(xc_cmd_owner(&ctx, r, nr, false, NULL, stdout, stderr));
	free(r);
	xa_ctx_release(&ctx);
	return rc;
}
