/*
 * log_events.c - transactions turned into file-level events (log_events.h).
 *
 * Shadows: one copy per inode and per directory buffer a transaction
 * touched, kept in an open-addressing table keyed by inode number or daddr
 * (the two key spaces are told apart by a high bit).  Each transaction
 * gathers its name changes and core changes first, then pairs them into
 * events, so the order of items inside a transaction does not matter.
 */
#include "analyzer/log/log_events.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/log/log_replay.h"
#include "analyzer/log/log_scan.h"
#include "analyzer/model/grow.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/btree.h"
#include "formats/dir2.h"
#include "formats/endian.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"

#define KEY_BUF (1ull << 63)

struct shadow {
	uint64_t key;     /* ino, or daddr | KEY_BUF; 0 = empty slot (+1 stored) */
	uint8_t *data;
	uint32_t len;
};

/* A name that joined or left a directory in the current transaction. */
struct nm {
	uint64_t dir, ino;
	uint8_t  namelen;
	uint8_t  name[256];
	bool     used;
};

/* An inode core before and after the current transaction. */
struct core {
	uint64_t ino;
	struct xfmt_dinode before, after;
	uint32_t fields;  /* XFS_ILOG_* logged */
	bool     used_create, used_free;
	bool     dfork_changed;  /* the data fork's bytes differ (a remap keeps counts) */
	size_t   slot;    /* its slot in the index */
};

struct ev_state {
	struct xa_ctx *ctx;
	xa_event_fn    fn;
	void          *arg;
	struct shadow *tab;
	size_t         cap, used;
	uint64_t       bytes;
	struct nm     *added, *removed;
	size_t         nadd, naddcap, nrem, nremcap;
	struct core   *cores;
	size_t         ncores, ncorecap;
	size_t        *cidx;      /* index of cores by inode */
	size_t         cidx_cap;
	int            rc;
};

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

/* The shadow of key, read from the image as it is on disk when new. */
static struct shadow *shadow_get(struct ev_state *s, uint64_t key, uint64_t byte, uint32_t len)
{
	size_t i;

