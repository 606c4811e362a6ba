/*
 * image.c - the image vtable's common part: dispatch, the memory and slice
 * backends, and ximg_open, which picks a backend and a partition.
 */
#include "analyzer/io/image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/io/partition.h"
#include "formats/endian.h"

struct ximg *ximg_alloc(const struct ximg_ops *ops, uint64_t size, const char *name)
{
	struct ximg *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->name = strdup(name ? name : "(image)");
	if (!img->name) {
		free(img);
		return NULL;
	}
	img->ops = ops;
	img->size = size;
	return img;
}

int ximg_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	if (off > img->size || img->size - off < len)
		return XERR_RANGE;
	if (len == 0)
		return 0;
	return img->ops->pread(img, buf, len, off);
}

void ximg_free(struct ximg **img)
{
	if (!img || !*img)
		return;
	if ((*img)->ops && (*img)->ops->release)
		(*img)->ops->release(*img);
	free((*img)->name);
	free(*img);
	*img = NULL;
}

/* ---- memory backend ---- */

struct mem_priv {
	const uint8_t *data;
	uint8_t       *owned;
};

static int mem_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct mem_priv *m = img->priv;

	memcpy(buf, m->data + off, len);
	return 0;
}

static void mem_release(struct ximg *img)
{
	struct mem_priv *m = img->priv;

	if (m)
		free(m->owned);
	free(m);
}

static const struct ximg_ops mem_ops = { "memory", mem_pread, mem_release };

int ximg_open_mem(const void *buf, size_t len, int copy, const char *name,
		  struct ximg **out)
{
	struct mem_priv *m = calloc(1, sizeof(*m));
	struct ximg *img;

	if (!m)
		return XERR_NOMEM;
	if (copy && len) {
		m->owned = malloc(len);
		if (!m->owned) {
			free(m);
			return XERR_NOMEM;
		}
		memcpy(m->owned, buf, len);
		m->data = m->owned;
	} else {
		m->data = buf;
	}
	img = ximg_alloc(&mem_ops, len, name ? name : "(memory)");
	if (!img) {
		free(m->owned);
		free(m);
		return XERR_NOMEM;
	}
	img->priv = m;
	*out = img;
	return 0;
}

/* ---- slice backend: a partition inside a whole-disk image ---- */

struct slice_priv {
	struct ximg *parent;
	uint64_t     base;
};

static int slice_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct slice_priv *s = img->priv;
	int rc = ximg_pread(s->parent, buf, len, s->base + off);

	if (rc == XERR_IO || rc == XERR_FORMAT)
		snprintf(img->errmsg, sizeof(img->errmsg), "%s", s->parent->errmsg);
	return rc;
}

static void slice_release(struct ximg *img)
{
	struct slice_priv *s = img->priv;

	if (s)
		ximg_free(&s->parent);
	free(s);
}

static const struct ximg_ops slice_ops = { "slice", slice_pread, slice_release };

int ximg_open_slice(struct ximg *parent, uint64_t off, uint64_t len,
		    struct ximg **out)
{
	struct slice_priv *s;
	struct ximg *img;

	if (off > parent->size || parent->size - off < len)
		return XERR_RANGE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return XERR_NOMEM;
	img = ximg_alloc(&slice_ops, len, parent->name);
	if (!img) {
		free(s);
		return XERR_NOMEM;
	}
	s->parent = parent;
	s->base = off;
	img->priv = s;
	*out = img;
	return 0;
}

/* ---- zero tail: a truncated image read as if its missing end were zeros ---- */

struct tail_priv {
	struct ximg *inner;
};

static int tail_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct tail_priv *t = img->priv;
	uint64_t have = t->inner->size;
	size_t head = off < have ? (size_t)(have - off < len ? have - off : len) : 0;
	int rc = 0;

	if (head)
		rc = ximg_pread(t->inner, buf, head, off);
	if (rc == XERR_IO || rc == XERR_FORMAT)
		snprintf(img->errmsg, sizeof(img->errmsg), "%s", t->inner->errmsg);
	if (rc == 0)
		memset((uint8_t *)buf + head, 0, len - head);
	return rc;
}

static void tail_release(struct ximg *img)
{
	free(img->priv);
}

static const struct ximg_ops tail_ops = { "zero-tail", tail_pread, tail_release };

int ximg_open_zero_tail(struct ximg *inner, uint64_t size, struct ximg **out)
{
	struct tail_priv *t;
	struct ximg *img;

	if (size < inner->size)
		return XERR_RANGE;
	t = calloc(1, sizeof(*t));
	if (!t)
		return XERR_NOMEM;
	img = ximg_alloc(&tail_ops, size, inner->name);
	if (!img) {
		free(t);
		return XERR_NOMEM;
	}
	t->inner = inner;
	img->priv = t;
	*out = img;
	return 0;
}

/* ---- ximg_open: backend and partition selection ---- */

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
