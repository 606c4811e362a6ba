/*
 * log_stale.c - old copies of inodes anywhere in the log region (see
 * log_stale.h).
 *
 * Why the assembler is reset when it refuses a record: the sweep starts in
 * the middle of history, so the first records continue transactions whose
 * start was overwritten, and transactions whose commit was overwritten
 * stay open; neither may stop what follows from being read.
 */
#include "analyzer/log/log_stale.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/log/log_replay.h"
#include "analyzer/log/log_scan.h"
#include "formats/dinode_enc.h"
#include "formats/geom.h"
#include "formats/log.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"

/*
 * An index from a 64-bit key (an inode number, a daddr) to a slot of the
 * caller's array: open addressing, index + 1 in slot (0 = empty), the keys
 * kept beside it so the caller's array can be of any type.
 */
struct keyidx {
	uint64_t *keys;    /* keys[i] is the key of the caller's element i */
	size_t    n, cap;
	uint32_t *slot;
	size_t    nslot;   /* a power of two, at least twice n */
};

struct sweep {
	struct xa_ctx      *ctx;
	struct xa_stale     st;
	struct keyidx       ino_idx, buf_idx;
	uint64_t            bytes, max_bytes;  /* what the copies hold, and may */
	struct xfmt_log_asm asm_;
	int                 err;
};

static size_t hash_key(uint64_t k, size_t nslot)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (nslot - 1);
}

static int grow_slots(struct keyidx *x)
{
	size_t nslot = x->nslot ? x->nslot * 2 : 1024;
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return XERR_NOMEM;
	for (size_t i = 0; i < x->n; i++) {
		size_t h = hash_key(x->keys[i], nslot);

		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = (uint32_t)(i + 1);
	}
	free(x->slot);
	x->slot = slot;
	x->nslot = nslot;
	return 0;
}

/* The index of key, or SIZE_MAX when absent. */
static size_t idx_find(const struct keyidx *x, uint64_t key)
{
	if (!x->nslot)
		return SIZE_MAX;
	for (size_t h = hash_key(key, x->nslot); x->slot[h]; h = (h + 1) & (x->nslot - 1))
		if (x->keys[x->slot[h] - 1] == key)
			return x->slot[h] - 1;
	return SIZE_MAX;
}

/*
 * Add key as element x->n, growing the caller's array *v (elements of
 * size esz) beside the keys.  The new element is zeroed.  Returns its
 * index, or SIZE_MAX out of memory.
 */
static size_t idx_add(struct keyidx *x, void **v, size_t esz, uint64_t key)
{
	size_t h;

	if (x->n + 1 >= UINT32_MAX)
		return SIZE_MAX;
	if ((x->n + 1) * 2 > x->nslot && grow_slots(x) != 0)
		return SIZE_MAX;
	if (x->n == x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 256;
		uint64_t *nk = realloc(x->keys, ncap * sizeof(*nk));
		void *nv;

		if (!nk)
			return SIZE_MAX;
		x->keys = nk;
		nv = realloc(*v, ncap * esz);
		if (!nv)
			return SIZE_MAX;
		*v = nv;
		x->cap = ncap;
	}
	memset((uint8_t *)*v + x->n * esz, 0, esz);
	x->keys[x->n] = key;
	for (h = hash_key(key, x->nslot); x->slot[h]; h = (h + 1) & (x->nslot - 1))
		;
	x->slot[h] = (uint32_t)(++x->n);
	return x->n - 1;
}

