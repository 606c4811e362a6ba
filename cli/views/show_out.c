/*
 * show_out.c - the text and JSON renderings of `xfsrecon show`, and the
 * matching of a verifier's problems to the fields and items they name (see
 * show_out.h for both formats).
 */
#include "cli/views/show_out.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"

/* Bytes of one rendered problem message (templates are short). */
#define SO_MSG_MAX 512u

void xc_so_init(struct xc_show_out *o, FILE *out, bool json, bool annotate,
		const char *image, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->json = json;
	o->annotate = annotate;
	/* xfs_db prints every header field, v5 ones as zero on v4. */
	o->po.v5 = true;
	o->po.annotate = annotate;
	xa_findings_init(&o->probs);
	xa_findings_init(&o->iprobs);
	xa_loc_sink_init(&o->sink, &o->probs);
	xa_loc_sink_init(&o->isink, &o->iprobs);
	if (!json)
		return;
	xa_json_init(&o->j, out);
	xa_json_object(&o->j, false);
	xa_json_kstr(&o->j, "image", image ? image : "");
	xa_json_key(&o->j, "what");
	xa_json_array(&o->j, true);
	for (int i = 0; i < argc; i++)
		xa_json_str(&o->j, argv[i]);
	xa_json_end(&o->j);
	xa_json_key(&o->j, "structures");
	xa_json_array(&o->j, false);
}

int xc_so_finish(struct xc_show_out *o)
{
	if (o->in_struct)
		xc_so_end(o);
	if (!o->json)
		return fflush(o->out) == EOF || ferror(o->out) ? XERR_IO : 0;
	xa_json_end(&o->j);  /* structures */
	xa_json_ku64(&o->j, "count", o->nstruct);
	xa_json_end(&o->j);  /* document */
	return xa_json_finish(&o->j);
}

void xc_so_release(struct xc_show_out *o)
{
	xa_findings_release(&o->probs);
	xa_findings_release(&o->iprobs);
}

/* Drop the stored problems but keep the arrays for the next structure. */
static void probs_clear(struct xa_findings *f)
{
	f->count = 0;
	f->dropped = 0;
	memset(f->by_severity, 0, sizeof(f->by_severity));
}

void xc_so_begin(struct xc_show_out *o, const char *type, const char *where,
		 uint64_t byte, uint64_t size)
{
	if (o->in_struct)
		xc_so_end(o);
	o->in_struct = true;
	o->verified = false;
	probs_clear(&o->probs);
	memset(o->shown, 0, sizeof(o->shown));
	o->nstruct++;
	if (!o->json) {
		if (size)
			fprintf(o->out, "# %s: %s, byte %" PRIu64 ", %" PRIu64 " bytes\n", type,
				where, byte, size);
		else
			fprintf(o->out, "# %s: %s\n", type, where);
		return;
	}
	xa_json_object(&o->j, false);
	xa_json_kstr(&o->j, "type", type);
	xa_json_kstr(&o->j, "where", where);
	xa_json_ku64(&o->j, "byte", byte);
	xa_json_ku64(&o->j, "size", size);
	xa_json_key(&o->j, "content");
	xa_json_array(&o->j, false);
}

const struct xprob_sink *xc_so_sink(struct xc_show_out *o)
{
	o->verified = true;
	return &o->sink.sink;
}

/* ------------------------------------------------------------ verdicts */

static void problem_json(struct xc_show_out *o, const struct xa_finding *fd)
{
	char msg[SO_MSG_MAX];

	xa_finding_render(fd, msg, sizeof(msg));
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "id", xprob_id(fd->p.code) ? xprob_id(fd->p.code) : "?");
	xa_json_ku64(&o->j, "code", (uint64_t)fd->p.code);
	xa_json_kstr(&o->j, "severity", xprob_severity_name(xprob_severity_of(fd->p.code)));
	if (fd->p.field) {
		xa_json_key(&o->j, "field");
		xa_json_bytes(&o->j, fd->p.field, strlen(fd->p.field));
	}
	xa_json_key(&o->j, "message");
	xa_json_bytes(&o->j, msg, strlen(msg));
	xa_json_end(&o->j);
}

static void problem_text(struct xc_show_out *o, const char *what, const struct xa_finding *fd)
{
	char msg[SO_MSG_MAX];

	xa_finding_render(fd, msg, sizeof(msg));
	fprintf(o->out, "#   ^ %s: check failed: %s (0x%04x): %s\n", what,
		xprob_id(fd->p.code) ? xprob_id(fd->p.code) : "?", (unsigned)fd->p.code, msg);
}

