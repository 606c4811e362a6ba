/*
 * field_print.h - print a structure's fields from its field table, one
 * `name = value` line each, in the notation xfs_db uses (so that the two can
 * be compared line by line, and so that people who know xfs_db feel at home).
 */
#ifndef XC_FIELD_PRINT_H
#define XC_FIELD_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/field.h"

struct xc_field_print_opts {
	bool        v5;        /* print v5-only fields */
	bool        bigtime;   /* XFK_TIME fields are bigtime-encoded */
	bool        annotate;  /* add "  # offset 0x.., size N: doc" after each line */
	const char *prefix;    /* prepended to every name (may be NULL) */
};

/* Print one field; fields that do not fit in len are printed as "<truncated>". */
void xc_field_print(FILE *out, const struct xfmt_field *f, const uint8_t *buf,
		    size_t len, const struct xc_field_print_opts *o);

/* Bytes of one rendered value (a 256-byte XFK_BYTES field needs 513). */
#define XC_FIELD_VALUE_MAX 1100u

/* Receives one rendered `name = value` pair; both strings are temporary. */
typedef void (*xc_field_emit_fn)(void *arg, const char *name, const char *value);

/*
 * Render field f of buf[0..len) in xfs_db's notation and hand each pair to
 * fn: one pair, or two for a timestamp (NAME.sec as a UTC date, NAME.nsec).
 * A v5-only field is skipped unless o->v5 (returns 0); a field that does not
 * fit in len renders as "<truncated>".  o may be NULL.  Returns the number
 * of pairs emitted.
 */
unsigned xc_field_render(const struct xfmt_field *f, const uint8_t *buf, size_t len,
			 const struct xc_field_print_opts *o, xc_field_emit_fn fn, void *arg);

/*
 * Quote n bytes as xfs_db prints a name: "..." with every byte that is not
 * printable ASCII (and every quote and backslash) as \NNN octal.  out gets
 * at most cap bytes, always NUL-terminated (cap > 0); longer text is cut.
 */
void xc_chars_format(const uint8_t *p, size_t n, char *out, size_t cap);

/* Print every field of a table. */
void xc_fields_print(FILE *out, const struct xfmt_field *table, const uint8_t *buf,
		     size_t len, const struct xc_field_print_opts *o);

/* Format a 16-byte uuid as 8-4-4-4-12 into buf (at least 37 bytes). */
void xc_uuid_format(const uint8_t *u, char *buf);

/* Decode an inode timestamp to seconds since the epoch and nanoseconds. */
void xc_timestamp_decode(uint64_t raw, bool bigtime, int64_t *sec, uint32_t *nsec);

#endif /* XC_FIELD_PRINT_H */
