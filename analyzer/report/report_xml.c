/*
 * report_xml.c - the XML report (doc/report.xsd) written from a finished
 * analyzer context, its validation against the schema, and the escaping of
 * hostile image bytes into safe UTF-8.
 *
 * The document is built in a memory buffer by libxml2's xmlTextWriter and
 * only then written to the destination, so a writer error never leaves a
 * truncated report that looks complete.  Element order and attribute order
 * are fixed in code and nothing volatile (time, host, pointer values) is
 * written, which makes the report byte-identical for the same context.
 */
#include "config.h"

#include "analyzer/report/report_xml.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>
#include <libxml/xmlwriter.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"

/* Bytes of a rendered finding message; templates are short, this is ample. */
#define XA_XML_MSG_MAX 512u

/* ------------------------------------------------------------ escaping */

static size_t put_hex_byte(char *out, size_t pos, uint8_t b)
{
	static const char hex[] = "0123456789ABCDEF";

	out[pos++] = '\\';
	out[pos++] = 'x';
	out[pos++] = hex[b >> 4];
	out[pos++] = hex[b & 0xF];
	return pos;
}

/*
 * Length of the well-formed, XML-safe UTF-8 sequence starting at s[0]
 * (0 if s[0] must be escaped).  Rejects what XML 1.0 forbids (surrogates,
 * U+FFFE, U+FFFF) and what would display as something else (C1 controls),
 * as well as overlong forms, which could smuggle '<' or NUL past a reader.
 */
static size_t utf8_safe_len(const uint8_t *s, size_t avail)
{
	uint32_t cp, min;
	size_t n;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2; cp = s[0] & 0x1Fu; min = 0x80;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3; cp = s[0] & 0x0Fu; min = 0x800;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4; cp = s[0] & 0x07u; min = 0x10000;
	} else {
		return 0;
	}
	if (n > avail)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xC0u) != 0x80u)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3Fu);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	if (cp <= 0x9F || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return n;
}

char *xa_report_xml_escape(const void *bytes, size_t len)
{
	const uint8_t *s = bytes;
	size_t pos = 0, i = 0;
	char *out;

	/* Every input byte becomes at most four output bytes ("\xNN"). */
	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	out = malloc(len * 4 + 1);
	if (!out)
		return NULL;
	while (i < len) {
		uint8_t b = s[i];
		size_t n;

		if (b == '\\') {
			out[pos++] = '\\';
			out[pos++] = '\\';
			i++;
		} else if (b < 0x80) {
			if (b < 0x20 || b == 0x7F)
				pos = put_hex_byte(out, pos, b);
			else
				out[pos++] = (char)b;
			i++;
		} else if ((n = utf8_safe_len(s + i, len - i)) != 0) {
			memcpy(out + pos, s + i, n);
			pos += n;
			i += n;
		} else {
			/* Escape only the bad byte; what follows is judged on its own. */
			pos = put_hex_byte(out, pos, b);
			i++;
		}
	}
	out[pos] = '\0';
	return out;
}

/* ------------------------------------------------------------ writer helpers */

/* libxml2 speaks unsigned char; its BAD_CAST would also drop const. */
static const xmlChar *xc(const char *s)
{
	return (const xmlChar *)s;
}

/*
 * A writer that remembers its first failure, so the document code below
 * reads as a list of elements instead of a ladder of error checks.
 */
struct xw {
	xmlTextWriterPtr w;
	bool failed;
};

static void xw_check(struct xw *x, int rc)
{
	if (rc < 0)
		x->failed = true;
}

static void xw_start(struct xw *x, const char *name)
{
	if (!x->failed)
		xw_check(x, xmlTextWriterStartElement(x->w, xc(name)));
}

static void xw_end(struct xw *x)
{
	if (!x->failed)
		xw_check(x, xmlTextWriterEndElement(x->w));
}

/* s must already be valid UTF-8 (a literal, a number, or escaped bytes). */
static void xw_attr(struct xw *x, const char *name, const char *s)
{
	if (!x->failed)
		xw_check(x, xmlTextWriterWriteAttribute(x->w, xc(name), xc(s)));
}

/* An attribute holding hostile bytes: escaped to safe UTF-8 first. */
static void xw_attr_bytes(struct xw *x, const char *name, const void *bytes, size_t len)
{
	char *s;

	if (x->failed)
		return;
	s = xa_report_xml_escape(bytes, len);
	if (!s) {
		x->failed = true;
		return;
	}
	xw_attr(x, name, s);
	free(s);
}