/* Does stored problem i belong to the field named name? */
static bool names_field(const struct xa_finding *fd, const char *name)
{
	size_t n, m;

	if (!fd->p.field)
		return false;
	if (!strcmp(fd->p.field, name))
		return true;
	/* "core.atime" judges both "core.atime.sec" and "core.atime.nsec" */
	n = strlen(fd->p.field);
	m = strlen(name);
	if (m > n && !strncmp(name, fd->p.field, n) && name[n] == '.')
		return true;
	/* The DA verifiers name "crc", "count": the fields are "hdr.info.crc", "nhdr.count". */
	return m > n && name[m - n - 1] == '.' && !strcmp(name + m - n, fd->p.field);
}

/*
 * Mark and return how many not yet shown structure problems match; when
 * list is true, write them (text lines or JSON objects) too.
 */
static unsigned match_field(struct xc_show_out *o, const char *name, bool list)
{
	unsigned hits = 0;

	for (size_t i = 0; i < o->probs.count && i < XC_SO_MAX_PROBLEMS; i++) {
		const struct xa_finding *fd = &o->probs.items[i];

		if (o->shown[i] || !names_field(fd, name))
			continue;
		hits++;
		if (!list)
			continue;
		o->shown[i] = true;
		if (o->json)
			problem_json(o, fd);
		else
			problem_text(o, name, fd);
	}
	return hits;
}

static const char *verdict_word(const struct xc_show_out *o, unsigned hits)
{
	return hits ? "failed" : o->verified ? "ok" : "unverified";
}

/* --------------------------------------------------------------- fields */

struct field_arg {
	struct xc_show_out      *o;
	const struct xfmt_field *f;
	const uint8_t           *buf;
	size_t                   len;
};

static void raw_hex(const uint8_t *buf, size_t len, const struct xfmt_field *f, char *out,
		    size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	if (f->off > len || len - f->off < f->size)
		return;
	for (unsigned i = 0; i < f->size && n + 3 < cap; i++, n += 2)
		snprintf(out + n, cap - n, "%02x", buf[f->off + i]);
}

/* A JSON string of prefix and name joined. */
static void put_prefixed(struct xc_show_out *o, const char *prefix, const char *name)
{
	char full[256];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	xa_json_str(&o->j, full);
}

static void field_pair(void *arg, const char *name, const char *value)
{
	struct field_arg *fa = arg;
	struct xc_show_out *o = fa->o;
	const struct xfmt_field *f = fa->f;
	char raw[2 * 256 + 8];
	const char *pfx = o->field_prefix ? o->field_prefix : "";
	unsigned hits = match_field(o, name, false);

	raw_hex(fa->buf, fa->len, f, raw, sizeof(raw));
	if (!o->json) {
		fprintf(o->out, "%s%s = %s", pfx, name, value);
		if (o->annotate)
			fprintf(o->out, "    # +0x%x, %u byte%s, raw %s: %s [%s]", f->off, f->size,
				f->size == 1 ? "" : "s", raw, f->doc ? f->doc : "",
				verdict_word(o, hits));
		fputc('\n', o->out);
		match_field(o, name, true);
		return;
	}
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "kind", "field");
	xa_json_key(&o->j, "name");
	put_prefixed(o, pfx, name);
	xa_json_ku64(&o->j, "offset", f->off);
	xa_json_ku64(&o->j, "size", f->size);
	xa_json_kstr(&o->j, "raw", raw);
	xa_json_key(&o->j, "value");
	xa_json_bytes(&o->j, value, strlen(value));
	if (f->doc)
		xa_json_kstr(&o->j, "doc", f->doc);
	xa_json_kstr(&o->j, "verdict", verdict_word(o, hits));
	if (hits) {
		xa_json_key(&o->j, "problems");
		xa_json_array(&o->j, true);
		match_field(o, name, true);
		xa_json_end(&o->j);
	}
	xa_json_end(&o->j);
}

void xc_so_field(struct xc_show_out *o, const struct xfmt_field *f, const uint8_t *buf,
		 size_t len)
{
	struct field_arg fa = { o, f, buf, len };

	if (o->in_item)
		xc_so_item_end(o);
	xc_field_render(f, buf, len, &o->po, field_pair, &fa);
}

void xc_so_fields(struct xc_show_out *o, const struct xfmt_field *table, const uint8_t *buf,
		  size_t len)
{
	xc_so_fields_except(o, table, buf, len, NULL);
}

