/*
 * repair_inodes.c - the planner's inode phase: which inodes are cleared,
 * which are mended in place, and what that releases.
 *
 * An inode is mended when every error the check found in it is one a field
 * edit answers: a CRC, its own number or uuid (the seal rewrites them), its
 * block count (recomputed from what it owns), its unlinked pointer, its link
 * count (the count of names the namespace check found), or a damaged
 * attribute fork (emptied: the file's data is worth more than a damaged
 * xattr), or the headers of its remote symlink blocks (written anew around
 * target bytes that still read as one).  Any other error - a bad magic,
 * mode, format or fork map, a symlink target that is gone - clears it, as
 * xfs_repair does: a free inode as the kernel leaves one, its blocks
 * released to the AG rebuild.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/bmap.h"
#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/dinode_enc.h"
#include "formats/dir2.h"
#include "formats/endian.h"
#include "formats/symlink.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

struct ino_fi {
	uint64_t ino;
	size_t   fi;
};

static int cmp_ino_fi(const void *x, const void *y)
{
	const struct ino_fi *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->fi < b->fi ? -1 : a->fi > b->fi;
}

/* A directory-format block (da node or leaf) of something not a directory:
 * an attribute fork's block. */
static bool attr_da_finding(struct xa_ctx *ctx, const struct xa_finding *f)
{
	const struct xa_irec *r;

	if (rp_family(f->p.code) != FAM_DIR || !(f->p.has & XPROB_HAS_INO))
		return false;
	r = xa_irec_find(ctx, f->p.ino);
	return r && (r->mode & 0170000u) != 0040000u;
}

/* A block whose only fault is its checksum: rewritten with a fresh one. */
static bool crc_only_block(struct xa_ctx *ctx, const struct xa_finding *f)
{
	switch (f->p.code) {
	case XP_symBadCrc:
	case XP_attrRmtBadCrc:
		break;
	case XP_daBadCrc:
		if (!attr_da_finding(ctx, f))
			return false;
		break;
	case XP_btBadCrc:
		if (!rp_is_bmbt_finding(f))
			return false;
		break;
	default:
		return false;
	}
	return (f->p.has & XPROB_HAS_BYTE) && (f->p.has & XPROB_HAS_OFF) &&
	       f->p.off + 4 <= ctx->geom.blocksize;
}

/* Findings the inode phase owns (by the inode they name). */
static bool inode_finding(struct xa_ctx *ctx, const struct xa_finding *f)
{
	unsigned fam = rp_family(f->p.code);

	if (!(f->p.has & XPROB_HAS_INO))
		return false;
	if (attr_da_finding(ctx, f))
		return true;
	switch (fam) {
	case FAM_INODE:
		return f->p.code != XP_inoFreeButInUse && f->p.code != XP_inoUsedButFree;
	case FAM_ATTR:
	case FAM_SYMLINK:
	case FAM_BMAP:
		return true;
	case FAM_BTREE:
		/* a bmbt block, or the root in the inode; an inobt record
		 * names an inode too but is the AG rebuild's business */
		return rp_is_bmbt_finding(f) ||
		       (f->p.code == XP_btKeyMismatch && f->p.field &&
			!strcmp(f->p.field, "bmbt root keys"));
	case FAM_NS:
		return f->p.code == XP_nsUnlinkedOpen;
	default:
		return false;
	}
}

/* What one inode's findings call for. */
struct verdict {
	bool     clear;
	bool     drop_attr;
	bool     set_nblocks;
	uint64_t nblocks;
	bool     set_nlink;
	uint32_t nlink;
	bool     null_unlinked;
	bool     reseal;
	bool     fix_crcs;       /* some blocks need only a fresh checksum */
	bool     fix_magic;      /* the magic number is put back */
	bool     set_reflink;    /* shares blocks: the reflink flag is set */
	bool     zero_pads;      /* padding the kernel writes as zero is not */
	bool     fix_flags;      /* flag bits or hints the verifier refuses */
	bool     fix_times;      /* legacy nanoseconds out of range */
	bool     tidy_core;      /* version byte or di_onlink the verifier refuses */
	bool     zero_forkoff;   /* an empty attr fork squeezing the data fork out */
	bool     foreign_symlink_block; /* its remote block is a live symlink's */
	bool     zero_size;      /* a device, FIFO or socket with a size */
	bool     dir_size;       /* a directory whose size reaches past its data space */
	uint64_t size;           /* ... set to the end of its data blocks */
	bool     set_nextents;   /* an extent count that cannot be: 0 beside a device or
				  * inline data, the sound records of an overflowing fork */
	uint64_t nextents;
	bool     set_anextents;  /* the same for the attribute fork */
	uint64_t anextents;
	bool     fix_symlink;    /* remote symlink headers written anew (target kept) */
	uint64_t nblocks_floor;  /* the verifier's lower bound on nblocks, 0 = none */
	bool     fix_root_keys;  /* bmbt root keys set to their children's first keys */
	bool     as_read;        /* startblocks with stray high bits: set to what is read */
};

