/*
 * rmap_owners.h - the reverse map's records by owner, and whether a range
 * of an AG is mapped by someone else: the two questions repair asks of the
 * rmapbt for every file and directory it brings back.
 *
 * Asked by scanning every record of every AG, each question cost the whole
 * reverse map: a repair bringing back thousands of files (a zeroed inode
 * chunk, sectors lost across the inode region) spent most of its time
 * there.  The index is built once on the first need, from the lists the
 * check kept (they do not change while repair plans), over the AGs whose
 * rmapbt was walked.  An owner's records come in the order a scan met them
 * (AG, then position in the AG's list), so answers are the scan's.
 */
#ifndef XR_RMAP_OWNERS_H
#define XR_RMAP_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/span_index.h"

struct xa_ctx;
struct xa_ownrec;

struct rp_owner_ref {
	uint64_t owner;
	uint32_t agno;
	uint32_t idx;     /* in xa_own_rmap(ctx, agno) */
};

struct rp_ag_spans {
	uint32_t            *by_start;  /* record indices, by agbno */
	uint64_t            *start;     /* their agbno, for the binary search */
	size_t               n;
	struct xa_span_index ends;      /* over their ends, in that order */
};

struct rp_rmap_owners {
	bool                 built;
	struct rp_owner_ref *refs;   /* every record of a walked AG, by owner */
	size_t               nrefs;
	struct rp_ag_spans  *ags;    /* ctx->nags of them */
	uint32_t             nags;
};

/* Build it (once; later calls return 0 at once).  0 or XERR_NOMEM. */
int rp_rmap_owners_build(struct rp_rmap_owners *ix, const struct xa_ctx *ctx);

/* The records of owner: *first is the index of its first ref; returns how
 * many (0 when none). */
size_t rp_rmap_owner_refs(const struct rp_rmap_owners *ix, uint64_t owner, size_t *first);

/* The record a ref names. */
const struct xa_ownrec *rp_rmap_ref_rec(const struct xa_ctx *ctx, const struct rp_owner_ref *r);

/* Whether a record of AG agno owned by an inode other than owner (not a
 * special owner) overlaps [agbno, agbno + len). */
bool rp_rmap_shared_with_other(const struct rp_rmap_owners *ix, const struct xa_ctx *ctx,
			       uint32_t agno, uint32_t agbno, uint32_t len, uint64_t owner);

void rp_rmap_owners_release(struct rp_rmap_owners *ix);

#endif /* XR_RMAP_OWNERS_H */
