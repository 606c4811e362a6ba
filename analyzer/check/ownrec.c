/*
 * ownrec.c - ownership record lists: growth, rmapbt key order, and the
 * merge rules of the kernel's rmap code.
 *
 * Why normalise both sides instead of trusting the on-disk split: the
 * kernel merges a new mapping with its neighbours when the owner and flags
 * match and the blocks (and, for file data, the file offsets) abut; special
 * owners and bmbt blocks merge on block contiguity alone.  The forward side
 * is built from pieces (one btree block at a time, one extent at a time), so
 * it must be merged the same way; merging the rmapbt side too makes the
 * comparison independent of whether a record was ever left unmerged.
 */
#include "analyzer/check/ownrec.h"

#include <stdlib.h>

#include "analyzer/errors.h"
#include "analyzer/findings/findings.h"
#include "analyzer/model/sorted.h"
#include "formats/btrec.h"

int xa_ownlist_add(struct xa_ownlist *l, uint32_t agbno, uint32_t len, uint64_t owner,
		   uint64_t offset, uint32_t flags)
{
	struct xa_ownrec *r;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 256;
		struct xa_ownrec *n = realloc(l->recs, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		l->recs = n;
		l->cap = ncap;
	}
	r = &l->recs[l->n++];
	r->agbno = agbno;
	r->len = len;
	r->owner = owner;
	r->offset = offset;
	r->flags = flags;
	return 0;
}

void xa_ownlist_release(struct xa_ownlist *l)
{
	free(l->recs);
	l->recs = NULL;
	l->n = l->cap = 0;
}

void xa_ownrec_from_rmap(const struct xfmt_rmap_rec *r, struct xa_ownrec *out)
{
	out->agbno = r->startblock;
	out->len = r->blockcount;
	out->owner = r->owner;
	out->offset = r->offset;
	out->flags = (r->attr_fork ? XA_OWN_ATTR : 0) | (r->bmbt_block ? XA_OWN_BMBT : 0) |
		     (r->unwritten ? XA_OWN_UNWRITTEN : 0);
}

/* The rmapbt key's offset: the attr and bmbt flags sort above the offset. */
static uint64_t key_offset(const struct xa_ownrec *r)
{
	return r->offset | ((r->flags & XA_OWN_ATTR) ? XFS_RMAP_OFF_ATTR_FORK : 0) |
	       ((r->flags & XA_OWN_BMBT) ? XFS_RMAP_OFF_BMBT_BLOCK : 0);
}

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

int xa_ownrec_cmp(const struct xa_ownrec *a, const struct xa_ownrec *b)
{
	CMP(a->agbno, b->agbno);
	CMP(a->owner, b->owner);
	CMP(key_offset(a), key_offset(b));
	CMP(a->len, b->len);
	CMP(a->flags, b->flags);
	return 0;
}

static int cmp_key(const void *x, const void *y)
{
	return xa_ownrec_cmp(x, y);
}

void xa_ownlist_sort(struct xa_ownlist *l)
{
	xa_sort(l->recs, l->n, sizeof(*l->recs), cmp_key);
}

/* File data merges only when the offsets abut too: the same block-minus-
 * offset "diagonal".  Special owners and bmbt blocks ignore the offset. */
static bool offset_matters(const struct xa_ownrec *r)
{
	return !xa_owner_is_special(r->owner) && !(r->flags & XA_OWN_BMBT);
}

static uint64_t diagonal(const struct xa_ownrec *r)
{
	return offset_matters(r) ? (uint64_t)r->agbno - r->offset : 0;
}

static int cmp_merge(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	CMP(a->owner, b->owner);
	CMP(a->flags, b->flags);
	CMP(diagonal(a), diagonal(b));
	CMP(a->agbno, b->agbno);
	CMP(a->len, b->len);
	return 0;
}

void xa_ownlist_normalize(struct xa_ownlist *l)
{
	size_t k = 0;

	if (l->n < 2)
		return;
	xa_sort(l->recs, l->n, sizeof(*l->recs), cmp_merge);
	for (size_t i = 0; i < l->n; i++) {
		struct xa_ownrec *cur = &l->recs[i];

		if (k > 0) {
			struct xa_ownrec *last = &l->recs[k - 1];

			if (last->owner == cur->owner && last->flags == cur->flags &&
			    diagonal(last) == diagonal(cur) &&
			    (uint64_t)last->agbno + last->len == cur->agbno &&
			    (uint64_t)last->len + cur->len <= UINT32_MAX) {
				last->len += cur->len;
				continue;
			}
		}
		l->recs[k++] = *cur;
	}
	l->n = k;
	xa_ownlist_sort(l);
}

const char *xa_owner_name(uint64_t owner)
{
	return xa_owner_label(owner);
}

const char *xa_ownrec_kind(const struct xa_ownrec *r)
{
	switch (r->owner) {
	case XFS_RMAP_OWN_FS:      return "OWN_FS";
	case XFS_RMAP_OWN_LOG:     return "OWN_LOG";
	case XFS_RMAP_OWN_AG:      return "OWN_AG";
	case XFS_RMAP_OWN_INOBT:   return "OWN_INOBT";
	case XFS_RMAP_OWN_INODES:  return "OWN_INODES";
	case XFS_RMAP_OWN_REFC:    return "OWN_REFC";
	case XFS_RMAP_OWN_COW:     return "OWN_COW";
	default:
		break;
	}
	if (xa_owner_is_special(r->owner))
		return "an invalid special owner";
	switch (r->flags & (XA_OWN_ATTR | XA_OWN_BMBT)) {
	case XA_OWN_BMBT:               return "inode's data-fork bmbt";
	case XA_OWN_ATTR | XA_OWN_BMBT: return "inode's attr-fork bmbt";
	case XA_OWN_ATTR:               return "inode's attr fork";
	default:
		return (r->flags & XA_OWN_UNWRITTEN) ? "inode's data fork (unwritten)"
						     : "inode's data fork";
	}
}
