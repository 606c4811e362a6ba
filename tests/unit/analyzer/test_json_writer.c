/*
 * test_json_writer.c - the streaming JSON writer (analyzer/report/
 * json_writer.c): every byte escaped so that the output is ASCII, control
 * bytes as \u00XX, bytes over 0x7F mapped one to one onto code points
 * U+0080..U+00FF, commas and nesting right, and the sticky failure for
 * unbalanced documents, too deep nesting and failed writes.
 *
 * What the writer produced is read back by a small strict JSON parser
 * written here (RFC 8259 grammar, no extensions): it checks the syntax,
 * decodes every string to bytes (a code point above U+00FF is an error,
 * since the writer never makes one) and records the strings in document
 * order with their nesting depth, so a test can compare with what went in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/errors.h"
#include "analyzer/report/json_writer.h"

/* ------------------------------------------------------ the checking parser */

#define MAXSTR 64u

struct parsed {
	unsigned nstr;
	uint8_t  str[MAXSTR][300];   /* decoded bytes of each string (keys included) */
	size_t   len[MAXSTR];
	unsigned depth[MAXSTR];      /* containers around the string */
	unsigned nnum;               /* numbers, true, false, null */
	unsigned max_depth;
};

struct cursor {
	const char *p, *end;
	unsigned depth;
	struct parsed *out;
};

static void ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static bool parse_value(struct cursor *c);

static bool parse_string(struct cursor *c)
{
	struct parsed *o = c->out;
	uint8_t *dst = o->nstr < MAXSTR ? o->str[o->nstr] : NULL;
	size_t n = 0;

	if (c->p >= c->end || *c->p != '"')
		return false;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		unsigned ch = (unsigned char)*c->p++;

		/* Raw control bytes and anything not ASCII are not allowed unescaped. */
		if (ch < 0x20 || ch >= 0x80)
			return false;
		if (ch == '\\') {
			if (c->p >= c->end)
				return false;
			switch (*c->p++) {
			case '"': ch = '"'; break;
			case '\\': ch = '\\'; break;
			case '/': ch = '/'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u': {
				unsigned v = 0;

				for (int i = 0; i < 4; i++) {
					int h = c->p < c->end ? hexval(*c->p++) : -1;

					if (h < 0)
						return false;
					v = v * 16 + (unsigned)h;
				}
				if (v > 0xFF)
					return false;
				ch = v;
				break;
			}
			default:
				return false;
			}
		}
		if (dst && n < sizeof(o->str[0]))
			dst[n] = (uint8_t)ch;
		n++;
	}
	if (c->p >= c->end)
		return false;
	c->p++;
	if (dst) {
		o->len[o->nstr] = n;
		o->depth[o->nstr] = c->depth;
	}
	o->nstr++;
	return true;
}

static bool parse_number(struct cursor *c)
{
	const char *s = c->p;

	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p >= c->end || *c->p < '0' || *c->p > '9')
		return false;
	/* No leading zeros in JSON. */
	if (*c->p == '0' && c->p + 1 < c->end && c->p[1] >= '0' && c->p[1] <= '9')
		return false;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	c->out->nnum++;
	return c->p > s;
}

static bool literal(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
		return false;
	c->p += n;
	c->out->nnum++;
	return true;
}

static bool parse_container(struct cursor *c, bool object)
{
	char close = object ? '}' : ']';
	bool first = true;

	c->p++;
	if (++c->depth > c->out->max_depth)
		c->out->max_depth = c->depth;
	ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		c->depth--;
		return true;
	}
	for (;;) {
		ws(c);
		if (!first) {
			if (c->p >= c->end || *c->p != ',')
				return false;
			c->p++;
			ws(c);
		}
		first = false;
		if (object) {
			if (!parse_string(c))
				return false;
			ws(c);
			if (c->p >= c->end || *c->p != ':')
				return false;
			c->p++;
			ws(c);
		}
		if (!parse_value(c))
			return false;
		ws(c);
		if (c->p < c->end && *c->p == close) {
			c->p++;
			c->depth--;
			return true;
		}
	}
}

static bool parse_value(struct cursor *c)
{
	ws(c);
	if (c->p >= c->end)
		return false;
	switch (*c->p) {
	case '{': return parse_container(c, true);
	case '[': return parse_container(c, false);
	case '"': return parse_string(c);
	case 't': return literal(c, "true");
	case 'f': return literal(c, "false");
	case 'n': return literal(c, "null");
	default:  return parse_number(c);
	}
}

