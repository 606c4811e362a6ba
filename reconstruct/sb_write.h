/*
 * sb_write.h - plan the superblocks of the repaired filesystem: the primary,
 * rebuilt from the superblock whose geometry the analyzer chose, and the
 * secondaries, rewritten from that primary the way xfs_repair rewrites a bad
 * copy.
 *
 * The primary takes everything from env->sb (the primary itself, or the
 * secondary the vote chose when the primary was unusable) except what a
 * repair recomputes: the summary counters the caller counted, inprogress 0,
 * shared_vn 0, bad_features2 = features2, NEEDSREPAIR cleared, the NLINK
 * version bit and whatever bits the caller says are in use, and, when it was
 * built from a secondary, the system inodes a secondary may lack and an LSN.
 * A secondary is that primary with inprogress 1, zero counters, zero quota
 * flags and misc flags, quota inodes other than null zeroed, and NEEDSREPAIR
 * clear (xfsprogs repair/agheader.c: verify_set_agheader, secondary_sb_whack).
 */
#ifndef XR_SB_WRITE_H
#define XR_SB_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/sb.h"
#include "reconstruct/env.h"

/* What the caller counted, and what it knows that a secondary does not. */
struct xr_sb_counts {
	uint64_t icount;        /* allocated inodes (sum of agi_count) */
	uint64_t ifree;         /* free inodes in allocated chunks */
	uint64_t fdblocks;      /* free data blocks incl. AGFL and btree blocks */
	uint64_t frextents;     /* free realtime extents */
	/* System inodes; 0 = keep env->sb's.  A null rbmino/rsumino in a
	 * secondary (mkfs leaves them so) is replaced by the two inodes after
	 * the root when those are in-use regular files, as mkfs allocates them. */
	uint64_t rootino, rbmino, rsumino;
	uint16_t version_bits;  /* sb_versionnum bits to set, e.g. ATTRBIT when
	                           the filesystem holds xattrs */
	bool     quota_recheck; /* clear the quota CHKD flags (quota data changed) */
};

/* Which superblocks xr_sb_plan writes. */
enum {
	XR_SB_PRIMARY     = 1u << 0,
	XR_SB_SECONDARIES = 1u << 1,   /* every AG but 0 */
};

/*
 * The primary superblock the repaired filesystem carries (see the file
 * comment), built from env->sb and c into *out.  Reads the image (through
 * the plan) only to confirm the realtime inodes it infers.  Returns 0 or an
 * image read error.
 */
int xr_sb_primary(const struct xr_env *env, const struct xr_sb_counts *c,
		  struct xfmt_sb *out);

/* The secondary superblock xfs_repair derives from primary, into *out. */
void xr_sb_secondary(const struct xfmt_sb *primary, struct xfmt_sb *out);

/*
 * Plan the superblocks named by what (XR_SB_*) under action: the primary at
 * byte 0 and each secondary at the start of its AG, each one sectsize
 * sector, encoded with its CRC on v5.  Secondaries derive from the primary
 * xr_sb_primary builds from c.  Returns 0, XERR_NOMEM, XERR_USAGE (bad
 * action, or what is empty) or an image read error.
 */
int xr_sb_plan(const struct xr_env *env, const struct xr_sb_counts *c, unsigned what,
	       int action);

/*
 * Plan the secondary superblock of AG agno (1 <= agno < agcount) from
 * primary.  Returns 0, XERR_NOMEM or XERR_USAGE.
 */
int xr_sb_plan_secondary(const struct xr_env *env, const struct xfmt_sb *primary,
			 uint32_t agno, int action);

#endif /* XR_SB_WRITE_H */
