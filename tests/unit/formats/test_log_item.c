/*
 * test_log_item.c - the log payload decoders and replay steps on hand-built
 * records: op headers, transaction assembly (split header, split region,
 * skipped slack, commit, refusal), cycle-stamp restore, buffer items
 * (bitmap copy, inode-buffer unlinked words, seal), inode items (a
 * little-endian core converted to disk order, di_lsn and
 * di_next_unlinked rules, fork copy, bmbt root to bmdr), icreate and
 * intents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/log.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"

static void put_le16(uint8_t *p, uint16_t v) { p[0] = v & 0xFF; p[1] = v >> 8; }
static void put_le32x(uint8_t *p, uint32_t v) { xfmt_put_le32(p, v); }
static void put_le64(uint8_t *p, uint64_t v) { put_le32x(p, (uint32_t)v); put_le32x(p + 4, (uint32_t)(v >> 32)); }

/* Append one op (header + data) at *off of buf. */
static void op(uint8_t *buf, size_t *off, uint32_t tid, uint8_t flags, const void *data, uint32_t len)
{
	xfmt_put_be32(buf + *off, tid);
	xfmt_put_be32(buf + *off + 4, len);
	buf[*off + 8] = XLOG_CLIENT_TRANS;
	buf[*off + 9] = flags;
	buf[*off + 10] = buf[*off + 11] = 0;
	if (len)
		memcpy(buf + *off + 12, data, len);
	*off += 12 + len;
}

static void trans_header(uint8_t h[16], uint32_t nitems)
{
	memset(h, 0, 16);
	put_le32x(h, XLOG_TRANS_MAGIC);
	put_le32x(h + 4, 40);
	put_le32x(h + 8, 7);
	put_le32x(h + 12, nitems);
}

struct got {
	int n;
	size_t nitems;
	uint32_t regions0, len1;
	uint8_t first_data;
	uint64_t lsn;
};

static int on_commit(void *arg, const struct xfmt_log_trans *t)
{
	struct got *g = arg;

	g->n++;
	g->nitems = t->nitems;
	g->lsn = t->lsn;
	if (t->nitems && t->items[0].nregions >= 2) {
		g->regions0 = t->items[0].nregions;
		g->len1 = t->items[0].regions[1].len;
		g->first_data = t->items[0].regions[1].data[0];
	}
	return 0;
}

/* A transaction split over two records: header in two parts, one region
 * in two parts; slack of an unknown tid before it is skipped. */
static void test_assemble_split(void **state)
{
	uint8_t rec1[512], rec2[512], hdr[16], fmt[8], data[40];
	size_t o1 = 0, o2 = 0;
	struct xfmt_log_asm a;
	struct got g = { 0 };

	(void)state;
	trans_header(hdr, 1);
	memset(fmt, 0, sizeof(fmt));
	put_le16(fmt, XFS_LI_EFI);
	put_le16(fmt + 2, 2);
	memset(data, 0xAB, sizeof(data));
	op(rec1, &o1, 99, 0, data, 8);                       /* slack, unknown tid */
	op(rec1, &o1, 5, XLOG_OP_START, NULL, 0);
	op(rec1, &o1, 5, XLOG_OP_CONTINUE, hdr, 6);
	op(rec2, &o2, 5, XLOG_OP_WAS_CONT | XLOG_OP_END, hdr + 6, 10);
	op(rec2, &o2, 5, 0, fmt, sizeof(fmt));
	op(rec2, &o2, 5, XLOG_OP_CONTINUE, data, 16);
	op(rec2, &o2, 5, XLOG_OP_WAS_CONT | XLOG_OP_END, data + 16, 24);
	op(rec2, &o2, 5, XLOG_OP_COMMIT, NULL, 0);

	xfmt_log_asm_init(&a, 1 << 20, on_commit, &g);
	assert_int_equal(xfmt_log_asm_record(&a, rec1, o1, 3, 0x100000010ull, false, NULL), XLOG_ASM_OK);
	assert_int_equal(g.n, 0);
	assert_int_equal(xfmt_log_asm_record(&a, rec2, o2, 5, 0x100000020ull, false, NULL), XLOG_ASM_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.lsn, 0x100000010ull);  /* the START record's LSN */
	assert_int_equal(g.regions0, 2);
	assert_int_equal(g.len1, 40);             /* the two parts joined */
	assert_int_equal(g.first_data, 0xAB);
	assert_int_equal(a.nopen, 0);
	xfmt_log_asm_release(&a);
}