	if ((s->used + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		struct shadow *n = calloc(ncap, sizeof(*n));

		if (!n) {
			s->rc = XERR_NOMEM;
			return NULL;
		}
		for (size_t k = 0; k < s->cap; k++) {
			if (!s->tab[k].key)
				continue;
			i = slot_of(s->tab[k].key, ncap);
			while (n[i].key)
				i = (i + 1) & (ncap - 1);
			n[i] = s->tab[k];
		}
		free(s->tab);
		s->tab = n;
		s->cap = ncap;
	}
	i = slot_of(key + 1, s->cap);
	while (s->tab[i].key && s->tab[i].key != key + 1)
		i = (i + 1) & (s->cap - 1);
	if (s->tab[i].key)
		return s->tab[i].len == len ? &s->tab[i] : NULL;
	if (s->bytes + len > XA_LOG_REPLAY_MAX_BYTES)
		return NULL;
	s->tab[i].data = calloc(1, len);
	if (!s->tab[i].data) {
		s->rc = XERR_NOMEM;
		return NULL;
	}
	/* What is on disk before any replay; unreadable reads as zeros. */
	(void)ximg_pread(xa_base_image(s->ctx), s->tab[i].data, len, byte);
	s->tab[i].key = key + 1;
	s->tab[i].len = len;
	s->bytes += len;
	s->used++;
	return &s->tab[i];
}

static void add_name(struct ev_state *s, bool added, uint64_t dir, const struct xfmt_dirent *e)
{
	struct nm **v = added ? &s->added : &s->removed;
	size_t *n = added ? &s->nadd : &s->nrem, *cap = added ? &s->naddcap : &s->nremcap;

	if ((e->namelen == 1 && e->name[0] == '.') ||
	    (e->namelen == 2 && e->name[0] == '.' && e->name[1] == '.'))
		return;
	if (xa_grow((void **)v, cap, *n + 1, sizeof(**v))) {
		s->rc = XERR_NOMEM;
		return;
	}
	(*v)[*n].dir = dir;
	(*v)[*n].ino = e->ino;
	(*v)[*n].namelen = e->namelen;
	memcpy((*v)[*n].name, e->name, e->namelen);
	(*v)[*n].used = false;
	(*n)++;
}

/* Entries of a directory state: short-form fork or data/block block. */
struct ents {
	struct xfmt_dirent *v;
	size_t n, cap;
};

static void ents_add(struct ev_state *s, struct ents *es, const struct xfmt_dirent *e)
{
	if (xa_grow((void **)&es->v, &es->cap, es->n + 1, sizeof(*es->v)))
		s->rc = XERR_NOMEM;
	else
		es->v[es->n++] = *e;
}

static int cmp_ent(const void *x, const void *y)
{
	const struct xfmt_dirent *a = x, *b = y;
	size_t n = a->namelen < b->namelen ? a->namelen : b->namelen;
	int c;

	if (a->ino != b->ino)
		return (a->ino > b->ino) - (a->ino < b->ino);
	c = memcmp(a->name, b->name, n);
	return c ? c : (int)a->namelen - (int)b->namelen;
}

/* before/after name sets of one directory -> removed/added names: both
 * sorted, then merged (a block holds thousands of names: no pairwise
 * search). */
static void diff_names(struct ev_state *s, uint64_t dir, struct ents *b, struct ents *a)
{
	size_t i = 0, j = 0;

	if (b->n > 1)
		qsort(b->v, b->n, sizeof(*b->v), cmp_ent);
	if (a->n > 1)
		qsort(a->v, a->n, sizeof(*a->v), cmp_ent);
	while (i < b->n || j < a->n) {
		int c = i == b->n ? 1 : j == a->n ? -1 : cmp_ent(&b->v[i], &a->v[j]);

		if (c < 0)
			add_name(s, false, dir, &b->v[i++]);
		else if (c > 0)
			add_name(s, true, dir, &a->v[j++]);
		else
			i++, j++;
	}
}

static void sf_ents(struct ev_state *s, const uint8_t *dip, const struct xfmt_dinode *d,
		    struct ents *out)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	size_t fsz = 0, pos = 0;
	const uint8_t *fork;
	struct xfmt_dirent e;

	if ((d->mode & 0170000u) != 0040000u || d->format != XFS_DINODE_FMT_LOCAL)
		return;
	fork = xfmt_dinode_fork(dip, d, 0, &fsz);
	if (!fork || d->size > fsz)
		return;
	for (unsigned k = 0; k < 256 && xfmt_dir2_sf_next(fork, (size_t)d->size, g, &pos, &e) == 1; k++)
		ents_add(s, out, &e);
}

/* Entries of a directory data/block block and the owner its header names
 * (v5); 0 when it is no such block. */
static uint64_t blk_ents(struct ev_state *s, const uint8_t *blk, uint32_t len, struct ents *out)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dir2_data_hdr h;
	struct xfmt_dirent e;
	size_t pos = 0;
	bool block_form;

	if (!g->v5 || xfmt_dir2_data_hdr_decode(blk, len, true, &h) != 0 ||
	    (h.magic != XFS_DIR3_BLOCK_MAGIC && h.magic != XFS_DIR3_DATA_MAGIC) || !h.owner)
		return 0;
	block_form = h.magic == XFS_DIR3_BLOCK_MAGIC;
	for (unsigned k = 0; k < 65536 && xfmt_dir2_data_next(blk, len, g, block_form, &pos, &e) == 1; k++)
		ents_add(s, out, &e);
	return h.owner;
}

static struct core *core_of(struct ev_state *s, uint64_t ino, const struct xfmt_dinode *before);

/*
 * A bmbt block logged: its owner's mapping changed (a copy-on-write remap
 * rewrites bmbt records and leaves the inode's counts alone).  The owner
 * is marked with its current state as both sides, unless an inode item of
 * the same transaction gives them.
 */