static void xw_attr_u64(struct xw *x, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	xw_attr(x, name, num);
}

static void xw_attr_hex32(struct xw *x, const char *name, uint32_t v)
{
	char num[16];

	snprintf(num, sizeof(num), "0x%" PRIx32, v);
	xw_attr(x, name, num);
}

static void xw_attr_bool(struct xw *x, const char *name, bool v)
{
	xw_attr(x, name, v ? "true" : "false");
}

static void xw_attr_uuid(struct xw *x, const char *name, const uint8_t u[16])
{
	char s[40];

	snprintf(s, sizeof(s),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
	xw_attr(x, name, s);
}

/* ------------------------------------------------------------ sections */

static void write_tool(struct xw *x)
{
	xw_start(x, "tool");
	xw_attr(x, "name", PACKAGE_NAME);
	xw_attr(x, "version", PACKAGE_VERSION);
	xw_end(x);
}

static void write_input(struct xw *x, const struct xa_ctx *ctx)
{
	const char *path = ctx->image_path ? ctx->image_path : "";

	xw_start(x, "input");
	/* A path is bytes the user gave us; it need not be UTF-8. */
	xw_attr_bytes(x, "path", path, strlen(path));
	xw_attr_u64(x, "size", ctx->image_size);
	if (ctx->have_sha256) {
		char hex[65];

		for (unsigned i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", ctx->sha256[i]);
		xw_attr(x, "sha256", hex);
	}
	if (ctx->img && ctx->img->ops && ctx->img->ops->kind)
		xw_attr(x, "kind", ctx->img->ops->kind);
	xw_end(x);
}

/* Named superblock feature bits (formats/sb.h, xfs-ondisk.md sections 1.1-1.3). */
enum feat_word { FW_VERSION, FW_FEATURES2, FW_RO_COMPAT, FW_INCOMPAT, FW_LOG_INCOMPAT };

static const struct feat_name {
	enum feat_word word;
	uint32_t       bit;
	const char    *name;
} feat_names[] = {
	{ FW_VERSION,      XFS_SB_VERSION_ATTRBIT,           "attr" },
	{ FW_VERSION,      XFS_SB_VERSION_NLINKBIT,          "nlink" },
	{ FW_VERSION,      XFS_SB_VERSION_QUOTABIT,          "quota" },
	{ FW_VERSION,      XFS_SB_VERSION_ALIGNBIT,          "align" },
	{ FW_VERSION,      XFS_SB_VERSION_DALIGNBIT,         "dalign" },
	{ FW_VERSION,      XFS_SB_VERSION_SHAREDBIT,         "shared" },
	{ FW_VERSION,      XFS_SB_VERSION_LOGV2BIT,          "logv2" },
	{ FW_VERSION,      XFS_SB_VERSION_SECTORBIT,         "sector" },
	{ FW_VERSION,      XFS_SB_VERSION_EXTFLGBIT,         "extflg" },
	{ FW_VERSION,      XFS_SB_VERSION_DIRV2BIT,          "dirv2" },
	{ FW_VERSION,      XFS_SB_VERSION_BORGBIT,           "asciici" },
	{ FW_VERSION,      XFS_SB_VERSION_MOREBITSBIT,       "morebits" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_LAZYSBCOUNTBIT,   "lazysbcount" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_ATTR2BIT,         "attr2" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_PARENTBIT,        "parentv4" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_PROJID32BIT,      "projid32" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_CRCBIT,           "crc" },
	{ FW_FEATURES2,    XFS_SB_VERSION2_FTYPE,            "ftype" },
	{ FW_RO_COMPAT,    XFS_SB_FEAT_RO_COMPAT_FINOBT,     "finobt" },
	{ FW_RO_COMPAT,    XFS_SB_FEAT_RO_COMPAT_RMAPBT,     "rmapbt" },
	{ FW_RO_COMPAT,    XFS_SB_FEAT_RO_COMPAT_REFLINK,    "reflink" },
	{ FW_RO_COMPAT,    XFS_SB_FEAT_RO_COMPAT_INOBTCNT,   "inobtcnt" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_FTYPE,       "ftype" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_SPINODES,    "sparse" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_META_UUID,   "metauuid" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_BIGTIME,     "bigtime" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR, "needsrepair" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_NREXT64,     "nrext64" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_EXCHRANGE,   "exchrange" },
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_PARENT,      "parent" },
	{ FW_LOG_INCOMPAT, XFS_SB_FEAT_INCOMPAT_LOG_XATTRS,  "logxattrs" },
};

static void write_features(struct xw *x, const struct xfmt_sb *sb)
{
	bool v5 = xfmt_sb_is_v5(sb);
	/* v4 honours features2 only with MOREBITS; v5 words exist only on v5. */
	uint32_t words[] = {
		[FW_VERSION] = sb->versionnum,
		[FW_FEATURES2] = (v5 || (sb->versionnum & XFS_SB_VERSION_MOREBITSBIT)) ? sb->features2 : 0,
		[FW_RO_COMPAT] = v5 ? sb->features_ro_compat : 0,
		[FW_INCOMPAT] = v5 ? sb->features_incompat : 0,
		[FW_LOG_INCOMPAT] = v5 ? sb->features_log_incompat : 0,
	};
	size_t n = sizeof(feat_names) / sizeof(feat_names[0]);

	xw_start(x, "features");
	xw_attr_hex32(x, "versionnum", sb->versionnum);
	xw_attr_hex32(x, "features2", sb->features2);
	xw_attr_hex32(x, "compat", sb->features_compat);
	xw_attr_hex32(x, "roCompat", sb->features_ro_compat);
	xw_attr_hex32(x, "incompat", sb->features_incompat);
	xw_attr_hex32(x, "logIncompat", sb->features_log_incompat);
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		if (!(words[feat_names[i].word] & feat_names[i].bit))
			continue;
		/* ftype has a v4 bit and a v5 bit; name it once. */
		for (size_t j = 0; j < i; j++)
			if ((words[feat_names[j].word] & feat_names[j].bit) &&
			    !strcmp(feat_names[j].name, feat_names[i].name))
				dup = true;
		if (dup)
			continue;
		xw_start(x, "feature");
		xw_attr(x, "name", feat_names[i].name);
		xw_end(x);
	}
	xw_end(x);
}

