/*
 * loglist.h - the transactions of a dirty log, listed for an investigator
 * (--log-only): where each lies (LSN), its items, and which inodes and
 * blocks each touched.
 */
#ifndef XC_LOGLIST_H
#define XC_LOGLIST_H

#include <stdio.h>

struct xa_ctx;

/*
 * Print the log's head and tail, then every committed transaction from
 * the tail to the head: its start and commit LSN, tid, and one line per
 * item (buffer daddr and length with the AG block and type, inode number
 * and what was logged, inode chunk, intent id).  A clean log lists
 * nothing.  Needs the log pass to have run.  Returns 0 or a negative xerr.
 */
int xc_cmd_log_list(struct xa_ctx *ctx, FILE *out, FILE *err);

#endif /* XC_LOGLIST_H */