/* Some block of ino is claimed by another owner too (ownCrossLinked). */
static bool crosslinked(const struct xa_ctx *ctx, uint64_t ino)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xprob *p = &ctx->findings.items[i].p;

		if (p->code == XP_ownCrossLinked && (p->has & XPROB_HAS_OWNERS) &&
		    (p->owners[0].owner == ino || p->owners[1].owner == ino))
			return true;
	}
	return false;
}

/* Whether v changes the inode core itself (not only block checksums or a
 * symlink's remote headers). */
/* A metadata-flagged inode the user's tree names (the namespace pass
 * reached it): a user's file whose flag is the damage. */
static bool user_metafile(struct xa_ctx *ctx, uint64_t ino)
{
	const struct xa_irec *r = xa_irec_find(ctx, ino);

	return r && r->metafile && r->reached;
}

static bool writes_core(const struct verdict *v)
{
	return v->drop_attr || v->set_nblocks || v->set_nlink || v->null_unlinked || v->reseal ||
	       v->fix_magic || v->set_reflink || v->zero_pads || v->fix_flags || v->fix_times ||
	       v->tidy_core || v->zero_forkoff || v->zero_size || v->dir_size || v->set_nextents ||
	       v->set_anextents || v->fix_root_keys || v->as_read;
}

