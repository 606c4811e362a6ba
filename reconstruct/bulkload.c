/*
 * bulkload.c - shape and encode a whole short-form AG btree (see
 * bulkload.h).
 *
 * Why the records of a level are spread evenly instead of packing every
 * block but the last: a packed last block may hold fewer than minrecs,
 * which xfs_repair reports; an even spread of at least the desired count
 * per block never does (the kernel's bulk loader makes the same choice).
 */
#include "reconstruct/bulkload.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "reconstruct/env.h"
#include "reconstruct/plan.h"

int xr_btshape_compute(const struct xfmt_geom *g, enum xfmt_btnum bt, uint64_t nrecs,
		       bool slack, unsigned maxlevels, struct xr_btshape *s)
{
	uint64_t n = nrecs, total = 0;

	memset(s, 0, sizeof(*s));
	s->bt = bt;
	s->nrecs = nrecs;
	if (maxlevels > XFS_BTREE_MAXLEVELS)
		maxlevels = XFS_BTREE_MAXLEVELS;
	for (unsigned level = 0; level < maxlevels; level++) {
		unsigned maxr = xfmt_bt_maxrecs(bt, g->blocksize, g->v5, level == 0);
		unsigned minr = maxr / 2, desired;
		uint64_t blocks, npb;

		if (maxr < 2)
			return XERR_UNSUPPORTED;
		/* Halfway between minrecs and maxrecs, as xfs_repair loads. */
		desired = slack ? (maxr + minr) / 2 : maxr;
		if (desired < minr)
			desired = minr;
		blocks = n / desired;
		if (blocks == 0)
			blocks = 1;
		npb = n / blocks;
		/* Rounding the block count down may overfill; one more block then. */
		if (npb > maxr || (npb == maxr && n % blocks))
			blocks++;
		s->level_entries[level] = n;
		s->level_blocks[level] = blocks;
		total += blocks;
		s->levels = level + 1;
		if (blocks == 1) {
			if (total > UINT32_MAX)
				return XERR_UNSUPPORTED;
			s->blocks = (uint32_t)total;
			return 0;
		}
		n = blocks;
	}
	return XERR_UNSUPPORTED;
}

/* Keep in hi the larger of hi and cand (rmapbt key order). */
static void key_max(enum xfmt_btnum bt, uint8_t *hi, const uint8_t *cand, size_t kl)
{
	if (xfmt_bt_key_cmp(bt, cand, hi) > 0)
		memcpy(hi, cand, kl);
}

/* Header of block agbno at level with numrecs entries and its siblings. */
static int put_header(const struct xr_env *env, uint8_t *blk, enum xfmt_btnum bt,
		      uint32_t agno, uint32_t agbno, unsigned level, uint64_t numrecs,
		      uint32_t left, uint32_t right)
{
	const struct xfmt_geom *g = env->g;
	struct xfmt_bt_hdr h;

	memset(&h, 0, sizeof(h));
	h.magic = xfmt_bt_magic(bt, g->v5);
	h.level = (uint16_t)level;
	h.numrecs = (uint16_t)numrecs;
	h.leftsib = left;
	h.rightsib = right;
	h.v5 = g->v5;
	if (g->v5) {
		h.blkno = xfmt_geom_agbno_daddr(g, agno, agbno);
		h.lsn = env->lsn;
		memcpy(h.uuid, g->meta_uuid, 16);
		h.owner = agno;
	}
	return xfmt_bt_hdr_encode(blk, g->blocksize, bt, &h);
}

/* Plan one finished block (CRC set on v5). */
static int emit_block(const struct xr_env *env, int action, enum xfmt_btnum bt,
		      uint32_t agno, uint32_t agbno, uint8_t *blk)
{
	const struct xfmt_geom *g = env->g;

	if (g->v5)
		xfmt_bt_set_crc(blk, g->blocksize, bt);
	return xr_plan_write(env->plan, action, xfmt_bt_name(bt), agno, agbno, 0,
			     xfmt_geom_agbno_byte(g, agno, agbno), blk, g->blocksize);
}