static void idx_release(struct keyidx *x)
{
	free(x->keys);
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

/* The copy of ino, made when new; NULL past the bound (or out of memory,
 * with s->err set). */
static struct xa_stale_inode *inode_copy(struct sweep *s, uint64_t ino)
{
	uint32_t isz = s->ctx->geom.inodesize;
	size_t i = idx_find(&s->ino_idx, ino);
	struct xa_stale_inode *si;

	if (i != SIZE_MAX)
		return &s->st.inodes[i];
	if (s->bytes + isz > s->max_bytes)
		return NULL;
	i = idx_add(&s->ino_idx, (void **)&s->st.inodes, sizeof(*s->st.inodes), ino);
	if (i == SIZE_MAX) {
		s->err = XERR_NOMEM;
		return NULL;
	}
	s->st.ninodes = s->ino_idx.n;
	si = &s->st.inodes[i];
	si->ino = ino;
	si->dip = malloc(isz);
	if (!si->dip) {
		s->err = XERR_NOMEM;
		return NULL;
	}
	s->bytes += isz;
	xfmt_dinode_free_encode(si->dip, &s->ctx->geom, ino, 0, 0);
	return si;
}

/*
 * A buffer item: directory data and block-form blocks are what the copies
 * serve, so only buffers of the directory block size whose type is one of
 * those (or unset, as older kernels leave it) are kept.
 */
static void on_buf(struct sweep *s, const struct xfmt_log_titem *it, bool big, uint64_t lsn)
{
	uint32_t dbs = s->ctx->geom.dirblksize;
	struct xfmt_log_buf b;
	struct xa_stale_buf *sb;
	size_t i;

	if (xfmt_log_buf_decode(it, big, &b) != 0 || (b.flags & XFS_BLF_INODE_BUF) ||
	    (uint32_t)b.len * 512u != dbs ||
	    (b.blft != XFS_BLFT_UNKNOWN_BUF && b.blft != XFS_BLFT_DIR_BLOCK_BUF &&
	     b.blft != XFS_BLFT_DIR_DATA_BUF))
		return;
	i = idx_find(&s->buf_idx, b.blkno);
	if (b.flags & XFS_BLF_CANCEL) {
		/* freed: what the copy held is no longer the block's */
		if (i != SIZE_MAX && s->st.bufs[i].data) {
			free(s->st.bufs[i].data);
			s->st.bufs[i].data = NULL;
			s->bytes -= dbs;
		}
		return;
	}
	if (i == SIZE_MAX) {
		if (s->bytes + dbs > s->max_bytes)
			return;
		i = idx_add(&s->buf_idx, (void **)&s->st.bufs, sizeof(*s->st.bufs), b.blkno);
		if (i == SIZE_MAX) {
			s->err = XERR_NOMEM;
			return;
		}
		s->st.nbufs = s->buf_idx.n;
		s->st.bufs[i].daddr = b.blkno;
		s->st.bufs[i].len = dbs;
	}
	sb = &s->st.bufs[i];
	if (!sb->data) {
		if (s->bytes + dbs > s->max_bytes)
			return;
		sb->data = calloc(1, dbs);
		if (!sb->data) {
			s->err = XERR_NOMEM;
			return;
		}
		s->bytes += dbs;
	}
	if (xfmt_log_buf_apply(it, &b, sb->data, dbs) == 0)
		sb->lsn = lsn;
}

/* After an item: is the inode now a file with data?  Then this state is
 * the one an undelete wants (the unlink's truncation comes later). */
static void keep_live(struct sweep *s, struct xa_stale_inode *si, uint64_t lsn)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dinode d;

	if (xfmt_dinode_decode(si->dip, g->inodesize, g, &d) != 0 || d.mode == 0 ||
	    d.size == 0 || (d.format == XFS_DINODE_FMT_EXTENTS && d.nextents == 0) ||
	    (d.format != XFS_DINODE_FMT_EXTENTS && d.format != XFS_DINODE_FMT_BTREE))
		return;
	if (!si->live) {
		if (s->bytes + g->inodesize > s->max_bytes)
			return;
		si->live = malloc(g->inodesize);
		if (!si->live) {
			s->err = XERR_NOMEM;
			return;
		}
		s->bytes += g->inodesize;
	}
	memcpy(si->live, si->dip, g->inodesize);
	si->live_lsn = lsn;
}

static int on_commit(void *arg, const struct xfmt_log_trans *t)
{
	struct sweep *s = arg;
	const struct xfmt_geom *g = &s->ctx->geom;

	for (size_t i = 0; i < t->nitems; i++) {
		const struct xfmt_log_titem *it = &t->items[i];
		struct xfmt_log_inode in;
		struct xa_stale_inode *si;

		if (it->type == XFS_LI_BUF) {
			on_buf(s, it, t->big, t->commit_lsn);
			if (s->err)
				return 1;
			continue;
		}
		if (it->type != XFS_LI_INODE || xfmt_log_inode_decode(it, t->big, &in) != 0 ||
		    !(in.fields & XFS_ILOG_CORE) || !xfmt_geom_ino_valid(g, in.ino))
			continue;
		si = inode_copy(s, in.ino);
		if (!si) {
			if (s->err)
				return 1;
			continue;
		}
		if (xfmt_log_inode_apply(it, &in, t->big, si->dip, g->inodesize, g->v5,
					 t->commit_lsn) == XLOG_INODE_REPLAYED) {
			si->lsn = t->commit_lsn;
			si->fields |= in.fields;
			keep_live(s, si, t->commit_lsn);
			if (s->err)
				return 1;
		}
	}
	return 0;
}

