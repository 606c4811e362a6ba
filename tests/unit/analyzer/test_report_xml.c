/*
 * test_report_xml.c - the XML report: it validates against doc/report.xsd
 * (with libxml2 and, when present, with xmllint), carries the context's
 * values, escapes hostile label bytes, is byte-identical across runs, and
 * refuses to overwrite the image it describes.  The schema itself is shown
 * to reject broken documents, so a passing validation means something.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/report/escape.h"
#include "analyzer/report/report_xml.h"

#ifndef XA_TOP_SRCDIR
#define XA_TOP_SRCDIR "."
#endif

static char tmpdir[256];
static char xsd_path[1024];

/* ------------------------------------------------------------ fixtures */

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", tmpdir, name);
	assert_true(n > 0 && (size_t)n < len);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Read a whole (small) file; the caller frees. */
static char *read_file(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0 && len < (1L << 24));
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	if (lenp)
		*lenp = (size_t)len;
	return buf;
}

static void add_finding(struct xa_ctx *ctx, enum xprob_code code, unsigned has,
			const char *field, uint64_t off, uint64_t expected,
			uint64_t observed, const struct xa_loc *loc)
{
	struct xprob p = {
		.code = code, .has = has, .field = field, .off = off,
		.expected = expected, .observed = observed,
	};

	xa_findings_add(&ctx->findings, &p, loc);
}

/*
 * A v5 filesystem with rmap/reflink/nrext64 (the feature words mkfs writes
 * for -m rmapbt=1,reflink=1 -i nrext64=1), two AGs and three findings.
 */
