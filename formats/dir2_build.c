/*
 * dir2_build.c - the directory encoder's front half: entry checks, the
 * short form, placing entries in data blocks, writing data and block-form
 * blocks, choosing the form, and sealing v5 headers.  The hash index (block
 * leaf array, leaf1, leafN, DA nodes) and the free index are written by
 * dir2_build_index.c.  Facts: xfs-ondisk.md section 7; the kernel's
 * xfs_dir2_sf_addname, xfs_dir2_sf_to_block, xfs_dir2_block_addname,
 * xfs_dir2_leaf_addname and xfs_dir2_node_addname_int for where a new name
 * goes.
 */
#include "formats/dir2_build.h"

#include <stdlib.h>
#include <string.h>

#include "formats/crc32c.h"
#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/dir2_build_int.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"

/* Short form: count and i8count are single bytes. */
#define SF_MAX_COUNT  255u

/* ------------------------------------------------------- entry checks */

int xfmt_dirb_check_ent(const struct xfmt_geom *g, const struct xfmt_dirent_in *x)
{
	if (x->name == NULL || !xfmt_dir2_name_ok(x->name, x->namelen) ||
	    xfmt_dir2_name_dots(x->name, x->namelen) != 0)
		return XFMT_DIRB_BADENT;
	if (!xfmt_dir2_ino_ok(g, x->ino))
		return XFMT_DIRB_BADENT;
	if (xfmt_geom_has_ftype(g) && x->ftype >= XFS_DIR3_FT_MAX)
		return XFMT_DIRB_BADENT;
	return 0;
}

