/*
 * partition.c - placeholder until GPT/MBR parsing lands: no partition table
 * is recognised, so an image must start with an XFS superblock.
 */
#include "analyzer/io/partition.h"

#include <stdio.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"

int xpart_find_xfs(struct ximg *img, int want, struct xpart *out,
		   char *err, size_t errlen)
{
	(void)want;
	(void)out;
	snprintf(err, errlen, "%s: not an XFS filesystem (no XFS superblock at byte 0)", img->name);
	return XERR_NOTXFS;
}
