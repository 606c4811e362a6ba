/*
 * bmap.c - extent lists, the in-inode bmbt root, the mapping rules of a
 * fork and offset lookup.  Rules: the kernel's xfs_bmap_validate_extent,
 * xfs_iformat_btree and xfs_bmap_compute_maxlevels, and xfs_repair's
 * extent scan (unwritten extents only in regular files, order, overlap),
 * one finding per failed rule.
 */
#include "formats/bmap.h"

#include <string.h>

#include "formats/btree.h"
#include "formats/endian.h"

/* Fewest pointers a root may be sized for (MINDBTPTRS / MINABTPTRS). */
#define BMAP_MIN_DATA_ROOT_PTRS 3u
#define BMAP_MIN_ATTR_ROOT_PTRS 2u
/* Bytes per key + pointer pair in the root and in node blocks. */
#define BMAP_KEYPTR_LEN 16u
_Static_assert(XFMT_BMBT_REC_LEN == 16u, "bmbt record is 16 bytes");

uint64_t xfmt_bmap_max_fileoff(const struct xfmt_geom *g)
{
	/* A file is at most 2^63 - 1 bytes (xfs_repair's fs_max_file_offset). */
	uint64_t bytes_limit = INT64_MAX >> (g->blocklog < 63 ? g->blocklog : 63);

	return bytes_limit < XFS_MAX_FILEOFF ? bytes_limit : XFS_MAX_FILEOFF;
}

/* ------------------------------------------------------- EXTENTS forks */

size_t xfmt_bmap_extents_capacity(size_t forksize)
{
	return forksize / XFMT_BMBT_REC_LEN;
}

size_t xfmt_bmap_extents_sound_prefix(const uint8_t *fork, size_t forksize,
				      const struct xfmt_bmap_fork *f, const struct xfmt_geom *g)
{
	bool realtime = f->whichfork == XFMT_DATA_FORK && f->realtime;
	size_t n = fork ? xfmt_bmap_extents_capacity(forksize) : 0, i;
	uint64_t next = 0, maxoff = xfmt_bmap_max_fileoff(g);

	for (i = 0; i < n; i++) {
		struct xfmt_bmbt_rec r;

		xfmt_bmbt_rec_decode(fork + i * XFMT_BMBT_REC_LEN, &r);
		if (r.blockcount == 0 || r.startoff < next || r.startoff > maxoff ||
		    r.blockcount > maxoff - r.startoff)
			break;
		if (!realtime && (!xfmt_geom_fsb_valid(g, r.startblock) ||
				  !xfmt_geom_fsb_valid(g, r.startblock + r.blockcount - 1)))
			break;
		next = r.startoff + r.blockcount;
	}
	return i;
}

size_t xfmt_bmap_extents_decode(const uint8_t *fork, size_t forksize, uint64_t nextents,
				struct xfmt_bmbt_rec *out, size_t cap)
{
	size_t n = xfmt_bmap_extents_capacity(forksize);

	if (!fork)
		return 0;
	if (nextents < n)
		n = (size_t)nextents;
	if (cap < n)
		n = cap;
	for (size_t i = 0; i < n; i++)
		xfmt_bmbt_rec_decode(fork + i * XFMT_BMBT_REC_LEN, &out[i]);
	return n;
}

unsigned xfmt_bmap_extents_verify(const uint8_t *fork, size_t forksize, uint64_t nextents,
				  const struct xfmt_geom *g, const struct xfmt_bmap_fork *f,
				  const struct xprob_sink *sink)
{
	struct xfmt_bmap_check c;
	size_t n = xfmt_bmap_extents_capacity(forksize);

	if (!fork)
		return 0;
	if (nextents < n)
		n = (size_t)nextents;
	xfmt_bmap_check_init(&c, g, f);
	for (size_t i = 0; i < n; i++) {
		struct xfmt_bmbt_rec r;

		xfmt_bmbt_rec_decode(fork + i * XFMT_BMBT_REC_LEN, &r);
		xfmt_bmap_check_rec(&c, &r, sink);
	}
	return c.findings;
}

/* ------------------------------------------------ mapping rules, streamed */

static unsigned rec_emit(struct xfmt_bmap_check *c, const struct xprob_sink *sink,
			 enum xprob_code code, const char *field, uint64_t expected,
			 uint64_t observed)
{
	struct xprob p = {
		.code = code,
		.has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED | XPROB_HAS_EXPECTED,
		.field = field,
		.off = c->nrecs,
		.expected = expected,
		.observed = observed,
	};

	sink->report(sink->arg, &p);
	return 1;
}

