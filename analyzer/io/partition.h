/*
 * partition.h - GPT and MBR partition tables in whole-disk images.
 */
#ifndef XA_PARTITION_H
#define XA_PARTITION_H

#include <stddef.h>
#include <stdint.h>

struct ximg;

struct xpart {
	int      index;    /* 1-based, as fdisk numbers them */
	uint64_t start;    /* byte offset in the image */
	uint64_t length;   /* bytes */
	int      is_gpt;
};

/*
 * Find the XFS partition of a whole-disk image.  With want == 0, the first
 * partition whose first sector holds an XFS superblock magic; with want > 0,
 * partition number want (which must exist and lie inside the image).  Returns
 * 0, or a negative xerr with a one-line reason in err (XERR_NOTXFS when there
 * is no table and no XFS partition).
 */
int xpart_find_xfs(struct ximg *img, int want, struct xpart *out,
		   char *err, size_t errlen);

#endif /* XA_PARTITION_H */