static void judge(struct xa_ctx *ctx, const struct xa_finding *f, struct verdict *v)
{
	unsigned fam = rp_family(f->p.code);

	if (crc_only_block(ctx, f)) {
		v->fix_crcs = true;
		return;
	}
	if (attr_da_finding(ctx, f)) {
		if (xprob_severity_of(f->p.code) == XSEV_ERROR)
			v->drop_attr = true;
		return;
	}

	/* An inode left on an unlinked list (open when the system stopped):
	 * nothing names it, so it is freed, as the kernel would have. */
	if (f->p.code == XP_nsUnlinkedOpen) {
		v->clear = true;
		return;
	}
	/* Fields of the core xfs_repair resets and keeps the file. */
	if (f->p.code == XP_inoBadTimestamp) {
		v->fix_times = true;
		return;
	}
	if (f->p.code == XP_inoBadOnlink || f->p.code == XP_inoBadVersion) {
		v->tidy_core = true;
		return;
	}
	/* The data fork was read over the whole literal area (dinode.h): the
	 * forkoff goes, and the file keeps the extents it lists. */
	if (f->p.code == XP_inoStrayForkoff) {
		v->zero_forkoff = true;
		return;
	}
	if (f->p.code == XP_inoBadSize && (f->p.has & XPROB_HAS_EXPECTED) && f->p.expected == 0) {
		v->zero_size = true;
		return;
	}
	/* A directory whose size alone is wrong (past its data space, or not
	 * the one block of a block-form directory): its data blocks say what
	 * it is (xfs_repair clears the first and leaves the second). */
	if (f->p.code == XP_inoBadSize && (f->p.has & XPROB_HAS_INO) &&
	    (f->p.has & XPROB_HAS_OBSERVED) &&
	    (f->p.observed > XFS_DIR2_LEAF_OFFSET || (f->p.has & XPROB_HAS_EXPECTED))) {
		const struct xa_irec *r = xa_irec_find(ctx, f->p.ino);

		if (r && (r->mode & XFMT_S_IFMT) == XFMT_S_IFDIR) {
			v->dir_size = true;
			return;
		}
	}
	/* A count the verifier can say the truth of: 0 beside a device or
	 * inline data, the sound records of a fork the count overflows. */
	if (f->p.code == XP_inoBadNextents && f->p.field && (f->p.has & XPROB_HAS_EXPECTED)) {
		if (!strcmp(f->p.field, "core.nextents")) {
			v->set_nextents = true;
			v->nextents = f->p.expected;
		} else {
			v->set_anextents = true;
			v->anextents = f->p.expected;
		}
		return;
	}
	/* An attribute fork whose format or count is impossible: the fork
	 * goes, the file stays (its data fork is sound). */
	if ((f->p.code == XP_inoBadFormat || f->p.code == XP_inoBadNextents) && f->p.field &&
	    (!strcmp(f->p.field, "core.aformat") || !strcmp(f->p.field, "core.naextents"))) {
		v->drop_attr = true;
		return;
	}
	/* A free inode the kernel would refuse to reuse: written free anew. */
	if (f->p.code == XP_inoFreeBadCore) {
		v->clear = true;
		return;
	}
	/* A warning, but xfs_repair rewrites it too (its "bad v3_pad"). */
	if (f->p.code == XP_inoNonzeroPad) {
		v->zero_pads = true;
		return;
	}
	/* Bits the kernel refuses, or a hint it ignores: taken back, not the
	 * whole inode (xfs_repair clears the bits and resets the hints). */
	if (f->p.code == XP_inoBadFlags || f->p.code == XP_inoBadExtsize ||
	    f->p.code == XP_inoBadMetafile) {
		v->fix_flags = true;
		return;
	}
	/* Bits above a mapping's AG number, which the kernel does not
	 * see: the mapping is kept as it reads (xfs_repair leaves the bits). */
	if (f->p.code == XP_bmapStartblockHighBits) {
		v->as_read = true;
		return;
	}
	if (xprob_severity_of(f->p.code) != XSEV_ERROR)
		return;  /* other warnings alone change nothing */
	/* A damaged mapping of the attribute fork costs the fork, not the
	 * file (xfs_repair: "bad attribute fork ... would clear attr fork"). */
	if ((fam == FAM_BMAP || rp_is_bmbt_finding(f)) && f->what && strstr(f->what, "(attr fork)")) {
		v->drop_attr = true;
		return;
	}
	/* So does a btree root in the attribute fork that cannot be one (a
	 * format byte turned to btree over an empty fork). */
	if (f->p.code == XP_inoBadBmdrRoot && f->p.field && !strncmp(f->p.field, "a.", 2)) {
		v->drop_attr = true;
		return;
	}
	/* A key of the btree root in the inode that disagrees with its child:
	 * the child is the truth (xfs_repair: "bad key in bmbt root ...
	 * would reset"). */
	if (f->p.code == XP_btKeyMismatch && f->p.field && !strcmp(f->p.field, "bmbt root keys")) {
		v->fix_root_keys = true;
		return;
	}
	switch (f->p.code) {
	/* A remote symlink header: every field of it follows from the inode
	 * and the block's place; the target bytes after it are what counts
	 * (xfs_repair keeps such a symlink).  rp_plan_inodes checks they
	 * still read as the target. */
	case XP_symBadOwner:
		/* the block may be another symlink's, which the mapping
		 * strayed onto (where the two claim it): its header is right
		 * for it, and the cross-link phase gives this one its own
		 * block back (or a copy) */
		if ((f->p.has & XPROB_HAS_OBSERVED) && (f->p.has & XPROB_HAS_INO) &&
		    f->p.observed != f->p.ino && xa_irec_find(ctx, f->p.observed))
			v->foreign_symlink_block = true;
		v->fix_symlink = true;
		return;
	case XP_symBadMagic:
	case XP_symBadBlkno:
	case XP_symBadUuid:
	case XP_symBadRange:
	case XP_symHdrMismatch:
		v->fix_symlink = true;
		return;
	case XP_inoBadCrc:
	case XP_inoBadInumber:
	case XP_inoBadUuid:
		v->reseal = true;
		return;
	case XP_inoBadMagic:
		/* the check read it as an inode: the magic was its only fault */
		if ((f->p.has & XPROB_HAS_INO) && xa_irec_find(ctx, f->p.ino)) {
			v->fix_magic = true;
			return;
		}
		break;
	case XP_inoBadNblocks:
		/* The verifier's "core.nblocks" is only a floor (one block per
		 * extent the counts claim): a count that is itself bad makes it
		 * meaningless.  The inode pass's "nblocks" is the real sum. */
		if ((f->p.has & XPROB_HAS_EXPECTED) && f->p.field &&
		    !strcmp(f->p.field, "core.nblocks")) {
			v->nblocks_floor = f->p.expected;
			return;
		}
		if (f->p.has & XPROB_HAS_EXPECTED) {
			v->set_nblocks = true;
			v->nblocks = f->p.expected;
			return;
		}
		break;
	case XP_inoBadNextUnlinked:
		v->null_unlinked = true;
		return;
	case XP_inoReflinkFlagMissing:
		v->set_reflink = true;
		return;
	case XP_nsBadLinkCount:
		if ((f->p.has & XPROB_HAS_EXPECTED) && f->p.expected <= UINT32_MAX &&
		    f->p.expected > 0) {
			v->set_nlink = true;
			v->nlink = (uint32_t)f->p.expected;
			return;
		}
		break;
	default:
		if (fam == FAM_ATTR) {
			v->drop_attr = true;
			return;
		}
		break;
	}
	v->clear = true;
}

/* A free slot: no core says it is in use, nor does the inode btree (a
 * zeroed core of an allocated inode is a file lost, not a free slot). */
static bool slot_was_free(struct xa_ctx *ctx, uint64_t ino)
{
	return !xa_irec_find(ctx, ino) && !rp_inobt_says_used(ctx, ino);
}

/* Write ino free anew.  An inode that was free already (was_free: its
 * slot held garbage) loses nothing: it is not counted as cleared, and no
 * later phase takes it for a file to bring back. */
