/*
 * log_clear.c - the records of a clean, empty internal log (see
 * log_clear.h), staged 1 MiB at a time into the plan.
 *
 * Why the fillers of cycle C-1: the kernel finds the head as the first block
 * whose cycle differs from block 0's and expects at most two cycles in the
 * log; leaving old records of arbitrary cycles behind the new head would
 * make that search unreliable.  Filler records are 256 KiB (the largest
 * record) on a v2 log and two sectors on a v1 log; a last sector too small
 * for a record only carries the cycle stamp, which is all head finding
 * reads (recovery never walks records behind the head of a clean log).
 */
#include "reconstruct/log_clear.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "formats/endian.h"
#include "formats/log.h"
#include "reconstruct/plan.h"

#define STAGE_BYTES (1u << 20)

/* Where the log is and how its records are shaped. */
struct logshape {
	uint64_t start;      /* filesystem byte of log block 0 */
	uint64_t nbb;        /* log size in 512-byte blocks */
	uint32_t agno, agbno;
	uint32_t version;    /* 1 or 2 */
	uint32_t sunit;      /* sb_logsunit as the records use it */
	uint32_t first_bytes;/* size of the unmount record at block 0 */
};

static int log_shape(const struct xr_env *env, struct logshape *ls)
{
	const struct xfmt_geom *g = env->g;
	const struct xfmt_sb *sb = env->sb;

	memset(ls, 0, sizeof(*ls));
	if (g->logstart == 0)
		return XERR_UNSUPPORTED;   /* external log: not in this image */
	if (!xfmt_geom_fsb_valid(g, g->logstart))
		return XERR_RANGE;
	ls->start = xfmt_geom_fsb_byte(g, g->logstart);
	ls->agno = xfmt_geom_fsb_agno(g, g->logstart);
	ls->agbno = xfmt_geom_fsb_agbno(g, g->logstart);
	ls->nbb = ((uint64_t)g->logblocks << g->blocklog) >> XFS_BB_SHIFT;
	if (ls->agbno + (uint64_t)g->logblocks > xfmt_geom_ag_length(g, ls->agno))
		return XERR_RANGE;   /* the log must lie inside its AG */
	ls->version = (env->v5 || (sb->versionnum & XFS_SB_VERSION_LOGV2BIT)) ? 2 : 1;
	ls->sunit = ls->version == 2 ? sb->logsunit : 0;
	ls->first_bytes = xfmt_log_unmount_rec_size(ls->version, ls->sunit);
	if (!ls->first_bytes)
		return XERR_UNSUPPORTED;
	if (ls->nbb < 2 * (uint64_t)(ls->first_bytes >> XFS_BB_SHIFT))
		return XERR_RANGE;
	return 0;
}

int xr_log_clear_cycle(const struct xr_env *env, uint64_t max_lsn, uint32_t *cycle)
{
	struct logshape ls;
	uint64_t max_cycle = max_lsn >> 32, max_block = max_lsn & 0xFFFFFFFFu;
	int rc;

	rc = log_shape(env, &ls);
	if (rc)
		return rc;
	*cycle = XR_LOG_INIT_CYCLE;
	if (!env->v5)
		return 0;
	/* A cycle-1 log's head is (1, first record's end); what is behind it
	 * is fine (xfs_repair's format_log_max_lsn test). */
	if (max_cycle < XR_LOG_INIT_CYCLE ||
	    (max_cycle == XR_LOG_INIT_CYCLE && max_block < (ls.first_bytes >> XFS_BB_SHIFT)))
		return 0;
	/* The kernel keeps cycles in signed 32-bit arithmetic. */
	if (max_cycle + XR_LOG_CYCLE_MARGIN > INT32_MAX)
		return XERR_RANGE;
	*cycle = (uint32_t)(max_cycle + XR_LOG_CYCLE_MARGIN);
	return 0;
}

uint64_t xr_log_clear_head_lsn(const struct xr_env *env, uint32_t cycle)
{
	struct logshape ls;

	if (log_shape(env, &ls) != 0)
		return 0;
	return ((uint64_t)cycle << 32) | (ls.first_bytes >> XFS_BB_SHIFT);
}

/* The 1 MiB staging window and where it goes. */
struct stage {
	const struct xr_env *env;
	const struct logshape *ls;
	int      action;
	uint8_t *buf;
	uint64_t base;       /* log byte of buf[0] */
	uint32_t fill;
};

static int stage_flush(struct stage *s)
{
	const struct xfmt_geom *g = s->env->g;
	uint32_t agbno;
	int rc;

	if (!s->fill)
		return 0;
	agbno = s->ls->agbno + (uint32_t)(s->base >> g->blocklog);
	rc = xr_plan_write(s->env->plan, s->action, "log", s->ls->agno, agbno, 0,
			   s->ls->start + s->base, s->buf, s->fill);
	s->base += s->fill;
	s->fill = 0;
	return rc;
}

