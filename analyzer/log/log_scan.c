/*
 * log_scan.c - head, tail and the record walk of the internal log (see
 * log_scan.h).
 *
 * Why the look back after the binary search: the kernel keeps up to eight
 * log buffers in flight and they may reach the disk out of order, so the
 * blocks just before the cycle change can still hold the previous cycle.
 * The head is the first such block (xlog_find_verify_cycle); records
 * after it were never all written.
 *
 * Why the torn-write window counts records, not blocks: those eight
 * buffers are eight records, so only the last eight records before the
 * head can hold a write the crash cut short.  Recovery checks them
 * (xlog_verify_head) and moves the head back to the first bad one; a bad
 * record before them cannot be a torn write, and recovery gives up
 * (xlog_verify_tail fails the mount).  We stop the walk at either, keeping
 * what came before, and say which it was.
 */
#include "analyzer/log/log_scan.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "formats/endian.h"

#define BB 512u
#define CYCLE_CHUNK 128u   /* blocks read at once while looking at cycles */

/* Read n blocks from log block bb on, wrapping at the end of the log. */
static int read_blocks(struct xa_ctx *ctx, const struct xa_log_pos *pos, uint32_t bb, uint32_t n,
		       uint8_t *buf)
{
	while (n) {
		uint32_t run = pos->nbb - bb < n ? pos->nbb - bb : n;
		uint64_t off = pos->start + (uint64_t)bb * BB;
		int rc = ximg_pread(pos->img, buf, (size_t)run * BB, off);

		if (rc) {
			struct xa_loc loc = { XPROB_HAS_BYTE, 0, 0, 0, off, "log" };

			if (rc != XERR_NOMEM) {
				ctx->read_errors++;
				xa_report(ctx, &loc, XP_imageReadError, NULL, 0, (uint64_t)run * BB,
					  XPROB_HAS_OBSERVED);
			}
			return rc;
		}
		buf += (size_t)run * BB;
		n -= run;
		bb = (bb + run) % pos->nbb;
	}
	return 0;
}

int xa_log_locate(const struct xa_ctx *ctx, struct xa_log_pos *pos)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint64_t nbb;

	if (ctx->geom_source == XA_GEOM_NONE)
		return 1;
	/* An external log (logstart 0) starts at the log device's first
	 * byte, when one was given. */
	if (g->logstart == 0) {
		if (!ctx->logdev)
			return 1;
		pos->img = ctx->logdev;
		pos->start = 0;
		pos->external = true;
	} else {
		if (!xfmt_geom_fsb_valid(g, g->logstart))
			return 1;
		pos->img = xa_base_image(ctx);
		pos->start = xfmt_geom_fsb_byte(g, g->logstart);
		pos->external = false;
	}
	nbb = ((uint64_t)g->logblocks << g->blocklog) / BB;
	if (nbb < 2 || nbb > UINT32_MAX || pos->start + nbb * BB > pos->img->size)
		return 1;
	pos->nbb = (uint32_t)nbb;
	return 0;
}

/* A window of block cycles, read in chunks. */
struct cycles {
	struct xa_ctx *ctx;
	const struct xa_log_pos *pos;
	uint8_t  buf[CYCLE_CHUNK * BB];
	uint32_t first, count;   /* blocks held */
};

static int cycle_at(struct cycles *c, uint32_t bb, uint32_t *cycle)
{
	if (c->count == 0 || bb < c->first || bb >= c->first + c->count) {
		uint32_t n = c->pos->nbb - bb < CYCLE_CHUNK ? c->pos->nbb - bb : CYCLE_CHUNK;
		int rc = read_blocks(c->ctx, c->pos, bb, n, c->buf);

		if (rc) {
			c->count = 0;
			return rc;
		}
		c->first = bb;
		c->count = n;
	}
	*cycle = xfmt_log_block_cycle(c->buf + (size_t)(bb - c->first) * BB);
	return 0;
}

