/*
 * sorted.c - a natural merge sort (see sorted.h): the runs already in
 * order are found in one pass, then merged two by two, back and forth
 * between the array and a buffer of its size, until one run is left.
 */
#include "analyzer/model/sorted.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Past this many runs per element the input is not "mostly in order":
 * qsort does as well and needs no run list. */
#define RUNS_PER_ELEMENT_MAX 16

/* Merge the runs a[0..m) and a[m..n) (elements of size bytes) into out. */
static void merge(const char *a, size_t m, size_t n, size_t size, char *out,
		  int (*cmp)(const void *, const void *))
{
	size_t i = 0, j = m;

	while (i < m && j < n) {
		/* Equal: the left one first (the merge is stable). */
		if (cmp(a + j * size, a + i * size) < 0) {
			memcpy(out, a + j * size, size);
			j++;
		} else {
			memcpy(out, a + i * size, size);
			i++;
		}
		out += size;
	}
	if (i < m)
		memcpy(out, a + i * size, (m - i) * size);
	else if (j < n)
		memcpy(out, a + j * size, (n - j) * size);
}

void xa_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base, *buf, *src, *dst;
	size_t *runs, nruns = 0, cap, first = 1;

	if (n < 2 || !size)
		return;
	/* One look: most arrays are in order already.  Where it stops, the
	 * first run ends: the runs are looked for from there. */
	while (first < n && cmp(a + (first - 1) * size, a + first * size) <= 0)
		first++;
	if (first == n)
		return;
	if (size > SIZE_MAX / n) {
		qsort(base, n, size, cmp);
		return;
	}
	cap = n / RUNS_PER_ELEMENT_MAX + 2;
	runs = malloc(cap * sizeof(*runs));
	buf = runs ? malloc(n * size) : NULL;
	if (!buf) {
		free(runs);
		qsort(base, n, size, cmp);
		return;
	}
	/* runs[k] is where run k starts; runs[nruns] == n. */
	runs[nruns++] = 0;
	for (size_t i = first; i < n; i++)
		if (cmp(a + (i - 1) * size, a + i * size) > 0) {
			if (nruns + 1 >= cap) {
				free(runs);
				free(buf);
				qsort(base, n, size, cmp);
				return;
			}
			runs[nruns++] = i;
		}
	runs[nruns] = n;
	src = a;
	dst = buf;
	while (nruns > 1) {
		size_t k = 0, out = 0;

		for (; k + 1 < nruns; k += 2) {
			size_t lo = runs[k], mid = runs[k + 1], hi = runs[k + 2];

			merge(src + lo * size, mid - lo, hi - lo, size, dst + lo * size, cmp);
			runs[out++] = lo;
		}
		if (k < nruns) {   /* an odd run out: carried over as it is */
			memcpy(dst + runs[k] * size, src + runs[k] * size, (runs[k + 1] - runs[k]) * size);
			runs[out++] = runs[k];
		}
		runs[out] = n;
		nruns = out;
		{
			char *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(runs);
	free(buf);
}