/* Parse a whole document: one value, then only white space. */
static bool parse_doc(const char *text, size_t len, struct parsed *out)
{
	struct cursor c = { text, text + len, 0, out };

	memset(out, 0, sizeof(*out));
	if (!parse_value(&c))
		return false;
	ws(&c);
	return c.p == c.end;
}

/* The parser itself: it must refuse what is not JSON, or the tests prove nothing. */
static void test_parser_refuses(void **state)
{
	static const char *const bad[] = {
		"{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "\"\x01\"", "\"\xc3\xa9\"", "\"\\u0100\"",
		"[01]", "{\"a\": 1", "[\"x\"] [\"y\"]", "\"\\x41\"", "{1: 2}",
	};
	struct parsed p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(parse_doc(bad[i], strlen(bad[i]), &p));
	assert_true(parse_doc("{\"a\": [1, -2, true, null, \"\\u00ff\"]}", 36, &p));
	assert_int_equal(p.nstr, 2);
	assert_int_equal(p.len[1], 1);
	assert_int_equal(p.str[1][0], 0xFF);
}

/* ------------------------------------------------------------ the writer */

struct out {
	char  *text;
	size_t len;
	FILE  *f;
	struct xa_json j;
};

static void out_open(struct out *o)
{
	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->text, &o->len);
	assert_non_null(o->f);
	xa_json_init(&o->j, o->f);
}

/* Finish the document; returns xa_json_finish's code, text in o->text. */
static int out_close(struct out *o)
{
	int rc = xa_json_finish(&o->j);

	assert_int_equal(fclose(o->f), 0);
	o->f = NULL;
	return rc;
}

static void out_free(struct out *o)
{
	free(o->text);
	o->text = NULL;
}

