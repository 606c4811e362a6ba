/*
 * dir2_carve.c - deleted directory entries in unused space.
 */
#include "formats/dir2_carve.h"

#include "formats/dir2.h"
#include "formats/endian.h"

int xfmt_dir2_carve_next(const uint8_t *blk, size_t blklen, uint32_t off, uint32_t len,
			 const struct xfmt_geom *g, size_t *pos, struct xfmt_dir2_carved *out)
{
	bool ftype = xfmt_geom_has_ftype(g);
	size_t end = (size_t)off + len;

	if (end > blklen)
		end = blklen;
	if (*pos < off)
		*pos = off;
	/* Entries are 8-byte aligned; step through the region on that grid. */
	for (size_t o = (*pos + 7) & ~(size_t)7; o + 12 <= end; o += 8) {
		uint8_t namelen = blk[o + 8];
		size_t esz, tag_at, tag;
		const uint8_t *name = blk + o + 9;

		if (namelen == 0)
			continue;
		esz = xfmt_dir2_data_entsize(g, namelen);
		if (o + esz > end)
			continue;
		tag_at = o + esz - 2;
		/* The old tag is the entry's own offset: the strongest signature.
		 * An entry that ended a free region when it was freed had its tag
		 * rewritten to that region's start, which the region it lies in
		 * now still begins at or after: an 8-aligned offset from off up
		 * to o (regions only grow by merging). */
		tag = xfmt_get_be16(blk + tag_at);
		if (tag != o && (tag < off || tag > o || (tag & 7)))
			continue;
		if (!xfmt_dir2_name_ok(name, namelen) || xfmt_dir2_name_dots(name, namelen))
			continue;
		if (ftype && (blk[o + 9 + namelen] == 0 || blk[o + 9 + namelen] >= XFS_DIR3_FT_MAX))
			continue;
		out->offset = (uint32_t)o;
		out->ino_low = xfmt_get_be32(blk + o + 4);
		/* The region header overwrote the high half only at the region's
		 * start; an old entry further in keeps its whole number. */
		out->ino_whole = xfmt_get_be16(blk + o) != XFS_DIR2_DATA_FREE_TAG;
		/* Where every inode number fits in 32 bits the low half is all. */
		if (((uint64_t)g->agcount << xfmt_geom_agino_bits(g)) <= (1ull << 32))
			out->ino_whole = true;
		out->ino = out->ino_whole && xfmt_get_be16(blk + o) != XFS_DIR2_DATA_FREE_TAG
			   ? xfmt_get_be64(blk + o) : out->ino_low;
		out->namelen = namelen;
		out->name = name;
		out->ftype = ftype ? blk[o + 9 + namelen] : 0;
		*pos = o + esz;
		return 1;
	}
	*pos = end;
	return 0;
}

int xfmt_dir2_sf_carve_next(const uint8_t *fork, size_t forklen, size_t live,
			    const struct xfmt_geom *g, bool i8, size_t *pos,
			    struct xfmt_dir2_carved *out)
{
	bool ftype = xfmt_geom_has_ftype(g);
	size_t inolen = i8 ? 8 : 4;

	if (*pos < live)
		*pos = live;
	/* Old entries were shifted by whole entries: any byte may start one. */
	for (size_t o = *pos; o + 3 + 1 + inolen <= forklen; o++) {
		uint8_t namelen = fork[o];
		uint16_t doff = xfmt_get_be16(fork + o + 1);
		const uint8_t *name = fork + o + 3;
		size_t esz = 3 + (size_t)namelen + (ftype ? 1 : 0) + inolen;
		uint64_t ino;

		if (namelen == 0 || o + esz > forklen)
			continue;
		/* the stored offset is an 8-aligned data-block offset */
		if ((doff & 7) || doff < xfmt_dir2_data_first_offset(g))
			continue;
		if (!xfmt_dir2_name_ok(name, namelen) || xfmt_dir2_name_dots(name, namelen))
			continue;
		if (ftype && (name[namelen] == 0 || name[namelen] >= XFS_DIR3_FT_MAX))
			continue;
		ino = i8 ? xfmt_get_be64(name + namelen + (ftype ? 1 : 0))
			 : xfmt_get_be32(name + namelen + (ftype ? 1 : 0));
		if (!xfmt_geom_ino_valid(g, ino))
			continue;
		out->offset = (uint32_t)o;
		out->ino_low = (uint32_t)ino;
		out->ino_whole = true;
		out->ino = ino;
		out->namelen = namelen;
		out->name = name;
		out->ftype = ftype ? name[namelen] : 0;
		*pos = o + esz;
		return 1;
	}
	*pos = forklen;
	return 0;
}
