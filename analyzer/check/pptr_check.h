/*
 * pptr_check.h - parent pointers checked both ways against the directory
 * tree (filesystems with parent pointers).
 *
 * Every entry the namespace walk reads must have its parent pointer in the
 * inode it names (the directory, the directory's generation, the name), and
 * every parent pointer of a reached inode must be such an entry.  Names are
 * compared by a 64-bit hash of the name and the directory, so the walk
 * keeps 32 bytes per entry whatever the names' lengths.
 */
#ifndef XA_PPTR_CHECK_H
#define XA_PPTR_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct xa_ctx;
struct xa_u64set;

struct xa_pptr_rec {
	uint64_t child;
	uint64_t parent;
	uint64_t hash;     /* of the name, with the parent mixed in */
	uint32_t gen;      /* the directory's generation (entries) or the one named */
	uint32_t off;      /* entries: the entry's offset in its directory */
};

struct xa_pptr_list {
	struct xa_pptr_rec *v;
	size_t              n, cap;
};

/* The namespace walk read entry (name, len) of directory parent, whose
 * generation is gen, naming child at offset off.  0 or XERR_NOMEM. */
int xa_pptr_note_entry(struct xa_pptr_list *l, uint64_t parent, uint32_t gen, uint64_t child,
		       const uint8_t *name, size_t len, uint32_t off);

/*
 * Compare the entries noted (l, sorted here) with the parent pointers of
 * every reached inode: nsParentMissing for an entry without its pointer,
 * nsParentBadGen for a pointer whose generation is not the directory's,
 * nsParentDangling for a pointer no entry matches (not judged where the
 * directory it names is in unread, a set of directories that could not be
 * read whole).  An inode whose attributes cannot all be read is judged on
 * nothing.  Returns 0 or XERR_NOMEM.
 */
int xa_pptr_check(struct xa_ctx *ctx, struct xa_pptr_list *l, const struct xa_u64set *unread);

void xa_pptr_list_release(struct xa_pptr_list *l);

#endif /* XA_PPTR_CHECK_H */
