/*
 * fuzz_logitem.c - libFuzzer target for the log payload decoders and the
 * replay steps: transaction assembly, buffer, inode, icreate and intent
 * items, applied to scratch buffers.
 *
 * Input: byte 0 holds flags (bit 0: a big-endian writer; bit 1: v3 inodes),
 * then records, each a little-endian u16 length and that many payload
 * bytes (cycle stamps already undone).  Every committed transaction's
 * items are decoded and applied: buffers to a zeroed scratch buffer of
 * the size they name, inode items to a scratch inode cluster, icreate
 * chunks initialised.
 *
 * Invariants beyond "no crash": an assembler that accepts a record holds
 * no more than its byte bound; a replayed v3 inode carries a valid CRC.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/log_item.h"
#include "formats/log_trans.h"
#include "tests/fuzz/harness.h"

#define MAX_BYTES (1u << 20)
#define ISIZE     512u

struct fz_state {
	bool big, v3;
	uint8_t *buf;   /* XLOG_MAX_BUF_BBS * 512 */
};

static void do_item(struct fz_state *s, const struct xfmt_log_trans *t,
		    const struct xfmt_log_titem *it)
{
	struct xfmt_log_buf b;
	struct xfmt_log_inode in;
	struct xfmt_log_icreate ic;
	struct xfmt_log_intent x;
	static const uint8_t uuid[16] = { 1, 2, 3 };
	size_t blen;

	fz_blackhole += it->type + xfmt_log_item_name(it->type)[0];
	if (xfmt_log_buf_decode(it, t->big, &b) == 0) {
		uint64_t lsn;

		blen = (size_t)b.len * 512;
		memset(s->buf, 0, blen);
		if (b.flags & XFS_BLF_INODE_BUF)
			fz_blackhole += (uint64_t)xfmt_log_inode_buf_apply(it, &b, s->buf, blen, ISIZE, s->v3);
		else if (xfmt_log_buf_apply(it, &b, s->buf, blen) == 0)
			fz_blackhole += xfmt_log_buf_seal(s->buf, blen, t->lsn, 4096);
		fz_blackhole += xfmt_log_buf_lsn(s->buf, blen, uuid, &lsn);
	}
	if (xfmt_log_inode_decode(it, t->big, &in) == 0) {
		uint8_t *dip = s->buf;

		memset(dip, 0, ISIZE);
		xfmt_put_be16(dip, 0x494E);
		dip[4] = s->v3 ? 3 : 2;
		if (xfmt_log_inode_apply(it, &in, t->big, dip, ISIZE, s->v3, t->lsn) ==
		    XLOG_INODE_REPLAYED && dip[4] == 3 && !xfmt_crc_ok(dip, ISIZE, 100))
			fz_fail("replayed v3 inode has a bad CRC", in.ino, 0);
	}
	if (xfmt_log_icreate_decode(it, t->big, &ic) == 0 && ic.isize == ISIZE &&
	    ic.count && ic.count <= 64)
		fz_blackhole += (uint64_t)xfmt_log_icreate_init(s->buf, (size_t)ic.count * ISIZE, ISIZE,
								 s->v3 ? 3 : 2, ic.agbno, ic.gen, uuid);
	if (xfmt_log_intent_decode(it, t->big, &x) == 0)
		fz_blackhole += x.id + x.nextents;
	if (it->nregions)
		fz_blackhole += (uint64_t)xfmt_log_bmbt_to_bmdr(it->regions[0].data, it->regions[0].len,
								   s->v3, s->buf, 64);
}

static int on_commit(void *arg, const struct xfmt_log_trans *t)
{
	for (size_t i = 0; i < t->nitems; i++)
		do_item(arg, t, &t->items[i]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_state s;
	struct xfmt_log_asm a;
	size_t off = 1;

	if (size < 1 || size > (1u << 20))
		return 0;
	s.big = data[0] & 1;
	s.v3 = (data[0] & 2) != 0;
	s.buf = malloc((size_t)XLOG_MAX_BUF_BBS * 512);
	if (!s.buf)
		fz_fail("out of memory", 0, 0);
	xfmt_log_asm_init(&a, MAX_BYTES, on_commit, &s);
	while (off + 2 <= size) {
		size_t len = (size_t)data[off] | ((size_t)data[off + 1] << 8);
		uint8_t *rec;

		off += 2;
		if (len > size - off)
			len = size - off;
		rec = fz_dup(data + off, len);
		if (xfmt_log_asm_record(&a, rec, len, UINT32_MAX, 0x100000000ull + off, s.big, NULL) ==
		    XLOG_ASM_OK && a.bytes > MAX_BYTES)
			fz_fail("assembler holds more than its bound", a.bytes, MAX_BYTES);
		free(rec);
		off += len;
	}
	xfmt_log_asm_release(&a);
	free(s.buf);
	return 0;
}
