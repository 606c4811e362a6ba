/*
 * show_out.h - how `xfsrecon show` writes what it shows, as text or JSON,
 * and how it puts the verifiers' verdicts next to the fields they judge.
 *
 * A view describes each structure it shows as a sequence of calls:
 *
 *   xc_so_begin(o, "agf", "AG 0", byte, size);
 *   agf_verify(buf, len, ..., xc_so_sink(o));       -- optional: the verdicts
 *   xc_so_fields(o, xfmt_agf_fields, buf, len);     -- every field of the table
 *   xc_so_item_begin(o, "recs", 1, off, size, true);   -- records, entries
 *   xc_so_item_u64(o, "startblock", 12); ... xc_so_item_end(o);
 *   xc_so_note(o, "hash of \"name\" is 0x...");     -- explanations
 *   xc_so_end(o);                                   -- checks tied to no field
 *
 * Text keeps xfs_db's `name = value` notation (the oracle tests compare the
 * two); a failed check prints on its own line under the field it names, and
 * --annotate adds each field's offset, size, raw bytes, meaning and "ok".
 * JSON gives the same content as one document:
 *
 *   {"image": ..., "what": [...], "structures": [
 *     {"type": "agf", "where": "AG 0", "byte": 512, "size": 512,
 *      "verified": true, "content": [
 *        {"kind": "field", "name": "magicnum", "offset": 0, "size": 4,
 *         "raw": "58414746", "value": "0x58414746", "doc": "...",
 *         "verdict": "ok"},
 *        {"kind": "item", "array": "recs", "index": 1, "offset": 56,
 *         "size": 8, "values": {"startblock": 12, ...}, "verdict": "ok"},
 *        {"kind": "note", "text": "..."}],
 *      "problems": [{"id": ..., "code": ..., "field": ..., "message": ...}]}]}
 *
 * Runs of bytes (a remote value, a symlink target) are content of kind
 * "data" (xc_so_data); a view may add entries of its own kind through
 * xc_so_entry_begin (`show path`'s "lookup" with its steps).
 *
 * A field's verdict is "ok" when the structure was verified and no failed
 * check names it, "failed" (with the problems) when one does, and
 * "unverified" when no verifier ran on the structure.
 */
#ifndef XC_SHOW_OUT_H
#define XC_SHOW_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/findings/findings.h"
#include "cli/views/field_print.h"
#include "analyzer/report/json_writer.h"
#include "formats/field.h"

/* Problems kept per structure; more are counted, not shown one by one. */
#define XC_SO_MAX_PROBLEMS 256u
/* Keys of one item remembered for xc_so_items_by_key. */
#define XC_SO_MAX_KEYS 16u

struct xc_show_out {
	FILE                      *out;
	bool                       json;
	bool                       annotate;
	struct xa_json             j;
	struct xc_field_print_opts po;    /* v5 / bigtime for the next fields */

	/* the structure being shown */
	bool                       in_struct;
	bool                       verified;
	struct xa_findings         probs;   /* the verifier's problems */
	struct xa_loc_sink         sink;
	bool                       shown[XC_SO_MAX_PROBLEMS]; /* printed at a field */

	/* the item being shown */
	bool                       in_item;
	bool                       item_inline;
	const char                *item_array;
	unsigned                   item_index;
	uint64_t                   item_off, item_size;
	struct xa_findings         iprobs;  /* problems of this item alone */
	struct xa_loc_sink         isink;
	bool                       by_key;  /* see xc_so_items_by_key */
	unsigned                   nkeys;
	const char                *keys[XC_SO_MAX_KEYS];  /* keys of this item's values */

	const char                *field_prefix;  /* see xc_so_field_prefix */

	uint64_t                   nstruct;
};

/*
 * Start the output (out stays the caller's).  image and what (argc words)
 * head the JSON document.  annotate adds offsets, sizes, raw bytes and
 * meanings to text (JSON always has them).
 */
void xc_so_init(struct xc_show_out *o, FILE *out, bool json, bool annotate,
		const char *image, int argc, char **argv);

/* Close the document.  Returns 0 or XERR_IO (a write failed). */
int xc_so_finish(struct xc_show_out *o);

/* Free what the output holds (safe after xc_so_finish or without it). */
void xc_so_release(struct xc_show_out *o);

/*
 * Begin one structure: type ("agf", "bnobt", "dir3 data", ...), where it is
 * in words ("AG 0", "block 3/17", "inode 131, directory block 0"), its image
 * byte and size.  Ends a structure left open.
 */
