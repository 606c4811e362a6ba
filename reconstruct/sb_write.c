/*
 * sb_write.c - the primary and secondary superblocks of the repaired
 * filesystem (see sb_write.h for which fields come from where).
 *
 * Why the primary is always re-encoded from the decoded superblock rather
 * than patched in place: when the primary was destroyed, env->sb is the
 * decoding of the secondary the vote chose, and the bytes at sector 0 are
 * garbage; encoding from fields gives the same result in both cases and
 * zeroes whatever stray bytes follow the structure.
 */
#include "reconstruct/sb_write.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/dinode.h"
#include "reconstruct/plan.h"

#define QUOTA_CHKD_FLAGS (XFS_UQUOTA_CHKD | XFS_OQUOTA_CHKD | XFS_GQUOTA_CHKD | \
			  XFS_PQUOTA_CHKD)

/*
 * Is ino an in-use regular file?  mkfs allocates the root directory, then the
 * realtime bitmap, then the realtime summary inode, consecutively; a
 * secondary superblock written by mkfs leaves the latter two null, so a
 * primary rebuilt from it finds them there, and a damaged pointer to
 * elsewhere is put back there (sbSysInoMisplaced).  *ok is set only on a
 * yes.
 */
static int is_regular_inode(const struct xr_env *env, uint64_t ino, bool *ok)
{
	const struct xfmt_geom *g = env->g;
	struct xfmt_dinode d;
	uint8_t *buf;
	int rc;

	*ok = false;
	if (!xfmt_sb_ino_usable(g, ino))
		return 0;
	buf = malloc(g->inodesize);
	if (!buf)
		return XERR_NOMEM;
	rc = xr_plan_read(env->plan, env->ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (rc == 0 && xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 &&
	    d.magic == XFS_DINODE_MAGIC && (d.mode & XFMT_S_IFMT) == XFMT_S_IFREG)
		*ok = true;
	free(buf);
	return rc;
}

/* The realtime bitmap and summary inodes of a filesystem without a
 * metadata directory tree: the ones repair made, else the two after the
 * root where those are regular files. */
static int rt_inodes(const struct xr_env *env, const struct xr_sb_counts *c, struct xfmt_sb *out)
{
	bool ok;
	int rc;

	if (c->rbmino)
		out->rbmino = c->rbmino;
	else if (out->rbmino != out->rootino + 1 && out->rootino != XFS_NULLFSINO) {
		rc = is_regular_inode(env, out->rootino + 1, &ok);
		if (rc)
			return rc;
		if (ok)
			out->rbmino = out->rootino + 1;
	}
	if (c->rsumino)
		out->rsumino = c->rsumino;
	else if (out->rsumino != out->rootino + 2 && out->rootino != XFS_NULLFSINO) {
		rc = is_regular_inode(env, out->rootino + 2, &ok);
		if (rc)
			return rc;
		if (ok)
			out->rsumino = out->rootino + 2;
	}
	return 0;
}

int xr_sb_primary(const struct xr_env *env, const struct xr_sb_counts *c,
		  struct xfmt_sb *out)
{
	bool from_secondary = env->ctx && env->ctx->geom_source == XA_GEOM_VOTE;
	int rc;

	*out = *env->sb;
	out->inprogress = 0;
	out->shared_vn = 0;
	out->icount = c->icount;
	out->ifree = c->ifree;
	out->fdblocks = c->fdblocks;
	out->frextents = c->frextents;
	/* xfs_repair ORs a non-zero mirror back into features2; we also set
	 * the mirror when it is zero, as mkfs and the kernel write it. */
	out->features2 |= out->bad_features2;
	out->bad_features2 = out->features2;
	/* A V4 superblock without the more-bits flag ends before features2:
	 * what was there is garbage (sbNonzeroTail). */
	if (!env->v5 && !(out->versionnum & XFS_SB_VERSION_MOREBITSBIT))
		out->features2 = out->bad_features2 = 0;
	/* No flag of sb_flags is in use (sbFlagsSet). */
	out->flags = 0;
	out->features_incompat &= ~XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR;
	/* Repair converts every inode to version 2 link counts. */
	out->versionnum |= XFS_SB_VERSION_NLINKBIT | c->version_bits;
	if (c->quota_recheck)
		out->qflags &= (uint16_t)~QUOTA_CHKD_FLAGS;

	if (c->rootino)
		out->rootino = c->rootino;
	if (xfmt_geom_has_metadir(env->g)) {
		/* The metadata directory tree holds the realtime inodes: the
		 * superblock's fields are zero on disk (the analyzer reads them
		 * as none). */
		out->rbmino = 0;
		out->rsumino = 0;
	} else {
		rc = rt_inodes(env, c, out);
		if (rc)
			return rc;
	}
	/* A secondary's zero LSN would put the primary behind its own log;
	 * take the LSN the repair stamps on what it writes. */
	if (from_secondary && env->v5)
		out->lsn = env->lsn;
	return 0;
}

void xr_sb_secondary(const struct xfmt_sb *primary, struct xfmt_sb *out)
{
	bool metadir = xfmt_sb_is_v5(primary) &&
		       (primary->features_incompat & XFS_SB_FEAT_INCOMPAT_METADIR);

	*out = *primary;
	out->inprogress = 1;
	out->icount = 0;
	out->ifree = 0;
	out->fdblocks = 0;
	out->frextents = 0;
	out->qflags = 0;
	out->flags = 0;
	/* mkfs never sets quota inodes in a copy; xfs_repair zeroes any that
	 * is not null (and under a metadata directory tree null too). */
	if (out->uquotino != XFS_NULLFSINO || metadir)
		out->uquotino = 0;
	if (out->gquotino != XFS_NULLFSINO || metadir)
		out->gquotino = 0;
	if (out->pquotino != XFS_NULLFSINO || metadir)
		out->pquotino = 0;
	out->features_incompat &= ~XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR;
}

/* Encode sb as one sector and plan it at the start of AG agno. */
static int plan_sector(const struct xr_env *env, const struct xfmt_sb *sb, uint32_t agno,
		       int action)
{
	const struct xfmt_geom *g = env->g;
	uint8_t *buf;
	int rc;

	if (g->sectsize < XFS_SB_STRUCT_SIZE || agno >= g->agcount)
		return XERR_USAGE;
	buf = malloc(g->sectsize);
	if (!buf)
		return XERR_NOMEM;
	rc = XERR_USAGE;
	if (xfmt_sb_encode(sb, buf, g->sectsize) == 0)
		rc = xr_plan_write(env->plan, action, "sb", agno, 0, 0,
				   xfmt_geom_ag_byte(g, agno), buf, g->sectsize);
	free(buf);
	return rc;
}

int xr_sb_plan_secondary(const struct xr_env *env, const struct xfmt_sb *primary,
			 uint32_t agno, int action)
{
	struct xfmt_sb sec;

	if (agno == 0)
		return XERR_USAGE;
	xr_sb_secondary(primary, &sec);
	return plan_sector(env, &sec, agno, action);
}

int xr_sb_plan(const struct xr_env *env, const struct xr_sb_counts *c, unsigned what,
	       int action)
{
	struct xfmt_sb primary;
	int rc;

	if (!(what & (XR_SB_PRIMARY | XR_SB_SECONDARIES)))
		return XERR_USAGE;
	rc = xr_sb_primary(env, c, &primary);
	if (rc)
		return rc;
	if (what & XR_SB_PRIMARY) {
		rc = plan_sector(env, &primary, 0, action);
		if (rc)
			return rc;
	}
	if (what & XR_SB_SECONDARIES) {
		for (uint32_t agno = 1; agno < env->g->agcount; agno++) {
			rc = xr_sb_plan_secondary(env, &primary, agno, action);
			if (rc)
				return rc;
		}
	}
	return 0;
}
