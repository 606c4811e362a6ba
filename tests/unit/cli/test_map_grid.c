/*
 * test_map_grid.c - the map's grid of one AG (cli/views/map_grid.c):
 * exact totals, cells, double claims, finding marks, capped owner lists and
 * hostile records, on hand-made owner lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyzer/check/ownrec.h"
#include "cli/views/map_grid.h"
#include "formats/btrec.h"

/* Inodes below 1000 are regular files, the rest directories. */
static enum xc_map_class fake_inode_class(void *arg, uint64_t ino)
{
	(void)arg;
	return ino < 1000 ? XC_MC_DATA : XC_MC_DIR;
}

struct fixture {
	struct xa_ownlist owners, free;
	struct xc_map_src src;
	struct xc_map_ag m;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->src.owners = &f->owners;
	f->src.free = &f->free;
	f->src.inode_class = fake_inode_class;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	xa_ownlist_release(&f->owners);
	xa_ownlist_release(&f->free);
	xc_map_ag_release(&f->m);
	free(f);
	return 0;
}

static void own(struct fixture *f, uint32_t agbno, uint32_t len, uint64_t owner, uint32_t flags)
{
	assert_int_equal(xa_ownlist_add(&f->owners, agbno, len, owner, 0, flags), 0);
}

static void freeext(struct fixture *f, uint32_t agbno, uint32_t len)
{
	assert_int_equal(xa_ownlist_add(&f->free, agbno, len, 0, 0, 0), 0);
}

static void test_totals_and_cells(void **state)
{
	struct fixture *f = *state;
	const struct xc_map_ag *m = &f->m;

	own(f, 0, 1, XFS_RMAP_OWN_FS, 0);
	own(f, 1, 4, XFS_RMAP_OWN_AG, 0);
	own(f, 10, 200, 100, 0);              /* file data */
	own(f, 300, 3, 2000, 0);              /* directory */
	own(f, 303, 1, 2000, XA_OWN_BMBT);
	own(f, 304, 2, 100, XA_OWN_ATTR);
	freeext(f, 500, 400);
	/* 1000 blocks in at most 10 x 2 cells: 50 blocks a cell, 20 cells */
	assert_int_equal(xc_map_ag_build(&f->m, 3, 1000, 10, 2, &f->src), 0);
	assert_int_equal(m->cell_blocks, 50);
	assert_int_equal(m->ncells, 20);
	assert_int_equal(m->rows, 2);
	assert_int_equal(m->total[XC_MC_FS], 1);
	assert_int_equal(m->total[XC_MC_AGSPACE], 4);
	assert_int_equal(m->total[XC_MC_DATA], 200);
	assert_int_equal(m->total[XC_MC_DIR], 3);
	assert_int_equal(m->total[XC_MC_BMBT], 1);
	assert_int_equal(m->total[XC_MC_XATTR], 2);
	assert_int_equal(m->total[XC_MC_FREE], 400);
	assert_int_equal(m->total[XC_MC_UNACCOUNTED], 1000 - 611);
	assert_int_equal(m->disputed_blocks, 0);
	/* cell 0 (blocks 0-49): 1 + 4 + 40 owned, 5 neither */
	assert_int_equal(m->cells[0].n[XC_MC_DATA], 40);
	assert_int_equal(m->cells[0].n[XC_MC_UNACCOUNTED], 5);
	assert_int_equal(m->cells[0].cls, XC_MC_DATA);
	assert_int_equal(m->cells[0].nowners, 3);
	/* cells 1-3 wholly file data, named once */
	for (unsigned c = 1; c <= 3; c++) {
		assert_int_equal(m->cells[c].n[XC_MC_DATA], 50);
		assert_int_equal(m->cells[c].nowners, 1);
		assert_int_equal(m->cells[c].owner[0], 100);
	}
	/* cell 4 (200-249): 10 data, 40 neither free nor owned */
	assert_int_equal(m->cells[4].cls, XC_MC_UNACCOUNTED);
	/* cell 6 (300-349): dir, bmbt and attr owners kept apart by their flags */
	assert_int_equal(m->cells[6].nowners, 3);
	assert_int_equal(m->cells[6].oflags[1], XA_OWN_BMBT);
	assert_int_equal(m->cells[10].cls, XC_MC_FREE);
	assert_int_equal(m->cells[10].n[XC_MC_FREE], 50);
	for (unsigned c = 0; c < m->ncells; c++)
		assert_false(m->cells[c].marked);
}

