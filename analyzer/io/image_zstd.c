/*
 * image_zstd.c - zstd-compressed images, read without writing a decompressed
 * copy anywhere.
 *
 * Two modes, chosen at open:
 *
 * Seekable (the file ends with a seek table, see zstd_seek.h): random access.
 * A read decompresses only the frames it touches, into a small LRU of
 * decompressed frames (up to ZST_LRU_SLOTS, fewer when frames are large, so
 * that the slots stay under the memory cap).  Cost: one frame decompression
 * per LRU miss; memory: the slots plus 16 bytes per frame of index.  Each
 * frame must decompress to exactly the size its entry gives, as exactly one
 * frame, and match its checksum when the table has them.
 *
 * Plain (one or more ordinary frames, no seek table): the whole stream is
 * decompressed once, at open, and only the 4 KiB pages that are not all zero
 * are kept in memory, in a sorted page index (pages arrive in order, so the
 * index is built by appending; lookups are a binary search).  XFS images are
 * mostly zeros, so this is usually a few percent of the image.  Cost: one
 * full decompression at open (time proportional to the decompressed size,
 * including the zeros), and 4 KiB + 8 bytes per non-zero page.  The resident
 * memory is capped (XIMG_ZSTD_MAX_RESIDENT, 1 GiB, or XFSRECON_ZSTD_MAX_MEM):
 * past it the open fails with XERR_UNSUPPORTED and advice to decompress to a
 * file or convert to the seekable format.  The image size is what the stream
 * actually decompressed to; frame headers are not trusted for it.
 * A plain stream states no size that can be checked before decompressing
 * it, and a few megabytes of zstd can stand for terabytes of zeros.  So when
 * the stream starts with an XFS superblock of sane geometry, decompression
 * stops at the filesystem's size (dblocks x blocksize): nothing the analyzer
 * or a repair reads lies past it.  The image is then that size and
 * img->clipped says so (the superblock pass reports it).  A stream that does
 * not start with a superblock (a whole-disk image) has no such bound; the
 * time to decompress it then grows with what it holds.
 *
 * A damaged stream (bad block, checksum mismatch, truncation, trailing
 * garbage) is XERR_FORMAT with the compressed offset in errmsg.
 */
#include "analyzer/io/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyzer/errors.h"
#include "analyzer/io/zstd_seek.h"
#include "formats/sb.h"

#define ZST_LRU_SLOTS     8
#define ZST_PAGE          4096u
#define ZST_CHUNK_PAGES   256u     /* page data is allocated 1 MiB at a time */
#define ZST_OUT_BUF       (1u << 20)

enum zst_mode { ZST_SEEKABLE, ZST_PAGES };

struct zst_slot {
	uint32_t frame;
	int      valid;
	uint64_t stamp;     /* LRU clock value at last use */
	uint8_t *buf;
	size_t   cap;
};

struct zst_priv {
	struct ximg *src;          /* the compressed bytes; owned */
	enum zst_mode mode;
	ZSTD_DCtx   *dctx;

	/* seekable */
	struct xzst_seek_table t;
	uint8_t     *cbuf;          /* compressed frame being decoded */
	size_t       ccap;
	struct zst_slot slots[ZST_LRU_SLOTS];
	int          nslots;
	int          last;          /* slot of the last read */
	uint64_t     clock;

	/* pages: page numbers ascending, data in chunks of ZST_CHUNK_PAGES */
	uint64_t    *pno;
	size_t       npages, pcap;
	uint8_t    **chunks;
	size_t       nchunks, chcap;
};

static const uint8_t zero_page[ZST_PAGE];

/* ---- seekable mode ---- */