static void ctx_build(struct xa_ctx *ctx, struct xa_ag ags[2], const char *image_path)
{
	static const uint8_t uuid[16] = {
		0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	struct xa_loc agf_loc = {
		.has = XPROB_HAS_AG | XPROB_HAS_AGBNO | XPROB_HAS_BYTE,
		.agno = 1, .agbno = 0, .byte = 16384ull * 4096 + 512, .what = "agf",
	};
	struct xa_loc sb_loc = { .has = XPROB_HAS_BYTE, .byte = 0, .what = "sb" };

	memset(ctx, 0, sizeof(*ctx));
	memset(ags, 0, 2 * sizeof(ags[0]));
	xa_findings_init(&ctx->findings);
	ctx->image_path = image_path;
	ctx->image_size = 32768ull * 4096;
	ctx->have_sha256 = true;
	for (unsigned i = 0; i < 32; i++)
		ctx->sha256[i] = (uint8_t)(0xA0 + i);

	ctx->sb.magicnum = 0x58465342u;
	ctx->sb.versionnum = 0xB4A5;
	ctx->sb.features2 = 0x18A;
	ctx->sb.bad_features2 = 0x18A;
	ctx->sb.features_ro_compat = 0xF;
	ctx->sb.features_incompat = 0x2B;
	memcpy(ctx->sb.uuid, uuid, sizeof(uuid));
	memcpy(ctx->sb.fname, "evidence", 8);
	ctx->sb_primary_ok = true;
	ctx->geom.blocksize = 4096;
	ctx->geom.sectsize = 512;
	ctx->geom.inodesize = 512;
	ctx->geom.agcount = 2;
	ctx->geom.agblocks = 16384;
	ctx->geom.dblocks = 32768;
	ctx->geom.logstart = 16390;
	ctx->geom.logblocks = 1368;
	ctx->geom.dirblksize = 4096;
	ctx->geom.v5 = true;
	ctx->geom_source = XA_GEOM_PRIMARY;
	ctx->sb_votes_for = 2;
	ctx->sb_votes_total = 2;
	ctx->log_checked = true;
	ctx->log_dirty = false;

	for (uint32_t i = 0; i < 2; i++) {
		struct xa_ag *ag = &ags[i];

		ag->agno = i;
		ag->length = 16384;
		ag->sb_ok = ag->agi_ok = ag->agfl_ok = true;
		ag->agf_ok = (i == 0);    /* AG 1 has the bad AGF */
		ag->agf.seqno = i;
		ag->agf.length = 16384;
		ag->agf.freeblks = 15000;
		ag->agf.longest = 14990;
		ag->agf.flcount = 4;
		ag->agf.btreeblks = 2;
		ag->agi.count = 64;
		ag->agi.freecount = 61;
		ag->free_blocks = 15000;
		ag->longest_free = 14990;
		ag->inodes = 64;
		ag->free_inodes = 61;
		ag->inodes_checked = 64;
		ag->inodes_in_use = 3;
		ag->unlinked_heads = i;
		for (unsigned t = 0; t < XA_BT_AG_COUNT; t++) {
			ag->bt[t].present = true;
			ag->bt[t].walked = !(i == 1 && t == XA_BT_RMAP);
			ag->bt[t].root = 1 + t;
			ag->bt[t].levels = 1;
			ag->bt[t].blocks = 1;
			ag->bt[t].records = 10 + t;
		}
	}
	ctx->ags = ags;
	ctx->nags = 2;

	add_finding(ctx, XP_imageDirtyLog, 0, NULL, 0, 0, 0, NULL);
	add_finding(ctx, XP_sbBadMagic, XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
		    "magicnum", 0, 0x58465342u, 0x58465343u, &sb_loc);
	add_finding(ctx, XP_agfBadCrc, XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
		    "crc", 216, 0x1234abcdu, 0xdeadbeefu, &agf_loc);
}

/* ------------------------------------------------------------ xml helpers */

/* Parse path, failing the test on any parse error. */
static xmlDocPtr parse(const char *path)
{
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
	assert_non_null(doc);
	return doc;
}

/* Value of an XPath 1.0 string() expression; the caller frees. */
static char *xp_str(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr xc = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o;
	char *s;

	assert_non_null(xc);
	o = xmlXPathEvalExpression((const xmlChar *)expr, xc);
	assert_non_null(o);
	assert_int_equal(o->type, XPATH_STRING);
	s = strdup(o->stringval ? (const char *)o->stringval : "");
	assert_non_null(s);
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(xc);
	return s;
}

static double xp_num(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr xc = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o;
	double v;

	assert_non_null(xc);
	o = xmlXPathEvalExpression((const xmlChar *)expr, xc);
	assert_non_null(o);
	assert_int_equal(o->type, XPATH_NUMBER);
	v = o->floatval;
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(xc);
	return v;
}

static void assert_xp(xmlDocPtr doc, const char *expr, const char *want)
{
	char *got = xp_str(doc, expr);

	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", expr, got, want);
	free(got);
}

static void assert_valid(const char *path)
{
	char err[512];
	int rc = xa_report_xml_validate(path, xsd_path, err, sizeof(err));

	if (rc)
		fail_msg("%s does not validate: %s", path, err);
}

static void write_report(const struct xa_ctx *ctx, const char *path)
{
	char err[512];
	int rc = xa_report_xml_write(ctx, path, err, sizeof(err));

	if (rc)
		fail_msg("xa_report_xml_write(%s) = %d: %s", path, rc, err);
}

/* Replace the first occurrence of from with to in the file at path. */
static void edit_file(const char *path, const char *from, const char *to)
{
	char *text = read_file(path, NULL), *at = strstr(text, from);
	FILE *f;

	assert_non_null(at);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	assert_int_equal(fclose(f), 0);
	free(text);
}

/* ------------------------------------------------------------ tests */

static void test_report_content(void **state)
{
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char img[512], out[512], msg[512];
	xmlDocPtr doc;

	(void)state;
	path_in_tmp(img, sizeof(img), "content.img");
	path_in_tmp(out, sizeof(out), "content.xml");
	write_file(img, "not really an image");
	ctx_build(&ctx, ags, img);
	write_report(&ctx, out);
	assert_valid(out);

	doc = parse(out);
	assert_xp(doc, "string(/xfsrecon-report/@version)", "1");
	assert_xp(doc, "string(/xfsrecon-report/tool/@name)", "xfsrecon");
	assert_xp(doc, "string(/xfsrecon-report/input/@path)", img);
	assert_xp(doc, "string(/xfsrecon-report/input/@size)", "134217728");
	assert_xp(doc, "string(/xfsrecon-report/input/@sha256)",
		  "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf");
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/input/@kind)"), 0);

	/* Geometry: the values and the vote behind them. */
	assert_xp(doc, "string(/xfsrecon-report/geometry/@source)", "primary");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@votesFor)", "2");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@version)", "5");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@blocksize)", "4096");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@agcount)", "2");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@dblocks)", "32768");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@logstart)", "16390");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@uuid)",
		  "12345678-9abc-def0-0123-456789abcdef");
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/geometry/@metaUuid)"), 0);
	assert_xp(doc, "string(/xfsrecon-report/geometry/@label)", "evidence");
	assert_xp(doc, "string(/xfsrecon-report/geometry/features/@versionnum)", "0xb4a5");
	assert_xp(doc, "string(/xfsrecon-report/geometry/features/@roCompat)", "0xf");
	assert_xp(doc, "string(/xfsrecon-report/geometry/features/@incompat)", "0x2b");
	/* ro_compat 0xF and incompat 0x2B (ftype sparse bigtime nrext64). */
	{
		static const char *const on[] = {
			"finobt", "rmapbt", "reflink", "inobtcnt", "ftype", "sparse",
			"bigtime", "nrext64", "crc", "lazysbcount", "attr2", "projid32",
		};
		static const char *const off[] = { "metauuid", "needsrepair", "quota", "exchrange" };
		char expr[160];

		for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
			snprintf(expr, sizeof(expr),
				 "count(/xfsrecon-report/geometry/features/feature[@name='%s'])", on[i]);
			if ((int)xp_num(doc, expr) != 1)
				fail_msg("feature %s not listed exactly once", on[i]);
		}
		for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
			snprintf(expr, sizeof(expr),
				 "count(/xfsrecon-report/geometry/features/feature[@name='%s'])", off[i]);
			if ((int)xp_num(doc, expr) != 0)
				fail_msg("feature %s listed but not set", off[i]);
		}
	}
	assert_xp(doc, "string(/xfsrecon-report/log/@checked)", "true");
	assert_xp(doc, "string(/xfsrecon-report/log/@dirty)", "false");

	/* AGs: walk totals, header counters where the header decoded, btrees. */
	assert_xp(doc, "string(/xfsrecon-report/ags/@count)", "2");
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/@number)", "1");
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/@agfOk)", "false");
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/@unlinkedHeads)", "1");
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[1]/agf/@flcount)", "4");
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/ags/ag[2]/agf)"), 0);
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/agi/@freecount)", "61");
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/ags/ag[1]/btree)"), 6);
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/btree[@name='rmapbt']/@walked)", "false");
	assert_xp(doc, "string(/xfsrecon-report/ags/ag[2]/btree[@name='refcountbt']/@records)", "15");

	/* Findings: counts, and every attribute of the AGF CRC finding. */
	assert_xp(doc, "string(/xfsrecon-report/findings/@count)", "3");
	assert_xp(doc, "string(/xfsrecon-report/findings/@errors)", "2");
	assert_xp(doc, "string(/xfsrecon-report/findings/@infos)", "1");
	assert_xp(doc, "string(/xfsrecon-report/findings/@dropped)", "0");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@code)", "0x0302");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@severity)", "error");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@fix)", "RECOMPUTE_CRC");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@structure)", "agf");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@ag)", "1");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@agbno)", "0");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@byte)", "67109376");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@offset)", "216");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@field)", "crc");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@expected)", "305441741");
	assert_xp(doc, "string(//finding[@id='agfBadCrc']/@observed)", "3735928559");
	xa_finding_render(&ctx.findings.items[2], msg, sizeof(msg));
	assert_xp(doc, "string(//finding[@id='agfBadCrc'])", msg);
	assert_non_null(strstr(msg, "0xdeadbeef"));
	/* Attributes appear only with their XPROB_HAS_* bit. */
	assert_int_equal((int)xp_num(doc, "count(//finding[@id='sbBadMagic']/@ag)"), 0);
	assert_int_equal((int)xp_num(doc, "count(//finding[@id='sbBadMagic']/@ino)"), 0);
	assert_xp(doc, "string(//finding[@id='sbBadMagic']/@byte)", "0");
	assert_int_equal((int)xp_num(doc, "count(//finding[@id='imageDirtyLog']/@*)"), 4);
	assert_xp(doc, "string(//finding[@id='imageDirtyLog']/@severity)", "info");
	assert_xp(doc, "string(/xfsrecon-report/summary/@verdict)", "problems");
	xmlFreeDoc(doc);
	xa_findings_release(&ctx.findings);
}