void xc_so_fields_except(struct xc_show_out *o, const struct xfmt_field *table,
			 const uint8_t *buf, size_t len, const char *skip)
{
	for (; table->name; table++)
		if (!skip || strcmp(table->name, skip))
			xc_so_field(o, table, buf, len);
}

/* ---------------------------------------------------------------- items */

void xc_so_item_begin(struct xc_show_out *o, const char *array, unsigned index,
		      uint64_t off, uint64_t size, bool inline_)
{
	if (o->in_item)
		xc_so_item_end(o);
	o->in_item = true;
	o->item_inline = inline_;
	o->item_array = array;
	o->item_index = index;
	o->item_off = off;
	o->item_size = size;
	o->nkeys = 0;
	probs_clear(&o->iprobs);
	if (!o->json) {
		if (inline_)
			fprintf(o->out, "%s[%u] =", array, index);
		return;
	}
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "kind", "item");
	xa_json_kstr(&o->j, "array", array);
	xa_json_ku64(&o->j, "index", index);
	xa_json_ku64(&o->j, "offset", off);
	xa_json_ku64(&o->j, "size", size);
	xa_json_key(&o->j, "values");
	xa_json_object(&o->j, true);
}

const struct xprob_sink *xc_so_item_sink(struct xc_show_out *o)
{
	o->verified = true;
	return &o->isink.sink;
}

/* Remember key among the item's keys (for xc_so_items_by_key). */
static void item_key(struct xc_show_out *o, const char *key)
{
	if (key && o->nkeys < XC_SO_MAX_KEYS)
		o->keys[o->nkeys++] = key;
}

/* Text: " key value" on the item's line, or a line "array[i].key = value". */
static void item_text(struct xc_show_out *o, const char *key, const char *value)
{
	if (o->item_inline && key)
		fprintf(o->out, " %s %s", key, value);
	else if (o->item_inline)
		fprintf(o->out, " %s", value);
	else if (key)
		fprintf(o->out, "%s[%u].%s = %s\n", o->item_array, o->item_index, key, value);
	else
		fprintf(o->out, "%s[%u] = %s\n", o->item_array, o->item_index, value);
}

/* JSON: an item's single unnamed value is called "value". */
static const char *jkey(const char *key)
{
	return key ? key : "value";
}

void xc_so_item_u64(struct xc_show_out *o, const char *key, uint64_t v)
{
	char s[24];

	item_key(o, key);
	if (o->json) {
		xa_json_ku64(&o->j, jkey(key), v);
		return;
	}
	snprintf(s, sizeof(s), "%" PRIu64, v);
	item_text(o, key, s);
}

void xc_so_item_hex(struct xc_show_out *o, const char *key, uint64_t v)
{
	char s[24];

	item_key(o, key);
	if (o->json) {
		xa_json_ku64(&o->j, jkey(key), v);
		return;
	}
	snprintf(s, sizeof(s), "0x%" PRIx64, v);
	item_text(o, key, s);
}

void xc_so_item_i64(struct xc_show_out *o, const char *key, int64_t v)
{
	char s[24];

	item_key(o, key);
	if (o->json) {
		xa_json_key(&o->j, jkey(key));
		xa_json_i64(&o->j, v);
		return;
	}
	snprintf(s, sizeof(s), "%" PRId64, v);
	item_text(o, key, s);
}

void xc_so_item_name(struct xc_show_out *o, const char *key, const uint8_t *p, size_t n)
{
	char small[4 * 256 + 8];
	/* Names fit the stack; attribute values reach 64 KiB (4 bytes each escaped). */
	size_t cap = 4 * n + 8;
	char *s = cap <= sizeof(small) ? small : malloc(cap);

	item_key(o, key);
	if (o->json) {
		xa_json_key(&o->j, jkey(key));
		xa_json_bytes(&o->j, p, n);
		if (s != small)
			free(s);
		return;
	}
	if (!s) {
		/* Out of memory: the value is shown cut, not lost. */
		s = small;
		cap = sizeof(small);
	}
	xc_chars_format(p, n, s, cap);
	item_text(o, key, s);
	if (s != small)
		free(s);
}

void xc_so_item_word(struct xc_show_out *o, const char *key, const char *s)
{
	item_key(o, key);
	if (o->json) {
		xa_json_kstr(&o->j, jkey(key), s);
		return;
	}
	item_text(o, key, s);
}

