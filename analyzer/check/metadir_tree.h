/*
 * metadir_tree.h - the metadata directory tree (filesystems with the
 * metadir feature, xfsprogs 6.13 and later) checked from its root.
 *
 * The kernel finds its metadata files (realtime group bitmaps, summaries
 * and btrees, quota files) by path from sb_metadirino, so that tree must be
 * whole: its root an allocated directory marked as metadata; every entry
 * names an allocated metadata file of the type the entry says, once; ".."
 * names the parent (the root's names the root); link counts are 2 plus the
 * subdirectories for a directory, 1 for a file; every metadata file is
 * named.  The user's tree is the namespace pass's; the two never share an
 * inode.
 */
#ifndef XA_METADIR_TREE_H
#define XA_METADIR_TREE_H

struct xa_ctx;

/* Walk the tree and report what breaks the rules above (nsMetadir*, and
 * the format findings of its directories' blocks).  0 or XERR_NOMEM. */
int xa_metadir_tree_check(struct xa_ctx *ctx);

/* Where the tree's root is when sb_metadirino names none: the inode after
 * the user's root (where mkfs puts it, as xfs_repair computes it) when that
 * is a metadata directory, else a metadata directory whose ".." names
 * itself; 0 when neither is. */
#include <stdint.h>
uint64_t xa_metadir_root_guess(struct xa_ctx *ctx);

#endif /* XA_METADIR_TREE_H */
