/*
 * test_symlink.c - local and remote symlinks against real inodes and blocks
 * (fixtures/sym_v5.h, made by fixtures/attr_recipe.sh and
 * attr_mkfixtures.sh).  Expected values are what xfs_db 6.1 printed:
 * `xfs_db -r -c 'inode 135' -c p v5.img` (u3.symlink = "short/target"),
 * `-c 'inode 136' -c 'dblock 0' -c p` (the XSLM header) and the v4 image's
 * /llink.  Then one header field at a time is corrupted, with and without a
 * fresh CRC, and the exact findings are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "formats/symlink.h"

#include "fixtures/fixture.h"
#include "fixtures/attr_fx.h"
#include "fixtures/sym_v5.h"

static const struct xfmt_geom *G5 = &afx_geom_v5;
static const struct xfmt_geom *G4 = &afx_geom_v4;

#define REMOTE_INO   136
#define REMOTE_DADDR 416   /* fsblock 52 */
#define V4_INO       132
#define V4_DADDR     96    /* fsblock 12 */

/* The targets the recipe made: "/" then 10 (v5) or 9 (v4) runs of 99 letters. */
static void build_target(char *out, char letter, unsigned segs)
{
	size_t o = 0;

	for (unsigned s = 0; s < segs; s++) {
		out[o++] = '/';
		memset(out + o, letter, 99);
		o += 99;
	}
	out[o] = '\0';
}

static void reset(struct fx_sink *s)
{
	memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ local */

static void test_local_matches_xfs_db(void **state)
{
	uint8_t *buf = afx_load(&sym_local_ino);
	struct xfmt_dinode d;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	const uint8_t *t, *fork;
	size_t len, fsize;

	(void)state;
	assert_int_equal(xfmt_dinode_decode(buf, sym_local_ino.len, G5, &d), 0);
	assert_int_equal(d.format, XFS_DINODE_FMT_LOCAL);
	assert_int_equal(d.size, 12);
	fork = xfmt_dinode_fork(buf, &d, 0, &fsize);
	assert_int_equal(fsize, 336);   /* forkoff 0: the whole literal area */
	t = xfmt_symlink_local(fork, fsize, d.size, &len);
	assert_ptr_equal(t, buf + 176);
	assert_int_equal(len, 12);
	assert_memory_equal(t, "short/target", 12);
	assert_int_equal(xfmt_symlink_local_verify(fork, fsize, d.size, &sink), 0);
	assert_int_equal(xfmt_dinode_verify(buf, sym_local_ino.len, G5, 135, &d, &sink), 0);

	/* NULL fork (no data fork): nothing, and no read */
	assert_null(xfmt_symlink_local(NULL, 0, 12, &len));
	assert_int_equal(len, 0);
	free(buf);
}

static void test_local_corruptions(void **state)
{
	uint8_t *buf = afx_load(&sym_local_ino);
	const uint8_t *fork = buf + 176;
	struct fx_sink s;
	FX_SINK(sink, &s);
	size_t len;

	(void)state;
	/* size 0 */
	reset(&s);
	assert_int_equal(xfmt_symlink_local_verify(fork, 336, 0, &sink), 1);
	assert_int_equal(fx_count(&s, XP_symBadSize, "core.size"), 1);
	/* 1024: MAXPATHLEN would leave no room for the NUL, and it overflows the fork */
	reset(&s);
	assert_int_equal(xfmt_symlink_local_verify(fork, 336, 1024, &sink), 3);
	assert_int_equal(fx_count(&s, XP_symBadSize, NULL), 1);
	assert_int_equal(fx_find(&s, XP_symBadSize)->expected, 1023);
	assert_int_equal(fx_count(&s, XP_symLocalOverflow, NULL), 1);
	assert_int_equal(fx_find(&s, XP_symLocalOverflow)->expected, 336);
	/* ... and the bytes after the 12-byte target are zero: a NUL at 12 */
	assert_int_equal(fx_count(&s, XP_symNulInTarget, NULL), 1);
	assert_int_equal(fx_find(&s, XP_symNulInTarget)->off, 12);
	/* the reader never goes past the fork */
	assert_non_null(xfmt_symlink_local(fork, 336, 1024, &len));
	assert_int_equal(len, 336);
	/* a NUL inside the target */
	reset(&s);
	buf[176 + 5] = 0;
	assert_int_equal(xfmt_symlink_local_verify(fork, 336, 12, &sink), 1);
	assert_int_equal(fx_find(&s, XP_symNulInTarget)->off, 5);
	free(buf);
}

/* ------------------------------------------------------------ remote */

static void test_remote_header_matches_xfs_db(void **state)
{
	uint8_t *ib = afx_load(&sym_remote_ino), *blk = afx_load(&sym_remote_blk);
	struct xfmt_rmt_hdr h;
	struct xfmt_dinode d;
	const uint8_t *fork;
	size_t fsize;
	char line[160];
	/* xfs_db -r -c 'inode 136' -c 'dblock 0' -c p v5.img */
	static const char *const want[] = {
		"magic = 0x58534c4d", "offset = 0", "bytes = 1000", "crc = 0x4601907",
		"uuid = aaaaaaaa-1111-2222-3333-444444444444", "owner = 136", "bno = 416",
		"lsn = 0x100000002",
	};
	unsigned i = 0;

	(void)state;
	assert_int_equal(xfmt_dinode_decode(ib, sym_remote_ino.len, G5, &d), 0);
	assert_int_equal(d.format, XFS_DINODE_FMT_EXTENTS);
	assert_int_equal(d.size, 1000);
	fork = xfmt_dinode_fork(ib, &d, 0, &fsize);
	/* u3.bmx[0] = 0:[0,52,1,0]; daddr of fsblock 52 */
	assert_int_equal(xfmt_get_be64(fork + 8) >> 21, 52);
	assert_int_equal(afx_fsb_daddr(G5, 52), REMOTE_DADDR);

	assert_int_equal(xfmt_rmt_hdr_decode(blk, 4096, &h), 0);
	assert_int_equal(h.magic, XFS_SYMLINK_MAGIC);
	assert_int_equal(h.offset, 0);
	assert_int_equal(h.bytes, 1000);
	assert_int_equal(h.owner, REMOTE_INO);
	assert_int_equal(h.blkno, REMOTE_DADDR);
	assert_int_equal(h.lsn, 0x100000002ull);
	assert_memory_equal(h.uuid, G5->meta_uuid, 16);
	for (const struct xfmt_field *f = xfmt_symlink_hdr_fields; f->name; f++, i++) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		assert_int_equal(fx_print_field(blk, 4096, f, line, sizeof(line)), 0);
		assert_string_equal(line, want[i]);
	}
	assert_int_equal(i, 8);
	assert_int_equal(xfmt_rmt_hdr_decode(blk, 55, &h), -1);
	assert_int_equal(xfmt_symlink_buf_space(4096, true), 4040);
	assert_int_equal(xfmt_symlink_buf_space(4096, false), 4096);
	assert_int_equal(xfmt_symlink_buf_space(20, true), 0);
	free(ib);
	free(blk);
}

