/*
 * test_bmap.c - fork mappings against real inodes and bmbt blocks
 * (fixtures/bmap_v5.h, made by fixtures/attr_recipe.sh and
 * attr_mkfixtures.sh).  Expected values are what xfs_db 6.1 printed for the
 * same image: `xfs_db -r -c 'inode N' -c p -c bmap v5.img` and the bmbt
 * blocks under inode 139.  Then one record or root field at a time is
 * corrupted and the exact findings are checked; truncated and random forks
 * must be read safely (the suite runs under ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/bmap.h"
#include "formats/btree.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/endian.h"

#include "fixtures/fixture.h"
#include "fixtures/attr_fx.h"
#include "fixtures/bmap_v5.h"

static const struct xfmt_geom *G = &afx_geom_v5;

/* Encode one bmbt record (the test's own writer, for corruptions). */
static void put_rec(uint8_t *p, uint64_t startoff, uint64_t startblock, uint32_t count,
		    bool unwritten)
{
	uint64_t l0 = (unwritten ? 1ull << 63 : 0) | (startoff << 9) | (startblock >> 43);
	uint64_t l1 = (startblock << 21) | count;

	xfmt_put_be64(p, l0);
	xfmt_put_be64(p + 8, l1);
}

struct inode_fx {
	uint8_t *buf;
	struct xfmt_dinode d;
	const uint8_t *fork;
	size_t size;
	struct xfmt_bmap_fork f;
};

static void load_inode(const struct afx_block *b, struct inode_fx *in)
{
	in->buf = afx_load(b);
	assert_int_equal(xfmt_dinode_decode(in->buf, b->len, G, &in->d), 0);
	in->fork = xfmt_dinode_fork(in->buf, &in->d, XFMT_DATA_FORK, &in->size);
	xfmt_bmap_fork_init(&in->f, G, &in->d, XFMT_DATA_FORK);
}

/* Record i of the sparse file's fork (inode 137). */
static uint8_t *sparse_rec(struct inode_fx *in, unsigned i)
{
	return in->buf + in->d.dfork_off + i * XFMT_BMBT_REC_LEN;
}

static void assert_rec(const struct xfmt_bmbt_rec *r, uint64_t off, uint64_t blk, uint32_t cnt,
		       bool unwritten)
{
	assert_int_equal(r->startoff, off);
	assert_int_equal(r->startblock, blk);
	assert_int_equal(r->blockcount, cnt);
	assert_int_equal(r->unwritten, unwritten);
}

static unsigned verify_data_fork(struct inode_fx *in, struct fx_sink *s)
{
	FX_SINK(sink, s);

	memset(s, 0, sizeof(*s));
	return xfmt_bmap_extents_verify(in->fork, in->size, in->d.nextents, G, &in->f, &sink);
}

/* ------------------------------------------------------------ decoding */

static void test_sparse_extents_match_xfs_db(void **state)
{
	struct inode_fx in;
	struct xfmt_bmbt_rec r[8];
	struct fx_sink s;

	(void)state;
	load_inode(&bmap_sparse_ino, &in);
	/* core.forkoff = 24: the data fork is 192 bytes, 12 records. */
	assert_int_equal(in.size, 192);
	assert_int_equal(xfmt_bmap_extents_capacity(in.size), 12);
	assert_int_equal(in.d.nextents, 5);
	assert_int_equal(xfmt_bmap_extents_decode(in.fork, in.size, in.d.nextents, r, 8), 5);
	/* u3.bmx[0-4] = 0:[0,16707,1,0] 1:[256,16708,1,0] 2:[2560,53,1,0]
	 * 3:[2561,54,15,1] 4:[25600,16709,1,0] */
	assert_rec(&r[0], 0, 16707, 1, false);
	assert_rec(&r[1], 256, 16708, 1, false);
	assert_rec(&r[2], 2560, 53, 1, false);
	assert_rec(&r[3], 2561, 54, 15, true);
	assert_rec(&r[4], 25600, 16709, 1, false);
	/* the caller's array bounds the decode */
	assert_int_equal(xfmt_bmap_extents_decode(in.fork, in.size, in.d.nextents, r, 2), 2);
	assert_int_equal(verify_data_fork(&in, &s), 0);
	free(in.buf);
}

