/*
 * pass_namespace.c - the directory tree from the root.
 *
 * Checks: the root is an allocated directory; every directory reachable
 * from it is read (its blocks verified) and every entry names an allocated
 * inode with the file type its mode says; "." names the directory and ".."
 * its parent; no directory is named twice; link counts equal the names
 * found (2 + subdirectories for directories); allocated inodes no directory
 * names are orphans (those with no links sitting on an AGI unlinked list are
 * open-but-deleted files, a warning).
 * Uses: ctx->irecs from the inodes pass.  Leaves: each irec's reached /
 * parent / names / subdirs, for reconstruction (lost+found) later.  The
 * metadata directory tree is walked after it (analyzer/check/metadir_tree.c).
 *
 * Termination: breadth first over directories, each queued at most once
 * (the reached flag), so cycles in a damaged tree end the walk.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/metadir_tree.h"
#include "analyzer/check/pptr_check.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/passes.h"
#include "analyzer/model/u64set.h"
#include "formats/agi.h"

struct ns_state {
	struct xa_ctx  *ctx;
	uint64_t       *queue;
	size_t          qhead, qlen, qcap;
	struct xa_irec *dir;        /* the directory being read */
	uint64_t        dotdot;
	bool            have_dotdot;
	bool            incomplete; /* some directory could not be read */
	struct xa_loc   loc;
	int             err;
	/* parent pointers (filesystems that have them): every entry read,
	 * the generation of the directory being read, directories not read
	 * whole */
	bool                pptrs;
	struct xa_pptr_list entries;
	uint32_t            dir_gen;
	struct xa_u64set    unread;
};

static bool is_dir_mode(uint16_t mode)
{
	return (mode & 0170000u) == 0040000u;
}