static void test_remote_assembles(void **state)
{
	uint8_t *blk = afx_load(&sym_remote_blk);
	struct xfmt_symlink_asm a;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	char want[1100];

	(void)state;
	build_target(want, 'L', 10);
	assert_int_equal(strlen(want), 1000);
	xfmt_symlink_asm_init(&a, G5, REMOTE_INO, 1000);
	assert_false(xfmt_rmt_cursor_done(&a.cur));
	assert_int_equal(xfmt_symlink_asm_add(&a, blk, 4096, REMOTE_DADDR, G5, &sink), 0);
	assert_true(xfmt_rmt_cursor_done(&a.cur));
	assert_int_equal(xfmt_symlink_asm_finish(&a, &sink), 0);
	fx_dump(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(a.cur.have, 1000);
	assert_int_equal(a.cur.blocks, 1);
	assert_memory_equal(a.target, want, 1000);
	/* a further buffer is not needed and is ignored */
	assert_int_equal(xfmt_symlink_asm_add(&a, blk, 4096, REMOTE_DADDR, G5, &sink), 0);
	assert_int_equal(a.cur.blocks, 1);
	free(blk);
}

static void test_v4_remote(void **state)
{
	uint8_t *ib = afx_load(&sym_v4_ino), *blk = afx_load(&sym_v4_blk);
	struct xfmt_symlink_asm a;
	struct xfmt_rmt_expect exp = { V4_DADDR, V4_INO, false, 0, 0 };
	struct xfmt_dinode d;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	char want[1000];

	(void)state;
	/* xfs_db: core.version = 2, format extents, size 900, [0,12,1,0] */
	assert_int_equal(xfmt_dinode_decode(ib, sym_v4_ino.len, G4, &d), 0);
	assert_int_equal(d.version, 2);
	assert_int_equal(d.size, 900);
	assert_int_equal(xfmt_get_be64(ib + 100 + 8) >> 21, 12);
	assert_int_equal(afx_fsb_daddr(G4, 12), V4_DADDR);

	build_target(want, 'M', 9);
	assert_int_equal(strlen(want), 900);
	/* v4 buffers are raw bytes: nothing to verify, the target starts at byte 0 */
	assert_int_equal(xfmt_symlink_rmt_verify(blk, 4096, G4, &exp, &sink), 0);
	assert_int_equal(xfmt_symlink_payload_off(false), 0);
	xfmt_symlink_asm_init(&a, G4, V4_INO, d.size);
	assert_int_equal(xfmt_symlink_asm_add(&a, blk, 4096, V4_DADDR, G4, &sink), 0);
	assert_int_equal(xfmt_symlink_asm_finish(&a, &sink), 0);
	assert_int_equal(a.cur.have, 900);
	assert_memory_equal(a.target, want, 900);
	assert_int_equal(s.n, 0);
	free(ib);
	free(blk);
}

/* One header field changed, with (fresh = 1) and without a recomputed CRC. */
struct sym_case {
	const char *what;
	size_t off;
	unsigned width;
	uint64_t value;
	enum xprob_code codes[4];
	const char *fields[4];
};

static void run_case(const struct sym_case *c, int fresh)
{
	uint8_t *blk = afx_load(&sym_remote_blk);
	struct xfmt_rmt_expect exp = { REMOTE_DADDR, REMOTE_INO, true, 0, 1000 };
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	unsigned want = 0;

	if (c->width == 4)
		xfmt_put_be32(blk + c->off, (uint32_t)c->value);
	else if (c->width == 8)
		xfmt_put_be64(blk + c->off, c->value);
	else
		blk[c->off] ^= (uint8_t)c->value;
	if (fresh)
		xfmt_crc_update(blk, 4096, XFMT_SYMLINK_CRC_OFF);
	xfmt_symlink_rmt_verify(blk, 4096, G5, &exp, &sink);
	for (unsigned i = 0; i < 4 && c->codes[i]; i++, want++)
		assert_int_equal(fx_count(&s, c->codes[i], c->fields[i]), 1);
	if (!fresh) {
		assert_int_equal(fx_count(&s, XP_symBadCrc, "crc"), 1);
		want++;
	}
	if (s.n != want) {
		fprintf(stderr, "case %s fresh %d\n", c->what, fresh);
		fx_dump(&s);
	}
	assert_int_equal(s.n, want);
	free(blk);
}

static void test_remote_corruptions(void **state)
{
	static const struct sym_case cases[] = {
		{ "magic", 0, 4, 0x58534c4e, { XP_symBadMagic }, { "magic" } },
		{ "uuid", 16, 1, 0x01, { XP_symBadUuid }, { "uuid" } },
		{ "bno", 40, 8, 417, { XP_symBadBlkno }, { "bno" } },
		{ "owner0", 32, 8, 0, { XP_symBadOwner }, { "owner" } },
		{ "owner", 32, 8, 137, { XP_symBadOwner }, { "owner" } },
		/* offset 24: 24 + 1000 = 1024 >= MAXPATHLEN, and not where the reader is */
		{ "offset", 4, 4, 24, { XP_symBadRange, XP_symHdrMismatch }, { "offset", "offset" } },
		/* bytes 4041: over the 4040-byte space, past 1023, not what is left */
		{ "bytes", 8, 4, 4041, { XP_symBadRange, XP_symBadRange, XP_symHdrMismatch },
		  { "bytes", "offset", "bytes" } },
		{ "bytes999", 8, 4, 999, { XP_symHdrMismatch }, { "bytes" } },
		/* a target byte: the CRC alone tells (nothing when recomputed) */
		{ "payload", 100, 1, 0x20, { 0 }, { NULL } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], 0);
		run_case(&cases[i], 1);
	}
}

