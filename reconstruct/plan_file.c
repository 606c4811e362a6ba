/*
 * plan_file.c - save and load the plan/undo container (see plan_file.h and
 * doc/plan-format.md).
 *
 * Why one index digest in the header and one payload digest in the index:
 * the header's digest makes the index the file's identity (an undo file
 * names its plan by it), and since the index holds the payload digest and
 * every write's digests, that identity covers every byte a plan writes.
 * zstd's own frame checksum is on as well, so a damaged frame fails early.
 */
#include "reconstruct/plan_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/xmlreader.h>
#include <zstd.h>

#include "analyzer/errors.h"
#include "analyzer/io/fd_io.h"
#include "analyzer/io/outpath.h"
#include "analyzer/io/sha256.h"
#include "formats/endian.h"
#include "reconstruct/plan.h"

/* Header layout (big-endian numbers). */
#define HDR_MAGIC        0u    /* 8 bytes */
#define HDR_VERSION      8u    /* be32 */
#define HDR_SIZE         12u   /* be32: XR_PF_HDR_SIZE */
#define HDR_INDEX_LEN    16u   /* be64: the index, uncompressed */
#define HDR_INDEX_ZLEN   24u   /* be64: its zstd frame */
#define HDR_PAYLOAD_LEN  32u   /* be64 */
#define HDR_PAYLOAD_ZLEN 40u   /* be64 */
#define HDR_INDEX_SHA    48u   /* 32 bytes */
#define HDR_RESERVED     80u   /* 16 zero bytes */
_Static_assert(HDR_RESERVED + 16u == XR_PF_HDR_SIZE, "plan header layout");

#define ZSTD_LEVEL 3

void xr_pf_release(struct xr_planfile *pf)
{
	free(pf->changes);
	free(pf->payload);
	free(pf->index);
	memset(pf, 0, sizeof(*pf));
}

int xr_pf_parse_sha(const char *s, uint8_t out[32])
{
	if (!s || strlen(s) != 64)
		return -1;
	for (size_t i = 0; i < 32; i++) {
		int v = 0;

		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + (size_t)k];

			v <<= 4;
			if (c >= '0' && c <= '9')
				v |= c - '0';
			else if (c >= 'a' && c <= 'f')
				v |= c - 'a' + 10;
			else
				return -1;
		}
		out[i] = (uint8_t)v;
	}
	return 0;
}

/* A decimal number without sign or leading junk, at most max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	size_t k = 0;

	if (!s || strlen(s) != 36)
		return -1;
	for (size_t i = 0; i < 36; i++) {
		char c = s[i];
		int v;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return -1;
			continue;
		}
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else
			return -1;
		if (k % 2 == 0)
			out[k / 2] = (uint8_t)(v << 4);
		else
			out[k / 2] |= (uint8_t)v;
		k++;
	}
	return 0;
}

/* ---------------------------------------------------------------- writing */

int xr_pf_xml_begin(struct xr_pf_xml *px, enum xr_pf_kind kind, const struct xr_pf_fs *fs)
{
	struct xa_xw *x = &px->x;

	memset(px, 0, sizeof(*px));
	px->buf = xmlBufferCreate();
	if (!px->buf)
		return XERR_NOMEM;
	xmlBufferSetAllocationScheme(px->buf, XML_BUFFER_ALLOC_DOUBLEIT);
	x->w = xmlNewTextWriterMemory(px->buf, 0);
	if (!x->w) {
		xmlBufferFree(px->buf);
		px->buf = NULL;
		return XERR_NOMEM;
	}
	xa_xw_check(x, xmlTextWriterSetIndent(x->w, 1));
	xa_xw_check(x, xmlTextWriterSetIndentString(x->w, xa_xc("  ")));
	if (!x->failed)
		xa_xw_check(x, xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL));
	xa_xw_start(x, kind == XR_PF_UNDO ? "xfsrecon-undo" : "xfsrecon-plan");
	xa_xw_attr(x, "version", "1");
	xa_xw_start(x, "filesystem");
	xa_xw_attr_uuid(x, "uuid", fs->uuid);
	xa_xw_attr_u64(x, "blocksize", fs->blocksize);
	xa_xw_attr_u64(x, "sectsize", fs->sectsize);
	xa_xw_attr_u64(x, "agblocks", fs->agblocks);
	xa_xw_attr_u64(x, "agcount", fs->agcount);
	xa_xw_attr_u64(x, "dblocks", fs->dblocks);
	xa_xw_attr_u64(x, "size", fs->size);
	xa_xw_end(x);
	return 0;
}

