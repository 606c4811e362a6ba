/*
 * test_dinode.c - inode core decoding and verification against real inodes
 * (fixtures/ino_*.h, recipe in fixtures/bt_recipe.sh).  Expected values are
 * what `xfs_db -r -c 'inode N' -c p IMG` printed; its dates were turned into
 * epoch seconds with `date -u -d`.  Then one field at a time is corrupted,
 * with and without a fresh CRC, and the exact findings are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/btree.h"
#include "formats/btrec.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/dinode_enc.h"
#include "formats/endian.h"
#include "formats/sb.h"

#include "fixtures/bt_geom.h"
#include "fixtures/ino_nrext.h"
#include "fixtures/ino_v4.h"
#include "fixtures/ino_v5.h"

#define T_0947 1796290308ll  /* Thu Dec  3 09:31:48 2026 UTC */
#define T_0947m 1796290307ll /* 09:31:47 */
#define T_0938 1796290298ll  /* 09:31:38 */
#define T_0939 1796290299ll  /* 09:31:39 */

static uint32_t db_crc(uint32_t printed)
{
	return (printed >> 24) | ((printed >> 8) & 0xFF00u) |
	       ((printed << 8) & 0xFF0000u) | (printed << 24);
}

struct ino {
	const char *name;
	const uint8_t *buf;
	size_t len;
	const struct xfmt_geom *g;
	uint64_t ino;
};

static const struct ino inodes[] = {
	{ "root", ino_v5_root, 512, &bt_geom_v5, 128 },
	{ "dir_btree", ino_v5_dir_btree, 512, &bt_geom_v5, 131 },
	{ "frag", ino_v5_frag, 512, &bt_geom_v5, 132 },
	{ "prealloc", ino_v5_prealloc, 512, &bt_geom_v5, 136 },
	{ "symlink", ino_v5_symlink, 512, &bt_geom_v5, 138 },
	{ "cdev", ino_v5_cdev, 512, &bt_geom_v5, 140 },
	{ "free", ino_v5_free, 512, &bt_geom_v5, 142 },
	{ "nrext", ino_nrext_ten, 512, &bt_geom_nrext, 131 },
	{ "v4root", ino_v4_root, 256, &bt_geom_v4, 128 },
};
#define NINODES (sizeof(inodes) / sizeof(inodes[0]))

static const struct ino *ino_named(const char *name)
{
	for (size_t i = 0; i < NINODES; i++)
		if (strcmp(inodes[i].name, name) == 0)
			return &inodes[i];
	fail_msg("no fixture %s", name);
	return NULL;
}

static void decode_ok(const struct ino *in, struct xfmt_dinode *d)
{
	assert_int_equal(xfmt_dinode_decode(in->buf, in->len, in->g, d), 0);
}

/* ------------------------------------------------------------ decoding */

static void test_decode_root_dir(void **state)
{
	struct xfmt_dinode d;

	(void)state;
	decode_ok(ino_named("root"), &d);
	assert_int_equal(d.magic, 0x494e);
	assert_int_equal(d.mode, 040755);
	assert_int_equal(d.version, 3);
	assert_int_equal(d.format, XFS_DINODE_FMT_LOCAL);
	assert_int_equal(d.onlink, 0);
	assert_int_equal(d.uid, 0);
	assert_int_equal(d.nlink, 3);
	assert_int_equal(d.projid, 0);
	/* bigtime: the epoch itself and a real date */
	assert_true(d.bigtime);
	assert_int_equal(d.atime.sec, 0);
	assert_int_equal(d.atime.nsec, 0);
	assert_int_equal(d.mtime.sec, T_0947);
	assert_int_equal(d.mtime.nsec, 95772770);
	assert_int_equal(d.ctime.sec, T_0947);
	assert_int_equal(d.crtime.sec, T_0938);
	assert_int_equal(d.crtime.nsec, 59422000);
	assert_int_equal(d.size, 85);
	assert_int_equal(d.nblocks, 0);
	assert_int_equal(d.nextents, 0);
	assert_int_equal(d.anextents, 0);
	assert_int_equal(d.forkoff, 0);
	assert_int_equal(d.aformat, XFS_DINODE_FMT_EXTENTS);
	assert_int_equal(d.gen, 0);
	assert_int_equal(d.next_unlinked, XFS_NULLAGINO);
	assert_int_equal(d.crc, db_crc(0x5633df0a));
	assert_int_equal(d.changecount, 8);
	assert_int_equal(d.lsn, 0x100005a51);
	assert_int_equal(d.flags2, 0x8);
	assert_int_equal(d.cowextsize, 0);
	assert_int_equal(d.ino, 128);
	assert_memory_equal(d.uuid, bt_geom_v5.meta_uuid, 16);
	assert_true(xfmt_dinode_in_use(&d));
	/* Fork geometry: no attr fork, the whole 336-byte literal area is data. */
	assert_int_equal(d.core_size, 176);
	assert_int_equal(d.lit_off, 176);
	assert_int_equal(d.lit_size, 336);
	assert_int_equal(d.dfork_off, 176);
	assert_int_equal(d.dfork_size, 336);
	assert_false(d.has_attr_fork);
	assert_int_equal(d.afork_size, 0);
	/* u3.sfdir3.hdr.count = 6, parent.i4 = 128 */
	assert_int_equal(ino_v5_root[176], 6);
	assert_int_equal(xfmt_get_be32(ino_v5_root + 178), 128);
}

