/*
 * fork_write.c - an inode fork written as an extent list or a bmbt (see
 * fork_write.h for the rules the tree follows).
 *
 * Why the fork is built aside and copied into the inode last: a caller
 * that cannot have its fork (no space, too many extents) keeps its inode
 * buffer as it was and decides what to do instead; nothing is planned
 * before the whole tree is encoded.
 */
#include "reconstruct/fork_write.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/btree.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/endian.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"

/* di_aformat (u8); dinode_enc.h has no editor for it. */
#define DI_AFORMAT_OFF 83u
/* The smallest root a fork may shrink to: the kernel's MINDBTPTRS (data)
 * and MINABTPTRS (attr) pointers. */
#define MIN_DATA_ROOT_PTRS 3u
#define MIN_ATTR_ROOT_PTRS 2u
#define BMBT_REC_LEN 16u
#define BMBT_KEY_LEN 8u

/* ------------------------------------------------------------ the shape */

/* Most extents the fork's counter holds (fs-wide for the level limit). */
static uint64_t max_extents(bool large, int whichfork)
{
	if (whichfork == XR_DATA_FORK)
		return large ? XFS_MAX_EXTCNT_DATA_FORK_LARGE : XFS_MAX_EXTCNT_DATA_FORK_SMALL;
	return large ? XFS_MAX_EXTCNT_ATTR_FORK_LARGE : XFS_MAX_EXTCNT_ATTR_FORK_SMALL;
}

unsigned xr_bmbt_maxlevels(const struct xfmt_geom *g, int whichfork)
{
	unsigned leafmin = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true) / 2;
	unsigned nodemin = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, false) / 2;
	unsigned rootmax = whichfork == XR_DATA_FORK ? MIN_DATA_ROOT_PTRS : MIN_ATTR_ROOT_PTRS;
	uint64_t blocks;
	unsigned level;

	if (leafmin < 1 || nodemin < 1)
		return 0;
	blocks = (max_extents(xfmt_geom_has_nrext64(g), whichfork) + leafmin - 1) / leafmin;
	for (level = 1; blocks > 1; level++)
		blocks = blocks <= rootmax ? 1 : (blocks + nodemin - 1) / nodemin;
	return level;
}

/* Blocks for n entries at maxr a block, none below maxr / 2 unless one
 * block holds them all (the spread bulkload.c uses, with no slack). */
static uint64_t level_blocks(uint64_t n, unsigned maxr)
{
	uint64_t blocks = n / maxr, npb;

	if (blocks == 0)
		blocks = 1;
	npb = n / blocks;
	if (npb > maxr || (npb == maxr && n % blocks))
		blocks++;
	return blocks;
}

int xr_bmbt_shape(const struct xfmt_geom *g, size_t forksize, int whichfork, uint64_t nrecs,
		  struct xr_bmbt_shape *s)
{
	unsigned leafmax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true);
	unsigned nodemax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, false);
	unsigned rootmax = xfmt_bmdr_maxrecs(forksize);
	unsigned maxlevels = xr_bmbt_maxlevels(g, whichfork);
	uint64_t n = nrecs, total = 0;

	memset(s, 0, sizeof(*s));
	s->nrecs = nrecs;
	if (whichfork != XR_DATA_FORK && whichfork != XR_ATTR_FORK)
		return XERR_USAGE;
	if (nrecs <= forksize / BMBT_REC_LEN)
		return XERR_USAGE;  /* an extent list, not a tree */
	if (leafmax < 2 || nodemax < 2 || rootmax < 1 || !maxlevels)
		return XERR_UNSUPPORTED;
	if (maxlevels > XFS_BTREE_MAXLEVELS)
		maxlevels = XFS_BTREE_MAXLEVELS;
	/* Levels below the root, bottom up, until the root holds one level's
	 * blocks; the tree (root included) stays within maxlevels. */
	for (unsigned level = 0; level + 1 < maxlevels; level++) {
		uint64_t blocks = level_blocks(n, level == 0 ? leafmax : nodemax);

		s->level_entries[level] = n;
		s->level_blocks[level] = blocks;
		total += blocks;
		if (total > UINT32_MAX)
			return XERR_UNSUPPORTED;
		if (blocks <= rootmax) {
			s->root_level = level + 1;
			s->root_numrecs = (unsigned)blocks;
			s->blocks = (uint32_t)total;
			return 0;
		}
		n = blocks;
	}
	memset(s, 0, sizeof(*s));
	return XERR_UNSUPPORTED;
}