void xr_pf_xml_payload(struct xr_pf_xml *px, uint64_t len, const uint8_t sha[32])
{
	xa_xw_start(&px->x, "payload");
	xa_xw_attr_u64(&px->x, "length", len);
	xa_xw_attr_sha256(&px->x, "sha256", sha);
	xa_xw_end(&px->x);
}

void xr_pf_xml_change(struct xr_pf_xml *px, const struct xr_pf_change *c)
{
	struct xa_xw *x = &px->x;
	char id[32];

	xa_xw_start(x, "change");
	xa_xw_attr_u64(x, "offset", c->offset);
	xa_xw_attr_u64(x, "length", c->len);
	xa_xw_attr_bytes(x, "structure", c->structure, strnlen(c->structure, XR_PF_NAME_MAX));
	if (c->agno != XR_NO_AG) {
		xa_xw_attr_u64(x, "ag", c->agno);
		xa_xw_attr_u64(x, "agbno", c->agbno);
	}
	if (c->ino)
		xa_xw_attr_u64(x, "ino", c->ino);
	if (c->action) {
		snprintf(id, sizeof(id), "A%" PRIu32, c->action);
		xa_xw_attr(x, "action", id);
	}
	xa_xw_attr_sha256(x, "before", c->before);
	xa_xw_attr_sha256(x, "after", c->after);
	xa_xw_end(x);
}

int xr_pf_xml_end(struct xr_pf_xml *px, const uint8_t **data, size_t *len)
{
	xa_xw_end(&px->x);
	if (!px->x.failed)
		xa_xw_check(&px->x, xmlTextWriterEndDocument(px->x.w));
	if (!px->x.failed)
		xa_xw_check(&px->x, xmlTextWriterFlush(px->x.w));
	if (px->x.failed)
		return XERR_NOMEM;
	*data = xmlBufferContent(px->buf);
	*len = (size_t)xmlBufferLength(px->buf);
	return 0;
}

void xr_pf_xml_free(struct xr_pf_xml *px)
{
	if (px->x.w)
		xmlFreeTextWriter(px->x.w);
	if (px->buf)
		xmlBufferFree(px->buf);
	memset(px, 0, sizeof(*px));
}

/* One zstd frame with content size and checksum; *out is malloc'd. */
static int compress(const uint8_t *src, size_t len, uint8_t **out, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(len), n;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *dst = malloc(cap ? cap : 1);
	int rc = XERR_NOMEM;

	if (!cc || !dst)
		goto out;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)))
		goto out;
	n = ZSTD_compress2(cc, dst, cap, src, len);
	if (ZSTD_isError(n))
		goto out;
	*out = dst;
	*outlen = n;
	dst = NULL;
	rc = 0;
out:
	free(dst);
	ZSTD_freeCCtx(cc);
	return rc;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* fsync the directory holding path, so a new name in it is durable. */
