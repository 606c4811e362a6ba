/*
 * overlay.c - the replay overlay: a sector store and the image backend that
 * reads through it (see overlay.h).
 *
 * Sectors live in slabs of SLAB_SECTORS; an open-addressing hash maps a
 * sector number to its slot.  A read patches sector by sector, but first
 * tests the range against the lowest and highest stored sector, so reads
 * of untouched areas (file data, mostly) cost one comparison.
 */
#include "analyzer/io/overlay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"

#define SLAB_SECTORS 256u
#define EACH_MAX     (1u << 20)

struct ximg_overlay {
	uint64_t  *keys;      /* sector + 1; 0 = empty */
	uint32_t  *slots;
	size_t     hcap;      /* power of two */
	uint8_t  **slabs;
	size_t     nslabs, slabs_cap;
	size_t     nsectors;
	uint64_t   max_bytes;
	uint64_t   lo, hi;    /* lowest and highest stored sector */
};

int ximg_overlay_new(uint64_t max_bytes, struct ximg_overlay **out)
{
	struct ximg_overlay *ov = calloc(1, sizeof(*ov));

	if (!ov)
		return XERR_NOMEM;
	ov->max_bytes = max_bytes;
	ov->lo = UINT64_MAX;
	*out = ov;
	return 0;
}

void ximg_overlay_free(struct ximg_overlay **ovp)
{
	struct ximg_overlay *ov;

	if (!ovp || !*ovp)
		return;
	ov = *ovp;
	for (size_t i = 0; i < ov->nslabs; i++)
		free(ov->slabs[i]);
	free(ov->slabs);
	free(ov->keys);
	free(ov->slots);
	free(ov);
	*ovp = NULL;
}

