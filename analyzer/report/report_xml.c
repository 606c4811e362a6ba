/*
 * report_xml.c - the XML report (doc/report.xsd) written from a finished
 * analyzer context and its validation against the schema (hostile image
 * bytes reach it escaped by escape.c).
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
#include "analyzer/report/xml_writer.h"

/* ------------------------------------------------------------ sections */

static void write_tool(struct xa_xw *x)
{
	xa_xw_start(x, "tool");
	xa_xw_attr(x, "name", PACKAGE_NAME);
	xa_xw_attr(x, "version", PACKAGE_VERSION);
	xa_xw_end(x);
}

static void write_input(struct xa_xw *x, const struct xa_ctx *ctx)
{
	const char *path = ctx->image_path ? ctx->image_path : "";

	xa_xw_start(x, "input");
	/* A path is bytes the user gave us; it need not be UTF-8. */
	xa_xw_attr_bytes(x, "path", path, strlen(path));
	/* The input's own size: a truncated image read with a zero tail
	 * (ctx->image_size) is reported as what it is. */
	xa_xw_attr_u64(x, "size", ctx->input ? ctx->input->size : ctx->image_size);
	if (ctx->have_sha256) {
		char hex[65];

		for (unsigned i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", ctx->sha256[i]);
		xa_xw_attr(x, "sha256", hex);
	}
	if (ctx->input && ctx->input->ops && ctx->input->ops->kind)
		xa_xw_attr(x, "kind", ctx->input->ops->kind);
	xa_xw_end(x);
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
	{ FW_INCOMPAT,     XFS_SB_FEAT_INCOMPAT_METADIR,     "metadir" },
	{ FW_LOG_INCOMPAT, XFS_SB_FEAT_INCOMPAT_LOG_XATTRS,  "logxattrs" },
};

static void write_features(struct xa_xw *x, const struct xfmt_sb *sb)
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

	xa_xw_start(x, "features");
	xa_xw_attr_hex32(x, "versionnum", sb->versionnum);
	xa_xw_attr_hex32(x, "features2", sb->features2);
	xa_xw_attr_hex32(x, "compat", sb->features_compat);
	xa_xw_attr_hex32(x, "roCompat", sb->features_ro_compat);
	xa_xw_attr_hex32(x, "incompat", sb->features_incompat);
	xa_xw_attr_hex32(x, "logIncompat", sb->features_log_incompat);
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
		xa_xw_start(x, "feature");
		xa_xw_attr(x, "name", feat_names[i].name);
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

static void write_geometry(struct xa_xw *x, const struct xa_ctx *ctx)
{
	const struct xfmt_geom *g = &ctx->geom;
	const struct xfmt_sb *sb = &ctx->sb;
	const char *src = "none";
	size_t label_len;

	if (ctx->geom_source == XA_GEOM_PRIMARY)
		src = "primary";
	else if (ctx->geom_source == XA_GEOM_VOTE)
		src = "vote";
	xa_xw_start(x, "geometry");
	xa_xw_attr(x, "source", src);
	xa_xw_attr_u64(x, "votesFor", ctx->sb_votes_for);
	xa_xw_attr_u64(x, "votesTotal", ctx->sb_votes_total);
	if (ctx->geom_source == XA_GEOM_NONE) {
		/* No superblock was believed: there is no geometry to report. */
		xa_xw_end(x);
		return;
	}
	xa_xw_attr_u64(x, "version", sb->versionnum & XFS_SB_VERSION_NUMBITS);
	xa_xw_attr_u64(x, "blocksize", g->blocksize);
	xa_xw_attr_u64(x, "sectsize", g->sectsize);
	xa_xw_attr_u64(x, "inodesize", g->inodesize);
	xa_xw_attr_u64(x, "agcount", g->agcount);
	xa_xw_attr_u64(x, "agblocks", g->agblocks);
	xa_xw_attr_u64(x, "dblocks", g->dblocks);
	xa_xw_attr_u64(x, "logstart", g->logstart);
	xa_xw_attr_u64(x, "logblocks", g->logblocks);
	xa_xw_attr_u64(x, "dirblksize", g->dirblksize);
	xa_xw_attr_uuid(x, "uuid", sb->uuid);
	/* meta_uuid is only meaningful (and only non-zero) with META_UUID. */
	if (xfmt_sb_is_v5(sb) && (sb->features_incompat & XFS_SB_FEAT_INCOMPAT_META_UUID))
		xa_xw_attr_uuid(x, "metaUuid", sb->meta_uuid);
	/* fname is 12 raw bytes, NUL-terminated only when shorter. */
	label_len = 0;
	while (label_len < sizeof(sb->fname) && sb->fname[label_len])
		label_len++;
	xa_xw_attr_bytes(x, "label", sb->fname, label_len);
	write_features(x, sb);
	xa_xw_end(x);
}

static void write_log(struct xa_xw *x, const struct xa_ctx *ctx)
{
	xa_xw_start(x, "log");
	const struct xa_log_state *ls = &ctx->log;

	xa_xw_attr_bool(x, "checked", ctx->log_checked);
	if (ctx->log_checked)
		xa_xw_attr_bool(x, "dirty", ctx->log_dirty);
	if (ls->present) {
		xa_xw_attr_u64(x, "headLsn", ((uint64_t)ls->bounds.head_cycle << 32) | ls->bounds.head);
		xa_xw_attr_u64(x, "tailLsn", ((uint64_t)ls->bounds.tail_cycle << 32) | ls->bounds.tail);
	}
	if (ls->present && ctx->log_dirty) {
		xa_xw_attr_u64(x, "records", ls->walk.records);
		xa_xw_attr_u64(x, "transactions", ls->st.transactions);
		xa_xw_attr(x, "walk", ls->walk.end == XA_LOG_WALK_TORN ? "torn-head" :
				      ls->walk.end == XA_LOG_WALK_DAMAGED ? "damaged" : "complete");
		if (ls->walk.end != XA_LOG_WALK_DONE) {
			xa_xw_attr_u64(x, "stopLsn", ls->walk.stop_lsn);
			xa_xw_attr_u64(x, "blocksNotReplayed", ls->walk.lost_blocks);
		}
		xa_xw_attr_bool(x, "replayed", ls->replayed);
		if (ls->replayed) {
			xa_xw_attr_u64(x, "buffers", ls->st.bufs + ls->st.inode_bufs);
			xa_xw_attr_u64(x, "inodes", ls->st.inodes);
			xa_xw_attr_u64(x, "inodeChunks", ls->st.icreates);
			xa_xw_attr_u64(x, "replayedBytes", ls->st.bytes);
		}
		xa_xw_attr_u64(x, "intentsPending", ls->st.intents_pending);
	}
	xa_xw_end(x);
}

static const char *const bt_names[XA_BT_AG_COUNT] = {
	[XA_BT_BNO] = "bnobt",
	[XA_BT_CNT] = "cntbt",
	[XA_BT_INO] = "inobt",
	[XA_BT_FINO] = "finobt",
	[XA_BT_RMAP] = "rmapbt",
	[XA_BT_REFC] = "refcountbt",
};

/*
 * Which side of AG ag looks intact, for a repair to rebuild the other from
 * (rule 4): the rmapbt, or the primary metadata (AG headers, free-space and
 * inode btrees, inode chunks, counters).  A side is damaged when an error
 * finding is located in it or its walk did not complete; two intact sides
 * that disagree leave the primary metadata believed, the source the
 * rebuilt trees come from.
 */
static void ag_believed(const struct xa_ctx *ctx, const struct xa_ag *ag, const char **side,
			const char **why)
{
	bool rmap = xfmt_geom_has_rmapbt(&ctx->geom);
	bool rmap_bad = rmap && !ag->bt[XA_BT_RMAP].walked;
	bool prim_bad = !ag->agf_ok || !ag->agi_ok || !ag->bt[XA_BT_BNO].walked ||
			!ag->bt[XA_BT_CNT].walked || !ag->bt[XA_BT_INO].walked;
	bool disagree = false;

	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		unsigned fam = (f->p.code >> 8) & 0xFF;

		if (!(f->p.has & XPROB_HAS_AG) || f->p.agno != ag->agno ||
		    xprob_severity_of(f->p.code) != XSEV_ERROR)
			continue;
		if (fam == 0x0F && f->p.code <= XP_rmapWrongLength)
			disagree = true;
		else if (fam == 0x0F)
			prim_bad = true;   /* free space or share counts against the owners */
		else if (f->what && !strcmp(f->what, "rmapbt"))
			rmap_bad = true;
		else if (fam >= 0x03 && fam <= 0x09 && !(f->what && !strncmp(f->what, "bmbt", 4)))
			prim_bad = true;
	}
	if (!rmap) {
		*side = "primary";
		*why = prim_bad ? "no rmapbt; the primary metadata is damaged"
				: "no rmapbt; the primary metadata looks intact";
	} else if (rmap_bad && prim_bad) {
		*side = "neither";
		*why = "the rmapbt and the primary metadata are both damaged";
	} else if (rmap_bad) {
		*side = "primary";
		*why = "the rmapbt is damaged; the primary metadata looks intact";
	} else if (prim_bad) {
		*side = "rmapbt";
		*why = "the primary metadata is damaged; the rmapbt looks intact";
	} else if (disagree) {
		*side = "primary";
		*why = "both look intact but disagree; the primary metadata is what the trees are rebuilt from";
	} else {
		*side = "agree";
		*why = "both look intact and agree";
	}
}

