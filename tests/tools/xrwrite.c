/*
 * xrwrite.c - test helper: drive the reconstruct writers on one image
 * without the repair planner, so shell tests can judge each writer with
 * external oracles (cmp, xfs_db, xfs_repair -n, the kernel).
 *
 *   xrwrite [-f] write IMAGE OUT [OFFSET:HEX ...]
 *       copy IMAGE to OUT with the given byte changes (filesystem offsets)
 *   xrwrite [-f] sb IMAGE OUT primary|secondaries|all
 *       rebuild the superblocks from the analyzer's chosen geometry, with
 *       counters summed from the AG headers
 *   xrwrite [-f] log IMAGE OUT [CYCLE|auto] [counters]
 *       clear the log to CYCLE (auto, the default: the cycle
 *       xr_log_clear_cycle picks past the largest LSN known, the
 *       superblock's and the old log's last); with "counters" also rewrite
 *       the primary's summary counters, as a repair that drops a dirty log
 *       must (a lazy-count filesystem only makes them exact at unmount)
 *
 * Each prints "key value" lines: the analyzer's view (geom_source,
 * log_dirty, ...), what was planned, and "out_sha256 HEX".  Exit 0 on
 * success, 1 on a writer error, 16 on usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/sha256.h"
#include "reconstruct/env.h"
#include "reconstruct/log_clear.h"
#include "reconstruct/output.h"
#include "reconstruct/plan.h"
#include "reconstruct/sb_write.h"

static int usage(void)
{
	fprintf(stderr, "usage: xrwrite [-f] write IMAGE OUT [OFFSET:HEX ...]\n"
		"       xrwrite [-f] sb IMAGE OUT primary|secondaries|all\n"
		"       xrwrite [-f] log IMAGE OUT [CYCLE|auto] [counters]\n");
	return 16;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Plan one "OFFSET:HEX" change. */
static int plan_spec(struct xr_plan *plan, int action, const char *spec)
{
	char *end;
	unsigned long long off = strtoull(spec, &end, 0);
	size_t n;
	uint8_t *bytes;
	int rc;

	if (*end != ':' || !end[1] || strlen(end + 1) % 2)
		return XERR_USAGE;
	n = strlen(end + 1) / 2;
	bytes = malloc(n);
	if (!bytes)
		return XERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(end[1 + 2 * i]), lo = hexval(end[2 + 2 * i]);

		if (hi < 0 || lo < 0) {
			free(bytes);
			return XERR_USAGE;
		}
		bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	rc = xr_plan_write(plan, action, "test", XR_NO_AG, 0, 0, off, bytes, n);
	free(bytes);
	return rc;
}

/* Superblock counters as the AG headers sum them (the kernel's rule). */
static void sum_counts(const struct xa_ctx *ctx, struct xr_sb_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ag *ag = &ctx->ags[a];

		if (ag->agi_ok) {
			c->icount += ag->agi.count;
			c->ifree += ag->agi.freecount;
		}
		if (ag->agf_ok)
			c->fdblocks += (uint64_t)ag->agf.freeblks + ag->agf.flcount +
				       ag->agf.btreeblks;
	}
	c->frextents = ctx->sb.frextents;
}

/* The action the writes belong to: only a label here (nothing reports it).
 * Raw writes ("write") are no repair step: any kind does. */
static enum xr_action_kind cmd_kind(const char *cmd)
{
	if (strcmp(cmd, "sb") == 0)
		return XR_ACT_REWRITE_SUPERBLOCKS;
	if (strcmp(cmd, "log") == 0)
		return XR_ACT_ZERO_LOG;
	return XR_ACT_FIX_INODE;
}