/* Decompress frame i into slot s. */
static int seek_load(struct ximg *img, struct zst_priv *z, struct zst_slot *s, uint32_t i)
{
	uint64_t coff = z->t.coff[i];
	size_t csize = (size_t)(z->t.coff[i + 1] - coff);
	size_t dsize = (size_t)(z->t.doff[i + 1] - z->t.doff[i]);
	unsigned long long content;
	size_t got;
	int rc;

	s->valid = 0;
	if (csize > ZSTD_compressBound(dsize)) {
		snprintf(img->errmsg, sizeof(img->errmsg),
			 "zstd frame %u at byte %llu: %zu compressed bytes for %zu decompressed",
			 (unsigned)i, (unsigned long long)coff, csize, dsize);
		return XERR_FORMAT;
	}
	if (csize > z->ccap) {
		uint8_t *nb = realloc(z->cbuf, csize);

		if (!nb)
			return XERR_NOMEM;
		z->cbuf = nb;
		z->ccap = csize;
	}
	rc = ximg_pread(z->src, z->cbuf, csize, coff);
	if (rc) {
		snprintf(img->errmsg, sizeof(img->errmsg), "zstd frame %u: %.200s", (unsigned)i,
			 z->src->errmsg[0] ? z->src->errmsg : xerr_str(rc));
		return rc == XERR_RANGE ? XERR_FORMAT : rc;
	}
	/* Exactly one frame, of exactly the size the table gives. */
	got = ZSTD_findFrameCompressedSize(z->cbuf, csize);
	if (ZSTD_isError(got) || got != csize) {
		snprintf(img->errmsg, sizeof(img->errmsg),
			 "zstd frame %u at byte %llu is not one frame of %zu bytes%s%s",
			 (unsigned)i, (unsigned long long)coff, csize,
			 ZSTD_isError(got) ? ": " : "", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "");
		return XERR_FORMAT;
	}
	/* A size in the frame header that disagrees is caught before we
	 * allocate what the table claims. */
	content = ZSTD_getFrameContentSize(z->cbuf, csize);
	if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != dsize) {
		snprintf(img->errmsg, sizeof(img->errmsg),
			 "zstd frame %u at byte %llu holds %llu bytes, its seek table entry says %zu",
			 (unsigned)i, (unsigned long long)coff, content, dsize);
		return XERR_FORMAT;
	}
	if (dsize > s->cap) {
		uint8_t *nb = realloc(s->buf, dsize);

		if (!nb)
			return XERR_NOMEM;
		s->buf = nb;
		s->cap = dsize;
	}
	got = ZSTD_decompressDCtx(z->dctx, s->buf, dsize, z->cbuf, csize);
	if (ZSTD_isError(got) || got != dsize) {
		snprintf(img->errmsg, sizeof(img->errmsg),
			 "zstd frame %u at byte %llu is damaged: %s", (unsigned)i,
			 (unsigned long long)coff,
			 ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong decompressed size");
		return XERR_FORMAT;
	}
	if (z->t.checksum &&
	    (uint32_t)xzst_xxh64(s->buf, dsize, 0) != z->t.checksum[i]) {
		snprintf(img->errmsg, sizeof(img->errmsg),
			 "zstd frame %u at byte %llu: checksum mismatch", (unsigned)i,
			 (unsigned long long)coff);
		return XERR_FORMAT;
	}
	s->frame = i;
	s->valid = 1;
	return 0;
}

/* The slot holding frame i, decompressing it into the least recently used one. */
static int seek_get(struct ximg *img, struct zst_priv *z, uint32_t i, struct zst_slot **out)
{
	struct zst_slot *victim = NULL;
	int rc;

	for (int k = 0; k < z->nslots; k++) {
		struct zst_slot *s = &z->slots[k];

		if (s->valid && s->frame == i) {
			s->stamp = ++z->clock;
			z->last = k;
			*out = s;
			return 0;
		}
		if (!victim || !s->valid || (victim->valid && s->stamp < victim->stamp))
			victim = s;
	}
	rc = seek_load(img, z, victim, i);
	if (rc)
		return rc;
	victim->stamp = ++z->clock;
	z->last = (int)(victim - z->slots);
	*out = victim;
	return 0;
}

static int seek_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct zst_priv *z = img->priv;
	uint8_t *p = buf;

	while (len) {
		struct zst_slot *s = &z->slots[z->last];
		uint32_t i;
		uint64_t in;
		size_t take;
		int rc;

		/* Sequential and repeated reads stay in the last frame. */
		if (s->valid && z->t.doff[s->frame] <= off && off < z->t.doff[s->frame + 1]) {
			i = s->frame;
			s->stamp = ++z->clock;
		} else {
			i = xzst_seek_find(&z->t, off);
			rc = seek_get(img, z, i, &s);
			if (rc)
				return rc;
		}
		in = off - z->t.doff[i];
		take = z->t.doff[i + 1] - off < len ? (size_t)(z->t.doff[i + 1] - off) : len;
		memcpy(p, s->buf + in, take);
		p += take;
		off += take;
		len -= take;
	}
	return 0;
}

/* ---- page mode ---- */

