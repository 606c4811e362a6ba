/*
 * image_open.c - ximg_open: a path made into an image, the backend picked
 * by content (a zstd frame, else raw bytes; an xfs_metadump inside either
 * read as its filesystem; a bad-sector map over it), then the XFS
 * filesystem found in it (byte 0, an offset, or a partition of a whole-disk
 * image).
 */
#include "analyzer/io/image.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/io/badmap.h"
#include "analyzer/io/image_metadump.h"
#include "analyzer/io/partition.h"
#include "formats/endian.h"

#define ZSTD_FRAME_MAGIC     0xFD2FB528u
#define ZSTD_SKIPPABLE_MASK  0xFFFFFFF0u
#define ZSTD_SKIPPABLE_MAGIC 0x184D2A50u
#define XFS_SB_MAGIC         0x58465342u

static int file_is_zstd(const char *path)
{
	uint8_t m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint32_t v;

	if (fd < 0)
		return 0;
	n = read(fd, m, sizeof(m));
	close(fd);
	if (n != (ssize_t)sizeof(m))
		return 0;
	v = xfmt_get_le32(m);
	return v == ZSTD_FRAME_MAGIC || (v & ZSTD_SKIPPABLE_MASK) == ZSTD_SKIPPABLE_MAGIC;
}

static int starts_with_xfs(struct ximg *img)
{
	uint8_t m[4];

	if (ximg_pread(img, m, sizeof(m), 0) != 0)
		return 0;
	return xfmt_get_be32(m) == XFS_SB_MAGIC;
}

int ximg_open_plain(const char *path, struct ximg **out, char *err, size_t errlen)
{
	return file_is_zstd(path) ? ximg_open_zstd(path, out, err, errlen)
				  : ximg_open_raw(path, out, err, errlen);
}

int ximg_open(const char *path, const struct ximg_open_opts *opts,
	      struct ximg **out, char *err, size_t errlen)
{
	struct ximg *img = NULL, *sl = NULL;
	struct xpart part;
	int rc;

	if (file_is_zstd(path))
		rc = ximg_open_zstd(path, &img, err, errlen);
	else
		rc = ximg_open_raw(path, &img, err, errlen);
	if (rc)
		return rc;
	/* An xfs_metadump file is the filesystem it was taken from. */
	if (ximg_is_metadump(img)) {
		struct ximg *md;

		rc = ximg_open_metadump(img, &md, err, errlen);
		if (rc)
			return rc;
		img = md;
	}
	/* The map's offsets are the whole image's: it goes below any slice. */
	if (opts && opts->badmap) {
		struct ximg_badmap bm;
		struct ximg *view;

		rc = ximg_badmap_load(opts->badmap, &bm, err, errlen);
		if (!rc) {
			rc = ximg_open_badmap(img, &bm, &view);
			if (rc)
				ximg_badmap_release(&bm);
		}
		if (rc) {
			ximg_free(&img);
			return rc == XERR_NOMEM ? rc : XERR_USAGE;
		}
		img = view;
	}

	if (opts && opts->have_offset) {
		if (opts->offset >= img->size) {
			snprintf(err, errlen, "%s: offset %llu is beyond the end of the image (%llu bytes)",
				 path, (unsigned long long)opts->offset,
				 (unsigned long long)img->size);
			ximg_free(&img);
			return XERR_USAGE;
		}
		rc = ximg_open_slice(img, opts->offset, img->size - opts->offset, &sl);
		if (rc) {
			ximg_free(&img);
			return rc;
		}
		*out = sl;
		return 0;
	}

	if ((!opts || opts->partition == 0) && starts_with_xfs(img)) {
		*out = img;
		return 0;
	}

	rc = xpart_find_xfs(img, opts ? opts->partition : 0, &part, err, errlen);
	if (rc == XERR_NOTXFS && (!opts || opts->partition == 0)) {
		/* No partition table and no superblock magic at byte 0: hand the
		 * whole image to the analyzer, which can still find secondary
		 * superblocks (the primary may be the damaged part). */
		*out = img;
		return 0;
	}
	if (rc) {
		ximg_free(&img);
		return rc;
	}
	rc = ximg_open_slice(img, part.start, part.length, &sl);
	if (rc) {
		snprintf(err, errlen, "%s: partition %d lies outside the image", path, part.index);
		ximg_free(&img);
		return rc;
	}
	*out = sl;
	return 0;
}
