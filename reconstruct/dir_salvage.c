/*
 * dir_salvage.c - a directory whose inode core was destroyed, brought back
 * from what still describes it.
 *
 * xfs_repair clears such an inode and its children end in lost+found.  Its
 * entries usually survive elsewhere: the rmapbt still names the directory's
 * data blocks (owner = the inode, file offsets below the leaf segment), and
 * each of those blocks still holds its entries; for a short-form directory
 * the entries sit in the literal area, which a damaged core field (a magic
 * or a mode) does not touch.  A revived directory gets a fresh core and is
 * rewritten by the namespace phase like any other, so its children stay at
 * their paths.
 *
 * On v5 without an rmapbt the blocks are found by the owner each data
 * block's header names, in the space nothing else owns.
 *
 * A block that is gone on disk (zeroed, overwritten) may still be in the
 * log: every entry added to a directory block was logged, so a log that
 * has not wrapped since holds the whole block.  On v5 such a copy names its
 * owner and its own address, and is taken where the disk no longer holds a
 * block of the directory and nothing else owns the place; the entries are
 * as the log last saw them, and the report says the log gave them.
 *
 * What counts as the directory's block is checked hard, because the bytes
 * are read on the word of the rmapbt alone: the block's magic must be a
 * data or single-block magic, on v5 its owner field must name the inode,
 * and every record must parse; a short-form area must parse entry by entry
 * with legal names and inode numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/log/log_stale.h"
#include "formats/block.h"
#include "formats/dinode.h"
#include "formats/log_item.h"
#include "formats/dir2.h"
#include "formats/endian.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/u64set.h"
#include "analyzer/scan/fork_walk.h"
#include "reconstruct/repair_int.h"
#include "reconstruct/rmap_owners.h"

/* Not a directory block / not a short-form directory (never an xerr). */
#define NOT_DIR (-1000)

/* Entries of one data block; NOT_DIR if it is not a block of directory ino. */
static int salvage_block(struct xr_rp *rp, uint64_t ino, const uint8_t *blk,
			 xa_dirent_fn fn, void *arg, uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	enum xfmt_blk_kind kind = xfmt_blk_classify(blk, g->dirblksize, xfmt_blk_ver_of(g->v5));
	bool block_form = kind == XFMT_BLK_DIR_BLOCK;
	struct xfmt_dir2_data_hdr h;
	struct xfmt_dirent de;
	size_t pos = 0;
	int r, n = 0;

	if (!xfmt_blk_is_dir_data(kind))
		return NOT_DIR;
	if (xfmt_dir2_data_hdr_decode(blk, g->dirblksize, g->v5, &h) != 0 ||
	    (g->v5 && h.owner != ino))
		return NOT_DIR;
	while ((r = xfmt_dir2_data_next(blk, g->dirblksize, g, block_form, &pos, &de)) == 1) {
		int dots = xfmt_dir2_name_dots(de.name, de.namelen);

		if (dots == 2)
			*dotdot = de.ino;
		if (dots)
			continue;
		if (fn) {
			int rc = fn(arg, &de);

			if (rc)
				return rc;
		}
		n++;
	}
	return n;
}

/*
 * The log's copy of the directory block at daddr as a block of ino: on v5
 * only, where the copy's header names ino, its own address and this
 * filesystem.  The entries as salvage_block gives them, NOT_DIR when there
 * is no such copy; a copy taken is counted in rp->salvage_nlog.
 */
static int log_block_entries(struct xr_rp *rp, uint64_t ino, uint64_t daddr, xa_dirent_fn fn,
			     void *arg, uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	const struct xa_stale_buf *b;
	struct xfmt_dir2_data_hdr h;
	int n;

	if (!g->v5 || rp_stale_prepare(rp) != 0)
		return NOT_DIR;
	b = xa_stale_buf_find(&rp->stale, daddr);
	if (!b || b->len != g->dirblksize ||
	    xfmt_dir2_data_hdr_decode(b->data, b->len, true, &h) != 0 || h.owner != ino ||
	    h.blkno != daddr || memcmp(h.uuid, g->meta_uuid, 16) != 0)
		return NOT_DIR;
	n = salvage_block(rp, ino, b->data, fn, arg, dotdot);
	if (n >= 0) {
		rp->salvage_nlog++;
		if (b->lsn > rp->salvage_lsn)
			rp->salvage_lsn = b->lsn;
	}
	return n;
}