static int clear_inode(struct xr_rp *rp, uint64_t ino, const struct ino_fi *grp, size_t n,
		       bool was_free)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *buf = malloc(g->inodesize);
	struct xfmt_dinode d;
	uint32_t gen = 0;
	int action, rc;

	if (!buf)
		return XERR_NOMEM;
	rc = xr_plan_read(rp->plan, rp->ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (!rc && xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 && d.magic == XFS_DINODE_MAGIC)
		gen = d.gen;
	action = was_free
		? xr_plan_action(rp->plan, XR_ACT_CLEAR_INODE, xfmt_geom_ino_agno(g, ino), ino,
				 "free inode %" PRIu64 " written free anew (%zu findings)", ino, n)
		: xr_plan_action(rp->plan, XR_ACT_CLEAR_INODE, xfmt_geom_ino_agno(g, ino), ino,
				 "inode %" PRIu64 " cleared (%zu findings), its blocks released",
				 ino, n);
	rc = action < 0 ? action : 0;
	if (!rc) {
		xfmt_dinode_free_encode(buf, g, ino, gen + 1, rp->env.lsn);
		rc = rp_write_inode(rp, action, ino, buf);
	}
	if (!rc && !was_free && xa_u64set_add(&rp->cleared, ino) < 0)
		rc = XERR_NOMEM;
	for (size_t i = 0; !rc && i < n; i++)
		rc = rp_answer(rp, action, grp[i].fi);
	if (!rc && !was_free) {
		rp_need_rebuild(rp, xfmt_geom_ino_agno(g, ino));
		rp->sum->inodes_cleared++;
	}
	free(buf);
	return rc;
}

/* Structure names for the report (one word each, as the schema wants). */
static const char *crc_structure(enum xprob_code code)
{
	switch (code) {
	case XP_symBadCrc:     return "symlink";
	case XP_attrRmtBadCrc: return "attr-remote";
	case XP_daBadCrc:      return "attr-da";
	default:               return "bmbt";
	}
}

/* Write one block of ino at byte (filesystem-relative) into the plan. */
static int write_block(struct xr_rp *rp, int action, const char *structure, uint64_t ino,
		       uint64_t byte, const uint8_t *blk)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	/* the AG is the linear block / agblocks */
	uint32_t agno = (uint32_t)((byte >> g->blocklog) / g->agblocks);

	return xr_plan_write(rp->plan, action, structure, agno < rp->ctx->nags ? agno : XR_NO_AG,
			     (uint32_t)((byte - xfmt_geom_ag_byte(g, agno < rp->ctx->nags ? agno : 0))
					>> g->blocklog), ino, byte, blk, g->blocksize);
}

static int put_block_crc(struct xr_rp *rp, int action, uint64_t ino, enum xprob_code code,
			 uint64_t byte, size_t crc_off)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *blk = malloc(g->blocksize);
	int rc;

	if (!blk)
		return XERR_NOMEM;
	rc = xr_plan_read(rp->plan, rp->ctx, byte, blk, g->blocksize);
	if (!rc && !xfmt_crc_ok(blk, g->blocksize, crc_off)) {
		xfmt_crc_update(blk, g->blocksize, crc_off);
		rc = write_block(rp, action, crc_structure(code), ino, byte, blk);
	}
	free(blk);
	return rc;
}

/* The mappings of the bmbt leaf at byte with their startblocks as read. */
static int bmbt_leaf_as_read(struct xr_rp *rp, int action, uint64_t ino, uint64_t byte)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *blk = malloc(g->blocksize);
	struct xfmt_bt_hdr h;
	const uint8_t *recs;
	unsigned n;
	int rc;

	if (!blk)
		return XERR_NOMEM;
	rc = xr_plan_read(rp->plan, rp->ctx, byte, blk, g->blocksize);
	if (rc || xfmt_bt_hdr_decode(blk, g->blocksize, XFMT_BT_BMAP, g->v5, &h) != 0 ||
	    h.level != 0)
		goto out;
	recs = xfmt_bt_rec(blk, g->blocksize, XFMT_BT_BMAP, g->v5, 0);
	/* never past the block, whatever numrecs says */
	n = h.numrecs;
	if (n > xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true))
		n = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true);
	if (recs && xfmt_bmbt_recs_as_read(blk + (recs - blk), n, g)) {
		if (g->v5)
			xfmt_crc_update(blk, g->blocksize, XFMT_BT_LONG_CRC_OFF);
		rc = write_block(rp, action, "bmbt", ino, byte, blk);
	}
out:
	free(blk);
	return rc;
}

/*
 * Rewrite the checksum of a block of ino whose contents verified but whose
 * CRC did not.  A remote symlink's findings carry the inode's location, so
 * its blocks come from the inode's own mapping (each block has a header).
 */