unsigned xfmt_bmap_check_rec(struct xfmt_bmap_check *c, struct xfmt_bmbt_rec *r,
			     const struct xprob_sink *sink)
{
	const struct xfmt_geom *g = c->g;
	uint64_t maxoff = xfmt_bmap_max_fileoff(g), as_read;
	bool data = c->fork.whichfork == XFMT_DATA_FORK;
	unsigned n = 0;

	if (r->blockcount == 0)
		n += rec_emit(c, sink, XP_bmapZeroLength, "blockcount", 0, 0);

	/* Realtime data extents live on another device this geometry does not describe. */
	if (!(data && c->fork.realtime)) {
		/* Stray bits above the AG number: the kernel (and xfs_repair)
		 * read the block below them, and so does every reader here. */
		if (xfmt_geom_fsb_as_read(g, r->startblock, &as_read)) {
			n += rec_emit(c, sink, XP_bmapStartblockHighBits, "startblock", as_read,
				      r->startblock);
			r->startblock = as_read;
			c->as_read++;
		}
		if (!xfmt_bt_fsbno_ok(g, r->startblock)) {
			n += rec_emit(c, sink, XP_bmapBadStartblock, "startblock", 0, r->startblock);
		} else if (r->blockcount) {
			uint32_t agno = xfmt_geom_fsb_agno(g, r->startblock);
			uint32_t agbno = xfmt_geom_fsb_agbno(g, r->startblock);

			/* An extent never crosses the end of its AG. */
			if (!xfmt_bt_agbext_ok(g, agno, agbno, r->blockcount))
				n += rec_emit(c, sink, XP_bmapBadExtent, "blockcount", 0,
					      r->blockcount);
		}
	}

	/* startoff < 2^54 and blockcount < 2^21: the sum cannot overflow. */
	if (r->blockcount && r->startoff + r->blockcount - 1 > maxoff)
		n += rec_emit(c, sink, XP_bmapBadFileOffset, "startoff", maxoff,
			      r->startoff + r->blockcount - 1);

	if (r->unwritten && (!data || (c->fork.mode & XFMT_S_IFMT) != XFMT_S_IFREG))
		n += rec_emit(c, sink, XP_bmapBadUnwritten,
			      data ? "a non-regular file's data fork" : "an attr fork", 0, 1);

	if (c->have_prev) {
		uint64_t prev_end = c->prev.startoff + c->prev.blockcount;

		if (r->startoff <= c->prev.startoff)
			n += rec_emit(c, sink, XP_bmapOutOfOrder, "startoff", c->prev.startoff,
				      r->startoff);
		else if (r->startoff < prev_end)
			n += rec_emit(c, sink, XP_bmapOverlap, "startoff", prev_end, r->startoff);
	}

	c->prev = *r;
	c->have_prev = true;
	c->nrecs++;
	c->nblocks = c->nblocks + r->blockcount < c->nblocks ? UINT64_MAX
							      : c->nblocks + r->blockcount;
	c->findings += n;
	return n;
}

unsigned xfmt_bmbt_recs_as_read(uint8_t *recs, size_t n, const struct xfmt_geom *g)
{
	unsigned changed = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t *p = recs + i * XFMT_BMBT_REC_LEN;
		struct xfmt_bmbt_rec r;
		uint64_t as_read;

		xfmt_bmbt_rec_decode(p, &r);
		if (!xfmt_geom_fsb_as_read(g, r.startblock, &as_read))
			continue;
		r.startblock = as_read;
		xfmt_bmbt_rec_encode(p, &r);
		changed++;
	}
	return changed;
}

unsigned xfmt_bmap_check_finish(struct xfmt_bmap_check *c, uint64_t nextents,
				const char *count_field, const struct xprob_sink *sink)
{
	if (c->nrecs == nextents)
		return 0;
	c->findings++;
	return (unsigned)xprob_emit_val(sink, XP_bmapCountMismatch, count_field, 0, c->nrecs,
					nextents);
}

/* --------------------------------------------------------- BTREE forks */

int xfmt_bmap_root_decode(const uint8_t *fork, size_t forksize, struct xfmt_bmap_root *out)
{
	memset(out, 0, sizeof(*out));
	if (!fork || xfmt_bmdr_decode(fork, forksize, &out->level, &out->numrecs) != 0)
		return -1;
	out->maxrecs = xfmt_bmdr_maxrecs(forksize);
	out->nrecs = out->numrecs < out->maxrecs ? out->numrecs : out->maxrecs;
	return 0;
}

