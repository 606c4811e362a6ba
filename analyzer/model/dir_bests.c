/*
 * dir_bests.c - bests tables against data blocks (see dir_bests.h).
 */
#include "analyzer/model/dir_bests.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/model/grow.h"
#include "formats/dir2.h"
#include "formats/endian.h"

/* Slots and blocks kept per directory; past it the check is skipped. */
#define DIR_BESTS_MAX (1u << 20)

struct xa_dir_best {
	uint32_t      db;
	uint16_t      best;
	unsigned      slot;
	bool          unknown;  /* data block read, its header unreadable */
	struct xa_loc loc;      /* table slots only */
};

static void add(struct xa_dir_bests *b, bool table, uint32_t db, uint16_t best, unsigned slot,
		const struct xa_loc *loc)
{
	struct xa_dir_best **v = table ? &b->table : &b->data;
	size_t *n = table ? &b->ntable : &b->ndata, *cap = table ? &b->cap_table : &b->cap_data;

	if (b->overflow)
		return;
	if (*n >= DIR_BESTS_MAX || xa_grow((void **)v, cap, *n + 1, sizeof(**v))) {
		b->overflow = true;
		return;
	}
	(*v)[*n] = (struct xa_dir_best){ .db = db, .best = best, .slot = slot };
	if (loc)
		(*v)[*n].loc = *loc;
	(*n)++;
}

void xa_dir_bests_data(struct xa_dir_bests *b, const struct xfmt_geom *g, uint32_t db,
		       const uint8_t *blk)
{
	struct xfmt_dir2_data_hdr h;

	/* A block whose header does not read is there all the same: its
	 * slot is not judged (its own findings say what is wrong). */
	bool ok = xfmt_dir2_data_hdr_decode(blk, g->dirblksize, g->v5, &h) == 0 &&
		  (h.magic == XFS_DIR2_DATA_MAGIC || h.magic == XFS_DIR3_DATA_MAGIC);

	add(b, false, db, ok ? h.bestfree[0].length : 0, 0, NULL);
	if (!ok && !b->overflow)
		b->data[b->ndata - 1].unknown = true;
}

void xa_dir_bests_leaf1(struct xa_dir_bests *b, const struct xfmt_geom *g, const uint8_t *blk,
			const struct xa_loc *loc)
{
	struct xfmt_dir2_leaf_tail t;

	if (xfmt_dir2_leaf1_tail_decode(blk, g->dirblksize, g, &t) != 0)
		return;
	for (unsigned i = 0; i < t.bestcount; i++) {
		uint16_t v;

		if (xfmt_dir2_leaf1_best(blk, &t, i, &v) != 0)
			break;
		add(b, true, i, v, i, loc);
	}
}

void xa_dir_bests_free(struct xa_dir_bests *b, const struct xfmt_geom *g, const uint8_t *blk,
		       const struct xa_loc *loc)
{
	struct xfmt_dir2_free_hdr h;
	unsigned max = xfmt_dir2_free_max_bests(g);

	if (xfmt_dir2_free_hdr_decode(blk, g->dirblksize, g->v5, &h) != 0 ||
	    (h.magic != XFS_DIR2_FREE_MAGIC && h.magic != XFS_DIR3_FREE_MAGIC))
		return;
	for (unsigned i = 0; i < h.nvalid && i < max; i++) {
		uint16_t v;

		if (xfmt_dir2_free_best(blk, g->dirblksize, g->v5, i, &v) != 0)
			break;
		add(b, true, h.firstdb + i, v, i, loc);
	}
}

static int cmp_db(const void *x, const void *y)
{
	const struct xa_dir_best *a = x, *b = y;

	return a->db < b->db ? -1 : a->db > b->db;
}

void xa_dir_bests_check(struct xa_dir_bests *b, struct xa_loc_sink *verify)
{
	if (b->overflow)
		return;
	if (b->ndata)  /* qsort must not see a NULL array, even empty */
		qsort(b->data, b->ndata, sizeof(*b->data), cmp_db);
	for (size_t i = 0; i < b->ntable; i++) {
		const struct xa_dir_best *s = &b->table[i];
		struct xa_dir_best key = { .db = s->db };
		const struct xa_dir_best *d = b->ndata ? bsearch(&key, b->data, b->ndata,
								 sizeof(*b->data), cmp_db)
						       : NULL;
		uint16_t want = d ? d->best : XFS_DIR2_NULL_DATAOFF;

		if (s->best == want || (d && d->unknown))
			continue;
		verify->loc = s->loc;
		xprob_emit_val(&verify->sink, XP_dirBestMismatch, "bests", s->slot, want, s->best);
	}
}

void xa_dir_bests_release(struct xa_dir_bests *b)
{
	free(b->data);
	free(b->table);
	memset(b, 0, sizeof(*b));
}
