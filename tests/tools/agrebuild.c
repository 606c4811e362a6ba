/*
 * agrebuild.c - test helper: rebuild every AG's space and inode indexes of
 * an image with xr_ag_rebuild and write the plan into a copy.
 *
 *   agrebuild [--all-changes] IMAGE COPY
 *
 * IMAGE is analysed (check passes, ownership kept); for each AG the forward
 * ownership list less what the rebuilt structures own (OWN_AG, OWN_INOBT,
 * OWN_REFC) is what stays, the inobt records the walk found are the
 * chunks.  The superblock's icount, ifree and fdblocks are set from the
 * rebuilt AGs.  COPY is a raw copy of IMAGE; the finished plan is written
 * into it at the changes' offsets.  With --all-changes every planned change
 * is written, also those equal to IMAGE's bytes: COPY may then be IMAGE
 * with its AG btrees damaged, IMAGE standing in for the model a repair
 * would have built (the rebuild must replace every damaged structure).
 *
 * Prints one line per AG.  Exit 0 done; 2 when some AG's forward list was
 * incomplete (nothing written); 3 when xr_ag_rebuild refused an AG
 * (nothing written); 8 on an operational error; 16 usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/sb.h"
#include "reconstruct/ag_rebuild.h"
#include "reconstruct/env.h"
#include "reconstruct/plan.h"

/* Superblock counter offsets (xfs-ondisk.md 1). */
#define SB_ICOUNT   128
#define SB_IFREE    136
#define SB_FDBLOCKS 144

/* The log's last LSN, else the newest stamped in any AG header: never ahead
 * of the log head. */
static uint64_t header_lsn(const struct xa_ctx *ctx)
{
	uint64_t lsn = 0;

	if (ctx->log_last_lsn)
		return ctx->log_last_lsn;

	for (uint32_t i = 0; i < ctx->nags; i++) {
		if (ctx->ags[i].agf_ok && ctx->ags[i].agf.lsn > lsn)
			lsn = ctx->ags[i].agf.lsn;
		if (ctx->ags[i].agi_ok && ctx->ags[i].agi.lsn > lsn)
			lsn = ctx->ags[i].agi.lsn;
	}
	return lsn;
}

/* Plan the superblock's summary counters from the rebuilt AGs. */
static int plan_sb(struct xa_ctx *ctx, struct xr_plan *plan, int action, uint64_t icount,
		   uint64_t ifree, uint64_t fdblocks)
{
	size_t len = ctx->geom.sectsize;
	uint8_t *buf = malloc(len);
	int rc = XERR_NOMEM;

	if (!buf)
		goto out;
	rc = xr_plan_read(plan, ctx, 0, buf, len);
	if (rc)
		goto out;
	xfmt_put_be64(buf + SB_ICOUNT, icount);
	xfmt_put_be64(buf + SB_IFREE, ifree);
	xfmt_put_be64(buf + SB_FDBLOCKS, fdblocks);
	if (ctx->geom.v5)
		xfmt_crc_update(buf, len, XFS_SB_CRC_OFF);
	rc = xr_plan_write(plan, action, "sb", 0, 0, 0, 0, buf, len);
out:
	free(buf);
	return rc;
}