static void test_last_cell_short(void **state)
{
	struct fixture *f = *state;

	freeext(f, 0, 1001);
	assert_int_equal(xc_map_ag_build(&f->m, 0, 1001, 10, 2, &f->src), 0);
	assert_int_equal(f->m.cell_blocks, 51);
	assert_int_equal(f->m.ncells, 20);
	assert_int_equal(xc_map_cell_size(&f->m, 19), 1001 - 19 * 51);
	assert_int_equal(f->m.cells[19].n[XC_MC_FREE], 1001 - 19 * 51);
	assert_int_equal(f->m.cells[19].n[XC_MC_UNACCOUNTED], 0);
	assert_int_equal(f->m.total[XC_MC_UNACCOUNTED], 0);
}

static void test_double_claims(void **state)
{
	struct fixture *f = *state;

	own(f, 10, 20, 100, 0);                    /* file data 10-29 */
	own(f, 20, 20, XFS_RMAP_OWN_INODES, 0);    /* inode chunk 20-39: 10 claimed twice */
	own(f, 60, 10, 100, 0);
	own(f, 60, 10, 101, 0);                    /* shared file data: fine only with reflink */
	freeext(f, 65, 20);                        /* free but owned: 65-69 */
	assert_int_equal(xc_map_ag_build(&f->m, 0, 100, 10, 1, &f->src), 0);
	/* 20-29 (data and chunk), 60-69 (two files); 65-69 (free) is among them */
	assert_int_equal(f->m.disputed_blocks, 10 + 10);
	assert_true(f->m.cells[2].disputed);
	assert_true(f->m.cells[2].marked);
	assert_int_equal(f->m.cells[2].ncodes, 1);
	assert_int_equal(f->m.cells[2].codes[0], 0);
	assert_false(f->m.cells[1].disputed);     /* 10-19: one owner */
	assert_false(f->m.cells[4].disputed);
	/* shared data counts once per owner */
	assert_int_equal(f->m.total[XC_MC_DATA], 40);
	xc_map_ag_release(&f->m);

	f->src.reflink = true;
	assert_int_equal(xc_map_ag_build(&f->m, 0, 100, 10, 1, &f->src), 0);
	assert_int_equal(f->m.disputed_blocks, 10 + 5);
	assert_true(f->m.cells[6].disputed);       /* the free extent still is */
}

static void test_marks(void **state)
{
	struct fixture *f = *state;
	const struct xc_map_mark marks[] = {
		{ 120, 1, 0x0F01 },
		{ 120, 1, 0x0F03 },
		{ 300, 250, 0x0F08 },        /* clipped to the AG */
		{ 5000, 1, 0x0F02 },         /* past the AG: ignored */
	};

	own(f, 0, 400, 5, 0);
	f->src.marks = marks;
	f->src.nmarks = sizeof(marks) / sizeof(marks[0]);
	assert_int_equal(xc_map_ag_build(&f->m, 0, 400, 8, 1, &f->src), 0);
	assert_int_equal(f->m.cell_blocks, 50);
	assert_true(f->m.cells[2].marked);
	assert_false(f->m.cells[2].disputed);
	assert_int_equal(f->m.cells[2].ncodes, 2);
	assert_int_equal(f->m.cells[2].codes[1], 0x0F03);
	assert_false(f->m.cells[1].marked);
	assert_false(f->m.cells[3].marked);
	for (unsigned c = 6; c < 8; c++) {
		assert_true(f->m.cells[c].marked);
		assert_int_equal(f->m.cells[c].codes[0], 0x0F08);
	}
}

