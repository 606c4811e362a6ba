/*
 * image_metadump.c - the metadump backend (see image_metadump.h).
 *
 * The whole index is read once at open into a list of pieces (image byte,
 * length, file byte, order in the dump), sorted by image byte and indexed
 * by their ends (analyzer/model/span_index.h), so a read finds its pieces
 * by a binary search and a pruned walk.  Where pieces overlap (a block
 * dumped twice), the later one in the dump wins, as it does when
 * xfs_mdrestore writes them in order.
 * Memory: one piece per dumped block or extent, bounded by the file's size.
 */
#include "analyzer/io/image_metadump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/model/span_index.h"
#include "formats/endian.h"

#define MD_HDR_V1   8u
#define MD_HDR_V2   24u
#define MD_EXT_V2   12u
#define MD_DEV_SHIFT 54
#define MD_DADDR_MASK ((1ull << MD_DEV_SHIFT) - 1)

struct piece {
	uint64_t off;    /* byte in the filesystem */
	uint64_t len;
	uint64_t foff;   /* byte in the dump file */
	uint64_t seq;    /* order in the dump */
};

struct md_priv {
	struct ximg  *file;
	struct piece *p;
	struct xa_span_index ends;  /* which pieces reach past a byte */
	size_t        n, cap;
	struct piece **hits;   /* scratch for one read */
	size_t       *idx;
	size_t        hcap;
};

bool ximg_is_metadump(struct ximg *file)
{
	uint8_t m[4];
	uint32_t v;

	if (file->size < 4 || ximg_pread(file, m, sizeof(m), 0) != 0)
		return false;
	v = xfmt_get_be32(m);
	return v == XIMG_METADUMP_V1_MAGIC || v == XIMG_METADUMP_V2_MAGIC;
}

static int add_piece(struct md_priv *m, uint64_t off, uint64_t len, uint64_t foff)
{
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct piece *np = realloc(m->p, ncap * sizeof(*np));

		if (!np)
			return XERR_NOMEM;
		m->p = np;
		m->cap = ncap;
	}
	m->p[m->n] = (struct piece){ off, len, foff, m->n };
	m->n++;
	return 0;
}

static int fmt(char *err, size_t errlen, const char *what, uint64_t at)
{
	snprintf(err, errlen, "damaged metadump: %s (at byte %llu of the dump)", what,
		 (unsigned long long)at);
	return XERR_FORMAT;
}

static int parse_v1(struct md_priv *m, char *err, size_t errlen)
{
	struct ximg *f = m->file;
	uint8_t hdr[MD_HDR_V1];
	uint8_t *idx = NULL;
	uint64_t off = 0;
	int rc = 0;

	for (;;) {
		uint32_t bs, maxidx, count;

		if (f->size - off < MD_HDR_V1) {
			rc = off ? 0 : fmt(err, errlen, "no index block", off);
			break;
		}
		if ((rc = ximg_pread(f, hdr, sizeof(hdr), off)) != 0)
			break;
		if (off == 0 && xfmt_get_be32(hdr) != XIMG_METADUMP_V1_MAGIC) {
			rc = fmt(err, errlen, "bad magic", off);
			break;
		}
		if (hdr[6] < 9 || hdr[6] > 16) {
			rc = fmt(err, errlen, "index block size out of range", off + 6);
			break;
		}
		bs = 1u << hdr[6];
		maxidx = (bs - MD_HDR_V1) / 8;
		count = xfmt_get_be16(hdr + 4);
		if (count == 0 && off)
			break;
		if (count > maxidx || f->size - off < bs ||
		    (f->size - off - bs) / bs < count) {
			rc = fmt(err, errlen, "index block counts more blocks than the dump holds", off);
			break;
		}
		free(idx);
		idx = malloc((size_t)count * 8 + 1);
		if (!idx) {
			rc = XERR_NOMEM;
			break;
		}
		if (count && (rc = ximg_pread(f, idx, (size_t)count * 8, off + MD_HDR_V1)) != 0)
			break;
		for (uint32_t i = 0; i < count && !rc; i++) {
			uint64_t daddr = xfmt_get_be64(idx + (size_t)i * 8);

			if (daddr > (UINT64_MAX >> 9) - bs) {
				rc = fmt(err, errlen, "block address out of range", off + MD_HDR_V1 + i * 8);
				break;
			}
			rc = add_piece(m, daddr << 9, bs, off + bs + (uint64_t)i * bs);
		}
		if (rc)
			break;
		off += bs + (uint64_t)count * bs;
		if (count < maxidx)
			break;
	}
	free(idx);
	return rc;
}