static void test_prealloc_extents_match_xfs_db(void **state)
{
	struct inode_fx in;
	struct xfmt_bmbt_rec r[4];
	struct fx_sink s;

	(void)state;
	load_inode(&bmap_prealloc_ino, &in);
	assert_true(in.d.flags & XFS_DIFLAG_PREALLOC);
	assert_int_equal(xfmt_bmap_extents_decode(in.fork, in.size, in.d.nextents, r, 4), 2);
	/* u3.bmx[0-1] = 0:[0,69,2,0] 1:[2,71,254,1] */
	assert_rec(&r[0], 0, 69, 2, false);
	assert_rec(&r[1], 2, 71, 254, true);
	assert_int_equal(verify_data_fork(&in, &s), 0);
	free(in.buf);
}

static void test_lookup_sparse(void **state)
{
	struct inode_fx in;
	struct xfmt_bmbt_rec r[8];
	struct xfmt_bmap_map m;
	size_t n;

	(void)state;
	load_inode(&bmap_sparse_ino, &in);
	n = xfmt_bmap_extents_decode(in.fork, in.size, in.d.nextents, r, 8);

	assert_true(xfmt_bmap_lookup(r, n, 0, &m));
	assert_int_equal(m.fsblock, 16707);
	assert_int_equal(m.count, 1);
	assert_false(m.unwritten);
	assert_int_equal(m.idx, 0);

	/* the hole between the writes at 0 and 1 MiB */
	assert_false(xfmt_bmap_lookup(r, n, 1, &m));
	assert_int_equal(m.count, 255);
	assert_int_equal(m.idx, 1);

	assert_true(xfmt_bmap_lookup(r, n, 256, &m));
	assert_int_equal(m.fsblock, 16708);

	/* inside the unwritten preallocation after the 10 MiB write */
	assert_true(xfmt_bmap_lookup(r, n, 2565, &m));
	assert_true(m.unwritten);
	assert_int_equal(m.fsblock, 58);
	assert_int_equal(m.count, 11);
	assert_int_equal(m.idx, 3);

	assert_false(xfmt_bmap_lookup(r, n, 2576, &m));
	assert_int_equal(m.count, 25600 - 2576);
	assert_int_equal(m.idx, 4);

	assert_true(xfmt_bmap_lookup(r, n, 25600, &m));
	assert_int_equal(m.fsblock, 16709);

	/* past the end: a hole up to the largest file offset */
	assert_false(xfmt_bmap_lookup(r, n, 25601, &m));
	assert_int_equal(m.idx, 5);
	assert_int_equal(m.count, XFS_MAX_FILEOFF + 1 - 25601);
	assert_false(xfmt_bmap_lookup(r, n, UINT64_MAX, &m));
	assert_int_equal(m.count, 0);

	/* an empty list is one hole */
	assert_false(xfmt_bmap_lookup(NULL, 0, 7, &m));
	assert_int_equal(m.idx, 0);
	free(in.buf);
}

/* ------------------------------------------------------------ bmbt */