static int pages_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct zst_priv *z = img->priv;
	uint8_t *p = buf;
	uint64_t pos = off, end = off + len, first = off / ZST_PAGE;
	size_t lo = 0, hi = z->npages;

	/* First stored page >= the page of off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->pno[mid] < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (pos < end) {
		uint64_t pstart = lo < z->npages ? z->pno[lo] * ZST_PAGE : end;

		if (lo < z->npages && pstart <= pos) {
			const uint8_t *data = z->chunks[lo / ZST_CHUNK_PAGES] +
					      (lo % ZST_CHUNK_PAGES) * ZST_PAGE;
			uint64_t in = pos - pstart;
			size_t take = ZST_PAGE - in < end - pos ? (size_t)(ZST_PAGE - in)
								: (size_t)(end - pos);

			memcpy(p, data + in, take);
			p += take;
			pos += take;
			lo++;
		} else {
			/* A run of zero pages up to the next stored page. */
			size_t take = (size_t)((pstart < end ? pstart : end) - pos);

			memset(p, 0, take);
			p += take;
			pos += take;
		}
	}
	return 0;
}

/* Keep page number pn (bytes at data, ZST_PAGE of them) unless it is all zero. */
static int pages_keep(struct zst_priv *z, uint64_t pn, const uint8_t *data, uint64_t cap,
		      char *err, size_t errlen, const char *name)
{
	uint64_t resident;

	if (memcmp(data, zero_page, ZST_PAGE) == 0)
		return 0;
	resident = (uint64_t)(z->npages + 1) * (ZST_PAGE + sizeof(uint64_t)) +
		   (uint64_t)(z->nchunks + 1) * sizeof(uint8_t *);
	if (resident > cap) {
		snprintf(err, errlen, "%s: this plain zstd image has more than %llu MiB of non-zero "
			 "data, over the memory cap; decompress it to a file (zstd -d) or convert "
			 "it to the zstd seekable format, or raise %s", name,
			 (unsigned long long)(cap >> 20), XIMG_ZSTD_ENV_MAX_MEM);
		return XERR_UNSUPPORTED;
	}
	if (z->npages == z->pcap) {
		size_t ncap = z->pcap ? z->pcap * 2 : 1024;
		uint64_t *np = realloc(z->pno, ncap * sizeof(*np));

		if (!np)
			goto nomem;
		z->pno = np;
		z->pcap = ncap;
	}
	if (z->npages % ZST_CHUNK_PAGES == 0) {
		if (z->nchunks == z->chcap) {
			size_t ncap = z->chcap ? z->chcap * 2 : 64;
			uint8_t **nc = realloc(z->chunks, ncap * sizeof(*nc));

			if (!nc)
				goto nomem;
			z->chunks = nc;
			z->chcap = ncap;
		}
		z->chunks[z->nchunks] = malloc((size_t)ZST_CHUNK_PAGES * ZST_PAGE);
		if (!z->chunks[z->nchunks])
			goto nomem;
		z->nchunks++;
	}
	memcpy(z->chunks[z->npages / ZST_CHUNK_PAGES] + (z->npages % ZST_CHUNK_PAGES) * ZST_PAGE,
	       data, ZST_PAGE);
	z->pno[z->npages++] = pn;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory while indexing the zstd image", name);
	return XERR_NOMEM;
}

/*
 * The filesystem's size in bytes when the first decompressed bytes (len of
 * them) are an XFS superblock with a sane geometry, else UINT64_MAX.
 */
static uint64_t fs_bound(const uint8_t *buf, size_t len)
{
	struct xfmt_sb sb;
	struct xfmt_geom g;

	if (xfmt_sb_decode(buf, len, &sb) != 0 || sb.magicnum != XFS_SB_MAGIC ||
	    xfmt_geom_from_sb(&sb, &g) != 0)
		return UINT64_MAX;
	return g.dblocks << g.blocklog;
}

/*
 * Decompress z->src, keeping non-zero pages, up to the filesystem's size when
 * the stream starts with a superblock (fs_bound).  *size gets the number of
 * bytes kept; *clipped is set when the stream holds more than that.
 */