static void write_ag(struct xa_xw *x, const struct xa_ctx *ctx, const struct xa_ag *ag)
{
	const char *side, *why;

	xa_xw_start(x, "ag");
	xa_xw_attr_u64(x, "number", ag->agno);
	xa_xw_attr_u64(x, "length", ag->length);
	xa_xw_attr_bool(x, "sbOk", ag->sb_ok);
	xa_xw_attr_bool(x, "agfOk", ag->agf_ok);
	xa_xw_attr_bool(x, "agiOk", ag->agi_ok);
	xa_xw_attr_bool(x, "agflOk", ag->agfl_ok);
	xa_xw_attr_u64(x, "freeBlocks", ag->free_blocks);
	xa_xw_attr_u64(x, "longestFree", ag->longest_free);
	xa_xw_attr_u64(x, "inodes", ag->inodes);
	xa_xw_attr_u64(x, "freeInodes", ag->free_inodes);
	xa_xw_attr_u64(x, "inodesChecked", ag->inodes_checked);
	xa_xw_attr_u64(x, "inodesInUse", ag->inodes_in_use);
	xa_xw_attr_u64(x, "unlinkedHeads", ag->unlinked_heads);
	ag_believed(ctx, ag, &side, &why);
	xa_xw_attr(x, "believed", side);
	xa_xw_attr(x, "believedWhy", why);
	/* The header counters, next to the walk totals above they claim. */
	if (ag->agf_ok) {
		xa_xw_start(x, "agf");
		xa_xw_attr_u64(x, "seqno", ag->agf.seqno);
		xa_xw_attr_u64(x, "length", ag->agf.length);
		xa_xw_attr_u64(x, "freeblks", ag->agf.freeblks);
		xa_xw_attr_u64(x, "longest", ag->agf.longest);
		xa_xw_attr_u64(x, "flcount", ag->agf.flcount);
		xa_xw_attr_u64(x, "btreeblks", ag->agf.btreeblks);
		xa_xw_end(x);
	}
	if (ag->agi_ok) {
		xa_xw_start(x, "agi");
		xa_xw_attr_u64(x, "count", ag->agi.count);
		xa_xw_attr_u64(x, "freecount", ag->agi.freecount);
		xa_xw_end(x);
	}
	for (unsigned t = 0; t < XA_BT_AG_COUNT; t++) {
		const struct xa_btree_sum *bt = &ag->bt[t];

		if (!bt->present)
			continue;
		xa_xw_start(x, "btree");
		xa_xw_attr(x, "name", bt_names[t]);
		xa_xw_attr_u64(x, "root", bt->root);
		xa_xw_attr_u64(x, "levels", bt->levels);
		xa_xw_attr_u64(x, "blocks", bt->blocks);
		xa_xw_attr_u64(x, "records", bt->records);
		xa_xw_attr_bool(x, "walked", bt->walked);
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

/* AGs first..last, not there: one element for the whole run. */
static void write_absent(struct xa_xw *x, uint32_t first, uint32_t last, const char *why)
{
	xa_xw_start(x, "absent");
	xa_xw_attr_u64(x, "first", first);
	xa_xw_attr_u64(x, "last", last);
	xa_xw_attr(x, "why", why);
	xa_xw_end(x);
}

static void write_ags(struct xa_xw *x, const struct xa_ctx *ctx)
{
	uint32_t n = ctx->ags ? ctx->nags : 0, shown = 0;

	for (uint32_t i = 0; i < n; i++)
		shown += !ctx->ags[i].blank;
	xa_xw_start(x, "ags");
	xa_xw_attr_u64(x, "count", shown);
	for (uint32_t i = 0; i < n && !x->failed; i++) {
		uint32_t last = i;

		if (!ctx->ags[i].blank) {
			write_ag(x, ctx, &ctx->ags[i]);
			continue;
		}
		while (last + 1 < n && ctx->ags[last + 1].blank)
			last++;
		write_absent(x, i, last, "blank");
		i = last;
	}
	if (n && n < ctx->ags_in_image)
		write_absent(x, n, ctx->ags_in_image - 1, "blank");
	if (n && ctx->ags_in_image < ctx->geom.agcount)
		write_absent(x, ctx->ags_in_image, ctx->geom.agcount - 1, "pastEnd");
	xa_xw_end(x);
}

static void write_findings(struct xa_xw *x, const struct xa_findings *f)
{
	size_t n = f->items ? f->count : 0;

	xa_xw_start(x, "findings");
	xa_xw_attr_u64(x, "count", n);
	xa_xw_attr_u64(x, "errors", f->by_severity[XSEV_ERROR]);
	xa_xw_attr_u64(x, "warnings", f->by_severity[XSEV_WARNING]);
	xa_xw_attr_u64(x, "infos", f->by_severity[XSEV_INFO]);
	xa_xw_attr_u64(x, "dropped", f->dropped);
	for (size_t i = 0; i < n && !x->failed; i++)
		xa_xw_finding(x, &f->items[i], NULL);
	xa_xw_end(x);
}

static void write_summary(struct xa_xw *x, const struct xa_ctx *ctx)
{
	/* Infos (a dirty log) are worth knowing but do not make an image unclean. */
	bool clean = xa_findings_count(&ctx->findings, XSEV_WARNING) == 0;

	xa_xw_start(x, "summary");
	xa_xw_attr(x, "verdict", clean ? "clean" : "problems");
	xa_xw_end(x);
}

/* Build the whole document into buf. */
static int build_document(const struct xa_ctx *ctx, xmlBufferPtr buf)
{
	struct xa_xw x = { .w = xmlNewTextWriterMemory(buf, 0), .failed = false };

	if (!x.w)
		return XERR_NOMEM;
	xa_xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
	xa_xw_check(&x, xmlTextWriterSetIndentString(x.w, xa_xc("  ")));
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
	xa_xw_start(&x, "xfsrecon-report");
	xa_xw_attr(&x, "version", "1");
	write_tool(&x);
	write_input(&x, ctx);
	write_geometry(&x, ctx);
	write_log(&x, ctx);
	write_ags(&x, ctx);
	write_findings(&x, &ctx->findings);
	write_summary(&x, ctx);
	xa_xw_end(&x);
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterEndDocument(x.w));
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterFlush(x.w));
	xmlFreeTextWriter(x.w);
	/* The writer targets memory, so its only way to fail is allocation. */
	return x.failed ? XERR_NOMEM : 0;
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
		rc = xa_xml_save(ctx->image_path, ximg_raw_fd(ctx->input), path,
				 xmlBufferContent(buf), (size_t)xmlBufferLength(buf), err, errlen);
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