static int fix_block_crc(struct xr_rp *rp, int action, uint64_t ino, const struct xa_finding *f)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	if (f->p.code == XP_symBadCrc) {
		struct xa_inode ip;
		struct xa_extents ex = { 0 };
		int rc = xa_inode_read(rp->ctx, ino, &ip);

		if (rc)
			return rc == XERR_NOMEM ? rc : 0;
		rc = xa_extents_load(rp->ctx, &ip, XA_DATA_FORK, &ex);
		for (size_t i = 0; !rc && i < ex.n; i++)
			for (uint32_t k = 0; !rc && k < ex.v[i].blockcount && k < 64; k++)
				if (xfmt_bt_fsbno_ok(g, ex.v[i].startblock + k))
					rc = put_block_crc(rp, action, ino, f->p.code,
							   xfmt_geom_fsb_byte(g, ex.v[i].startblock + k),
							   12);
		xa_extents_release(&ex);
		xa_inode_release(&ip);
		return rc == XERR_NOMEM ? rc : 0;
	}
	return put_block_crc(rp, action, ino, f->p.code, f->p.byte, (size_t)f->p.off);
}

/*
 * The remote symlink ino's mappings under damaged headers: each mapping
 * (one header each, XFMT_SYMLINK_MAPS at most) must still look like a
 * symlink block - its magic, its owner or the filesystem's uuid intact,
 * not a block of something else - and its payload must carry the next
 * target bytes without a NUL, di_size of them in all.  Then *ok is set,
 * and with action >= 0 every header is written anew around its payload.
 * Returns 0 or a negative xerr.
 */
static int symlink_headers(struct xr_rp *rp, uint64_t ino, int action, bool *ok)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_extents ex = { 0 };
	struct xa_inode ip;
	uint8_t *buf = NULL;
	size_t have = 0, size, maxlen = (size_t)g->blocksize * 2;
	int rc = xa_inode_read(ctx, ino, &ip);

	*ok = false;
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	size = (size_t)ip.d.size;
	if (!g->v5 || ip.d.format != XFS_DINODE_FMT_EXTENTS || ip.d.size == 0 ||
	    ip.d.size >= XFMT_SYMLINK_MAXLEN)
		goto out;
	rc = xa_extents_load(ctx, &ip, XA_DATA_FORK, &ex);
	buf = rc ? NULL : malloc(maxlen);
	if (!rc && !buf)
		rc = XERR_NOMEM;
	for (size_t i = 0; !rc && i < ex.n && i < XFMT_SYMLINK_MAPS && have < size; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		size_t len = (size_t)r->blockcount << g->blocklog, take;
		uint64_t byte = xfmt_geom_fsb_byte(g, r->startblock);
		struct xfmt_rmt_hdr h;

		if (r->startoff != i || r->blockcount == 0 || len > maxlen ||
		    !xfmt_bt_fsbno_ok(g, r->startblock) ||
		    !xfmt_bt_fsbno_ok(g, r->startblock + r->blockcount - 1))
			goto out;
		rc = xr_plan_read(rp->plan, ctx, byte, buf, len);
		if (rc || xfmt_rmt_hdr_decode(buf, len, &h) != 0)
			goto out;
		if (h.magic != XFS_SYMLINK_MAGIC && h.owner != ino &&
		    memcmp(h.uuid, g->meta_uuid, 16) != 0)
			goto out;
		take = size - have;
		if (take > len - XFMT_SYMLINK_HDR_LEN)
			take = len - XFMT_SYMLINK_HDR_LEN;
		if (memchr(buf + XFMT_SYMLINK_HDR_LEN, 0, take))
			goto out;
		if (action >= 0) {
			uint32_t agno = xfmt_geom_fsb_agno(g, r->startblock);

			xfmt_rmt_hdr_encode(buf, len, g, XFS_SYMLINK_MAGIC, ino, (uint32_t)have,
					    (uint32_t)take, byte >> XFS_BB_SHIFT, rp->env.lsn);
			rc = xr_plan_write(rp->plan, action, "symlink", agno,
					   xfmt_geom_fsb_agbno(g, r->startblock), ino, byte, buf, len);
		}
		have += take;
	}
	*ok = !rc && have == size;
out:
	free(buf);
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	return rc == XERR_NOMEM ? rc : 0;
}

/* The first key of the bmbt block at fsb (its first record's startoff at
 * level 0); false when the block does not read as a bmbt block. */
