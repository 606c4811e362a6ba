/*
 * show_log.c - `xfsrecon show log`: the internal log's record headers,
 * walked from the start of the log.
 *
 * Each record header (formats/log.h) is shown with its fields, where its
 * payload ends and whether its CRC matches; the walk goes from record to
 * record by their lengths and stops where no header follows or the cycle
 * number drops: that is the head, the block the next write would go to.
 * The tail comes from the last record's tail_lsn.  Only the headers are
 * read: the log items inside the payloads are a later view.  The walk is
 * bounded by the log's size (every step moves at least one block).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "cli/views/show_int.h"
#include "formats/log.h"

/* Records shown at most. */
#define MAX_RECORDS 100000u

/* CRC of the record at log block bb: 1 matches, 0 differs, -1 unreadable. */
static int record_crc_ok(struct xc_show_run *s, uint64_t start, uint64_t bb, uint64_t nbb,
			 const struct xfmt_log_rec *r, uint32_t *computed)
{
	uint64_t blocks = xfmt_log_rec_hdr_blocks(r) + ((uint64_t)r->len + XFS_BB_SIZE - 1) /
			  XFS_BB_SIZE;
	struct xbuf *b = NULL;
	int ok = -1;

	/* A record wrapping past the end of the log is read in two parts; not shown. */
	if (r->len > XLOG_MAX_RECORD_BYTES || bb + blocks > nbb)
		return -1;
	if (xa_read(s->ctx, start + (bb << XFS_BB_SHIFT), (size_t)(blocks << XFS_BB_SHIFT), &b,
		    NULL) != 0)
		return -1;
	if (xfmt_log_rec_crc(b->data, b->len, computed) == 0)
		ok = *computed == r->crc;
	xa_put(s->ctx, &b);
	return ok;
}

int xc_show_log(struct xc_show_run *s)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	uint64_t start, nbb, bb = 0, last_tail = 0, nrec = 0;
	uint32_t prev_cycle = 0;
	bool have_last = false;
	char where[64];

	if (g->logstart == 0 || !xfmt_geom_fsb_valid(g, g->logstart)) {
		fprintf(s->err, "xfsrecon: the log is external or logstart is not usable\n");
		return XERR_USAGE;
	}
	start = xfmt_geom_fsb_byte(g, g->logstart);
	nbb = ((uint64_t)g->logblocks << g->blocklog) >> XFS_BB_SHIFT;
	xc_so_begin(&s->o, "log", "internal log", start, nbb << XFS_BB_SHIFT);
	xc_so_note(&s->o, "%" PRIu32 " blocks from fsblock %" PRIu64 " (%" PRIu64 " 512-byte log "
		   "blocks); record headers are walked from log block 0", g->logblocks,
		   g->logstart, nbb);
	if (s->ctx->log_checked)
		xc_so_note(&s->o, "state: %s", s->ctx->log_dirty ? "dirty (recovery needed)" :
			   "clean (ends with an unmount record)");
	xc_so_end(&s->o);

	while (bb < nbb && nrec < MAX_RECORDS) {
		struct xfmt_log_rec r;
		struct xbuf *b = NULL;
		uint64_t next;
		uint32_t crc = 0;
		int ok;

		if (xc_show_read(s, start + (bb << XFS_BB_SHIFT), XFS_BB_SIZE, &b) != 0)
			break;
		if (xfmt_log_rec_decode(b->data, b->len, &r) != 0 || r.magicno != XLOG_HEADER_MAGIC) {
			xa_put(s->ctx, &b);
			xc_so_begin(&s->o, "log head", "no record header", start + (bb << XFS_BB_SHIFT), 0);
			xc_so_note(&s->o, "log block %" PRIu64 " holds no record header: the head "
				   "(the next write goes here)", bb);
			xc_so_end(&s->o);
			break;
		}
		if (have_last && r.cycle < prev_cycle) {
			xa_put(s->ctx, &b);
			xc_so_begin(&s->o, "log head", "cycle drops", start + (bb << XFS_BB_SHIFT), 0);
			xc_so_note(&s->o, "log block %" PRIu64 " has cycle %" PRIu32 ", older than %"
				   PRIu32 ": the head is here; the rest is from the previous pass",
				   bb, r.cycle, prev_cycle);
			xc_so_end(&s->o);
			break;
		}
		snprintf(where, sizeof(where), "log block %" PRIu64, bb);
		xc_so_begin(&s->o, "log record", where, start + (bb << XFS_BB_SHIFT), XFS_BB_SIZE);
		xc_so_fields(&s->o, xfmt_log_rec_fields, b->data, b->len);
		xa_put(s->ctx, &b);
		next = bb + xfmt_log_rec_hdr_blocks(&r) +
		       ((uint64_t)r.len + XFS_BB_SIZE - 1) / XFS_BB_SIZE;
		xc_so_note(&s->o, "lsn: cycle %" PRIu64 ", block %" PRIu64 "; tail_lsn: cycle %"
			   PRIu64 ", block %" PRIu64 "; %" PRIu32 " header block%s, payload to log "
			   "block %" PRIu64, r.lsn >> 32, r.lsn & 0xFFFFFFFFu, r.tail_lsn >> 32,
			   r.tail_lsn & 0xFFFFFFFFu, xfmt_log_rec_hdr_blocks(&r),
			   xfmt_log_rec_hdr_blocks(&r) == 1 ? "" : "s", next);
		ok = record_crc_ok(s, start, bb, nbb, &r, &crc);
		if (r.crc == 0)
			xc_so_note(&s->o, "crc: 0, none stored (mkfs and repair tools write their "
				   "unmount record without one)");
		else if (ok == 1)
			xc_so_note(&s->o, "crc: matches header and payload");
		else if (ok == 0)
			xc_so_note(&s->o, "crc: MISMATCH, header and payload give 0x%08" PRIx32, crc);
		else
			xc_so_note(&s->o, "crc: not checked (the record wraps or cannot be read)");
		xc_so_end(&s->o);
		prev_cycle = r.cycle;
		last_tail = r.tail_lsn;
		have_last = true;
		nrec++;
		bb = next;
	}
	xc_so_begin(&s->o, "log summary", "internal log", start, 0);
	xc_so_note(&s->o, "%" PRIu64 " record%s walked", nrec, nrec == 1 ? "" : "s");
	if (have_last)
		xc_so_note(&s->o, "tail (from the last record's tail_lsn): cycle %" PRIu64
			   ", block %" PRIu64, last_tail >> 32, last_tail & 0xFFFFFFFFu);
	if (bb >= nbb)
		xc_so_note(&s->o, "the walk reached the end of the log");
	xc_so_end(&s->o);
	return 0;
}
