/*
 * paths.h - every path that names a set of inodes, found with one walk of
 * the directory tree: the inode-to-names query (`ncheck`), the names of a
 * block's owner (`owner`) and of the owners drawn on a map.
 *
 * Memory: one string per path found for a wanted inode, bounded by
 * max_per_inode per inode; the walk itself is linear in directories.
 */
#ifndef XA_PATHS_H
#define XA_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/messages.h"

struct xa_ctx;
struct xa_u64set;

struct xa_path {
	uint64_t ino;
	char    *path;   /* display path (names escaped as ls prints them),
			    "..." appended where it was cut */
	size_t   order;  /* rank in the walk */
};

struct xa_paths {
	struct xa_path *v;     /* sorted by inode, then in walk (name) order */
	size_t          n, cap;
	bool            incomplete;  /* some directory could not be read whole:
					an inode without a path may still have one */
};

/*
 * Find the paths of the inodes in want below the root: every name of each
 * (hard links as separate paths), at most max_per_inode of them (0: no
 * limit), each cut after max_bytes raw bytes (0: no limit).  The root's path
 * is "/".  Diagnostics of the walk go to msgs.  Returns 0 or XERR_NOMEM; a
 * namespace that cannot be walked is not an error: its inodes have no path
 * and out->incomplete is set.
 */
int xa_paths_find(struct xa_ctx *ctx, const struct xa_u64set *want, unsigned max_per_inode,
		  size_t max_bytes, const struct xa_messages *msgs, struct xa_paths *out);

/* The paths of ino: *count of them from the returned index (count 0 if none). */
size_t xa_paths_of(const struct xa_paths *p, uint64_t ino, size_t *count);

void xa_paths_release(struct xa_paths *p);

#endif /* XA_PATHS_H */