static int pages_build(struct zst_priv *z, uint64_t cap, uint64_t *size, int *clipped,
		       char *err, size_t errlen, const char *name)
{
	size_t inbuf_size = ZSTD_DStreamInSize();
	uint8_t *inbuf = malloc(inbuf_size), *outbuf = malloc(ZST_OUT_BUF);
	ZSTD_inBuffer in = { inbuf, 0, 0 };
	uint64_t coff = 0, total = 0, bound = UINT64_MAX;
	size_t fill = 0, ret = 1;
	int rc = 0, eof = 0, bound_known = 0;

	if (!inbuf || !outbuf) {
		snprintf(err, errlen, "%s: out of memory", name);
		rc = XERR_NOMEM;
		goto out;
	}
	if (z->src->size == 0) {
		snprintf(err, errlen, "%s: empty file is not a zstd stream", name);
		rc = XERR_FORMAT;
		goto out;
	}
	for (;;) {
		ZSTD_outBuffer o;

		if (in.pos == in.size && !eof) {
			size_t n = z->src->size - coff < inbuf_size ? (size_t)(z->src->size - coff)
								   : inbuf_size;
			if (n == 0) {
				eof = 1;
			} else {
				rc = ximg_pread(z->src, inbuf, n, coff);
				if (rc) {
					snprintf(err, errlen, "%s: %s", name, z->src->errmsg);
					goto out;
				}
				in.size = n;
				in.pos = 0;
				coff += n;
			}
		}
		o.dst = outbuf + fill;
		o.size = ZST_OUT_BUF - fill;
		o.pos = 0;
		if (eof && ret == 0)
			break;  /* every frame ended and the input is used up */
		ret = ZSTD_decompressStream(z->dctx, &o, &in);
		if (ZSTD_isError(ret)) {
			snprintf(err, errlen, "%s: zstd stream damaged near compressed byte %llu: %s",
				 name, (unsigned long long)(coff - in.size + in.pos),
				 ZSTD_getErrorName(ret));
			rc = XERR_FORMAT;
			goto out;
		}
		fill += o.pos;
		/* The superblock sector, once: it bounds what is worth decompressing. */
		if (!bound_known && (fill >= XFS_BB_SIZE || (eof && ret == 0))) {
			bound_known = 1;
			bound = fs_bound(outbuf, fill);
		}
		if (total + fill > bound) {
			fill = (size_t)(bound - total);
			*clipped = 1;
			break;
		}
		if (fill == ZST_OUT_BUF) {
			for (size_t k = 0; k < ZST_OUT_BUF; k += ZST_PAGE) {
				rc = pages_keep(z, (total + k) / ZST_PAGE, outbuf + k, cap, err, errlen, name);
				if (rc)
					goto out;
			}
			total += ZST_OUT_BUF;
			fill = 0;
		}
		if (eof && ret != 0 && o.pos == 0) {
			snprintf(err, errlen, "%s: zstd stream is truncated (it ends inside a frame, "
				 "after %llu decompressed bytes)", name,
				 (unsigned long long)(total + fill));
			rc = XERR_FORMAT;
			goto out;
		}
	}
	/* The tail: whole pages, then a last partial page padded with zeros. */
	for (size_t k = 0; k < fill; k += ZST_PAGE) {
		if (fill - k < ZST_PAGE)
			memset(outbuf + fill, 0, ZST_PAGE - (fill - k));
		rc = pages_keep(z, (total + k) / ZST_PAGE, outbuf + k, cap, err, errlen, name);
		if (rc)
			goto out;
	}
	*size = total + fill;
out:
	free(inbuf);
	free(outbuf);
	return rc;
}

/* ---- common ---- */

static void zst_release(struct ximg *img)
{
	struct zst_priv *z = img->priv;

	if (!z)
		return;
	ximg_free(&z->src);
	ZSTD_freeDCtx(z->dctx);
	xzst_seek_release(&z->t);
	free(z->cbuf);
	for (int k = 0; k < ZST_LRU_SLOTS; k++)
		free(z->slots[k].buf);
	free(z->pno);
	for (size_t k = 0; k < z->nchunks; k++)
		free(z->chunks[k]);
	free(z->chunks);
	free(z);
}

static const struct ximg_ops seek_ops = { "zstd", seek_pread, zst_release };
static const struct ximg_ops pages_ops = { "zstd", pages_pread, zst_release };

/* The memory cap: opts, else the environment, else the default. */
static int resident_cap(const struct xzst_opts *opts, uint64_t *cap, char *err, size_t errlen)
{
	const char *env = getenv(XIMG_ZSTD_ENV_MAX_MEM);

	if (opts && opts->max_resident) {
		*cap = opts->max_resident;
	} else if (env && *env) {
		if (xzst_parse_size(env, cap) != 0) {
			snprintf(err, errlen, "%s=\"%s\" is not a size (bytes, or with K, M, G, T)",
				 XIMG_ZSTD_ENV_MAX_MEM, env);
			return XERR_USAGE;
		}
	} else {
		*cap = XIMG_ZSTD_MAX_RESIDENT;
	}
	return 0;
}

