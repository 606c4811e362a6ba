/*
 * grow.h - the one way arrays grow in the model and the planner.
 */
#ifndef XA_GROW_H
#define XA_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyzer/errors.h"

/*
 * Make *v (elements of size bytes, *cap of them) hold at least need:
 * capacity doubles from 64.  Returns 0, or XERR_NOMEM (also when the byte
 * count would overflow); *v and *cap are unchanged on failure.
 */
static inline int xa_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return XERR_NOMEM;
		ncap *= 2;
	}
	if (size && ncap > SIZE_MAX / size)
		return XERR_NOMEM;
	n = realloc(*v, ncap * size);
	if (!n)
		return XERR_NOMEM;
	*v = n;
	*cap = ncap;
	return 0;
}

#endif /* XA_GROW_H */