unsigned xfmt_bmap_maxlevels(const struct xfmt_geom *g, int whichfork)
{
	bool large = xfmt_geom_has_nrext64(g);
	bool data = whichfork == XFMT_DATA_FORK;
	uint64_t maxleafents = data ? (large ? XFS_MAX_EXTCNT_DATA_FORK_LARGE
					     : XFS_MAX_EXTCNT_DATA_FORK_SMALL)
				    : (large ? XFS_MAX_EXTCNT_ATTR_FORK_LARGE
					     : XFS_MAX_EXTCNT_ATTR_FORK_SMALL);
	unsigned rootrecs = data ? BMAP_MIN_DATA_ROOT_PTRS : BMAP_MIN_ATTR_ROOT_PTRS;
	unsigned minleaf = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true) / 2;
	unsigned minnode = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, false) / 2;
	uint64_t blocks;
	unsigned level;

	/* A geometry too small for two records per block cannot hold a tree. */
	if (minleaf < 1 || minnode < 2)
		return 1;
	blocks = (maxleafents + minleaf - 1) / minleaf;
	/* Each pass divides by minnode >= 2, so this ends within 64 passes. */
	for (level = 1; blocks > 1; level++) {
		if (blocks <= rootrecs)
			blocks = 1;
		else
			blocks = (blocks + minnode - 1) / minnode;
	}
	return level;
}

unsigned xfmt_bmap_root_verify(const uint8_t *fork, size_t forksize,
			       const struct xfmt_geom *g, int whichfork,
			       const struct xprob_sink *sink)
{
	struct xfmt_bmap_root root;
	unsigned maxlevels = xfmt_bmap_maxlevels(g, whichfork), n = 0;
	uint64_t maxoff = xfmt_bmap_max_fileoff(g), prevkey = 0;
	/* Pointers already seen; a root holds at most (inodesize - 100) / 16 < 128. */
	uint64_t seen[128];
	unsigned nseen = 0;

	if (xfmt_bmap_root_decode(fork, forksize, &root) != 0)
		return 0;  /* xfmt_dinode_verify reports a fork too small for a root */
	if (root.level > maxlevels)
		n += (unsigned)xprob_emit_val(sink, XP_bmapRootTooDeep, "bmbt.level", 0, maxlevels,
					      root.level);
	if (root.level == 0)
		return n;  /* a leaf cannot be a root: inoBadBmdrRoot */

	for (unsigned i = 0; i < root.nrecs; i++) {
		uint64_t key, ptr;

		if (xfmt_bmdr_key(fork, forksize, i, &key) != 0 ||
		    xfmt_bmdr_ptr(fork, forksize, i, &ptr) != 0)
			break;
		if (i > 0 && key <= prevkey) {
			struct xprob p = {
				.code = XP_bmapRootKeyOrder, .field = "bmbt.keys",
				.has = XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
				.off = i, .expected = prevkey, .observed = key,
			};
			sink->report(sink->arg, &p);
			n++;
		}
		prevkey = key;
		if (key > maxoff) {
			struct xprob p = {
				.code = XP_bmapRootBadKey, .field = "bmbt.keys",
				.has = XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
				.off = i, .expected = maxoff, .observed = key,
			};
			sink->report(sink->arg, &p);
			n++;
		}
		if (!xfmt_bt_fsbno_ok(g, ptr)) {
			n += (unsigned)xprob_emit_obs(sink, XP_bmapRootBadPtr, "bmbt.ptrs", i, ptr);
			continue;
		}
		for (unsigned k = 0; k < nseen; k++) {
			if (seen[k] == ptr) {
				n += (unsigned)xprob_emit_obs(sink, XP_bmapRootDupPtr, "bmbt.ptrs",
							      i, ptr);
				break;
			}
		}
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = ptr;
	}
	return n;
}

/* ---------------------------------------------------------- lookups */

bool xfmt_bmap_lookup(const struct xfmt_bmbt_rec *recs, size_t n, uint64_t fileoff,
		      struct xfmt_bmap_map *out)
{
	size_t lo = 0, hi = n;
	uint64_t limit;

	memset(out, 0, sizeof(*out));
	/* Find the first mapping that starts after fileoff. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (recs[mid].startoff <= fileoff)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* recs[lo - 1] is the last one starting at or before fileoff. */
	if (lo > 0) {
		const struct xfmt_bmbt_rec *r = &recs[lo - 1];

		if (fileoff - r->startoff < r->blockcount) {
			out->mapped = true;
			out->unwritten = r->unwritten;
			out->fsblock = r->startblock + (fileoff - r->startoff);
			out->count = r->blockcount - (fileoff - r->startoff);
			out->idx = lo - 1;
			return true;
		}
	}
	out->idx = lo;
	if (lo < n && recs[lo].startoff > fileoff) {
		out->count = recs[lo].startoff - fileoff;
	} else {
		/* After the last mapping: a hole up to the largest file offset. */
		limit = XFS_MAX_FILEOFF + 1;
		out->count = fileoff < limit ? limit - fileoff : 0;
	}
	return false;
}