static void test_deterministic(void **state)
{
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char a[512], b[512];
	char *ta, *tb;
	size_t la, lb;

	(void)state;
	path_in_tmp(a, sizeof(a), "det-a.xml");
	path_in_tmp(b, sizeof(b), "det-b.xml");
	ctx_build(&ctx, ags, "image-path-that-does-not-exist");
	write_report(&ctx, a);
	write_report(&ctx, b);
	ta = read_file(a, &la);
	tb = read_file(b, &lb);
	assert_true(la > 1000);
	assert_int_equal(la, lb);
	assert_memory_equal(ta, tb, la);
	/* Indented, UTF-8, one element per line. */
	assert_int_equal(strncmp(ta, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39), 0);
	assert_non_null(strstr(ta, "\n  <tool "));
	free(ta);
	free(tb);

	/* Writing over an existing, longer report leaves no tail of it behind. */
	write_file(b, "<!-- a much longer old report ...................................... -->"
		      "<!-- ......................................................... -->\n");
	ctx.nags = 0;
	write_report(&ctx, b);
	assert_valid(b);
	xa_findings_release(&ctx.findings);
}

static void test_hostile_label(void **state)
{
	/* 12 bytes with no NUL: a control byte, a lone 0xFF, '<', a backslash,
	 * a valid é, and a truncated 3-byte sequence at the very end. */
	static const uint8_t label[12] = {
		'a', 0x01, 0xFF, '<', 'b', '\\', 0xC3, 0xA9, '&', '"', 0xE2, 0x82,
	};
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char out[512];
	char *text;
	xmlDocPtr doc;

	(void)state;
	path_in_tmp(out, sizeof(out), "hostile.xml");
	ctx_build(&ctx, ags, "/nonexistent/\xff\x02path");
	memcpy(ctx.sb.fname, label, sizeof(label));
	write_report(&ctx, out);
	assert_valid(out);

	/* No raw control or invalid byte reached the file. */
	text = read_file(out, NULL);
	assert_null(strchr(text, '\x01'));
	assert_null(strchr(text, '\x02'));
	assert_null(strchr(text, '\xff'));
	free(text);

	doc = parse(out);
	assert_xp(doc, "string(/xfsrecon-report/geometry/@label)",
		  "a\\x01\\xFF<b\\\\\xC3\xA9&\"\\xE2\\x82");
	assert_xp(doc, "string(/xfsrecon-report/input/@path)", "/nonexistent/\\xFF\\x02path");
	xmlFreeDoc(doc);
	xa_findings_release(&ctx.findings);
}

