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
		size_t esz, tag_at;
		const uint8_t *name = blk + o + 9;

		if (namelen == 0)
			continue;
		esz = xfmt_dir2_data_entsize(g, namelen);
		if (o + esz > end)
			continue;
		tag_at = o + esz - 2;
		/* The old tag is the entry's own offset: the strongest signature.
		 * The last entry of a region lost its tag to the region's own,
		 * which holds the region's offset. */
		if (xfmt_get_be16(blk + tag_at) != o &&
		    !(o + esz == end && xfmt_get_be16(blk + tag_at) == off))
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
