/*
 * log_events.h - `xfsrecon log IMAGE`: what the dirty log says happened, as
 * file-level events with paths, in log order.
 */
#ifndef XC_LOG_EVENTS_H
#define XC_LOG_EVENTS_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

/*
 * One line per event (analyzer/log/log_events.h):
 *   CYCLE/BLOCK EVENT PATH[ -> PATH2] inode N[ DETAILS]
 * CYCLE/BLOCK is the transaction's commit LSN; a path is a directory's path
 * then the name the log holds; the directory's path (or an unnamed event's
 * inode's) is the replayed tree's, else the tree before the replay's
 * (before: the same image opened without replay, may be NULL), else the
 * last name the log gave it ("<dir N>" when none); DETAILS: "freed", a new inode's
 * type, "size A -> B", "extents A -> B", "mode A -> B", "uid A -> B", "gid
 * A -> B", "flags A -> B" (di_flags | di_flags2 << 16), "mtime A -> B"
 * (seconds).  XC_LOG_JSON: one JSON object per line with the same fields.
 * XC_LOG_BODYFILE: one Sleuth Kit body line per event, "PATH (EVENT)" as
 * the name and the inode's times after the transaction (before it, for a
 * freed inode), for mactime.
 * A clean log prints nothing.  Returns 0 or a negative xerr.
 */
enum xc_log_format { XC_LOG_TEXT, XC_LOG_JSON, XC_LOG_BODYFILE };

int xc_cmd_log_events(struct xa_ctx *ctx, struct xa_ctx *before, enum xc_log_format fmt,
		      FILE *out, FILE *err);

#endif /* XC_LOG_EVENTS_H */
