/*
 * test_fork_write.c - the bmbt a fork is rebuilt as: its shape (levels,
 * blocks, the root's size against the fork's, the kernel's level limit)
 * and its encoding read back through the btree header verifier, the record
 * decoder and the bmdr root accessors (records in order, node keys equal
 * to the first offset below each child, sibling chains, minrecs, the v5
 * header identity).  The repaired images themselves are judged by
 * xfs_repair, xfs_db and the kernel in tests/oracle/repair_bmbt.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "formats/btrec.h"
#include "formats/btree.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "reconstruct/fork_write.h"

#include "../formats/fixtures/bt_geom.h"

#define INO 786622ull
#define LSN 0x100000013ull

/* Sizes of a data fork: a 512-byte v3 inode without / with an attr fork
 * at forkoff 24, and a 256-byte v2 inode without one. */
#define FORK_V5_FULL 336u
#define FORK_V5_SPLIT 192u
#define FORK_V4_FULL 156u

static void test_shape(void **state)
{
	const struct xfmt_geom *g = &bt_geom_v5;
	struct xr_bmbt_shape s;

	(void)state;
	/* 5000 mappings: 20 leaves fit a 336-byte root, not a 192-byte one. */
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 5000, &s), 0);
	assert_int_equal(s.root_level, 1);
	assert_int_equal(s.root_numrecs, 20);
	assert_int_equal(s.blocks, 20);
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_SPLIT, XR_DATA_FORK, 5000, &s), 0);
	assert_int_equal(s.root_level, 2);
	assert_int_equal(s.root_numrecs, 1);
	assert_int_equal(s.blocks, 21);
	/* A list that fits the fork is no tree; one more mapping is one leaf. */
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 21, &s), XERR_USAGE);
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 22, &s), 0);
	assert_int_equal(s.root_level, 1);
	assert_int_equal(s.root_numrecs, 1);
	assert_int_equal(s.blocks, 1);
	/* Exactly full leaves, and one record more (a leaf holds 251 on v5). */
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 2 * 251, &s), 0);
	assert_int_equal(s.level_blocks[0], 2);
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 2 * 251 + 1, &s), 0);
	assert_int_equal(s.level_blocks[0], 3);
	/* A root of two pointers over 797 leaves: two node levels. */
	assert_int_equal(xr_bmbt_shape(g, 36, XR_DATA_FORK, 200000, &s), 0);
	assert_int_equal(s.root_level, 3);
	assert_int_equal(s.level_blocks[0], 797);
	assert_int_equal(s.level_blocks[1], 4);
	assert_int_equal(s.level_blocks[2], 1);
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, 2, 5000, &s), XERR_USAGE);
}

static void test_levels(void **state)
{
	struct xr_bmbt_shape s;

	(void)state;
	/* The kernel's XFS_BM_MAXLEVELS for 4 KiB blocks. */
	assert_int_equal(xr_bmbt_maxlevels(&bt_geom_v5, XR_DATA_FORK), 5);
	assert_int_equal(xr_bmbt_maxlevels(&bt_geom_v5, XR_ATTR_FORK), 3);
	/* The largest data fork fits; an attr fork as large does not. */
	assert_int_equal(xr_bmbt_shape(&bt_geom_v5, FORK_V5_FULL, XR_DATA_FORK,
				       XFS_MAX_EXTCNT_DATA_FORK_SMALL, &s), 0);
	assert_true(s.root_level + 1 <= 5);
	assert_int_equal(xr_bmbt_shape(&bt_geom_v5, 64, XR_ATTR_FORK, 1000000, &s),
			 XERR_UNSUPPORTED);
	assert_int_equal(s.blocks, 0);
	/* A fork too small for a root with one pointer. */
	assert_int_equal(xr_bmbt_shape(&bt_geom_v5, 16, XR_DATA_FORK, 5000, &s), XERR_UNSUPPORTED);
}

/* Mappings like /frag/extents: n one-block extents, every other block. */
static struct xfmt_bmbt_rec *frag_maps(const struct xfmt_geom *g, size_t n)
{
	struct xfmt_bmbt_rec *m = calloc(n, sizeof(*m));