static bool bmbt_first_key(struct xr_rp *rp, uint64_t fsb, uint64_t *key)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *blk = malloc(g->blocksize);
	struct xfmt_bt_hdr h;
	const uint8_t *p;
	bool ok = false;

	if (!blk || !xfmt_geom_fsb_valid(g, fsb) ||
	    xr_plan_read(rp->plan, rp->ctx, xfmt_geom_fsb_byte(g, fsb), blk, g->blocksize) ||
	    xfmt_bt_hdr_decode(blk, g->blocksize, XFMT_BT_BMAP, g->v5, &h) != 0 ||
	    h.magic != xfmt_bt_magic(XFMT_BT_BMAP, g->v5) || h.numrecs == 0)
		goto out;
	if (h.level == 0) {
		struct xfmt_bmbt_rec r;

		p = xfmt_bt_rec(blk, g->blocksize, XFMT_BT_BMAP, g->v5, 0);
		if (p) {
			xfmt_bmbt_rec_decode(p, &r);
			*key = r.startoff;
		}
	} else {
		p = xfmt_bt_key(blk, g->blocksize, XFMT_BT_BMAP, g->v5, 0);
		if (p)
			*key = xfmt_bmbt_key_decode(p);
	}
	ok = p != NULL;
out:
	free(blk);
	return ok;
}

/* Every key of the btree roots in the inode at buf set to its child's
 * first key.  Returns true when a key changed. */
static bool fix_root_keys(struct xr_rp *rp, uint8_t *buf, const struct xfmt_dinode *d)
{
	bool changed = false;

	for (int w = 0; w < 2; w++) {
		size_t size = 0;
		const uint8_t *at;
		uint8_t *fork;
		uint16_t level, nrecs;

		if ((w ? d->aformat : d->format) != XFS_DINODE_FMT_BTREE)
			continue;
		at = xfmt_dinode_fork(buf, d, w, &size);
		if (!at)
			continue;
		fork = buf + (at - buf);  /* the same bytes, writable */
		if (xfmt_bmdr_decode(fork, size, &level, &nrecs) != 0)
			continue;
		for (unsigned i = 0; i < nrecs && i < xfmt_bmdr_maxrecs(size); i++) {
			uint64_t key, ptr, want;

			if (xfmt_bmdr_key(fork, size, i, &key) || xfmt_bmdr_ptr(fork, size, i, &ptr) ||
			    !bmbt_first_key(rp, ptr, &want) || want == key)
				continue;
			xfmt_put_be64(fork + XFMT_BMDR_HDR_LEN + (size_t)i * 8, want);
			changed = true;
		}
	}
	return changed;
}

/*
 * The size a directory's data space gives it: the end of its last mapping
 * below the leaf offset, in whole directory blocks; 0 if it has none or its
 * data fork cannot be read whole.
 */
static uint64_t dir_data_end(struct xa_ctx *ctx, uint64_t ino)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t leafblk = XFS_DIR2_LEAF_OFFSET >> g->blocklog, end = 0;
	struct xa_extents ex = { 0 };
	struct xa_inode ip;

	if (xa_inode_read(ctx, ino, &ip) != 0)
		return 0;
	if (xa_extents_load(ctx, &ip, XA_DATA_FORK, &ex) == 0 && ex.complete) {
		for (size_t i = 0; i < ex.n; i++) {
			uint64_t s = ex.v[i].startoff, e = s + ex.v[i].blockcount;

			if (s >= leafblk)
				continue;
			if (e > leafblk)
				e = leafblk;
			if (e > end)
				end = e;
		}
	}
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	end <<= g->blocklog;
	if (g->dirblksize)
		end = (end + g->dirblksize - 1) / g->dirblksize * g->dirblksize;
	return end;
}

