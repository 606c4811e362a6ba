/*
 * pptr_path.h - where an inode was, by its parent pointers (filesystems
 * that have them): its name in its directory, that directory's name in
 * its own, up to the root.  What `ls --orphans` says of an inode no path
 * reaches any more.
 */
#ifndef XA_PPTR_PATH_H
#define XA_PPTR_PATH_H

#include <stddef.h>
#include <stdint.h>

struct xa_ctx;

/* A buffer for xa_pptr_path that holds most paths whole. */
#define XA_PPTR_PATH_MAX 1024

/*
 * The path the parent pointers of ino give (its first one at each step),
 * escaped as ls prints names, into buf (len bytes, NUL-terminated, cut with
 * "..." when too long).  A step whose directory carries no parent pointer
 * starts the path at "<inode N>" instead of "/".  Returns 1 when a path was
 * made, 0 when ino carries no parent pointer (or the filesystem has none),
 * or XERR_NOMEM.  At most 256 steps: a loop of parent pointers ends there.
 */
int xa_pptr_path(struct xa_ctx *ctx, uint64_t ino, char *buf, size_t len);

#endif /* XA_PPTR_PATH_H */