/* Read and validate a seek table if the file ends with one: 1 found, 0 not, <0 error. */
static int seek_open(struct zst_priv *z, uint64_t cap, char *err, size_t errlen, const char *name)
{
	uint8_t foot[XZST_FOOTER_SIZE];
	uint64_t tsize;
	uint8_t *tab;
	char why[200];
	int rc;

	if (z->src->size < XZST_FOOTER_SIZE ||
	    ximg_pread(z->src, foot, sizeof(foot), z->src->size - sizeof(foot)) != 0 ||
	    !xzst_seek_footer(foot, &tsize))
		return 0;
	if (tsize > z->src->size) {
		snprintf(err, errlen, "%s: zstd seek table of %llu bytes is larger than the file",
			 name, (unsigned long long)tsize);
		return XERR_FORMAT;
	}
	tab = malloc((size_t)tsize);
	if (!tab) {
		snprintf(err, errlen, "%s: out of memory for the zstd seek table", name);
		return XERR_NOMEM;
	}
	rc = ximg_pread(z->src, tab, (size_t)tsize, z->src->size - tsize);
	if (rc) {
		snprintf(err, errlen, "%s: %s", name, z->src->errmsg);
		free(tab);
		return rc;
	}
	rc = xzst_seek_parse(tab, (size_t)tsize, z->src->size, &z->t, why, sizeof(why));
	free(tab);
	if (rc) {
		snprintf(err, errlen, "%s: damaged zstd seek table: %s", name, why);
		return rc;
	}
	if (z->t.max_dsize > cap) {
		snprintf(err, errlen, "%s: zstd seekable frames of %u bytes exceed the memory cap of "
			 "%llu bytes (raise %s)", name, (unsigned)z->t.max_dsize,
			 (unsigned long long)cap, XIMG_ZSTD_ENV_MAX_MEM);
		return XERR_UNSUPPORTED;
	}
	z->nslots = z->t.max_dsize ? (int)(cap / z->t.max_dsize) : ZST_LRU_SLOTS;
	if (z->nslots > ZST_LRU_SLOTS)
		z->nslots = ZST_LRU_SLOTS;
	return 1;
}

int ximg_open_zstd_img(struct ximg *src, const struct xzst_opts *opts,
		       struct ximg **out, char *err, size_t errlen)
{
	struct zst_priv *z;
	struct ximg *img;
	uint64_t cap, size;
	int rc, clipped = 0;

	rc = resident_cap(opts, &cap, err, errlen);
	if (rc)
		return rc;
	z = calloc(1, sizeof(*z));
	if (!z || !(z->dctx = ZSTD_createDCtx())) {
		free(z);
		snprintf(err, errlen, "%s: out of memory", src->name);
		return XERR_NOMEM;
	}
	z->src = src;
	rc = (opts && opts->ignore_seek_table) ? 0 : seek_open(z, cap, err, errlen, src->name);
	if (rc == 1) {
		z->mode = ZST_SEEKABLE;
		size = z->t.content_size;
		rc = 0;
	} else if (rc == 0) {
		z->mode = ZST_PAGES;
		rc = pages_build(z, cap, &size, &clipped, err, errlen, src->name);
	}
	if (rc)
		goto fail;
	img = ximg_alloc(z->mode == ZST_SEEKABLE ? &seek_ops : &pages_ops, size, src->name);
	if (!img) {
		snprintf(err, errlen, "%s: out of memory", src->name);
		rc = XERR_NOMEM;
		goto fail;
	}
	img->priv = z;
	img->clipped = clipped;
	*out = img;
	return 0;
fail:
	z->src = NULL;  /* the caller keeps src on failure */
	{
		struct ximg tmp = { .priv = z };

		zst_release(&tmp);
	}
	return rc;
}

int ximg_open_zstd(const char *path, struct ximg **out, char *err, size_t errlen)
{
	struct ximg *src = NULL;
	int rc = ximg_open_raw(path, &src, err, errlen);

	if (rc)
		return rc;
	rc = ximg_open_zstd_img(src, NULL, out, err, errlen);
	if (rc)
		ximg_free(&src);
	return rc;
}
