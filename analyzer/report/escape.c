/*
 * escape.c - hostile bytes (names, labels, targets, values read from an
 * image) made into safe, reversible UTF-8 for every text and XML output.
 */
#include "analyzer/report/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static char *escape(const void *bytes, size_t len, bool slash)
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
			if (b < 0x20 || b == 0x7F || (slash && b == '/'))
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

char *xa_escape_text(const void *bytes, size_t len)
{
	return escape(bytes, len, false);
}

char *xa_escape_name(const void *bytes, size_t len)
{
	return escape(bytes, len, true);
}
