/*
 * test_ag_rebuild.c - xr_ag_rebuild on a small synthetic AG: what it plans
 * passes the AGF, AGI, AGFL and btree verifiers and adds up; hostile input
 * (records outside the AG, overlaps that are not file sharing, owners of
 * the rebuilt structures, no room, bad chunks, sharing without reflink) is
 * refused with XERR_UNSUPPORTED and plans nothing.  The corpus-wide test
 * against xfs_repair and the kernel is tests/oracle/ag_rebuild.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/btrec.h"
#include "reconstruct/ag_rebuild.h"
#include "reconstruct/env.h"
#include "reconstruct/plan.h"

#include "../formats/fixtures/bt_geom.h"

/* AG 0 of bt_geom_v5 (rmapbt, reflink, finobt, sparse inodes, inobtcount):
 * 4 KiB blocks, 512-byte sectors (all headers in block 0), 8 inodes a block. */
#define AGLEN 40960u

struct fx {
	struct xfmt_geom  g;
	struct xr_plan    plan;
	struct xr_env     env;
	struct xa_ownlist kept;
	struct xa_ichunk  chunks[2];
	size_t            nchunks;
	int               action;
};

static void fx_init(struct fx *f, const struct xfmt_geom *g)
{
	memset(f, 0, sizeof(*f));
	f->g = *g;
	xr_plan_init(&f->plan);
	f->env = (struct xr_env){ .plan = &f->plan, .g = &f->g, .v5 = g->v5, .lsn = 0x100000010ull };
	f->action = xr_plan_action(&f->plan, XR_ACT_REBUILD_AG, 0, 0, "test");
	assert_true(f->action >= 0);
	/* headers, one inode chunk at agino 64 (blocks 8..15), two files sharing
	 * blocks 105..109 (inodes 64 and 65), a bmbt block, a CoW staging extent */
	assert_int_equal(xa_ownlist_add(&f->kept, 0, 1, XFS_RMAP_OWN_FS, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f->kept, 8, 8, XFS_RMAP_OWN_INODES, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f->kept, 100, 10, 64, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f->kept, 105, 10, 65, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f->kept, 200, 1, 65, 0, XA_OWN_BMBT), 0);
	if (xfmt_geom_has_reflink(g))
		assert_int_equal(xa_ownlist_add(&f->kept, 300, 4, XFS_RMAP_OWN_COW, 0, 0), 0);
	f->chunks[0] = (struct xa_ichunk){ .startino = 64, .holemask = 0, .count = 64,
					   .freecount = 62, .free = ~3ull };
	f->nchunks = 1;
}

static void fx_release(struct fx *f)
{
	xa_ownlist_release(&f->kept);
	xr_plan_release(&f->plan);
}

static int run(struct fx *f, struct xr_ag_result *res)
{
	struct xr_ag_input in = { .agno = 0, .kept = &f->kept, .chunks = f->chunks,
				  .nchunks = f->nchunks };

	return xr_ag_rebuild(&f->env, &in, f->action, res);
}

/* The planned bytes at filesystem offset off (whole change), or NULL. */
static const struct xr_change *change_at(const struct fx *f, uint64_t off)
{
	for (size_t i = 0; i < f->plan.nchanges; i++)
		if (f->plan.changes[i].offset == off)
			return &f->plan.changes[i];
	return NULL;
}

/* Verify the btree block at agbno (a root of level `level`) has no finding. */
static void check_root(const struct fx *f, enum xfmt_btnum bt, uint32_t agbno, uint32_t level)
{
	const struct xr_change *c = change_at(f, (uint64_t)agbno * f->g.blocksize);
	struct xfmt_bt_expect e = { .level = (int)level, .owner = 0, .is_root = true,
				    .daddr = (uint64_t)agbno * (f->g.blocksize / 512) };
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	assert_non_null(c);
	assert_int_equal(c->len, f->g.blocksize);
	assert_int_equal(xfmt_bt_verify_hdr(c->bytes, c->len, bt, &f->g, &e, &s), 0);
}