static int mend_inode(struct xr_rp *rp, uint64_t ino, const struct verdict *v,
		      const struct ino_fi *grp, size_t n)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint8_t *buf = malloc(g->inodesize);
	struct xfmt_dinode d;
	int action = -1, rc;

	if (!buf)
		return XERR_NOMEM;
	rc = xr_plan_read(rp->plan, ctx, xfmt_geom_ino_byte(g, ino), buf, g->inodesize);
	if (rc)
		goto out;
	if (v->fix_magic) {
		buf[0] = (uint8_t)(XFS_DINODE_MAGIC >> 8);
		buf[1] = (uint8_t)XFS_DINODE_MAGIC;
	}
	if (xfmt_dinode_decode(buf, g->inodesize, g, &d) != 0 || d.magic != XFS_DINODE_MAGIC) {
		/* not an inode after all: nothing to mend, clear it */
		free(buf);
		return clear_inode(rp, ino, grp, n, slot_was_free(ctx, ino));
	}
	action = xr_plan_action(rp->plan, XR_ACT_FIX_INODE, xfmt_geom_ino_agno(g, ino), ino,
				"inode %" PRIu64 ":%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", ino,
				v->fix_flags ? " invalid flag bits and size hints cleared;" : "",
				v->fix_times ? " timestamps mended;" : "",
				v->tidy_core ? " version and onlink set as the filesystem writes them;" : "",
				v->zero_forkoff ? " forkoff of an empty attribute fork cleared (the data "
						  "fork needs the room);" : "",
				v->zero_size ? " size set to 0;" : v->dir_size ? " directory size set to "
							  "the end of its data blocks;" : "",
				v->set_nextents || v->set_anextents ? " extent count set to what the fork "
								     "holds;" : "",
				v->drop_attr ? " damaged attribute fork emptied;" : "",
				v->set_nblocks ? " block count recomputed;" : "",
				v->set_nlink ? " link count set to its names;" : "",
				v->null_unlinked ? " unlinked pointer cleared;" : "",
				v->fix_crcs ? " block checksums rewritten;" : "",
				v->fix_magic ? " magic number put back;" : "",
				v->set_reflink ? " reflink flag set (it shares blocks);" : "",
				v->zero_pads ? " padding zeroed;" : "",
				v->fix_root_keys ? " btree root keys set to their children's;" : "",
				v->as_read ? " mappings' stray high startblock bits cleared (the blocks "
					     "the kernel reads);" : "",
				v->fix_symlink ? " remote symlink headers rewritten around the "
						 "target bytes found;" : "",
				v->reseal ? " checksum and identity rewritten" : "");
	if (action < 0) {
		rc = action;
		goto out;
	}
	if (v->drop_attr) {
		uint64_t nb = v->set_nblocks ? v->nblocks : d.nblocks;
		uint64_t ab = rp_attr_blocks(rp, ino), db;

		nb = nb > ab ? nb - ab : 0;
		/* an attr map too damaged to own its blocks leaves them in
		 * nblocks: the data fork's own blocks are the count then */
		if (!v->set_nblocks && rp_data_blocks(rp, ino, buf, &d, &db) && db < nb)
			nb = db;
		xfmt_dinode_drop_attr_fork(buf, g, &d);
		xfmt_dinode_put_nblocks(buf, nb);
		if (xa_u64set_add(&rp->attr_dropped, ino) < 0) {
			rc = XERR_NOMEM;
			goto out;
		}
	} else if (v->set_nblocks) {
		xfmt_dinode_put_nblocks(buf, v->nblocks);
	}
	if (v->set_nlink)
		xfmt_dinode_put_nlink(buf, v->nlink);
	if (v->zero_forkoff)
		xfmt_dinode_put_forkoff(buf, 0);
	if (v->null_unlinked)
		xfmt_dinode_put_next_unlinked(buf, 0xFFFFFFFFu);
	if (v->set_reflink && xfmt_dinode_v3_core(&d))
		xfmt_dinode_put_flags2(buf, d.flags2 | XFS_DIFLAG2_REFLINK);
	if (v->zero_pads)
		xfmt_dinode_zero_pads(buf, &d);
	if (v->fix_flags || v->fix_times || v->tidy_core) {
		struct xfmt_dinode now;

		/* the flags as the edits above left them (reflink set) */
		if (xfmt_dinode_decode(buf, g->inodesize, g, &now) == 0) {
			if (v->tidy_core)
				xfmt_dinode_tidy_kept_core(buf, g, ino, &now);
			else if (v->fix_flags)
				xfmt_dinode_sanitize_flags(buf, g, ino, &now);
			if (v->fix_flags && user_metafile(rp->ctx, ino) &&
			    xfmt_dinode_decode(buf, g->inodesize, g, &now) == 0)
				xfmt_dinode_unmark_metadata(buf, &now);
			/* a metadata file kept as one: its core as the kernel wants */
			if (v->fix_flags && xfmt_geom_has_metadir(g) &&
			    xfmt_dinode_decode(buf, g->inodesize, g, &now) == 0)
				xfmt_dinode_tidy_metafile(buf, &now);
			if (v->fix_times && xfmt_dinode_decode(buf, g->inodesize, g, &now) == 0)
				xfmt_dinode_fix_times(buf, g, &now);
		}
	}
	if (v->fix_root_keys)
		fix_root_keys(rp, buf, &d);
	if (v->as_read) {
		for (int wf = 0; wf < 2; wf++) {
			size_t fsz = 0;
			const uint8_t *fk = xfmt_dinode_fork(buf, &d, wf, &fsz);
			uint64_t ne = wf ? d.anextents : d.nextents;
			size_t cap = fsz / XFMT_BMBT_REC_LEN;

			if (fk && (wf ? d.aformat : d.format) == XFS_DINODE_FMT_EXTENTS)
				xfmt_bmbt_recs_as_read(buf + (fk - buf), ne < cap ? ne : cap, g);
		}
	}
	if (v->zero_size)
		xfmt_dinode_put_size(buf, 0);
	if (v->dir_size)
		xfmt_dinode_put_size(buf, v->size);
	if (v->set_nextents)
		xfmt_dinode_put_nextents(buf, &d, v->nextents);
	if (v->set_anextents && !v->drop_attr)
		xfmt_dinode_put_anextents(buf, &d, (uint32_t)v->anextents);
	/* Only block checksums to fix: the inode itself stays as it is. */
	if (writes_core(v)) {
		xfmt_dinode_seal(buf, g, ino, rp->env.lsn);
		rc = rp_write_inode(rp, action, ino, buf);
	}
	for (size_t i = 0; !rc && v->fix_crcs && i < n; i++) {
		const struct xa_finding *f = &ctx->findings.items[grp[i].fi];

		if (!crc_only_block(ctx, f) || (v->drop_attr && f->p.code != XP_symBadCrc &&
						f->p.code != XP_btBadCrc) ||
		    (v->fix_symlink && f->p.code == XP_symBadCrc))
			continue;
		rc = fix_block_crc(rp, action, ino, f);
	}
	if (!rc && v->fix_symlink) {
		bool ok;

		rc = symlink_headers(rp, ino, action, &ok);
	}
	/* Mappings in bmbt leaves (those in the inode were mended above). */
	for (size_t i = 0; !rc && v->as_read && i < n; i++) {
		const struct xa_finding *f = &ctx->findings.items[grp[i].fi];

		if (f->p.code == XP_bmapStartblockHighBits && (f->p.has & XPROB_HAS_BYTE))
			rc = bmbt_leaf_as_read(rp, action, ino, f->p.byte);
	}
	for (size_t i = 0; !rc && i < n; i++)
		if (xprob_severity_of(ctx->findings.items[grp[i].fi].p.code) == XSEV_ERROR)
			rc = rp_answer(rp, action, grp[i].fi);
	if (!rc)
		rp->sum->inodes_fixed++;