static void test_remote_values(void **state)
{
	uint8_t *blk = afx_load(&sym_remote_blk);
	struct xfmt_rmt_expect exp = { REMOTE_DADDR, REMOTE_INO, true, 0, 1000 };
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);
	uint32_t good = xfmt_get_le32(blk + 12);

	(void)state;
	blk[200] ^= 1;
	assert_int_equal(xfmt_symlink_rmt_verify(blk, 4096, G5, &exp, &sink), 1);
	assert_int_equal(s.p[0].code, XP_symBadCrc);
	assert_int_equal(s.p[0].observed, good);
	assert_int_equal(s.p[0].expected, xfmt_crc32c_excluding(blk, 4096, 12));
	blk[200] ^= 1;

	/* the CRC covers the whole buffer: a shorter "buffer" does not match */
	reset(&s);
	xfmt_symlink_rmt_verify(blk, 2048, G5, &exp, &sink);
	assert_int_equal(fx_count(&s, XP_symBadCrc, NULL), 1);
	assert_int_equal(s.n, 1);

	reset(&s);
	exp.daddr = 8;
	xfmt_symlink_rmt_verify(blk, 4096, G5, &exp, &sink);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.p[0].expected, 8);
	assert_int_equal(s.p[0].observed, REMOTE_DADDR);
	free(blk);
}

