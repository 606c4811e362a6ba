/*
 * span_index.c - a tree of maxima over span ends (span_index.h).
 */
#include "analyzer/model/span_index.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"

int xa_span_index_build(struct xa_span_index *ix, const uint64_t *end, size_t n)
{
	size_t leaves = 1;

	memset(ix, 0, sizeof(*ix));
	if (!n)
		return 0;
	while (leaves < n) {
		if (leaves > SIZE_MAX / 4 / sizeof(*ix->max))
			return XERR_NOMEM;
		leaves *= 2;
	}
	ix->max = calloc(2 * leaves, sizeof(*ix->max));
	if (!ix->max)
		return XERR_NOMEM;
	ix->leaves = leaves;
	ix->n = n;
	memcpy(ix->max + leaves, end, n * sizeof(*end));
	for (size_t k = leaves - 1; k > 0; k--)
		ix->max[k] = ix->max[2 * k] > ix->max[2 * k + 1] ? ix->max[2 * k] : ix->max[2 * k + 1];
	return 0;
}

size_t xa_span_index_reaching(const struct xa_span_index *ix, size_t limit, uint64_t point,
			      size_t *out, size_t max)
{
	return xa_span_index_reaching_from(ix, 0, limit, point, out, max);
}

size_t xa_span_index_reaching_from(const struct xa_span_index *ix, size_t from, size_t limit,
				   uint64_t point, size_t *out, size_t max)
{
	/* depth-first, left to right; a node is (index, first leaf, leaves) */
	struct node { size_t k, lo, len; } stack[128];
	size_t sp = 0, got = 0;

	if (!ix->n || !limit || !max)
		return 0;
	if (limit > ix->n)
		limit = ix->n;
	stack[sp++] = (struct node){ 1, 0, ix->leaves };
	while (sp && got < max) {
		size_t k = stack[--sp].k, lo = stack[sp].lo, len = stack[sp].len;

		if (lo >= limit || lo + len <= from || ix->max[k] <= point)
			continue;
		if (len == 1) {
			out[got++] = lo;
			continue;
		}
		/* right first on the stack, so the left is visited first */
		stack[sp++] = (struct node){ 2 * k + 1, lo + len / 2, len / 2 };
		stack[sp++] = (struct node){ 2 * k, lo, len / 2 };
	}
	return got;
}

void xa_span_index_release(struct xa_span_index *ix)
{
	free(ix->max);
	memset(ix, 0, sizeof(*ix));
}
