/*
 * repair.h - the repair planner: from a checked filesystem to a plan.
 *
 * The planner reads the finished check (findings and the model, with the
 * ownership lists kept) and decides, family by family, what to rebuild:
 * inodes to clear or mend, directories to rewrite, orphans to link into
 * lost+found, AGs whose space and inode indexes are rebuilt, superblocks,
 * the log.  Every action names the findings it answers.  Nothing is written
 * here; output.c applies the plan.
 */
#ifndef XR_REPAIR_H
#define XR_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xa_ctx;
struct xr_plan;

struct xr_repair_opts {
	bool zero_log;      /* discard a dirty log (as xfs_repair -L) instead of refusing */
};

struct xr_repair_summary {
	uint64_t errors;        /* error findings in the input */
	uint64_t answered;      /* error findings some action answers */
	bool     dirty_log;     /* the log is dirty */
	bool     refused;       /* nothing planned: dirty log without zero_log */
	uint32_t ags_rebuilt;
	uint32_t ags_blocked;   /* AGs that needed a rebuild the planner could not do */
	uint64_t inodes_cleared;
	uint64_t inodes_fixed;
};

/*
 * Plan the repair of the filesystem ctx describes (xa_run with XA_RUN_CHECK
 * and opts.keep_ownership must have run).  Sorts ctx's findings (their
 * indices are what actions answer).  Returns 0 (the summary says whether the
 * plan is complete, or refused) or a negative xerr; err gets a reason line.
 * An answer outside the actions table is counted in plan->mismatch; with
 * $XFSRECON_STRICT_ACTIONS set it is XERR_USAGE instead (the test suite).
 */
int xr_repair_plan(struct xa_ctx *ctx, const struct xr_repair_opts *o, struct xr_plan *plan,
		   struct xr_repair_summary *sum, char *err, size_t errlen);

#endif /* XR_REPAIR_H */