	assert_non_null(m);
	for (size_t i = 0; i < n; i++)
		m[i] = (struct xfmt_bmbt_rec){ .startoff = 2 * i,
					       .startblock = xfmt_geom_fsb(g, 1, 100 + (2 * i) % 40000),
					       .blockcount = 1, .unwritten = (i % 7) == 3 };
	return m;
}

/* Encode n mappings into a fork of forksize bytes and read everything back. */
static void roundtrip(const struct xfmt_geom *g, size_t forksize, size_t n)
{
	struct xfmt_bmbt_rec *m = frag_maps(g, n);
	struct xr_bmbt_shape s;
	uint64_t *fsbs;
	uint8_t *blocks, fork[512];
	uint64_t first = 0, next_rec = 0;
	unsigned leafmax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, true);
	unsigned nodemax = xfmt_bt_maxrecs(XFMT_BT_BMAP, g->blocksize, g->v5, false);
	uint64_t *firstkey;
	uint16_t level, numrecs;

	assert_int_equal(xr_bmbt_shape(g, forksize, XR_DATA_FORK, n, &s), 0);
	fsbs = calloc(s.blocks, sizeof(*fsbs));
	blocks = calloc(s.blocks, g->blocksize);
	firstkey = calloc(s.blocks, sizeof(*firstkey));
	assert_non_null(fsbs);
	assert_non_null(blocks);
	assert_non_null(firstkey);
	/* blocks of the last AG, not in order, so pointers are not guessable */
	for (uint32_t k = 0; k < s.blocks; k++)
		fsbs[k] = xfmt_geom_fsb(g, g->agcount - 1, 5000 - 3 * k);
	memset(fork, 0xAA, sizeof(fork));
	assert_int_equal(xr_bmbt_encode(g, INO, LSN, &s, m, fsbs, blocks, fork, forksize), 0);

	for (unsigned l = 0; l < s.root_level; l++) {
		uint64_t nb = s.level_blocks[l], child = first - (l ? s.level_blocks[l - 1] : 0);

		for (uint64_t j = 0; j < nb; j++) {
			const uint8_t *blk = blocks + (first + j) * g->blocksize;
			struct xfmt_bt_expect e = { .level = (int)l,
						    .daddr = xfmt_geom_fsb_byte(g, fsbs[first + j]) >> 9,
						    .owner = INO, .is_root = false };
			struct bt_rec r;
			struct xprob_sink sink = bt_rec_sink(&r);
			struct xfmt_bt_hdr h;

			assert_int_equal(xfmt_bt_verify_hdr(blk, g->blocksize, XFMT_BT_BMAP, g, &e,
							    &sink), 0);
			assert_int_equal(xfmt_bt_hdr_decode(blk, g->blocksize, XFMT_BT_BMAP, g->v5,
							    &h), 0);
			assert_int_equal(h.magic, xfmt_bt_magic(XFMT_BT_BMAP, g->v5));
			assert_int_equal(h.leftsib, j ? fsbs[first + j - 1] : XFS_NULLFSBLOCK);
			assert_int_equal(h.rightsib, j + 1 < nb ? fsbs[first + j + 1] : XFS_NULLFSBLOCK);
			if (g->v5) {
				assert_int_equal(h.owner, INO);
				assert_int_equal(h.lsn, LSN);
				assert_memory_equal(h.uuid, g->meta_uuid, 16);
			}
			assert_true(h.numrecs <= (l ? nodemax : leafmax));
			/* minrecs, except a level's only block (right below the root) */
			if (nb > 1)
				assert_true(h.numrecs >= (l ? nodemax : leafmax) / 2);
			for (unsigned i = 0; i < h.numrecs; i++) {
				if (l == 0) {
					struct xfmt_bmbt_rec got;
					const uint8_t *p = xfmt_bt_rec(blk, g->blocksize, XFMT_BT_BMAP,
								       g->v5, i);

					assert_non_null(p);
					xfmt_bmbt_rec_decode(p, &got);
					assert_true(next_rec < n);
					assert_int_equal(got.startoff, m[next_rec].startoff);
					assert_int_equal(got.startblock, m[next_rec].startblock);
					assert_int_equal(got.blockcount, m[next_rec].blockcount);
					assert_int_equal(got.unwritten, m[next_rec].unwritten);
					if (i == 0)
						firstkey[first + j] = got.startoff;
					next_rec++;
				} else {
					const uint8_t *kp = xfmt_bt_key(blk, g->blocksize,
									XFMT_BT_BMAP, g->v5, i);
					uint64_t ptr;

					assert_non_null(kp);
					assert_int_equal(xfmt_bt_ptr(blk, g->blocksize, XFMT_BT_BMAP,
								     g->v5, g->blocksize, i, &ptr), 0);
					assert_int_equal(ptr, fsbs[child]);
					assert_int_equal(xfmt_bmbt_key_decode(kp), firstkey[child]);
					if (i == 0)
						firstkey[first + j] = firstkey[child];
					child++;
				}
			}
		}
		first += nb;
	}
	assert_int_equal(next_rec, n);
	assert_int_equal(first, s.blocks);

	/* The root: level, count, keys and pointers to the top level's blocks. */
	assert_int_equal(xfmt_bmdr_decode(fork, forksize, &level, &numrecs), 0);
	assert_int_equal(level, s.root_level);
	assert_int_equal(numrecs, s.root_numrecs);
	assert_true(4u + 16u * numrecs <= forksize);
	for (unsigned i = 0; i < numrecs; i++) {
		uint64_t top = s.blocks - s.root_numrecs + i, key, ptr;

		assert_int_equal(xfmt_bmdr_key(fork, forksize, i, &key), 0);
		assert_int_equal(xfmt_bmdr_ptr(fork, forksize, i, &ptr), 0);
		assert_int_equal(ptr, fsbs[top]);
		assert_int_equal(key, firstkey[top]);
	}
	/* nothing written past the fork */
	assert_int_equal(fork[forksize], 0xAA);
	free(firstkey);
	free(blocks);
	free(fsbs);
	free(m);
}

