/*
 * show.c - annotated dumps of single structures, driven by the field tables
 * in formats/.  Field names and value notation follow xfs_db's `print`, so
 * the oracle tests can hold the two side by side; `--annotate` adds each
 * field's offset, width and meaning for people learning the format.
 */
#include "analyzer/views/show.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli_number.h"
#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/report/field_print.h"
#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/btree.h"
#include "formats/btrec.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "formats/sb.h"

static int read_bytes(struct xa_ctx *ctx, FILE *err, uint64_t off, size_t len,
		      struct xbuf **b)
{
	int rc = xa_read(ctx, off, len, b, NULL);

	if (rc)
		fprintf(err, "xfsrecon: cannot read %zu bytes at byte %" PRIu64 ": %s\n", len,
			off, xerr_str(rc));
	return rc;
}

static int show_header(FILE *out, FILE *err, struct xa_ctx *ctx, const char *what,
		       uint32_t agno, struct xa_field_print_opts *po)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t off;
	struct xbuf *b = NULL;
	unsigned n;
	int rc;

	if (!strcmp(what, "sb"))
		n = 0;
	else if (!strcmp(what, "agf"))
		n = 1;
	else if (!strcmp(what, "agi"))
		n = 2;
	else
		n = 3;
	off = xfmt_geom_ag_byte(g, agno) + (uint64_t)n * g->sectsize;
	rc = read_bytes(ctx, err, off, g->sectsize, &b);
	if (rc)
		return rc;
	switch (n) {
	case 0:
		xa_fields_print(out, xfmt_sb_fields, b->data, b->len, po);
		break;
	case 1:
		xa_fields_print(out, xfmt_agf_fields, b->data, b->len, po);
		break;
	case 2: {
		struct xfmt_agi agi;

		/* The bucket array prints below, one line per non-empty bucket. */
		for (const struct xfmt_field *f = xfmt_agi_fields; f->name; f++)
			if (strcmp(f->name, "unlinked") != 0)
				xa_field_print(out, f, b->data, b->len, po);
		if (xfmt_agi_decode(b->data, b->len, &agi) == 0)
			for (unsigned i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
				if (agi.unlinked[i] != XFS_NULLAGINO)
					fprintf(out, "unlinked[%u] = %" PRIu32 "\n", i, agi.unlinked[i]);
		break;
	}
	default: {
		struct xfmt_agfl agfl;

		/* A v4 AGFL has no header at all, unlike the other sectors. */
		if (g->v5)
			xa_fields_print(out, xfmt_agfl_fields, b->data, b->len, po);
		if (xfmt_agfl_decode(b->data, b->len, g, &agfl) == 0)
			for (uint32_t i = 0; i < agfl.size; i++) {
				uint32_t v = xfmt_agfl_slot(&agfl, i);
				if (v != XFS_NULLAGBLOCK)
					fprintf(out, "bno[%" PRIu32 "] = %" PRIu32 "\n", i, v);
			}
		break;
	}
	}
	xa_put(ctx, &b);
	return 0;
}

static int show_inode(FILE *out, FILE *err, struct xa_ctx *ctx, uint64_t ino,
		      struct xa_field_print_opts *po)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xfmt_dinode d;
	struct xbuf *b = NULL;
	int rc;

	if (!xfmt_geom_ino_valid(g, ino)) {
		fprintf(err, "xfsrecon: inode %" PRIu64 " is outside the filesystem\n", ino);
		return XERR_USAGE;
	}
	rc = read_bytes(ctx, err, xfmt_geom_ino_byte(g, ino), g->inodesize, &b);
	if (rc)
		return rc;
	if (xfmt_dinode_decode(b->data, b->len, g, &d) == 0) {
		po->bigtime = (d.flags2 & 0x8) != 0;
		po->v5 = d.version >= 3;  /* xfs_db prints v3 fields only for v3 inodes */
		xa_fields_print(out, xfmt_dinode_fields(&d), b->data, b->len, po);
	} else {
		xa_fields_print(out, xfmt_dinode_core_fields, b->data, b->len, po);
	}
	xa_put(ctx, &b);
	return 0;
}

static void print_record(FILE *out, enum xfmt_btnum bt, const uint8_t *rec, unsigned i,
			 bool sparse)
{
	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT: {
		struct xfmt_alloc_rec r;
		xfmt_alloc_rec_decode(rec, &r);
		fprintf(out, "recs[%u] = startblock %" PRIu32 " blockcount %" PRIu32 "\n", i + 1,
			r.startblock, r.blockcount);
		break;
	}
	case XFMT_BT_INO:
	case XFMT_BT_FINO: {
		struct xfmt_inobt_rec r;
		xfmt_inobt_rec_decode(rec, sparse, &r);
		fprintf(out, "recs[%u] = startino %" PRIu32 " holemask 0x%x count %u freecount %" PRIu32
			" free 0x%016" PRIx64 "\n", i + 1, r.startino, r.holemask, r.count,
			r.freecount, r.free);
		break;
	}
	case XFMT_BT_RMAP: {
		struct xfmt_rmap_rec r;
		xfmt_rmap_rec_decode(rec, &r);
		fprintf(out, "recs[%u] = startblock %" PRIu32 " blockcount %" PRIu32 " owner %" PRId64
			" offset %" PRIu64 " attrfork %d bmbtblock %d unwritten %d\n", i + 1,
			r.startblock, r.blockcount, (int64_t)r.owner, r.offset, r.attr_fork,
			r.bmbt_block, r.unwritten);
		break;
	}
	case XFMT_BT_REFC: {
		struct xfmt_refc_rec r;
		xfmt_refc_rec_decode(rec, &r);
		fprintf(out, "recs[%u] = startblock %" PRIu32 " blockcount %" PRIu32 " refcount %" PRIu32
			" cow %d\n", i + 1, r.startblock, r.blockcount, r.refcount, r.cow);
		break;
	}
	default: {
		struct xfmt_bmbt_rec r;
		xfmt_bmbt_rec_decode(rec, &r);
		fprintf(out, "recs[%u] = startoff %" PRIu64 " startblock %" PRIu64 " blockcount %" PRIu32
			" unwritten %d\n", i + 1, r.startoff, r.startblock, r.blockcount, r.unwritten);
		break;
	}
	}
}