static void test_decode_btree_inodes(void **state)
{
	struct xfmt_dinode d;
	size_t fsize;
	const uint8_t *fork;
	uint16_t level, nrecs;
	uint64_t v;

	(void)state;
	/* /d: core.format = 3, size 483328, nblocks 155, nextents 122, forkoff 24,
	 * gen 2608375840, v3.change_count 30046, lsn 0x100003738,
	 * u3.bmbt.level = 1, numrecs = 1, ptrs[1] = 179 */
	decode_ok(ino_named("dir_btree"), &d);
	assert_int_equal(d.mode, 040755);
	assert_int_equal(d.format, XFS_DINODE_FMT_BTREE);
	assert_int_equal(d.size, 483328);
	assert_int_equal(d.nblocks, 155);
	assert_int_equal(d.nextents, 122);
	assert_int_equal(d.forkoff, 24);
	assert_int_equal(d.gen, 2608375840u);
	assert_int_equal(d.changecount, 30046);
	assert_int_equal(d.lsn, 0x100003738);
	assert_int_equal(d.crc, db_crc(0xaa1cd67a));
	assert_int_equal(d.atime.sec, T_0938);
	assert_int_equal(d.atime.nsec, 60239907);
	assert_int_equal(d.mtime.sec, T_0947m);
	assert_int_equal(d.mtime.nsec, 284240296);
	assert_true(d.has_attr_fork);
	assert_int_equal(d.dfork_size, 192);
	assert_int_equal(d.afork_off, 368);
	assert_int_equal(d.afork_size, 144);
	fork = xfmt_dinode_fork(ino_v5_dir_btree, &d, 0, &fsize);
	assert_ptr_equal(fork, ino_v5_dir_btree + 176);
	assert_int_equal(fsize, 192);
	assert_int_equal(xfmt_bmdr_decode(fork, fsize, &level, &nrecs), 0);
	assert_int_equal(level, 1);
	assert_int_equal(nrecs, 1);
	assert_int_equal(xfmt_bmdr_ptr(fork, fsize, 0, &v), 0);
	assert_int_equal(v, 179);
	fork = xfmt_dinode_fork(ino_v5_dir_btree, &d, 1, &fsize);
	assert_ptr_equal(fork, ino_v5_dir_btree + 368);
	assert_int_equal(fsize, 144);

	/* /frag: mode 0100600, size 49147904, nblocks 12039, nextents 11990,
	 * flags2 0xa (reflink + bigtime), gen 1134739220, change_count 5398 */
	decode_ok(ino_named("frag"), &d);
	assert_int_equal(d.mode, 0100600);
	assert_int_equal(d.size, 49147904);
	assert_int_equal(d.nblocks, 12039);
	assert_int_equal(d.nextents, 11990);
	assert_int_equal(d.flags2, 0xa);
	assert_int_equal(d.gen, 1134739220u);
	assert_int_equal(d.changecount, 5398);
	assert_int_equal(d.crc, db_crc(0xc2ecf77d));
	assert_int_equal(d.atime.sec, T_0947m);
	assert_int_equal(d.atime.nsec, 596240309);
	assert_int_equal(d.ctime.nsec, 608240310);
	assert_int_equal(d.crtime.nsec, 596240309);
	assert_int_equal(d.ino, 132);
}

static void test_decode_other_types(void **state)
{
	struct xfmt_dinode d;
	struct xfmt_bmbt_rec b;
	size_t fsize;
	const uint8_t *fork;

	(void)state;
	/* /prealloc: u3.bmx[0] = [0,32338,256,1] */
	decode_ok(ino_named("prealloc"), &d);
	assert_int_equal(d.format, XFS_DINODE_FMT_EXTENTS);
	assert_int_equal(d.size, 1048576);
	assert_int_equal(d.nblocks, 256);
	assert_int_equal(d.nextents, 1);
	assert_int_equal(d.gen, 2393418676u);
	assert_int_equal(d.crc, db_crc(0xbf8c078f));
	fork = xfmt_dinode_fork(ino_v5_prealloc, &d, 0, &fsize);
	xfmt_bmbt_rec_decode(fork, &b);
	assert_int_equal(b.startoff, 0);
	assert_int_equal(b.startblock, 32338);
	assert_int_equal(b.blockcount, 256);
	assert_true(b.unwritten);

	/* /link: LOCAL, size 17, no attr fork, u3.symlink = "/some/target/path" */
	decode_ok(ino_named("symlink"), &d);
	assert_int_equal(d.mode, 0120777);
	assert_int_equal(d.format, XFS_DINODE_FMT_LOCAL);
	assert_int_equal(d.size, 17);
	assert_int_equal(d.forkoff, 0);
	assert_int_equal(d.gen, 2237277553u);
	fork = xfmt_dinode_fork(ino_v5_symlink, &d, 0, &fsize);
	assert_memory_equal(fork, "/some/target/path", 17);
	assert_null(xfmt_dinode_fork(ino_v5_symlink, &d, 1, &fsize));
	assert_int_equal(fsize, 0);

	/* /cdev: mode 020644, format 0 (dev), forkoff 1, u3.dev = 0x100040 */
	decode_ok(ino_named("cdev"), &d);
	assert_int_equal(d.mode, 020644);
	assert_int_equal(d.format, XFS_DINODE_FMT_DEV);
	assert_int_equal(d.forkoff, 1);
	assert_int_equal(d.dfork_size, 8);
	assert_int_equal(d.afork_off, 184);
	assert_int_equal(d.afork_size, 328);
	assert_int_equal(xfmt_get_be32(ino_v5_cdev + d.dfork_off), 0x100040);
	assert_int_equal(d.gen, 2769150801u);

	/* freed inode: mode 0, nlink 0, ctime 09:31:39.136239952 */
	decode_ok(ino_named("free"), &d);
	assert_false(xfmt_dinode_in_use(&d));
	assert_int_equal(d.nlink, 0);
	assert_int_equal(d.ctime.sec, T_0939);
	assert_int_equal(d.ctime.nsec, 136239952);
	assert_int_equal(d.gen, 1550683693u);
	assert_int_equal(d.changecount, 12);
	assert_int_equal(d.lsn, 0x100003682);
}

static void test_decode_nrext64(void **state)
{
	struct xfmt_dinode d;
	struct xfmt_bmbt_rec b;
	size_t fsize;

	(void)state;
	/* core.nextents = 10 (at 24), core.naextents = 1 (at 76), flags2 0x18,
	 * size 77824, nblocks 11, forkoff 24, a.bmx[0] = [0,15,1,0] */
	decode_ok(ino_named("nrext"), &d);
	assert_true(d.nrext64);
	assert_true(d.bigtime);
	assert_int_equal(d.flags2, 0x18);
	assert_int_equal(d.nextents, 10);
	assert_int_equal(d.anextents, 1);
	assert_int_equal(xfmt_get_be64(ino_nrext_ten + 24), 10);
	assert_int_equal(xfmt_get_be32(ino_nrext_ten + 76), 1);
	assert_int_equal(d.size, 77824);
	assert_int_equal(d.nblocks, 11);
	assert_int_equal(d.aformat, XFS_DINODE_FMT_EXTENTS);
	assert_int_equal(d.gen, 3750702851u);
	assert_int_equal(d.changecount, 24);
	assert_int_equal(d.lsn, 0x100000002);
	assert_int_equal(d.crc, db_crc(0xb288c79e));
	assert_int_equal(d.atime.sec, T_0947);
	assert_int_equal(d.atime.nsec, 212240335);
	xfmt_bmbt_rec_decode(xfmt_dinode_fork(ino_nrext_ten, &d, 1, &fsize), &b);
	assert_int_equal(fsize, 144);
	assert_int_equal(b.startblock, 15);
	assert_int_equal(b.blockcount, 1);
	/* u3.bmx[1] = [2,12,1,0] */
	xfmt_bmbt_rec_decode(xfmt_dinode_fork(ino_nrext_ten, &d, 0, &fsize) + 16, &b);
	assert_int_equal(b.startoff, 2);
	assert_int_equal(b.startblock, 12);
}