/* The head: the first block not written in the newest pass. */
static int find_head(struct cycles *c, uint32_t *head, uint32_t *head_cycle)
{
	uint32_t nbb = c->pos->nbb, first, last, stop, lo, hi, win_start, h;
	int rc;

	rc = cycle_at(c, 0, &first);
	if (!rc)
		rc = cycle_at(c, nbb - 1, &last);
	if (rc)
		return rc;
	if (first == last) {
		/* One cycle everywhere: the newest pass ended at the end of the
		 * log, unless stale blocks near the end say otherwise. */
		h = nbb;
		stop = last - 1;
	} else {
		lo = 0;
		hi = nbb - 1;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2, cm;

			rc = cycle_at(c, mid, &cm);
			if (rc)
				return rc;
			if (cm == first)
				lo = mid;
			else
				hi = mid;
		}
		h = hi;
		stop = last;
	}
	/* Look back over the in-flight window for the oldest stale block. */
	win_start = h > XA_LOG_TORN_WINDOW ? h - XA_LOG_TORN_WINDOW : 0;
	for (uint32_t bb = win_start; bb < h; bb++) {
		uint32_t cy;

		rc = cycle_at(c, bb, &cy);
		if (rc)
			return rc;
		if (cy == stop) {
			h = bb;
			break;
		}
	}
	/* A head at the end wraps to block 0 and a new pass. */
	*head_cycle = first;
	if (h >= nbb) {
		h = 0;
		*head_cycle = first + 1;
	}
	*head = h;
	return 0;
}

/* Blocks from a to b going forward round the log. */
static uint64_t distance(const struct xa_log_pos *pos, uint32_t a, uint32_t b)
{
	return b >= a ? (uint64_t)(b - a) : (uint64_t)pos->nbb - a + b;
}

/*
 * Where the torn-write window starts: look back from the head, no further
 * than the tail, for the XA_LOG_MAX_ICLOGS-th block that starts with the
 * record magic (xlog_rseek_logrec_hdr; a payload block's first word is a
 * cycle stamp, never the magic).  Fewer headers: the oldest found, or the
 * tail when there is none.
 */
static int find_torn_window(struct xa_ctx *ctx, const struct xa_log_pos *pos,
			    struct xa_log_bounds *b)
{
	uint64_t span = distance(pos, b->tail, b->head), back = 0;
	uint8_t *buf = malloc((size_t)CYCLE_CHUNK * BB);
	unsigned found = 0;
	int rc = 0;

	if (!buf)
		return XERR_NOMEM;
	b->torn_from = b->tail;
	/* Chunks of blocks ending where the previous one began, newest first. */
	while (back < span && found < XA_LOG_MAX_ICLOGS) {
		uint32_t n = span - back < CYCLE_CHUNK ? (uint32_t)(span - back) : CYCLE_CHUNK;
		uint32_t first = (uint32_t)(((uint64_t)b->head + pos->nbb - (back + n) % pos->nbb) %
					    pos->nbb);

		rc = read_blocks(ctx, pos, first, n, buf);
		if (rc)
			break;
		for (uint32_t i = n; i-- > 0 && found < XA_LOG_MAX_ICLOGS;) {
			if (xfmt_get_be32(buf + (size_t)i * BB) != XLOG_HEADER_MAGIC)
				continue;
			b->torn_from = (uint32_t)(((uint64_t)first + i) % pos->nbb);
			found++;
		}
		back += n;
	}
	free(buf);
	return rc;
}