/* ---------------------------------------------------------- the encoder */

static int put_header(const struct xfmt_geom *g, uint64_t ino, uint64_t lsn, uint8_t *blk,
		      unsigned level, uint64_t numrecs, uint64_t fsb, uint64_t left,
		      uint64_t right)
{
	struct xfmt_bt_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = xfmt_bt_magic(XFMT_BT_BMAP, g->v5);
	h.level = (uint16_t)level;
	h.numrecs = (uint16_t)numrecs;
	h.leftsib = left;
	h.rightsib = right;
	h.long_form = true;
	h.v5 = g->v5;
	if (g->v5) {
		h.blkno = xfmt_geom_fsb_byte(g, fsb) >> 9;
		h.lsn = lsn;
		memcpy(h.uuid, g->meta_uuid, 16);
		h.owner = ino;
	}
	return xfmt_bt_hdr_encode(blk, g->blocksize, XFMT_BT_BMAP, &h);
}

/* Does shape s describe a tree these buffers can hold? */
static bool shape_ok(const struct xfmt_geom *g, const struct xr_bmbt_shape *s, size_t forksize)
{
	unsigned leafmax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true);
	unsigned nodemax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, false);
	uint64_t total = 0;

	if (s->root_level < 1 || s->root_level > XFS_BTREE_MAXLEVELS || !s->root_numrecs ||
	    s->root_numrecs > xfmt_bmdr_maxrecs(forksize) || s->level_entries[0] != s->nrecs ||
	    s->root_numrecs != s->level_blocks[s->root_level - 1])
		return false;
	for (unsigned l = 0; l < s->root_level; l++) {
		uint64_t nb = s->level_blocks[l], ne = s->level_entries[l];
		unsigned maxr = l == 0 ? leafmax : nodemax;

		if (!nb || nb > ne || (ne + nb - 1) / nb > maxr)
			return false;
		if (l && ne != s->level_blocks[l - 1])
			return false;
		total += nb;
	}
	return total == s->blocks;
}

int xr_bmbt_encode(const struct xfmt_geom *g, uint64_t ino, uint64_t lsn,
		   const struct xr_bmbt_shape *s, const struct xfmt_bmbt_rec *m,
		   const uint64_t *fsbs, uint8_t *blocks, uint8_t *fork, size_t forksize)
{
	size_t bs = g->blocksize;
	uint64_t *keys = NULL;      /* first startoff below each block of a level */
	uint64_t first = 0;         /* index of the level's first block */
	uint64_t next = 0;
	uint8_t kbuf[BMBT_KEY_LEN];
	unsigned rootmax;
	int rc = XERR_USAGE;

	if (!shape_ok(g, s, forksize))
		return XERR_USAGE;
	keys = calloc(s->level_blocks[0], sizeof(*keys));
	if (!keys)
		return XERR_NOMEM;

	/* Leaves. */
	for (uint64_t j = 0, nb = s->level_blocks[0]; j < nb; j++) {
		uint64_t cnt = s->nrecs / nb + (j < s->nrecs % nb);
		uint8_t *blk = blocks + j * bs;

		memset(blk, 0, bs);
		if (put_header(g, ino, lsn, blk, 0, cnt, fsbs[j], j ? fsbs[j - 1] : XFS_NULLFSBLOCK,
			       j + 1 < nb ? fsbs[j + 1] : XFS_NULLFSBLOCK))
			goto out;
		keys[j] = m[next].startoff;
		for (uint64_t i = 0; i < cnt; i++, next++) {
			uint8_t rec[BMBT_REC_LEN];

			xfmt_bmbt_rec_encode(rec, &m[next]);
			if (xfmt_bt_put_rec(blk, bs, XFMT_BT_BMAP, g->v5, (unsigned)i, rec))
				goto out;
		}
	}

	/* Nodes: one key and pointer per block of the level below. */
	for (unsigned level = 1; level < s->root_level; level++) {
		uint64_t nb = s->level_blocks[level], nent = s->level_entries[level];
		uint64_t child = first, here = first + s->level_blocks[level - 1];

		for (uint64_t j = 0; j < nb; j++) {
			uint64_t cnt = nent / nb + (j < nent % nb);
			uint8_t *blk = blocks + (here + j) * bs;
			uint64_t key0 = keys[child - first];

			memset(blk, 0, bs);
			if (put_header(g, ino, lsn, blk, level, cnt, fsbs[here + j],
				       j ? fsbs[here + j - 1] : XFS_NULLFSBLOCK,
				       j + 1 < nb ? fsbs[here + j + 1] : XFS_NULLFSBLOCK))
				goto out;
			for (uint64_t i = 0; i < cnt; i++, child++) {
				xfmt_put_be64(kbuf, keys[child - first]);
				if (xfmt_bt_put_key(blk, bs, XFMT_BT_BMAP, g->v5, (unsigned)i, kbuf,
						    NULL) ||
				    xfmt_bt_put_ptr(blk, bs, XFMT_BT_BMAP, g->v5, g->blocksize,
						    (unsigned)i, fsbs[child]))
					goto out;
			}
			/* Blocks of this level are fewer than those below: keys[j]
			 * is read (child index >= j) before it is overwritten. */
			keys[j] = key0;
		}
		first = here;
	}

	/* The root in the inode: keys from byte 4, pointers after room for
	 * every key the fork could hold. */
	rootmax = xfmt_bmdr_maxrecs(forksize);
	memset(fork, 0, forksize);
	xfmt_put_be16(fork, (uint16_t)s->root_level);
	xfmt_put_be16(fork + 2, (uint16_t)s->root_numrecs);
	for (unsigned i = 0; i < s->root_numrecs; i++) {
		xfmt_put_be64(fork + XFMT_BMDR_HDR_LEN + (size_t)i * BMBT_KEY_LEN, keys[i]);
		xfmt_put_be64(fork + XFMT_BMDR_HDR_LEN + (size_t)rootmax * BMBT_KEY_LEN +
			      (size_t)i * 8, fsbs[first + i]);
	}
	if (g->v5)
		for (uint32_t k = 0; k < s->blocks; k++)
			xfmt_bt_set_crc(blocks + (size_t)k * bs, bs, XFMT_BT_BMAP);
	rc = 0;
out:
	free(keys);
	return rc;
}

