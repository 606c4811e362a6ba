/*
 * badmap.c - the bad-sector map and the view that honours it.
 *
 * The map is parsed line by line with every number checked (a mapfile is
 * input like any other); ranges are sorted and merged, so a lookup is a
 * binary search whatever order or overlap the file had.
 */
#include "analyzer/io/badmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"

struct range {
	uint64_t s, e;
};

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return (a->s > b->s) - (a->s < b->s);
}

/* A whole unsigned number, decimal or 0x hex. */
static int parse_num(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int add(struct range **v, size_t *n, size_t *cap, uint64_t s, uint64_t len)
{
	if (!len)
		return 0;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct range *nv;

		if (*n >= XIMG_BADMAP_MAX)
			return XERR_NOMEM;
		nv = realloc(*v, ncap * sizeof(*nv));
		if (!nv)
			return XERR_NOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[*n].s = s;
	(*v)[*n].e = len > UINT64_MAX - s ? UINT64_MAX : s + len;
	(*n)++;
	return 0;
}

int ximg_badmap_load(const char *path, struct ximg_badmap *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	struct range *v = NULL;
	size_t n = 0, cap = 0, lineno = 0, m = 0;
	bool seen_pos = false;
	char line[512];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return XERR_IO;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char *tok[4], *save = NULL, *p;
		unsigned nt = 0;
		uint64_t a, b;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s: line %zu is too long", path, lineno);
			rc = XERR_FORMAT;
			break;
		}
		if ((p = strchr(line, '#')))
			*p = '\0';
		for (p = strtok_r(line, " \t\r\n", &save); p && nt < 4; p = strtok_r(NULL, " \t\r\n", &save))
			tok[nt++] = p;
		if (nt == 0)
			continue;
		/* ddrescue: "current_pos current_status [current_pass]" first */
		if (!seen_pos && nt >= 2 && nt <= 3 && strlen(tok[1]) == 1 &&
		    strchr("?*/-FGR+", tok[1][0]) && parse_num(tok[0], &a) == 0) {
			seen_pos = true;
			continue;
		}
		if (nt == 3 && strlen(tok[2]) == 1 && strchr("?*/-+", tok[2][0]) &&
		    parse_num(tok[0], &a) == 0 && parse_num(tok[1], &b) == 0) {
			if (tok[2][0] != '+')
				rc = add(&v, &n, &cap, a, b);
		} else if (nt == 2 && parse_num(tok[0], &a) == 0 && parse_num(tok[1], &b) == 0) {
			rc = add(&v, &n, &cap, a, b);
		} else {
			snprintf(err, errlen, "%s: line %zu is neither a ddrescue mapfile line (POS SIZE "
				 "STATUS) nor OFFSET LENGTH", path, lineno);
			rc = XERR_FORMAT;
		}
		if (rc == XERR_NOMEM)
			snprintf(err, errlen, "%s: more than %u ranges, or out of memory", path,
				 XIMG_BADMAP_MAX);
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = XERR_IO;
	}
	fclose(f);
	if (rc) {
		free(v);
		return rc;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_range);
	for (size_t i = 0; i < n; i++) {
		if (m && v[i].s <= v[m - 1].e) {
			if (v[i].e > v[m - 1].e)
				v[m - 1].e = v[i].e;
		} else {
			v[m++] = v[i];
		}
	}
	if (m) {
		out->start = malloc(m * sizeof(*out->start));
		out->end = malloc(m * sizeof(*out->end));
		if (!out->start || !out->end) {
			free(v);
			ximg_badmap_release(out);
			snprintf(err, errlen, "%s: out of memory", path);
			return XERR_NOMEM;
		}
		for (size_t i = 0; i < m; i++) {
			out->start[i] = v[i].s;
			out->end[i] = v[i].e;
		}
	}
	out->n = m;
	free(v);
	return 0;
}

void ximg_badmap_release(struct ximg_badmap *bm)
{
	free(bm->start);
	free(bm->end);
	memset(bm, 0, sizeof(*bm));
}