static int sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = -1;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int xr_pf_save(const char *path, enum xr_pf_kind kind, const uint8_t *index, size_t index_len,
	       const uint8_t *payload, uint64_t payload_len, bool replace,
	       const struct ximg_out_opts *guard, uint8_t id[32], char *err, size_t errlen)
{
	struct ximg_out_opts oo;
	uint8_t hdr[XR_PF_HDR_SIZE], sha[32];
	uint8_t *zi = NULL, *zp = NULL;
	size_t zil = 0, zpl = 0;
	bool exists, created = false, blk;
	struct stat st;
	char *tmp = NULL;
	int fd = -1, rc;

	if (payload_len > SIZE_MAX)
		return xerr_say(err, errlen, XERR_NOMEM, "the payload is too large");
	if (guard)
		oo = *guard;
	else
		memset(&oo, 0, sizeof(oo));
	if (!oo.what)
		oo.what = kind == XR_PF_UNDO ? "the undo file" : "the plan";
	oo.force = replace;
	oo.replace = false;
	oo.block_ok = oo.stream_ok = oo.rdwr = oo.truncate = false;
	oo.mode = 0600;
	rc = ximg_out_check_name(path, &oo, &exists, err, errlen);
	if (rc)
		return rc;
	xsha256(index, index_len, sha);
	if (compress(index, index_len, &zi, &zil) || compress(payload, (size_t)payload_len, &zp, &zpl)) {
		rc = xerr_say(err, errlen, XERR_NOMEM, "out of memory compressing %s", path);
		goto out;
	}
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr + HDR_MAGIC, kind == XR_PF_UNDO ? XR_PF_MAGIC_UNDO : XR_PF_MAGIC_PLAN, 8);
	xfmt_put_be32(hdr + HDR_VERSION, XR_PF_VERSION);
	xfmt_put_be32(hdr + HDR_SIZE, XR_PF_HDR_SIZE);
	xfmt_put_be64(hdr + HDR_INDEX_LEN, index_len);
	xfmt_put_be64(hdr + HDR_INDEX_ZLEN, zil);
	xfmt_put_be64(hdr + HDR_PAYLOAD_LEN, payload_len);
	xfmt_put_be64(hdr + HDR_PAYLOAD_ZLEN, zpl);
	memcpy(hdr + HDR_INDEX_SHA, sha, 32);

	tmp = malloc(strlen(path) + 16);
	if (!tmp) {
		rc = xerr_say(err, errlen, XERR_NOMEM, "out of memory");
		goto out;
	}
	sprintf(tmp, "%s.partial", path);
	/* Made new (O_EXCL, O_NOFOLLOW) and checked like any output; one that
	 * exists already is not ours to remove (a leftover of a killed run, or
	 * something planted there): the user removes it. */
	oo.force = false;
	if (lstat(tmp, &st) == 0) {
		rc = xerr_say(err, errlen, XERR_EXISTS, "%s exists (left by an interrupted run?): remove "
			 "it first", tmp);
		goto out;
	}
	rc = ximg_out_open(tmp, &oo, &fd, &created, &blk, err, errlen);
	if (rc)
		goto out;
	if (write_all(fd, hdr, sizeof(hdr)) || write_all(fd, zi, zil) || write_all(fd, zp, zpl) ||
	    fsync(fd) != 0) {
		rc = xerr_say(err, errlen, XERR_IO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = xerr_say(err, errlen, XERR_IO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	/* link() never replaces: a file that appeared meanwhile is kept. */
	if (replace ? rename(tmp, path) != 0 : link(tmp, path) != 0) {
		rc = xerr_say(err, errlen, errno == EEXIST ? XERR_EXISTS : XERR_IO, "%s: %s", path,
			 strerror(errno));
		goto out;
	}
	if (!replace)
		unlink(tmp);
	created = false;   /* the name is gone: nothing of ours to remove any more */
	if (sync_dir(path) != 0) {
		rc = xerr_say(err, errlen, XERR_IO, "%s: syncing its directory: %s", path, strerror(errno));
		goto out;
	}
	if (id)
		memcpy(id, sha, 32);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc && created)
		unlink(tmp);
	free(tmp);
	free(zi);
	free(zp);
	return rc;
}

/* ---------------------------------------------------------------- reading */

/* Read a zstd frame of zlen bytes at off and decompress exactly len bytes. */
static int read_frame(int fd, uint64_t off, uint64_t zlen, uint64_t len, uint8_t **out,
		      char *err, size_t errlen, const char *what)
{
	uint8_t *z = malloc(zlen ? (size_t)zlen : 1), *d = malloc(len ? (size_t)len + 1 : 1);
	unsigned long long content;
	size_t n;
	int rc;

	if (!z || !d) {
		rc = xerr_say(err, errlen, XERR_NOMEM, "out of memory reading the %s", what);
		goto out;
	}
	if (xio_pread_full(fd, z, (size_t)zlen, off)) {
		rc = xerr_say(err, errlen, XERR_IO, "cannot read the %s: %s", what, strerror(errno));
		goto out;
	}
	content = ZSTD_getFrameContentSize(z, (size_t)zlen);
	if (content != len || ZSTD_findFrameCompressedSize(z, (size_t)zlen) != zlen) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "the %s's zstd frame is damaged or has the wrong "
			 "size", what);
		goto out;
	}
	n = ZSTD_decompress(d, (size_t)len, z, (size_t)zlen);
	if (ZSTD_isError(n) || n != len) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "the %s does not decompress: %s", what,
			 ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
		goto out;
	}
	d[len] = 0;
	*out = d;
	d = NULL;
	rc = 0;