/* From the rmapbt: every data block the directory owned.  Returns the
 * number of blocks that held entries, or a negative xerr. */
static int from_rmap(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg,
		     uint64_t *dotdot)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t fsbpd = 1u << g->dirblklog;
	uint64_t leaf = xfmt_dir2_leaf_firstda(g);
	uint8_t *blk = malloc(g->dirblksize);
	/* Blocks already salvaged: hostile records can name one block at many
	 * offsets, and its entries are taken once. */
	struct xa_u64set seen = { 0 };
	size_t first, nrefs;
	int found = 0, rc;

	if (!blk)
		return XERR_NOMEM;
	rc = rp_rmap_owners_build(&rp->rmo, ctx);
	if (rc) {
		free(blk);
		return rc;
	}
	nrefs = rp_rmap_owner_refs(&rp->rmo, ino, &first);
	for (size_t j = first; j < first + nrefs; j++) {
		uint32_t a = rp->rmo.refs[j].agno;
		const struct xa_ownrec *r = rp_rmap_ref_rec(ctx, &rp->rmo.refs[j]);

		if ((r->flags & (XA_OWN_ATTR | XA_OWN_BMBT)) || r->offset >= leaf)
			continue;
		/* the record's numbers are the rmapbt's: inside the AG, or
		 * nothing is read on their word */
		if (r->agbno >= xfmt_geom_ag_length(g, a) ||
		    r->len > xfmt_geom_ag_length(g, a) - r->agbno)
			continue;
		for (uint64_t k = 0; k < r->len; k++) {
			uint64_t off = r->offset + k;
			int n, seen_rc;

			if (off % fsbpd || k + fsbpd > r->len || off >= leaf)
				continue;
			seen_rc = xa_u64set_add(&seen, xfmt_geom_fsb(g, a,
						(uint32_t)(r->agbno + k)));
			if (seen_rc < 0) {
				free(blk);
				xa_u64set_release(&seen);
				return XERR_NOMEM;
			}
			if (seen_rc == 0)
				continue;
			n = NOT_DIR;
			if (ximg_pread(ctx->img, blk, g->dirblksize,
				       xfmt_geom_agbno_byte(g, a, (uint32_t)(r->agbno + k))) == 0)
				n = salvage_block(rp, ino, blk, fn, arg, dotdot);
			if (n == NOT_DIR)   /* gone on disk: the log's copy */
				n = log_block_entries(rp, ino,
						      xfmt_geom_agbno_daddr(g, a,
							      (uint32_t)(r->agbno + k)),
						      fn, arg, dotdot);
			if (n == NOT_DIR)
				continue;
			if (n < 0) {
				free(blk);
				xa_u64set_release(&seen);
				return n;
			}
			rp_space_hold(rp, a, (uint32_t)(r->agbno + k), fsbpd);
			found++;
		}
	}
	free(blk);
	xa_u64set_release(&seen);
	return found;
}

static int cmp_dblk(const void *x, const void *y)
{
	const struct rp_dblk *a = x, *b = y;

	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->agno != b->agno)
		return a->agno < b->agno ? -1 : 1;
	return a->agbno < b->agbno ? -1 : a->agbno > b->agbno;
}

/* The first of the n sorted entries v naming owner ino (n if none). */
static size_t dblk_first(const struct rp_dblk *v, size_t n, uint64_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].owner < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].owner == ino ? lo : n;
}

/* Whether AG a's directory blocks can only be found by their headers: v5
 * without an rmapbt, or an rmapbt that could not be walked there. */
static bool owner_scan_ag(const struct xa_ctx *ctx, uint32_t a)
{
	return ctx->geom.v5 &&
	       (!xfmt_geom_has_rmapbt(&ctx->geom) || !ctx->ags[a].bt[XA_BT_RMAP].walked);
}

/*
 * v5 where no rmapbt names a lost directory's blocks (none, or the AG's is
 * unreadable): every directory data block carries its owner.  One pass over
 * the blocks nothing owns in those AGs (a directory whose inode was lost
 * has no owner in the forward map) notes each data or block-form header;
 * the result is sorted by owner for look-ups.  Bounded by the AGs' size;
 * only run when some directory needs it.
 */
