/*
 * log_replay.c - two-pass in-memory replay of a dirty log (see
 * log_replay.h).
 *
 * Item order inside a transaction follows recovery's reordering: ordinary
 * buffers and icreates first, then inode and other items, then inode
 * (unlinked-list) buffers, then cancel records.  The cancel table works as
 * recovery's: pass 1 counts the cancel records of each (daddr, length);
 * in pass 2 a buffer item with an entry is skipped, and each cancel record
 * met drops one count, so buffers logged after the last cancel replay.
 */
#include "analyzer/log/log_replay.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/overlay.h"
#include "analyzer/log/log_scan.h"
#include "formats/log_item.h"

#define BB 512u
#define MAX_INTENTS 65536u
#define INODE_CLUSTER_BASE 8192u

struct cancel {
	uint64_t blkno;
	uint32_t len;
	uint32_t refs;   /* 0 = empty slot */
};

struct intent {
	uint64_t id, lsn;
	uint16_t type;
	bool     done;
};

struct rp {
	struct xa_ctx           *ctx;
	const struct xa_log_pos *pos;
	int                      pass;        /* 1 or 2 */
	struct xfmt_log_asm      asm_;
	struct xa_log_replay_stats *st;
	struct ximg_overlay     *ov;
	uint64_t                 max_bytes;
	uint64_t                 fs_bytes;    /* end of the filesystem */
	struct cancel           *cancels;
	size_t                   ccap, nc;
	struct intent           *intents;
	size_t                   nintents, icap;
	uint8_t                 *buf;         /* one buffer, XLOG_MAX_BUF_BBS blocks */
	int                      err;         /* operational error seen in a callback */
	bool                     too_big;     /* the transactions held passed the bound */
	bool                     bad_reported;
};

static uint64_t replay_max(void)
{
	const char *env = getenv("XFSRECON_REPLAY_MAX");
	char *end = NULL;
	unsigned long long mib;

	if (env && *env) {
		mib = strtoull(env, &end, 10);
		if (end && *end == '\0' && mib > 0 && mib < (1ull << 40))
			return mib << 20;
	}
	return XA_LOG_REPLAY_MAX_BYTES;
}

/* ---- cancel table ---- */

static size_t cancel_slot(uint64_t blkno, uint32_t len, size_t cap)
{
	return (size_t)(((blkno * 0x9E3779B97F4A7C15ull) ^ len) >> 16) & (cap - 1);
}

static struct cancel *cancel_find(struct rp *rp, uint64_t blkno, uint32_t len)
{
	if (!rp->ccap)
		return NULL;
	for (size_t i = cancel_slot(blkno, len, rp->ccap);; i = (i + 1) & (rp->ccap - 1)) {
		struct cancel *c = &rp->cancels[i];

		if (c->refs == 0 && c->len == 0)
			return NULL;
		if (c->blkno == blkno && c->len == len)
			return c->refs ? c : NULL;
	}
}

