/*
 * orphans.c - the tops of the unreachable trees.
 *
 * Each unreachable directory's tree is walked once (the shared tree walk,
 * which enters a directory once and bounds depth) and every inode it names
 * is marked covered; what is left uncovered is a top.  Directories that
 * name only each other (a cycle cut off from the root) would all be
 * covered: the walk from the lowest-numbered uncovered-by-a-top directory
 * puts them back.
 */
#include "analyzer/model/orphans.h"

#include <stdlib.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/tree.h"
#include "analyzer/model/u64set.h"

static bool is_orphan(const struct xa_ctx *ctx, const struct xa_irec *r)
{
	return !r->reached && !xa_is_metadata_inode(ctx, r->ino);
}

static int mark(void *arg, const struct xa_tree_entry *e)
{
	return xa_u64set_add(arg, e->ino) < 0 ? XERR_NOMEM : 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Mark every inode under directory ino in set. */
static int cover(struct xa_ctx *ctx, uint64_t ino, struct xa_u64set *set,
		 const struct xa_messages *msgs)
{
	bool incomplete = false;
	int rc = xa_tree_walk(ctx, ino, "", true, mark, set, msgs, &incomplete);

	return rc == XERR_NOMEM ? rc : 0;
}

int xa_orphan_tops(struct xa_ctx *ctx, const struct xa_messages *msgs, uint64_t **v, size_t *n)
{
	struct xa_u64set covered = { 0 }, by_top = { 0 };
	uint64_t *tops = NULL;
	size_t ntops = 0, cap = 0;
	int rc = 0;

	*v = NULL;
	*n = 0;
	for (size_t i = 0; i < ctx->nirecs && !rc; i++) {
		const struct xa_irec *r = &ctx->irecs[i];

		if (is_orphan(ctx, r) && (r->mode & 0170000u) == 0040000u)
			rc = cover(ctx, r->ino, &covered, msgs);
	}
	for (size_t i = 0; i < ctx->nirecs && !rc; i++) {
		const struct xa_irec *r = &ctx->irecs[i];

		if (!is_orphan(ctx, r) || xa_u64set_has(&covered, r->ino))
			continue;
		rc = xa_grow((void **)&tops, &cap, ntops + 1, sizeof(*tops));
		if (!rc)
			tops[ntops++] = r->ino;
	}
	if (ntops > 1)
		qsort(tops, ntops, sizeof(*tops), cmp_u64);
	/* What the tops' trees reach; a covered directory they do not reach
	 * sits on a cycle of unreachable directories: it becomes a top too. */
	for (size_t i = 0; i < ntops && !rc; i++) {
		const struct xa_irec *r = xa_irec_find(ctx, tops[i]);

		if (r && (r->mode & 0170000u) == 0040000u)
			rc = cover(ctx, r->ino, &by_top, msgs);
	}
	for (size_t i = 0; i < ctx->nirecs && !rc; i++) {
		const struct xa_irec *r = &ctx->irecs[i];

		if (!is_orphan(ctx, r) || !xa_u64set_has(&covered, r->ino) ||
		    xa_u64set_has(&by_top, r->ino) || (r->mode & 0170000u) != 0040000u)
			continue;
		rc = xa_grow((void **)&tops, &cap, ntops + 1, sizeof(*tops));
		if (!rc) {
			tops[ntops++] = r->ino;
			rc = cover(ctx, r->ino, &by_top, msgs);
		}
	}
	if (ntops > 1)
		qsort(tops, ntops, sizeof(*tops), cmp_u64);
	xa_u64set_release(&covered);
	xa_u64set_release(&by_top);
	if (rc) {
		free(tops);
		return rc;
	}
	*v = tops;
	*n = ntops;
	return 0;
}