/* The unowned blocks' headers are read this many bytes at a time (one
 * call per block was half a million calls for an AG of free space). */
#define DSCAN_WINDOW_BYTES (1u << 20)

static int build_dscan(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t fsbpd = 1u << g->dirblklog;
	uint32_t win = DSCAN_WINDOW_BYTES >> g->blocklog ? DSCAN_WINDOW_BYTES >> g->blocklog : 1;
	uint8_t hdr[64], *wbuf = malloc((size_t)win << g->blocklog);
	size_t cap = 0;

	if (!wbuf)
		return XERR_NOMEM;
	rp->dscan_built = true;
	for (uint32_t a = 0; a < ctx->nags; a++) {
		const struct xa_bitmap *own = rp_space_owned(rp, a);
		uint32_t len = xfmt_geom_ag_length(g, a);

		if (!own || !owner_scan_ag(ctx, a) || len < fsbpd)
			continue;
		for (uint32_t w0 = 0; w0 + fsbpd <= len; w0 += win) {
			/* the blocks a header may start at: b + fsbpd <= len */
			uint32_t n = len - fsbpd + 1 - w0 < win ? len - fsbpd + 1 - w0 : win, b;
			bool whole;

			for (b = w0; b < w0 + n && xa_bitmap_test(own, b); b++)
				;
			if (b == w0 + n)
				continue;
			/* a hole of a sparse image holds no directory block */
			if (ximg_is_hole(ctx->img, xfmt_geom_agbno_byte(g, a, w0),
					 (size_t)n << g->blocklog))
				continue;
			whole = ximg_pread(ctx->img, wbuf, (size_t)n << g->blocklog,
					   xfmt_geom_agbno_byte(g, a, w0)) == 0;
			for (b = w0; b < w0 + n; b++) {
				struct xfmt_dir2_data_hdr h;

				if (xa_bitmap_test(own, b))
					continue;
				if (whole)
					memcpy(hdr, wbuf + ((size_t)(b - w0) << g->blocklog), sizeof(hdr));
				else if (ximg_pread(ctx->img, hdr, sizeof(hdr),
						    xfmt_geom_agbno_byte(g, a, b)) != 0)
					continue;
				if (!xfmt_blk_is_dir_data(xfmt_blk_classify(hdr, sizeof(hdr),
									    XFMT_BLK_V5)))
					continue;
				if (xfmt_dir2_data_hdr_decode(hdr, sizeof(hdr), true, &h) != 0 ||
				    !xfmt_geom_ino_valid(g, h.owner) ||
				    h.blkno != xfmt_geom_agbno_byte(g, a, b) >> 9 ||
				    memcmp(h.uuid, g->meta_uuid, 16) != 0)
					continue;
				if (rp->ndscan == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					struct rp_dblk *nv = realloc(rp->dscan, ncap * sizeof(*nv));

					if (!nv) {
						free(wbuf);
						return XERR_NOMEM;
					}
					rp->dscan = nv;
					cap = ncap;
				}
				rp->dscan[rp->ndscan].owner = h.owner;
				rp->dscan[rp->ndscan].agno = a;
				rp->dscan[rp->ndscan].agbno = b;
				rp->ndscan++;
			}
		}
	}
	free(wbuf);
	if (rp->ndscan > 1)
		qsort(rp->dscan, rp->ndscan, sizeof(*rp->dscan), cmp_dblk);
	return 0;
}

/*
 * The blocks of ino in the sorted list v (n entries, the owner scan's or
 * the log scan's): each read from the disk, or with from_log from the log's
 * copy of it, salvaged and held.  The number taken, or a negative xerr.
 */
