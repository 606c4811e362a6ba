/*
 * dir.h - reading directories and resolving paths, for the namespace pass
 * and the file views.
 *
 * A directory's live entries come from its shortform fork or from the data
 * blocks of its data segment; the leaf and free segments are indexes over
 * those and are not needed to list it.  "." and ".." are always yielded
 * first ("." as the directory itself, ".." as stored).
 */
#ifndef XA_DIR_H
#define XA_DIR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/findings/findings.h"
#include "formats/dir2.h"

struct xa_ctx;
struct xa_inode;

/* Called per live entry; a negative return stops the walk and is returned. */
typedef int (*xa_dirent_fn)(void *arg, const struct xfmt_dirent *de);

/*
 * Walk the live entries of directory dir.  With verify non-NULL, every
 * directory block read is verified and its findings go to verify's sink with
 * the location set per block.  *complete (may be NULL) is cleared when some
 * part of the directory could not be read or parsed.  Returns 0, or a
 * negative xerr (memory, or the callback's).
 */
int xa_dir_iterate(struct xa_ctx *ctx, const struct xa_inode *dir, struct xa_loc_sink *verify,
		   xa_dirent_fn fn, void *arg, bool *complete);

struct xa_extents;
struct xa_u64set;

/* One live entry copied out of a directory block, its name with it. */
struct xa_dirent_copy {
	uint64_t ino;
	uint8_t  ftype;
	uint8_t  namelen;
	uint8_t  name[256];
};

/* The entries of one directory, as xa_dirent_list_add collects them. */
struct xa_dirent_list {
	struct xa_dirent_copy *v;
	size_t                 n, cap;
};

/*
 * An xa_dirent_fn for xa_dir_iterate: appends the entry to the
 * struct xa_dirent_list at arg, "." and ".." left out.  XERR_NOMEM when
 * memory runs out (the walk stops).
 */
int xa_dirent_list_add(void *arg, const struct xfmt_dirent *de);

/* Free what a list holds; it is empty again. */
void xa_dirent_list_release(struct xa_dirent_list *l);

/* xa_dir_read_block: one of the block's filesystem blocks was read already. */
#define XA_DIRBLOCK_SEEN 1

/*
 * Assemble the directory block at fork block da of mapping ex into blk
 * (dirblksize bytes); *byte is the image byte of its first filesystem
 * block.  A hostile bmbt can map one physical block at many logical
 * offsets: with seen non-NULL (the filesystem blocks already read for this
 * directory), a directory block that reuses any of them is not read again
 * (XA_DIRBLOCK_SEEN), so the work follows the blocks, not the mappings.
 * Returns 0, XA_DIRBLOCK_SEEN, XERR_RANGE (part of it is a hole, unwritten
 * or outside the filesystem; nothing is read then), XERR_NOMEM or a read
 * error.
 */
int xa_dir_read_block(struct xa_ctx *ctx, const struct xa_extents *ex, uint64_t da,
		      uint8_t *blk, uint64_t *byte, struct xa_u64set *seen);

/* Called per recovered deleted entry (see formats/dir2_carve.h). */
struct xfmt_dir2_carved;
typedef int (*xa_deleted_fn)(void *arg, const struct xfmt_dir2_carved *c);

/*
 * Walk the names of deleted entries still present in the unused space of
 * directory dir's data blocks, or in the literal area past a shortform
 * directory's size (formats/dir2_carve.h).  Returns 0 or a negative xerr.
 */
int xa_dir_deleted(struct xa_ctx *ctx, const struct xa_inode *dir, xa_deleted_fn fn, void *arg);

/*
 * Find name (len bytes) in directory dir; 0 and *ino on success, XERR_RANGE
 * when there is no such entry.
 */
int xa_dir_lookup(struct xa_ctx *ctx, const struct xa_inode *dir, const uint8_t *name,
		  size_t len, uint64_t *ino);

/*
 * Resolve an absolute path from the root directory, component by component
 * ("." and ".." as the directories store them; symlinks are not followed:
 * they belong to the image, not to the host).  Returns 0 and *ino, or
 * XERR_RANGE (a component is missing) / XERR_USAGE (a component that should
 * be a directory is not one, or the path is not absolute) / XERR_IO (an
 * inode or directory on the way cannot be read: damage, or an image cut
 * short), with the failing component's text in err.
 */
int xa_path_resolve(struct xa_ctx *ctx, const char *path, uint64_t *ino, char *err, size_t errlen);

/*
 * The next component of the path at *p, slashes before it skipped: its
 * start in *name and its length in *len, *p left just after it.  Returns
 * false when no component is left.  Every walk of a typed path splits it so.
 */
static inline bool xa_path_next(const char **p, const char **name, size_t *len)
{
	const char *s = *p, *end;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	end = strchr(s, '/');
	*name = s;
	*len = end ? (size_t)(end - s) : strlen(s);
	*p = s + *len;
	return true;
}

#endif /* XA_DIR_H */
