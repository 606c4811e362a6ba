/*
 * crosslink.h - blocks that two owners claim at once (cross-links): found
 * in one AG's ownership records, each conflict handed over with both
 * claimants, and who keeps the blocks decided by a rank the caller gives.
 *
 * The check (xa_check_crosslinks) reports every conflict as ownCrossLinked;
 * the repair planner (reconstruct/crosslink.c) runs the same search with a
 * rank built from more evidence and moves the losers' mappings.
 *
 * Legitimate sharing: on a reflink filesystem file data may be shared
 * between data forks (of several files, or of one file at two offsets),
 * where the refcount btree says the extent is shared.  Nothing else may
 * share a block: not an attr fork, not a bmbt block, not a special owner.
 *
 * Cost: records that overlap nothing cost one comparison each (the search
 * walks the sorted list once and only looks closer at clusters of
 * overlapping records); inside a cluster the work is bounded by a budget
 * proportional to the list, so a hostile fork that maps the whole AG again
 * and again cannot make the search quadratic.
 */
#ifndef XA_CROSSLINK_H
#define XA_CROSSLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/check/ownrec.h"

struct xa_ctx;

/* One conflict: blocks [agbno, agbno + len) held by winner, claimed by loser too. */
struct xa_xlink {
	uint32_t                agbno, len;
	const struct xa_ownrec *loser;
	const struct xa_ownrec *winner;
};

struct xa_xlink_ops {
	/* Rank of a claim: the lowest keeps the blocks; ties go to the record
	 * earlier in the list. */
	uint64_t (*rank)(void *arg, const struct xa_ownrec *r);
	/* May a and b both hold blocks [agbno, agbno + len)?  NULL: never. */
	bool (*may_share)(void *arg, const struct xa_ownrec *a, const struct xa_ownrec *b,
			  uint32_t agbno, uint32_t len);
	/* One conflict; a non-zero return stops the search and is returned. */
	int (*conflict)(void *arg, const struct xa_xlink *x);
	void *arg;
};

/* xa_xlink_find's answer when the work budget ran out (hostile input). */
#define XA_XLINK_TRUNCATED 1

/*
 * Find every block of the n records recs (sorted by agbno; other lists
 * give incomplete answers, never wrong memory accesses) that two of them
 * claim, and call ops->conflict once per run of blocks a loser shares
 * with one winner.  Returns 0, XA_XLINK_TRUNCATED (the search stopped
 * early), XERR_NOMEM, or what conflict returned.
 */
int xa_xlink_find(const struct xa_ownrec *recs, size_t n, const struct xa_xlink_ops *ops);

/*
 * What says a data extent is shared, for one AG of a reflink filesystem:
 * the refcount btree's records (owner holds the share count) when the tree
 * was read completely, else the rmapbt's records (sorted by agbno) naming
 * both owners when that tree was read completely, else nothing (then
 * sharing between data forks is given the benefit of the doubt).
 */
struct xa_xlink_ev {
	bool                     reflink;
	const struct xa_ownlist *refc;
	bool                     refc_ok;
	const struct xa_ownlist *rmap;
	bool                     rmap_ok;
	/* built on first use: the refcount records' union, sorted */
	bool                     cover_built;
	struct xa_ownrec        *cover;
	size_t                   ncover;
};

/* May data-fork claims a and b share [agbno, agbno + len) by ev's word?
 * Never for attr forks, bmbt blocks and special owners. */
bool xa_xlink_shared(struct xa_xlink_ev *ev, const struct xa_ownrec *a,
		     const struct xa_ownrec *b, uint32_t agbno, uint32_t len);

/* Does the rmapbt list (sorted by agbno) name r's owner, in r's fork, for
 * some block of [agbno, agbno + len)? */
bool xa_xlink_rmap_names(const struct xa_ownlist *rmap, const struct xa_ownrec *r,
			 uint32_t agbno, uint32_t len);

/* Free what ev built. */
void xa_xlink_ev_release(struct xa_xlink_ev *ev);

/*
 * The check: report every cross-link of AG agno's forward list fwd
 * (sorted by agbno) as ownCrossLinked, at most XA_XLINK_FINDINGS_AG per AG
 * and XA_XLINK_FINDINGS_OWNER per losing owner.  Two special owners on one
 * block are left to the walks that claim AG metadata (btSharedBlock,
 * ichunkOverlapsMetadata), and one fork mapping repeated is a bmapOverlap.
 * Returns 0 or XERR_NOMEM.
 */
#define XA_XLINK_FINDINGS_AG    256
#define XA_XLINK_FINDINGS_OWNER 16
int xa_check_crosslinks(struct xa_ctx *ctx, uint32_t agno, const struct xa_ownlist *fwd,
			struct xa_xlink_ev *ev);

#endif /* XA_CROSSLINK_H */