static int take_listed(struct xr_rp *rp, uint64_t ino, const struct rp_dblk *v, size_t n,
		       bool from_log, xa_dirent_fn fn, void *arg, uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *blk = NULL;
	int found = 0;

	if (!from_log && !(blk = malloc(g->dirblksize)))
		return XERR_NOMEM;
	for (size_t i = dblk_first(v, n, ino); i < n && v[i].owner == ino; i++) {
		int got = NOT_DIR;

		if (from_log)
			got = log_block_entries(rp, ino, xfmt_geom_agbno_daddr(g, v[i].agno, v[i].agbno),
						fn, arg, dotdot);
		else if (ximg_pread(rp->ctx->img, blk, g->dirblksize,
				    xfmt_geom_agbno_byte(g, v[i].agno, v[i].agbno)) == 0)
			got = salvage_block(rp, ino, blk, fn, arg, dotdot);
		if (got == NOT_DIR)
			continue;
		if (got < 0) {
			found = got;
			break;
		}
		rp_space_hold(rp, v[i].agno, v[i].agbno, 1u << g->dirblklog);
		found++;
	}
	free(blk);
	return found;
}

/* From the owner scan: the blocks whose header names ino. */
static int from_owner(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg,
		      uint64_t *dotdot)
{
	bool any = false;
	int rc;

	for (uint32_t a = 0; a < rp->ctx->nags && !any; a++)
		any = owner_scan_ag(rp->ctx, a);
	if (!any)
		return 0;
	if (!rp->dscan_built) {
		rc = build_dscan(rp);
		if (rc)
			return rc;
	}
	return take_listed(rp, ino, rp->dscan, rp->ndscan, false, fn, arg, dotdot);
}

/* The AG and block of daddr when it starts a whole directory block inside
 * an AG. */
static bool daddr_agbno(const struct xfmt_geom *g, uint32_t nags, uint64_t daddr, uint32_t *agno,
			uint32_t *agbno)
{
	uint64_t byte = daddr << 9, agbytes = (uint64_t)g->agblocks << g->blocklog;

	/* a log item's address: hostile, and shifted above */
	if (!agbytes || daddr > (g->dblocks << g->blocklog) >> 9 || byte % g->blocksize)
		return false;
	*agno = (uint32_t)(byte / agbytes);
	*agbno = (uint32_t)((byte % agbytes) >> g->blocklog);
	return *agno < nags &&
	       (uint64_t)*agbno + (1u << g->dirblklog) <= xfmt_geom_ag_length(g, *agno);
}

/*
 * Where the owner scan is the way (v5 without a usable rmapbt): the log's
 * copies of directory blocks at places nothing owns and where the disk no
 * longer holds that directory's block, noted once (by owner) before any
 * salvage holds a place.  Bounded by the copies the log sweep kept.
 */
static int build_lscan(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint8_t *blk;
	int rc;

	rp->lscan_built = true;
	if (!g->v5)
		return 0;
	rc = rp_stale_prepare(rp);
	if (rc || !rp->stale.nbufs)
		return rc;
	blk = malloc(g->dirblksize);
	if (!blk)
		return XERR_NOMEM;
	rp->lscan = malloc(rp->stale.nbufs * sizeof(*rp->lscan));
	if (!rp->lscan) {
		free(blk);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < rp->stale.nbufs; i++) {
		const struct xa_stale_buf *b = &rp->stale.bufs[i];
		const struct xa_bitmap *own;
		struct xfmt_dir2_data_hdr h, dh;
		uint32_t a, agbno;

		if (!b->data || b->len != g->dirblksize ||
		    !daddr_agbno(g, ctx->nags, b->daddr, &a, &agbno) || !owner_scan_ag(ctx, a) ||
		    !xfmt_blk_is_dir_data(xfmt_blk_classify(b->data, b->len, XFMT_BLK_V5)) ||
		    xfmt_dir2_data_hdr_decode(b->data, b->len, true, &h) != 0 ||
		    !xfmt_geom_ino_valid(g, h.owner) || h.blkno != b->daddr ||
		    memcmp(h.uuid, g->meta_uuid, 16) != 0)
			continue;
		own = rp_space_owned(rp, a);
		if (!own || xa_bitmap_test(own, agbno))
			continue;
		/* the disk still holds a block of that directory there */
		if (ximg_pread(ctx->img, blk, g->dirblksize, b->daddr << 9) == 0 &&
		    xfmt_blk_is_dir_data(xfmt_blk_classify(blk, g->dirblksize, XFMT_BLK_V5)) &&
		    xfmt_dir2_data_hdr_decode(blk, g->dirblksize, true, &dh) == 0 &&
		    dh.owner == h.owner)
			continue;
		rp->lscan[rp->nlscan].owner = h.owner;
		rp->lscan[rp->nlscan].agno = a;
		rp->lscan[rp->nlscan].agbno = agbno;
		rp->nlscan++;
	}
	free(blk);
	if (rp->nlscan > 1)
		qsort(rp->lscan, rp->nlscan, sizeof(*rp->lscan), cmp_dblk);
	return 0;
}