static void test_frag_root_matches_xfs_db(void **state)
{
	struct inode_fx in;
	struct xfmt_bmap_root root;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint64_t v;

	(void)state;
	load_inode(&bmap_frag_ino, &in);
	assert_int_equal(in.d.format, XFS_DINODE_FMT_BTREE);
	assert_int_equal(in.d.nextents, 11990);
	assert_int_equal(xfmt_bmap_root_decode(in.fork, in.size, &root), 0);
	/* u3.bmbt.level = 2, numrecs = 1, keys[1] = 0, ptrs[1] = 16750 */
	assert_int_equal(root.level, 2);
	assert_int_equal(root.numrecs, 1);
	assert_int_equal(root.maxrecs, 11);
	assert_int_equal(root.nrecs, 1);
	assert_int_equal(xfmt_bmdr_key(in.fork, in.size, 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(xfmt_bmdr_ptr(in.fork, in.size, 0, &v), 0);
	assert_int_equal(v, 16750);
	assert_int_equal(xfmt_bmap_root_verify(in.fork, in.size, G, XFMT_DATA_FORK, &sink), 0);
	assert_int_equal(s.n, 0);
	/* The inode verifier agrees the inode is clean. */
	assert_int_equal(xfmt_dinode_verify(in.buf, bmap_frag_ino.len, G, 139, &in.d, &sink), 0);
	free(in.buf);
}

static void test_maxlevels(void **state)
{
	struct xfmt_geom v4 = afx_geom_v4, big = afx_geom_v5;

	(void)state;
	/* 4 KiB v5: 251 records a block, 125 minimum; data 2^31-1 extents. */
	assert_int_equal(xfmt_bmap_maxlevels(G, XFMT_DATA_FORK), 5);
	/* attr: 2^15-1 extents, a two-pointer root */
	assert_int_equal(xfmt_bmap_maxlevels(G, XFMT_ATTR_FORK), 3);
	/* v4 (254 records a block) is the same height */
	assert_int_equal(xfmt_bmap_maxlevels(&v4, XFMT_DATA_FORK), 5);
	/* NREXT64: 2^48-1 data extents need more levels */
	big.incompat |= 0x20u;
	assert_int_equal(xfmt_bmap_maxlevels(&big, XFMT_DATA_FORK), 7);
	assert_int_equal(xfmt_bmap_maxlevels(&big, XFMT_ATTR_FORK), 5);
}

/* Feed the records of one bmbt leaf block to c. */
static void feed_leaf(struct xfmt_bmap_check *c, const uint8_t *blk, size_t len,
		      struct xfmt_bmbt_rec *out, size_t *nout, const struct xprob_sink *sink)
{
	struct xfmt_bt_hdr h;

	assert_int_equal(xfmt_bt_hdr_decode(blk, len, XFMT_BT_BMAP, true, &h), 0);
	assert_int_equal(h.level, 0);
	for (unsigned i = 0; i < h.numrecs; i++) {
		const uint8_t *p = xfmt_bt_rec(blk, len, XFMT_BT_BMAP, true, i);

		assert_non_null(p);
		xfmt_bmbt_rec_decode(p, &out[*nout]);
		xfmt_bmap_check_rec(c, &out[*nout], sink);
		(*nout)++;
	}
}

static void test_frag_leaves_match_xfs_db(void **state)
{
	uint8_t *l0 = afx_load(&bmap_frag_leaf0), *l1 = afx_load(&bmap_frag_leaf1);
	struct xfmt_bmbt_rec *r = calloc(600, sizeof(*r));
	struct xfmt_bmap_check c;
	struct xfmt_bmap_fork f = { XFMT_DATA_FORK, 0100600, false };
	struct xfmt_bmap_map m;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint64_t cnt = 0, sb = 0, so = 0, unw = 0;
	size_t n = 0;

	(void)state;
	assert_non_null(r);
	xfmt_bmap_check_init(&c, G, &f);
	feed_leaf(&c, l0, bmap_frag_leaf0.len, r, &n, &sink);
	feed_leaf(&c, l1, bmap_frag_leaf1.len, r, &n, &sink);
	fx_dump(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(c.nrecs, 502);
	assert_int_equal(c.findings, 0);

	/* The first 502 lines of `xfs_db -c 'inode 139' -c bmap`:
	 * sum of counts 502, of startblocks 431965, of offsets 130224,
	 * 246 with flag 1; and some of the lines themselves. */
	for (size_t i = 0; i < n; i++) {
		cnt += r[i].blockcount;
		sb += r[i].startblock;
		so += r[i].startoff;
		unw += r[i].unwritten;
	}
	assert_int_equal(cnt, 502);
	assert_int_equal(c.nblocks, 502);
	assert_int_equal(sb, 431965);
	assert_int_equal(so, 130224);
	assert_int_equal(unw, 246);
	assert_rec(&r[0], 0, 16710, 1, false);
	assert_rec(&r[8], 16, 16726, 1, false);
	assert_rec(&r[9], 18, 325, 1, false);
	assert_rec(&r[10], 19, 326, 1, true);
	assert_rec(&r[99], 108, 415, 1, false);
	assert_rec(&r[250], 259, 566, 1, true);
	assert_rec(&r[251], 260, 567, 1, false);
	assert_rec(&r[252], 261, 568, 1, true);
	assert_rec(&r[501], 510, 817, 1, false);

	/* Only two of the fork's leaves were fed: nextents 11990 disagrees. */
	assert_int_equal(xfmt_bmap_check_finish(&c, 11990, "core.nextents", &sink), 1);
	assert_int_equal(fx_count(&s, XP_bmapCountMismatch, "core.nextents"), 1);
	assert_int_equal(fx_find(&s, XP_bmapCountMismatch)->observed, 11990);
	assert_int_equal(fx_find(&s, XP_bmapCountMismatch)->expected, 502);
	s.n = 0;
	assert_int_equal(xfmt_bmap_check_finish(&c, 502, "core.nextents", &sink), 0);

	/* Lookups over the collected leaf records. */
	assert_false(xfmt_bmap_lookup(r, n, 1, &m));   /* every other block is a hole */
	assert_int_equal(m.count, 1);
	assert_true(xfmt_bmap_lookup(r, n, 19, &m));
	assert_true(m.unwritten);
	assert_int_equal(m.fsblock, 326);
	assert_true(xfmt_bmap_lookup(r, n, 510, &m));
	assert_int_equal(m.fsblock, 817);
	assert_int_equal(m.idx, 501);

	/* Fed in the wrong order (second leaf first), the walk sees it. */
	s.n = 0;
	n = 0;
	xfmt_bmap_check_init(&c, G, &f);
	feed_leaf(&c, l1, bmap_frag_leaf1.len, r, &n, &sink);
	feed_leaf(&c, l0, bmap_frag_leaf0.len, r, &n, &sink);
	assert_int_equal(fx_count(&s, XP_bmapOutOfOrder, "startoff"), 1);
	assert_int_equal(fx_find(&s, XP_bmapOutOfOrder)->off, 251);
	assert_int_equal(s.n, 1);
	free(r);
	free(l0);
	free(l1);
}

/* -------------------------------------------------------- corruption */

/*
 * Corrupt the sparse file's fork, with and without a fresh inode CRC: the
 * mapping findings do not depend on the CRC (the inode verifier reports
 * that one, inoBadCrc, only when the CRC is stale).
 */
static void check_corruption(void (*damage)(struct inode_fx *), enum xprob_code code,
			     const char *field, uint64_t off)
{
	for (int fresh = 0; fresh < 2; fresh++) {
		struct inode_fx in;
		struct fx_sink s, si = { 0 };
		FX_SINK(isink, &si);

		load_inode(&bmap_sparse_ino, &in);
		damage(&in);
		if (fresh)
			xfmt_crc_update(in.buf, bmap_sparse_ino.len, XFMT_DINODE_CRC_OFF);
		assert_int_equal(xfmt_dinode_decode(in.buf, bmap_sparse_ino.len, G, &in.d), 0);
		verify_data_fork(&in, &s);
		if (s.n != 1) {
			fprintf(stderr, "code %s fresh %d\n", xprob_id(code), fresh);
			fx_dump(&s);
		}
		assert_int_equal(s.n, 1);
		assert_int_equal(s.p[0].code, code);
		assert_string_equal(s.p[0].field, field);
		assert_int_equal(s.p[0].off, off);
		xfmt_dinode_verify(in.buf, bmap_sparse_ino.len, G, 137, &in.d, &isink);
		assert_int_equal(fx_count(&si, XP_inoBadCrc, NULL), fresh ? 0 : 1);
		free(in.buf);
	}
}

static void dmg_zero_len(struct inode_fx *in)
{
	put_rec(sparse_rec(in, 1), 256, 16708, 0, false);
}

static void dmg_beyond_fs(struct inode_fx *in)
{
	/* AG 2 does not exist (agcount 2). */
	put_rec(sparse_rec(in, 1), 256, 2ull << 16, 1, false);
}

static void dmg_on_headers(struct inode_fx *in)
{
	/* agbno 0 of AG 1: the block holding the AG headers (512-byte sectors). */
	put_rec(sparse_rec(in, 1), 256, 1ull << 16, 1, false);
}

static void dmg_past_ag_end(struct inode_fx *in)
{
	/* 20 blocks from agbno 40950: past agblocks 40960. */
	put_rec(sparse_rec(in, 4), 25600, 40950, 20, false);
}

static void dmg_huge_offset(struct inode_fx *in)
{
	/* The last record moved to 2^54 - 1: beyond 2^63 bytes. */
	put_rec(sparse_rec(in, 4), XFS_BMBT_STARTOFF_MASK, 16709, 1, false);
}

static void dmg_unsorted(struct inode_fx *in)
{
	put_rec(sparse_rec(in, 1), 0, 16708, 1, false);
	put_rec(sparse_rec(in, 0), 256, 16707, 1, false);
}

static void dmg_overlap(struct inode_fx *in)
{
	/* record 0 grows to 300 blocks and swallows record 1 at 256 */
	put_rec(sparse_rec(in, 0), 0, 16400, 300, false);
}

static void dmg_symlink_unwritten(struct inode_fx *in)
{
	/* make it a "symlink" mapping an unwritten extent */
	xfmt_put_be16(in->buf + 2, 0120777);
	in->f.mode = 0120777;
}

static void test_corruptions(void **state)
{
	(void)state;
	check_corruption(dmg_zero_len, XP_bmapZeroLength, "blockcount", 1);
	check_corruption(dmg_beyond_fs, XP_bmapBadStartblock, "startblock", 1);
	check_corruption(dmg_on_headers, XP_bmapBadStartblock, "startblock", 1);
	check_corruption(dmg_past_ag_end, XP_bmapBadExtent, "blockcount", 4);
	check_corruption(dmg_huge_offset, XP_bmapBadFileOffset, "startoff", 4);
	check_corruption(dmg_unsorted, XP_bmapOutOfOrder, "startoff", 1);
	check_corruption(dmg_overlap, XP_bmapOverlap, "startoff", 1);
	check_corruption(dmg_symlink_unwritten, XP_bmapBadUnwritten,
			 "a non-regular file's data fork", 3);
}

static void test_corruption_values(void **state)
{
	struct inode_fx in;
	struct fx_sink s;

	(void)state;
	load_inode(&bmap_sparse_ino, &in);
	dmg_huge_offset(&in);
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 1);
	/* 2^63 - 1 bytes in 4 KiB blocks: last file block 2^51 - 1 */
	assert_int_equal(s.p[0].expected, (1ull << 51) - 1);
	assert_int_equal(s.p[0].observed, XFS_BMBT_STARTOFF_MASK);
	assert_int_equal(xfmt_bmap_max_fileoff(G), (1ull << 51) - 1);
	free(in.buf);

	load_inode(&bmap_sparse_ino, &in);
	dmg_overlap(&in);
	verify_data_fork(&in, &s);
	assert_int_equal(s.p[0].observed, 256);
	assert_int_equal(s.p[0].expected, 300);
	free(in.buf);

	/* Several bad records: every failed rule of every record is reported. */
	load_inode(&bmap_sparse_ino, &in);
	put_rec(sparse_rec(&in, 0), 0, 2ull << 16, 0, true);   /* zero, bad start */
	put_rec(sparse_rec(&in, 2), 100, 53, 1, false);         /* out of order */
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(fx_count(&s, XP_bmapZeroLength, NULL), 1);
	assert_int_equal(fx_count(&s, XP_bmapBadStartblock, NULL), 1);
	assert_int_equal(fx_count(&s, XP_bmapOutOfOrder, NULL), 1);
	free(in.buf);
}

/* A stray bit above the AG number: the kernel cuts the AG number to 32
 * bits and reads the block below it; so do the checker and the fix. */
static void test_startblock_high_bits(void **state)
{
	struct inode_fx in;
	struct xfmt_bmbt_rec r;
	struct fx_sink s;
	uint64_t blk, as_read;

	(void)state;
	load_inode(&bmap_sparse_ino, &in);
	xfmt_bmbt_rec_decode(sparse_rec(&in, 1), &r);
	blk = r.startblock;
	assert_false(xfmt_geom_fsb_as_read(G, blk, &as_read));
	assert_true(xfmt_geom_fsb_as_read(G, blk | (1ull << 51), &as_read));
	assert_int_equal(as_read, blk);
	/* the cut AG number must still be an AG of the filesystem */
	assert_false(xfmt_geom_fsb_as_read(G, (((1ull << 32) | 5) << G->agblklog) | 7, &as_read));
	put_rec(sparse_rec(&in, 1), r.startoff, blk | (1ull << 51), r.blockcount, r.unwritten);
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(fx_count(&s, XP_bmapStartblockHighBits, "startblock"), 1);
	assert_int_equal(s.p[0].expected, blk);
	assert_int_equal(s.p[0].observed, blk | (1ull << 51));
	/* the fix rewrites that record alone */
	assert_int_equal(xfmt_bmbt_recs_as_read(in.buf + in.d.dfork_off, in.d.nextents, G), 1);
	xfmt_bmbt_rec_decode(sparse_rec(&in, 1), &r);
	assert_int_equal(r.startblock, blk);
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(xfmt_bmbt_recs_as_read(in.buf + in.d.dfork_off, in.d.nextents, G), 0);
	free(in.buf);
}

static void test_fork_rules(void **state)
{
	struct inode_fx in;
	struct fx_sink s;
	FX_SINK(sink, &s);
	unsigned n;

	(void)state;
	/* The same records as an attr fork: unwritten is not allowed there. */
	load_inode(&bmap_sparse_ino, &in);
	in.f.whichfork = XFMT_ATTR_FORK;
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(fx_count(&s, XP_bmapBadUnwritten, "an attr fork"), 1);
	assert_int_equal(s.p[0].off, 3);
	free(in.buf);

	/* A realtime data fork maps rt extents: no data-device range check. */
	load_inode(&bmap_sparse_ino, &in);
	in.f.realtime = true;
	put_rec(sparse_rec(&in, 1), 256, 5ull << 40, 1, false);
	verify_data_fork(&in, &s);
	assert_int_equal(s.n, 0);
	free(in.buf);

	/* xfmt_bmap_fork_init takes the REALTIME flag from a regular file of
	 * a filesystem with a realtime section, and from nothing else. */
	{
		struct xfmt_geom rg = *G;

		rg.rblocks = 1000;
		in.d.flags = XFS_DIFLAG_REALTIME;
		in.d.mode = XFMT_S_IFREG | 0644;
		xfmt_bmap_fork_init(&in.f, &rg, &in.d, XFMT_DATA_FORK);
		assert_true(in.f.realtime);
		xfmt_bmap_fork_init(&in.f, G, &in.d, XFMT_DATA_FORK);
		assert_false(in.f.realtime);        /* no realtime section */
		in.d.mode = XFMT_S_IFLNK | 0777;
		xfmt_bmap_fork_init(&in.f, &rg, &in.d, XFMT_DATA_FORK);
		assert_false(in.f.realtime);        /* a symlink's blocks */
		in.d.mode = XFMT_S_IFDIR | 0755;
		xfmt_bmap_fork_init(&in.f, &rg, &in.d, XFMT_DATA_FORK);
		assert_false(in.f.realtime);
		xfmt_bmap_fork_init(&in.f, &rg, &in.d, XFMT_ATTR_FORK);
		assert_int_equal(in.f.whichfork, XFMT_ATTR_FORK);
	}

	/* nextents above the fork capacity: only what fits is read and judged. */
	load_inode(&bmap_sparse_ino, &in);
	memset(&s, 0, sizeof(s));
	n = xfmt_bmap_extents_verify(in.fork, in.size, 1000000, G, &in.f, &sink);
	assert_int_equal(n, s.n);
	/* records 5..11 are zero: blockcount 0, startblock 0 (on the AG headers),
	 * startoff 0 out of order; 7 records x 3 rules */
	assert_int_equal(fx_count(&s, XP_bmapZeroLength, NULL), 7);
	assert_int_equal(fx_count(&s, XP_bmapBadStartblock, NULL), 7);
	assert_int_equal(fx_count(&s, XP_bmapOutOfOrder, NULL), 7);
	assert_int_equal(s.n, 21);
	free(in.buf);
}

static void put_root(uint8_t *fork, size_t size, uint16_t level, uint16_t numrecs)
{
	xfmt_put_be16(fork, level);
	xfmt_put_be16(fork + 2, numrecs);
	(void)size;
}

static void put_root_kp(uint8_t *fork, size_t size, unsigned i, uint64_t key, uint64_t ptr)
{
	unsigned maxr = xfmt_bmdr_maxrecs(size);

	xfmt_put_be64(fork + 4 + i * 8, key);
	xfmt_put_be64(fork + 4 + maxr * 8 + i * 8, ptr);
}

static void test_root_corruptions(void **state)
{
	struct inode_fx in;
	uint8_t *fork;
	struct fx_sink s;
	FX_SINK(sink, &s);

	(void)state;
	load_inode(&bmap_frag_ino, &in);
	fork = in.buf + in.d.dfork_off;

	/* too deep for the geometry (5), but below dinode's limit of 9 */
	memset(&s, 0, sizeof(s));
	put_root(fork, in.size, 6, 1);
	assert_int_equal(xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink), 1);
	assert_int_equal(s.p[0].code, XP_bmapRootTooDeep);
	assert_int_equal(s.p[0].observed, 6);
	assert_int_equal(s.p[0].expected, 5);
	/* level 5 is the kernel's limit itself: accepted */
	memset(&s, 0, sizeof(s));
	put_root(fork, in.size, 5, 1);
	assert_int_equal(xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink), 0);

	/* two slots: keys out of order and a repeated pointer */
	memset(&s, 0, sizeof(s));
	put_root(fork, in.size, 2, 2);
	put_root_kp(fork, in.size, 1, 0, 16750);
	assert_int_equal(xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink), 2);
	assert_int_equal(fx_count(&s, XP_bmapRootKeyOrder, "bmbt.keys"), 1);
	assert_int_equal(fx_count(&s, XP_bmapRootDupPtr, "bmbt.ptrs"), 1);
	assert_int_equal(fx_find(&s, XP_bmapRootDupPtr)->off, 1);
	assert_int_equal(fx_find(&s, XP_bmapRootDupPtr)->observed, 16750);

	/* a pointer onto the AG headers, a key past the largest offset */
	memset(&s, 0, sizeof(s));
	put_root_kp(fork, in.size, 1, 1ull << 52, 0);
	assert_int_equal(xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink), 2);
	assert_int_equal(fx_count(&s, XP_bmapRootBadKey, "bmbt.keys"), 1);
	assert_int_equal(fx_count(&s, XP_bmapRootBadPtr, "bmbt.ptrs"), 1);
	assert_int_equal(fx_find(&s, XP_bmapRootBadPtr)->observed, 0);

	/* numrecs over capacity: only the 11 slots are read (dinode reports it) */
	memset(&s, 0, sizeof(s));
	put_root(fork, in.size, 2, 60000);
	xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink);
	assert_true(s.n <= 3 * 11);

	/* level 0: nothing to check here (inoBadBmdrRoot is dinode's) */
	memset(&s, 0, sizeof(s));
	put_root(fork, in.size, 0, 1);
	assert_int_equal(xfmt_bmap_root_verify(fork, in.size, G, XFMT_DATA_FORK, &sink), 0);
	free(in.buf);
}

