/*
 * dir2_carve.h - names of deleted entries, recovered from the unused regions
 * of directory data blocks.
 *
 * When XFS removes an entry from a data block it only turns the entry's
 * first four bytes into an unused-region header (be16 0xFFFF, be16 length)
 * and rewrites the region's last two bytes (its tag).  The rest of the old
 * entry stays: the low 32 bits of the inode number, namelen, the name, the
 * file type and the old tag, which equals the entry's own offset (or the
 * start of the free region it ended when it was freed).  A candidate is
 * accepted only when all of that is consistent, so random leftovers are
 * not reported as names.
 */
#ifndef XFMT_DIR2_CARVE_H
#define XFMT_DIR2_CARVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"

struct xfmt_dir2_carved {
	uint32_t       offset;     /* byte offset of the old entry in the block */
	uint32_t       ino_low;    /* low 32 bits of the old inode number */
	bool           ino_whole;  /* the high bytes survived too (first entry of
				      a region never has them) */
	uint64_t       ino;        /* the whole number when ino_whole */
	uint8_t        namelen;
	const uint8_t *name;       /* points into the block */
	uint8_t        ftype;      /* 0 without FTYPE */
};

/*
 * Scan the unused region [off, off + len) of a dirblksize-byte block blk for
 * old entries, starting at *pos (0 to begin; a byte offset in the block, set
 * by the call).  Returns 1 and fills *out, or 0 when the region holds no
 * further candidate.  Every candidate lies wholly inside the region.
 */
int xfmt_dir2_carve_next(const uint8_t *blk, size_t blklen, uint32_t off, uint32_t len,
			 const struct xfmt_geom *g, size_t *pos, struct xfmt_dir2_carved *out);

/*
 * The same for a shortform directory: removing an entry shifts the later
 * ones down and shrinks di_size, and the bytes of the literal area past it
 * keep what was there (the old tail of the list).  Scans fork[live,
 * forklen) from *pos for an old entry (i8: 8-byte inode numbers, as the
 * header says now): a name that passes the name checks, a file type, an
 * 8-aligned stored offset and a valid inode number.  Copies of entries
 * still live are found too; telling them apart is the caller's (it knows
 * the live entries).  out->offset is a byte offset in the fork.
 */
int xfmt_dir2_sf_carve_next(const uint8_t *fork, size_t forklen, size_t live,
			    const struct xfmt_geom *g, bool i8, size_t *pos,
			    struct xfmt_dir2_carved *out);

#endif /* XFMT_DIR2_CARVE_H */