static void test_assembly_mismatch(void **state)
{
	uint8_t *blk = afx_load(&sym_remote_blk);
	struct xfmt_symlink_asm a;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);

	(void)state;
	/* di_size says 2000: too long for a symlink; 1023 bytes are collected,
	 * and the block's header says 1000 */
	xfmt_symlink_asm_init(&a, G5, REMOTE_INO, 2000);
	xfmt_symlink_asm_add(&a, blk, 4096, REMOTE_DADDR, G5, &sink);
	assert_int_equal(fx_count(&s, XP_symHdrMismatch, "bytes"), 1);
	assert_int_equal(fx_find(&s, XP_symHdrMismatch)->expected, 1023);
	xfmt_symlink_asm_finish(&a, &sink);
	assert_int_equal(fx_count(&s, XP_symBadSize, NULL), 1);
	/* the block holds zeros after the 1000 target bytes */
	assert_int_equal(fx_count(&s, XP_symNulInTarget, NULL), 1);
	assert_int_equal(fx_find(&s, XP_symNulInTarget)->off, 1000);
	assert_int_equal(s.n, 3);
	assert_int_equal(a.cur.have, 1023);

	/* no buffer at all: incomplete */
	reset(&s);
	xfmt_symlink_asm_init(&a, G5, REMOTE_INO, 1000);
	assert_int_equal(xfmt_symlink_asm_finish(&a, &sink), 1);
	assert_int_equal(s.p[0].code, XP_symTargetIncomplete);
	assert_int_equal(s.p[0].observed, 0);
	assert_int_equal(s.p[0].expected, 1000);

	/* owner mismatch seen through the assembler */
	reset(&s);
	xfmt_symlink_asm_init(&a, G5, 999, 1000);
	assert_int_equal(xfmt_symlink_asm_add(&a, blk, 4096, REMOTE_DADDR, G5, &sink), 1);
	assert_int_equal(s.p[0].code, XP_symBadOwner);
	assert_int_equal(a.cur.findings, 1);
	free(blk);
}

/* ------------------------------------------------------- hostile input */