static int show_btree(FILE *out, FILE *err, struct xa_ctx *ctx, uint64_t agno, uint64_t agbno,
		      struct xa_field_print_opts *po)
{
	const struct xfmt_geom *g = &ctx->geom;
	enum xfmt_btnum bt = XFMT_BT_COUNT;
	struct xfmt_bt_hdr h;
	struct xbuf *b = NULL;
	unsigned n, maxr;
	uint32_t magic;
	int rc;

	if (agno >= g->agcount || agbno >= xfmt_geom_ag_length(g, (uint32_t)agno)) {
		fprintf(err, "xfsrecon: block %" PRIu64 "/%" PRIu64 " is outside the filesystem\n",
			agno, agbno);
		return XERR_USAGE;
	}
	rc = read_bytes(ctx, err, xfmt_geom_agbno_byte(g, (uint32_t)agno, (uint32_t)agbno),
			g->blocksize, &b);
	if (rc)
		return rc;
	magic = xfmt_get_be32(b->data);
	for (int t = 0; t < XFMT_BT_COUNT; t++)
		if (xfmt_bt_magic((enum xfmt_btnum)t, g->v5) == magic)
			bt = (enum xfmt_btnum)t;
	if (bt == XFMT_BT_COUNT) {
		fprintf(err, "xfsrecon: block %" PRIu64 "/%" PRIu64 " has magic 0x%08" PRIx32
			", not a btree block\n", agno, agbno, magic);
		xa_put(ctx, &b);
		return XERR_USAGE;
	}
	fprintf(out, "# %s block\n", xfmt_bt_name(bt));
	xa_fields_print(out, xfmt_bt_is_long(bt) ? xfmt_bt_long_fields : xfmt_bt_short_fields,
			b->data, b->len, po);
	if (xfmt_bt_hdr_decode(b->data, b->len, bt, g->v5, &h) == 0) {
		maxr = xfmt_bt_maxrecs(bt, g->blocksize, g->v5, h.level == 0);
		n = h.numrecs < maxr ? h.numrecs : maxr;
		for (unsigned i = 0; i < n; i++) {
			if (h.level == 0) {
				const uint8_t *rec = xfmt_bt_rec(b->data, b->len, bt, g->v5, i);
				if (rec)
					print_record(out, bt, rec, i, xfmt_geom_has_sparse_inodes(g));
			} else {
				uint64_t ptr;
				if (xfmt_bt_ptr(b->data, b->len, bt, g->v5, g->blocksize, i, &ptr) == 0)
					fprintf(out, "ptrs[%u] = %" PRIu64 "\n", i + 1, ptr);
			}
		}
	}
	xa_put(ctx, &b);
	return 0;
}

int xa_show(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv, bool annotate)
{
	/* xfs_db prints every header field, v5 ones as zero on v4. */
	struct xa_field_print_opts po = { true, false, annotate, NULL };
	uint64_t a = 0, b = 0;

	if (argc < 1)
		goto usage;
	if (!strcmp(argv[0], "sb") || !strcmp(argv[0], "agf") || !strcmp(argv[0], "agi") ||
	    !strcmp(argv[0], "agfl")) {
		if (argc != 2 || xa_parse_u64(argv[1], &a) || a >= ctx->geom.agcount) {
			fprintf(err, "xfsrecon: show %s needs an AG number below %" PRIu32 "\n",
				argv[0], ctx->geom.agcount);
			return XERR_USAGE;
		}
		return show_header(out, err, ctx, argv[0], (uint32_t)a, &po);
	}
	if (!strcmp(argv[0], "inode")) {
		if (argc != 2 || xa_parse_u64(argv[1], &a))
			goto usage;
		return show_inode(out, err, ctx, a, &po);
	}
	if (!strcmp(argv[0], "btree")) {
		if (argc != 3 || xa_parse_u64(argv[1], &a) || xa_parse_u64(argv[2], &b))
			goto usage;
		return show_btree(out, err, ctx, a, b, &po);
	}
usage:
	fprintf(err, "xfsrecon: show WHAT is one of: sb AGNO | agf AGNO | agi AGNO | agfl AGNO | "
		"inode INO | btree AGNO AGBNO\n");
	return XERR_USAGE;
}