out:
	free(z);
	free(d);
	return rc;
}

static char *attr(xmlTextReaderPtr r, const char *name)
{
	return (char *)xmlTextReaderGetAttribute(r, xa_xc(name));
}

/* Attribute name as a number at most max; absent -> dflt when have_dflt. */
static int attr_u64(xmlTextReaderPtr r, const char *name, uint64_t max, bool have_dflt,
		    uint64_t dflt, uint64_t *out)
{
	char *s = attr(r, name);
	int rc;

	if (!s) {
		*out = dflt;
		return have_dflt ? 0 : -1;
	}
	rc = parse_u64(s, max, out);
	xmlFree(s);
	return rc;
}

static int attr_sha(xmlTextReaderPtr r, const char *name, uint8_t out[32])
{
	char *s = attr(r, name);
	int rc = xr_pf_parse_sha(s, out);

	xmlFree(s);
	return rc;
}

static int parse_fs(xmlTextReaderPtr r, struct xr_pf_fs *fs)
{
	uint64_t v[6];
	char *u = attr(r, "uuid");
	int bad = parse_uuid(u, fs->uuid);

	xmlFree(u);
	bad |= attr_u64(r, "blocksize", 65536, false, 0, &v[0]);
	bad |= attr_u64(r, "sectsize", 32768, false, 0, &v[1]);
	bad |= attr_u64(r, "agblocks", UINT32_MAX, false, 0, &v[2]);
	bad |= attr_u64(r, "agcount", UINT32_MAX, false, 0, &v[3]);
	bad |= attr_u64(r, "dblocks", UINT64_MAX, false, 0, &v[4]);
	bad |= attr_u64(r, "size", UINT64_MAX, false, 0, &v[5]);
	fs->blocksize = (uint32_t)v[0];
	fs->sectsize = (uint16_t)v[1];
	fs->agblocks = (uint32_t)v[2];
	fs->agcount = (uint32_t)v[3];
	fs->dblocks = v[4];
	fs->size = v[5];
	return bad ? -1 : 0;
}

static int parse_change(xmlTextReaderPtr r, struct xr_pf_change *c)
{
	uint64_t off, len, ag, agbno, ino, act = 0;
	char *s;
	int bad = 0;

	memset(c, 0, sizeof(*c));
	bad |= attr_u64(r, "offset", UINT64_MAX, false, 0, &off);
	bad |= attr_u64(r, "length", UINT32_MAX, false, 0, &len);
	bad |= attr_u64(r, "ag", UINT32_MAX - 1, true, XR_NO_AG, &ag);
	bad |= attr_u64(r, "agbno", UINT32_MAX, true, 0, &agbno);
	bad |= attr_u64(r, "ino", UINT64_MAX, true, 0, &ino);
	bad |= attr_sha(r, "before", c->before);
	bad |= attr_sha(r, "after", c->after);
	s = attr(r, "action");
	if (s && (s[0] != 'A' || parse_u64(s + 1, UINT32_MAX, &act) || act == 0))
		bad = -1;
	xmlFree(s);
	s = attr(r, "structure");
	if (!s || strlen(s) >= XR_PF_NAME_MAX)
		bad = -1;
	else
		memcpy(c->structure, s, strlen(s) + 1);
	xmlFree(s);
	if (bad || len == 0 || off > UINT64_MAX - len)
		return -1;
	c->offset = off;
	c->len = (uint32_t)len;
	c->agno = (uint32_t)ag;
	c->agbno = (uint32_t)agbno;
	c->ino = ino;
	c->action = (uint32_t)act;
	return 0;
}

