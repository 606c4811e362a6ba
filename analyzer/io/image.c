/*
 * image.c - the image vtable's common part: dispatch, and the memory, slice
 * and zero-tail backends (image_open.c picks a backend and a partition).
 */
#include "analyzer/io/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"

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

struct ximg *ximg_slice_parent(const struct ximg *img, uint64_t *base)
{
	const struct slice_priv *s;

	if (!img || img->ops != &slice_ops)
		return NULL;
	s = img->priv;
	*base = s->base;
	return s->parent;
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