/* ------------------------------------------------------- hostile input */

static void test_truncated_and_garbage(void **state)
{
	struct fx_sink s;
	FX_SINK(sink, &s);
	struct xfmt_bmbt_rec r[32];
	struct xfmt_bmap_fork f = { XFMT_DATA_FORK, 0100644, false };
	struct xfmt_bmap_root root;
	uint32_t seed = 12345;

	(void)state;
	for (size_t len = 0; len <= 200; len++) {
		uint8_t *fork = malloc(len ? len : 1);

		assert_non_null(fork);
		for (unsigned round = 0; round < 8; round++) {
			for (size_t i = 0; i < len; i++) {
				seed = seed * 1103515245u + 12345u;
				fork[i] = (uint8_t)(seed >> 16);
			}
			memset(&s, 0, sizeof(s));
			assert_true(xfmt_bmap_extents_decode(fork, len, UINT64_MAX, r, 32) <= len / 16);
			xfmt_bmap_extents_verify(fork, len, UINT64_MAX, G, &f, &sink);
			xfmt_bmap_extents_verify(fork, len, 3, G, &f, &sink);
			if (xfmt_bmap_root_decode(fork, len, &root) == 0)
				assert_true(root.nrecs <= root.maxrecs);
			else
				assert_true(len < 4);
			xfmt_bmap_root_verify(fork, len, G, XFMT_DATA_FORK, &sink);
			xfmt_bmap_root_verify(fork, len, G, XFMT_ATTR_FORK, &sink);
		}
		free(fork);
	}
	/* NULL forks (no attr fork) are empty */
	assert_int_equal(xfmt_bmap_extents_decode(NULL, 0, 5, r, 32), 0);
	assert_int_equal(xfmt_bmap_extents_verify(NULL, 0, 5, G, &f, &sink), 0);
	assert_int_equal(xfmt_bmap_root_decode(NULL, 0, &root), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_extents_match_xfs_db),
		cmocka_unit_test(test_prealloc_extents_match_xfs_db),
		cmocka_unit_test(test_lookup_sparse),
		cmocka_unit_test(test_frag_root_matches_xfs_db),
		cmocka_unit_test(test_maxlevels),
		cmocka_unit_test(test_frag_leaves_match_xfs_db),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_corruption_values),
		cmocka_unit_test(test_startblock_high_bits),
		cmocka_unit_test(test_fork_rules),
		cmocka_unit_test(test_root_corruptions),
		cmocka_unit_test(test_truncated_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