/* ----------------------------------------------------- the planner's side */

static void count_finding(void *arg, const struct xprob *p)
{
	(void)p;
	(*(unsigned *)arg)++;
}

/* The mappings are sorted, disjoint, legal records of fork whichfork. */
static bool maps_ok(const struct xfmt_geom *g, int whichfork, const struct xfmt_bmbt_rec *m,
		    size_t n)
{
	unsigned bad = 0;
	struct xprob_sink sink = { count_finding, &bad };
	uint8_t rec[BMBT_REC_LEN];

	for (size_t i = 0; i < n; i++) {
		/* widths first: the encoder would mask an oversized field */
		if (m[i].startoff > XFS_BMBT_STARTOFF_MASK ||
		    m[i].startblock > XFS_BMBT_STARTBLOCK_MASK || m[i].blockcount == 0 ||
		    m[i].blockcount > XFS_BMBT_BLOCKCOUNT_MASK)
			return false;
		if (m[i].unwritten && whichfork != XR_DATA_FORK)
			return false;
		if (i && m[i].startoff < m[i - 1].startoff + m[i - 1].blockcount)
			return false;
		xfmt_bmbt_rec_encode(rec, &m[i]);
		if (xfmt_bt_rec_verify(XFMT_BT_BMAP, rec, (unsigned)(i & 0xFFFFFFFFu), g, 0,
				       &sink) || bad)
			return false;
	}
	return true;
}

void xr_fork_release(struct xr_fork *f)
{
	free(f->fsbs);
	free(f->blocks);
	memset(f, 0, sizeof(*f));
}

/* Allocate the tree's blocks, the inode's AG first; fsbs[0 .. nblocks). */
static int alloc_blocks(struct xr_rp *rp, uint64_t ino, int whichfork, uint64_t *fsbs,
			uint32_t nblocks)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint32_t hint = xfmt_geom_ino_agno(g, ino), k = 0;
	uint32_t flags = XA_OWN_BMBT | (whichfork == XR_ATTR_FORK ? XA_OWN_ATTR : 0);

	while (k < nblocks) {
		uint32_t agno, agbno, got = 0;
		int rc = rp_space_alloc(rp, hint, nblocks - k, 1, ino, 0, flags, &agno, &agbno, &got);

		if (rc)
			return rc;
		if (got == 0 || got > nblocks - k)
			return XERR_UNSUPPORTED;
		for (uint32_t j = 0; j < got; j++)
			fsbs[k++] = xfmt_geom_fsb(g, agno, agbno + j);
		hint = agno;
	}
	return 0;
}

