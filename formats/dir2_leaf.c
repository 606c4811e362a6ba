/*
 * dir2_leaf.c - directory leaf blocks: leaf1 (the single leaf of a
 * leaf-form directory, with the bests table and tail) and leafN (the leaf
 * level of a node-form directory's hash btree).  Facts: xfs-ondisk.md 7.5
 * and the kernel's xfs_dir3_leaf_verify / xfs_dir3_leaf_check_int.
 * Whether each address names a real entry with that hash needs the data
 * blocks: that is the namespace pass's job (it has xfmt_dir2_dataptr_to_*).
 */
#include "formats/dir2.h"

#include "formats/dir2_layout.h"
#include "formats/endian.h"

int xfmt_dir2_leaf_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_leaf_hdr *out)
{
	*out = (struct xfmt_dir2_leaf_hdr){ 0 };
	if (len < (v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR))
		return -1;
	(void)xfmt_da_blkinfo_decode(buf, len, v5, &out->info);
	if (v5) {
		out->count = xfmt_get_be16(buf + L3_COUNT);
		out->stale = xfmt_get_be16(buf + L3_STALE);
		out->pad = xfmt_get_be32(buf + L3_PAD);
		out->hdr_len = XFMT_DIR3_LEAF_HDR;
	} else {
		out->count = xfmt_get_be16(buf + L2_COUNT);
		out->stale = xfmt_get_be16(buf + L2_STALE);
		out->hdr_len = XFMT_DIR2_LEAF_HDR;
	}
	return 0;
}

int xfmt_dir2_leaf_entry(const uint8_t *buf, size_t len, bool v5, unsigned i,
			 uint32_t *hashval, uint32_t *address)
{
	uint64_t off = (v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR) +
		       (uint64_t)i * XFMT_DIR2_LEAF_ENTRY;

	if (off + XFMT_DIR2_LEAF_ENTRY > len)
		return -1;
	*hashval = xfmt_get_be32(buf + off);
	*address = xfmt_get_be32(buf + off + 4);
	return 0;
}

int xfmt_dir2_leaf1_tail_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				struct xfmt_dir2_leaf_tail *out)
{
	size_t hdr = g->v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR;
	size_t tail = g->dirblksize - XFMT_DIR2_LEAF_TAIL;

	*out = (struct xfmt_dir2_leaf_tail){ 0 };
	if (len < g->dirblksize || g->dirblksize < hdr + XFMT_DIR2_LEAF_TAIL)
		return -1;
	out->bestcount = xfmt_get_be32(buf + tail);
	if (out->bestcount > (tail - hdr) / 2)
		return -1;
	out->bests_off = tail - (size_t)out->bestcount * 2;
	return 0;
}

int xfmt_dir2_leaf1_best(const uint8_t *buf, const struct xfmt_dir2_leaf_tail *tail,
			 unsigned i, uint16_t *out)
{
	if (i >= tail->bestcount || tail->bests_off == 0)
		return -1;
	*out = xfmt_get_be16(buf + tail->bests_off + (size_t)i * 2);
	return 0;
}