static void assert_escape(const char *in, size_t len, const char *want)
{
	char *got = xa_escape_text(in, len);

	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("escape: got '%s', want '%s'", got, want);
	free(got);
}

static void test_escape(void **state)
{
	(void)state;
	assert_escape("", 0, "");
	assert_escape("plain text", 10, "plain text");
	assert_escape("a\0b", 3, "a\\x00b");                  /* NUL inside the range */
	assert_escape("\x7f\t\n", 3, "\\x7F\\x09\\x0A");
	assert_escape("\xC0\xBC", 2, "\\xC0\\xBC");          /* overlong '<' */
	assert_escape("\xE0\x80\xBC", 3, "\\xE0\\x80\\xBC"); /* overlong, 3 bytes */
	assert_escape("\xED\xA0\x80", 3, "\\xED\\xA0\\x80"); /* surrogate U+D800 */
	assert_escape("\xC2\x85", 2, "\\xC2\\x85");          /* C1 control NEL */
	assert_escape("\xEF\xBF\xBE", 3, "\\xEF\\xBF\\xBE"); /* U+FFFE */
	assert_escape("\xF4\x90\x80\x80", 4, "\\xF4\\x90\\x80\\x80"); /* > U+10FFFF */
	assert_escape("\xC2\xA0", 2, "\xC2\xA0");            /* U+00A0 is kept */
	assert_escape("\xF0\x9F\x92\xBE", 4, "\xF0\x9F\x92\xBE"); /* U+1F4BE kept */
	assert_escape("\xE2\x82\xAC\xE2\x82", 5, "\xE2\x82\xAC\\xE2\\x82");
	assert_escape("\\x41", 4, "\\\\x41");                /* unambiguous */
	assert_escape("a/b", 3, "a/b");                      /* paths keep "/" */
}