/* Every byte value goes in as a one-byte string and as part of a long one. */
static void test_every_byte(void **state)
{
	struct parsed *p = malloc(sizeof(*p));
	uint8_t all[256];
	struct out o;

	(void)state;
	assert_non_null(p);
	for (unsigned i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	out_open(&o);
	xa_json_array(&o.j, false);
	xa_json_bytes(&o.j, all, 256);
	xa_json_bytes(&o.j, all + 0x80, 128);   /* not UTF-8 at all */
	xa_json_bytes(&o.j, "\xc3\xa9", 2);     /* UTF-8 of e-acute: still two bytes */
	xa_json_end(&o.j);
	assert_int_equal(out_close(&o), 0);

	/* The output is plain ASCII, with no raw control byte but the line breaks. */
	for (size_t i = 0; i < o.len; i++) {
		unsigned char ch = (unsigned char)o.text[i];

		assert_true(ch < 0x80);
		assert_true(ch >= 0x20 || ch == '\n');
	}
	/* The bytes that need it are escaped as \u00XX, in lower-case hex. */
	assert_non_null(strstr(o.text, "\\u0000\\u0001"));
	assert_non_null(strstr(o.text, "\\u001f !\\\"#"));
	assert_non_null(strstr(o.text, "[\\\\]"));
	assert_non_null(strstr(o.text, "~\\u007f\\u0080"));
	assert_non_null(strstr(o.text, "\\u00ff\""));

	assert_true(parse_doc(o.text, o.len, p));
	assert_int_equal(p->nstr, 3);
	assert_int_equal(p->len[0], 256);
	assert_memory_equal(p->str[0], all, 256);
	assert_int_equal(p->len[1], 128);
	assert_memory_equal(p->str[1], all + 0x80, 128);
	assert_int_equal(p->len[2], 2);
	assert_memory_equal(p->str[2], "\xc3\xa9", 2);
	out_free(&o);
	free(p);
}

/* Keys are escaped like values; an embedded NUL needs xa_json_bytes. */
static void test_keys_and_nul(void **state)
{
	struct parsed p;
	struct out o;

	(void)state;
	out_open(&o);
	xa_json_object(&o.j, true);
	xa_json_kstr(&o.j, "a\"b\\c\n", "tab\there");
	xa_json_key(&o.j, "nul");
	xa_json_bytes(&o.j, "x\0y", 3);
	xa_json_ku64(&o.j, "max", UINT64_MAX);
	xa_json_key(&o.j, "min");
	xa_json_i64(&o.j, INT64_MIN);
	xa_json_kbool(&o.j, "t", true);
	xa_json_key(&o.j, "n");
	xa_json_null(&o.j);
	xa_json_end(&o.j);
	assert_int_equal(out_close(&o), 0);
	assert_string_equal(o.text, "{\"a\\\"b\\\\c\\u000a\": \"tab\\u0009here\", \"nul\": "
			    "\"x\\u0000y\", \"max\": 18446744073709551615, \"min\": "
			    "-9223372036854775808, \"t\": true, \"n\": null}\n");
	assert_true(parse_doc(o.text, o.len, &p));
	assert_int_equal(p.nstr, 8);
	assert_memory_equal(p.str[0], "a\"b\\c\n", 6);
	assert_memory_equal(p.str[3], "x\0y", 3);
	assert_int_equal(p.len[3], 3);
	assert_int_equal(p.nnum, 4);
	out_free(&o);
}

/* Containers in containers, inline and multi-line, empty ones, and the commas. */
static void test_nesting(void **state)
{
	struct parsed p;
	struct out o;

	(void)state;
	out_open(&o);
	xa_json_object(&o.j, false);
	xa_json_key(&o.j, "list");
	xa_json_array(&o.j, false);
	for (unsigned i = 0; i < 3; i++) {
		xa_json_object(&o.j, true);
		xa_json_ku64(&o.j, "i", i);
		xa_json_key(&o.j, "sub");
		xa_json_array(&o.j, false);  /* inside an inline object: stays inline */
		xa_json_str(&o.j, "deep");
		xa_json_array(&o.j, true);
		xa_json_end(&o.j);
		xa_json_end(&o.j);
		xa_json_end(&o.j);
	}
	xa_json_end(&o.j);
	xa_json_key(&o.j, "empty");
	xa_json_object(&o.j, false);
	xa_json_end(&o.j);
	xa_json_kstr(&o.j, "last", "z");
	xa_json_end(&o.j);
	assert_int_equal(out_close(&o), 0);
	assert_string_equal(o.text,
			    "{\n"
			    "  \"list\": [\n"
			    "    {\"i\": 0, \"sub\": [\"deep\", []]},\n"
			    "    {\"i\": 1, \"sub\": [\"deep\", []]},\n"
			    "    {\"i\": 2, \"sub\": [\"deep\", []]}\n"
			    "  ],\n"
			    "  \"empty\": {},\n"
			    "  \"last\": \"z\"\n"
			    "}\n");
	assert_true(parse_doc(o.text, o.len, &p));
	assert_int_equal(p.max_depth, 5);
	/* "deep" sits in the document object, the list, an item and its sub array */
	assert_int_equal(p.depth[3], 4);
	assert_memory_equal(p.str[3], "deep", 4);
	out_free(&o);
}

/* XA_JSON_MAX_DEPTH containers are fine; one more fails the document. */
static void test_depth_limit(void **state)
{
	struct parsed p;
	struct out o;

	(void)state;
	out_open(&o);
	for (unsigned i = 0; i < XA_JSON_MAX_DEPTH; i++)
		xa_json_array(&o.j, true);
	xa_json_u64(&o.j, 7);
	for (unsigned i = 0; i < XA_JSON_MAX_DEPTH; i++)
		xa_json_end(&o.j);
	assert_int_equal(out_close(&o), 0);
	assert_true(parse_doc(o.text, o.len, &p));
	assert_int_equal(p.max_depth, XA_JSON_MAX_DEPTH);
	out_free(&o);

	out_open(&o);
	for (unsigned i = 0; i <= XA_JSON_MAX_DEPTH; i++)
		xa_json_array(&o.j, true);
	assert_true(o.j.failed);
	assert_int_equal(out_close(&o), XERR_IO);
	out_free(&o);
}

/* Unbalanced documents are refused at the end, whatever was written. */
static void test_unbalanced(void **state)
{
	struct out o;

	(void)state;
	out_open(&o);                       /* a container left open */
	xa_json_object(&o.j, false);
	assert_int_equal(out_close(&o), XERR_IO);
	out_free(&o);

	out_open(&o);                       /* a key without its value */
	xa_json_object(&o.j, false);
	xa_json_key(&o.j, "k");
	xa_json_end(&o.j);
	assert_int_equal(out_close(&o), XERR_IO);
	out_free(&o);

	out_open(&o);                       /* closing what was never opened */
	xa_json_end(&o.j);
	assert_int_equal(out_close(&o), XERR_IO);
	out_free(&o);
}

/* A stream that cannot take the bytes makes the writer fail, not crash. */
static void test_write_failure(void **state)
{
	char small[8];
	struct xa_json j;
	FILE *f = fmemopen(small, sizeof(small), "w");

	(void)state;
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	xa_json_init(&j, f);
	xa_json_array(&j, false);
	for (unsigned i = 0; i < 20; i++)
		xa_json_str(&j, "a string longer than the buffer");
	xa_json_end(&j);
	assert_int_equal(xa_json_finish(&j), XERR_IO);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser_refuses),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_keys_and_nul),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_write_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