static void write_geometry(struct xw *x, const struct xa_ctx *ctx)
{
	const struct xfmt_geom *g = &ctx->geom;
	const struct xfmt_sb *sb = &ctx->sb;
	const char *src = "none";
	size_t label_len;

	if (ctx->geom_source == XA_GEOM_PRIMARY)
		src = "primary";
	else if (ctx->geom_source == XA_GEOM_VOTE)
		src = "vote";
	xw_start(x, "geometry");
	xw_attr(x, "source", src);
	xw_attr_u64(x, "votesFor", ctx->sb_votes_for);
	xw_attr_u64(x, "votesTotal", ctx->sb_votes_total);
	if (ctx->geom_source == XA_GEOM_NONE) {
		/* No superblock was believed: there is no geometry to report. */
		xw_end(x);
		return;
	}
	xw_attr_u64(x, "version", sb->versionnum & XFS_SB_VERSION_NUMBITS);
	xw_attr_u64(x, "blocksize", g->blocksize);
	xw_attr_u64(x, "sectsize", g->sectsize);
	xw_attr_u64(x, "inodesize", g->inodesize);
	xw_attr_u64(x, "agcount", g->agcount);
	xw_attr_u64(x, "agblocks", g->agblocks);
	xw_attr_u64(x, "dblocks", g->dblocks);
	xw_attr_u64(x, "logstart", g->logstart);
	xw_attr_u64(x, "logblocks", g->logblocks);
	xw_attr_u64(x, "dirblksize", g->dirblksize);
	xw_attr_uuid(x, "uuid", sb->uuid);
	/* meta_uuid is only meaningful (and only non-zero) with META_UUID. */
	if (xfmt_sb_is_v5(sb) && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_META_UUID))
		xw_attr_uuid(x, "metaUuid", sb->meta_uuid);
	/* fname is 12 raw bytes, NUL-terminated only when shorter. */
	label_len = 0;
	while (label_len < sizeof(sb->fname) && sb->fname[label_len])
		label_len++;
	xw_attr_bytes(x, "label", sb->fname, label_len);
	write_features(x, sb);
	xw_end(x);
}

static void write_log(struct xw *x, const struct xa_ctx *ctx)
{
	xw_start(x, "log");
	xw_attr_bool(x, "checked", ctx->log_checked);
	if (ctx->log_checked)
		xw_attr_bool(x, "dirty", ctx->log_dirty);
	xw_end(x);
}