static int cancel_add(struct rp *rp, uint64_t blkno, uint32_t len)
{
	struct cancel *c = cancel_find(rp, blkno, len);
	size_t i;

	if (c) {
		if (c->refs < UINT32_MAX)
			c->refs++;
		return 0;
	}
	if ((rp->nc + 1) * 2 > rp->ccap) {
		size_t ncap = rp->ccap ? rp->ccap * 2 : 256;
		struct cancel *n = calloc(ncap, sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		for (size_t k = 0; k < rp->ccap; k++) {
			struct cancel *o = &rp->cancels[k];

			if (!o->len)
				continue;
			for (i = cancel_slot(o->blkno, o->len, ncap); n[i].len; i = (i + 1) & (ncap - 1))
				;
			n[i] = *o;
		}
		free(rp->cancels);
		rp->cancels = n;
		rp->ccap = ncap;
	}
	/* A slot whose count fell to zero keeps its key, so probing chains
	 * stay intact; it is found again here and revived. */
	for (i = cancel_slot(blkno, len, rp->ccap); rp->cancels[i].len; i = (i + 1) & (rp->ccap - 1)) {
		if (rp->cancels[i].blkno == blkno && rp->cancels[i].len == len) {
			rp->cancels[i].refs = 1;
			return 0;
		}
	}
	rp->cancels[i] = (struct cancel){ blkno, len, 1 };
	rp->nc++;
	return 0;
}

/* Recovery's xlog_check_buffer_cancelled: skip while cancel records for
 * this buffer lie ahead; a cancel record itself uses one up. */
static bool cancelled(struct rp *rp, uint64_t blkno, uint32_t len, bool is_cancel)
{
	struct cancel *c = cancel_find(rp, blkno, len);

	if (!c)
		return false;
	if (is_cancel)
		c->refs--;
	return true;
}

/* ---- findings ---- */

static void report(struct rp *rp, enum xprob_code code, const char *field, uint64_t expected,
		   uint64_t observed, unsigned has, uint64_t off)
{
	struct xa_loc loc = { XPROB_HAS_BYTE, 0, 0, 0, rp->pos->start, "log" };
	struct xprob p = { .code = code, .has = has, .field = field, .expected = expected,
			   .observed = observed, .off = off };

	xa_findings_add(&rp->ctx->findings, &p, &loc);
}

static void bad_item(struct rp *rp, uint16_t type, uint64_t lsn)
{
	rp->st->bad++;
	/* One finding per kind of item is enough to point at the damage. */
	if (!rp->bad_reported)
		report(rp, XP_logItemBad, xfmt_log_item_name(type), 0, lsn, XPROB_HAS_OBSERVED, 0);
	rp->bad_reported = true;
}

/* ---- buffers through the overlay ---- */

static bool range_ok(struct rp *rp, uint64_t daddr, uint32_t bbs)
{
	return bbs && bbs <= XLOG_MAX_BUF_BBS && daddr < rp->fs_bytes / BB &&
	       bbs <= rp->fs_bytes / BB - daddr;
}

static int buf_read(struct rp *rp, uint64_t daddr, uint32_t bbs)
{
	return ximg_overlay_read(rp->ov, xa_base_image(rp->ctx), daddr * BB, rp->buf, (size_t)bbs * BB);
}

static int buf_write(struct rp *rp, uint64_t daddr, uint32_t bbs)
{
	return ximg_overlay_write(rp->ov, daddr * BB, rp->buf, (size_t)bbs * BB);
}

/* ---- pass 2: the items ---- */

static int replay_buf(struct rp *rp, const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_log_buf b;
	uint64_t lsn;
	int rc;

	if (xfmt_log_buf_decode(it, t->big, &b) != 0 || !range_ok(rp, b.blkno, b.len)) {
		bad_item(rp, XFS_LI_BUF, t->lsn);
		return 0;
	}
	if (cancelled(rp, b.blkno, b.len, (b.flags & XFS_BLF_CANCEL) != 0)) {
		rp->st->bufs_cancelled++;
		return 0;
	}
	if (b.flags & (XFS_BLF_UDQUOT_BUF | XFS_BLF_PDQUOT_BUF | XFS_BLF_GDQUOT_BUF)) {
		rp->st->quota++;
		return 0;
	}
	rc = buf_read(rp, b.blkno, b.len);
	if (rc)
		return rc;
	if (g->v5 && xfmt_log_buf_lsn(rp->buf, (size_t)b.len * BB, g->meta_uuid, &lsn) && lsn &&
	    lsn != UINT64_MAX && lsn >= t->lsn) {
		rp->st->bufs_newer++;
		return 0;
	}
	if (b.flags & XFS_BLF_INODE_BUF) {
		if (xfmt_log_inode_buf_apply(it, &b, rp->buf, (size_t)b.len * BB, g->inodesize, g->v5) < 0) {
			bad_item(rp, XFS_LI_BUF, t->lsn);
			return 0;
		}
		rp->st->inode_bufs++;
	} else {
		if (xfmt_log_buf_apply(it, &b, rp->buf, (size_t)b.len * BB) != 0) {
			bad_item(rp, XFS_LI_BUF, t->lsn);
			return 0;
		}
		if (g->v5)
			xfmt_log_buf_seal(rp->buf, (size_t)b.len * BB, t->lsn, g->blocksize);
		rp->st->bufs++;
	}
	return buf_write(rp, b.blkno, b.len);
}

static int replay_inode(struct rp *rp, const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_log_inode in;
	enum xfmt_log_inode_skip r;
	int rc;

	if (xfmt_log_inode_decode(it, t->big, &in) != 0 || !range_ok(rp, in.blkno, in.len) ||
	    (uint64_t)in.boffset + g->inodesize > (uint64_t)in.len * BB) {
		bad_item(rp, XFS_LI_INODE, t->lsn);
		return 0;
	}
	if (cancelled(rp, in.blkno, in.len, false)) {
		rp->st->inodes_skipped++;
		return 0;
	}
	rc = buf_read(rp, in.blkno, in.len);
	if (rc)
		return rc;
	r = xfmt_log_inode_apply(it, &in, t->big, rp->buf + in.boffset, g->inodesize, g->v5, t->lsn);
	if (r == XLOG_INODE_BAD) {
		bad_item(rp, XFS_LI_INODE, t->lsn);
		return 0;
	}
	if (r != XLOG_INODE_REPLAYED) {
		rp->st->inodes_skipped++;
		return 0;
	}
	rp->st->inodes++;
	return buf_write(rp, in.blkno, in.len);
}

/* Blocks per inode cluster buffer, as the kernel sizes them. */
static uint32_t cluster_blocks(const struct xfmt_geom *g)
{
	uint32_t size = INODE_CLUSTER_BASE;

	if (g->v5) {
		uint32_t big = size * (g->inodesize / 256u);

		if (g->inoalignmt >= (big >> g->blocklog))
			size = big;
	}
	return g->blocksize >= size ? 1 : size >> g->blocklog;
}

static int replay_icreate(struct rp *rp, const struct xfmt_log_trans *t,
			  const struct xfmt_log_titem *it)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	struct xfmt_log_icreate ic;
	uint32_t bpc = cluster_blocks(g), chunk = xfmt_geom_chunk_blocks(g), nbufs, ncancel = 0;
	uint32_t minblks = xfmt_geom_has_sparse_inodes(g) && g->spino_align ? g->spino_align : chunk;
	uint32_t bbs = (bpc << g->blocklog) / BB;

	if (xfmt_log_icreate_decode(it, t->big, &ic) != 0 || ic.agno >= g->agcount || !ic.agbno ||
	    ic.agbno >= g->agblocks || ic.isize != g->inodesize || !ic.count || !ic.length ||
	    ic.length >= g->agblocks || (ic.length != chunk && ic.length != minblks) ||
	    (ic.count >> g->inopblog) != ic.length || ic.length % bpc ||
	    (uint64_t)ic.agbno + ic.length > g->agblocks || bbs > XLOG_MAX_BUF_BBS) {
		bad_item(rp, XFS_LI_ICREATE, t->lsn);
		return 0;
	}
	nbufs = ic.length / bpc;
	for (uint32_t i = 0; i < nbufs; i++)
		if (cancelled(rp, xfmt_geom_agbno_daddr(g, ic.agno, ic.agbno + i * bpc), bbs, false))
			ncancel++;
	if (ncancel)
		return 0;
	for (uint32_t i = 0; i < nbufs; i++) {
		uint32_t agbno = ic.agbno + i * bpc;
		uint64_t daddr = xfmt_geom_agbno_daddr(g, ic.agno, agbno);
		uint64_t ino = xfmt_geom_ino(g, ic.agno, agbno << g->inopblog);
		int rc;

		if (!range_ok(rp, daddr, bbs) ||
		    xfmt_log_icreate_init(rp->buf, (size_t)bbs * BB, g->inodesize, g->v5 ? 3 : 2, ino,
					  ic.gen, g->meta_uuid) != 0) {
			bad_item(rp, XFS_LI_ICREATE, t->lsn);
			return 0;
		}
		rc = buf_write(rp, daddr, bbs);
		if (rc)
			return rc;
	}
	rp->st->icreates++;
	return 0;
}

