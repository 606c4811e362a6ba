/*
 * field_print.h - print a structure's fields from its field table, one
 * `name = value` line each, in the notation xfs_db uses (so that the two can
 * be compared line by line, and so that people who know xfs_db feel at home).
 */
#ifndef XA_FIELD_PRINT_H
#define XA_FIELD_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/field.h"

struct xa_field_print_opts {
	bool        v5;        /* print v5-only fields */
	bool        bigtime;   /* XFK_TIME fields are bigtime-encoded */
	bool        annotate;  /* add "  # offset 0x.., size N: doc" after each line */
	const char *prefix;    /* prepended to every name (may be NULL) */
};

/* Print one field; fields that do not fit in len are printed as "<truncated>". */
void xa_field_print(FILE *out, const struct xfmt_field *f, const uint8_t *buf,
		    size_t len, const struct xa_field_print_opts *o);

/* Print every field of a table. */
void xa_fields_print(FILE *out, const struct xfmt_field *table, const uint8_t *buf,
		     size_t len, const struct xa_field_print_opts *o);

/* Format a 16-byte uuid as 8-4-4-4-12 into buf (at least 37 bytes). */
void xa_uuid_format(const uint8_t *u, char *buf);

/* Decode an inode timestamp to seconds since the epoch and nanoseconds. */
void xa_timestamp_decode(uint64_t raw, bool bigtime, int64_t *sec, uint32_t *nsec);

#endif /* XA_FIELD_PRINT_H */
