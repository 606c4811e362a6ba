/*
 * pptr_check.c - parent pointers against directory entries, both ways
 * (the check xfs_repair 6.10 and later make in its phase 6).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/pptr_check.h"
#include "analyzer/engine.h"
#include "analyzer/findings/findings.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/u64set.h"
#include "analyzer/model/xattr.h"
#include "formats/attr.h"

/* FNV-1a over the name, seeded with the directory: one name in two
 * directories (hard links) hashes apart. */
static uint64_t name_hash(uint64_t parent, const uint8_t *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (parent * 0x9E3779B97F4A7C15ull);

	for (size_t i = 0; i < len; i++) {
		h ^= name[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int xa_pptr_note_entry(struct xa_pptr_list *l, uint64_t parent, uint32_t gen, uint64_t child,
		       const uint8_t *name, size_t len, uint32_t off)
{
	if (xa_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return XERR_NOMEM;
	l->v[l->n++] = (struct xa_pptr_rec){ .child = child, .parent = parent,
					     .hash = name_hash(parent, name, len), .gen = gen,
					     .off = off };
	return 0;
}

void xa_pptr_list_release(struct xa_pptr_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int cmp_rec(const void *x, const void *y)
{
	const struct xa_pptr_rec *a = x, *b = y;

	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

struct gather {
	struct xa_pptr_list *l;
	uint64_t             child;
};

static int gather_cb(void *arg, const struct xa_xattr *a)
{
	struct gather *g = arg;
	uint64_t pino;
	uint32_t pgen;

	if (a->ns != XFMT_ATTR_NS_PARENT || !a->value_complete ||
	    xfmt_attr_pptr_decode(a->value, a->valuelen, &pino, &pgen) != 0)
		return 0;   /* a malformed one is the attr verifier's finding */
	return xa_pptr_note_entry(g->l, pino, pgen, g->child, a->name, a->namelen, 0);
}

static void report(struct xa_ctx *ctx, uint64_t ino, enum xprob_code code, uint64_t off,
		   uint64_t expected, uint64_t observed, unsigned has)
{
	struct xa_loc loc = {
		XPROB_HAS_AG | XPROB_HAS_INO | XPROB_HAS_BYTE, xfmt_geom_ino_agno(&ctx->geom, ino),
		0, ino, xfmt_geom_ino_byte(&ctx->geom, ino), "inode",
	};

	struct xprob pb = {
		.code = code, .has = has, .off = off, .expected = expected, .observed = observed,
	};

	xa_findings_add(&ctx->findings, &pb, &loc);
}

int xa_pptr_check(struct xa_ctx *ctx, struct xa_pptr_list *l, const struct xa_u64set *unread)
{
	struct xa_pptr_list have = { 0 };
	struct xa_u64set skip = { 0 };   /* inodes whose attributes were not all read */
	size_t i = 0, j = 0;
	int rc = 0;

	for (size_t k = 0; k < ctx->nirecs && !rc; k++) {
		const struct xa_irec *r = &ctx->irecs[k];
		struct gather g = { .l = &have, .child = r->ino };
		struct xa_inode ip;
		bool complete = true;

		if (!r->reached || r->ino == ctx->sb.rootino || xa_is_metadata_inode(ctx, r->ino))
			continue;
		rc = xa_inode_read(ctx, r->ino, &ip);
		if (rc) {
			rc = rc == XERR_NOMEM ? rc : (xa_u64set_add(&skip, r->ino) < 0 ? XERR_NOMEM : 0);
			continue;
		}
		if (ip.d.has_attr_fork)
			rc = xa_xattr_iterate(ctx, &ip, NULL, gather_cb, &g, &complete);
		xa_inode_release(&ip);
		if (!rc && !complete && xa_u64set_add(&skip, r->ino) < 0)
			rc = XERR_NOMEM;
	}
	if (rc)
		goto out;
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_rec);
	if (have.n > 1)
		qsort(have.v, have.n, sizeof(*have.v), cmp_rec);
	while (i < l->n || j < have.n) {
		const struct xa_pptr_rec *e = i < l->n ? &l->v[i] : NULL;
		const struct xa_pptr_rec *p = j < have.n ? &have.v[j] : NULL;
		int c;

		if (e && p) {
			c = e->child != p->child ? (e->child < p->child ? -1 : 1) :
			    e->parent != p->parent ? (e->parent < p->parent ? -1 : 1) :
			    e->hash != p->hash ? (e->hash < p->hash ? -1 : 1) : 0;
		} else {
			c = e ? -1 : 1;
		}
		if (c == 0) {
			if (e->gen != p->gen && !xa_u64set_has(&skip, e->child))
				report(ctx, e->child, XP_nsParentBadGen, e->parent, e->gen, p->gen,
				       XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED);
			i++;
			j++;
		} else if (c < 0) {
			if (!xa_u64set_has(&skip, e->child))
				report(ctx, e->child, XP_nsParentMissing, e->off, 0, e->parent,
				       XPROB_HAS_OFF | XPROB_HAS_OBSERVED);
			i++;
		} else {
			if (!xa_u64set_has(unread, p->parent))
				report(ctx, p->child, XP_nsParentDangling, 0, 0, p->parent,
				       XPROB_HAS_OBSERVED);
			j++;
		}
	}
out:
	xa_pptr_list_release(&have);
	xa_u64set_release(&skip);
	return rc;
}