static int write_plan(const struct xr_plan *plan, const char *path)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0) {
		perror(path);
		return XERR_IO;
	}
	uint8_t *buf = malloc(xr_plan_max_change(plan));

	for (size_t i = 0; buf && i < plan->nchanges; i++) {
		const struct xr_change *c = &plan->changes[i];
		const uint8_t *b = xr_plan_change_bytes(plan, c, buf);

		if (!b || pwrite(fd, b, c->len, (off_t)c->offset) != (ssize_t)c->len) {
			perror(path);
			free(buf);
			close(fd);
			return XERR_IO;
		}
	}
	free(buf);
	if (close(fd)) {
		perror(path);
		return XERR_IO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct xa_options opts = { .keep_ownership = true };
	struct xa_ctx ctx;
	struct xr_plan plan;
	struct xr_env env;
	struct xa_ownlist kept = { 0 };
	char err[256];
	uint64_t icount = 0, ifree = 0, fdblocks = 0;
	bool all_changes = argc == 4 && strcmp(argv[1], "--all-changes") == 0;
	const char *image, *copy;
	int rc, status = 0, action;

	if (argc != 3 && !all_changes) {
		fprintf(stderr, "usage: agrebuild [--all-changes] IMAGE COPY\n");
		return 16;
	}
	image = argv[argc - 2];
	copy = argv[argc - 1];
	rc = xa_ctx_open(&ctx, image, NULL, &opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "agrebuild: %s\n", err);
		return 8;
	}
	xr_plan_init(&plan);
	rc = xa_run(&ctx, XA_RUN_CHECK);
	if (rc)
		goto out;
	env = (struct xr_env){ .ctx = &ctx, .plan = &plan, .g = &ctx.geom, .sb = &ctx.sb,
			       .v5 = ctx.geom.v5, .lsn = header_lsn(&ctx) };
	action = xr_plan_action(&plan, XR_ACT_REBUILD_AG, XR_NO_AG, 0, "rebuild every AG");
	if (action < 0) {
		rc = action;
		goto out;
	}
	for (uint32_t agno = 0; agno < ctx.nags; agno++) {
		bool complete = false;
		const struct xa_ownlist *fwd = xa_own_forward(&ctx, agno, &complete);
		struct xr_ag_input in;
		struct xr_ag_result res;

		if (!fwd || !complete) {
			printf("ag %u: forward ownership incomplete\n", agno);
			status = status ? status : 2;
			continue;
		}
		xa_ownlist_release(&kept);
		for (size_t i = 0; i < fwd->n; i++) {
			const struct xa_ownrec *r = &fwd->recs[i];

			if (r->owner == XFS_RMAP_OWN_AG || r->owner == XFS_RMAP_OWN_INOBT ||
			    r->owner == XFS_RMAP_OWN_REFC)
				continue;
			rc = xa_ownlist_add(&kept, r->agbno, r->len, r->owner, r->offset, r->flags);
			if (rc)
				goto out;
		}
		in = (struct xr_ag_input){ .agno = agno, .kept = &kept,
					   .chunks = ctx.ags[agno].chunks,
					   .nchunks = ctx.ags[agno].nchunks };
		rc = xr_ag_rebuild(&env, &in, action, &res);
		if (rc == XERR_UNSUPPORTED) {
			printf("ag %u: rebuild refused\n", agno);
			status = 3;
			rc = 0;
			continue;
		}
		if (rc)
			goto out;
		printf("ag %u: freeblks %llu flcount %llu btreeblks %llu icount %llu ifree %llu\n",
		       agno, (unsigned long long)res.freeblks, (unsigned long long)res.flcount,
		       (unsigned long long)res.btreeblks, (unsigned long long)res.icount,
		       (unsigned long long)res.ifree);
		icount += res.icount;
		ifree += res.ifree;
		fdblocks += res.freeblks + res.flcount + res.btreeblks;
	}
	if (status)
		goto out;
	rc = plan_sb(&ctx, &plan, action, icount, ifree, fdblocks);
	if (!rc && !all_changes)
		rc = xr_plan_finish(&plan, &ctx);
	if (!rc) {
		printf("changes %zu bytes %llu\n", plan.nchanges,
		       (unsigned long long)xr_plan_bytes(&plan));
		rc = write_plan(&plan, copy);
	}
out:
	if (rc)
		fprintf(stderr, "agrebuild: %s\n", xerr_str(rc));
	xa_ownlist_release(&kept);
	xr_plan_release(&plan);
	xa_ctx_release(&ctx);
	return rc ? 8 : status;
}