static void test_truncated_and_garbage(void **state)
{
	uint8_t *good = afx_load(&sym_remote_blk);
	struct xfmt_rmt_expect exp = { REMOTE_DADDR, REMOTE_INO, true, 0, 1000 };
	struct fx_sink s;
	FX_SINK(sink, &s);
	uint32_t seed = 7;

	(void)state;
	/* Truncated copies of the real block: short header = one finding only. */
	for (size_t len = 0; len < 200; len++) {
		uint8_t *b = fx_dup(good, len);
		struct xfmt_symlink_asm a;

		reset(&s);
		xfmt_symlink_rmt_verify(b, len, G5, &exp, &sink);
		if (len < XFMT_SYMLINK_HDR_LEN) {
			assert_int_equal(s.n, 1);
			assert_int_equal(s.p[0].code, XP_symUnreadable);
		}
		xfmt_symlink_asm_init(&a, G5, REMOTE_INO, 1000);
		xfmt_symlink_asm_add(&a, b, len, REMOTE_DADDR, G5, &sink);
		assert_true(a.cur.have <= 1000);
		assert_int_equal(a.cur.have, len > 56 ? len - 56 : 0);
		xfmt_symlink_asm_finish(&a, &sink);
		xfmt_symlink_local_verify(b, len, 1000, &sink);
		free(b);
	}
	/* Random bytes with random sizes. */
	for (unsigned round = 0; round < 200; round++) {
		size_t len = 1 + round * 7 % 600;
		uint8_t *b = malloc(len);
		struct xfmt_symlink_asm a;

		assert_non_null(b);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			b[i] = (uint8_t)(seed >> 16);
		}
		reset(&s);
		xfmt_symlink_rmt_verify(b, len, G5, &exp, &sink);
		xfmt_symlink_asm_init(&a, G5, REMOTE_INO, (uint64_t)seed << 20);
		for (int k = 0; k < 4; k++)
			xfmt_symlink_asm_add(&a, b, len, REMOTE_DADDR, k ? G4 : G5, &sink);
		assert_true(a.cur.have < XFMT_SYMLINK_MAXLEN);
		xfmt_symlink_asm_finish(&a, &sink);
		xfmt_symlink_local_verify(b, len, seed, &sink);
		free(b);
	}
	free(good);
}

/* xfs_repair's process_symlink_extlist: the longest target (1023 bytes)
 * needs 1 block of 4 KiB on v5, 2 of 1 KiB (968 bytes each after the
 * header), 1 of 1 KiB on v4. */
static void test_map(void **state)
{
	struct xfmt_bmbt_rec one[1] = { { .startoff = 0, .startblock = 52, .blockcount = 1 } };
	struct xfmt_bmbt_rec two[2] = { { .startoff = 0, .startblock = 52, .blockcount = 1 },
					{ .startoff = 1, .startblock = 90, .blockcount = 1 } };
	struct xfmt_geom g1k = *G5;
	struct fx_sink s = { 0 };
	FX_SINK(sink, &s);

	(void)state;
	g1k.blocksize = 1024;
	g1k.blocklog = 10;
	assert_int_equal(xfmt_symlink_map_verify(one, 1, G5, &sink), 0);
	assert_int_equal(xfmt_symlink_map_verify(two, 2, &g1k, &sink), 0);
	assert_int_equal(s.n, 0);
	/* 2 mappings on 4 KiB blocks: one too many */
	assert_int_equal(xfmt_symlink_map_verify(two, 2, G5, &sink), 1);
	assert_string_equal(fx_find(&s, XP_symBadMap)->field, "extents");
	assert_int_equal(fx_find(&s, XP_symBadMap)->expected, 1);
	/* the sweep's case: blockcount 1 -> 2018 */
	reset(&s);
	one[0].blockcount = 2018;
	assert_int_equal(xfmt_symlink_map_verify(one, 1, G5, &sink), 1);
	assert_string_equal(fx_find(&s, XP_symBadMap)->field, "blockcount");
	/* a gap, and a mapping not at file block 0 */
	reset(&s);
	two[1].startoff = 2;
	assert_int_equal(xfmt_symlink_map_verify(two, 2, &g1k, &sink), 1);
	assert_string_equal(fx_find(&s, XP_symBadMap)->field, "startoff");
	assert_int_equal(fx_find(&s, XP_symBadMap)->off, 1);
	reset(&s);
	one[0].blockcount = 1;
	one[0].startoff = 67108864;
	assert_int_equal(xfmt_symlink_map_verify(one, 1, G5, &sink), 1);
	assert_int_equal(fx_find(&s, XP_symBadMap)->observed, 67108864);
	/* 1 KiB v4: the whole target fits one block */
	reset(&s);
	g1k.v5 = false;
	assert_int_equal(xfmt_symlink_map_verify(two, 2, &g1k, &sink), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_matches_xfs_db),
		cmocka_unit_test(test_local_corruptions),
		cmocka_unit_test(test_remote_header_matches_xfs_db),
		cmocka_unit_test(test_remote_assembles),
		cmocka_unit_test(test_v4_remote),
		cmocka_unit_test(test_remote_corruptions),
		cmocka_unit_test(test_remote_values),
		cmocka_unit_test(test_assembly_mismatch),
		cmocka_unit_test(test_truncated_and_garbage),
		cmocka_unit_test(test_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