static int parse_v2(struct md_priv *m, char *err, size_t errlen)
{
	struct ximg *f = m->file;
	uint8_t hdr[MD_HDR_V2], ext[MD_EXT_V2];
	uint64_t off = MD_HDR_V2;
	int rc;

	if (f->size < MD_HDR_V2)
		return fmt(err, errlen, "header cut short", 0);
	if ((rc = ximg_pread(f, hdr, sizeof(hdr), 0)) != 0)
		return rc;
	if (xfmt_get_be32(hdr + 4) != 2)
		return fmt(err, errlen, "version is not 2", 4);
	/* incompat bits this reader does not know change the layout */
	if (xfmt_get_be32(hdr + 12) != 0)
		return fmt(err, errlen, "unknown incompatible flags", 12);
	while (f->size - off >= MD_EXT_V2) {
		uint64_t addr, len;

		if ((rc = ximg_pread(f, ext, sizeof(ext), off)) != 0)
			return rc;
		addr = xfmt_get_be64(ext);
		len = (uint64_t)xfmt_get_be32(ext + 8) << 9;
		off += MD_EXT_V2;
		if (len > f->size - off)
			return fmt(err, errlen, "extent longer than the dump", off - MD_EXT_V2);
		switch (addr >> MD_DEV_SHIFT) {
		case 0:
			if ((addr & MD_DADDR_MASK) > (UINT64_MAX >> 9) - len)
				return fmt(err, errlen, "extent address out of range", off - MD_EXT_V2);
			if (len && (rc = add_piece(m, (addr & MD_DADDR_MASK) << 9, len, off)) != 0)
				return rc;
			break;
		case 1:   /* an external log's blocks: not the data device's */
			break;
		default:
			return fmt(err, errlen, "extent of an unknown device", off - MD_EXT_V2);
		}
		off += len;
	}
	if (off != f->size)
		return fmt(err, errlen, "trailing bytes after the last extent", off);
	return 0;
}