/* A name escapes its "/" too: it cannot pose as two path components. */
static void test_name_escape(void **state)
{
	static const struct { const char *in; size_t len; const char *want; } t[] = {
		{ "a/b", 3, "a\\x2Fb" },
		{ "/", 1, "\\x2F" },
		{ "a\\x2Fb", 6, "a\\\\x2Fb" },   /* the escape itself is escaped */
		{ "\x01/\xC3\xA9", 4, "\\x01\\x2F\xC3\xA9" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *got = xa_escape_name(t[i].in, t[i].len);

		assert_non_null(got);
		if (strcmp(got, t[i].want))
			fail_msg("name escape: got '%s', want '%s'", got, t[i].want);
		free(got);
	}
}

static void test_refuse_overwrite_input(void **state)
{
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char img[512], slink[512], hard[512], err[512];
	char *text;

	(void)state;
	path_in_tmp(img, sizeof(img), "evidence.img");
	path_in_tmp(slink, sizeof(slink), "evidence-symlink.xml");
	path_in_tmp(hard, sizeof(hard), "evidence-hardlink.xml");
	write_file(img, "EVIDENCE BYTES");
	unlink(slink);
	unlink(hard);
	assert_int_equal(symlink(img, slink), 0);
	assert_int_equal(link(img, hard), 0);
	ctx_build(&ctx, ags, img);

	/* The image itself, a symlink to it, and a hard link to it. */
	err[0] = '\0';
	assert_int_equal(xa_report_xml_write(&ctx, img, err, sizeof(err)), XERR_USAGE);
	assert_true(strlen(err) > 0);
	assert_int_equal(xa_report_xml_write(&ctx, slink, err, sizeof(err)), XERR_USAGE);
	assert_int_equal(xa_report_xml_write(&ctx, hard, err, sizeof(err)), XERR_USAGE);
	text = read_file(img, NULL);
	assert_string_equal(text, "EVIDENCE BYTES");
	free(text);

	/* A missing directory is an I/O error, not a crash or a success. */
	assert_int_equal(xa_report_xml_write(&ctx, "/nonexistent-dir/r.xml", err, sizeof(err)),
			 XERR_IO);
	assert_int_equal(xa_report_xml_write(&ctx, "", err, sizeof(err)), XERR_USAGE);
	xa_findings_release(&ctx.findings);
}

static void test_geometry_none_clean(void **state)
{
	struct xa_ctx ctx;
	char out[512];
	xmlDocPtr doc;

	(void)state;
	path_in_tmp(out, sizeof(out), "none.xml");
	memset(&ctx, 0, sizeof(ctx));
	xa_findings_init(&ctx.findings);
	ctx.image_path = "zero.img";
	ctx.sb_votes_total = 4;
	write_report(&ctx, out);
	assert_valid(out);
	doc = parse(out);
	assert_xp(doc, "string(/xfsrecon-report/geometry/@source)", "none");
	assert_xp(doc, "string(/xfsrecon-report/geometry/@votesTotal)", "4");
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/geometry/@*)"), 3);
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/geometry/*)"), 0);
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/input/@sha256)"), 0);
	assert_int_equal((int)xp_num(doc, "count(/xfsrecon-report/log/@dirty)"), 0);
	assert_xp(doc, "string(/xfsrecon-report/ags/@count)", "0");
	assert_xp(doc, "string(/xfsrecon-report/findings/@count)", "0");
	assert_xp(doc, "string(/xfsrecon-report/summary/@verdict)", "clean");
	xmlFreeDoc(doc);

	/* An info alone (dirty log) keeps the verdict clean; a warning does not. */
	add_finding(&ctx, XP_imageDirtyLog, 0, NULL, 0, 0, 0, NULL);
	write_report(&ctx, out);
	doc = parse(out);
	assert_xp(doc, "string(/xfsrecon-report/summary/@verdict)", "clean");
	xmlFreeDoc(doc);
	add_finding(&ctx, XP_sbNeedsRepair, 0, NULL, 0, 0, 0, NULL);
	ctx.findings.dropped = 7;
	write_report(&ctx, out);
	assert_valid(out);
	doc = parse(out);
	assert_xp(doc, "string(/xfsrecon-report/summary/@verdict)", "problems");
	assert_xp(doc, "string(/xfsrecon-report/findings/@dropped)", "7");
	xmlFreeDoc(doc);
	xa_findings_release(&ctx.findings);
}