static size_t hash_of(uint64_t sector, size_t cap)
{
	uint64_t h = sector * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

/* Slot of sector, or UINT32_MAX. */
static uint32_t lookup(const struct ximg_overlay *ov, uint64_t sector)
{
	if (!ov->hcap || sector < ov->lo || sector > ov->hi)
		return UINT32_MAX;
	for (size_t i = hash_of(sector, ov->hcap);; i = (i + 1) & (ov->hcap - 1)) {
		if (ov->keys[i] == 0)
			return UINT32_MAX;
		if (ov->keys[i] == sector + 1)
			return ov->slots[i];
	}
}

static uint8_t *slot_data(const struct ximg_overlay *ov, uint32_t slot)
{
	return ov->slabs[slot / SLAB_SECTORS] + (size_t)(slot % SLAB_SECTORS) * XIMG_OVERLAY_SECTOR;
}

static int grow_hash(struct ximg_overlay *ov)
{
	size_t ncap = ov->hcap ? ov->hcap * 2 : 1024;
	uint64_t *keys = calloc(ncap, sizeof(*keys));
	uint32_t *slots = calloc(ncap, sizeof(*slots));

	if (!keys || !slots) {
		free(keys);
		free(slots);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ov->hcap; i++) {
		size_t j;

		if (!ov->keys[i])
			continue;
		for (j = hash_of(ov->keys[i] - 1, ncap); keys[j]; j = (j + 1) & (ncap - 1))
			;
		keys[j] = ov->keys[i];
		slots[j] = ov->slots[i];
	}
	free(ov->keys);
	free(ov->slots);
	ov->keys = keys;
	ov->slots = slots;
	ov->hcap = ncap;
	return 0;
}

/* A new slot for sector (not yet stored). */
static int insert(struct ximg_overlay *ov, uint64_t sector, uint32_t *slot)
{
	size_t i;

	if ((uint64_t)(ov->nsectors + 1) * XIMG_OVERLAY_SECTOR > ov->max_bytes ||
	    ov->nsectors >= UINT32_MAX - 1)
		return XERR_NOMEM;
	if ((ov->nsectors + 1) * 2 > ov->hcap && grow_hash(ov))
		return XERR_NOMEM;
	if (ov->nsectors / SLAB_SECTORS >= ov->nslabs) {
		if (ov->nslabs == ov->slabs_cap) {
			size_t ncap = ov->slabs_cap ? ov->slabs_cap * 2 : 16;
			uint8_t **n = realloc(ov->slabs, ncap * sizeof(*n));

			if (!n)
				return XERR_NOMEM;
			ov->slabs = n;
			ov->slabs_cap = ncap;
		}
		ov->slabs[ov->nslabs] = malloc((size_t)SLAB_SECTORS * XIMG_OVERLAY_SECTOR);
		if (!ov->slabs[ov->nslabs])
			return XERR_NOMEM;
		ov->nslabs++;
	}
	for (i = hash_of(sector, ov->hcap); ov->keys[i]; i = (i + 1) & (ov->hcap - 1))
		;
	ov->keys[i] = sector + 1;
	ov->slots[i] = (uint32_t)ov->nsectors;
	*slot = (uint32_t)ov->nsectors++;
	if (sector < ov->lo)
		ov->lo = sector;
	if (sector > ov->hi || ov->nsectors == 1)
		ov->hi = sector;
	return 0;
}

int ximg_overlay_write(struct ximg_overlay *ov, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *src = buf;

	if (off % XIMG_OVERLAY_SECTOR || len % XIMG_OVERLAY_SECTOR)
		return XERR_USAGE;
	for (size_t done = 0; done < len; done += XIMG_OVERLAY_SECTOR) {
		uint64_t sector = (off + done) / XIMG_OVERLAY_SECTOR;
		uint32_t slot = lookup(ov, sector);
		int rc;

		if (slot == UINT32_MAX) {
			rc = insert(ov, sector, &slot);
			if (rc)
				return rc;
		}
		memcpy(slot_data(ov, slot), src + done, XIMG_OVERLAY_SECTOR);
	}
	return 0;
}

void ximg_overlay_patch(const struct ximg_overlay *ov, uint64_t off, void *buf, size_t len)
{
	uint8_t *dst = buf;
	uint64_t first, last;

	if (!ov->nsectors || !len)
		return;
	first = off / XIMG_OVERLAY_SECTOR;
	last = (off + len - 1) / XIMG_OVERLAY_SECTOR;
	if (last < ov->lo || first > ov->hi)
		return;
	if (first < ov->lo)
		first = ov->lo;
	if (last > ov->hi)
		last = ov->hi;
	for (uint64_t s = first; s <= last; s++) {
		uint32_t slot = lookup(ov, s);
		uint64_t sb = s * XIMG_OVERLAY_SECTOR, lo, hi;

		if (slot == UINT32_MAX)
			continue;
		lo = sb > off ? sb : off;
		hi = sb + XIMG_OVERLAY_SECTOR < off + len ? sb + XIMG_OVERLAY_SECTOR : off + len;
		memcpy(dst + (lo - off), slot_data(ov, slot) + (lo - sb), hi - lo);
	}
}

int ximg_overlay_read(const struct ximg_overlay *ov, struct ximg *parent, uint64_t off, void *buf,
		      size_t len)
{
	int rc = ximg_pread(parent, buf, len, off);

	if (rc)
		return rc;
	ximg_overlay_patch(ov, off, buf, len);
	return 0;
}

uint64_t ximg_overlay_bytes(const struct ximg_overlay *ov)
{
	return (uint64_t)ov->nsectors * XIMG_OVERLAY_SECTOR;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ximg_overlay_each(const struct ximg_overlay *ov,
		      int (*fn)(void *arg, uint64_t off, const uint8_t *bytes, size_t len),
		      void *arg)
{
	uint64_t *sectors;
	uint8_t *run = NULL;
	size_t n = 0, i = 0;
	int rc = 0;

	if (!ov->nsectors)
		return 0;
	sectors = malloc(ov->nsectors * sizeof(*sectors));
	run = malloc(EACH_MAX);
	if (!sectors || !run) {
		rc = XERR_NOMEM;
		goto out;
	}
	for (size_t h = 0; h < ov->hcap; h++)
		if (ov->keys[h])
			sectors[n++] = ov->keys[h] - 1;
	if (n > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(sectors, n, sizeof(*sectors), cmp_u64);
	while (i < n && !rc) {
		size_t len = 0;
		uint64_t start = sectors[i];

		while (i < n && sectors[i] == start + len / XIMG_OVERLAY_SECTOR && len < EACH_MAX) {
			memcpy(run + len, slot_data(ov, lookup(ov, sectors[i])), XIMG_OVERLAY_SECTOR);
			len += XIMG_OVERLAY_SECTOR;
			i++;
		}
		rc = fn(arg, start * XIMG_OVERLAY_SECTOR, run, len);
	}
out:
	free(sectors);
	free(run);
	return rc;
}

/* ---- the image backend ---- */

struct ovimg_priv {
	struct ximg               *parent;
	const struct ximg_overlay *ov;
};

static int ovimg_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct ovimg_priv *p = img->priv;
	int rc = ximg_overlay_read(p->ov, p->parent, off, buf, len);

	if (rc == XERR_IO || rc == XERR_FORMAT)
		snprintf(img->errmsg, sizeof(img->errmsg), "%s", p->parent->errmsg);
	return rc;
}

static void ovimg_release(struct ximg *img)
{
	free(img->priv);
}

static const struct ximg_ops ovimg_ops = { "replay", ovimg_pread, ovimg_release };

int ximg_open_overlay(struct ximg *parent, const struct ximg_overlay *ov, struct ximg **out)
{
	struct ovimg_priv *p = calloc(1, sizeof(*p));
	struct ximg *img;

	if (!p)
		return XERR_NOMEM;
	img = ximg_alloc(&ovimg_ops, parent->size, parent->name);
	if (!img) {
		free(p);
		return XERR_NOMEM;
	}
	p->parent = parent;
	p->ov = ov;
	img->priv = p;
	*out = img;
	return 0;
}