int xr_bt_load(const struct xr_env *env, int action, uint32_t agno,
	       const struct xr_btshape *s, const uint8_t *recs, const uint32_t *agbnos,
	       uint32_t *root)
{
	const struct xfmt_geom *g = env->g;
	enum xfmt_btnum bt = s->bt;
	size_t rl = xfmt_bt_rec_len(bt), kl = xfmt_bt_key_len(bt);
	bool overlapping = bt == XFMT_BT_RMAP;
	uint8_t *blk = NULL, *keys = NULL, *highs = NULL, *nkeys = NULL, *nhighs = NULL;
	uint8_t hk[XFMT_BT_KEY_MAX];
	uint64_t first = 0;        /* index in agbnos of this level's first block */
	uint64_t next_rec = 0;
	int rc = XERR_NOMEM;

	if (!s->levels || !s->blocks)
		return XERR_USAGE;
	blk = malloc(g->blocksize);
	keys = calloc(s->level_blocks[0], kl);
	highs = calloc(s->level_blocks[0], kl);
	if (!blk || !keys || !highs)
		goto out;

	/* Leaves: records, each leaf's low key and (rmapbt) largest high key. */
	for (uint64_t j = 0, nb = s->level_blocks[0]; j < nb; j++) {
		uint64_t cnt = s->level_entries[0] / nb + (j < s->level_entries[0] % nb);
		uint32_t left = j ? agbnos[j - 1] : XFS_NULLAGBLOCK;
		uint32_t right = j + 1 < nb ? agbnos[j + 1] : XFS_NULLAGBLOCK;

		memset(blk, 0, g->blocksize);
		rc = XERR_USAGE;
		if (put_header(env, blk, bt, agno, agbnos[j], 0, cnt, left, right))
			goto out;
		for (uint64_t i = 0; i < cnt; i++, next_rec++) {
			const uint8_t *r = recs + next_rec * rl;

			if (xfmt_bt_put_rec(blk, g->blocksize, bt, g->v5, (unsigned)i, r))
				goto out;
			if (i == 0) {
				xfmt_bt_rec_key(bt, r, keys + j * kl);
				if (overlapping)
					xfmt_bt_rec_highkey(bt, r, highs + j * kl);
			} else if (overlapping) {
				xfmt_bt_rec_highkey(bt, r, hk);
				key_max(bt, highs + j * kl, hk, kl);
			}
		}
		rc = emit_block(env, action, bt, agno, agbnos[j], blk);
		if (rc)
			goto out;
	}

	/* Nodes: one key slot and pointer per child of the level below. */
	for (unsigned level = 1; level < s->levels; level++) {
		uint64_t nb = s->level_blocks[level], nent = s->level_entries[level];
		uint64_t child = first, here = first + s->level_blocks[level - 1];

		rc = XERR_NOMEM;
		nkeys = calloc(nb, kl);
		nhighs = calloc(nb, kl);
		if (!nkeys || !nhighs)
			goto out;
		for (uint64_t j = 0; j < nb; j++) {
			uint64_t cnt = nent / nb + (j < nent % nb);
			uint32_t left = j ? agbnos[here + j - 1] : XFS_NULLAGBLOCK;
			uint32_t right = j + 1 < nb ? agbnos[here + j + 1] : XFS_NULLAGBLOCK;

			memset(blk, 0, g->blocksize);
			rc = XERR_USAGE;
			if (put_header(env, blk, bt, agno, agbnos[here + j], level, cnt, left,
				       right))
				goto out;
			for (uint64_t i = 0; i < cnt; i++, child++) {
				const uint8_t *ck = keys + (child - first) * kl;
				const uint8_t *ch = highs + (child - first) * kl;

				if (xfmt_bt_put_key(blk, g->blocksize, bt, g->v5, (unsigned)i, ck,
						    overlapping ? ch : NULL) ||
				    xfmt_bt_put_ptr(blk, g->blocksize, bt, g->v5, g->blocksize,
						    (unsigned)i, agbnos[child]))
					goto out;
				if (i == 0) {
					memcpy(nkeys + j * kl, ck, kl);
					memcpy(nhighs + j * kl, ch, kl);
				} else if (overlapping) {
					key_max(bt, nhighs + j * kl, ch, kl);
				}
			}
			rc = emit_block(env, action, bt, agno, agbnos[here + j], blk);
			if (rc)
				goto out;
		}
		free(keys);
		free(highs);
		keys = nkeys;
		highs = nhighs;
		nkeys = nhighs = NULL;
		first = here;
	}
	*root = agbnos[s->blocks - 1];
	rc = 0;
out:
	free(blk);
	free(keys);
	free(highs);
	free(nkeys);
	free(nhighs);
	return rc;
}
