/*
 * sorted.h - qsort, skipped when the array is already in order.
 *
 * The passes collect most lists in the order they sort them to (inodes in
 * inobt order, directory names in address order, owners in block order),
 * and glibc's qsort is a merge sort that spends n log n comparisons on an
 * array that is already sorted: on the million-inode image those sorts were
 * a sixth of a check.  One linear look first makes the common case O(n).
 * An array with equal neighbours stays as it was, which any qsort result
 * may also be: callers that print ties compare every printed field.
 */
#ifndef XA_SORTED_H
#define XA_SORTED_H

#include <stddef.h>
#include <stdlib.h>

static inline void xa_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	const char *p = base;

	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0) {
			qsort(base, n, size, cmp);
			return;
		}
}

#endif /* XA_SORTED_H */