/* Recovery's order: 0 ordinary buffers and icreates, 1 other items,
 * 2 inode buffers, 3 cancel records. */
static int item_rank(const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	struct xfmt_log_buf b;

	if (it->type == XFS_LI_ICREATE)
		return 0;
	if (it->type != XFS_LI_BUF)
		return 1;
	if (xfmt_log_buf_decode(it, t->big, &b) != 0)
		return 0;
	if (b.flags & XFS_BLF_CANCEL)
		return 3;
	return (b.flags & XFS_BLF_INODE_BUF) ? 2 : 0;
}

static int apply_item(struct rp *rp, const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	switch (it->type) {
	case XFS_LI_BUF:
		return replay_buf(rp, t, it);
	case XFS_LI_INODE:
		return replay_inode(rp, t, it);
	case XFS_LI_ICREATE:
		return replay_icreate(rp, t, it);
	}
	return 0;
}

/* ---- pass 1: cancels, intents, counts ---- */

static int note_intent(struct rp *rp, const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	struct xfmt_log_intent in;

	if (xfmt_log_intent_decode(it, t->big, &in) != 0) {
		bad_item(rp, it->type, t->lsn);
		return 0;
	}
	if (in.done) {
		rp->st->dones++;
		for (size_t i = 0; i < rp->nintents; i++) {
			struct intent *x = &rp->intents[i];

			if (!x->done && x->type == in.intent && x->id == in.id) {
				x->done = true;
				break;
			}
		}
		return 0;
	}
	rp->st->intents++;
	if (rp->nintents >= MAX_INTENTS)
		return 0;
	if (rp->nintents == rp->icap) {
		size_t ncap = rp->icap ? rp->icap * 2 : 64;
		struct intent *n = realloc(rp->intents, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		rp->intents = n;
		rp->icap = ncap;
	}
	rp->intents[rp->nintents++] = (struct intent){ in.id, t->lsn, in.intent, false };
	return 0;
}

static int pass1_item(struct rp *rp, const struct xfmt_log_trans *t, const struct xfmt_log_titem *it)
{
	struct xfmt_log_buf b;

	switch (it->type) {
	case XFS_LI_BUF:
		if (xfmt_log_buf_decode(it, t->big, &b) == 0 && (b.flags & XFS_BLF_CANCEL))
			return cancel_add(rp, b.blkno, b.len);
		return 0;
	case XFS_LI_DQUOT:
	case XFS_LI_QUOTAOFF:
		rp->st->quota++;
		return 0;
	case XFS_LI_INODE:
	case XFS_LI_ICREATE:
		return 0;
	}
	return note_intent(rp, t, it);
}

static int on_commit(void *arg, const struct xfmt_log_trans *t)
{
	struct rp *rp = arg;
	int rc = 0;

	if (rp->pass == 1) {
		rp->st->transactions++;
		for (size_t i = 0; i < t->nitems && !rc; i++) {
			if (!t->items[i].nregions)
				continue;
			rp->st->items++;
			rc = pass1_item(rp, t, &t->items[i]);
		}
	} else {
		for (int rank = 0; rank < 4 && !rc; rank++)
			for (size_t i = 0; i < t->nitems && !rc; i++)
				if (t->items[i].nregions && item_rank(t, &t->items[i]) == rank)
					rc = apply_item(rp, t, &t->items[i]);
	}
	if (rc)
		rp->err = rc;
	return rc;
}

static int on_record(void *arg, const struct xfmt_log_rec *r, const uint8_t *payload,
		     uint32_t block, const char **why)
{
	struct rp *rp = arg;
	enum xfmt_log_asm_err e;

	(void)block;
	e = xfmt_log_asm_record(&rp->asm_, payload, r->len, r->num_logops, r->lsn,
				xfmt_log_fmt_big(r->fmt), NULL);
	if (e == XLOG_ASM_OK)
		return 0;
	if (e == XLOG_ASM_CALLBACK && rp->err)
		return rp->err;
	if (e == XLOG_ASM_NOMEM)
		return XERR_NOMEM;
	if (e == XLOG_ASM_TOO_BIG) {
		rp->too_big = true;
		return XERR_NOMEM;
	}
	*why = xfmt_log_asm_strerror(e);
	return 1;
}

static int run_pass(struct rp *rp, int pass, const struct xa_log_bounds *b, struct xa_log_walk *w)
{
	int rc;

	rp->pass = pass;
	rp->err = 0;
	xfmt_log_asm_init(&rp->asm_, rp->max_bytes, on_commit, rp);
	rc = xa_log_walk(rp->ctx, rp->pos, b, on_record, rp, w);
	xfmt_log_asm_release(&rp->asm_);
	return rc;
}

/* Where the walk ended early: located at the bad record's image byte, its
 * LSN in off; a damaged log also says how many transactions were kept. */
static void report_walk(struct rp *rp, const struct xa_log_walk *w)
{
	struct xa_loc loc = { XPROB_HAS_BYTE, 0, 0, 0,
			      rp->pos->start + (uint64_t)w->bad_block * BB, "log" };
	struct xprob p = { .field = w->why, .observed = w->lost_blocks, .off = w->stop_lsn,
			   .has = XPROB_HAS_OBSERVED | XPROB_HAS_OFF };

	if (w->end == XA_LOG_WALK_DONE)
		return;
	if (w->end == XA_LOG_WALK_TORN) {
		p.code = XP_logTornHead;
	} else {
		p.code = XP_logDamaged;
		p.expected = rp->st->transactions;
		p.has |= XPROB_HAS_EXPECTED;
	}
	xa_findings_add(&rp->ctx->findings, &p, &loc);
}

int xa_log_replay(struct xa_ctx *ctx, const struct xa_log_pos *pos, const struct xa_log_bounds *b,
		  bool apply, struct ximg_overlay **out, struct xa_log_walk *walk,
		  struct xa_log_replay_stats *st)
{
	struct rp rp;
	int rc;

	memset(&rp, 0, sizeof(rp));
	memset(st, 0, sizeof(*st));
	*out = NULL;
	rp.ctx = ctx;
	rp.pos = pos;
	rp.st = st;
	rp.max_bytes = replay_max();
	rp.fs_bytes = ctx->geom.dblocks << ctx->geom.blocklog;
	if (rp.fs_bytes > xa_base_image(ctx)->size)
		rp.fs_bytes = xa_base_image(ctx)->size & ~(uint64_t)(BB - 1);

	rc = run_pass(&rp, 1, b, walk);
	if (rc == XERR_NOMEM && rp.too_big) {
		report(&rp, XP_logReplayTooBig, "XFSRECON_REPLAY_MAX", rp.max_bytes, 0,
		       XPROB_HAS_EXPECTED, 0);
		rc = 0;
		apply = false;
	}
	if (rc)
		goto out;
	report_walk(&rp, walk);
	for (size_t i = 0; i < rp.nintents; i++) {
		if (rp.intents[i].done)
			continue;
		st->intents_pending++;
		report(&rp, XP_logIntentPending, xfmt_log_item_name(rp.intents[i].type),
		       rp.intents[i].lsn, rp.intents[i].id, XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED, 0);
	}
	if (st->quota)
		report(&rp, XP_logItemNotReplayed, "quota", 0, st->quota, XPROB_HAS_OBSERVED, 0);
	if (!apply)
		goto out;

	rp.buf = malloc((size_t)XLOG_MAX_BUF_BBS * BB);
	rc = rp.buf ? ximg_overlay_new(rp.max_bytes, &rp.ov) : XERR_NOMEM;
	if (rc)
		goto out;
	{
		/* Pass 2 ends where pass 1 did: the same records, read again. */
		struct xa_log_walk w2;

		rc = run_pass(&rp, 2, b, &w2);
	}
	if (rc == XERR_NOMEM &&
	    (rp.too_big || ximg_overlay_bytes(rp.ov) + (uint64_t)XLOG_MAX_BUF_BBS * BB >= rp.max_bytes)) {
		report(&rp, XP_logReplayTooBig, "XFSRECON_REPLAY_MAX", rp.max_bytes, 0,
		       XPROB_HAS_EXPECTED, 0);
		ximg_overlay_free(&rp.ov);
		rc = 0;
	}
	if (rc)
		goto out;
	if (rp.ov && ximg_overlay_bytes(rp.ov)) {
		st->bytes = ximg_overlay_bytes(rp.ov);
		*out = rp.ov;
		rp.ov = NULL;
	}
out:
	ximg_overlay_free(&rp.ov);
	free(rp.buf);
	free(rp.cancels);
	free(rp.intents);
	return rc;
}

struct each {
	xfmt_log_commit_fn fn;
	void *arg;
	struct xfmt_log_asm asm_;
	int err;
};

static int each_commit(void *arg, const struct xfmt_log_trans *t)
{
	struct each *e = arg;
	int rc = e->fn(e->arg, t);

	if (rc)
		e->err = rc;
	return rc;
}

static int each_record(void *arg, const struct xfmt_log_rec *r, const uint8_t *payload,
		       uint32_t block, const char **why)
{
	struct each *e = arg;
	enum xfmt_log_asm_err err;

	(void)block;
	err = xfmt_log_asm_record(&e->asm_, payload, r->len, r->num_logops, r->lsn,
				  xfmt_log_fmt_big(r->fmt), NULL);
	if (err == XLOG_ASM_OK)
		return 0;
	if (err == XLOG_ASM_CALLBACK)
		return e->err < 0 ? e->err : XERR_IO;
	if (err == XLOG_ASM_NOMEM)
		return XERR_NOMEM;
	*why = xfmt_log_asm_strerror(err);
	return 1;
}

int xa_log_each_trans(struct xa_ctx *ctx, const struct xa_log_pos *pos,
		      const struct xa_log_bounds *b, xfmt_log_commit_fn fn, void *arg,
		      struct xa_log_walk *walk)
{
	struct each e = { fn, arg, { 0 }, 0 };
	int rc;

	xfmt_log_asm_init(&e.asm_, replay_max(), each_commit, &e);
	rc = xa_log_walk(ctx, pos, b, each_record, &e, walk);
	xfmt_log_asm_release(&e.asm_);
	return rc;
}
