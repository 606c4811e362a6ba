/*
 * orphans.h - allocated inodes no path from the root reaches, as the tops
 * of the trees they form: an unreachable directory carries its subtree, so
 * only the inodes no unreachable directory names either are tops (and, so
 * that a cycle of such directories is not lost, the lowest-numbered one of
 * every group that only names each other).
 */
#ifndef XA_ORPHANS_H
#define XA_ORPHANS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/messages.h"

struct xa_ctx;

/*
 * The tops, sorted by inode number, in a malloc'd array (*v, *n; NULL and 0
 * when there are none).  Needs the namespace pass (XA_RUN_CHECK): an
 * inode is an orphan when it is allocated, not one of the filesystem's own,
 * and the walk from the root did not reach it (every inode, when there is
 * no root to walk).  Diagnostics of the walks go to msgs.  Returns 0 or
 * XERR_NOMEM.
 */
int xa_orphan_tops(struct xa_ctx *ctx, const struct xa_messages *msgs, uint64_t **v, size_t *n);

#endif /* XA_ORPHANS_H */