/* The schema rejects broken reports, so validation above is not vacuous. */
static void test_schema_rejects(void **state)
{
	static const char *const breakages[][2] = {
		{ "code=\"0x0302\"", "code=\"302\"" },
		{ "severity=\"error\"", "severity=\"fatal\"" },
		{ "<summary verdict=\"problems\"/>", "" },
		{ "agcount=\"2\"", "agcount=\"-2\"" },
		{ "<btree name=\"rmapbt\"", "<btree name=\"foobt\"" },
		{ "label=\"evidence\"", "label=\"ev&#9;idence\"" },
		{ "<xfsrecon-report version=\"1\">", "<xfsrecon-report version=\"2\">" },
	};
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char out[512], err[512];

	(void)state;
	path_in_tmp(out, sizeof(out), "broken.xml");
	ctx_build(&ctx, ags, "x.img");
	for (size_t i = 0; i < sizeof(breakages) / sizeof(breakages[0]); i++) {
		write_report(&ctx, out);
		assert_valid(out);
		edit_file(out, breakages[i][0], breakages[i][1]);
		if (xa_report_xml_validate(out, xsd_path, err, sizeof(err)) != XERR_FORMAT)
			fail_msg("schema accepted a report with %s", breakages[i][1]);
		assert_true(strlen(err) > 0);
	}
	assert_int_equal(xa_report_xml_validate(out, "/nonexistent.xsd", err, sizeof(err)),
			 XERR_IO);
	xa_findings_release(&ctx.findings);
}

/* Run xmllint --noout --schema XSD FILE; returns its exit status. */
static int run_xmllint(const char *xmllint, const char *file)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0) {
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		execl(xmllint, xmllint, "--noout", "--schema", xsd_path, file, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_xmllint(void **state)
{
	const char *xmllint = getenv("XMLLINT");
	struct xa_ctx ctx;
	struct xa_ag ags[2];
	char out[512];

	(void)state;
	if (!xmllint || !xmllint[0] || access(xmllint, X_OK) != 0)
		skip();
	path_in_tmp(out, sizeof(out), "xmllint.xml");
	ctx_build(&ctx, ags, "x.img");
	memcpy(ctx.sb.fname, "\x01\xff<\\", 4);
	write_report(&ctx, out);
	assert_int_equal(run_xmllint(xmllint, out), 0);
	edit_file(out, "verdict=\"problems\"", "verdict=\"maybe\"");
	assert_int_not_equal(run_xmllint(xmllint, out), 0);
	xa_findings_release(&ctx.findings);
}

/* ------------------------------------------------------------ main */

static int rm_tree(void)
{
	char cmd[512];

	if (!tmpdir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	const char *base = getenv("TMPDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_content),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_hostile_label),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_name_escape),
		cmocka_unit_test(test_refuse_overwrite_input),
		cmocka_unit_test(test_geometry_none_clean),
		cmocka_unit_test(test_schema_rejects),
		cmocka_unit_test(test_xmllint),
	};
	int rc;

	snprintf(xsd_path, sizeof(xsd_path), "%s/doc/report.xsd",
		 top && top[0] ? top : XA_TOP_SRCDIR);
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_report_xml.XXXXXX",
		 base && base[0] ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	xmlInitParser();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	if (rc == 0)
		rm_tree();
	return rc;
}