int xa_log_find(struct xa_ctx *ctx, const struct xa_log_pos *pos, struct xa_log_bounds *b)
{
	struct cycles *c = calloc(1, sizeof(*c));
	uint8_t hdr[BB], pay[BB];
	uint32_t scan;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!c)
		return XERR_NOMEM;
	c->ctx = ctx;
	c->pos = pos;
	rc = find_head(c, &b->head, &b->head_cycle);
	free(c);
	if (rc)
		return rc;

	/* The last record header before the head; a record is at most 256 KiB
	 * plus its header sectors, so the scan is bounded. */
	scan = 2 * (XLOG_MAX_RECORD_BYTES / BB);
	for (uint32_t k = 1; k <= pos->nbb && k <= scan; k++) {
		uint32_t bb = (uint32_t)(((uint64_t)b->head + pos->nbb - k) % pos->nbb);
		struct xfmt_log_rec r;

		rc = read_blocks(ctx, pos, bb, 1, hdr);
		if (rc)
			return rc;
		if (xfmt_log_rec_decode(hdr, BB, &r) != 0 || r.magicno != XLOG_HEADER_MAGIC)
			continue;
		b->found = true;
		b->last_lsn = r.lsn;
		b->tail = (uint32_t)(r.tail_lsn & 0xFFFFFFFFu);
		b->tail_cycle = (uint32_t)(r.tail_lsn >> 32);
		if (b->tail >= pos->nbb) {
			/* An impossible tail: start at the last record itself. */
			b->tail = bb;
			b->tail_cycle = r.cycle;
		}
		if (xfmt_log_rec_check(&r) == XLOG_REC_OK && r.num_logops == 1 &&
		    (bb + xfmt_log_rec_total_blocks(&r)) % pos->nbb == b->head) {
			rc = read_blocks(ctx, pos, (uint32_t)((bb + xfmt_log_rec_hdr_blocks(&r)) % pos->nbb),
					 1, pay);
			if (rc)
				return rc;
			b->clean = xfmt_log_payload_is_unmount(hdr, pay);
		}
		if (b->clean) {
			b->tail = b->head;
			b->tail_cycle = b->head_cycle;
		}
		break;
	}
	b->torn_from = b->tail;
	if (b->found && !b->clean)
		return find_torn_window(ctx, pos, b);
	return 0;
}

/*
 * End the walk at the bad record at block at (LSN cycle/at).  torn_kind:
 * the kind of fault a cut-short write leaves (a bad header, CRC or LSN, a
 * record past the head), a torn write when the record is in the window;
 * anything else, or anything before the window, is damage.
 */
static void walk_stop(struct xa_log_walk *w, const struct xa_log_pos *pos,
		      const struct xa_log_bounds *b, uint32_t at, uint32_t cycle, bool torn_kind,
		      const char *why)
{
	uint64_t lost = distance(pos, at, b->head);

	w->end = torn_kind && lost <= distance(pos, b->torn_from, b->head) ? XA_LOG_WALK_TORN
									 : XA_LOG_WALK_DAMAGED;
	w->why = why;
	w->bad_block = at;
	w->stop_lsn = ((uint64_t)cycle << 32) | at;
	w->lost_blocks = lost;
}

/* Read n blocks from log block bb on, wrapping; a failed read is only
 * reported to the caller (the sweep looks at what the check already read). */
static int read_quiet(struct xa_ctx *ctx, const struct xa_log_pos *pos, uint32_t bb, uint32_t n,
		      uint8_t *buf)
{
	while (n) {
		uint32_t run = pos->nbb - bb < n ? pos->nbb - bb : n;
		int rc = ximg_pread(pos->img, buf, (size_t)run * BB,
				    pos->start + (uint64_t)bb * BB);

		if (rc)
			return rc;
		buf += (size_t)run * BB;
		n -= run;
		bb = (bb + run) % pos->nbb;
	}
	return 0;
}

int xa_log_sweep(struct xa_ctx *ctx, const struct xa_log_pos *pos, uint32_t from, xa_log_rec_fn fn,
		 void *arg)
{
	size_t cap = (size_t)(XLOG_MAX_RECORD_BYTES / XLOG_HEADER_CYCLE_SIZE) * BB + XLOG_MAX_RECORD_BYTES;
	uint8_t *rec = malloc(cap), *chunk = malloc((size_t)CYCLE_CHUNK * BB);
	uint64_t done = 0;
	int rc = 0;

	if (!rec || !chunk) {
		free(rec);
		free(chunk);
		return XERR_NOMEM;
	}
	if (from >= pos->nbb)
		from = 0;
	while (done < pos->nbb) {
		uint32_t at = (uint32_t)((from + done) % pos->nbb), run = CYCLE_CHUNK, k;

		if (run > pos->nbb - done)
			run = (uint32_t)(pos->nbb - done);
		if (read_quiet(ctx, pos, at, run, chunk) != 0) {
			done += run;
			continue;
		}
		/* The first block of the chunk that starts a record. */
		for (k = 0; k < run; k++)
			if (xfmt_get_be32(chunk + (size_t)k * BB) == XLOG_HEADER_MAGIC)
				break;
		done += k;
		if (k == run)
			continue;
		at = (uint32_t)((from + done) % pos->nbb);
		{
			struct xfmt_log_rec r;
			uint64_t total;
			uint32_t crc;
			const char *why = NULL;
			int frc;

			xfmt_log_rec_decode(chunk + (size_t)k * BB, BB, &r);
			total = xfmt_log_rec_total_blocks(&r);
			if (xfmt_log_rec_check(&r) != XLOG_REC_OK ||
			    memcmp(r.fs_uuid, ctx->sb.uuid, 16) != 0 || total == 0 ||
			    total > pos->nbb - done || (size_t)total * BB > cap ||
			    read_quiet(ctx, pos, at, (uint32_t)total, rec) != 0 ||
			    ((r.crc != 0 || ctx->geom.v5) &&
			     (xfmt_log_rec_crc(rec, (size_t)total * BB, &crc) != 0 || crc != r.crc)) ||
			    xfmt_log_rec_restore(rec, (size_t)total * BB) != 0) {
				done++;
				continue;
			}
			frc = fn(arg, &r, rec + (size_t)xfmt_log_rec_hdr_blocks(&r) * BB, at, &why);
			if (frc < 0) {
				rc = frc;
				break;
			}
			done += total;
		}
	}
	free(rec);
	free(chunk);
	return rc;
}