static const char *const bt_names[XA_BT_AG_COUNT] = {
	[XA_BT_BNO] = "bnobt",
	[XA_BT_CNT] = "cntbt",
	[XA_BT_INO] = "inobt",
	[XA_BT_FINO] = "finobt",
	[XA_BT_RMAP] = "rmapbt",
	[XA_BT_REFC] = "refcountbt",
};

static void write_ag(struct xw *x, const struct xa_ag *ag)
{
	xw_start(x, "ag");
	xw_attr_u64(x, "number", ag->agno);
	xw_attr_u64(x, "length", ag->length);
	xw_attr_bool(x, "sbOk", ag->sb_ok);
	xw_attr_bool(x, "agfOk", ag->agf_ok);
	xw_attr_bool(x, "agiOk", ag->agi_ok);
	xw_attr_bool(x, "agflOk", ag->agfl_ok);
	xw_attr_u64(x, "freeBlocks", ag->free_blocks);
	xw_attr_u64(x, "longestFree", ag->longest_free);
	xw_attr_u64(x, "inodes", ag->inodes);
	xw_attr_u64(x, "freeInodes", ag->free_inodes);
	xw_attr_u64(x, "inodesChecked", ag->inodes_checked);
	xw_attr_u64(x, "inodesInUse", ag->inodes_in_use);
	xw_attr_u64(x, "unlinkedHeads", ag->unlinked_heads);
	/* The header counters, next to the walk totals above they claim. */
	if (ag->agf_ok) {
		xw_start(x, "agf");
		xw_attr_u64(x, "seqno", ag->agf.seqno);
		xw_attr_u64(x, "length", ag->agf.length);
		xw_attr_u64(x, "freeblks", ag->agf.freeblks);
		xw_attr_u64(x, "longest", ag->agf.longest);
		xw_attr_u64(x, "flcount", ag->agf.flcount);
		xw_attr_u64(x, "btreeblks", ag->agf.btreeblks);
		xw_end(x);
	}
	if (ag->agi_ok) {
		xw_start(x, "agi");
		xw_attr_u64(x, "count", ag->agi.count);
		xw_attr_u64(x, "freecount", ag->agi.freecount);
		xw_end(x);
	}
	for (unsigned t = 0; t < XA_BT_AG_COUNT; t++) {
		const struct xa_btree_sum *bt = &ag->bt[t];

		if (!bt->present)
			continue;
		xw_start(x, "btree");
		xw_attr(x, "name", bt_names[t]);
		xw_attr_u64(x, "root", bt->root);
		xw_attr_u64(x, "levels", bt->levels);
		xw_attr_u64(x, "blocks", bt->blocks);
		xw_attr_u64(x, "records", bt->records);
		xw_attr_bool(x, "walked", bt->walked);
		xw_end(x);
	}
	xw_end(x);
}

static void write_ags(struct xw *x, const struct xa_ctx *ctx)
{
	uint32_t n = ctx->ags ? ctx->nags : 0;

	xw_start(x, "ags");
	xw_attr_u64(x, "count", n);
	for (uint32_t i = 0; i < n && !x->failed; i++)
		write_ag(x, &ctx->ags[i]);
	xw_end(x);
}

static void write_finding(struct xw *x, const struct xa_finding *fd)
{
	const struct xprob *p = &fd->p;
	const char *id = xprob_id(p->code);
	char code[16], msg[XA_XML_MSG_MAX];

	snprintf(code, sizeof(code), "0x%04X", (unsigned)p->code);
	xw_start(x, "finding");
	xw_attr(x, "code", code);
	/* A code missing from the table is a bug, but the report still says so. */
	xw_attr(x, "id", id ? id : "unknown");
	xw_attr(x, "severity", xprob_severity_name(xprob_severity_of(p->code)));
	xw_attr(x, "fix", xprob_fix_name(xprob_fix_of(p->code)));
	if (fd->what && fd->what[0])
		xw_attr_bytes(x, "structure", fd->what, strlen(fd->what));
	if (p->has & XPROB_HAS_AG)
		xw_attr_u64(x, "ag", p->agno);
	if (p->has & XPROB_HAS_AGBNO)
		xw_attr_u64(x, "agbno", p->agbno);
	if (p->has & XPROB_HAS_INO)
		xw_attr_u64(x, "ino", p->ino);
	if (p->has & XPROB_HAS_BYTE)
		xw_attr_u64(x, "byte", p->byte);
	if (p->has & XPROB_HAS_OFF)
		xw_attr_u64(x, "offset", p->off);
	if (p->field)
		xw_attr_bytes(x, "field", p->field, strlen(p->field));
	if (p->has & XPROB_HAS_EXPECTED)
		xw_attr_u64(x, "expected", p->expected);
	if (p->has & XPROB_HAS_OBSERVED)
		xw_attr_u64(x, "observed", p->observed);
	xa_finding_render(fd, msg, sizeof(msg));
	if (!x->failed) {
		/* Messages are ASCII today; escaping keeps that true when names join them. */
		char *safe = xa_report_xml_escape(msg, strlen(msg));

		if (!safe)
			x->failed = true;
		else
			xw_check(x, xmlTextWriterWriteString(x->w, xc(safe)));
		free(safe);
	}
	xw_end(x);
}