static void test_decode_v2(void **state)
{
	struct xfmt_dinode d;

	(void)state;
	/* v4 root: version 2, flushiter 0, nlinkv2 2, size 6, legacy timestamps
	 * atime 1970-01-01, mtime 09:31:48.233064000 */
	decode_ok(ino_named("v4root"), &d);
	assert_int_equal(d.version, 2);
	assert_int_equal(d.mode, 040755);
	assert_int_equal(d.format, XFS_DINODE_FMT_LOCAL);
	assert_int_equal(d.nlink, 2);
	assert_int_equal(d.flushiter, 0);
	assert_int_equal(d.size, 6);
	assert_false(d.bigtime);
	assert_int_equal(d.atime.sec, 0);
	assert_int_equal(d.mtime.sec, T_0947);
	assert_int_equal(d.mtime.nsec, 233064000);
	assert_int_equal(d.ctime.nsec, 233064000);
	assert_int_equal(d.crc, 0);
	assert_int_equal(d.ino, 0);
	assert_int_equal(d.core_size, 100);
	assert_int_equal(d.lit_size, 156);
	assert_int_equal(d.dfork_off, 100);
	/* u.sfdir3.hdr.parent.i4 = 128 */
	assert_int_equal(xfmt_get_be32(ino_v4_root + 102), 128);
}

static void test_decode_short_and_hostile(void **state)
{
	struct xfmt_dinode d;
	uint8_t *p;
	size_t fsize;

	(void)state;
	assert_int_equal(xfmt_dinode_decode(ino_v5_root, 175, &bt_geom_v5, &d), -1);
	assert_int_equal(xfmt_dinode_decode(ino_v4_root, 99, &bt_geom_v4, &d), -1);
	assert_int_equal(xfmt_dinode_decode(ino_v4_root, 100, &bt_geom_v4, &d), 0);
	assert_int_equal(d.lit_size, 0);
	/* forkoff 255 points far outside a 512-byte inode: forks are clamped. */
	p = malloc(512);
	memcpy(p, ino_v5_prealloc, 512);
	p[82] = 255;
	assert_int_equal(xfmt_dinode_decode(p, 512, &bt_geom_v5, &d), 0);
	assert_int_equal(d.dfork_size, 336);
	assert_int_equal(d.afork_size, 0);
	assert_null(xfmt_dinode_fork(p, &d, 1, &fsize));
	assert_true(d.dfork_off + d.dfork_size <= 512);
	free(p);
}

static void test_timestamps(void **state)
{
	uint8_t t[8];
	struct xfmt_timestamp ts;

	(void)state;
	/* bigtime: 2^31 s after 1901-12-13T20:45:52Z is the Unix epoch */
	xfmt_put_be64(t, 2147483648ull * 1000000000ull + 5);
	xfmt_timestamp_decode(t, true, &ts);
	assert_int_equal(ts.sec, 0);
	assert_int_equal(ts.nsec, 5);
	xfmt_put_be64(t, 0);
	xfmt_timestamp_decode(t, true, &ts);
	assert_int_equal(ts.sec, -2147483648ll);
	/* legacy: signed seconds */
	xfmt_put_be32(t, 0x80000000u);
	xfmt_put_be32(t + 4, 999999999);
	xfmt_timestamp_decode(t, false, &ts);
	assert_int_equal(ts.sec, -2147483648ll);
	assert_int_equal(ts.nsec, 999999999);
}

