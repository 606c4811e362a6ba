/*
 * ag_rebuild.h - rebuild every per-AG space and inode index of one AG from
 * what stays owned: bnobt, cntbt, inobt, finobt, rmapbt, refcountbt, the
 * AGFL, the AGF and the AGI.
 *
 * The caller says what the repaired filesystem keeps in the AG (every
 * extent that is not a block of one of the trees rebuilt here nor an AGFL
 * block: header sectors, log, inode chunks, file data, attr and bmbt
 * blocks, CoW staging extents) and which inode chunks exist with which
 * inodes free.  Everything else is free space.  The new trees' blocks are
 * taken from that free space, so the free-space trees, the AGFL and the
 * rmapbt all agree about them, and the AG counters follow.
 */
#ifndef XR_AG_REBUILD_H
#define XR_AG_REBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/check/ownrec.h"

struct xr_env;
struct xa_ichunk;

struct xr_ag_input {
	uint32_t                 agno;
	/* What stays owned, as rmap-shaped records (owner = inode or
	 * XFS_RMAP_OWN_*; flags XA_OWN_*).  Records may overlap only where
	 * file data is shared (reflink): the refcountbt is computed from that
	 * overlap.  Not sorted; the rebuild sorts a copy. */
	const struct xa_ownlist *kept;
	/* Inode chunks after repair, sorted by startino (count, freecount
	 * and the free mask already agree with the repaired inode cores). */
	const struct xa_ichunk  *chunks;
	size_t                   nchunks;
};

/* The new AG's counters, for the superblock's. */
struct xr_ag_result {
	uint64_t freeblks;     /* agf_freeblks */
	uint64_t flcount;      /* agf_flcount */
	uint64_t btreeblks;    /* agf_btreeblks: bnobt, cntbt, rmapbt blocks beyond
	                          their roots (also without lazy counters, where the
	                          AGF keeps 0 but fdblocks still counts them) */
	uint64_t icount;       /* agi_count */
	uint64_t ifree;        /* agi_freecount */
};

/*
 * Plan the new trees, AGFL, AGF and AGI of one AG into env->plan under
 * action.  Returns 0, XERR_NOMEM, or XERR_UNSUPPORTED when the AG cannot be
 * rebuilt (not enough free blocks for the new trees, or input that
 * contradicts the geometry); nothing is planned for the AG then.
 */
int xr_ag_rebuild(const struct xr_env *env, const struct xr_ag_input *in, int action,
		  struct xr_ag_result *out);

#endif /* XR_AG_REBUILD_H */
