/*
 * tree.h - depth-first walk of the directory tree below one directory, in
 * name order, for the views that need every path (ls -R, bodyfile, map).
 *
 * Memory is linear in the number of directories: each pending directory is
 * a small frame (inode, parent frame, name in one arena), and paths are
 * built on demand in one buffer that follows the walk.
 */
#ifndef XA_TREE_H
#define XA_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/messages.h"

struct xa_ctx;
struct xa_inode;
struct xa_tree_walker;

/* Valid during the callback only: the paths live in the walk's buffers. */
struct xa_tree_entry {
	const char            *path;    /* display path: each name escaped as
					   xa_escape_name does, "/"-joined */
	const char            *raw_path;/* the same with names as stored (a name
					   holding a NUL byte is escaped here too) */
	const char            *raw_name;/* the last component of raw_path */
	const uint8_t         *name;    /* raw name bytes */
	size_t                 namelen;
	uint64_t               ino;
	uint8_t                ftype;   /* as the entry stores it */
	const struct xa_inode *ip;      /* the entry's inode, NULL if unreadable */
	unsigned               depth;   /* 1 for entries of the starting directory */
	const struct xa_tree_walker *w; /* for xa_tree_path_cut */
};

/* Called per entry (".", ".." excluded); a negative return stops the walk. */
typedef int (*xa_tree_fn)(void *arg, const struct xa_tree_entry *e);

/*
 * Walk the tree below directory dir_ino, whose display path is dir_path
 * ("" for the root, so entries print as "/name"; it is used for raw paths
 * too).  With recursive false only the directory's own entries are
 * visited.  Directories are entered once (a second name for one is a
 * diagnostic on msgs, and not entered) and at most 4096 levels deep.
 * *incomplete is set when some directory could not be read completely (also
 * said on msgs).  Returns 0 or a negative xerr.
 */
int xa_tree_walk(struct xa_ctx *ctx, uint64_t dir_ino, const char *dir_path, bool recursive,
		 xa_tree_fn fn, void *arg, const struct xa_messages *msgs, bool *incomplete);

/*
 * The display path of e whose raw form is cut after raw_max bytes (a cut
 * name is escaped as far as it goes; separators stay "/").  *cut tells
 * whether anything was left off.  Returns a malloc'd string or NULL.
 */
char *xa_tree_path_cut(const struct xa_tree_entry *e, size_t raw_max, bool *cut);

#endif /* XA_TREE_H */