static int cmp_piece(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;

	if (a->off != b->off)
		return (a->off > b->off) - (a->off < b->off);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_seq(const void *x, const void *y)
{
	const struct piece *a = *(const struct piece *const *)x, *b = *(const struct piece *const *)y;

	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int md_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct md_priv *m = img->priv;
	uint64_t end = off + len;
	size_t lo = 0, hi = m->n, nh = 0;
	uint8_t *out = buf;

	memset(buf, 0, len);
	/* the pieces starting before end that reach past off: at most one per
	 * 512 bytes read, unless the dump holds blocks twice */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->p[mid].off < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (;;) {
		nh = xa_span_index_reaching(&m->ends, lo, off, m->idx, m->hcap);
		if (nh < m->hcap)
			break;
		/* the scratch was full: grow it and ask again */
		{
			size_t ncap = m->hcap * 2;
			struct piece **nv = realloc(m->hits, ncap * sizeof(*nv));
			size_t *ni;

			if (!nv)
				return XERR_NOMEM;
			m->hits = nv;
			ni = realloc(m->idx, ncap * sizeof(*ni));
			if (!ni)
				return XERR_NOMEM;
			m->idx = ni;
			m->hcap = ncap;
		}
	}
	for (size_t i = 0; i < nh; i++)
		m->hits[i] = &m->p[m->idx[i]];
	if (nh > 1)
		qsort(m->hits, nh, sizeof(*m->hits), cmp_seq);
	for (size_t i = 0; i < nh; i++) {
		const struct piece *p = m->hits[i];
		uint64_t s = p->off > off ? p->off : off;
		uint64_t e = p->off + p->len < end ? p->off + p->len : end;
		int rc = ximg_pread(m->file, out + (s - off), (size_t)(e - s), p->foff + (s - p->off));

		if (rc) {
			snprintf(img->errmsg, sizeof(img->errmsg), "%s", m->file->errmsg);
			return rc;
		}
	}
	return 0;
}

static void md_release(struct ximg *img)
{
	struct md_priv *m = img->priv;

	if (!m)
		return;
	ximg_free(&m->file);
	free(m->p);
	xa_span_index_release(&m->ends);
	free(m->hits);
	free(m->idx);
	free(m);
}

static const struct ximg_ops md_ops = { "metadump", md_pread, md_release };

int ximg_open_metadump(struct ximg *file, struct ximg **out, char *err, size_t errlen)
{
	struct md_priv *m = calloc(1, sizeof(*m));
	uint8_t magic[4], sb[16];
	uint64_t size;
	uint32_t blocksize;
	struct ximg *img;
	int rc;

	if (!m) {
		ximg_free(&file);
		return XERR_NOMEM;
	}
	m->file = file;
	rc = ximg_pread(file, magic, sizeof(magic), 0);
	if (!rc)
		rc = xfmt_get_be32(magic) == XIMG_METADUMP_V2_MAGIC ? parse_v2(m, err, errlen)
								   : parse_v1(m, err, errlen);
	if (!rc && (m->n == 0 || m->p[0].off != 0 || m->p[0].len < sizeof(sb)))
		rc = fmt(err, errlen, "the first block is not the primary superblock", 0);
	/* The size is the superblock's: dblocks whole blocks. */
	if (!rc && (rc = ximg_pread(file, sb, sizeof(sb), m->p[0].foff)) == 0) {
		blocksize = xfmt_get_be32(sb + 4);
		size = xfmt_get_be64(sb + 8);
		if (xfmt_get_be32(sb) != 0x58465342u || blocksize < 512 || blocksize > 65536 ||
		    (blocksize & (blocksize - 1)) || size == 0 || size > (UINT64_MAX >> 17))
			rc = fmt(err, errlen, "the superblock gives no usable size", m->p[0].foff);
		else
			size *= blocksize;
	}
	if (!rc) {
		uint64_t *ends = malloc(m->n * sizeof(*ends));

		qsort(m->p, m->n, sizeof(*m->p), cmp_piece);
		m->hcap = 64;
		m->hits = malloc(m->hcap * sizeof(*m->hits));
		m->idx = malloc(m->hcap * sizeof(*m->idx));
		if (!ends || !m->hits || !m->idx) {
			rc = XERR_NOMEM;
		} else {
			for (size_t i = 0; i < m->n; i++)
				ends[i] = m->p[i].off + m->p[i].len;
			rc = xa_span_index_build(&m->ends, ends, m->n);
		}
		free(ends);
	}
	if (!rc) {
		img = ximg_alloc(&md_ops, size, file->name);
		if (!img)
			rc = XERR_NOMEM;
	}
	if (rc) {
		if (rc == XERR_NOMEM)
			snprintf(err, errlen, "%s: out of memory reading the metadump index", file->name);
		else if (rc != XERR_FORMAT)
			snprintf(err, errlen, "%s: %s", file->name, file->errmsg);
		ximg_free(&m->file);
		free(m->p);
		xa_span_index_release(&m->ends);
		free(m->hits);
		free(m->idx);
		free(m);
		return rc;
	}
	img->priv = m;
	*out = img;
	return 0;
}