/* Append len bytes (NULL = zeros) to the log image being staged. */
static int stage_put(struct stage *s, const uint8_t *p, uint64_t len)
{
	while (len) {
		uint32_t n = STAGE_BYTES - s->fill;
		int rc;

		if (n > len)
			n = (uint32_t)len;
		if (p) {
			memcpy(s->buf + s->fill, p, n);
			p += n;
		} else {
			memset(s->buf + s->fill, 0, n);
		}
		s->fill += n;
		len -= n;
		if (s->fill == STAGE_BYTES) {
			rc = stage_flush(s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Blocks the filler starting at log block blk takes. */
static uint64_t filler_len(const struct logshape *ls, uint64_t blk, uint64_t filler_bb)
{
	uint64_t left = ls->nbb - blk;

	return left < filler_bb ? left : filler_bb;
}

/* Is that filler a record (else a run of stamped sectors)? */
static bool filler_is_record(const struct logshape *ls, uint64_t blk, uint64_t filler_bb)
{
	uint64_t n = filler_len(ls, blk, filler_bb);

	return n >= 2 && (ls->version == 2 || n == filler_bb);
}

/* Encode one unmount record of `bytes` at log block blk and stage it. */
static int put_record(struct stage *s, uint8_t *rec, uint32_t bytes, uint32_t cycle,
		      uint64_t blk, uint64_t tail_lsn)
{
	struct xfmt_log_unmount_args a;

	memset(&a, 0, sizeof(a));
	a.cycle = cycle;
	a.block = (uint32_t)blk;
	a.tail_lsn = tail_lsn;
	a.version = s->ls->version;
	/* A filler's size is passed as its stripe unit (v2), as xfsprogs does. */
	a.sunit = s->ls->version == 2 ? bytes : 0;
	memcpy(a.fs_uuid, s->env->sb->uuid, 16);
	if (s->ls->version == 1 && bytes != xfmt_log_unmount_rec_size(1, 0))
		return XERR_USAGE;
	if (xfmt_log_unmount_rec_encode(&a, rec, bytes) != 0)
		return XERR_USAGE;
	return stage_put(s, rec, bytes);
}

int xr_log_clear_plan(const struct xr_env *env, uint32_t cycle, int action)
{
	struct logshape ls;
	struct stage s;
	uint8_t *rec = NULL;
	uint64_t blk, first_bb, filler_bb, last_rec;
	int rc;

	if (cycle == 0 || cycle > INT32_MAX)
		return XERR_USAGE;
	rc = log_shape(env, &ls);
	if (rc)
		return rc;
	/* LSN block halves are 32 bits: a 2 GiB log has 4 Mi blocks. */
	if (ls.nbb > UINT32_MAX)
		return XERR_RANGE;
	memset(&s, 0, sizeof(s));
	s.env = env;
	s.ls = &ls;
	s.action = action;
	s.buf = malloc(STAGE_BYTES);
	rec = malloc(XLOG_MAX_RECORD_BYTES);
	if (!s.buf || !rec) {
		rc = XERR_NOMEM;
		goto out;
	}

	first_bb = ls.first_bytes >> XFS_BB_SHIFT;
	filler_bb = (ls.version == 2 ? XLOG_MAX_RECORD_BYTES : xfmt_log_unmount_rec_size(1, 0)) >>
		    XFS_BB_SHIFT;
	if (cycle == XR_LOG_INIT_CYCLE) {
		/* The reset form: tail == head, the rest of the log zero. */
		uint64_t lsn = (uint64_t)cycle << 32;

		rc = put_record(&s, rec, ls.first_bytes, cycle, 0, lsn);
		if (rc == 0)
			rc = stage_put(&s, NULL, (ls.nbb - first_bb) << XFS_BB_SHIFT);
		goto flush;
	}

	/* The first record's tail points at the last filler record, as in a
	 * log that wrapped cleanly into cycle C. */
	last_rec = first_bb;
	for (blk = first_bb; blk < ls.nbb; blk += filler_len(&ls, blk, filler_bb))
		if (filler_is_record(&ls, blk, filler_bb))
			last_rec = blk;
	rc = put_record(&s, rec, ls.first_bytes, cycle, 0,
			((uint64_t)(cycle - 1) << 32) | last_rec);
	for (blk = first_bb; rc == 0 && blk < ls.nbb;) {
		uint64_t n = filler_len(&ls, blk, filler_bb);
		uint64_t lsn = ((uint64_t)(cycle - 1) << 32) | blk;

		if (!filler_is_record(&ls, blk, filler_bb)) {
			/* Too small for a record: zero sectors stamped with the
			 * old cycle, which is what head finding reads. */
			uint8_t sector[XFS_BB_SIZE];

			memset(sector, 0, sizeof(sector));
			xfmt_put_be32(sector, cycle - 1);
			for (uint64_t i = 0; rc == 0 && i < n; i++)
				rc = stage_put(&s, sector, sizeof(sector));
		} else {
			rc = put_record(&s, rec, (uint32_t)(n << XFS_BB_SHIFT), cycle - 1, blk,
					lsn);
		}
		blk += n;
	}
flush:
	if (rc == 0)
		rc = stage_flush(&s);
out:
	free(rec);
	free(s.buf);
	return rc;
}