int xa_log_walk(struct xa_ctx *ctx, const struct xa_log_pos *pos, const struct xa_log_bounds *b,
		xa_log_rec_fn fn, void *arg, struct xa_log_walk *w)
{
	size_t cap = (size_t)(XLOG_MAX_RECORD_BYTES / XLOG_HEADER_CYCLE_SIZE) * BB + XLOG_MAX_RECORD_BYTES;
	uint8_t *rec = malloc(cap);
	uint32_t at = b->tail, cycle = b->tail_cycle;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	if (!rec)
		return XERR_NOMEM;
	while (at != b->head) {
		struct xfmt_log_rec r;
		uint64_t total, want = ((uint64_t)cycle << 32) | at;
		uint32_t crc, hblks;
		const char *why = NULL;

		rc = read_blocks(ctx, pos, at, 1, rec);
		if (rc)
			goto out;
		xfmt_log_rec_decode(rec, BB, &r);
		if (xfmt_log_rec_check(&r) != XLOG_REC_OK) {
			walk_stop(w, pos, b, at, cycle, true, "not a valid record header");
			break;
		}
		if (r.lsn != want || r.cycle != cycle) {
			walk_stop(w, pos, b, at, cycle, true,
				  "the record's LSN does not match its place in the log");
			break;
		}
		if (memcmp(r.fs_uuid, ctx->sb.uuid, 16) != 0) {
			walk_stop(w, pos, b, at, cycle, false, "the record belongs to another filesystem");
			break;
		}
		total = xfmt_log_rec_total_blocks(&r);
		if (total > distance(pos, at, b->head)) {
			walk_stop(w, pos, b, at, cycle, true, "the record runs past the head");
			break;
		}
		rc = read_blocks(ctx, pos, at, (uint32_t)total, rec);
		if (rc)
			goto out;
		/* A zero CRC is accepted only where recovery accepts it: on a
		 * filesystem without CRCs. */
		if ((r.crc != 0 || ctx->geom.v5) &&
		    (xfmt_log_rec_crc(rec, (size_t)total * BB, &crc) != 0 || crc != r.crc)) {
			walk_stop(w, pos, b, at, cycle, true, "record CRC mismatch");
			break;
		}
		if (xfmt_log_rec_restore(rec, (size_t)total * BB) != 0) {
			walk_stop(w, pos, b, at, cycle, true, "the cycle stamps cannot be restored");
			break;
		}
		hblks = xfmt_log_rec_hdr_blocks(&r);
		rc = fn(arg, &r, rec + (size_t)hblks * BB, at, &why);
		if (rc < 0)
			goto out;
		if (rc > 0) {
			rc = 0;
			walk_stop(w, pos, b, at, cycle, false, why ? why : "the record's payload is damaged");
			break;
		}
		w->records++;
		w->last_lsn = r.lsn;
		if ((uint64_t)at + total >= pos->nbb)
			cycle++;
		at = (uint32_t)(((uint64_t)at + total) % pos->nbb);
	}
out:
	free(rec);
	return rc;
}