/* From the log scan: the copies of ino's blocks.  The number taken, or a
 * negative xerr. */
static int from_log_blocks(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg,
			   uint64_t *dotdot)
{
	int rc;

	if (!rp->lscan_built) {
		rc = build_lscan(rp);
		if (rc)
			return rc;
	}
	return take_listed(rp, ino, rp->lscan, rp->nlscan, true, fn, arg, dotdot);
}

/*
 * Directory ino, whose inode stands, could not be read whole: the log's
 * copies of the data blocks its fork maps where the disk no longer holds a
 * block of ino (log_block_entries).  The number of blocks taken, or a
 * negative xerr.
 */
int rp_dir_log_blocks(struct xr_rp *rp, const struct xa_inode *dir, xa_dirent_fn fn, void *arg)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;
	uint64_t leaf_da = xfmt_dir2_leaf_firstda(g);
	struct xa_u64set seen = { 0 };
	struct xa_extents ex;
	uint8_t *blk;
	int found = 0, rc;

	if (!g->v5 || (dir->d.format != XFS_DINODE_FMT_EXTENTS &&
		       dir->d.format != XFS_DINODE_FMT_BTREE))
		return 0;
	rc = rp_stale_prepare(rp);
	if (rc)
		return rc;
	if (!rp->stale.nbufs)
		return 0;
	rc = xa_extents_load(ctx, dir, XA_DATA_FORK, &ex);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	blk = malloc(g->dirblksize);
	if (!blk) {
		xa_extents_release(&ex);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ex.n && found >= 0; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t end = r->startoff + r->blockcount;

		for (uint64_t da = (r->startoff + per - 1) / per * per; da < end && da < leaf_da;
		     da += per) {
			uint64_t byte = UINT64_MAX, ignore = 0;   /* unset: skipped */
			int got = xa_dir_read_block(ctx, &ex, da, blk, &byte, &seen), n;

			if (got == XERR_NOMEM) {
				found = got;
				break;
			}
			/* a hole, a block read at another offset already: nothing
			 * here; a read error: the block is as good as gone (and
			 * blk holds nothing of it); else gone only where it no
			 * longer reads as a block of the directory */
			if (got == XERR_RANGE || got == XA_DIRBLOCK_SEEN || byte % 512 ||
			    (got == 0 && salvage_block(rp, dir->ino, blk, NULL, NULL, &ignore) !=
						 NOT_DIR))
				continue;
			n = log_block_entries(rp, dir->ino, byte >> 9, fn, arg, &ignore);
			if (n == NOT_DIR)
				continue;
			if (n < 0) {
				found = n;
				break;
			}
			found++;
		}
	}
	free(blk);
	xa_u64set_release(&seen);
	xa_extents_release(&ex);
	return found;
}

/* The literal area of raw (an inode's bytes) as a short-form directory;
 * the count of entries, NOT_DIR when it does not parse cleanly, or a
 * negative xerr from fn. */
static int literal_entries(struct xr_rp *rp, const uint8_t *raw, xa_dirent_fn fn, void *arg,
			   uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	size_t core = g->v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE;
	size_t size = g->inodesize - core, pos = 0;
	struct xfmt_dir2_sf_hdr h;
	struct xfmt_dirent de;
	int n = 0, rc = NOT_DIR;

	if (xfmt_dir2_sf_hdr_decode(raw + core, size, &h) != 0 || h.count == 0 ||
	    !xfmt_dir2_ino_ok(g, h.parent))
		goto out;
	/* First a dry pass: everything must parse before anything is taken. */
	for (int pass = 0; pass < 2; pass++) {
		pos = 0;
		n = 0;
		while (n < h.count) {
			if (xfmt_dir2_sf_next(raw + core, size, g, &pos, &de) != 1 ||
			    !xfmt_dir2_name_ok(de.name, de.namelen) ||
			    xfmt_dir2_name_dots(de.name, de.namelen) || !xfmt_dir2_ino_ok(g, de.ino))
				goto out;
			if (pass && fn) {
				int frc = fn(arg, &de);

				if (frc) {
					rc = frc;
					goto out;
				}
			}
			n++;
		}
	}
	*dotdot = h.parent;
	rc = n;
out:
	return rc;
}