static void note_bmbt(struct ev_state *s, const uint8_t *blk, uint32_t len)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_bt_hdr h;
	struct xfmt_dinode d;
	struct shadow *sh;
	struct core *c;

	if (!g->v5 || xfmt_bt_hdr_decode(blk, len, XFMT_BT_BMAP, true, &h) != 0 ||
	    h.magic != xfmt_bt_magic(XFMT_BT_BMAP, true) || !xfmt_geom_ino_valid(g, h.owner))
		return;
	sh = shadow_get(s, h.owner, xfmt_geom_ino_byte(g, h.owner), g->inodesize);
	if (!sh || xfmt_dinode_decode(sh->data, g->inodesize, g, &d) != 0 || !d.mode)
		return;
	c = core_of(s, h.owner, &d);
	if (c) {
		if (!c->after.mode)
			c->after = d;
		c->dfork_changed = true;
	}
}

static void on_buf_item(struct ev_state *s, const struct xfmt_log_titem *it, bool big)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct ents b = { 0 }, a = { 0 };
	struct xfmt_log_buf lb;
	struct shadow *sh;
	uint8_t *before;
	uint32_t len;
	uint64_t ob, oa;

	if (xfmt_log_buf_decode(it, big, &lb) != 0 || (lb.flags & XFS_BLF_INODE_BUF) ||
	    (lb.flags & XFS_BLF_CANCEL))
		return;
	/* what can carry names or a mapping: directory blocks, bmbt blocks,
	 * inside the filesystem (the daddr is the log's word: checked before
	 * it is shifted into a byte offset or a key) */
	len = (uint32_t)lb.len * 512u;
	if ((len != g->dirblksize && len != g->blocksize) ||
	    lb.blkno >= (g->dblocks << g->blocklog) >> 9)
		return;
	sh = shadow_get(s, lb.blkno | KEY_BUF, lb.blkno << 9, len);
	if (!sh)
		return;
	before = malloc(sh->len);
	if (!before) {
		s->rc = XERR_NOMEM;
		return;
	}
	memcpy(before, sh->data, sh->len);
	if (xfmt_log_buf_apply(it, &lb, sh->data, sh->len) == 0) {
		if (len == g->blocksize)
			note_bmbt(s, sh->data, sh->len);
		if (len == g->dirblksize) {
			oa = blk_ents(s, sh->data, sh->len, &a);
			ob = blk_ents(s, before, sh->len, &b);
			/* a block new to this directory held something else before */
			if (oa && ob != oa)
				b.n = 0;
			if (oa)
				diff_names(s, oa, &b, &a);
			else if (ob)
				diff_names(s, ob, &b, &a);   /* the block left the directory */
		}
	}
	free(before);
	free(b.v);
	free(a.v);
}

/* The core record of ino in this transaction, or NULL: an index of the
 * cores by inode (slots hold index + 1), rebuilt as it grows. */
static struct core *find_core(struct ev_state *s, uint64_t ino)
{
	size_t i;

	if (!s->cidx_cap)
		return NULL;
	for (i = slot_of(ino + 1, s->cidx_cap); s->cidx[i]; i = (i + 1) & (s->cidx_cap - 1))
		if (s->cores[s->cidx[i] - 1].ino == ino)
			return &s->cores[s->cidx[i] - 1];
	return NULL;
}

static int cidx_put(struct ev_state *s, size_t k)
{
	size_t i;

	if ((s->ncores + 1) * 2 > s->cidx_cap) {
		size_t ncap = s->cidx_cap ? s->cidx_cap * 2 : 64;
		size_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		free(s->cidx);
		s->cidx = n;
		s->cidx_cap = ncap;
		for (size_t c = 0; c < k; c++) {
			for (i = slot_of(s->cores[c].ino + 1, ncap); n[i]; i = (i + 1) & (ncap - 1))
				;
			n[i] = c + 1;
			s->cores[c].slot = i;
		}
	}
	for (i = slot_of(s->cores[k].ino + 1, s->cidx_cap); s->cidx[i];
	     i = (i + 1) & (s->cidx_cap - 1))
		;
	s->cidx[i] = k + 1;
	s->cores[k].slot = i;
	return 0;
}