static void test_assemble_refusals(void **state)
{
	uint8_t rec[256], hdr[16];
	size_t o = 0;
	struct xfmt_log_asm a;
	struct got g = { 0 };

	(void)state;
	trans_header(hdr, 1);
	hdr[0] ^= 0xFF;  /* wrong magic */
	op(rec, &o, 5, XLOG_OP_START, NULL, 0);
	op(rec, &o, 5, 0, hdr, 16);
	xfmt_log_asm_init(&a, 1 << 20, on_commit, &g);
	assert_int_equal(xfmt_log_asm_record(&a, rec, o, 2, 1, false, NULL), XLOG_ASM_BAD_HEADER);
	xfmt_log_asm_release(&a);

	/* An op whose length runs past the payload. */
	o = 0;
	op(rec, &o, 5, XLOG_OP_START, NULL, 0);
	xfmt_put_be32(rec + 4, 1000);
	xfmt_log_asm_init(&a, 1 << 20, on_commit, &g);
	assert_int_equal(xfmt_log_asm_record(&a, rec, o, 1, 1, false, NULL), XLOG_ASM_OP_TRUNCATED);
	xfmt_log_asm_release(&a);

	/* An unknown client. */
	o = 0;
	op(rec, &o, 5, XLOG_OP_START, NULL, 0);
	rec[8] = 0x12;
	xfmt_log_asm_init(&a, 1 << 20, on_commit, &g);
	assert_int_equal(xfmt_log_asm_record(&a, rec, o, 1, 1, false, NULL), XLOG_ASM_BAD_CLIENT);
	xfmt_log_asm_release(&a);

	/* The memory bound. */
	trans_header(hdr, 1);
	{
		uint8_t fmt[64] = { 0 };

		put_le16(fmt, XFS_LI_EFI);
		put_le16(fmt + 2, 1);
		o = 0;
		op(rec, &o, 5, XLOG_OP_START, NULL, 0);
		op(rec, &o, 5, 0, hdr, 16);
		op(rec, &o, 5, 0, fmt, sizeof(fmt));
		xfmt_log_asm_init(&a, 32, on_commit, &g);
		assert_int_equal(xfmt_log_asm_record(&a, rec, o, 3, 1, false, NULL), XLOG_ASM_TOO_BIG);
		xfmt_log_asm_release(&a);
	}
}

/* Cycle stamps: each payload sector's first word comes back from the header. */
static void test_rec_restore(void **state)
{
	uint8_t rec[3 * 512];
	struct xfmt_log_rec r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.magicno = XLOG_HEADER_MAGIC;
	r.cycle = 3;
	r.version = 2;
	r.len = 1024;
	r.size = 32768;
	memset(rec, 0, sizeof(rec));
	assert_int_equal(xfmt_log_rec_encode(&r, rec, sizeof(rec)), 0);
	xfmt_put_be32(rec + 44, 0x11223344);      /* h_cycle_data[0] */
	xfmt_put_be32(rec + 48, 0x55667788);      /* h_cycle_data[1] */
	xfmt_put_be32(rec + 512, 3);              /* stamped */
	xfmt_put_be32(rec + 1024, 3);
	assert_int_equal(xfmt_log_rec_check(&r), XLOG_REC_OK);
	assert_int_equal(xfmt_log_rec_total_blocks(&r), 3);
	assert_int_equal(xfmt_log_rec_restore(rec, sizeof(rec)), 0);
	assert_int_equal(xfmt_get_be32(rec + 512), 0x11223344);
	assert_int_equal(xfmt_get_be32(rec + 1024), 0x55667788);
	/* A record longer than what it was given is refused. */
	assert_int_equal(xfmt_log_rec_restore(rec, 1024), -1);
	r.len = 0;
	assert_int_equal(xfmt_log_rec_check(&r), XLOG_REC_BAD_LEN);
}

