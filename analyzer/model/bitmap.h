/*
 * bitmap.h - a plain bit set over [0, nbits), used to record which blocks of
 * an AG some metadata has already claimed.  Sized by the caller from the
 * geometry clipped to the image, never from an unchecked on-disk count.
 */
#ifndef XA_BITMAP_H
#define XA_BITMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct xa_bitmap {
	uint64_t *words;
	uint64_t  nbits;
};

/* Allocate an all-clear bitmap; returns 0 or -1 when out of memory. */
static inline int xa_bitmap_init(struct xa_bitmap *bm, uint64_t nbits)
{
	bm->nbits = nbits;
	bm->words = calloc((size_t)((nbits + 63) / 64) + 1, sizeof(uint64_t));
	return bm->words ? 0 : -1;
}

static inline void xa_bitmap_release(struct xa_bitmap *bm)
{
	free(bm->words);
	bm->words = NULL;
	bm->nbits = 0;
}

/* Test bit i; bits outside the map read as clear. */
static inline bool xa_bitmap_test(const struct xa_bitmap *bm, uint64_t i)
{
	if (!bm->words || i >= bm->nbits)
		return false;
	return (bm->words[i / 64] >> (i % 64)) & 1;
}

/* Set bit i and return its old value; bits outside the map are ignored. */
static inline bool xa_bitmap_set(struct xa_bitmap *bm, uint64_t i)
{
	bool old;

	if (!bm->words || i >= bm->nbits)
		return false;
	old = (bm->words[i / 64] >> (i % 64)) & 1;
	bm->words[i / 64] |= 1ull << (i % 64);
	return old;
}

/* Clear bit i; bits outside the map are ignored. */
static inline void xa_bitmap_clear(struct xa_bitmap *bm, uint64_t i)
{
	if (bm->words && i < bm->nbits)
		bm->words[i / 64] &= ~(1ull << (i % 64));
}

#endif /* XA_BITMAP_H */