static void test_encode_v5(void **state)
{
	(void)state;
	roundtrip(&bt_geom_v5, FORK_V5_FULL, 5000);     /* one level below the root */
	roundtrip(&bt_geom_v5, FORK_V5_SPLIT, 5000);    /* a node level too */
	roundtrip(&bt_geom_v5, FORK_V5_FULL, 22);       /* one short leaf */
	roundtrip(&bt_geom_v5, 36, 200000);             /* a root of two: two node levels */
}

static void test_encode_v4(void **state)
{
	(void)state;
	roundtrip(&bt_geom_v4, FORK_V4_FULL, 5000);
}

/* A shape that does not match the fork is refused before anything is written. */
static void test_encode_refuses(void **state)
{
	const struct xfmt_geom *g = &bt_geom_v5;
	struct xfmt_bmbt_rec *m = frag_maps(g, 5000);
	struct xr_bmbt_shape s;
	uint64_t fsbs[21];
	uint8_t *blocks = calloc(21, g->blocksize), fork[FORK_V5_FULL];

	(void)state;
	assert_non_null(blocks);
	for (unsigned k = 0; k < 21; k++)
		fsbs[k] = xfmt_geom_fsb(g, 1, 100 + k);
	assert_int_equal(xr_bmbt_shape(g, FORK_V5_FULL, XR_DATA_FORK, 5000, &s), 0);
	/* 20 root entries do not fit a 192-byte fork */
	assert_int_equal(xr_bmbt_encode(g, INO, LSN, &s, m, fsbs, blocks, fork, FORK_V5_SPLIT),
			 XERR_USAGE);
	s.blocks++;
	assert_int_equal(xr_bmbt_encode(g, INO, LSN, &s, m, fsbs, blocks, fork, FORK_V5_FULL),
			 XERR_USAGE);
	s.blocks--;
	s.level_blocks[0] = 2;  /* 2500 records a leaf */
	assert_int_equal(xr_bmbt_encode(g, INO, LSN, &s, m, fsbs, blocks, fork, FORK_V5_FULL),
			 XERR_USAGE);
	free(blocks);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_encode_v5),
		cmocka_unit_test(test_encode_v4),
		cmocka_unit_test(test_encode_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