unsigned xfmt_dir2_leaf_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp, bool leaf1,
			       const struct xprob_sink *sink)
{
	struct xfmt_da_expect e = *exp;
	struct xfmt_dir2_leaf_hdr h;
	struct xfmt_dir2_leaf_tail t = { 0, 0 };
	bool have_bests = false;
	uint16_t magic;
	unsigned n, count, maxents;
	uint32_t prev = 0, stale = 0;
	size_t data_hdr = xfmt_dir2_data_hdr_len(g);
	size_t max_best = g->dirblksize > data_hdr ? g->dirblksize - data_hdr : 0;

	if (g->v5)
		magic = leaf1 ? XFS_DIR3_LEAF1_MAGIC : XFS_DIR3_LEAFN_MAGIC;
	else
		magic = leaf1 ? XFS_DIR2_LEAF1_MAGIC : XFS_DIR2_LEAFN_MAGIC;
	/* A leaf1 block is alone in its segment: an empty range refuses any sibling. */
	if (leaf1)
		e.blk_lo = e.blk_hi = 1;
	n = xfmt_da_blkinfo_verify(buf, len, g->dirblksize, g, magic, &e, sink);
	if (len < g->dirblksize || xfmt_dir2_leaf_hdr_decode(buf, len, g->v5, &h) < 0)
		return n;
	if (g->v5 && h.pad != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_daNonzeroPad, "pad", L3_PAD, h.pad);

	maxents = xfmt_dir2_leaf_max_ents(g);
	count = h.count;
	if (count > maxents) {
		n += (unsigned)xprob_emit_val(sink, XP_daBadCount, "count",
					      g->v5 ? L3_COUNT : L2_COUNT, maxents, count);
		count = maxents;
	}
	if (leaf1) {
		size_t tail_off = g->dirblksize - XFMT_DIR2_LEAF_TAIL;

		if (xfmt_dir2_leaf1_tail_decode(buf, len, g, &t) < 0) {
			n += (unsigned)xprob_emit_val(sink, XP_daBadCount, "bestcount", tail_off,
						      (tail_off - h.hdr_len) / 2, t.bestcount);
		} else {
			uint64_t ents_end = h.hdr_len + (uint64_t)count * XFMT_DIR2_LEAF_ENTRY;

			have_bests = true;
			/* Entries and bests may not overlap (the kernel's check). */
			if (ents_end > t.bests_off) {
				n += (unsigned)xprob_emit_val(sink, XP_dirLeafBestsOverlap, "count",
							      g->v5 ? L3_COUNT : L2_COUNT,
							      t.bests_off, ents_end);
				count = (unsigned)((t.bests_off - h.hdr_len) / XFMT_DIR2_LEAF_ENTRY);
			}
			for (unsigned i = 0; i < t.bestcount; i++) {
				uint16_t best = 0;

				(void)xfmt_dir2_leaf1_best(buf, &t, i, &best);
				if (best != XFS_DIR2_NULL_DATAOFF &&
				    (best > max_best || best % XFS_DIR2_DATA_ALIGN))
					n += (unsigned)xprob_emit_val(sink, XP_dirBadBest, "lbests", i,
								      max_best, best);
			}
		}
	}

	for (unsigned i = 0; i < count; i++) {
		uint32_t hash, addr, off, db;

		if (xfmt_dir2_leaf_entry(buf, g->dirblksize, g->v5, i, &hash, &addr) < 0)
			break;
		if (i > 0 && hash < prev)
			n += (unsigned)xprob_emit_val(sink, XP_daHashOrder, "hashval", i, prev, hash);
		prev = hash;
		if (addr == XFS_DIR2_NULL_DATAPTR) {
			stale++;
			continue;
		}
		off = xfmt_dir2_dataptr_to_off(g, addr);
		db = xfmt_dir2_dataptr_to_db(g, addr);
		if (off < data_hdr || off + xfmt_dir2_data_entsize(g, 1) > g->dirblksize) {
			n += (unsigned)xprob_emit_obs(sink, XP_dirLeafBadAddress, "address", i, addr);
			continue;
		}
		if (have_bests) {
			uint16_t best = XFS_DIR2_NULL_DATAOFF;

			(void)xfmt_dir2_leaf1_best(buf, &t, db, &best);
			if (db >= t.bestcount || best == XFS_DIR2_NULL_DATAOFF)
				n += (unsigned)xprob_emit_val(sink, XP_dirLeafBadDb, "address", i,
							      t.bestcount, db);
		}
	}
	if (stale != h.stale)
		n += (unsigned)xprob_emit_val(sink, XP_dirLeafBadStale, "stale",
					      g->v5 ? L3_STALE : L2_STALE, stale, h.stale);
	return n;
}
