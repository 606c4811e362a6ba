/*
 * ownrec.h - rmap-shaped ownership records and growable lists of them.
 *
 * Both sides of the reverse-map cross-check speak this one shape: the
 * forward side (what primary metadata says owns each block) and the rmapbt
 * side (what the reverse map says).  A list is sorted in rmapbt key order
 * (startblock, owner as unsigned, offset with the attr and bmbt flags) and
 * can be normalised: records the kernel's rmap code would have merged into
 * one (same owner and flags, abutting blocks, and for file data abutting
 * file offsets) are merged, so that two lists describing the same ownership
 * compare equal whatever history split or joined their records.
 */
#ifndef XA_OWNREC_H
#define XA_OWNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/problem.h"

struct xfmt_rmap_rec;

enum {
	XA_OWN_ATTR      = 1u << 0,  /* attr fork (XFS_RMAP_OFF_ATTR_FORK) */
	XA_OWN_BMBT      = 1u << 1,  /* bmbt block (XFS_RMAP_OFF_BMBT_BLOCK) */
	XA_OWN_UNWRITTEN = 1u << 2,  /* unwritten extent (XFS_RMAP_OFF_UNWRITTEN) */
};

/* Findings name owners with the same flags. */
_Static_assert((unsigned)XA_OWN_ATTR == (unsigned)XPROB_OWN_ATTR &&
	       (unsigned)XA_OWN_BMBT == (unsigned)XPROB_OWN_BMBT &&
	       (unsigned)XA_OWN_UNWRITTEN == (unsigned)XPROB_OWN_UNWRITTEN,
	       "ownrec flags are the findings' flags");

struct xa_ownrec {
	uint32_t agbno;
	uint32_t len;
	uint64_t owner;    /* inode number or XFS_RMAP_OWN_* */
	uint64_t offset;   /* file offset in blocks (0 for special owners, bmbt) */
	uint32_t flags;    /* XA_OWN_* */
};

struct xa_ownlist {
	struct xa_ownrec *recs;
	size_t            n, cap;
};

/* Append one record; 0, or XERR_NOMEM. */
int xa_ownlist_add(struct xa_ownlist *l, uint32_t agbno, uint32_t len, uint64_t owner,
		   uint64_t offset, uint32_t flags);

/* Free the records; the list is empty and reusable afterwards. */
void xa_ownlist_release(struct xa_ownlist *l);

/* Record from a decoded rmapbt record. */
void xa_ownrec_from_rmap(const struct xfmt_rmap_rec *r, struct xa_ownrec *out);

/* Sort in rmapbt key order (then length, then the unwritten flag). */
void xa_ownlist_sort(struct xa_ownlist *l);

/*
 * Merge records the kernel would keep as one (see the file comment) and
 * leave the list sorted in rmapbt key order.  Overlapping records are not
 * merged (they are either legitimate sharing between owners or damage the
 * comparison must see).
 */
void xa_ownlist_normalize(struct xa_ownlist *l);

/* Order of two records by the full comparison key used above. */
int xa_ownrec_cmp(const struct xa_ownrec *a, const struct xa_ownrec *b);

/* Is owner one of the special (non-inode) owners (bit 63 set)? */
static inline bool xa_owner_is_special(uint64_t owner)
{
	return (owner >> 63) != 0;
}

/* Short name of a special owner ("FS", "LOG", "AG", "INOBT", "INODES",
 * "REFC", "COW", "NULL", "UNKNOWN"), or NULL for inodes and unknown values. */
const char *xa_owner_name(uint64_t owner);

/* A static description of whose blocks a record names, for findings:
 * "OWN_AG", ..., "inode data", "inode attr fork", "inode bmbt", ... */
const char *xa_ownrec_kind(const struct xa_ownrec *r);

#endif /* XA_OWNREC_H */
