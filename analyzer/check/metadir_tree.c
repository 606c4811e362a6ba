/*
 * metadir_tree.c - the metadata directory tree checked from its root (see
 * metadir_tree.h).
 *
 * Breadth first from sb_metadirino; a directory is queued only when it is
 * first named, so a loop ends the walk.  The tree is small (a few files per
 * realtime group, three quota files), but nothing here assumes it: memory
 * is the queue and a set of the inodes named.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/metadir_tree.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/u64set.h"
#include "formats/dir2.h"

struct md_dir {
	uint64_t ino;
	uint64_t parent;
};

struct md_walk {
	struct xa_ctx    *ctx;
	struct md_dir    *queue;
	size_t            qhead, qlen, qcap;
	struct xa_u64set  named;      /* every inode an entry of the tree names */
	struct xa_loc     loc;        /* the directory being read */
	const struct md_dir *dir;
	uint32_t          subdirs;
	uint64_t          dotdot;
	bool              have_dotdot;
	bool              incomplete; /* a directory could not be read whole */
};

static bool is_dir(uint16_t mode)
{
	return (mode & 0170000u) == 0040000u;
}

static void loc_inode(const struct xa_ctx *ctx, struct xa_loc *loc, uint64_t ino)
{
	memset(loc, 0, sizeof(*loc));
	loc->has = XPROB_HAS_AG | XPROB_HAS_INO | XPROB_HAS_BYTE;
	loc->agno = xfmt_geom_ino_agno(&ctx->geom, ino);
	loc->ino = ino;
	loc->byte = xfmt_geom_ino_byte(&ctx->geom, ino);
	loc->what = "metadata directory";
}

static int enqueue(struct md_walk *w, uint64_t ino, uint64_t parent)
{
	if (xa_grow((void **)&w->queue, &w->qcap, w->qlen + 1, sizeof(*w->queue)))
		return XERR_NOMEM;
	w->queue[w->qlen++] = (struct md_dir){ ino, parent };
	return 0;
}

static void bad_entry(struct md_walk *w, const struct xfmt_dirent *de, const char *why)
{
	struct xprob p = {
		.code = XP_nsMetadirBadEntry, .has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED,
		.field = why, .off = de->offset, .observed = de->ino,
	};

	xa_findings_add(&w->ctx->findings, &p, &w->loc);
}

static int entry_fn(void *arg, const struct xfmt_dirent *de)
{
	struct md_walk *w = arg;
	struct xa_ctx *ctx = w->ctx;
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);
	const struct xa_irec *child;
	int added;

	if (dots == 1) {
		if (de->ino != w->dir->ino)
			bad_entry(w, de, "a '.' entry naming another inode");
		return 0;
	}
	if (dots == 2) {
		w->dotdot = de->ino;
		w->have_dotdot = true;
		return 0;
	}
	child = xa_irec_find(ctx, de->ino);
	if (!child || !child->metafile || child->names) {
		/* a free inode, or a user's file (names: the user's tree
		 * names it, so its metadata flag is the fault there) */
		bad_entry(w, de, "which is not an allocated metadata file");
		return 0;
	}
	if (xfmt_geom_has_ftype(&ctx->geom) && de->ftype != xfmt_dir3_ftype_from_mode(child->mode)) {
		bad_entry(w, de, "with another file type than the inode's");
		return 0;
	}
	added = child->ino == ctx->sb.metadirino ? 0 : xa_u64set_add(&w->named, child->ino);
	if (added < 0)
		return XERR_NOMEM;
	if (added == 0) {
		bad_entry(w, de, "which another entry names already");
		return 0;
	}
	if (!is_dir(child->mode))
		return 0;
	w->subdirs++;
	return enqueue(w, child->ino, w->dir->ino);
}