static int enqueue(struct ns_state *st, uint64_t ino)
{
	if (st->qlen == st->qcap) {
		size_t ncap = st->qcap ? st->qcap * 2 : 256;
		uint64_t *n = realloc(st->queue, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		st->queue = n;
		st->qcap = ncap;
	}
	st->queue[st->qlen++] = ino;
	return 0;
}

static void report(struct ns_state *st, enum xprob_code code, const char *field,
		   uint64_t off, uint64_t expected, uint64_t observed, unsigned has)
{
	struct xprob p = {
		.code = code, .has = has | XPROB_HAS_OFF, .field = field, .off = off,
		.expected = expected, .observed = observed,
	};

	xa_findings_add(&st->ctx->findings, &p, &st->loc);
}

static const char *ftype_field(uint8_t ftype)
{
	return xfmt_dir3_ftype_name(ftype);
}

static void loc_inode(struct xa_ctx *ctx, struct xa_loc *loc, uint64_t ino)
{
	memset(loc, 0, sizeof(*loc));
	loc->has = XPROB_HAS_AG | XPROB_HAS_INO | XPROB_HAS_BYTE;
	loc->agno = xfmt_geom_ino_agno(&ctx->geom, ino);
	loc->ino = ino;
	loc->byte = xfmt_geom_ino_byte(&ctx->geom, ino);
	loc->what = "inode";
}

static int entry_fn(void *arg, const struct xfmt_dirent *de)
{
	struct ns_state *st = arg;
	struct xa_ctx *ctx = st->ctx;
	struct xa_irec *child;
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);

	/* '.' and '..' name directories: their file type says so. */
	if (dots && xfmt_geom_has_ftype(&ctx->geom) && de->ftype != XFS_DIR3_FT_DIR)
		report(st, XP_nsFtypeMismatch, ftype_field(de->ftype), de->offset, XFS_DIR3_FT_DIR,
		       de->ino, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	if (dots == 1) {
		if (de->ino != st->dir->ino)
			report(st, XP_nsBadDot, NULL, de->offset, st->dir->ino, de->ino,
			       XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		return 0;
	}
	if (dots == 2) {
		st->dotdot = de->ino;
		st->have_dotdot = true;
		return 0;
	}
	child = xa_irec_find(ctx, de->ino);
	if (!child) {
		report(st, XP_nsEntryBadInode, NULL, de->offset, 0, de->ino, XPROB_HAS_OBSERVED);
		return 0;
	}
	if (xfmt_geom_has_ftype(&ctx->geom)) {
		uint8_t want = xfmt_dir3_ftype_from_mode(child->mode);

		if (de->ftype != want)
			report(st, XP_nsFtypeMismatch, ftype_field(de->ftype), de->offset, want,
			       de->ino, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	}
	/* A name in the user's tree on a metadata file: its METADATA flag is
	 * the damage (xfs_repair 6.13: "incorrectly marked as metadata"). */
	if (child->metafile && child->names == 0) {
		struct xa_inode ip;
		struct xa_loc il;

		loc_inode(ctx, &il, child->ino);
		if (xa_inode_read(ctx, child->ino, &ip) == 0) {
			xa_report(ctx, &il, XP_inoBadFlags, "v3.flags2", 0, ip.d.flags2,
				  XPROB_HAS_OBSERVED);
			xa_inode_release(&ip);
		} else {
			xa_report(ctx, &il, XP_inoBadFlags, "v3.flags2", 0, 0, 0);
		}
	}
	if (st->pptrs && !xa_is_metadata_inode(ctx, child->ino) &&
	    xa_pptr_note_entry(&st->entries, st->dir->ino, st->dir_gen, child->ino, de->name,
			       de->namelen, (uint32_t)de->offset))
		return XERR_NOMEM;
	if (child->names < UINT32_MAX)
		child->names++;
	if (is_dir_mode(child->mode)) {
		if (st->dir->subdirs < UINT32_MAX)
			st->dir->subdirs++;
		if (child->reached || child->ino == ctx->sb.rootino) {
			report(st, XP_nsDirLinkedTwice, NULL, de->offset, 0, de->ino,
			       XPROB_HAS_OBSERVED);
			return 0;
		}
		child->reached = 1;
		child->parent = st->dir->ino;
		return enqueue(st, child->ino);
	}
	child->reached = 1;
	return 0;
}


/*
 * Walk every AGI unlinked list: each inode on bucket b's chain must be an
 * allocated inode of that AG with agino % 64 == b and no links left.  The
 * walk stops at a repeat (a set) or after as many steps as the AG has inodes,
 * so a looping chain cannot hang us.  The members go into *members.
 */
static int unlinked_lists(struct xa_ctx *ctx, struct xa_u64set *members)
{
	const struct xfmt_geom *g = &ctx->geom;

	for (uint32_t agno = 0; agno < ctx->nags; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];
		struct xa_loc loc = {
			XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, agno, 0, 0,
			xfmt_geom_ag_byte(g, agno) + 2ull * g->sectsize, "agi unlinked list",
		};

		if (!ag->agi_ok)
			continue;
		for (unsigned b = 0; b < XFS_AGI_UNLINKED_BUCKETS; b++) {
			uint32_t cur = ag->agi.unlinked[b];

			for (uint64_t steps = 0; cur != XFS_NULLAGINO; steps++) {
				uint64_t ino = xfmt_geom_ino(g, agno, cur);
				const struct xa_irec *r;
				struct xa_inode ip;
				int added;
				bool bad;

				bad = steps > ag->inodes || !xfmt_geom_agino_valid(g, agno, cur) ||
				      cur % XFS_AGI_UNLINKED_BUCKETS != b ||
				      !(r = xa_irec_find(ctx, ino)) || r->nlink != 0;
				if (!bad) {
					added = xa_u64set_add(members, ino);
					if (added < 0)
						return XERR_NOMEM;
					bad = added == 0;  /* a loop */
				}
				if (bad) {
					struct xprob p = {
						.code = XP_agiUnlinkedBadChain,
						.has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED,
						.off = b, .observed = cur,
					};
					xa_findings_add(&ctx->findings, &p, &loc);
					break;
				}
				if (xa_inode_read(ctx, ino, &ip) != 0)
					break;
				cur = ip.d.next_unlinked;
				xa_inode_release(&ip);
			}
		}
	}
	return 0;
}

static int report_names(struct xa_ctx *ctx, const struct ns_state *st,
			const struct xa_u64set *unlinked);
static void check_rt_inodes(struct xa_ctx *ctx);

static int walk_tree(struct ns_state *st)
{
	struct xa_ctx *ctx = st->ctx;

	while (st->qhead < st->qlen && !st->err) {
		uint64_t ino = st->queue[st->qhead++];
		struct xa_loc_sink verify;
		struct xa_inode dir;
		bool complete = true;
		int rc;

		st->dir = xa_irec_find(ctx, ino);
		if (!st->dir)
			continue;
		loc_inode(ctx, &st->loc, ino);
		st->loc.what = "directory";
		rc = xa_inode_read(ctx, ino, &dir);
		if (rc == XERR_NOMEM)
			return rc;
		if (rc) {
			if (st->pptrs && xa_u64set_add(&st->unread, ino) < 0)
				return XERR_NOMEM;
			st->incomplete = true;
			continue;
		}
		xa_loc_sink_init(&verify, &ctx->findings);
		st->have_dotdot = false;
		st->dir_gen = dir.d.gen;
		rc = xa_dir_iterate(ctx, &dir, &verify, entry_fn, st, &complete);
		xa_inode_release(&dir);
		if (rc)
			return rc;
		if (!complete) {
			if (st->pptrs && xa_u64set_add(&st->unread, ino) < 0)
				return XERR_NOMEM;
			st->incomplete = true;
			report(st, XP_nsDirIncomplete, NULL, 0, 0, 0, 0);
		}
		if (st->have_dotdot) {
			uint64_t want = ino == ctx->sb.rootino ? ino : st->dir->parent;

			if (st->dotdot != want)
				report(st, XP_nsDotdotMismatch, NULL, 0, want, st->dotdot,
				       XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		}
	}
	return 0;
}

int xa_pass_namespace(struct xa_ctx *ctx)
{
	struct ns_state st;
	struct xa_irec *root;
	int rc;

	memset(&st, 0, sizeof(st));
	st.ctx = ctx;
	/* needs no tree walk: judged even when there is no root to walk */
	check_rt_inodes(ctx);
	root = xa_irec_find(ctx, ctx->sb.rootino);
	/* (the metadata tree's root is a directory, and never the user's) */
	if (!root || !is_dir_mode(root->mode) || root->metafile) {
		loc_inode(ctx, &st.loc, ctx->sb.rootino);
		report(&st, XP_nsRootNotDir, "rootino", 0, 0, ctx->sb.rootino, XPROB_HAS_OBSERVED);
		/* Say what was not done: silence would read as "no orphans". */
		{
			uint64_t n = 0;

			for (size_t i = 0; i < ctx->nirecs; i++)
				n += !xa_is_metadata_inode(ctx, ctx->irecs[i].ino);
			report(&st, XP_nsWalkSkipped, NULL, 0, 0, n, XPROB_HAS_OBSERVED);
		}
		return xa_metadir_tree_check(ctx);
	}
	root->reached = 1;
	root->parent = root->ino;
	st.pptrs = xfmt_geom_has_parent(&ctx->geom);
	rc = enqueue(&st, root->ino);
	if (!rc)
		rc = walk_tree(&st);
	free(st.queue);
	if (!rc && st.pptrs)
		rc = xa_pptr_check(ctx, &st.entries, &st.unread);
	xa_pptr_list_release(&st.entries);
	xa_u64set_release(&st.unread);
	if (rc)
		return rc;

	{
		struct xa_u64set unlinked = { 0 };

		rc = unlinked_lists(ctx, &unlinked);
		if (!rc)
			rc = report_names(ctx, &st, &unlinked);
		xa_u64set_release(&unlinked);
	}
	/* after the user's tree: a metadata file it names is its fault */
	return rc ? rc : xa_metadir_tree_check(ctx);
}

/*
 * A quota inode the superblock names is an allocated regular file no
 * directory names (otherwise quota accounting would write into someone's
 * file, or into nothing): xfs_repair drops it and rechecks quotas.
 */
static void check_quota_inodes(struct xa_ctx *ctx)
{
	const struct xfmt_sb *sb = &ctx->sb;
	static const char *const names[] = { "uquotino", "gquotino", "pquotino" };
	static const unsigned offs[] = { 160, 168, 232 };
	const uint64_t q[] = { sb->uquotino, sb->gquotino, sb->pquotino };
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "sb" };

	for (unsigned i = 0; i < (ctx->geom.v5 ? 3u : 2u); i++) {
		const struct xa_irec *r;

		if (q[i] == 0 || q[i] == XFS_NULLFSINO || !xfmt_sb_ino_usable(&ctx->geom, q[i]))
			continue;  /* none, or judged by the superblock pass */
		r = xa_irec_find(ctx, q[i]);
		if (!r || (r->mode & 0170000u) != 0100000u || r->names || r->reached)
			xa_report(ctx, &loc, XP_sbBadQuotaIno, names[i], offs[i], q[i],
				  XPROB_HAS_OBSERVED);
	}
}

/*
 * The realtime bitmap and summary inodes the superblock names are allocated
 * regular files, even without a realtime section (mkfs makes them empty):
 * xfs_repair calls one that is free or of another type lost and makes it
 * anew.  Numbers that cannot be inodes are the superblock pass's.
 */
static void check_rt_inodes(struct xa_ctx *ctx)
{
	static const char *const names[] = { "rbmino", "rsumino" };
	const uint64_t rt[] = { ctx->sb.rbmino, ctx->sb.rsumino };
	struct xa_loc loc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "sb" };

	for (unsigned i = 0; i < 2; i++) {
		const struct xa_irec *r;

		if (rt[i] == XFS_NULLFSINO || !xfmt_sb_ino_usable(&ctx->geom, rt[i]))
			continue;
		r = xa_irec_find(ctx, rt[i]);
		if (!r || (r->mode & 0170000u) != 0100000u)
			xa_report(ctx, &loc, XP_nsRtInodeGone, names[i], 0, rt[i], XPROB_HAS_OBSERVED);
	}
}

/* Orphans and link counts, once the tree has been walked. */
static int report_names(struct xa_ctx *ctx, const struct ns_state *st,
			const struct xa_u64set *unlinked)
{
	check_quota_inodes(ctx);
	for (size_t i = 0; i < ctx->nirecs; i++) {
		struct xa_irec *r = &ctx->irecs[i];
		struct xa_loc loc;

		/* An unlinked pointer on an inode no unlinked list holds: a
		 * chain into it would lose or free it (xfs_repair clears it). */
		if (r->linked_on && !xa_u64set_has(unlinked, r->ino)) {
			loc_inode(ctx, &loc, r->ino);
			xa_report(ctx, &loc, XP_inoBadNextUnlinked, "next_unlinked", 0, 0, 0);
		}
		if (xa_is_metadata_inode(ctx, r->ino))
			continue;
		loc_inode(ctx, &loc, r->ino);
		if (!r->reached) {
			if (r->nlink == 0 && xa_u64set_has(unlinked, r->ino))
				xa_report(ctx, &loc, XP_nsUnlinkedOpen, NULL, 0, 0, 0);
			else
				xa_report(ctx, &loc, is_dir_mode(r->mode) ? XP_nsOrphanDir : XP_nsOrphan,
					  NULL, 0, 0, 0);
			continue;
		}
		/* With a directory unread, names may be missing: don't guess. */
		if (st->incomplete)
			continue;
		{
			uint64_t want = is_dir_mode(r->mode) ? 2ull + r->subdirs : r->names;

			if (want != r->nlink)
				xa_report(ctx, &loc, XP_nsBadLinkCount, "nlink", want, r->nlink,
					  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		}
	}
	return 0;
}
