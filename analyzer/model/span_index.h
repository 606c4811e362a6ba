/*
 * span_index.h - which of a list of spans reach past a point: the lookup
 * behind "who owns this block" and "which dumped pieces hold these bytes".
 *
 * Spans are [start, end) sorted by start; the caller finds by a binary
 * search the spans that start before its point or range end, and asks the
 * index which of those end past its point.  A running maximum of the ends
 * would do when spans are short, but one long span (a log, a big extent)
 * early in the list would make every lookup walk back over everything
 * after it: a tree of maxima over the list prunes what cannot reach, so a
 * lookup costs O((hits + 1) log n) whatever the spans are.
 */
#ifndef XA_SPAN_INDEX_H
#define XA_SPAN_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct xa_span_index {
	uint64_t *max;     /* the tree: node k covers its children 2k, 2k + 1 */
	size_t    leaves;  /* a power of two >= n */
	size_t    n;
};

/* Build over the n ends (end[i] of span i, spans in start order);
 * 0 or XERR_NOMEM. */
int xa_span_index_build(struct xa_span_index *ix, const uint64_t *end, size_t n);

/*
 * The indices i < limit whose end is past point, ascending, at most max of
 * them, into out; returns how many.
 */
size_t xa_span_index_reaching(const struct xa_span_index *ix, size_t limit, uint64_t point,
			      size_t *out, size_t max);

/* The same over from <= i < limit: a caller that took max of them asks
 * again from the last index it got, plus one. */
size_t xa_span_index_reaching_from(const struct xa_span_index *ix, size_t from, size_t limit,
				   uint64_t point, size_t *out, size_t max);

void xa_span_index_release(struct xa_span_index *ix);

#endif /* XA_SPAN_INDEX_H */