/* From the inode's own literal area (a damaged core field leaves it). */
static int from_literal(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg,
			uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint8_t *raw = malloc(g->inodesize);
	int rc = NOT_DIR;

	if (!raw)
		return XERR_NOMEM;
	if (ximg_pread(rp->ctx->img, raw, g->inodesize, xfmt_geom_ino_byte(g, ino)) == 0)
		rc = literal_entries(rp, raw, fn, arg, dotdot);
	free(raw);
	return rc;
}

/*
 * The last logged state of every inode the log region names, from one sweep
 * on the first need: entries, whole inodes and the evidence that a lost
 * chunk held inodes all come from it (log_stale.h).
 */
int rp_stale_prepare(struct xr_rp *rp)
{
	if (rp->stale_built)
		return 0;
	rp->stale_built = true;
	return xa_log_stale_collect(rp->ctx, &rp->stale);
}

const struct xa_stale_inode *rp_stale_inode(struct xr_rp *rp, uint64_t ino)
{
	if (rp_stale_prepare(rp) != 0)
		return NULL;
	return xa_stale_find(&rp->stale, ino);
}

/* From the last copy the log holds of a short-form directory's fork. */
static int from_log(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg, uint64_t *dotdot)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	const struct xa_stale_inode *si = rp_stale_inode(rp, ino);
	struct xfmt_dinode d;

	if (!si || !(si->fields & XFS_ILOG_DDATA) ||
	    xfmt_dinode_decode(si->dip, g->inodesize, g, &d) != 0 ||
	    (d.mode & XFMT_S_IFMT) != XFMT_S_IFDIR || d.format != XFS_DINODE_FMT_LOCAL)
		return NOT_DIR;
	return literal_entries(rp, si->dip, fn, arg, dotdot);
}

int rp_dir_salvage(struct xr_rp *rp, uint64_t ino, xa_dirent_fn fn, void *arg, uint64_t *dotdot)
{
	int rc, lrc;

	*dotdot = 0;
	rp->salvage_lsn = 0;
	rp->salvage_nlog = 0;
	rp->salvage_source = "directory-blocks";
	rc = from_rmap(rp, ino, fn, arg, dotdot);
	if (rc == 0)
		rc = from_owner(rp, ino, fn, arg, dotdot);
	if (rc < 0)
		return rc;
	lrc = from_log_blocks(rp, ino, fn, arg, dotdot);
	if (lrc < 0)
		return lrc;
	if (rp->salvage_nlog)
		rp->salvage_source = rp->salvage_nlog < (size_t)rc + (size_t)lrc ?
				     "directory-blocks-and-log" : "log-blocks";
	else
		rp->salvage_lsn = 0;
	if (rc + lrc > 0)
		return 1;
	rp->salvage_source = "literal-area";
	rc = from_literal(rp, ino, fn, arg, dotdot);
	if (rc == NOT_DIR) {
		const struct xa_stale_inode *si;

		rc = from_log(rp, ino, fn, arg, dotdot);
		rp->salvage_source = "log";
		if (rc != NOT_DIR && (si = rp_stale_inode(rp, ino)))
			rp->salvage_lsn = si->lsn;
	}
	if (rc == NOT_DIR)
		return 0;
	return rc < 0 ? rc : 1;
}

const char *rp_salvage_source_text(const char *source)
{
	if (!strcmp(source, "log") || !strcmp(source, "log-blocks"))
		return "the log";
	if (!strcmp(source, "directory-blocks-and-log"))
		return "its blocks and the log's copies of them";
	if (!strcmp(source, "literal-area"))
		return "its literal area";
	if (!strcmp(source, "parent-pointers"))
		return "its children's parent pointers";
	return "its blocks";
}