static void write_findings(struct xw *x, const struct xa_findings *f)
{
	size_t n = f->items ? f->count : 0;

	xw_start(x, "findings");
	xw_attr_u64(x, "count", n);
	xw_attr_u64(x, "errors", f->by_severity[XSEV_ERROR]);
	xw_attr_u64(x, "warnings", f->by_severity[XSEV_WARNING]);
	xw_attr_u64(x, "infos", f->by_severity[XSEV_INFO]);
	xw_attr_u64(x, "dropped", f->dropped);
	for (size_t i = 0; i < n && !x->failed; i++)
		write_finding(x, &f->items[i]);
	xw_end(x);
}

static void write_summary(struct xw *x, const struct xa_ctx *ctx)
{
	/* Infos (a dirty log) are worth knowing but do not make an image unclean. */
	bool clean = xa_findings_count(&ctx->findings, XSEV_WARNING) == 0;

	xw_start(x, "summary");
	xw_attr(x, "verdict", clean ? "clean" : "problems");
	xw_end(x);
}

/* Build the whole document into buf. */
static int build_document(const struct xa_ctx *ctx, xmlBufferPtr buf)
{
	struct xw x = { .w = xmlNewTextWriterMemory(buf, 0), .failed = false };

	if (!x.w)
		return XERR_NOMEM;
	xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
	xw_check(&x, xmlTextWriterSetIndentString(x.w, xc("  ")));
	if (!x.failed)
		xw_check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
	xw_start(&x, "xfsrecon-report");
	xw_attr(&x, "version", "1");
	write_tool(&x);
	write_input(&x, ctx);
	write_geometry(&x, ctx);
	write_log(&x, ctx);
	write_ags(&x, ctx);
	write_findings(&x, &ctx->findings);
	write_summary(&x, ctx);
	xw_end(&x);
	if (!x.failed)
		xw_check(&x, xmlTextWriterEndDocument(x.w));
	if (!x.failed)
		xw_check(&x, xmlTextWriterFlush(x.w));
	xmlFreeTextWriter(x.w);
	/* The writer targets memory, so its only way to fail is allocation. */
	return x.failed ? XERR_NOMEM : 0;
}

/* ------------------------------------------------------------ output file */

