/*
 * json_writer.h - a small streaming JSON writer for the machine-readable
 * views (`show --json`).  It places commas and indentation itself, escapes
 * every string, and remembers its first failure, so the view code reads as
 * a list of values instead of a ladder of error checks (as xml_writer.h does
 * for the XML reports).
 *
 * Bytes from the image (names, labels) are written with xa_json_bytes: each
 * byte becomes the code point of the same number (printable ASCII as itself,
 * every other byte as \u00XX), so the output is always valid UTF-8 and a
 * script gets the exact bytes back with s.encode('latin-1').
 */
#ifndef XA_JSON_WRITER_H
#define XA_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Nesting deeper than this is refused (the writer fails). */
#define XA_JSON_MAX_DEPTH 32u

struct xa_json {
	FILE    *out;
	bool     failed;                        /* a write failed or the nesting broke */
	unsigned depth;                         /* open containers */
	bool     has_items[XA_JSON_MAX_DEPTH];  /* the container has a value already */
	bool     inline_[XA_JSON_MAX_DEPTH];    /* the container prints on one line */
	bool     object[XA_JSON_MAX_DEPTH];     /* an object (else an array) */
	bool     after_key;                     /* a key was written, its value is due */
};

/* Start writing one JSON document to out (which stays the caller's). */
void xa_json_init(struct xa_json *j, FILE *out);

/*
 * Containers.  An inline container prints on one line ("{"a": 1, "b": 2}"),
 * which keeps a list of small records readable; others put each member on
 * its own indented line.  Inside an object every value must follow a key.
 */
void xa_json_object(struct xa_json *j, bool inline_);
void xa_json_array(struct xa_json *j, bool inline_);
/* Close the innermost container (object or array). */
void xa_json_end(struct xa_json *j);

/* An object member's key (escaped like a string). */
void xa_json_key(struct xa_json *j, const char *key);

/* Values. */
void xa_json_str(struct xa_json *j, const char *s);             /* NUL-terminated */
void xa_json_bytes(struct xa_json *j, const void *p, size_t n); /* see the header */
void xa_json_u64(struct xa_json *j, uint64_t v);
void xa_json_i64(struct xa_json *j, int64_t v);
void xa_json_bool(struct xa_json *j, bool v);
void xa_json_null(struct xa_json *j);

/* Key and value in one call. */
void xa_json_kstr(struct xa_json *j, const char *key, const char *s);
void xa_json_ku64(struct xa_json *j, const char *key, uint64_t v);
void xa_json_kbool(struct xa_json *j, const char *key, bool v);

/*
 * End the document: every container must be closed.  Writes the final
 * newline.  Returns 0, or XERR_IO if a write failed or the document was
 * left unbalanced.
 */
int xa_json_finish(struct xa_json *j);

#endif /* XA_JSON_WRITER_H */