static struct core *core_of(struct ev_state *s, uint64_t ino, const struct xfmt_dinode *before)
{
	struct core *c = find_core(s, ino);

	if (c)
		return c;
	if (xa_grow((void **)&s->cores, &s->ncorecap, s->ncores + 1, sizeof(*s->cores))) {
		s->rc = XERR_NOMEM;
		return NULL;
	}
	memset(&s->cores[s->ncores], 0, sizeof(s->cores[0]));
	s->cores[s->ncores].ino = ino;
	s->cores[s->ncores].before = *before;
	if (cidx_put(s, s->ncores)) {
		s->rc = XERR_NOMEM;
		return NULL;
	}
	return &s->cores[s->ncores++];
}

static void on_inode_item(struct ev_state *s, const struct xfmt_log_titem *it, bool big,
			  uint64_t lsn)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_log_inode in;
	struct xfmt_dinode db, da;
	struct ents b = { 0 }, a = { 0 };
	struct shadow *sh;
	struct core *c;
	uint8_t *before;

	if (xfmt_log_inode_decode(it, big, &in) != 0 || !(in.fields & XFS_ILOG_CORE) ||
	    !xfmt_geom_ino_valid(g, in.ino))
		return;
	sh = shadow_get(s, in.ino, xfmt_geom_ino_byte(g, in.ino), g->inodesize);
	if (!sh)
		return;
	/* A chunk the log allocated (icreate) is not on disk yet: a free
	 * inode is what the item lands on, as in recovery. */
	if (xfmt_get_be16(sh->data) != XFS_DINODE_MAGIC)
		xfmt_dinode_free_encode(sh->data, g, in.ino, 0, 0);
	before = malloc(sh->len);
	if (!before) {
		s->rc = XERR_NOMEM;
		return;
	}
	memcpy(before, sh->data, sh->len);
	if (xfmt_log_inode_apply(it, &in, big, sh->data, g->inodesize, g->v5, lsn) ==
	    XLOG_INODE_REPLAYED) {
		if (xfmt_dinode_decode(before, g->inodesize, g, &db) != 0 || db.magic != XFS_DINODE_MAGIC)
			memset(&db, 0, sizeof(db));
		if (xfmt_dinode_decode(sh->data, g->inodesize, g, &da) == 0) {
			c = core_of(s, in.ino, &db);
			if (c) {
				size_t fb = 0, fa = 0;
				const uint8_t *kb = db.magic ? xfmt_dinode_fork(before, &db, 0, &fb) : NULL;
				const uint8_t *ka = xfmt_dinode_fork(sh->data, &da, 0, &fa);

				c->after = da;
				c->fields |= in.fields;
				if (kb && ka && (fb != fa || memcmp(kb, ka, fa)))
					c->dfork_changed = true;
			}
			sf_ents(s, before, &db, &b);
			sf_ents(s, sh->data, &da, &a);
			if (b.n || a.n)
				diff_names(s, in.ino, &b, &a);
		}
	}
	free(before);
	free(b.v);
	free(a.v);
}

static bool created(const struct core *c)
{
	return c && c->before.mode == 0 && c->after.mode != 0;
}

static bool freed(const struct core *c)
{
	return c && c->before.mode != 0 && c->after.mode == 0;
}

static int emit(struct ev_state *s, struct xa_event *e, const struct core *c)
{
	if (c) {
		const struct xfmt_dinode *now = c->after.mode ? &c->after : &c->before;

		e->mode = now->mode;
		e->old_mode = c->before.mode;
		e->uid = c->after.uid;
		e->gid = c->after.gid;
		e->old_uid = c->before.uid;
		e->old_gid = c->before.gid;
		e->size = c->after.size;
		e->old_size = c->before.size;
		e->nextents = c->after.nextents;
		e->old_nextents = c->before.nextents;
		e->mtime = c->after.mtime.sec;
		e->old_mtime = c->before.mtime.sec;
		e->atime = now->atime.sec;
		e->ctime = now->ctime.sec;
		e->crtime = now->crtime.sec;
		e->flags = c->after.flags | (uint64_t)c->after.flags2 << 16;
		e->old_flags = c->before.flags | (uint64_t)c->before.flags2 << 16;
	}
	return s->fn(s->arg, e);
}