/* Does structure problem fd belong to the current item? */
static bool names_item(const struct xc_show_out *o, const struct xa_finding *fd)
{
	if (fd->p.field && o->by_key && (fd->p.has & XPROB_HAS_OFF) &&
	    fd->p.off == o->item_index)
		for (unsigned k = 0; k < o->nkeys; k++)
			if (!strcmp(fd->p.field, o->keys[k]))
				return true;
	if (fd->p.field)
		return !strcmp(fd->p.field, o->item_array) && (fd->p.has & XPROB_HAS_OFF) &&
		       fd->p.off == o->item_index;
	return (fd->p.has & XPROB_HAS_OFF) && o->item_size && fd->p.off >= o->item_off &&
	       fd->p.off - o->item_off < o->item_size;
}

static unsigned item_problems(struct xc_show_out *o, bool list)
{
	char what[64];
	unsigned hits = 0;

	snprintf(what, sizeof(what), "%s[%u]", o->item_array, o->item_index);
	for (size_t i = 0; i < o->probs.count && i < XC_SO_MAX_PROBLEMS; i++) {
		const struct xa_finding *fd = &o->probs.items[i];

		if (o->shown[i] || !names_item(o, fd))
			continue;
		hits++;
		if (!list)
			continue;
		o->shown[i] = true;
		if (o->json)
			problem_json(o, fd);
		else
			problem_text(o, what, fd);
	}
	for (size_t i = 0; i < o->iprobs.count; i++) {
		hits++;
		if (!list)
			continue;
		if (o->json)
			problem_json(o, &o->iprobs.items[i]);
		else
			problem_text(o, what, &o->iprobs.items[i]);
	}
	return hits;
}

void xc_so_item_end(struct xc_show_out *o)
{
	unsigned hits;

	if (!o->in_item)
		return;
	o->in_item = false;
	hits = item_problems(o, false);
	if (!o->json) {
		if (o->item_inline) {
			if (o->annotate)
				fprintf(o->out, "    # +0x%" PRIx64 ", %" PRIu64 " bytes [%s]",
					o->item_off, o->item_size, verdict_word(o, hits));
			fputc('\n', o->out);
		}
		item_problems(o, true);
		return;
	}
	xa_json_end(&o->j);  /* values */
	xa_json_kstr(&o->j, "verdict", verdict_word(o, hits));
	if (hits) {
		xa_json_key(&o->j, "problems");
		xa_json_array(&o->j, true);
		item_problems(o, true);
		xa_json_end(&o->j);
	}
	xa_json_end(&o->j);
}

/* ---------------------------------------------------------------- notes */

void xc_so_note(struct xc_show_out *o, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	if (o->in_item)
		xc_so_item_end(o);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!o->json) {
		fprintf(o->out, "# %s\n", text);
		return;
	}
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "kind", "note");
	xa_json_key(&o->j, "text");
	xa_json_bytes(&o->j, text, strlen(text));
	xa_json_end(&o->j);
}

void xc_so_items_by_key(struct xc_show_out *o)
{
	o->by_key = true;
}

void xc_so_field_prefix(struct xc_show_out *o, const char *prefix)
{
	o->field_prefix = prefix;
}

/* ---------------------------------------------------------- byte runs */

/* Text: the bytes in xfs_db's string notation, written as they go (no bound). */
static void data_chars(FILE *out, const uint8_t *p, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\')
			fputc(p[i], out);
		else
			fprintf(out, "\\%03o", p[i]);
	}
	fputc('"', out);
}

/* Text: 16 bytes a line, offsets counted in the structure. */
static void data_hexdump(FILE *out, const uint8_t *p, size_t n, size_t off)
{
	for (size_t row = 0; row < n; row += 16) {
		size_t k, w = n - row < 16 ? n - row : 16;

		fprintf(out, "#   +0x%04zx:", off + row);
		for (k = 0; k < 16; k++) {
			if (k < w)
				fprintf(out, " %02x", p[row + k]);
			else
				fputs("   ", out);
		}
		fputs("  |", out);
		for (k = 0; k < w; k++)
			fputc(p[row + k] >= 0x20 && p[row + k] < 0x7F ? p[row + k] : '.', out);
		fputs("|\n", out);
	}
}

