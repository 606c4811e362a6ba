/*
 * undelete.c - a deleted file's last mapping, from the log's copies, and
 * whether its blocks are still free.
 */
#include "analyzer/model/undelete.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/inode_alloc.h"
#include "formats/dinode.h"

int xa_undelete_open(struct xa_ctx *ctx, struct xa_undelete *u)
{
	memset(u, 0, sizeof(*u));
	u->ctx = ctx;
	u->free = calloc(ctx->nags ? ctx->nags : 1, sizeof(*u->free));
	u->nfree = calloc(ctx->nags ? ctx->nags : 1, sizeof(*u->nfree));
	if (!u->free || !u->nfree) {
		xa_undelete_close(u);
		return XERR_NOMEM;
	}
	return xa_log_stale_collect(ctx, &u->stale);
}

void xa_undelete_close(struct xa_undelete *u)
{
	if (u->free && u->ctx)
		for (uint32_t a = 0; a < u->ctx->nags; a++)
			free(u->free[a]);
	free(u->free);
	free(u->nfree);
	xa_stale_release(&u->stale);
	memset(u, 0, sizeof(*u));
}

int xa_undelete_inode(struct xa_undelete *u, uint64_t ino, struct xa_inode *out, uint64_t *lsn)
{
	const struct xfmt_geom *g = &u->ctx->geom;
	const struct xa_stale_inode *si;

	memset(out, 0, sizeof(*out));
	if (xa_inode_alloc(u->ctx, ino) == XA_INO_IN_USE)
		return XA_UNDEL_IN_USE;
	si = xa_stale_find(&u->stale, ino);
	if (!si || !si->live)
		return XA_UNDEL_NO_COPY;
	out->raw = malloc(g->inodesize);
	if (!out->raw)
		return XERR_NOMEM;
	memcpy(out->raw, si->live, g->inodesize);
	out->len = g->inodesize;
	out->ino = ino;
	if (xfmt_dinode_decode(out->raw, out->len, g, &out->d) != 0) {
		xa_inode_release(out);
		return XA_UNDEL_NO_COPY;
	}
	if ((out->d.mode & 0170000u) != 0100000u) {
		xa_inode_release(out);
		return XA_UNDEL_NOT_FILE;
	}
	if (out->d.format != XFS_DINODE_FMT_EXTENTS) {
		xa_inode_release(out);
		return XA_UNDEL_BTREE;
	}
	*lsn = si->live_lsn;
	return XA_UNDEL_OK;
}

static int cmp_start(const void *x, const void *y)
{
	const struct xa_ownrec *a = x, *b = y;

	return (a->agbno > b->agbno) - (a->agbno < b->agbno);
}

/* AG agno's free extents, sorted (made once). */
static const struct xa_ownrec *free_of(struct xa_undelete *u, uint32_t agno, size_t *n)
{
	if (!u->free[agno]) {
		const struct xa_ownlist *l = xa_own_free_list(u->ctx, agno);

		if (!l || !l->n) {
			*n = 0;
			return NULL;
		}
		u->free[agno] = malloc(l->n * sizeof(*l->recs));
		if (!u->free[agno]) {
			*n = 0;
			return NULL;
		}
		memcpy(u->free[agno], l->recs, l->n * sizeof(*l->recs));
		qsort(u->free[agno], l->n, sizeof(*l->recs), cmp_start);
		u->nfree[agno] = l->n;
	}
	*n = u->nfree[agno];
	return u->free[agno];
}

uint64_t xa_undelete_free_blocks(struct xa_undelete *u, uint64_t fsb, uint64_t len)
{
	const struct xfmt_geom *g = &u->ctx->geom;
	uint32_t agno, agbno;
	const struct xa_ownrec *f;
	uint64_t end, total = 0;
	size_t n, lo = 0, hi;

	if (!xfmt_geom_fsb_valid(g, fsb))
		return 0;
	agno = xfmt_geom_fsb_agno(g, fsb);
	agbno = xfmt_geom_fsb_agbno(g, fsb);
	if (agno >= u->ctx->nags)
		return 0;
	f = free_of(u, agno, &n);
	end = (uint64_t)agbno + len;
	hi = n;
	/* the first free extent ending after agbno: free extents do not overlap */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)f[mid].agbno + f[mid].len <= agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && f[i].agbno < end; i++) {
		uint64_t s = f[i].agbno > agbno ? f[i].agbno : agbno;
		uint64_t e = (uint64_t)f[i].agbno + f[i].len < end ? (uint64_t)f[i].agbno + f[i].len : end;

		if (e > s)
			total += e - s;
	}
	return total;
}

const char *xa_undel_why_text(enum xa_undel_why w)
{
	switch (w) {
	case XA_UNDEL_OK:       return "recovered";
	case XA_UNDEL_IN_USE:   return "its inode is in use again";
	case XA_UNDEL_NO_COPY:  return "no copy of it with data is left in the log";
	case XA_UNDEL_NOT_FILE: return "not a regular file";
	case XA_UNDEL_BTREE:    return "its mapping was a bmbt, freed with it";
	}
	return "unknown";
}