static void test_owner_list_capped(void **state)
{
	struct fixture *f = *state;

	for (uint64_t ino = 1; ino <= 6; ino++)
		own(f, (uint32_t)ino, 1, ino, 0);
	assert_int_equal(xc_map_ag_build(&f->m, 0, 100, 10, 1, &f->src), 0);
	assert_int_equal(f->m.cells[0].nowners, XC_MAP_CELL_OWNERS);
	assert_true(f->m.cells[0].more_owners);
	assert_int_equal(f->m.cells[0].owner[0], 1);
	assert_false(f->m.cells[1].more_owners);
}

/* Records past the AG, of length 0, spanning 2^32 blocks, and many of them
 * over one range: clipped, bounded, no overflow. */
static void test_hostile(void **state)
{
	struct fixture *f = *state;
	const uint32_t len = UINT32_MAX;

	own(f, 0, UINT32_MAX, 7, 0);
	own(f, UINT32_MAX - 1, 100, XFS_RMAP_OWN_LOG, 0);
	own(f, 10, 0, 8, 0);
	own(f, 0, 1, 0x8000000000000001ull, 0);     /* a special owner with no name */
	for (unsigned i = 0; i < 2000; i++)
		own(f, 0, UINT32_MAX, XFS_RMAP_OWN_INODES, 0);
	assert_int_equal(xc_map_ag_build(&f->m, 0, len, 512, 8, &f->src), 0);
	assert_int_equal(f->m.ncells, 4096);
	assert_int_equal(f->m.total[XC_MC_DATA], UINT32_MAX);
	assert_int_equal(f->m.total[XC_MC_LOG], 1);
	assert_int_equal(f->m.total[XC_MC_OTHER], 1);
	assert_int_equal(f->m.total[XC_MC_INODES], 2000ull * UINT32_MAX);
	assert_int_equal(f->m.outside_blocks, 99);
	assert_int_equal(f->m.total[XC_MC_UNACCOUNTED], 0);
	assert_int_equal(f->m.disputed_blocks, UINT32_MAX);
	assert_int_equal(f->m.cells[100].cls, XC_MC_INODES);
	assert_true(f->m.cells[4095].marked);
	/* an empty AG has no cells and needs none */
	xc_map_ag_release(&f->m);
	assert_int_equal(xc_map_ag_build(&f->m, 0, 0, 512, 8, &f->src), 0);
	assert_int_equal(f->m.ncells, 0);
	assert_int_equal(f->m.total[XC_MC_UNACCOUNTED], 0);
}

static void test_classify(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(xc_map_classify(&f->src, XFS_RMAP_OWN_REFC, 0), XC_MC_REFCBT);
	assert_int_equal(xc_map_classify(&f->src, XFS_RMAP_OWN_COW, 0), XC_MC_COW);
	assert_int_equal(xc_map_classify(&f->src, XFS_RMAP_OWN_INOBT, 0), XC_MC_INOBT);
	assert_int_equal(xc_map_classify(&f->src, XFS_RMAP_OWN_NULL, 0), XC_MC_OTHER);
	assert_int_equal(xc_map_classify(&f->src, 5, XA_OWN_ATTR | XA_OWN_BMBT), XC_MC_BMBT);
	assert_int_equal(xc_map_classify(&f->src, 5, XA_OWN_ATTR), XC_MC_XATTR);
	assert_int_equal(xc_map_classify(&f->src, 5000, XA_OWN_UNWRITTEN), XC_MC_DIR);
	f->src.inode_class = NULL;
	assert_int_equal(xc_map_classify(&f->src, 5, 0), XC_MC_INODE_OTHER);
	for (unsigned k = 0; k < XC_MC_COUNT; k++) {
		assert_non_null(xc_map_class_info(k)->id);
		assert_int_equal(xc_map_class_info(k)->color[0], '#');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_totals_and_cells, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_cell_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_double_claims, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_list_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_classify, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