/* xfs_db print of inode 132, integer lines only, looked up via the field table. */
static void test_field_table_matches_xfs_db(void **state)
{
	static const struct { const char *name; uint64_t v; } want[] = {
		{ "core.magic", 0x494e }, { "core.mode", 0100600 }, { "core.version", 3 },
		{ "core.format", 3 }, { "core.onlink", 0 }, { "core.uid", 0 }, { "core.gid", 0 },
		{ "core.nlinkv2", 1 }, { "core.projid_lo", 0 }, { "core.projid_hi", 0 },
		{ "core.size", 49147904 }, { "core.nblocks", 12039 }, { "core.extsize", 0 },
		{ "core.nextents", 11990 }, { "core.naextents", 0 }, { "core.forkoff", 24 },
		{ "core.aformat", 2 }, { "core.dmevmask", 0 }, { "core.dmstate", 0 },
		{ "core.newrtbm", 0 }, { "core.prealloc", 0 }, { "core.realtime", 0 },
		{ "core.immutable", 0 }, { "core.append", 0 }, { "core.sync", 0 },
		{ "core.noatime", 0 }, { "core.nodump", 0 }, { "core.rtinherit", 0 },
		{ "core.projinherit", 0 }, { "core.nosymlinks", 0 }, { "core.extsz", 0 },
		{ "core.extszinherit", 0 }, { "core.nodefrag", 0 }, { "core.filestream", 0 },
		{ "core.gen", 1134739220 }, { "next_unlinked", 0xFFFFFFFF },
		{ "v3.change_count", 5398 }, { "v3.lsn", 0x100005a51 }, { "v3.flags2", 0xa },
		{ "v3.cowextsize", 0 }, { "v3.inumber", 132 },
		{ "v3.reflink", 1 }, { "v3.cowextsz", 0 }, { "v3.dax", 0 }, { "v3.bigtime", 1 },
		{ "v3.nrext64", 0 },
	};
	const struct xfmt_field *prev = NULL;
	struct xfmt_dinode d;
	const struct xfmt_field *tab, *f;
	uint64_t v;

	(void)state;
	decode_ok(ino_named("frag"), &d);
	tab = xfmt_dinode_fields(&d);
	assert_ptr_equal(tab, xfmt_dinode_core_fields);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		f = xfmt_field_find(tab, want[i].name);
		if (!f)
			fail_msg("no field %s", want[i].name);
		assert_int_equal(xfmt_field_get(ino_v5_frag, 512, f, &v), 0);
		if (v != want[i].v)
			fail_msg("%s = %llu, xfs_db says %llu", want[i].name,
				 (unsigned long long)v, (unsigned long long)want[i].v);
		/* The table lists fields in the order xfs_db prints them. */
		if (prev)
			assert_true(f > prev);
		prev = f;
	}
	assert_int_equal(xfmt_field_find(tab, "core.mode")->kind, XFK_OCT);
	assert_int_equal(xfmt_field_find(tab, "core.format")->kind, XFK_ENUM);
	/* /prealloc: core.prealloc = 1 (di_flags 0x2) */
	f = xfmt_field_find(tab, "core.prealloc");
	assert_int_equal(xfmt_field_get(ino_v5_prealloc, 512, f, &v), 0);
	assert_int_equal(v, 1);
	f = xfmt_field_find(tab, "core.realtime");
	assert_int_equal(xfmt_field_get(ino_v5_prealloc, 512, f, &v), 0);
	assert_int_equal(v, 0);
	f = xfmt_field_find(tab, "v3.crc");
	assert_int_equal(xfmt_field_get(ino_v5_frag, 512, f, &v), 0);
	assert_int_equal(v, db_crc(0xc2ecf77d));
	f = xfmt_field_find(tab, "v3.uuid");
	assert_int_equal(f->off, 160);
	assert_int_equal(f->kind, XFK_UUID);
	assert_int_equal(xfmt_field_find(tab, "core.atime")->kind, XFK_TIME);
	assert_true(xfmt_field_find(tab, "v3.crtime")->v5only);

	/* NREXT64 layout: core.nextents = 10 and core.naextents = 1. */
	decode_ok(ino_named("nrext"), &d);
	tab = xfmt_dinode_fields(&d);
	assert_ptr_equal(tab, xfmt_dinode_nrext64_fields);
	assert_int_equal(xfmt_field_get(ino_nrext_ten, 512, xfmt_field_find(tab, "core.nextents"),
					&v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(xfmt_field_get(ino_nrext_ten, 512, xfmt_field_find(tab, "core.naextents"),
					&v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(xfmt_field_get(ino_nrext_ten, 512, xfmt_field_find(tab, "v3.nrext64"),
					&v), 0);
	assert_int_equal(v, 1);
	assert_null(xfmt_field_find(tab, "core.flushiter"));
}

/* ------------------------------------------------------------- verify */

static void test_real_inodes_verify_clean(void **state)
{
	(void)state;
	for (size_t i = 0; i < NINODES; i++) {
		const struct ino *in = &inodes[i];
		struct xfmt_dinode d;
		struct bt_rec r;
		struct xprob_sink s = bt_rec_sink(&r);

		decode_ok(in, &d);
		if (xfmt_dinode_verify(in->buf, in->len, in->g, in->ino, &d, &s) != 0)
			fail_msg("%s: %u findings, first 0x%04x %s", in->name, r.n,
				 (unsigned)r.p[0].code, r.p[0].field ? r.p[0].field : "");
	}
}

/* Flags only some inodes may carry (xfs_repair's "directory flags set on
 * non-directory inode", "file flags ...", "inode N not rt bitmap"). */
static void test_flags_by_mode_and_number(void **state)
{
	struct xfmt_geom g = bt_geom_v5;
	uint16_t dir_only = XFS_DIFLAG_RTINHERIT | XFS_DIFLAG_PROJINHERIT | XFS_DIFLAG_NOSYMLINKS;

	(void)state;
	assert_int_equal(xfmt_dinode_flags_allowed(&g, 131, XFMT_S_IFDIR | 0755) & dir_only, dir_only);
	assert_int_equal(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG | 0644) & dir_only, 0);
	assert_int_equal(xfmt_dinode_flags_allowed(&g, 138, XFMT_S_IFLNK | 0777) &
			 (XFS_DIFLAG_REALTIME | XFS_DIFLAG_NEWRTBM), 0);
	/* NEWRTBM: judged only where the superblock names the bitmap inode */
	assert_true(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	g.rbmino = 129;
	assert_true(xfmt_dinode_flags_allowed(&g, 129, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	assert_false(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	g.rbmino = XFS_NULLFSINO;
	assert_true(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	/* under a metadata directory tree (no bitmap inode named): nowhere
	 * without a realtime section, not judged with one */
	g.incompat |= XFS_SB_FEAT_INCOMPAT_METADIR;
	g.rblocks = 0;
	assert_false(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	g.rblocks = 4096;
	assert_true(xfmt_dinode_flags_allowed(&g, 132, XFMT_S_IFREG) & XFS_DIFLAG_NEWRTBM);
	g = bt_geom_v5;
	/* a free inode's flags are not judged */
	assert_int_equal(xfmt_dinode_flags_allowed(&g, 142, 0), XFS_DIFLAG_ANY);
}

/* Stamps read as legacy with nanoseconds over a second: a lost bigtime
 * flag is set back where every stamp is a plausible bigtime date, else the
 * nanoseconds are zeroed. */
static void test_fix_times(void **state)
{
	const struct ino *in = &inodes[0];   /* root: a bigtime inode */
	struct xfmt_geom legacy = bt_geom_v5;
	uint8_t buf[512];
	struct xfmt_dinode d;
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);

	(void)state;
	decode_ok(in, &d);
	assert_true(d.bigtime);
	memcpy(buf, in->buf, in->len);
	xfmt_put_be64(buf + 120, d.flags2 & ~XFS_DIFLAG2_BIGTIME);
	xfmt_dinode_seal(buf, in->g, in->ino, 0);
	assert_int_equal(xfmt_dinode_decode(buf, in->len, in->g, &d), 0);
	assert_true(xfmt_dinode_verify(buf, in->len, in->g, in->ino, &d, &s) > 0);
	assert_int_equal(bt_rec_count(&r, XP_inoBadTimestamp, NULL) > 0, 1);
	assert_true(xfmt_dinode_fix_times(buf, in->g, &d));
	/* the flag back, every stamp as it was */
	assert_memory_equal(buf + 120, in->buf + 120, 8);
	assert_memory_equal(buf + 32, in->buf + 32, 24);
	assert_memory_equal(buf + 144, in->buf + 144, 8);

	/* without the bigtime feature the nanoseconds go instead */
	legacy.incompat &= ~0x8u;
	memcpy(buf, in->buf, in->len);
	xfmt_put_be64(buf + 120, d.flags2 & ~XFS_DIFLAG2_BIGTIME);
	assert_int_equal(xfmt_dinode_decode(buf, in->len, &legacy, &d), 0);
	assert_true(xfmt_dinode_fix_times(buf, &legacy, &d));
	assert_int_equal(xfmt_dinode_decode(buf, in->len, &legacy, &d), 0);
	assert_true(d.atime.nsec < 1000000000u && d.mtime.nsec < 1000000000u &&
		    d.ctime.nsec < 1000000000u && d.crtime.nsec < 1000000000u);
	assert_false(d.bigtime);
}

/* Bits the verifier refuses, then sanitised and resealed: every fixture
 * verifies clean again, and the bits the file legitimately had stay. */
static void test_sanitize_flags(void **state)
{
	(void)state;
	for (size_t i = 0; i < NINODES; i++) {
		const struct ino *in = &inodes[i];
		uint8_t buf[512];
		struct xfmt_dinode d0, d;
		struct bt_rec r;
		struct xprob_sink s = bt_rec_sink(&r);

		if (!strcmp(in->name, "free"))
			continue;
		decode_ok(in, &d0);
		memcpy(buf, in->buf, in->len);
		xfmt_put_be16(buf + 90, (uint16_t)(d0.flags | 0x8000u | 0x1000u | 0x0800u));
		if (in->g->v5)
			xfmt_put_be64(buf + 120, d0.flags2 | 0x100u);
		assert_int_equal(xfmt_dinode_decode(buf, in->len, in->g, &d), 0);
		assert_true(xfmt_dinode_verify(buf, in->len, in->g, in->ino, &d, &s) != 0);
		assert_true(xfmt_dinode_sanitize_flags(buf, in->g, in->ino, &d));
		xfmt_dinode_seal(buf, in->g, in->ino, 0);
		assert_int_equal(xfmt_dinode_decode(buf, in->len, in->g, &d), 0);
		r.n = 0;
		if (xfmt_dinode_verify(buf, in->len, in->g, in->ino, &d, &s) != 0)
			fail_msg("%s: %u findings after sanitising, first 0x%04x %s", in->name, r.n,
				 (unsigned)r.p[0].code, r.p[0].field ? r.p[0].field : "");
		assert_int_equal(d.flags2, d0.flags2);
		/* a clean inode is left as it is */
		memcpy(buf, in->buf, in->len);
		assert_false(xfmt_dinode_sanitize_flags(buf, in->g, in->ino, &d0));
		assert_memory_equal(buf, in->buf, in->len);
	}
}

/* A core made from nothing (a recreated root or realtime inode) verifies. */
static void test_new_encode(void **state)
{
	static const uint16_t modes[] = { 040755, 0100000 };

	(void)state;
	for (size_t i = 0; i < NINODES; i++) {
		const struct ino *in = &inodes[i];

		for (size_t m = 0; m < 2; m++) {
			uint8_t buf[512];
			struct xfmt_dinode d;
			struct bt_rec r;
			struct xprob_sink s = bt_rec_sink(&r);

			memset(buf, 0xA5, sizeof(buf));
			xfmt_dinode_new_encode(buf, in->g, in->ino, modes[m], m ? 1 : 2,
					       m ? 0x4u : 0, 0);
			assert_int_equal(xfmt_dinode_decode(buf, in->len, in->g, &d), 0);
			assert_int_equal(d.mode, modes[m]);
			if (xfmt_dinode_verify(buf, in->len, in->g, in->ino, &d, &s) != 0)
				fail_msg("%s mode %o: %u findings, first 0x%04x %s", in->name,
					 modes[m], r.n, (unsigned)r.p[0].code,
					 r.p[0].field ? r.p[0].field : "");
		}
	}
}

/* Copy an inode, let edit() change it, optionally refresh the CRC, verify. */
static unsigned corrupt(const char *name, void (*edit)(uint8_t *), bool fix_crc,
			const struct xfmt_geom *g, struct bt_rec *r)
{
	const struct ino *in = ino_named(name);
	uint8_t buf[512];
	struct xfmt_dinode d;
	struct xprob_sink s = bt_rec_sink(r);

	memcpy(buf, in->buf, in->len);
	edit(buf);
	if (fix_crc && in->g->v5)
		xfmt_crc_update(buf, in->len, XFMT_DINODE_CRC_OFF);
	assert_int_equal(xfmt_dinode_decode(buf, in->len, g ? g : in->g, &d), 0);
	return xfmt_dinode_verify(buf, in->len, g ? g : in->g, in->ino, &d, &s);
}

static void expect_only(const struct bt_rec *r, enum xprob_code code, const char *field)
{
	if (r->n != 1 || r->p[0].code != code)
		fail_msg("expected only 0x%04x, got %u findings, first 0x%04x %s", (unsigned)code,
			 r->n, r->n ? (unsigned)r->p[0].code : 0u,
			 r->n && r->p[0].field ? r->p[0].field : "");
	if (field)
		assert_string_equal(r->p[0].field, field);
}

static void e_magic(uint8_t *b) { xfmt_put_be16(b, 0x4944); }
static void e_nothing(uint8_t *b) { (void)b; }
static void e_byte_in_fork(uint8_t *b) { b[500] ^= 0x40; }
static void e_version2(uint8_t *b) { b[4] = 2; }
static void e_version3(uint8_t *b) { b[4] = 3; }
static void e_uuid(uint8_t *b) { b[170] ^= 1; }
static void e_ino(uint8_t *b) { xfmt_put_be64(b + 152, 129); }
static void e_unlinked_bad(uint8_t *b) { xfmt_put_be32(b + 96, 5); }
static void e_unlinked_ok(uint8_t *b) { xfmt_put_be32(b + 96, 8832); }

static void test_header_checks(void **state)
{
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("prealloc", e_magic, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadMagic, "core.magic");
	assert_int_equal(r.p[0].observed, 0x4944);
	assert_int_equal(r.p[0].expected, 0x494e);
	assert_int_equal(corrupt("prealloc", e_magic, false, NULL, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_inoBadCrc, "v3.crc"), 1);
	/* CRC-only damage: bytes in the fork are covered too. */
	assert_int_equal(corrupt("prealloc", e_byte_in_fork, false, NULL, &r), 1);
	expect_only(&r, XP_inoBadCrc, "v3.crc");
	assert_int_equal(r.p[0].observed, db_crc(0xbf8c078f));
	assert_int_equal(r.p[0].off, 100);
	assert_int_equal(corrupt("prealloc", e_byte_in_fork, true, NULL, &r), 0);
	assert_int_equal(corrupt("root", e_version2, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadVersion, "core.version");
	assert_int_equal(r.p[0].expected, 3);
	assert_int_equal(corrupt("root", e_uuid, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadUuid, "v3.uuid");
	assert_int_equal(corrupt("root", e_ino, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadInumber, "v3.inumber");
	assert_int_equal(r.p[0].expected, 128);
	assert_int_equal(r.p[0].observed, 129);
	assert_int_equal(corrupt("cdev", e_unlinked_bad, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNextUnlinked, "next_unlinked");
	assert_int_equal(corrupt("cdev", e_unlinked_ok, true, NULL, &r), 0);
	/* v4: version 3 is not allowed, and there is no CRC to check. */
	assert_int_equal(corrupt("v4root", e_version3, false, NULL, &r), 1);
	expect_only(&r, XP_inoBadVersion, "core.version");
	assert_int_equal(r.p[0].expected, 2);
	assert_int_equal(corrupt("v4root", e_byte_in_fork, false, NULL, &r), 0);
}

/* A CRC known ahead (the inode pass's reader thread checksums the chunks it
 * reads) is the one compared: the stored CRC against it, not against one
 * computed again. */
static void test_known_crc(void **state)
{
	const struct ino *in = &inodes[0];   /* root, v5 */
	struct xfmt_dinode d;
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);
	uint32_t crc, wrong;

	(void)state;
	decode_ok(in, &d);
	crc = xfmt_crc32c_excluding(in->buf, in->len, XFMT_DINODE_CRC_OFF);
	assert_int_equal(xfmt_dinode_verify_crc(in->buf, in->len, in->g, in->ino, &d, &crc, &s), 0);
	wrong = crc ^ 0x10;
	assert_int_equal(xfmt_dinode_verify_crc(in->buf, in->len, in->g, in->ino, &d, &wrong, &s),
			 1);
	expect_only(&r, XP_inoBadCrc, "v3.crc");
	assert_int_equal(r.p[0].expected, wrong);
	assert_int_equal(xfmt_dinode_verify_crc(in->buf, in->len, in->g, in->ino, &d, NULL, &s), 0);
}

/* What a free inode may hold: the kernel ignores its format, flags and
 * flags2 bits until it is allocated again. */
static void e_free_garbage(uint8_t *b)
{
	b[5] = 9;                             /* format */
	xfmt_put_be16(b + 90, 0x8000);        /* flags */
	xfmt_put_be64(b + 120, 0xFF00);       /* flags2 */
}

/* What it may not: the kernel's verifier refuses these whatever the mode. */
static void e_free_size(uint8_t *b) { xfmt_put_be64(b + 56, 1ull << 63); }
static void e_free_naextents(uint8_t *b) { xfmt_put_be16(b + 80, 16384); }
static void e_free_forkoff(uint8_t *b) { b[5] = 9; b[82] = 20; }

static void test_free_inode_checks(void **state)
{
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("free", e_free_garbage, true, NULL, &r), 0);
	assert_int_equal(corrupt("free", e_free_garbage, false, NULL, &r), 1);
	expect_only(&r, XP_inoBadCrc, "v3.crc");
	assert_int_equal(corrupt("free", e_ino, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadInumber, NULL);
	assert_int_equal(corrupt("free", e_magic, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadMagic, NULL);
	assert_int_equal(corrupt("free", e_free_size, true, NULL, &r), 1);
	expect_only(&r, XP_inoFreeBadCore, "core.size");
	assert_int_equal(corrupt("free", e_free_naextents, true, NULL, &r), 1);
	expect_only(&r, XP_inoFreeBadCore, "core.naextents");
	assert_int_equal(corrupt("free", e_free_forkoff, true, NULL, &r), 1);
	expect_only(&r, XP_inoFreeBadCore, "core.forkoff");
}

static void e_mode_type(uint8_t *b) { xfmt_put_be16(b + 2, 0170644); }
static void e_reg_local(uint8_t *b) { b[5] = XFS_DINODE_FMT_LOCAL; }
static void e_dev_extents(uint8_t *b) { b[5] = XFS_DINODE_FMT_EXTENTS; }
static void e_dev_nextents(uint8_t *b) { xfmt_put_be32(b + 76, 7); }
static void e_format_uuid(uint8_t *b) { b[5] = XFS_DINODE_FMT_UUID; }
static void e_forkoff42(uint8_t *b) { b[82] = 42; }
static void e_forkoff41(uint8_t *b) { b[82] = 41; }
static void e_forkoff1(uint8_t *b) { b[82] = 1; }
static void e_dev_forkoff2(uint8_t *b) { b[82] = 2; }
static void e_nextents13(uint8_t *b) { xfmt_put_be32(b + 76, 13); }
static void e_nextents12(uint8_t *b) { xfmt_put_be32(b + 76, 12); }
static void e_btree_few(uint8_t *b) { xfmt_put_be32(b + 76, 12); }
static void e_btree_level0(uint8_t *b) { xfmt_put_be16(b + 176, 0); }
static void e_btree_numrecs12(uint8_t *b) { xfmt_put_be16(b + 178, 12); }
static void e_lnk_btree(uint8_t *b) { b[5] = XFS_DINODE_FMT_BTREE; }
static void e_lnk_big_local(uint8_t *b) { xfmt_put_be64(b + 56, 337); }
static void e_dir_small_extents(uint8_t *b) { xfmt_put_be64(b + 56, 100); }
static void e_lnk_huge_extents(uint8_t *b)
{
	b[5] = XFS_DINODE_FMT_EXTENTS;
	xfmt_put_be64(b + 56, 1025);
	xfmt_put_be32(b + 76, 1);
	xfmt_put_be64(b + 64, 1);
	/* The extent list itself is not the core verifier's business. */
}

static void test_format_and_fork_checks(void **state)
{
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("prealloc", e_mode_type, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadMode, "core.mode");
	assert_int_equal(r.p[0].observed, 0170644);
	assert_int_equal(corrupt("prealloc", e_reg_local, true, NULL, &r), 3);
	/* No LOCAL regular files; 1 MiB cannot be inline; a LOCAL fork has no
	 * extents: three findings. */
	assert_int_equal(bt_rec_count(&r, XP_inoBadFormat, "core.format"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadSize, "core.size"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadNextents, "core.nextents"), 1);
	assert_int_equal(corrupt("cdev", e_dev_extents, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFormat, "core.format");
	/* a count beside a device number: the count's fault, expected 0 */
	assert_int_equal(corrupt("cdev", e_dev_nextents, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNextents, "core.nextents");
	assert_int_equal(r.p[0].expected, 0);
	assert_int_equal(r.p[0].observed, 7);
	assert_int_equal(corrupt("frag", e_format_uuid, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFormat, "core.format");
	/* forkoff must stay below LITINO / 8 = 42 */
	assert_int_equal(corrupt("dir_btree", e_forkoff42, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadForkoff, "core.forkoff");
	assert_int_equal(r.p[0].observed, 42);
	assert_int_equal(corrupt("dir_btree", e_forkoff41, true, NULL, &r), 0);
	assert_int_equal(corrupt("cdev", e_dev_forkoff2, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadDevFork, "core.forkoff");
	/* EXTENTS: 192-byte data fork holds 12 records. */
	assert_int_equal(corrupt("prealloc", e_nextents13, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNextents, "core.nextents");
	assert_int_equal(r.p[0].observed, 13);
	assert_int_equal(corrupt("prealloc", e_nextents12, true, NULL, &r), 0);
	/* A forkoff that leaves no room for the one extent the file has, its
	 * attr fork empty: the forkoff is the fault, the extent is read. */
	assert_int_equal(corrupt("prealloc", e_forkoff1, true, NULL, &r), 1);
	expect_only(&r, XP_inoStrayForkoff, "core.forkoff");
	assert_int_equal(r.p[0].observed, 1);
	assert_int_equal(r.p[0].expected, 0);
	/* BTREE: more extents than fit inline, and a sane root. */
	assert_int_equal(corrupt("frag", e_btree_few, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNextents, "core.nextents");
	assert_int_equal(corrupt("frag", e_btree_level0, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadBmdrRoot, "u3.bmbt.level");
	assert_int_equal(corrupt("frag", e_btree_numrecs12, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadBmdrRoot, "u3.bmbt.numrecs");
	assert_int_equal(r.p[0].observed, 12);
	/* A short symlink claiming a btree fork: the format, the extent count
	 * and the "root" made of path bytes are all wrong. */
	assert_int_equal(corrupt("symlink", e_lnk_btree, true, NULL, &r), 4);
	assert_int_equal(bt_rec_count(&r, XP_inoBadFormat, "core.format"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadNextents, "core.nextents"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadBmdrRoot, NULL), 2);
	/* LOCAL data larger than the fork: the size is wrong */
	assert_int_equal(corrupt("symlink", e_lnk_big_local, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadSize, "core.size");
	assert_int_equal(r.p[0].observed, 337);
	/* No symlink target is longer than 1024 bytes, whatever the format. */
	assert_int_equal(corrupt("symlink", e_lnk_huge_extents, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadSize, "core.size");
	/* a directory small enough to be shortform must be */
	assert_int_equal(corrupt("dir_btree", e_dir_small_extents, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFormat, "core.format");
}

static void e_size63(uint8_t *b) { b[56] |= 0x80; }
static void e_size0(uint8_t *b) { xfmt_put_be64(b + 56, 0); }
static void e_size_leafoff(uint8_t *b) { xfmt_put_be64(b + 56, 1ull << 35); }
static void e_size_past_leafoff(uint8_t *b) { xfmt_put_be64(b + 56, (1ull << 35) + 1); }
static void e_nblocks0(uint8_t *b) { xfmt_put_be64(b + 64, 0); }
static void e_nblocks5(uint8_t *b) { xfmt_put_be64(b + 64, 5); }
static void e_onlink(uint8_t *b) { xfmt_put_be16(b + 6, 1); }
static void e_noattr_aformat(uint8_t *b) { b[83] = XFS_DINODE_FMT_BTREE; }
static void e_noattr_anext(uint8_t *b) { xfmt_put_be16(b + 80, 1); xfmt_put_be64(b + 64, 1); }

static void test_size_count_link_checks(void **state)
{
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("frag", e_size63, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadSize, "core.size");
	/* A linked directory of size 0 */
	assert_int_equal(corrupt("root", e_size0, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadSize, "core.size");
	assert_int_equal(r.p[0].observed, 0);
	/* A directory's size ends at most where its index (leaf offset, 32 GiB) begins. */
	assert_int_equal(corrupt("dir_btree", e_size_leafoff, true, NULL, &r), 0);
	assert_int_equal(corrupt("dir_btree", e_size_past_leafoff, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadSize, "core.size");
	assert_int_equal(r.p[0].observed, (1ull << 35) + 1);
	/* nblocks below the extent count, and blocks without extents */
	assert_int_equal(corrupt("prealloc", e_nblocks0, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNblocks, "core.nblocks");
	assert_int_equal(r.p[0].expected, 1);
	assert_int_equal(r.p[0].observed, 0);
	assert_int_equal(corrupt("symlink", e_nblocks5, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNblocks, "core.nblocks");
	assert_int_equal(r.p[0].expected, 0);
	assert_int_equal(corrupt("cdev", e_onlink, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadOnlink, "core.onlink");
	/* No attr fork: aformat must be 0 or EXTENTS with no extents. */
	assert_int_equal(corrupt("symlink", e_noattr_aformat, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFormat, "core.aformat");
	assert_int_equal(corrupt("symlink", e_noattr_anext, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadNextents, "core.naextents");
}

static void e_flag15(uint8_t *b) { xfmt_put_be16(b + 90, 0x8000); }
static void e_dir_extsize_flag(uint8_t *b) { xfmt_put_be16(b + 90, XFS_DIFLAG_EXTSIZE); }
static void e_reg_extsize_noflag(uint8_t *b) { xfmt_put_be32(b + 72, 16); }
static void e_reg_extsize_ok(uint8_t *b)
{
	xfmt_put_be16(b + 90, XFS_DIFLAG_EXTSIZE);
	xfmt_put_be32(b + 72, 16);
}
static void e_reg_extsize_huge(uint8_t *b)
{
	xfmt_put_be16(b + 90, XFS_DIFLAG_EXTSIZE);
	xfmt_put_be32(b + 72, 20481);   /* over agblocks / 2 */
}
static void e_dir_reflink(uint8_t *b) { xfmt_put_be64(b + 120, 0x8 | XFS_DIFLAG2_REFLINK); }
static void e_flags2_unknown(uint8_t *b) { xfmt_put_be64(b + 120, 0x8 | 0x100); }
static void e_nrext64_flag(uint8_t *b) { xfmt_put_be64(b + 120, 0x8 | XFS_DIFLAG2_NREXT64); }
static void e_reflink_rt(uint8_t *b) { xfmt_put_be16(b + 90, XFS_DIFLAG_REALTIME); }
static void e_cowhint_zero(uint8_t *b) { xfmt_put_be64(b + 120, 0xa | XFS_DIFLAG2_COWEXTSIZE); }
static void e_cowext_noflag(uint8_t *b) { xfmt_put_be32(b + 128, 32); }
static void e_cowhint_ok(uint8_t *b)
{
	xfmt_put_be64(b + 120, 0xa | XFS_DIFLAG2_COWEXTSIZE);
	xfmt_put_be32(b + 128, 32);
}

static void test_flag_checks(void **state)
{
	struct xfmt_geom nobig = bt_geom_v5, noreflink = bt_geom_v5;
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("prealloc", e_flag15, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFlags, "core.flags");
	/* EXTSIZE is for regular files, and needs a non-zero hint. */
	assert_int_equal(corrupt("dir_btree", e_dir_extsize_flag, true, NULL, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_inoBadFlags, "core.flags"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadExtsize, "core.extsize"), 1);
	assert_int_equal(corrupt("prealloc", e_reg_extsize_noflag, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadExtsize, "core.extsize");
	assert_int_equal(corrupt("prealloc", e_reg_extsize_ok, true, NULL, &r), 0);
	assert_int_equal(corrupt("prealloc", e_reg_extsize_huge, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadExtsize, "core.extsize");
	/* REFLINK only on regular files, never with REALTIME. */
	assert_int_equal(corrupt("dir_btree", e_dir_reflink, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFlags, "v3.flags2");
	/* (and REALTIME without a realtime section: core.flags too) */
	assert_int_equal(corrupt("frag", e_reflink_rt, true, NULL, &r), 2);
	assert_int_equal(bt_rec_count(&r, XP_inoBadFlags, "v3.flags2"), 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadFlags, "core.flags"), 1);
	assert_int_equal(corrupt("root", e_flags2_unknown, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFlags, "v3.flags2");
	/* NREXT64 on a filesystem without the feature (counts move: 0 and 1). */
	assert_int_equal(corrupt("prealloc", e_nrext64_flag, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadFlags, "v3.flags2");
	/* CoW extent size hint */
	assert_int_equal(corrupt("frag", e_cowhint_zero, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadExtsize, "v3.cowextsize");
	assert_int_equal(corrupt("frag", e_cowext_noflag, true, NULL, &r), 1);
	expect_only(&r, XP_inoBadExtsize, "v3.cowextsize");
	assert_int_equal(corrupt("frag", e_cowhint_ok, true, NULL, &r), 0);
	/* Feature-dependent flags checked against the superblock features. */
	nobig.incompat &= ~0x8u;
	assert_int_equal(corrupt("root", e_nothing, false, &nobig, &r), 1);
	expect_only(&r, XP_inoBadFlags, "v3.flags2");
	noreflink.ro_compat &= ~0x4u;
	assert_int_equal(corrupt("frag", e_nothing, false, &noreflink, &r), 1);
	expect_only(&r, XP_inoBadFlags, "v3.flags2");
	/* ...while the nrext64 image has the feature for its NREXT64 inodes. */
	assert_int_equal(corrupt("nrext", e_nothing, false, NULL, &r), 0);
}

static void e_v3_pad(uint8_t *b) { b[27] = 1; }
static void e_nrext_pad(uint8_t *b) { b[81] = 1; }
static void e_pad2(uint8_t *b) { b[140] = 1; }
static void e_v4_nsec(uint8_t *b) { xfmt_put_be32(b + 36, 1000000000u); }
static void e_v4_nsec_max(uint8_t *b) { xfmt_put_be32(b + 44, 999999999u); }
static void e_bigtime_raw(uint8_t *b) { xfmt_put_be64(b + 32, ~0ull); }

static void test_pads_and_times(void **state)
{
	struct bt_rec r;

	(void)state;
	assert_int_equal(corrupt("prealloc", e_v3_pad, true, NULL, &r), 1);
	expect_only(&r, XP_inoNonzeroPad, "core.v3_pad");
	assert_int_equal(corrupt("nrext", e_nrext_pad, true, NULL, &r), 1);
	expect_only(&r, XP_inoNonzeroPad, "core.nrext64_pad");
	assert_int_equal(corrupt("cdev", e_pad2, true, NULL, &r), 1);
	expect_only(&r, XP_inoNonzeroPad, "v3.pad2");
	/* Legacy timestamps: nanoseconds must be below one second. */
	assert_int_equal(corrupt("v4root", e_v4_nsec, false, NULL, &r), 1);
	expect_only(&r, XP_inoBadTimestamp, "core.atime.nsec");
	assert_int_equal(r.p[0].observed, 1000000000u);
	assert_int_equal(corrupt("v4root", e_v4_nsec_max, false, NULL, &r), 0);
	/* Bigtime stamps cannot encode a bad nsec. */
	assert_int_equal(corrupt("cdev", e_bigtime_raw, true, NULL, &r), 0);
}

/* A v4 inode whose version byte says 3: tidying it back to 2 must not
 * touch the v3 core's places, which are its literal area. */
static void test_tidy_v4_version3(void **state)
{
	uint8_t buf[256];
	struct xfmt_dinode d;

	(void)state;
	memcpy(buf, ino_v4_root, sizeof(buf));
	buf[4] = 3;
	assert_int_equal(xfmt_dinode_decode(buf, sizeof(buf), &bt_geom_v4, &d), 0);
	assert_false(xfmt_dinode_v3_core(&d));
	xfmt_dinode_tidy_kept_core(buf, &bt_geom_v4, 128, &d);
	assert_int_equal(buf[4], 2);
	assert_memory_equal(buf + XFMT_DINODE_V2_CORE, ino_v4_root + XFMT_DINODE_V2_CORE,
			    sizeof(buf) - XFMT_DINODE_V2_CORE);
}

static void test_truncated_inode(void **state)
{
	struct xfmt_dinode d;
	struct bt_rec r;
	struct xprob_sink s = bt_rec_sink(&r);
	uint8_t *p = malloc(176);

	(void)state;
	memcpy(p, ino_v5_root, 176);
	/* Only the core: decodes, CRC over 176 bytes cannot match. */
	assert_int_equal(xfmt_dinode_decode(p, 176, &bt_geom_v5, &d), 0);
	assert_int_equal(d.lit_size, 0);
	assert_int_equal(d.dfork_size, 0);
	assert_true(xfmt_dinode_verify(p, 176, &bt_geom_v5, 128, &d, &s) >= 1);
	assert_int_equal(bt_rec_count(&r, XP_inoBadCrc, NULL), 1);
	/* A decoded inode handed a shorter buffer: unreadable, nothing else. */
	decode_ok(ino_named("root"), &d);
	s = bt_rec_sink(&r);
	assert_int_equal(xfmt_dinode_verify(p, 100, &bt_geom_v5, 128, &d, &s), 1);
	expect_only(&r, XP_inoUnreadable, NULL);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_root_dir),
		cmocka_unit_test(test_decode_btree_inodes),
		cmocka_unit_test(test_decode_other_types),
		cmocka_unit_test(test_decode_nrext64),
		cmocka_unit_test(test_decode_v2),
		cmocka_unit_test(test_decode_short_and_hostile),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_field_table_matches_xfs_db),
		cmocka_unit_test(test_real_inodes_verify_clean),
		cmocka_unit_test(test_sanitize_flags),
		cmocka_unit_test(test_flags_by_mode_and_number),
		cmocka_unit_test(test_fix_times),
		cmocka_unit_test(test_new_encode),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_known_crc),
		cmocka_unit_test(test_free_inode_checks),
		cmocka_unit_test(test_format_and_fork_checks),
		cmocka_unit_test(test_size_count_link_checks),
		cmocka_unit_test(test_flag_checks),
		cmocka_unit_test(test_pads_and_times),
		cmocka_unit_test(test_tidy_v4_version3),
		cmocka_unit_test(test_truncated_inode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