static int on_record(void *arg, const struct xfmt_log_rec *r, const uint8_t *payload,
		     uint32_t block, const char **why)
{
	struct sweep *s = arg;
	enum xfmt_log_asm_err e;

	(void)block;
	(void)why;
	e = xfmt_log_asm_record(&s->asm_, payload, r->len, r->num_logops, r->lsn,
				xfmt_log_fmt_big(r->fmt), NULL);
	if (e == XLOG_ASM_OK)
		return 0;
	if (s->err)
		return s->err;
	if (e == XLOG_ASM_NOMEM)
		return XERR_NOMEM;
	xfmt_log_asm_release(&s->asm_);
	xfmt_log_asm_init(&s->asm_, XA_LOG_REPLAY_MAX_BYTES, on_commit, s);
	return 1;
}

static int cmp_ino(const void *x, const void *y)
{
	const struct xa_stale_inode *a = x, *b = y;

	return (a->ino > b->ino) - (a->ino < b->ino);
}

static int cmp_daddr(const void *x, const void *y)
{
	const struct xa_stale_buf *a = x, *b = y;

	return (a->daddr > b->daddr) - (a->daddr < b->daddr);
}

int xa_log_stale_collect(struct xa_ctx *ctx, struct xa_stale *out)
{
	uint64_t bound = XA_LOG_STALE_MAX_BYTES;
	const char *env = getenv("XFSRECON_STALE_MAX");
	struct xa_log_pos pos;
	struct sweep s;
	int rc;

	memset(out, 0, sizeof(*out));
	if (xa_log_locate(ctx, &pos) != 0)
		return 0;
	if (env && *env) {
		char *end;
		unsigned long long mb = strtoull(env, &end, 10);

		if (*end == '\0' && mb > 0 && mb < (1ull << 20))
			bound = (uint64_t)mb << 20;
	}
	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.max_bytes = bound;
	xfmt_log_asm_init(&s.asm_, XA_LOG_REPLAY_MAX_BYTES, on_commit, &s);
	rc = xa_log_sweep(ctx, &pos, ctx->log.bounds.found ? ctx->log.bounds.head : 0, on_record, &s);
	xfmt_log_asm_release(&s.asm_);
	idx_release(&s.ino_idx);
	idx_release(&s.buf_idx);
	if (!rc)
		rc = s.err;
	if (rc) {
		xa_stale_release(&s.st);
		return rc;
	}
	if (s.st.ninodes > 1)
		qsort(s.st.inodes, s.st.ninodes, sizeof(*s.st.inodes), cmp_ino);
	if (s.st.nbufs > 1)
		qsort(s.st.bufs, s.st.nbufs, sizeof(*s.st.bufs), cmp_daddr);
	*out = s.st;
	return 0;
}

/* The index of the element of v (n sorted elements of size esz whose
 * 64-bit key is at byte keyoff) whose key is key, or n. */
static size_t find_key(const void *v, size_t n, size_t esz, size_t keyoff, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const uint8_t *)v + mid * esz + keyoff, sizeof(k));
		if (k == key)
			return mid;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

const struct xa_stale_inode *xa_stale_find(const struct xa_stale *st, uint64_t ino)
{
	size_t i = find_key(st->inodes, st->ninodes, sizeof(*st->inodes),
			    offsetof(struct xa_stale_inode, ino), ino);

	return i < st->ninodes && st->inodes[i].dip ? &st->inodes[i] : NULL;
}

const struct xa_stale_buf *xa_stale_buf_find(const struct xa_stale *st, uint64_t daddr)
{
	size_t i = find_key(st->bufs, st->nbufs, sizeof(*st->bufs),
			    offsetof(struct xa_stale_buf, daddr), daddr);

	return i < st->nbufs && st->bufs[i].data ? &st->bufs[i] : NULL;
}

void xa_stale_release(struct xa_stale *st)
{
	for (size_t i = 0; i < st->ninodes; i++) {
		free(st->inodes[i].dip);
		free(st->inodes[i].live);
	}
	for (size_t i = 0; i < st->nbufs; i++)
		free(st->bufs[i].data);
	free(st->inodes);
	free(st->bufs);
	memset(st, 0, sizeof(*st));
}