/* libxml2's parser messages would reach standard error; a damaged index is
 * reported once, by the caller, in our words. */
static void quiet(void *arg, const char *msg, xmlParserSeverities sev, xmlTextReaderLocatorPtr loc)
{
	(void)arg;
	(void)msg;
	(void)sev;
	(void)loc;
}

void xr_pf_reader_quiet(xmlTextReaderPtr r)
{
	xmlTextReaderSetErrorHandler(r, quiet, NULL);
}

/* Walk the index: root, filesystem, payload, undoes, changes. */
static int parse_index(struct xr_planfile *pf, uint8_t payload_sha[32], char *err, size_t errlen)
{
	const char *root = pf->kind == XR_PF_UNDO ? "xfsrecon-undo" : "xfsrecon-plan";
	xmlTextReaderPtr r;
	bool have_fs = false, have_payload = false, have_plan = pf->kind != XR_PF_UNDO;
	uint64_t plen = 0, used = 0;
	size_t cap = 0;
	int depth_root = -1, rc = XERR_FORMAT, st;

	/* No DTD, no entities: nothing in an index needs them. */
	if (strstr(pf->index, "<!DOCTYPE") || strstr(pf->index, "<!ENTITY"))
		return xerr_say(err, errlen, XERR_FORMAT, "the index carries a DTD");
	r = xmlReaderForMemory(pf->index, (int)pf->index_len, NULL, "UTF-8", XML_PARSE_NONET);
	if (!r)
		return xerr_say(err, errlen, XERR_NOMEM, "out of memory parsing the index");
	xr_pf_reader_quiet(r);
	while ((st = xmlTextReaderRead(r)) == 1) {
		const char *name;

		if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT)
			continue;
		name = (const char *)xmlTextReaderConstName(r);
		if (depth_root < 0) {
			char *v = attr(r, "version");
			bool ok = !strcmp(name, root) && v && !strcmp(v, "1");

			xmlFree(v);
			if (!ok) {
				xerr_say(err, errlen, XERR_FORMAT, "the index is not a version 1 %s", root);
				goto out;
			}
			depth_root = xmlTextReaderDepth(r);
			continue;
		}
		if (!strcmp(name, "filesystem") && !have_fs) {
			if (parse_fs(r, &pf->fs)) {
				xerr_say(err, errlen, XERR_FORMAT, "the index's filesystem element is damaged");
				goto out;
			}
			have_fs = true;
		} else if (!strcmp(name, "payload") && !have_payload) {
			if (attr_u64(r, "length", UINT64_MAX, false, 0, &plen) ||
			    attr_sha(r, "sha256", payload_sha)) {
				xerr_say(err, errlen, XERR_FORMAT, "the index's payload element is damaged");
				goto out;
			}
			have_payload = true;
		} else if (!strcmp(name, "undoes") && pf->kind == XR_PF_UNDO && !have_plan) {
			if (attr_sha(r, "plan", pf->plan_id)) {
				xerr_say(err, errlen, XERR_FORMAT, "the undo file does not name its plan");
				goto out;
			}
			have_plan = true;
		} else if (!strcmp(name, "change")) {
			struct xr_pf_change *c;

			if (pf->nchanges == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				void *n;

				/* Every change holds a byte of the payload. */
				if (ncap > pf->payload_len + 1)
					ncap = (size_t)pf->payload_len + 1;
				if (ncap <= cap) {
					xerr_say(err, errlen, XERR_FORMAT, "more changes than payload bytes");
					goto out;
				}
				n = realloc(pf->changes, ncap * sizeof(*pf->changes));
				if (!n) {
					rc = xerr_say(err, errlen, XERR_NOMEM, "out of memory parsing the index");
					goto out;
				}
				pf->changes = n;
				cap = ncap;
			}
			c = &pf->changes[pf->nchanges];
			if (parse_change(r, c)) {
				xerr_say(err, errlen, XERR_FORMAT, "change %zu of the index is damaged",
				    pf->nchanges + 1);
				goto out;
			}
			if (pf->nchanges && c->offset < pf->changes[pf->nchanges - 1].offset +
							     pf->changes[pf->nchanges - 1].len) {
				xerr_say(err, errlen, XERR_FORMAT, "change %zu overlaps or precedes the one "
				    "before it", pf->nchanges + 1);
				goto out;
			}
			if (c->len > pf->payload_len - used) {
				xerr_say(err, errlen, XERR_FORMAT, "the changes need more bytes than the payload "
				    "holds");
				goto out;
			}
			c->payload_off = used;
			used += c->len;
			pf->nchanges++;
		}
	}
	if (st != 0) {
		xerr_say(err, errlen, XERR_FORMAT, "the index is not well-formed XML");
		goto out;
	}
	if (!have_fs || !have_payload || !have_plan) {
		xerr_say(err, errlen, XERR_FORMAT, "the index lacks its %s element",
		    !have_fs ? "filesystem" : !have_payload ? "payload" : "undoes");
		goto out;
	}
	if (plen != pf->payload_len || used != pf->payload_len) {
		xerr_say(err, errlen, XERR_FORMAT, "the payload length disagrees with the header or the "
		    "changes");
		goto out;
	}
	rc = 0;