/* Index of the first range ending after off. */
static size_t first_after(const struct ximg_badmap *bm, uint64_t off)
{
	size_t lo = 0, hi = bm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bm->end[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t ximg_badmap_overlap(const struct ximg_badmap *bm, uint64_t off, uint64_t len)
{
	uint64_t end = len > UINT64_MAX - off ? UINT64_MAX : off + len, total = 0;

	for (size_t i = first_after(bm, off); i < bm->n && bm->start[i] < end; i++) {
		uint64_t s = bm->start[i] > off ? bm->start[i] : off;
		uint64_t e = bm->end[i] < end ? bm->end[i] : end;

		total += e - s;
	}
	return total;
}

/* ---- the view ---- */

struct bad_priv {
	struct ximg        *inner;
	struct ximg_badmap  bm;
};

static int bad_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct bad_priv *b = img->priv;
	size_t i = first_after(&b->bm, off);
	int rc;

	if (i < b->bm.n && b->bm.start[i] < off + len) {
		uint64_t s = b->bm.start[i] > off ? b->bm.start[i] : off;

		snprintf(img->errmsg, sizeof(img->errmsg), "byte %llu is in the bad-sector map",
			 (unsigned long long)s);
		return XERR_IO;
	}
	rc = ximg_pread(b->inner, buf, len, off);
	if (rc == XERR_IO || rc == XERR_FORMAT)
		snprintf(img->errmsg, sizeof(img->errmsg), "%s", b->inner->errmsg);
	return rc;
}

static void bad_release(struct ximg *img)
{
	struct bad_priv *b = img->priv;

	if (!b)
		return;
	ximg_free(&b->inner);
	ximg_badmap_release(&b->bm);
	free(b);
}

static const struct ximg_ops bad_ops = { "badmap", bad_pread, bad_release };

int ximg_open_badmap(struct ximg *inner, struct ximg_badmap *bm, struct ximg **out)
{
	struct bad_priv *b = calloc(1, sizeof(*b));
	struct ximg *img;

	if (!b)
		return XERR_NOMEM;
	img = ximg_alloc(&bad_ops, inner->size, inner->name);
	if (!img) {
		free(b);
		return XERR_NOMEM;
	}
	b->inner = inner;
	b->bm = *bm;
	memset(bm, 0, sizeof(*bm));
	img->priv = b;
	img->clipped = inner->clipped;
	*out = img;
	return 0;
}

int ximg_pread_fill(struct ximg *img, void *buf, size_t len, uint64_t off, uint64_t *bad)
{
	const struct ximg_badmap *bm = NULL;
	struct ximg *below = img;
	uint64_t base = 0, pos = off, end = off + len;
	uint8_t *p = buf;

	if (bad)
		*bad = 0;
	if (off > img->size || img->size - off < len)
		return XERR_RANGE;
	/* The map may sit below a partition slice: find it and the offset. */
	while (below) {
		if (below->ops == &bad_ops) {
			bm = &((struct bad_priv *)below->priv)->bm;
			break;
		}
		if (!strcmp(below->ops->kind, "slice")) {
			uint64_t sbase;
			struct ximg *parent = ximg_slice_parent(below, &sbase);

			base += sbase;
			below = parent;
			continue;
		}
		break;
	}
	if (!bm)
		return ximg_pread(img, buf, len, off);
	while (pos < end) {
		size_t i = first_after(bm, base + pos);
		uint64_t good_end = end;
		int rc;

		if (i < bm->n && bm->start[i] <= base + pos) {
			/* inside a bad range: zeros up to its end */
			uint64_t e = bm->end[i] - base < end ? bm->end[i] - base : end;

			memset(p + (pos - off), 0, (size_t)(e - pos));
			if (bad)
				*bad += e - pos;
			pos = e;
			continue;
		}
		if (i < bm->n && bm->start[i] - base < end)
			good_end = bm->start[i] - base;
		rc = ximg_pread(img, p + (pos - off), (size_t)(good_end - pos), pos);
		if (rc)
			return rc;
		pos = good_end;
	}
	return 0;
}