/* Compare two names as lookups do: bytes, or case-folded on ascii-ci. */
static int name_cmp(bool ci, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;

	for (size_t i = 0; i < n; i++) {
		uint8_t ca = ci ? xfmt_ascii_ci_xfrm(a[i]) : a[i];
		uint8_t cb = ci ? xfmt_ascii_ci_xfrm(b[i]) : b[i];

		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return alen == blen ? 0 : (alen < blen ? -1 : 1);
}

/* qsort has no context argument: the two name orders are two comparators. */
static int key_cmp(const struct xfmt_dirb_key *a, const struct xfmt_dirb_key *b, bool ci)
{
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return name_cmp(ci, a->name, a->namelen, b->name, b->namelen);
}

static int key_cmp_exact(const void *pa, const void *pb)
{
	return key_cmp(pa, pb, false);
}

static int key_cmp_ci(const void *pa, const void *pb)
{
	return key_cmp(pa, pb, true);
}

/* Leaf order: hash, then the later-created entry first (as the kernel inserts). */
static int key_cmp_leaf(const void *pa, const void *pb)
{
	const struct xfmt_dirb_key *a = pa, *b = pb;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->seq > b->seq ? -1 : (a->seq < b->seq ? 1 : 0);
}

int xfmt_dirb_sort_keys(const struct xfmt_geom *g, struct xfmt_dirb_key *k, size_t nk)
{
	bool ci = xfmt_dir_is_ci(g);

	/* Same name = same hash, so sorting by (hash, name) puts duplicates side by side. */
	if (nk > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(k, nk, sizeof(*k), ci ? key_cmp_ci : key_cmp_exact);
	for (size_t i = 1; i < nk; i++)
		if (key_cmp(&k[i - 1], &k[i], ci) == 0)
			return XFMT_DIRB_DUP;
	if (nk > 1)  /* qsort(NULL, 0, ...) is undefined */
		qsort(k, nk, sizeof(*k), key_cmp_leaf);
	return 0;
}

/* ------------------------------------------------------------ short form */

int xfmt_dir2_sf_encode(const struct xfmt_geom *g, uint64_t parent,
			const struct xfmt_dirent_in *e, size_t n,
			uint8_t *out, size_t room, size_t *size)
{
	bool ci = xfmt_dir_is_ci(g), ft = xfmt_geom_has_ftype(g), i8;
	unsigned i8count = parent > XFS_DIR2_MAX_SHORT_INUM;
	size_t need, pos, off, blk_end;
	int rc;

	*size = 0;
	if (!xfmt_dir2_ino_ok(g, parent) || (n > 0 && e == NULL))
		return XFMT_DIRB_BADENT;
	if (n > SF_MAX_COUNT)
		return XFMT_DIRB_NOFIT;
	for (size_t i = 0; i < n; i++) {
		if ((rc = xfmt_dirb_check_ent(g, &e[i])) != 0)
			return rc;
		/* At most 255 entries: comparing every pair is cheap. */
		for (size_t j = 0; j < i; j++)
			if (name_cmp(ci, e[i].name, e[i].namelen, e[j].name, e[j].namelen) == 0)
				return XFMT_DIRB_DUP;
		i8count += e[i].ino > XFS_DIR2_MAX_SHORT_INUM;
	}
	if (i8count > SF_MAX_COUNT)
		return XFMT_DIRB_NOFIT;
	i8 = i8count != 0;

	need = i8 ? XFMT_DIR2_SF_HDR8 : XFMT_DIR2_SF_HDR4;
	blk_end = xfmt_dir2_data_first_offset(g);
	for (size_t i = 0; i < n; i++) {
		need += xfmt_dir2_sf_entsize(g, i8, e[i].namelen);
		blk_end += xfmt_dir2_data_entsize(g, e[i].namelen);
	}
	/* The kernel turns a short-form directory into one block when it grows. */
	if (need > room || blk_end + (n + 2) * XFMT_DIR2_LEAF_ENTRY + XFMT_DIR2_BLOCK_TAIL >
	    g->dirblksize)
		return XFMT_DIRB_NOFIT;

	memset(out, 0, room);
	out[SF_COUNT] = (uint8_t)n;
	out[SF_I8COUNT] = (uint8_t)i8count;
	if (i8)
		xfmt_put_be64(out + SF_PARENT, parent);
	else
		xfmt_put_be32(out + SF_PARENT, (uint32_t)parent);
	pos = i8 ? XFMT_DIR2_SF_HDR8 : XFMT_DIR2_SF_HDR4;
	off = xfmt_dir2_data_first_offset(g);
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = out + pos;
		size_t at = SFE_NAME + e[i].namelen;

		p[0] = e[i].namelen;
		xfmt_put_be16(p + SFE_OFFSET, (uint16_t)off);
		memcpy(p + SFE_NAME, e[i].name, e[i].namelen);
		if (ft)
			p[at++] = e[i].ftype;
		if (i8)
			xfmt_put_be64(p + at, e[i].ino);
		else
			xfmt_put_be32(p + at, (uint32_t)e[i].ino);
		pos += xfmt_dir2_sf_entsize(g, i8, e[i].namelen);
		off += xfmt_dir2_data_entsize(g, e[i].namelen);
	}
	*size = pos;
	return 0;
}

/* ------------------------------------------------- placing data entries */

/*
 * A max-tree over the free tail of every data block, so "the last block
 * with at least need bytes free" costs O(log blocks), whatever the input.
 */
struct fit_tree {
	uint32_t *v;      /* 2 * leaves nodes, 1-based heap order */
	size_t    leaves;
};

static int fit_init(struct fit_tree *t, size_t maxblocks)
{
	t->leaves = 1;
	while (t->leaves < maxblocks)
		t->leaves <<= 1;
	t->v = calloc(2 * t->leaves, sizeof(*t->v));
	return t->v ? 0 : XFMT_DIRB_NOMEM;
}

static void fit_set(struct fit_tree *t, size_t i, uint32_t val)
{
	size_t k = t->leaves + i;

	t->v[k] = val;
	for (k >>= 1; k >= 1; k >>= 1)
		t->v[k] = t->v[2 * k] > t->v[2 * k + 1] ? t->v[2 * k] : t->v[2 * k + 1];
}

/* Rightmost leaf with value >= need, or -1. */
static long fit_last(const struct fit_tree *t, uint32_t need)
{
	size_t k = 1;

	if (t->v[1] < need)
		return -1;
	while (k < t->leaves)
		k = t->v[2 * k + 1] >= need ? 2 * k + 1 : 2 * k;
	return (long)(k - t->leaves);
}

/* Last fit: each entry at the end of the last data block with room for it. */
static int place_last_fit(struct xfmt_dirb *b)
{
	const struct xfmt_geom *g = b->g;
	struct fit_tree t;
	int rc;

	/* A block is only opened for an entry no other block can take: at most n + 1. */
	if ((rc = fit_init(&t, b->n + 1)) != 0)
		return rc;
	b->ndata = 1;
	b->dend[0] = (uint32_t)xfmt_dir2_data_first_offset(g);
	fit_set(&t, 0, g->dirblksize - b->dend[0]);
	for (size_t i = 0; i < b->n; i++) {
		uint32_t es = (uint32_t)xfmt_dir2_data_entsize(g, b->e[i].namelen);
		long db = fit_last(&t, es);

		if (db < 0) {
			db = (long)b->ndata++;
			b->dend[db] = (uint32_t)b->hdr;
		}
		b->pos[i].db = (uint32_t)db;
		b->pos[i].off = b->dend[db];
		b->dend[db] += es;
		fit_set(&t, (size_t)db, g->dirblksize - b->dend[db]);
	}
	free(t.v);
	return 0;
}

/*
 * Exactly want data blocks, more than last fit needs: fill them in order,
 * keeping one entry back for every block still to open.
 */
static int place_spread(struct xfmt_dirb *b, uint32_t want)
{
	const struct xfmt_geom *g = b->g;
	uint32_t cur = 0;

	if (want > b->n + 1)
		return XFMT_DIRB_NOFIT;
	b->ndata = 1;
	b->dend[0] = (uint32_t)xfmt_dir2_data_first_offset(g);
	for (size_t i = 0; i < b->n; i++) {
		uint32_t es = (uint32_t)xfmt_dir2_data_entsize(g, b->e[i].namelen);
		uint32_t to_open = want - b->ndata;
		bool fits = b->dend[cur] + es <= g->dirblksize;

		if (to_open > 0 && (!fits || b->n - i <= to_open)) {
			cur = b->ndata++;
			b->dend[cur] = (uint32_t)b->hdr;
		} else if (!fits) {
			return XFMT_DIRB_NOFIT;
		}
		b->pos[i].db = cur;
		b->pos[i].off = b->dend[cur];
		b->dend[cur] += es;
	}
	return b->ndata == want ? 0 : XFMT_DIRB_NOFIT;
}

/* Data blocks: last fit, or exactly want of them when want is not 0. */
static int place_data(struct xfmt_dirb *b, uint32_t want)
{
	int rc = place_last_fit(b);

	if (rc || want == 0 || b->ndata == want)
		return rc;
	if (b->ndata > want)
		return XFMT_DIRB_NOFIT;
	return place_spread(b, want);
}

/* --------------------------------------------------- writing data blocks */

static void put_entry(const struct xfmt_geom *g, uint8_t *blk, uint32_t off, uint64_t ino,
		      const uint8_t *name, uint8_t namelen, uint8_t ftype)
{
	uint8_t *p = blk + off;
	size_t es = xfmt_dir2_data_entsize(g, namelen);

	xfmt_put_be64(p + DE_INUMBER, ino);
	p[DE_NAMELEN] = namelen;
	memcpy(p + DE_NAME, name, namelen);
	if (xfmt_geom_has_ftype(g))
		p[DE_NAME + namelen] = ftype;
	xfmt_put_be16(p + es - 2, (uint16_t)off);
}

/* The unused tail [off, end) as one free region, and bestfree[0] naming it. */
static uint16_t put_tail(const struct xfmt_geom *g, uint8_t *blk, uint32_t off, uint32_t end)
{
	size_t bf = g->v5 ? DH3_BESTFREE : DH2_BESTFREE;
	uint32_t len = end - off;

	if (len == 0)
		return 0;
	xfmt_put_be16(blk + off, XFS_DIR2_DATA_FREE_TAG);
	xfmt_put_be16(blk + off + DU_LENGTH, (uint16_t)len);
	xfmt_put_be16(blk + end - 2, (uint16_t)off);
	xfmt_put_be16(blk + bf, (uint16_t)off);
	xfmt_put_be16(blk + bf + 2, (uint16_t)len);
	return (uint16_t)len;
}

void xfmt_dirb_write_data(struct xfmt_dirb *b, struct xfmt_dir2_build *out)
{
	const struct xfmt_geom *g = b->g;
	bool block_form = b->form == XFMT_DIR2_FORM_BLOCK;
	uint32_t magic, end = g->dirblksize;

	if (g->v5)
		magic = block_form ? XFS_DIR3_BLOCK_MAGIC : XFS_DIR3_DATA_MAGIC;
	else
		magic = block_form ? XFS_DIR2_BLOCK_MAGIC : XFS_DIR2_DATA_MAGIC;
	/* In block form the records end where the leaf array starts. */
	if (block_form)
		end -= XFMT_DIR2_BLOCK_TAIL + (uint32_t)(b->n + 2) * XFMT_DIR2_LEAF_ENTRY;
	for (uint32_t db = 0; db < b->ndata; db++) {
		uint8_t *blk = out->blks[db].buf;

		xfmt_put_be32(blk + DH_MAGIC, magic);
		if (db == 0) {
			uint32_t dot = (uint32_t)b->hdr;
			uint32_t dotdot = dot + (uint32_t)xfmt_dir2_data_entsize(g, 1);

			put_entry(g, blk, dot, b->dir_ino, (const uint8_t *)".", 1, XFS_DIR3_FT_DIR);
			put_entry(g, blk, dotdot, b->parent, (const uint8_t *)"..", 2,
				  XFS_DIR3_FT_DIR);
		}
		b->bests[db] = put_tail(g, blk, b->dend[db], end);
	}
	for (size_t i = 0; i < b->n; i++)
		put_entry(g, out->blks[b->pos[i].db].buf, b->pos[i].off, b->e[i].ino,
			  b->e[i].name, b->e[i].namelen, b->e[i].ftype);
}

/* ------------------------------------------------------------- the build */

void xfmt_dir2_build_release(struct xfmt_dir2_build *b)
{
	free(b->blks);
	free(b->mem);
	memset(b, 0, sizeof(*b));
}

/* Block form: do ".", "..", the entries, their leaf entries and the tail fit one block? */
static bool block_fits(const struct xfmt_dirb *b)
{
	uint64_t end = xfmt_dir2_data_first_offset(b->g);

	for (size_t i = 0; i < b->n; i++)
		end += xfmt_dir2_data_entsize(b->g, b->e[i].namelen);
	return end + ((uint64_t)b->n + 2) * XFMT_DIR2_LEAF_ENTRY + XFMT_DIR2_BLOCK_TAIL <=
	       b->g->dirblksize;
}

/* All entries in data block 0, one after the other (block form). */
static void place_one_block(struct xfmt_dirb *b)
{
	b->ndata = 1;
	b->dend[0] = (uint32_t)xfmt_dir2_data_first_offset(b->g);
	for (size_t i = 0; i < b->n; i++) {
		b->pos[i].db = 0;
		b->pos[i].off = b->dend[0];
		b->dend[0] += (uint32_t)xfmt_dir2_data_entsize(b->g, b->e[i].namelen);
	}
}

/* Fill the leaf keys with hashes and addresses; "." and ".." first by sequence. */
static int make_keys(struct xfmt_dirb *b)
{
	const struct xfmt_geom *g = b->g;
	uint32_t dot = (uint32_t)b->hdr;

	b->keys[0] = (struct xfmt_dirb_key){ .hash = XFS_DA_HASH_DOT, .seq = 0,
		.addr = xfmt_dir2_db_off_to_dataptr(g, 0, dot),
		.name = (const uint8_t *)".", .namelen = 1 };
	b->keys[1] = (struct xfmt_dirb_key){ .hash = XFS_DA_HASH_DOTDOT, .seq = 1,
		.addr = xfmt_dir2_db_off_to_dataptr(g, 0, dot + (uint32_t)xfmt_dir2_data_entsize(g, 1)),
		.name = (const uint8_t *)"..", .namelen = 2 };
	for (size_t i = 0; i < b->n; i++) {
		struct xfmt_dirb_key *k = &b->keys[i + 2];

		k->hash = xfmt_dir2_hashname(g, b->e[i].name, b->e[i].namelen);
		k->seq = (uint32_t)i + 2;
		k->name = b->e[i].name;
		k->namelen = b->e[i].namelen;
		k->addr = xfmt_dir2_db_off_to_dataptr(g, b->pos[i].db, b->pos[i].off);
	}
	return xfmt_dirb_sort_keys(g, b->keys, b->n + 2);
}

/* Decide the form and every block count; no block is written yet. */
static int plan_layout(struct xfmt_dirb *b, const struct xfmt_dir2_build_opts *o)
{
	const struct xfmt_geom *g = b->g;
	size_t lhdr = g->v5 ? XFMT_DIR3_LEAF_HDR : XFMT_DIR2_LEAF_HDR;
	uint64_t nle = (uint64_t)b->n + 2;
	int rc;

	if (o->form == XFMT_DIR2_FORM_SF)
		return XFMT_DIRB_NOFIT;
	if (o->form == XFMT_DIR2_FORM_BLOCK ||
	    (o->form == XFMT_DIR2_FORM_AUTO && o->data_blocks <= 1 && block_fits(b))) {
		if (!block_fits(b) || o->data_blocks > 1 || o->leaf_blocks != 0)
			return XFMT_DIRB_NOFIT;
		place_one_block(b);
		b->form = XFMT_DIR2_FORM_BLOCK;
		return 0;
	}
	rc = place_data(b, o->data_blocks);
	if (rc)
		return rc;
	if ((uint64_t)b->ndata << (g->blocklog + g->dirblklog) > XFS_DIR2_LEAF_OFFSET)
		return XFMT_DIRB_TOOBIG;
	if (o->form != XFMT_DIR2_FORM_NODE && o->leaf_blocks == 0 &&
	    lhdr + nle * XFMT_DIR2_LEAF_ENTRY + 2ull * b->ndata + XFMT_DIR2_LEAF_TAIL <=
	    g->dirblksize) {
		b->form = XFMT_DIR2_FORM_LEAF;
		b->nleaf = 1;
		return 0;
	}
	if (o->form == XFMT_DIR2_FORM_LEAF)
		return XFMT_DIRB_NOFIT;
	b->form = XFMT_DIR2_FORM_NODE;
	return xfmt_dirb_plan_node(b, o->leaf_blocks);
}

int xfmt_dir2_build(const struct xfmt_geom *g, uint64_t dir_ino, uint64_t parent,
		    const struct xfmt_dirent_in *e, size_t n,
		    const struct xfmt_dir2_build_opts *opts, struct xfmt_dir2_build *out)
{
	static const struct xfmt_dir2_build_opts defaults;
	struct xfmt_dirb b;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	if (n > XFMT_DIR2_BUILD_MAX_ENTS)
		return XFMT_DIRB_TOOBIG;
	if (!xfmt_dir2_ino_ok(g, dir_ino) || !xfmt_dir2_ino_ok(g, parent) || (n > 0 && !e))
		return XFMT_DIRB_BADENT;
	for (size_t i = 0; i < n; i++)
		if ((rc = xfmt_dirb_check_ent(g, &e[i])) != 0)
			return rc;
	b.g = g;
	b.e = e;
	b.n = n;
	b.dir_ino = dir_ino;
	b.parent = parent;
	b.hdr = xfmt_dir2_data_hdr_len(g);
	b.pos = calloc(n ? n : 1, sizeof(*b.pos));
	b.dend = calloc(n + 1, sizeof(*b.dend));
	b.keys = calloc(n + 2, sizeof(*b.keys));
	if (!b.pos || !b.dend || !b.keys) {
		rc = XFMT_DIRB_NOMEM;
		goto out;
	}
	if ((rc = plan_layout(&b, opts ? opts : &defaults)) != 0)
		goto out;
	if ((rc = make_keys(&b)) != 0)
		goto out;
	if ((rc = xfmt_dirb_alloc_blocks(&b, out)) != 0)
		goto out;
	/* Data blocks first: they fill b.bests, which the index blocks carry. */
	xfmt_dirb_write_data(&b, out);
	xfmt_dirb_write_index(&b, out);
	out->form = b.form;
	out->di_size = (uint64_t)b.ndata * g->dirblksize;
	out->ndata = b.ndata;
	out->nleaf = b.nleaf;
	out->nnode = b.nnode;
	out->nfree = b.nfree;
	out->node_levels = b.levels;
out:
	free(b.pos);
	free(b.dend);
	free(b.keys);
	free(b.bests);
	free(b.nodes);
	if (rc)
		xfmt_dir2_build_release(out);
	return rc;
}

/* ------------------------------------------------------------------ seal */

int xfmt_dir2_blk_seal(const struct xfmt_geom *g, uint8_t *buf, size_t len,
		       uint64_t daddr, uint64_t owner, uint64_t lsn)
{
	uint32_t magic32;
	uint16_t magic16;

	if (len < g->dirblksize || g->dirblksize < XFMT_DIR3_DATA_HDR)
		return -1;
	magic32 = xfmt_get_be32(buf + DH_MAGIC);
	magic16 = xfmt_get_be16(buf + DA_MAGIC);
	if (!g->v5) {
		bool known = magic32 == XFS_DIR2_BLOCK_MAGIC || magic32 == XFS_DIR2_DATA_MAGIC ||
			     magic32 == XFS_DIR2_FREE_MAGIC || magic16 == XFS_DIR2_LEAF1_MAGIC ||
			     magic16 == XFS_DIR2_LEAFN_MAGIC || magic16 == XFS_DA_NODE_MAGIC;

		return known ? 0 : -1;
	}
	if (magic32 == XFS_DIR3_BLOCK_MAGIC || magic32 == XFS_DIR3_DATA_MAGIC ||
	    magic32 == XFS_DIR3_FREE_MAGIC) {
		xfmt_put_be64(buf + BH_BLKNO, daddr);
		xfmt_put_be64(buf + BH_LSN, lsn);
		memcpy(buf + BH_UUID, g->meta_uuid, 16);
		xfmt_put_be64(buf + BH_OWNER, owner);
		xfmt_crc_update(buf, g->dirblksize, BH_CRC);
		return 0;
	}
	if (magic16 == XFS_DIR3_LEAF1_MAGIC || magic16 == XFS_DIR3_LEAFN_MAGIC ||
	    magic16 == XFS_DA3_NODE_MAGIC) {
		xfmt_put_be64(buf + DA_BLKNO, daddr);
		xfmt_put_be64(buf + DA_LSN, lsn);
		memcpy(buf + DA_UUID, g->meta_uuid, 16);
		xfmt_put_be64(buf + DA_OWNER, owner);
		xfmt_crc_update(buf, g->dirblksize, DA_CRC);
		return 0;
	}
	return -1;
}