out:
	xmlFreeTextReader(r);
	return rc;
}

static uint64_t payload_bound(void)
{
	struct xr_plan p;

	xr_plan_init(&p);   /* reads $XFSRECON_PLAN_MAX, allocates nothing */
	return p.max_bytes ? p.max_bytes : XR_PLAN_MAX_BYTES;
}

/* Flag the writes that reach past [0, dblocks x blocksize); with strict the
 * first one refuses the file.  Returns 0 or XERR_FORMAT. */
static int check_bounds(const char *path, struct xr_planfile *pf, bool strict, char *err,
			size_t errlen)
{
	const struct xr_pf_fs *fs = &pf->fs;
	uint64_t end = 0;

	if (fs->blocksize && fs->dblocks > UINT64_MAX / fs->blocksize)
		return xerr_say(err, errlen, XERR_FORMAT, "%s: its filesystem size (%" PRIu64 " blocks of "
			   "%" PRIu32 ") overflows", path, fs->dblocks, fs->blocksize);
	end = fs->dblocks * fs->blocksize;
	for (size_t i = 0; i < pf->nchanges; i++) {
		struct xr_pf_change *c = &pf->changes[i];

		if (c->offset < end && c->len <= end - c->offset)
			continue;
		if (strict)
			return xerr_say(err, errlen, XERR_FORMAT, "%s: write %zu (%" PRIu32 " bytes at byte "
				   "%" PRIu64 ") reaches outside the filesystem (%" PRIu64 " bytes): "
				   "refused", path, i + 1, c->len, c->offset, end);
		c->outside = true;
		pf->noutside++;
	}
	return 0;
}

