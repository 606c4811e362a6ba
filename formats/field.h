/*
 * field.h - field tables: every on-disk structure's fields described once.
 *
 * A table drives the annotated dumps (`xfsrecon show`), the XML field export,
 * the teaching view and the field fuzzer, so a field's offset lives in exactly
 * one place.  Names follow xfs_db's spelling so that the oracle tests can
 * compare `xfsrecon show` with `xfs_db print` line by line.
 */
#ifndef XFMT_FIELD_H
#define XFMT_FIELD_H

#include <stddef.h>
#include <stdint.h>

enum xfmt_field_kind {
	XFK_UINT,     /* unsigned big-endian integer, decimal */
	XFK_HEX,      /* unsigned big-endian integer, printed in hex (magic, flags) */
	XFK_NULLABLE, /* unsigned big-endian integer where all-ones prints "null" */
	XFK_SINT,     /* signed big-endian integer */
	XFK_CRC,      /* little-endian CRC32c; printed as xfs_db does (bytes read BE) */
	XFK_UUID,     /* 16 raw bytes */
	XFK_CHARS,    /* fixed-size character array */
	XFK_BYTES,    /* opaque bytes, printed in hex */
	XFK_LSN,      /* be64 log sequence number, printed hex */
	XFK_TIME,     /* 8-byte inode timestamp (legacy or bigtime by inode flag) */
	XFK_OCT,      /* unsigned big-endian integer printed in octal with a leading 0 (mode) */
	XFK_BIT,      /* one flag bit of a big-endian word: (value >> bit) & 1, printed 0/1 */
	XFK_ENUM,     /* small unsigned integer; the printer may add a name in parentheses */
};

struct xfmt_field {
	const char *name;   /* xfs_db's name for it */
	uint16_t    off;    /* byte offset inside the structure */
	uint16_t    size;   /* width in bytes */
	uint8_t     kind;   /* enum xfmt_field_kind */
	uint8_t     v5only; /* 1: only present on v5 (CRC) filesystems */
	const char *doc;    /* one-line meaning, for the teaching view */
	uint8_t     bit;    /* XFK_BIT: bit number within the size-byte word */
};

/* A table ends with an entry whose name is NULL. */
#define XFMT_FIELD_END { NULL, 0, 0, 0, 0, NULL, 0 }

/*
 * Read an integer field (width 1, 2, 4 or 8) from buf.  Returns 0 and sets
 * *out, or -1 if the field does not fit in len bytes or is not an integer.
 */
int xfmt_field_get(const uint8_t *buf, size_t len, const struct xfmt_field *f,
		   uint64_t *out);

/* Find a field by name in a table; NULL if absent. */
const struct xfmt_field *xfmt_field_find(const struct xfmt_field *table,
					 const char *name);

#endif /* XFMT_FIELD_H */