out:
	free(buf);
	return rc;
}

/* Every AG holding a record the plan released must be rebuilt. */
static void mark_released(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;

	if (!rp->cleared.used && !rp->attr_dropped.used)
		return;
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_ownlist *l = xa_own_forward(ctx, a, NULL);

		for (size_t i = 0; l && i < l->n; i++) {
			if (rp_record_dropped(rp, l->recs[i].owner, l->recs[i].flags)) {
				rp_need_rebuild(rp, a);
				break;
			}
		}
	}
}

int rp_plan_inodes(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct ino_fi *v = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < ctx->findings.count; i++)
		if (inode_finding(ctx, &ctx->findings.items[i]))
			n++;
	if (!n)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return XERR_NOMEM;
	n = 0;
	for (size_t i = 0; i < ctx->findings.count; i++)
		if (inode_finding(ctx, &ctx->findings.items[i])) {
			v[n].ino = ctx->findings.items[i].p.ino;
			v[n].fi = i;
			n++;
		}
	qsort(v, n, sizeof(*v), cmp_ino_fi);
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i;
		struct verdict vd;

		memset(&vd, 0, sizeof(vd));
		while (j < n && v[j].ino == v[i].ino)
			judge(ctx, &ctx->findings.items[v[j++].fi], &vd);
		/* A damaged free inode is not mended but written free anew:
		 * resealing would bless whatever garbage it holds. */
		if (!xa_irec_find(ctx, v[i].ino) && (vd.reseal || vd.set_nblocks || vd.drop_attr ||
						      vd.null_unlinked || vd.fix_magic))
			vd.clear = true;
		/* The floor stands only where no real count and no bad extent
		 * count says otherwise. */
		if (vd.nblocks_floor && !vd.set_nblocks && !vd.drop_attr && !vd.set_nextents &&
		    !vd.set_anextents) {
			vd.set_nblocks = true;
			vd.nblocks = vd.nblocks_floor;
		}
		if (vd.dir_size && !vd.clear) {
			vd.size = dir_data_end(ctx, v[i].ino);
			vd.clear = vd.size == 0;
		}
		/* another symlink's block, which this one's mapping strayed onto
		 * (the two claim it), is not rewritten as this one's */
		if (vd.foreign_symlink_block && crosslinked(ctx, v[i].ino))
			vd.fix_symlink = false;
		if (vd.fix_symlink && !vd.clear) {
			bool ok;

			rc = symlink_headers(rp, v[i].ino, -1, &ok);
			if (rc)
				break;
			vd.clear = !ok;
		}
		if (!xfmt_geom_ino_valid(&ctx->geom, v[i].ino))
			;  /* a number no inode has: nothing to write */
		else if (vd.clear)
			rc = clear_inode(rp, v[i].ino, v + i, j - i, slot_was_free(ctx, v[i].ino));
		else if (writes_core(&vd) || vd.fix_crcs || vd.fix_symlink)
			rc = mend_inode(rp, v[i].ino, &vd, v + i, j - i);
		i = j;
	}
	if (!rc)
		mark_released(rp);
	free(v);
	return rc;
}