static void test_rebuild_v5(void **state)
{
	struct fx f;
	struct xr_ag_result res;
	const struct xr_change *c;
	struct xfmt_agf agf;
	struct xfmt_agi agi;
	struct xfmt_agfl agfl;
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);
	uint64_t owned = 1 + 8 + 15 + 1 + 4, newblocks;

	(void)state;
	fx_init(&f, &bt_geom_v5);
	assert_int_equal(run(&f, &res), 0);

	c = change_at(&f, 512);
	assert_non_null(c);
	assert_int_equal(xfmt_agf_decode(c->bytes, c->len, &agf), 0);
	assert_int_equal(xfmt_agf_verify(c->bytes, c->len, &agf, &f.g, 0, &s), 0);
	c = change_at(&f, 1024);
	assert_non_null(c);
	assert_int_equal(xfmt_agi_decode(c->bytes, c->len, &agi), 0);
	assert_int_equal(xfmt_agi_verify(c->bytes, c->len, &agi, &f.g, 0, &s), 0);
	c = change_at(&f, 1536);
	assert_non_null(c);
	assert_int_equal(xfmt_agfl_decode(c->bytes, c->len, &f.g, &agfl), 0);
	assert_int_equal(xfmt_agfl_verify(c->bytes, c->len, &agfl, &agf, &f.g, 0, &s), 0);

	/* One-level trees; the kernel's minimum AGFL of 2 + 2 + 2 blocks. */
	assert_int_equal(agf.bno_level, 1);
	assert_int_equal(agf.cnt_level, 1);
	assert_int_equal(agf.rmap_level, 1);
	assert_int_equal(agf.refcount_level, 1);
	assert_int_equal(agf.flcount, 6);
	assert_int_equal(agf.btreeblks, 0);
	assert_int_equal(agf.rmap_blocks, 1);
	assert_int_equal(agf.refcount_blocks, 1);
	check_root(&f, XFMT_BT_BNO, agf.bno_root, 0);
	check_root(&f, XFMT_BT_CNT, agf.cnt_root, 0);
	check_root(&f, XFMT_BT_RMAP, agf.rmap_root, 0);
	check_root(&f, XFMT_BT_REFC, agf.refcount_root, 0);
	check_root(&f, XFMT_BT_INO, agi.root, 0);
	check_root(&f, XFMT_BT_FINO, agi.free_root, 0);

	/* Space adds up: owned + bno, cnt, rmap, refc, ino, fino + AGFL + free. */
	newblocks = 6 + agf.flcount;
	assert_int_equal(agf.freeblks + owned + newblocks, AGLEN);
	assert_int_equal(res.freeblks, agf.freeblks);
	assert_int_equal(res.flcount, 6);
	assert_int_equal(agi.count, 64);
	assert_int_equal(agi.freecount, 62);
	assert_int_equal(agi.newino, 64);
	assert_int_equal(agi.iblocks, 1);
	assert_int_equal(agi.fblocks, 1);
	assert_int_equal(res.icount, 64);
	assert_int_equal(res.ifree, 62);
	for (int i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++)
		assert_int_equal(agi.unlinked[i], XFS_NULLAGINO);
	fx_release(&f);
}

/* Each hostile variation must be refused without planning a byte. */
static void refused(struct fx *f)
{
	struct xr_ag_result res;

	assert_int_equal(run(f, &res), XERR_UNSUPPORTED);
	assert_int_equal(f->plan.nchanges, 0);
	fx_release(f);
}

static void test_hostile(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f, &bt_geom_v5);           /* past the end of the AG */
	assert_int_equal(xa_ownlist_add(&f.kept, AGLEN - 5, 10, 66, 0, 0), 0);
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* inode chunk over file data */
	assert_int_equal(xa_ownlist_add(&f.kept, 100, 8, XFS_RMAP_OWN_INODES, 0, 0), 0);
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* a bmbt block shared */
	assert_int_equal(xa_ownlist_add(&f.kept, 200, 1, 64, 0, XA_OWN_BMBT), 0);
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* an owner the rebuild replaces */
	assert_int_equal(xa_ownlist_add(&f.kept, 500, 1, XFS_RMAP_OWN_AG, 0, 0), 0);
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* no room for the new trees */
	assert_int_equal(xa_ownlist_add(&f.kept, 400, AGLEN - 400, 70, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f.kept, 16, 84, 71, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f.kept, 1, 7, 72, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f.kept, 115, 85, 73, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f.kept, 201, 99, 74, 0, 0), 0);
	assert_int_equal(xa_ownlist_add(&f.kept, 304, 90, 75, 0, 0), 0);
	refused(&f);                        /* (6 blocks left, 12 needed) */
	fx_init(&f, &bt_geom_v5);           /* free count that the free mask denies */
	f.chunks[0].freecount = 5;
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* chunks out of order */
	f.chunks[1] = f.chunks[0];
	f.nchunks = 2;
	refused(&f);
	fx_init(&f, &bt_geom_v5);           /* a misaligned chunk */
	f.chunks[0].startino = 72;
	refused(&f);
	fx_init(&f, &bt_geom_v4);           /* sharing without reflink */
	refused(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuild_v5),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