int main(int argc, char **argv)
{
	struct xr_output_opts oo = { 0 };
	struct xa_options opts = { 0 };
	struct xa_ctx ctx;
	struct xr_plan plan;
	struct xr_env env;
	struct xr_output_digests dg;
	char err[512], hex[2 * XSHA256_DIGEST_LEN + 1];
	const char *cmd, *image, *out;
	int argi = 1, rc, action;

	if (argi < argc && strcmp(argv[argi], "-f") == 0) {
		oo.force = true;
		argi++;
	}
	if (argc - argi < 3)
		return usage();
	cmd = argv[argi];
	image = argv[argi + 1];
	out = argv[argi + 2];
	argi += 3;

	/* The writers here work on the state on disk, as xfs_repair -L does. */
	opts.no_replay = true;
	if (xa_ctx_open(&ctx, image, NULL, &opts, err, sizeof(err)) != 0) {
		fprintf(stderr, "xrwrite: %s\n", err);
		return 1;
	}
	xr_plan_init(&plan);
	rc = xa_run(&ctx, XA_RUN_CHECK);
	if (rc)
		goto done;
	printf("geom_source %s\n", ctx.geom_source == XA_GEOM_PRIMARY ? "primary" :
	       ctx.geom_source == XA_GEOM_VOTE ? "vote" : "none");
	printf("log_dirty %d\n", ctx.log_dirty ? 1 : 0);
	printf("log_last_lsn 0x%" PRIx64 "\n", ctx.log_last_lsn);

	memset(&env, 0, sizeof(env));
	env.ctx = &ctx;
	env.plan = &plan;
	env.g = &ctx.geom;
	env.sb = &ctx.sb;
	env.v5 = ctx.geom.v5;
	env.lsn = ctx.log_last_lsn;
	action = xr_plan_action(&plan, cmd_kind(cmd), XR_NO_AG, 0, "xrwrite %s", cmd);
	if (action < 0) {
		rc = action;
		goto done;
	}

	if (strcmp(cmd, "write") == 0) {
		for (; argi < argc && rc == 0; argi++)
			rc = plan_spec(&plan, action, argv[argi]);
	} else if (strcmp(cmd, "sb") == 0 && argi < argc) {
		struct xr_sb_counts c;
		unsigned what = strcmp(argv[argi], "primary") == 0 ? XR_SB_PRIMARY :
				strcmp(argv[argi], "secondaries") == 0 ? XR_SB_SECONDARIES :
				strcmp(argv[argi], "all") == 0 ? XR_SB_PRIMARY | XR_SB_SECONDARIES : 0;

		if (ctx.geom_source == XA_GEOM_NONE) {
			rc = XERR_NOTXFS;
			goto done;
		}
		sum_counts(&ctx, &c);
		printf("icount %" PRIu64 "\nifree %" PRIu64 "\nfdblocks %" PRIu64 "\n", c.icount,
		       c.ifree, c.fdblocks);
		rc = xr_sb_plan(&env, &c, what, action);
	} else if (strcmp(cmd, "log") == 0) {
		uint32_t cycle;
		uint64_t max_lsn = ctx.log_last_lsn > ctx.sb.lsn ? ctx.log_last_lsn : ctx.sb.lsn;

		if (argi < argc && strcmp(argv[argi], "auto") != 0)
			cycle = (uint32_t)strtoul(argv[argi], NULL, 0);
		else
			rc = xr_log_clear_cycle(&env, max_lsn, &cycle);
		if (rc == 0) {
			printf("cycle %" PRIu32 "\nhead_lsn 0x%" PRIx64 "\n", cycle,
			       xr_log_clear_head_lsn(&env, cycle));
			rc = xr_log_clear_plan(&env, cycle, action);
		}
		if (rc == 0 && argi + 1 < argc && strcmp(argv[argi + 1], "counters") == 0) {
			struct xr_sb_counts c;

			sum_counts(&ctx, &c);
			rc = xr_sb_plan(&env, &c, XR_SB_PRIMARY, action);
		}
	} else {
		rc = XERR_USAGE;
	}
	if (rc == 0)
		rc = xr_plan_finish(&plan, &ctx);
	if (rc)
		goto done;
	printf("changes %zu\nchanged_bytes %" PRIu64 "\n", plan.nchanges, xr_plan_bytes(&plan));
	rc = xr_output_write(&ctx, &plan, out, &oo, &dg, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xrwrite: %s\n", err);
		goto done;
	}
	xsha256_hex(dg.in, hex);
	printf("in_sha256 %s\n", hex);
	xsha256_hex(dg.out, hex);
	printf("out_sha256 %s\n", hex);
done:
	if (rc && rc != XERR_EXISTS && rc != XERR_USAGE)
		fprintf(stderr, "xrwrite: %s\n", xerr_str(rc));
	xr_plan_release(&plan);
	xa_ctx_release(&ctx);
	if (rc == XERR_USAGE)
		return 16;
	return rc ? 1 : 0;
}
