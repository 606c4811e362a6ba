/*
 * log_clear.h - plan a clean, empty internal log, as `xfs_repair -L` leaves
 * it.
 *
 * The whole log is rewritten.  Cycle 1 (the reset xfsprogs uses when no
 * metadata LSN needs a later one) is a zeroed log with one unmount record at
 * block 0; the kernel reads the zeroed rest as never written.  A later cycle
 * C puts the unmount record of cycle C at block 0 and fills the rest of the
 * log with unmount records of cycle C-1, so that the head is found right
 * after the first record and the log is clean at cycle C (xfsprogs
 * libxfs_log_clear).  Records are one stripe unit long (sb_logsunit, v2
 * logs), carry extended headers past 32 KiB and a record CRC.
 *
 * A v5 filesystem stamps metadata with LSNs; a log behind the largest of
 * them upsets recovery and makes xfs_repair reformat the log.  So the cycle
 * is chosen past the largest LSN (xr_log_clear_cycle), and metadata the
 * repair writes must carry an LSN strictly before xr_log_clear_head_lsn
 * (xfs_repair calls metadata stamped with the head LSN itself "ahead of the
 * log"): the LSN of the cleared log's first record, (cycle, 0), is right.
 */
#ifndef XR_LOG_CLEAR_H
#define XR_LOG_CLEAR_H

#include <stdint.h>

#include "reconstruct/env.h"

/* The cycle xfsprogs resets a log to, and the margin it adds past the
 * largest metadata cycle when that is not enough. */
#define XR_LOG_INIT_CYCLE   1u
#define XR_LOG_CYCLE_MARGIN 3u

/*
 * The cycle to clear the log to, into *cycle: XR_LOG_INIT_CYCLE when the
 * filesystem is not v5 (no metadata LSNs) or max_lsn (the largest LSN found
 * in any metadata, the superblock and the old log's last record included)
 * is behind the head a cycle-1 log would have; else max_lsn's cycle plus
 * XR_LOG_CYCLE_MARGIN, as xfs_repair does.  Returns 0, XERR_UNSUPPORTED for
 * an external log, or XERR_RANGE if the cycle would not fit.
 */
int xr_log_clear_cycle(const struct xr_env *env, uint64_t max_lsn, uint32_t *cycle);

/* The LSN of the head of a log cleared to cycle: (cycle, end of the first
 * record).  0 if the log geometry is unusable. */
uint64_t xr_log_clear_head_lsn(const struct xr_env *env, uint32_t cycle);

/*
 * Plan the whole internal log as a clean log of cycle (>= 1) under action,
 * in changes of at most 1 MiB (structure "log").  The plan holds the bytes
 * until it is applied: as much memory as the log is large.  Returns 0,
 * XERR_NOMEM, XERR_UNSUPPORTED (external log, or a log stripe unit no record
 * can have), XERR_RANGE (a log that does not fit the image or is too small
 * for one record), or XERR_USAGE.
 */
int xr_log_clear_plan(const struct xr_env *env, uint32_t cycle, int action);

#endif /* XR_LOG_CLEAR_H */