static int load(const char *path, int want, bool strict, struct xr_planfile *pf, char *err,
		size_t errlen)
{
	uint8_t hdr[XR_PF_HDR_SIZE], sha[32], psha[32];
	uint64_t il, izl, pl, pzl;
	struct stat st;
	int fd, rc;

	memset(pf, 0, sizeof(*pf));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xerr_say(err, errlen, XERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = xerr_say(err, errlen, XERR_USAGE, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size < XR_PF_HDR_SIZE || xio_pread_full(fd, hdr, sizeof(hdr), 0)) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "%s: too short for a plan or undo file", path);
		goto out;
	}
	if (!memcmp(hdr, XR_PF_MAGIC_PLAN, 8))
		pf->kind = XR_PF_PLAN;
	else if (!memcmp(hdr, XR_PF_MAGIC_UNDO, 8))
		pf->kind = XR_PF_UNDO;
	else {
		rc = xerr_say(err, errlen, XERR_FORMAT, "%s: not an xfsrecon plan or undo file", path);
		goto out;
	}
	if (want && (int)pf->kind != want) {
		rc = xerr_say(err, errlen, XERR_USAGE, "%s is %s, not %s", path,
			 pf->kind == XR_PF_PLAN ? "a plan" : "an undo file",
			 want == XR_PF_PLAN ? "a plan" : "an undo file");
		goto out;
	}
	il = xfmt_get_be64(hdr + HDR_INDEX_LEN);
	izl = xfmt_get_be64(hdr + HDR_INDEX_ZLEN);
	pl = xfmt_get_be64(hdr + HDR_PAYLOAD_LEN);
	pzl = xfmt_get_be64(hdr + HDR_PAYLOAD_ZLEN);
	if (xfmt_get_be32(hdr + HDR_VERSION) != XR_PF_VERSION ||
	    xfmt_get_be32(hdr + HDR_SIZE) != XR_PF_HDR_SIZE) {
		rc = xerr_say(err, errlen, XERR_UNSUPPORTED, "%s: format version %" PRIu32 " (this "
			 "xfsrecon reads version %u)", path, xfmt_get_be32(hdr + HDR_VERSION),
			 XR_PF_VERSION);
		goto out;
	}
	/* Lengths before memory: each bounded, the frames no larger than zstd
	 * makes them, and together exactly the file. */
	if (il == 0 || il > XR_PF_INDEX_MAX || pl > payload_bound() ||
	    izl > ZSTD_compressBound((size_t)il) || pzl > ZSTD_compressBound((size_t)pl) ||
	    (uint64_t)st.st_size != XR_PF_HDR_SIZE + izl + pzl) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "%s: its lengths are damaged or past the bounds "
			 "(index %" PRIu64 ", payload %" PRIu64 " bytes)", path, il, pl);
		goto out;
	}
	rc = read_frame(fd, XR_PF_HDR_SIZE, izl, il, (uint8_t **)&pf->index, err, errlen, "index");
	if (rc)
		goto out;
	pf->index_len = (size_t)il;
	xsha256(pf->index, pf->index_len, sha);
	if (memcmp(sha, hdr + HDR_INDEX_SHA, 32) != 0 || strlen(pf->index) != pf->index_len) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "%s: the index does not match its SHA-256", path);
		goto out;
	}
	memcpy(pf->id, sha, 32);
	rc = read_frame(fd, XR_PF_HDR_SIZE + izl, pzl, pl, &pf->payload, err, errlen, "payload");
	if (rc)
		goto out;
	pf->payload_len = pl;
	rc = parse_index(pf, psha, err, errlen);
	if (rc)
		goto out;
	xsha256(pf->payload, (size_t)pf->payload_len, sha);
	if (memcmp(sha, psha, 32) != 0) {
		rc = xerr_say(err, errlen, XERR_FORMAT, "%s: the payload does not match its SHA-256", path);
		goto out;
	}
	for (size_t i = 0; i < pf->nchanges; i++) {
		const struct xr_pf_change *c = &pf->changes[i];

		xsha256(pf->payload + c->payload_off, c->len, sha);
		if (memcmp(sha, c->after, 32) != 0 || !memcmp(c->before, c->after, 32)) {
			rc = xerr_say(err, errlen, XERR_FORMAT, "%s: write %zu's bytes do not match its "
				 "digests", path, i + 1);
			goto out;
		}
	}
	rc = check_bounds(path, pf, strict, err, errlen);
out:
	close(fd);
	if (rc)
		xr_pf_release(pf);
	return rc;
}

int xr_pf_load(const char *path, int want, struct xr_planfile *pf, char *err, size_t errlen)
{
	return load(path, want, true, pf, err, errlen);
}

int xr_pf_load_review(const char *path, int want, struct xr_planfile *pf, char *err,
		      size_t errlen)
{
	return load(path, want, false, pf, err, errlen);
}
