/*
 * json_writer.c - the streaming JSON writer of json_writer.h: separators,
 * indentation, string escaping and the sticky failure flag.
 */
#include "analyzer/report/json_writer.h"

#include <inttypes.h>
#include <string.h>

#include "analyzer/errors.h"

void xa_json_init(struct xa_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

static void put(struct xa_json *j, const char *s)
{
	if (!j->failed && fputs(s, j->out) == EOF)
		j->failed = true;
}

static void newline_indent(struct xa_json *j)
{
	put(j, "\n");
	for (unsigned i = 0; i < j->depth && !j->failed; i++)
		put(j, "  ");
}

/* Before any value or key: the comma and line break its position needs. */
static void before_item(struct xa_json *j)
{
	unsigned top;

	if (j->failed || j->depth == 0)
		return;
	top = j->depth - 1;
	if (j->has_items[top])
		put(j, j->inline_[top] ? ", " : ",");
	if (!j->inline_[top])
		newline_indent(j);
	j->has_items[top] = true;
}

/* Before a value: after a key nothing is needed, else separate it. */
static void before_value(struct xa_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	before_item(j);
}

static void open_container(struct xa_json *j, bool object, bool inline_)
{
	before_value(j);
	if (j->depth >= XA_JSON_MAX_DEPTH) {
		j->failed = true;
		return;
	}
	put(j, object ? "{" : "[");
	j->object[j->depth] = object;
	/* Inside an inline container everything stays on the line. */
	j->inline_[j->depth] = inline_ || (j->depth > 0 && j->inline_[j->depth - 1]);
	j->has_items[j->depth] = false;
	j->depth++;
}

void xa_json_object(struct xa_json *j, bool inline_)
{
	open_container(j, true, inline_);
}

void xa_json_array(struct xa_json *j, bool inline_)
{
	open_container(j, false, inline_);
}

void xa_json_end(struct xa_json *j)
{
	unsigned top;

	if (j->depth == 0 || j->after_key) {
		j->failed = true;
		return;
	}
	top = j->depth - 1;
	j->depth--;
	/* A multi-line container closes on its own line, under its opener. */
	if (j->has_items[top] && !j->inline_[top])
		newline_indent(j);
	put(j, j->object[top] ? "}" : "]");
}

/* Escape s[0..n) as a JSON string body; bytes map to code points 0-255. */
static void put_escaped(struct xa_json *j, const uint8_t *s, size_t n)
{
	char tmp[8];

	put(j, "\"");
	for (size_t i = 0; i < n && !j->failed; i++) {
		uint8_t c = s[i];

		if (c == '"')
			put(j, "\\\"");
		else if (c == '\\')
			put(j, "\\\\");
		else if (c >= 0x20 && c < 0x7F) {
			tmp[0] = (char)c;
			tmp[1] = '\0';
			put(j, tmp);
		} else {
			snprintf(tmp, sizeof(tmp), "\\u%04x", c);
			put(j, tmp);
		}
	}
	put(j, "\"");
}

void xa_json_key(struct xa_json *j, const char *key)
{
	before_item(j);
	put_escaped(j, (const uint8_t *)key, strlen(key));
	put(j, ": ");
	j->after_key = true;
}

void xa_json_str(struct xa_json *j, const char *s)
{
	before_value(j);
	put_escaped(j, (const uint8_t *)s, strlen(s));
}

void xa_json_bytes(struct xa_json *j, const void *p, size_t n)
{
	before_value(j);
	put_escaped(j, p, n);
}

void xa_json_u64(struct xa_json *j, uint64_t v)
{
	char tmp[24];

	before_value(j);
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	put(j, tmp);
}

void xa_json_i64(struct xa_json *j, int64_t v)
{
	char tmp[24];

	before_value(j);
	snprintf(tmp, sizeof(tmp), "%" PRId64, v);
	put(j, tmp);
}

void xa_json_bool(struct xa_json *j, bool v)
{
	before_value(j);
	put(j, v ? "true" : "false");
}

void xa_json_null(struct xa_json *j)
{
	before_value(j);
	put(j, "null");
}

void xa_json_kstr(struct xa_json *j, const char *key, const char *s)
{
	xa_json_key(j, key);
	xa_json_str(j, s);
}

void xa_json_ku64(struct xa_json *j, const char *key, uint64_t v)
{
	xa_json_key(j, key);
	xa_json_u64(j, v);
}

void xa_json_kbool(struct xa_json *j, const char *key, bool v)
{
	xa_json_key(j, key);
	xa_json_bool(j, v);
}

int xa_json_finish(struct xa_json *j)
{
	if (j->depth != 0 || j->after_key)
		j->failed = true;
	put(j, "\n");
	if (!j->failed && fflush(j->out) == EOF)
		j->failed = true;
	return j->failed ? XERR_IO : 0;
}
