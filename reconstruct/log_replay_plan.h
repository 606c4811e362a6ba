/*
 * log_replay_plan.h - the replayed log as changes of the repair plan.
 *
 * The analyzer replays a dirty log into an overlay (analyzer/log/); the
 * checker and the planner decide from the filesystem as replayed.  Their
 * own changes are computed from that view, so they win where they overlap
 * the replay; every other replayed sector becomes a change of the
 * "replay-log" action, so OUT holds the filesystem as the log leaves it.
 */
#ifndef XR_LOG_REPLAY_PLAN_H
#define XR_LOG_REPLAY_PLAN_H

struct xa_ctx;
struct xr_plan;

/*
 * Add to plan, under action, every replayed range of ctx->overlay that no
 * change planned so far covers (structure "log-replay").  Call after every
 * other writer and before xr_plan_finish.  Returns 0 (nothing to do
 * without an overlay), XERR_NOMEM or XERR_USAGE.
 */
int xr_log_replay_plan(struct xa_ctx *ctx, struct xr_plan *plan, int action);

#endif /* XR_LOG_REPLAY_PLAN_H */