/* The link count a metadata inode of the tree must have. */
static void check_nlink(struct md_walk *w, const struct xa_irec *r, uint32_t want)
{
	struct xa_loc loc;

	if (r->nlink == want)
		return;
	loc_inode(w->ctx, &loc, r->ino);
	xa_report(w->ctx, &loc, XP_nsMetadirBadLinkCount, "nlink", want, r->nlink,
		  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
}

static int walk(struct md_walk *w)
{
	struct xa_ctx *ctx = w->ctx;

	while (w->qhead < w->qlen) {
		struct md_dir d = w->queue[w->qhead++];
		const struct xa_irec *r = xa_irec_find(ctx, d.ino);
		struct xa_loc_sink verify;
		struct xa_inode ip;
		bool complete = true;
		int rc;

		if (!r)
			continue;
		loc_inode(ctx, &w->loc, d.ino);
		w->dir = &d;
		w->subdirs = 0;
		w->have_dotdot = false;
		rc = xa_inode_read(ctx, d.ino, &ip);
		if (rc == XERR_NOMEM)
			return rc;
		if (rc) {
			w->incomplete = true;
			continue;
		}
		xa_loc_sink_init(&verify, &ctx->findings);
		rc = xa_dir_iterate(ctx, &ip, &verify, entry_fn, w, &complete);
		xa_inode_release(&ip);
		if (rc == XERR_NOMEM)
			return rc;
		if (rc || !complete) {
			w->incomplete = true;
			xa_report(ctx, &w->loc, XP_nsDirIncomplete, NULL, 0, 0, 0);
			continue;
		}
		if (w->have_dotdot && w->dotdot != d.parent)
			xa_report(ctx, &w->loc, XP_nsMetadirBadDotdot, NULL, d.parent, w->dotdot,
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		check_nlink(w, r, 2u + w->subdirs);
	}
	return 0;
}

static bool meta_dir(const struct xa_irec *r)
{
	return r && is_dir(r->mode) && r->metafile && !r->names;
}

/* Does metadata directory ino's ".." name itself, as the tree's root's does? */
static bool names_itself(struct xa_ctx *ctx, uint64_t ino)
{
	struct xa_inode ip;
	bool self = false;

	if (xa_inode_read(ctx, ino, &ip) != 0)
		return false;
	if (ip.d.format == XFS_DINODE_FMT_LOCAL && ip.d.dfork_off + ip.d.dfork_size <= ip.len) {
		struct xfmt_dir2_sf_hdr h;

		self = xfmt_dir2_sf_hdr_decode(ip.raw + ip.d.dfork_off, ip.d.dfork_size, &h) == 0 &&
		       h.parent == ino;
	}
	xa_inode_release(&ip);
	return self;
}

uint64_t xa_metadir_root_guess(struct xa_ctx *ctx)
{
	uint64_t next = ctx->sb.rootino + 1;

	if (xfmt_sb_ino_usable(&ctx->geom, ctx->sb.rootino) && meta_dir(xa_irec_find(ctx, next)))
		return next;
	for (size_t i = 0; i < ctx->nirecs; i++)
		if (meta_dir(&ctx->irecs[i]) && names_itself(ctx, ctx->irecs[i].ino))
			return ctx->irecs[i].ino;
	return 0;
}

int xa_metadir_tree_check(struct xa_ctx *ctx)
{
	struct xa_loc sbloc = { XPROB_HAS_AG | XPROB_HAS_BYTE, 0, 0, 0, 0, "sb" };
	uint64_t root = ctx->sb.metadirino;
	struct md_walk w;
	int rc;

	if (!xfmt_geom_has_metadir(&ctx->geom))
		return 0;
	if (!meta_dir(xa_irec_find(ctx, root))) {
		/* the superblock's number may be the damage, not the tree */
		uint64_t guess = xa_metadir_root_guess(ctx);

		if (!guess) {
			xa_report(ctx, &sbloc, XP_nsMetadirRootLost, "metadirino", 0, root,
				  XPROB_HAS_OBSERVED);
			return 0;
		}
		xa_report(ctx, &sbloc, XP_sbMetadirInoWrong, "metadirino", guess, root,
			  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
		root = guess;
	}
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	rc = enqueue(&w, root, root);
	if (!rc)
		rc = walk(&w);
	for (size_t i = 0; !rc && i < ctx->nirecs; i++) {
		const struct xa_irec *m = &ctx->irecs[i];
		struct xa_loc loc;

		if (!m->metafile || m->ino == root || m->names)
			continue;
		if (!xa_u64set_has(&w.named, m->ino)) {
			/* with a directory unread, its children are unknown */
			if (!w.incomplete) {
				loc_inode(ctx, &loc, m->ino);
				loc.what = "inode";
				xa_report(ctx, &loc, XP_nsMetadirOrphan, NULL, 0, 0, 0);
			}
			continue;
		}
		if (!is_dir(m->mode))
			check_nlink(&w, m, 1);
	}
	free(w.queue);
	xa_u64set_release(&w.named);
	return rc;
}