static int cmp_nm(const void *x, const void *y)
{
	const struct nm *a = x, *b = y;

	if (a->ino != b->ino)
		return (a->ino > b->ino) - (a->ino < b->ino);
	return (a->dir > b->dir) - (a->dir < b->dir);
}

/* The events of one transaction, from its gathered changes. */
static int flush_trans(struct ev_state *s, uint64_t lsn)
{
	int rc = 0;

	/* renames: the same inode left one place and joined another (the
	 * added names sorted by inode, each removed one looked up) */
	if (s->nadd > 1)
		qsort(s->added, s->nadd, sizeof(*s->added), cmp_nm);
	for (size_t i = 0; i < s->nrem && !rc; i++) {
		struct nm *r = &s->removed[i];
		size_t lo = 0, hi = s->nadd;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->added[mid].ino < r->ino)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < s->nadd && s->added[j].ino == r->ino && !rc; j++) {
			struct nm *a = &s->added[j];
			struct xa_event e = { XA_EV_RENAME, lsn, r->ino, r->dir, a->dir, r->name,
					      a->name, r->namelen, a->namelen };

			if (a->used)
				continue;
			r->used = a->used = true;
			rc = emit(s, &e, find_core(s, r->ino));
			break;
		}
	}
	for (size_t j = 0; j < s->nadd && !rc; j++) {
		struct nm *a = &s->added[j];
		struct core *c = find_core(s, a->ino);
		struct xa_event e = { created(c) ? XA_EV_CREATE : XA_EV_LINK, lsn, a->ino, a->dir,
				      0, a->name, NULL, a->namelen, 0 };

		if (a->used)
			continue;
		if (c && created(c))
			c->used_create = true;
		rc = emit(s, &e, c);
	}
	for (size_t i = 0; i < s->nrem && !rc; i++) {
		struct nm *r = &s->removed[i];
		struct core *c = find_core(s, r->ino);
		struct xa_event e = { XA_EV_UNLINK, lsn, r->ino, r->dir, 0, r->name, NULL,
				      r->namelen, 0 };

		if (r->used)
			continue;
		if (freed(c)) {
			e.freed = 1;
			c->used_free = true;
		}
		rc = emit(s, &e, c);
	}
	for (size_t i = 0; i < s->ncores && !rc; i++) {
		struct core *c = &s->cores[i];
		const struct xfmt_dinode *b = &c->before, *a = &c->after;
		bool dir = (a->mode & 0170000u) == 0040000u || (b->mode & 0170000u) == 0040000u;
		struct xa_event e = { 0 };

		e.lsn = lsn;
		e.ino = c->ino;
		if (created(c)) {
			if (!c->used_create) {
				e.kind = XA_EV_CREATE;   /* no name yet: an O_TMPFILE, or named later */
				rc = emit(s, &e, c);
			}
			/* created and written in one checkpoint: the write too */
			if (!rc && !dir && a->size > 0) {
				e.kind = XA_EV_WRITE;
				rc = emit(s, &e, c);
			}
			continue;
		}
		if (freed(c)) {
			if (!c->used_free) {
				e.kind = XA_EV_FREE;
				rc = emit(s, &e, c);
			}
			continue;
		}
		if (!a->mode)
			continue;
		if (!dir && a->size > b->size) {
			e.kind = XA_EV_WRITE;
			rc = emit(s, &e, c);
		} else if (!dir && a->size < b->size) {
			e.kind = XA_EV_TRUNCATE;
			rc = emit(s, &e, c);
		} else if (!dir && (a->nextents != b->nextents || c->dfork_changed ||
				    (a->nblocks != b->nblocks && a->anextents == b->anextents &&
				     a->aformat == b->aformat))) {
			/* the data mapping alone changed (nblocks counts attr blocks
			 * too): blocks added, or freed by a truncation in steps */
			e.kind = (a->nextents != b->nextents ? a->nextents < b->nextents
							     : a->nblocks < b->nblocks) ?
				 XA_EV_TRUNCATE : XA_EV_WRITE;
			rc = emit(s, &e, c);
		}
		/* The times alone moved: a write in place sets mtime and ctime
		 * to the same now; utimes sets an mtime of its own. */
		bool times_only = !dir && !c->dfork_changed && a->size == b->size &&
				  a->nblocks == b->nblocks &&
				  (a->mtime.sec != b->mtime.sec || a->mtime.nsec != b->mtime.nsec);
		bool in_place = times_only && a->mtime.sec == a->ctime.sec &&
				a->mtime.nsec == a->ctime.nsec;

		if (!rc && in_place) {
			e.kind = XA_EV_WRITE;
			rc = emit(s, &e, c);
		}
		if (!rc && ((a->mode & 07777) != (b->mode & 07777) || a->uid != b->uid ||
			    a->gid != b->gid || a->flags != b->flags || a->flags2 != b->flags2 ||
			    (times_only && !in_place))) {
			e.kind = XA_EV_SETATTR;
			rc = emit(s, &e, c);
		}
		if (!rc && (a->forkoff != b->forkoff || a->anextents != b->anextents ||
			    a->aformat != b->aformat ||
			    (c->fields & (XFS_ILOG_ADATA | XFS_ILOG_AEXT | XFS_ILOG_ABROOT)))) {
			e.kind = XA_EV_XATTR;
			rc = emit(s, &e, c);
		}
	}
	/* empty the index slot by slot (each core knows its slot): the cost
	 * follows this transaction's cores, not the largest one's table */
	for (size_t k = 0; k < s->ncores; k++)
		s->cidx[s->cores[k].slot] = 0;
	s->nadd = s->nrem = s->ncores = 0;
	return rc;
}