/* A buffer item as the kernel logs it: format + one region per dirty run. */
static void buf_item(struct xfmt_log_titem *it, struct xfmt_log_region *rg, uint8_t *fmt,
		     uint16_t flags, uint16_t bbs, uint64_t blkno, uint32_t map0,
		     uint8_t *d1, uint32_t l1, uint8_t *d2, uint32_t l2)
{
	memset(fmt, 0, 88);
	put_le16(fmt, XFS_LI_BUF);
	put_le16(fmt + 4, flags);
	put_le16(fmt + 6, bbs);
	put_le64(fmt + 8, blkno);
	put_le32x(fmt + 16, 1);
	put_le32x(fmt + 20, map0);
	rg[0] = (struct xfmt_log_region){ fmt, 88 };
	rg[1] = (struct xfmt_log_region){ d1, l1 };
	rg[2] = (struct xfmt_log_region){ d2, l2 };
	it->regions = rg;
	it->nregions = d2 ? 3 : 2;
	it->total = it->nregions;
	it->type = XFS_LI_BUF;
}

static void test_buf_apply(void **state)
{
	uint8_t fmt[88], r1[256], r2[128], buf[1024];
	struct xfmt_log_region rg[3];
	struct xfmt_log_titem it;
	struct xfmt_log_buf b;

	(void)state;
	memset(r1, 0x11, sizeof(r1));
	memset(r2, 0x22, sizeof(r2));
	/* chunks 0-1 and 5 of a 1 KiB buffer */
	buf_item(&it, rg, fmt, 0, 2, 0x1234, 0x23, r1, sizeof(r1), r2, sizeof(r2));
	assert_int_equal(xfmt_log_buf_decode(&it, false, &b), 0);
	assert_int_equal(b.blkno, 0x1234);
	assert_int_equal(b.len, 2);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(xfmt_log_buf_apply(&it, &b, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(buf[255], 0x11);
	assert_int_equal(buf[256], 0);
	assert_int_equal(buf[640], 0x22);
	assert_int_equal(buf[768], 0);
	/* A run past the buffer is refused. */
	buf_item(&it, rg, fmt, 0, 2, 0x1234, 0x80000000u, r2, sizeof(r2), NULL, 0);
	assert_int_equal(xfmt_log_buf_decode(&it, false, &b), 0);
	assert_int_equal(xfmt_log_buf_apply(&it, &b, buf, sizeof(buf)), -1);
	/* A bitmap too small for the buffer is refused at decode. */
	buf_item(&it, rg, fmt, 0, 100, 0x1234, 1, r2, sizeof(r2), NULL, 0);
	assert_int_equal(xfmt_log_buf_decode(&it, false, &b), -1);
}

static void test_inode_buf_apply(void **state)
{
	uint8_t fmt[88], r1[128], buf[2 * 512];
	struct xfmt_log_region rg[3];
	struct xfmt_log_titem it;
	struct xfmt_log_buf b;

	(void)state;
	/* chunk 4 (bytes 512..639) holds inode 1's next_unlinked at 608. */
	memset(r1, 0x77, sizeof(r1));
	xfmt_put_be32(r1 + (608 - 512), 0x00000042);
	buf_item(&it, rg, fmt, XFS_BLF_INODE_BUF, 2, 64, 1u << 4, r1, sizeof(r1), NULL, 0);
	assert_int_equal(xfmt_log_buf_decode(&it, false, &b), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(xfmt_log_inode_buf_apply(&it, &b, buf, sizeof(buf), 512, true), 1);
	assert_int_equal(xfmt_get_be32(buf + 608), 0x42);
	/* only the word: the rest of the logged chunk is not copied */
	assert_int_equal(buf[520], 0);
	assert_true(xfmt_crc_ok(buf + 512, 512, 100));
	/* a zero word is corruption */
	xfmt_put_be32(r1 + (608 - 512), 0);
	assert_int_equal(xfmt_log_inode_buf_apply(&it, &b, buf, sizeof(buf), 512, true), -1);
}

static void test_seal_and_lsn(void **state)
{
	uint8_t agf[512], uuid[16];

	(void)state;
	memset(agf, 0, sizeof(agf));
	memset(uuid, 0x5A, sizeof(uuid));
	xfmt_put_be32(agf, 0x58414746u);
	memcpy(agf + 64, uuid, 16);
	xfmt_put_be64(agf + 208, 0x0000000200000010ull);
	{
		uint64_t lsn = 0;

		assert_true(xfmt_log_buf_lsn(agf, sizeof(agf), uuid, &lsn));
		assert_int_equal(lsn, 0x0000000200000010ull);
		uuid[0] ^= 1;
		assert_false(xfmt_log_buf_lsn(agf, sizeof(agf), uuid, &lsn));
	}
	assert_true(xfmt_log_buf_seal(agf, sizeof(agf), 0x0000000300000040ull, 4096));
	assert_int_equal(xfmt_get_be64(agf + 208), 0x0000000300000040ull);
	assert_true(xfmt_crc_ok(agf, sizeof(agf), 216));
	memset(agf, 0, 8);
	assert_false(xfmt_log_buf_seal(agf, sizeof(agf), 1, 4096));
}

/* An inode item written by a little-endian kernel. */
static void test_inode_apply(void **state)
{
	uint8_t fmt[56], core[176], fork[24], dip[512];
	struct xfmt_log_region rg[3];
	struct xfmt_log_titem it = { rg, 3, 3, XFS_LI_INODE };
	struct xfmt_log_inode in;

	(void)state;
	memset(fmt, 0, sizeof(fmt));
	put_le16(fmt, XFS_LI_INODE);
	put_le16(fmt + 2, 3);
	put_le32x(fmt + 4, XFS_ILOG_CORE | XFS_ILOG_DEXT);
	put_le16(fmt + 10, sizeof(fork));
	put_le64(fmt + 16, 131);
	put_le64(fmt + 40, 96);
	put_le32x(fmt + 48, 16);
	put_le32x(fmt + 52, 1536);
	memset(core, 0, sizeof(core));
	put_le16(core, 0x494E);
	put_le16(core + 2, 0100644);
	core[4] = 3;
	core[5] = 2;
	put_le32x(core + 16, 1);
	put_le32x(core + 32, 1700000000);   /* atime seconds, legacy */
	put_le32x(core + 36, 5);
	put_le64(core + 56, 12345);          /* size */
	put_le64(core + 64, 1);              /* nblocks */
	put_le32x(core + 76, 1);             /* nextents */
	put_le32x(core + 92, 77);            /* gen */
	put_le32x(core + 96, 0x99);          /* next_unlinked: not replayed */
	put_le64(core + 112, 0xDEAD);        /* di_lsn: not replayed */
	put_le64(core + 152, 131);
	memset(fork, 0xC3, sizeof(fork));
	rg[0] = (struct xfmt_log_region){ fmt, sizeof(fmt) };
	rg[1] = (struct xfmt_log_region){ core, sizeof(core) };
	rg[2] = (struct xfmt_log_region){ fork, sizeof(fork) };
	assert_int_equal(xfmt_log_inode_decode(&it, false, &in), 0);
	assert_int_equal(in.ino, 131);
	assert_int_equal(in.blkno, 96);
	assert_int_equal(in.boffset, 1536);

	memset(dip, 0, sizeof(dip));
	xfmt_put_be16(dip, 0x494E);
	dip[4] = 3;
	xfmt_put_be32(dip + 96, 0xFFFFFFFFu);
	assert_int_equal(xfmt_log_inode_apply(&it, &in, false, dip, 512, true, 0x100000020ull),
			 XLOG_INODE_REPLAYED);
	assert_int_equal(xfmt_get_be16(dip + 2), 0100644);
	assert_int_equal(xfmt_get_be64(dip + 56), 12345);
	assert_int_equal(xfmt_get_be32(dip + 32), 1700000000);
	assert_int_equal(xfmt_get_be32(dip + 36), 5);
	assert_int_equal(xfmt_get_be32(dip + 92), 77);
	assert_int_equal(xfmt_get_be32(dip + 96), 0xFFFFFFFFu);
	assert_int_equal(xfmt_get_be64(dip + 112), 0x100000020ull);
	assert_int_equal(dip[176], 0xC3);
	assert_int_equal(dip[176 + 24], 0);
	assert_true(xfmt_crc_ok(dip, 512, 100));

	/* The on-disk inode is now newer than an older transaction. */
	assert_int_equal(xfmt_log_inode_apply(&it, &in, false, dip, 512, true, 0x100000010ull),
			 XLOG_INODE_NEWER);
	/* A regular file in local format is refused, nothing written. */
	core[5] = 1;
	xfmt_put_be64(dip + 112, 0);
	assert_int_equal(xfmt_log_inode_apply(&it, &in, false, dip, 512, true, 0x100000030ull),
			 XLOG_INODE_BAD);
	assert_int_equal(xfmt_get_be64(dip + 112), 0);
}

static void test_bmbt_to_bmdr(void **state)
{
	uint8_t src[72 + 4 * 16], dst[4 + 2 * 16];

	(void)state;
	memset(src, 0, sizeof(src));
	xfmt_put_be16(src + 4, 1);     /* level */
	xfmt_put_be16(src + 6, 2);     /* numrecs */
	xfmt_put_be64(src + 72, 10);   /* keys */
	xfmt_put_be64(src + 80, 20);
	xfmt_put_be64(src + 72 + 4 * 8, 1000);  /* ptrs after maxrecs (4) keys */
	xfmt_put_be64(src + 72 + 5 * 8, 2000);
	assert_int_equal(xfmt_log_bmbt_to_bmdr(src, sizeof(src), true, dst, sizeof(dst)), 0);
	assert_int_equal(xfmt_get_be16(dst), 1);
	assert_int_equal(xfmt_get_be16(dst + 2), 2);
	assert_int_equal(xfmt_get_be64(dst + 4), 10);
	assert_int_equal(xfmt_get_be64(dst + 12), 20);
	assert_int_equal(xfmt_get_be64(dst + 4 + 2 * 8), 1000);
	assert_int_equal(xfmt_get_be64(dst + 4 + 3 * 8), 2000);
	/* more records than the fork holds */
	xfmt_put_be16(src + 6, 3);
	assert_int_equal(xfmt_log_bmbt_to_bmdr(src, sizeof(src), true, dst, sizeof(dst)), -1);
}

static void test_icreate_and_intents(void **state)
{
	uint8_t ic[28], efd[16], chunk[2 * 512], uuid[16];
	struct xfmt_log_region rg = { ic, sizeof(ic) };
	struct xfmt_log_titem it = { &rg, 1, 1, XFS_LI_ICREATE };
	struct xfmt_log_icreate d;
	struct xfmt_log_intent x;

	(void)state;
	memset(ic, 0, sizeof(ic));
	put_le16(ic, XFS_LI_ICREATE);
	put_le16(ic + 2, 1);
	xfmt_put_be32(ic + 4, 2);
	xfmt_put_be32(ic + 8, 16);
	xfmt_put_be32(ic + 12, 64);
	xfmt_put_be32(ic + 16, 512);
	xfmt_put_be32(ic + 20, 8);
	xfmt_put_be32(ic + 24, 0xABCD);
	assert_int_equal(xfmt_log_icreate_decode(&it, false, &d), 0);
	assert_int_equal(d.agno, 2);
	assert_int_equal(d.agbno, 16);
	assert_int_equal(d.length, 8);
	assert_int_equal(d.gen, 0xABCD);
	memset(uuid, 7, sizeof(uuid));
	assert_int_equal(xfmt_log_icreate_init(chunk, sizeof(chunk), 512, 3, 1000, 9, uuid), 0);
	assert_int_equal(xfmt_get_be16(chunk + 512), 0x494E);
	assert_int_equal(xfmt_get_be64(chunk + 512 + 152), 1001);
	assert_int_equal(xfmt_get_be32(chunk + 512 + 96), 0xFFFFFFFFu);
	assert_true(xfmt_crc_ok(chunk + 512, 512, 100));

	memset(efd, 0, sizeof(efd));
	put_le16(efd, XFS_LI_EFD);
	put_le16(efd + 2, 1);
	put_le64(efd + 8, 0xFEEDull);
	rg = (struct xfmt_log_region){ efd, sizeof(efd) };
	assert_int_equal(xfmt_log_intent_decode(&it, false, &x), 0);
	assert_true(x.done);
	assert_int_equal(x.intent, XFS_LI_EFI);
	assert_int_equal(x.id, 0xFEED);
	put_le16(efd, XFS_LI_BUF);
	assert_int_equal(xfmt_log_intent_decode(&it, false, &x), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assemble_split),
		cmocka_unit_test(test_assemble_refusals),
		cmocka_unit_test(test_rec_restore),
		cmocka_unit_test(test_buf_apply),
		cmocka_unit_test(test_inode_buf_apply),
		cmocka_unit_test(test_seal_and_lsn),
		cmocka_unit_test(test_inode_apply),
		cmocka_unit_test(test_bmbt_to_bmdr),
		cmocka_unit_test(test_icreate_and_intents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