static bool same_file(const struct stat *a, const struct stat *b)
{
	if (a->st_dev == b->st_dev && a->st_ino == b->st_ino)
		return true;
	/* Two device nodes for one block device are the same evidence. */
	return S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_out(const struct xa_ctx *ctx, const char *path, const uint8_t *data,
		     size_t len, char *err, size_t errlen)
{
	struct stat img_st, out_st;
	bool have_img = ctx->image_path && stat(ctx->image_path, &img_st) == 0;
	int fd, rc = 0;

	if (!strcmp(path, "-")) {
		if (write_all(STDOUT_FILENO, data, len)) {
			snprintf(err, errlen, "writing the XML report to standard output: %s",
				 strerror(errno));
			return XERR_IO;
		}
		return 0;
	}
	/* Refuse before opening: not even an open for writing touches the evidence. */
	if (have_img && stat(path, &out_st) == 0 && same_file(&img_st, &out_st)) {
		snprintf(err, errlen, "%s: refusing to write the XML report over the image", path);
		return XERR_USAGE;
	}
	/* No O_TRUNC: truncate only once fstat proves it is not the image. */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create the XML report: %s", path, strerror(errno));
		return XERR_IO;
	}
	if (fstat(fd, &out_st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return XERR_IO;
	}
	if (have_img && same_file(&img_st, &out_st)) {
		snprintf(err, errlen, "%s: refusing to write the XML report over the image", path);
		close(fd);
		return XERR_USAGE;
	}
	if ((S_ISREG(out_st.st_mode) && ftruncate(fd, 0) != 0) || write_all(fd, data, len)) {
		snprintf(err, errlen, "%s: writing the XML report: %s", path, strerror(errno));
		rc = XERR_IO;
	}
	if (close(fd) != 0 && !rc) {
		snprintf(err, errlen, "%s: writing the XML report: %s", path, strerror(errno));
		rc = XERR_IO;
	}
	return rc;
}

int xa_report_xml_write(const struct xa_ctx *ctx, const char *path, char *err,
			size_t errlen)
{
	xmlBufferPtr buf;
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!path || !path[0]) {
		snprintf(err, errlen, "no path given for the XML report");
		return XERR_USAGE;
	}
	buf = xmlBufferCreate();
	if (!buf) {
		snprintf(err, errlen, "out of memory building the XML report");
		return XERR_NOMEM;
	}
	/* Grow geometrically: the default exact-size scheme reallocates on
	 * every append, quadratic for a report with 100,000 findings. */
	xmlBufferSetAllocationScheme(buf, XML_BUFFER_ALLOC_DOUBLEIT);
	rc = build_document(ctx, buf);
	if (rc)
		snprintf(err, errlen, "out of memory building the XML report");
	else
		rc = write_out(ctx, path, xmlBufferContent(buf),
			       (size_t)xmlBufferLength(buf), err, errlen);
	xmlBufferFree(buf);
	return rc;
}

/* ------------------------------------------------------------ validation */

struct first_error {
	char  *buf;
	size_t len;
	bool   set;
};

/* libxml2 2.12 made the structured error handler take a const error. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *xa_xml_error_ptr;
#else
typedef xmlErrorPtr xa_xml_error_ptr;
#endif

/* Keep the first message libxml2 reports instead of printing to stderr. */
static void capture_error(void *arg, xa_xml_error_ptr e)
{
	struct first_error *fe = arg;
	size_t n;

	if (fe->set || !fe->len || !e || !e->message)
		return;
	snprintf(fe->buf, fe->len, "%s:%d: %s", e->file ? e->file : "?", e->line, e->message);
	n = strlen(fe->buf);
	if (n && fe->buf[n - 1] == '\n')
		fe->buf[n - 1] = '\0';
	fe->set = true;
}

int xa_report_xml_validate(const char *xml_path, const char *xsd_path, char *err,
			   size_t errlen)
{
	struct first_error fe = { .buf = err, .len = errlen, .set = false };
	xmlSchemaParserCtxtPtr pctx = NULL;
	xmlSchemaValidCtxtPtr vctx = NULL;
	xmlSchemaPtr schema = NULL;
	int rc, v;

	if (errlen)
		err[0] = '\0';
	xmlInitParser();
	pctx = xmlSchemaNewParserCtxt(xsd_path);
	if (!pctx) {
		snprintf(err, errlen, "out of memory loading the schema");
		rc = XERR_NOMEM;
		goto out;
	}
	xmlSchemaSetParserStructuredErrors(pctx, capture_error, &fe);
	schema = xmlSchemaParse(pctx);
	if (!schema) {
		if (!fe.set)
			snprintf(err, errlen, "%s: cannot load the schema", xsd_path);
		rc = XERR_IO;
		goto out;
	}
	vctx = xmlSchemaNewValidCtxt(schema);
	if (!vctx) {
		snprintf(err, errlen, "out of memory validating %s", xml_path);
		rc = XERR_NOMEM;
		goto out;
	}
	xmlSchemaSetValidStructuredErrors(vctx, capture_error, &fe);
	v = xmlSchemaValidateFile(vctx, xml_path, 0);
	if (v == 0) {
		rc = 0;
	} else {
		/* v > 0: invalid; v < 0: not readable or not well formed. */
		if (!fe.set)
			snprintf(err, errlen, "%s: does not validate against %s (%d)",
				 xml_path, xsd_path, v);
		rc = XERR_FORMAT;
	}
out:
	xmlSchemaFreeValidCtxt(vctx);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pctx);
	return rc;
}