static int on_trans(void *arg, const struct xfmt_log_trans *t)
{
	struct ev_state *s = arg;

	for (size_t i = 0; i < t->nitems && !s->rc; i++) {
		const struct xfmt_log_titem *it = &t->items[i];

		if (it->type == XFS_LI_BUF)
			on_buf_item(s, it, t->big);
		else if (it->type == XFS_LI_INODE)
			on_inode_item(s, it, t->big, t->commit_lsn);
	}
	if (s->rc)
		return s->rc;
	return flush_trans(s, t->commit_lsn);
}

int xa_log_events(struct xa_ctx *ctx, xa_event_fn fn, void *arg)
{
	struct ev_state s = { .ctx = ctx, .fn = fn, .arg = arg };
	struct xa_log_walk w;
	int rc;

	if (!ctx->log_dirty || !ctx->log.bounds.found)
		return 0;
	rc = xa_log_each_trans(ctx, &ctx->log.pos, &ctx->log.bounds, on_trans, &s, &w);
	for (size_t i = 0; i < s.cap; i++)
		free(s.tab[i].data);
	free(s.tab);
	free(s.added);
	free(s.removed);
	free(s.cores);
	free(s.cidx);
	return rc ? rc : s.rc;
}

const char *xa_ev_name(enum xa_ev_kind k)
{
	switch (k) {
	case XA_EV_CREATE:   return "create";
	case XA_EV_LINK:     return "link";
	case XA_EV_UNLINK:   return "unlink";
	case XA_EV_RENAME:   return "rename";
	case XA_EV_FREE:     return "free";
	case XA_EV_WRITE:    return "write";
	case XA_EV_TRUNCATE: return "truncate";
	case XA_EV_SETATTR:  return "setattr";
	case XA_EV_XATTR:    return "xattr";
	}
	return "?";
}
