/*
 * bitmap.h - a bit set over [0, nbits), used to record which blocks of an
 * AG some metadata has already claimed, and which blocks a btree walk has
 * visited.  Sized by the caller from the geometry clipped to the image,
 * never from an unchecked on-disk count.
 *
 * Two levels: a table of leaves of XA_BITMAP_LEAF_BITS bits, each leaf
 * allocated on the first bit set in it.  A flat map cost a whole AG's bits
 * (8 MiB for a 256 GiB AG of 4 KiB blocks) per AG and per btree walk, all
 * cleared before use, though metadata touches few of those blocks: on a
 * 100 TiB filesystem of 400 AGs, clearing them was a sixth of a check.
 * Memory is now the table (a pointer per 32,768 bits) plus a 4 KiB leaf
 * per region some bit was set in.
 */
#ifndef XA_BITMAP_H
#define XA_BITMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define XA_BITMAP_LEAF_BITS  32768u                      /* 4 KiB of bits */
#define XA_BITMAP_LEAF_WORDS (XA_BITMAP_LEAF_BITS / 64u)

struct xa_bitmap {
	uint64_t **leaves;   /* NULL: no bit set there yet */
	uint64_t   nleaves;
	uint64_t   nbits;
	bool       oom;      /* a leaf could not be had: a set was lost */
};

/* Make an all-clear bitmap; returns 0 or -1 when out of memory. */
static inline int xa_bitmap_init(struct xa_bitmap *bm, uint64_t nbits)
{
	bm->nbits = nbits;
	bm->oom = false;
	bm->nleaves = (nbits + XA_BITMAP_LEAF_BITS - 1) / XA_BITMAP_LEAF_BITS;
	bm->leaves = calloc((size_t)bm->nleaves + 1, sizeof(*bm->leaves));
	return bm->leaves ? 0 : -1;
}

static inline void xa_bitmap_release(struct xa_bitmap *bm)
{
	for (uint64_t i = 0; bm->leaves && i < bm->nleaves; i++)
		free(bm->leaves[i]);
	free(bm->leaves);
	bm->leaves = NULL;
	bm->nleaves = 0;
	bm->nbits = 0;
}

/* Test bit i; bits outside the map read as clear. */
static inline bool xa_bitmap_test(const struct xa_bitmap *bm, uint64_t i)
{
	const uint64_t *leaf;

	if (!bm->leaves || i >= bm->nbits)
		return false;
	leaf = bm->leaves[i / XA_BITMAP_LEAF_BITS];
	if (!leaf)
		return false;
	i %= XA_BITMAP_LEAF_BITS;
	return (leaf[i / 64] >> (i % 64)) & 1;
}

/* Set bit i and return its old value; bits outside the map are ignored. */
static inline bool xa_bitmap_set(struct xa_bitmap *bm, uint64_t i)
{
	uint64_t **slot, *leaf;
	bool old;

	if (!bm->leaves || i >= bm->nbits)
		return false;
	slot = &bm->leaves[i / XA_BITMAP_LEAF_BITS];
	if (!*slot) {
		*slot = calloc(XA_BITMAP_LEAF_WORDS, sizeof(uint64_t));
		if (!*slot) {
			bm->oom = true;
			return false;
		}
	}
	leaf = *slot;
	i %= XA_BITMAP_LEAF_BITS;
	old = (leaf[i / 64] >> (i % 64)) & 1;
	leaf[i / 64] |= 1ull << (i % 64);
	return old;
}

/* Clear bit i; bits outside the map are ignored. */
static inline void xa_bitmap_clear(struct xa_bitmap *bm, uint64_t i)
{
	uint64_t *leaf;

	if (!bm->leaves || i >= bm->nbits)
		return;
	leaf = bm->leaves[i / XA_BITMAP_LEAF_BITS];
	if (leaf) {
		i %= XA_BITMAP_LEAF_BITS;
		leaf[i / 64] &= ~(1ull << (i % 64));
	}
}

#endif /* XA_BITMAP_H */
