/*
 * pass_inodes.c - every inode the inode btree says exists.
 *
 * Checks: each inobt record's chunk lies on blocks no other metadata claims;
 * every present inode (holes of sparse chunks are skipped: those blocks may
 * belong to someone else) is decoded and verified; the inobt free bit agrees
 * with the inode's mode.
 * Each in-use inode's fork mappings are walked (bmbt blocks verified and
 * claimed) and di_nblocks / the extent counts compared with what they map.
 * Leaves: per-AG counts of inodes checked and in use; the chunk and bmbt
 * blocks claimed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/cache.h"
#include "analyzer/io/prefetch.h"
#include "analyzer/model/file.h"
#include "analyzer/model/xattr.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/symlink.h"
#include "analyzer/scan/passes.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"

static int attr_ignore(void *arg, const struct xa_xattr *a)
{
	(void)arg;
	(void)a;
	return 0;
}

/* Walk both forks; compare what they map with nblocks and the extent counts. */
static int check_forks(struct xa_ctx *ctx, const struct xa_loc *loc, uint64_t ino,
		       const uint8_t *raw, const struct xfmt_dinode *d)
{
	struct xa_fork_result dr, ar;
	/* A realtime flag where it cannot be (no realtime section, not a
	 * regular file) is the flag's fault (inoBadFlags): the mappings are
	 * on the data device. */
	bool rt = xfmt_dinode_data_realtime(&ctx->geom, d);
	/* Mappings are noted as owners for the ownership pass. */
	struct xa_own_fork of = { ctx, ino, XA_DATA_FORK, rt };
	xa_fork_rec_fn own_fn = ctx->own ? xa_own_fork_rec : NULL;
	int rc;

	if (ctx->own && (d->flags2 & XFS_DIFLAG2_REFLINK)) {
		rc = xa_own_note_reflink(ctx, ino);
		if (rc)
			return rc;
	}
	rc = xa_fork_walk(ctx, ino, raw, d, XA_DATA_FORK, true, own_fn, &of, &dr);
	if (rc)
		return rc;
	of.whichfork = XA_ATTR_FORK;
	of.realtime = false;
	rc = xa_fork_walk(ctx, ino, raw, d, XA_ATTR_FORK, true, own_fn, &of, &ar);
	if (rc)
		return rc;
	if (!dr.complete || !ar.complete)
		xa_own_mark_incomplete(ctx);
	/* A symlink's target: local bytes, or remote blocks with their headers. */
	if ((d->mode & 0170000u) == 0120000u) {
		struct xa_inode tmp = { ino, (uint8_t *)(uintptr_t)raw, ctx->geom.inodesize, *d };
		struct xa_loc_sink ls;
		uint8_t target[XFMT_SYMLINK_MAXLEN];
		size_t len;

		xa_loc_sink_init(&ls, &ctx->findings);
		ls.loc = *loc;
		ls.loc.what = "symlink";
		rc = xa_symlink_target(ctx, &tmp, target, &len, &ls.sink);
		if (rc == XERR_NOMEM)
			return rc;
	}
	/* Attribute forks: every block (leaf, node, remote value) verified. */
	if (d->has_attr_fork) {
		struct xa_inode tmp = { ino, (uint8_t *)(uintptr_t)raw, ctx->geom.inodesize, *d };
		struct xa_loc_sink ls;

		xa_loc_sink_init(&ls, &ctx->findings);
		ls.loc = *loc;
		rc = xa_xattr_iterate(ctx, &tmp, &ls, attr_ignore, NULL, NULL);
		if (rc)
			return rc;
	}
	if (!dr.complete || !ar.complete)
		return 0;
	/* Extent counts against the mappings: the fork walk reports those
	 * (bmapCountMismatch). */
	/* Realtime data lives on another device and is not in nblocks' sum. */
	if (!rt) {
		uint64_t want = dr.mapped_blocks + dr.bmbt_blocks + ar.mapped_blocks + ar.bmbt_blocks;

		if (want != d->nblocks)
			xa_report(ctx, loc, XP_inoBadNblocks, "nblocks", want, d->nblocks,
				  XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
	}
	return 0;
}

static int irec_add(struct xa_ctx *ctx, uint64_t ino, const struct xfmt_dinode *d)
{
	struct xa_irec *r;

	if (ctx->nirecs == ctx->irecs_cap) {
		size_t ncap = ctx->irecs_cap ? ctx->irecs_cap * 2 : 1024;
		struct xa_irec *n = realloc(ctx->irecs, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		ctx->irecs = n;
		ctx->irecs_cap = ncap;
	}
	r = &ctx->irecs[ctx->nirecs++];
	memset(r, 0, sizeof(*r));
	r->ino = ino;
	r->nlink = d->nlink;
	r->mode = d->mode;
	r->linked_on = d->next_unlinked != XFS_NULLAGINO;
	r->metafile = d->version >= 3 && (d->flags2 & XFS_DIFLAG2_METADATA) &&
		      xfmt_geom_has_metadir(&ctx->geom);
	return 0;
}

static int irec_cmp(const void *a, const void *b)
{
	const struct xa_irec *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * Claim the blocks of chunk c.  Every chunk of every AG is claimed before
 * any inode's fork is walked: a bmbt pointer gone astray into a chunk is
 * then the bmbt's fault (btSharedBlock on its inode), not an overlap of
 * the chunk with metadata, which would stop its AG from being rebuilt.
 * With more than 64 inodes per block (64 KiB blocks) chunks share a
 * block: the chunk holding its first slot claims it.
 */
static void claim_chunk(struct xa_ctx *ctx, struct xa_ag *ag, const struct xa_ichunk *c)
{
	const struct xfmt_geom *g = &ctx->geom;

	if (!xfmt_geom_agino_valid(g, ag->agno, c->startino))
		return;
	for (unsigned i = 0; i < XFS_INODES_PER_CHUNK; i++) {
		uint32_t agino = c->startino + i, agbno;

		if ((c->holemask >> (i / 4)) & 1)
			continue;
		if (!xfmt_geom_agino_valid(g, ag->agno, agino))
			break;
		if (xfmt_geom_agino_slot(g, agino) != 0)
			continue;
		agbno = xfmt_geom_agino_agbno(g, agino);
		if (xa_bitmap_set(&ag->claimed, agbno)) {
			struct xa_loc bl = {
				XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, agbno, 0,
				xfmt_geom_agbno_byte(g, ag->agno, agbno), "inode",
			};

			xa_report(ctx, &bl, XP_ichunkOverlapsMetadata, NULL, 0, agbno,
				  XPROB_HAS_OBSERVED);
			return;  /* once per chunk */
		}
	}
}

/*
 * Where chunk c's blocks lie, as one range: true and *off, *len when the
 * chunk spans more than one block (its 64 slots valid), false when it is
 * read a block at a time (a chunk inside one block is in the cache after
 * its first inode anyway).
 */
static bool chunk_range(const struct xfmt_geom *g, uint32_t agno, const struct xa_ichunk *c,
			uint64_t *off, size_t *len)
{
	uint32_t last = c->startino + XFS_INODES_PER_CHUNK - 1, a0, a1;

	if (!xfmt_geom_agino_valid(g, agno, c->startino) ||
	    !xfmt_geom_agino_valid(g, agno, last))
		return false;
	a0 = xfmt_geom_agino_agbno(g, c->startino);
	a1 = xfmt_geom_agino_agbno(g, last);
	if (a1 <= a0)
		return false;
	*off = xfmt_geom_agbno_byte(g, agno, a0);
	*len = (size_t)(a1 - a0 + 1) << g->blocklog;
	return true;
}

/* The most chunk_range gives: 64 inodes, and a block of slack. */
static size_t chunk_range_max(const struct xfmt_geom *g)
{
	return ((size_t)XFS_INODES_PER_CHUNK << g->inodelog) + g->blocksize;
}

/*
 * Check the inodes of chunk c.  pre, when not NULL, is what the prefetcher
 * read: pre_len bytes at pre_off (used when that is the chunk's range), and
 * pre_crc, when not NULL, the CRC of each inode-sized piece of it.
 */
static int check_chunk(struct xa_ctx *ctx, struct xa_ag *ag, const struct xa_ichunk *c,
		       const uint8_t *pre, const uint32_t *pre_crc, uint64_t pre_off,
		       size_t pre_len)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_loc_sink ls;
	struct xbuf *b = NULL;
	uint8_t fixed[XFMT_DINODE_MAX_SIZE];
	const uint8_t *raw;
	/* What is at hand: len bytes of the image at off (a whole chunk, or the
	 * block of the inode being read). */
	const uint8_t *data = NULL;
	uint64_t data_off = 0;
	size_t data_len = 0;
	bool whole = false;
	uint32_t cur_agbno = XFS_NULLAGBLOCK, first_agbno = XFS_NULLAGBLOCK;

	if (!xfmt_geom_agino_valid(g, ag->agno, c->startino))
		return 0;  /* reported by the record verifier */
	xa_loc_sink_init(&ls, &ctx->findings);
	/*
	 * The chunk's blocks in one read where they can be had so (one system
	 * call for 64 inodes instead of one per block: on a million inodes the
	 * calls were most of the pass), or already read ahead.  Where that read
	 * fails (the image's end, a sector of a bad-sector map) each block is
	 * read alone, so an error names its own block and the other blocks are
	 * still read.
	 */
	if (chunk_range(g, ag->agno, c, &data_off, &data_len)) {
		if (pre && pre_off == data_off && pre_len == data_len) {
			data = pre;
			whole = true;
		} else if (xcache_read(ctx->cache, data_off, data_len, &b) == 0) {
			data = b->data;
			whole = true;
		} else {
			b = NULL;
		}
		if (whole)
			first_agbno = xfmt_geom_agino_agbno(g, c->startino);
	}

	for (unsigned i = 0; i < XFS_INODES_PER_CHUNK; i++) {
		uint32_t agino = c->startino + i, agbno, slot;
		uint64_t ino, byte;
		struct xfmt_dinode d;
		bool is_free = (c->free >> i) & 1;

		if ((c->holemask >> (i / 4)) & 1)
			continue;
		if (!xfmt_geom_agino_valid(g, ag->agno, agino))
			break;
		agbno = xfmt_geom_agino_agbno(g, agino);
		slot = xfmt_geom_agino_slot(g, agino);
		ino = xfmt_geom_ino(g, ag->agno, agino);
		if (whole) {
			cur_agbno = agbno;   /* inside the chunk's range */
		} else if (agbno != cur_agbno) {
			struct xa_loc bl = {
				XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE, ag->agno, agbno, 0,
				xfmt_geom_agbno_byte(g, ag->agno, agbno), "inode",
			};

			xa_put(ctx, &b);
			data = NULL;
			cur_agbno = agbno;
			if (xa_read(ctx, bl.byte, g->blocksize, &b, &bl) != 0) {
				b = NULL;
				xa_own_mark_incomplete(ctx);
				continue;
			}
			data = b->data;
			data_off = b->off;
			data_len = b->len;
		}
		if (!data)
			continue;
		byte = (uint64_t)slot << g->inodelog;
		if (whole)
			byte += (uint64_t)(agbno - first_agbno) << g->blocklog;
		if (byte + g->inodesize > data_len)
			continue;

		ls.loc.has = XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_INO | XPROB_HAS_BYTE;
		ls.loc.agno = ag->agno;
		ls.loc.agbno = agbno;
		ls.loc.ino = ino;
		ls.loc.byte = data_off + byte;
		ls.loc.what = "inode";
		ag->inodes_checked++;
		if (xfmt_dinode_decode(data + byte, g->inodesize, g, &d) != 0) {
			xa_own_mark_incomplete(ctx);  /* its blocks' owner is unknown */
			continue;
		}
		xfmt_dinode_verify_crc(data + byte, g->inodesize, g, ino, &d,
				       data == pre && pre_crc ? &pre_crc[byte >> g->inodelog] : NULL,
				       &ls.sink);
		raw = data + byte;
		if (d.magic != XFS_DINODE_MAGIC) {
			/* Only the magic wrong: the inode is read as it would be with it
			 * (xfs_repair resets such a magic); the finding stands. */
			if (!xa_inode_magic_only(g, ino, data + byte, fixed, &d)) {
				xa_own_mark_incomplete(ctx);
				continue;
			}
			raw = fixed;
		}
		if (xfmt_dinode_in_use(&d)) {
			int rc;

			ag->inodes_in_use++;
			rc = irec_add(ctx, ino, &d);
			if (rc) {
				xa_put(ctx, &b);
				return rc;
			}
			if (is_free && !ag->chunks_from_rmap && !ag->chunks_from_scan)
				xa_report(ctx, &ls.loc, XP_inoFreeButInUse, "mode", 0, d.mode,
					  XPROB_HAS_OBSERVED);
			rc = check_forks(ctx, &ls.loc, ino, raw, &d);
			if (rc) {
				xa_put(ctx, &b);
				return rc;
			}
		} else if (!is_free && !ag->chunks_from_rmap && !ag->chunks_from_scan) {
			xa_report(ctx, &ls.loc, XP_inoUsedButFree, "mode", 0, 0, 0);
		}
	}
	xa_put(ctx, &b);
	return 0;
}

/* The prefetcher's walk: every chunk of every AG, in the pass's order. */
struct chunk_seq {
	const struct xa_ctx *ctx;
	uint32_t             agno;
	size_t               i;
};

/* On the reader thread: the CRC of every inode-sized piece of a chunk's
 * range (the geometry does not change during the pass). */
static void chunk_crcs(void *arg, const uint8_t *data, size_t len, void *meta)
{
	const struct chunk_seq *q = arg;
	const struct xfmt_geom *g = &q->ctx->geom;
	uint32_t *crc = meta;

	for (size_t i = 0; (i + 1) << g->inodelog <= len; i++)
		crc[i] = xfmt_crc32c_excluding(data + (i << g->inodelog), g->inodesize,
					       XFMT_DINODE_CRC_OFF);
}

static bool next_chunk(void *arg, uint64_t *off, size_t *len)
{
	struct chunk_seq *q = arg;

	while (q->agno < q->ctx->nags && q->i >= q->ctx->ags[q->agno].nchunks) {
		q->agno++;
		q->i = 0;
	}
	if (q->agno >= q->ctx->nags)
		return false;
	if (!chunk_range(&q->ctx->geom, q->agno, &q->ctx->ags[q->agno].chunks[q->i], off, len))
		*len = 0;
	q->i++;
	return true;
}

int xa_pass_inodes(struct xa_ctx *ctx)
{
	for (uint32_t agno = 0; agno < ctx->nags; agno++)
		for (size_t i = 0; i < ctx->ags[agno].nchunks; i++)
			claim_chunk(ctx, &ctx->ags[agno], &ctx->ags[agno].chunks[i]);
	/*
	 * The chunks are read ahead on another thread where the image allows
	 * (prefetch.h): only the reads move; every chunk is still checked here,
	 * in the same order, so the findings are the same with any --jobs.
	 * Nothing the reader looks at (the AGs' chunk lists, the geometry)
	 * changes during this loop.
	 */
	struct chunk_seq seq = { ctx, 0, 0 };
	struct xprefetch *pf = NULL;
	/* On v5 the reader also checksums the inodes it read: a tenth of the
	 * pass moves to its thread. */
	struct xprefetch_opts po = {
		.maxlen = chunk_range_max(&ctx->geom), .depth = 16, .next = next_chunk,
		.post = ctx->geom.v5 ? chunk_crcs : NULL,
		.meta_size = (chunk_range_max(&ctx->geom) >> ctx->geom.inodelog) * sizeof(uint32_t),
		.arg = &seq,
	};
	int rc = xprefetch_start(xcache_image(ctx->cache), xa_jobs(ctx), &po, &pf);

	if (rc)
		return rc;
	for (uint32_t agno = 0; agno < ctx->nags && !rc; agno++) {
		struct xa_ag *ag = &ctx->ags[agno];

		if (ctx->opts.progress)
			ctx->opts.progress(ctx->opts.progress_arg, "inodes", agno, ctx->nags);
		for (size_t i = 0; i < ag->nchunks && !rc; i++) {
			const uint8_t *pre = NULL;
			const void *crcs = NULL;
			uint64_t off = 0;
			size_t len = 0;

			if (pf && !xprefetch_take(pf, &pre, &crcs, &off, &len))
				pre = NULL, crcs = NULL;   /* (cannot happen: the same walk) */
			rc = check_chunk(ctx, ag, &ag->chunks[i], pre, crcs, off, len);
		}
	}
	xprefetch_stop(&pf);
	if (rc)
		return rc;
	/* Chunks come in inobt order, so this is sorted unless an inobt was
	 * out of order or overlapped; then sort and drop repeats. */
	for (size_t i = 1; i < ctx->nirecs; i++) {
		if (ctx->irecs[i - 1].ino >= ctx->irecs[i].ino) {
			size_t k = 0;

			if (ctx->nirecs > 1)  /* qsort(NULL, 0, ...) is undefined */
				qsort(ctx->irecs, ctx->nirecs, sizeof(*ctx->irecs), irec_cmp);
			for (size_t j = 0; j < ctx->nirecs; j++)
				if (k == 0 || ctx->irecs[k - 1].ino != ctx->irecs[j].ino)
					ctx->irecs[k++] = ctx->irecs[j];
			ctx->nirecs = k;
			break;
		}
	}
	return 0;
}
