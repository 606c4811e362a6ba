/*
 * sorted.h - a sort for arrays that are mostly in order already.
 *
 * The passes collect most lists nearly in the order they sort them to:
 * inodes in inobt order, directory names in address order, a file's
 * mappings owner by owner with the fixed metadata after them.  glibc's
 * qsort is a merge sort that spends n log n comparisons whatever the input;
 * on the million-inode image those sorts were a sixth of a check.  xa_sort
 * finds the runs already in order and merges only those: one linear look
 * for a sorted array, about n log(runs) comparisons for a nearly sorted
 * one, and qsort itself for an array with many short runs (or when the
 * merge's buffer cannot be had).  The result is sorted by cmp; among equal
 * elements the order may differ from qsort's, which any two qsort
 * implementations may too: callers that print ties compare every printed
 * field.
 */
#ifndef XA_SORTED_H
#define XA_SORTED_H

#include <stddef.h>

void xa_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif /* XA_SORTED_H */