void xc_so_begin(struct xc_show_out *o, const char *type, const char *where,
		 uint64_t byte, uint64_t size);

/*
 * The sink a verifier of the current structure reports to; calling this
 * marks the structure verified.  Call it before showing the fields.
 */
const struct xprob_sink *xc_so_sink(struct xc_show_out *o);

/* One field / every field of a table, with its verdict. */
void xc_so_field(struct xc_show_out *o, const struct xfmt_field *f, const uint8_t *buf,
		 size_t len);
void xc_so_fields(struct xc_show_out *o, const struct xfmt_field *table, const uint8_t *buf,
		  size_t len);
/* Every field of a table except the one named skip. */
void xc_so_fields_except(struct xc_show_out *o, const struct xfmt_field *table,
			 const uint8_t *buf, size_t len, const char *skip);

/*
 * One element of an array: array[index], at byte off of the structure and
 * size bytes long.  Inline items print as one text line ("recs[1] =
 * startblock 12 blockcount 3", the way xfs_db prints a record); others as
 * one line per value ("du[3].inumber = 131").  A failed check belongs to
 * the item when it names the array at this index, names no field and lies
 * at a byte inside the item, or was reported to xc_so_item_sink.
 */
void xc_so_item_begin(struct xc_show_out *o, const char *array, unsigned index,
		      uint64_t off, uint64_t size, bool inline_);
const struct xprob_sink *xc_so_item_sink(struct xc_show_out *o);
/* Values of the item; a NULL key is the item's one unnamed value
 * ("unlinked[3] = 4711"; "value" in JSON). */
void xc_so_item_u64(struct xc_show_out *o, const char *key, uint64_t v);
void xc_so_item_hex(struct xc_show_out *o, const char *key, uint64_t v);
void xc_so_item_i64(struct xc_show_out *o, const char *key, int64_t v);
/* A name from the image: quoted and escaped in text, exact bytes in JSON. */
void xc_so_item_name(struct xc_show_out *o, const char *key, const uint8_t *p, size_t n);
/* A word (a literal such as a file type name). */
void xc_so_item_word(struct xc_show_out *o, const char *key, const char *s);
void xc_so_item_end(struct xc_show_out *o);

/* An explanation line (text: "# ..."). */
void xc_so_note(struct xc_show_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Items of the current structure also take the failed checks that name one
 * of their keys and carry the item's index as their offset (verifiers of
 * entry lists, such as the attr ones, report "hashval" of entry 3 that way).
 * Call after xc_so_begin; the structure's end turns it off.
 */
void xc_so_items_by_key(struct xc_show_out *o);

/*
 * Print field names with prefix in front (xfs_db shows a shortform attr
 * header as "a.sfattr.hdr.count"), while failed checks still match the
 * table's own names.  NULL ends it; so does the structure's end.  prefix
 * must outlive the structure.
 */
void xc_so_field_prefix(struct xc_show_out *o, const char *prefix);

/*
 * A run of n bytes at byte off of the structure (buf holds len bytes; what
 * lies outside is not shown): text prints `name = "..."` in xfs_db's
 * notation (the whole run, escaped as xc_chars_format does), then with hex
 * a dump of 16 bytes a line ("#   +0x0038: 72 30 ... |r0..|"); JSON gives
 * {"kind": "data", "name", "offset", "size", "value" (the bytes, one code
 * point each), "hex" (with hex), "verdict"}.  Failed checks naming name
 * belong to it.
 */
void xc_so_data(struct xc_show_out *o, const char *name, const uint8_t *buf, size_t len,
		size_t off, size_t n, bool hex);

/*
 * Every byte of buf as it is: text prints "raw = N bytes" and a dump of 16
 * bytes a line (offsets from the start of buf); JSON gives {"kind": "raw",
 * "size", "hex"}.  For blocks no structure describes.
 */
void xc_so_raw(struct xc_show_out *o, const uint8_t *buf, size_t len);

/*
 * JSON only: open an object of the given kind in the structure's content
 * and hand back the writer, for a view that describes something no field
 * or item fits (a lookup and its steps).  The caller writes members and
 * closes with xc_so_entry_end.  Returns NULL in text mode (write nothing).
 */
struct xa_json *xc_so_entry_begin(struct xc_show_out *o, const char *kind);
void xc_so_entry_end(struct xc_show_out *o);

/* End the structure: the failed checks no field or item named, the counts. */
void xc_so_end(struct xc_show_out *o);

#endif /* XC_SHOW_OUT_H */