void xc_so_data(struct xc_show_out *o, const char *name, const uint8_t *buf, size_t len,
		size_t off, size_t n, bool hex)
{
	const uint8_t *p = buf + (off < len ? off : len);
	unsigned hits;

	if (o->in_item)
		xc_so_item_end(o);
	/* Only what the buffer holds. */
	if (off >= len)
		n = 0;
	else if (n > len - off)
		n = len - off;
	hits = match_field(o, name, false);
	if (!o->json) {
		fprintf(o->out, "%s = ", name);
		data_chars(o->out, p, n);
		if (o->annotate)
			fprintf(o->out, "    # +0x%zx, %zu bytes [%s]", off, n, verdict_word(o, hits));
		fputc('\n', o->out);
		match_field(o, name, true);
		if (hex)
			data_hexdump(o->out, p, n, off);
		return;
	}
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "kind", "data");
	xa_json_kstr(&o->j, "name", name);
	xa_json_ku64(&o->j, "offset", off);
	xa_json_ku64(&o->j, "size", n);
	xa_json_key(&o->j, "value");
	xa_json_bytes(&o->j, p, n);
	if (hex) {
		/* n is at most a block (64 KiB): the string is bounded. */
		char *h = malloc(2 * n + 1);

		if (h) {
			for (size_t i = 0; i < n; i++)
				snprintf(h + 2 * i, 3, "%02x", p[i]);
			h[2 * n] = '\0';
			xa_json_kstr(&o->j, "hex", h);
			free(h);
		}
	}
	xa_json_kstr(&o->j, "verdict", verdict_word(o, hits));
	if (hits) {
		xa_json_key(&o->j, "problems");
		xa_json_array(&o->j, true);
		match_field(o, name, true);
		xa_json_end(&o->j);
	}
	xa_json_end(&o->j);
}

void xc_so_raw(struct xc_show_out *o, const uint8_t *buf, size_t len)
{
	if (o->in_item)
		xc_so_item_end(o);
	if (!o->json) {
		fprintf(o->out, "raw = %zu bytes\n", len);
		data_hexdump(o->out, buf, len, 0);
		return;
	}
	xa_json_object(&o->j, true);
	xa_json_kstr(&o->j, "kind", "raw");
	xa_json_ku64(&o->j, "size", len);
	{
		/* len is at most a directory block (64 KiB): the string is bounded. */
		char *h = malloc(2 * len + 1);

		if (h) {
			for (size_t i = 0; i < len; i++)
				snprintf(h + 2 * i, 3, "%02x", buf[i]);
			h[2 * len] = '\0';
			xa_json_kstr(&o->j, "hex", h);
			free(h);
		}
	}
	xa_json_end(&o->j);
}

/* ------------------------------------------------------- free entries */

struct xa_json *xc_so_entry_begin(struct xc_show_out *o, const char *kind)
{
	if (!o->json)
		return NULL;
	if (o->in_item)
		xc_so_item_end(o);
	xa_json_object(&o->j, false);
	xa_json_kstr(&o->j, "kind", kind);
	return &o->j;
}

void xc_so_entry_end(struct xc_show_out *o)
{
	if (o->json)
		xa_json_end(&o->j);
}

void xc_so_end(struct xc_show_out *o)
{
	size_t kept;

	if (!o->in_struct)
		return;
	if (o->in_item)
		xc_so_item_end(o);
	o->in_struct = false;
	o->by_key = false;
	o->field_prefix = NULL;
	kept = o->probs.count < XC_SO_MAX_PROBLEMS ? o->probs.count : XC_SO_MAX_PROBLEMS;
	if (!o->json) {
		for (size_t i = 0; i < kept; i++)
			if (!o->shown[i])
				problem_text(o, "structure", &o->probs.items[i]);
		if (o->probs.count > kept || o->probs.dropped)
			fprintf(o->out, "# (%" PRIu64 " more failed checks not listed)\n",
				(uint64_t)(o->probs.count - kept) + o->probs.dropped);
		if (o->verified)
			fprintf(o->out, "# verifier: %s\n", o->probs.count || o->probs.dropped ?
				"problems found (above)" : "every check passed");
		return;
	}
	xa_json_end(&o->j);  /* content */
	xa_json_kbool(&o->j, "verified", o->verified);
	xa_json_key(&o->j, "problems");
	xa_json_array(&o->j, false);
	for (size_t i = 0; i < kept; i++)
		problem_json(o, &o->probs.items[i]);
	xa_json_end(&o->j);
	xa_json_ku64(&o->j, "problems_not_listed",
		     (uint64_t)(o->probs.count - kept) + o->probs.dropped);
	xa_json_end(&o->j);
}