int xr_fork_build(struct xr_rp *rp, uint64_t ino, int whichfork, uint8_t *buf,
		  const struct xfmt_bmbt_rec *m, size_t n, struct xr_fork *f)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_dinode d;
	struct xr_bmbt_shape s;
	size_t off, size;
	uint8_t *fork = NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	f->whichfork = whichfork;
	if ((whichfork != XR_DATA_FORK && whichfork != XR_ATTR_FORK) ||
	    xfmt_dinode_decode(buf, g->inodesize, g, &d) != 0)
		return XERR_USAGE;
	if (whichfork == XR_DATA_FORK) {
		off = d.dfork_off;
		size = d.dfork_size;
	} else {
		if (!d.has_attr_fork)
			return XERR_USAGE;
		off = d.afork_off;
		size = d.afork_size;
	}
	if (!size || off > g->inodesize || size > g->inodesize - off)
		return XERR_USAGE;
	if ((n && !m) || !maps_ok(g, whichfork, m, n))
		return XERR_USAGE;
	if (n > max_extents(d.nrext64, whichfork))
		return XERR_UNSUPPORTED;
	fork = calloc(1, size);
	if (!fork)
		return XERR_NOMEM;

	if (n <= size / BMBT_REC_LEN) {
		for (size_t i = 0; i < n; i++)
			xfmt_bmbt_rec_encode(fork + BMBT_REC_LEN * i, &m[i]);
		f->format = XFS_DINODE_FMT_EXTENTS;
	} else {
		rc = xr_bmbt_shape(g, size, whichfork, n, &s);
		if (rc)
			goto fail;
		rc = XERR_NOMEM;
		f->fsbs = calloc(s.blocks, sizeof(*f->fsbs));
		f->blocks = calloc(s.blocks, g->blocksize);
		if (!f->fsbs || !f->blocks)
			goto fail;
		rc = alloc_blocks(rp, ino, whichfork, f->fsbs, s.blocks);
		if (rc)
			goto fail;
		rc = xr_bmbt_encode(g, ino, rp->env.lsn, &s, m, f->fsbs, f->blocks, fork, size);
		if (rc)
			goto fail;
		f->nblocks = s.blocks;
		f->format = XFS_DINODE_FMT_BTREE;
	}
	f->nextents = n;
	memcpy(buf + off, fork, size);
	if (whichfork == XR_DATA_FORK) {
		xfmt_dinode_put_format(buf, f->format);
		xfmt_dinode_put_nextents(buf, &d, n);
	} else {
		buf[DI_AFORMAT_OFF] = f->format;
		xfmt_dinode_put_anextents(buf, &d, (uint32_t)n);
	}
	free(fork);
	return 0;
fail:
	free(fork);
	xr_fork_release(f);
	f->whichfork = whichfork;
	return rc;
}

int xr_fork_plan(struct xr_rp *rp, int action, uint64_t ino, const struct xr_fork *f)
{
	const struct xfmt_geom *g = &rp->ctx->geom;

	for (uint32_t k = 0; k < f->nblocks; k++) {
		uint64_t fsb = f->fsbs[k];
		int rc = xr_plan_write(rp->plan, action, "bmbt", xfmt_geom_fsb_agno(g, fsb),
				       xfmt_geom_fsb_agbno(g, fsb), ino, xfmt_geom_fsb_byte(g, fsb),
				       f->blocks + (size_t)k * g->blocksize, g->blocksize);

		if (rc)
			return rc;
	}
	return 0;
}

int xr_fork_write(struct xr_rp *rp, int action, uint64_t ino, int whichfork, uint8_t *buf,
		  const struct xfmt_bmbt_rec *m, size_t n, uint32_t *bmbt_blocks)
{
	struct xr_fork f;
	int rc = xr_fork_build(rp, ino, whichfork, buf, m, n, &f);

	*bmbt_blocks = 0;
	if (rc)
		return rc;
	rc = xr_fork_plan(rp, action, ino, &f);
	if (!rc)
		*bmbt_blocks = f.nblocks;
	xr_fork_release(&f);
	return rc;
}
