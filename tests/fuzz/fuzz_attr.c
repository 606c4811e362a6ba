/*
 * fuzz_attr.c - libFuzzer target for extended attributes and symlinks:
 * shortform attr forks, attr leaf and node blocks, remote value blocks and
 * their assembly, local symlinks, remote symlink buffers and their assembly.
 *
 * Input: the geometry header of harness.h, then
 *   byte 0      kind (modulo 6): 0 attr shortform fork, 1 attr leaf block,
 *               2 attr node block, 3 remote attr value blocks, 4 local
 *               symlink fork, 5 remote symlink buffers
 *   byte 1      node level the caller expects (kind 1/2), 0xFF = unknown
 *   bytes 2-9   be64 owner inode number
 *   bytes 10-13 be32: the value length (kind 3), di_size (kinds 4, 5), the
 *               logical block the block was read from (kinds 1, 2)
 *   then the payload: a fork (kinds 0, 4: at most 2 KiB, as given) or
 *   blocks of blocksize bytes (kinds 1-3, 5; up to 4 for the assemblies,
 *   the last zero-padded; kinds 1 and 2 also get a short read).
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * names and local values handed out lie inside the buffer; the iterators
 * end; the assemblers never collect more than they were asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/attr.h"
#include "formats/block.h"
#include "formats/danode.h"
#include "formats/endian.h"
#include "formats/symlink.h"
#include "tests/fuzz/harness.h"

#define MAX_FORK   2048u
#define MAX_BLOCKS 4u

static void check_entry(const uint8_t *buf, size_t len, const struct xfmt_attr_entry *e,
			const struct xfmt_geom *g)
{
	uint64_t pino;
	uint32_t pgen;

	fz_blackhole += (uintptr_t)xfmt_attr_ns_prefix(xfmt_attr_ns_of(e->flags));
	if (!e->name)
		return;
	if (e->name < buf || e->namelen > len || e->name > buf + len - e->namelen)
		fz_fail("attr name outside the buffer", e->namelen, len);
	if (e->value && (e->value < buf || e->valuelen > len ||
			 e->value > buf + len - e->valuelen))
		fz_fail("attr value outside the buffer", e->valuelen, len);
	fz_blackhole += xfmt_attr_hashval(g, e->flags, e->name, e->namelen, e->value,
					  e->value ? e->valuelen : 0);
	if (xfmt_attr_pptr_decode(e->value, e->value ? e->valuelen : 0, &pino, &pgen) == 0)
		fz_blackhole += pino + pgen;
}

static void fuzz_sf(const uint8_t *fork, size_t size, const struct xfmt_geom *g,
		    struct fz_sink *s)
{
	struct xfmt_attr_sf_hdr h;
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	unsigned n = 0;

	if (xfmt_attr_sf_hdr_decode(fork, size, &h) == 0)
		fz_blackhole += h.totsize + h.count;
	xfmt_attr_sf_iter_init(&it, fork, size);
	while (xfmt_attr_sf_next(&it, &e) == 1) {
		check_entry(fork, size, &e, g);
		if (++n > 256)
			fz_fail("attr shortform iterator does not end", n, size);
	}
	xfmt_attr_sf_verify(fork, size, g, &s->sink);
}

static void fuzz_leaf(const uint8_t *buf, size_t len, uint64_t owner, uint32_t dablk,
		      int level, const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_da_expect exp;
	uint32_t hash;
	uint64_t daddr = 0;

	fz_sweep_fields(xfmt_attr_leaf_hdr_fields_for(g->v5), buf, len);
	fz_blackhole += (unsigned)xfmt_blk_classify(buf, len, xfmt_blk_ver_of(g->v5));
	if (xfmt_attr_leaf_hdr_decode(buf, len, g, &h) == 0) {
		daddr = h.info.blkno;
		for (unsigned i = 0; i < h.count && i <= len / 8; i++) {
			struct xfmt_attr_entry e;
			int rc = xfmt_attr_leaf_entry(buf, len, &h, i, &e);

			if (rc == 0)
				check_entry(buf, len, &e, g);
			else if (rc == -2 && (e.name || e.value))
				fz_fail("attr leaf entry -2 with a name or value", i, 0);
		}
	}
	if (xfmt_attr_leaf_lasthash(buf, len, g, &hash) == 0)
		fz_blackhole += hash;
	xfmt_attr_da_expect_init(&exp, daddr, owner, dablk, level, dablk + 64);
	xfmt_attr_leaf_verify(buf, len, g, &exp, &s->sink);
}

static void fuzz_node(const uint8_t *buf, size_t len, uint64_t owner, uint32_t dablk,
		      int level, const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_da_expect exp;
	struct xfmt_da_node_hdr h;
	uint64_t daddr = 0;

	if (xfmt_da_node_hdr_decode(buf, len, g->v5, &h) == 0)
		daddr = h.info.blkno;
	xfmt_attr_da_expect_init(&exp, daddr, owner, dablk, level, dablk + 64);
	xfmt_da_node_verify(buf, len, g->blocksize, g, &exp, &s->sink);
}

static void fuzz_rmt(const uint8_t *blocks, size_t nblocks, uint64_t owner, uint32_t valuelen,
		     const struct xfmt_geom *g, struct fz_sink *s)
{
	static uint8_t out[65536];
	struct xfmt_attr_rmt_asm a;
	size_t bs = g->blocksize;

	fz_blackhole += xfmt_attr_rmt_space(g) + xfmt_attr_rmt_blocks(g, valuelen);
	xfmt_attr_rmt_asm_init(&a, g, owner, valuelen, out, sizeof(out));
	for (size_t i = 0; i < nblocks; i++) {
		const uint8_t *b = blocks + i * bs;
		struct xfmt_rmt_hdr h;
		struct xfmt_rmt_expect exp = { 0 };

		fz_sweep_fields(xfmt_attr3_rmt_hdr_fields, b, bs);
		if (xfmt_rmt_hdr_decode(b, bs, &h) == 0) {
			exp.daddr = h.blkno;
			exp.owner = owner;
			exp.know_range = i & 1;
			exp.offset = h.offset;
			exp.bytes = h.bytes;
		}
		xfmt_attr_rmt_verify(b, bs, g, &exp, &s->sink);
		xfmt_attr_rmt_asm_add(&a, b, bs, h.blkno, g, &s->sink);
		if (a.cur.have > a.cur.want || a.cur.want > valuelen)
			fz_fail("attr value assembly collected too much", a.cur.have, a.cur.want);
	}
	fz_blackhole += xfmt_rmt_cursor_done(&a.cur);
	xfmt_attr_rmt_asm_finish(&a, &s->sink);
}

static void fuzz_symlink_local(const uint8_t *fork, size_t size, uint64_t di_size,
			       struct fz_sink *s)
{
	size_t n = 0;
	const uint8_t *t = xfmt_symlink_local(fork, size, di_size, &n);

	if (t && (t < fork || n > size || t > fork + size - n))
		fz_fail("local symlink target outside the fork", n, size);
	if (t && n)
		fz_blackhole += t[0] + t[n - 1];
	xfmt_symlink_local_verify(fork, size, di_size, &s->sink);
}

static void fuzz_symlink_rmt(const uint8_t *blocks, size_t nblocks, uint64_t owner,
			     uint64_t di_size, const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_symlink_asm *a = malloc(sizeof(*a));
	size_t bs = g->blocksize;

	if (!a)
		fz_fail("out of memory", 0, 0);
	fz_blackhole += xfmt_symlink_buf_space(bs, g->v5) + xfmt_symlink_payload_off(g->v5);
	xfmt_symlink_asm_init(a, g, owner, di_size);
	for (size_t i = 0; i < nblocks; i++) {
		const uint8_t *b = blocks + i * bs;
		struct xfmt_rmt_hdr h;
		struct xfmt_rmt_expect exp = { 0 };

		fz_sweep_fields(xfmt_symlink_hdr_fields, b, bs);
		if (xfmt_rmt_hdr_decode(b, bs, &h) == 0) {
			exp.daddr = h.blkno;
			exp.owner = owner;
			exp.know_range = i & 1;
			exp.offset = h.offset;
			exp.bytes = h.bytes;
		}
		xfmt_symlink_rmt_verify(b, bs, g, &exp, &s->sink);
		xfmt_symlink_asm_add(a, b, bs, h.blkno, g, &s->sink);
		if (a->cur.have > a->cur.want || a->cur.want >= XFMT_SYMLINK_MAXLEN)
			fz_fail("symlink assembly collected too much", a->cur.have, a->cur.want);
	}
	fz_blackhole += xfmt_rmt_cursor_done(&a->cur);
	xfmt_symlink_asm_finish(a, &s->sink);
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfmt_geom g;
	struct fz_sink s;
	unsigned kind;
	int level;
	uint64_t owner;
	uint32_t word;
	uint8_t *buf;
	size_t len, bs, nblocks;
	long off;

	if (size > MAX_BLOCKS * 65536 + 512)
		return 0;
	off = fz_geom_header(data, size, &g);
	if (off < 0 || size - (size_t)off < 14)
		return 0;
	fz_sink_init(&s);
	kind = data[off] % 6;
	level = data[off + 1] == 0xFF ? -1 : data[off + 1];
	owner = xfmt_get_be64(data + off + 2);
	word = xfmt_get_be32(data + off + 10);
	data += off + 14;
	len = size - (size_t)off - 14;
	bs = g.blocksize;

	if (kind == 0 || kind == 4) {
		if (len > MAX_FORK)
			len = MAX_FORK;
		buf = fz_dup(data, len);
		if (kind == 0)
			fuzz_sf(buf, len, &g, &s);
		else
			fuzz_symlink_local(buf, len, word, &s);
		free(buf);
		return 0;
	}
	if (kind == 1 || kind == 2) {
		if (len > bs)
			len = bs;
		if (len < bs) {
			buf = fz_dup(data, len);
			if (kind == 1)
				fuzz_leaf(buf, len, owner, word, level, &g, &s);
			else
				fuzz_node(buf, len, owner, word, level, &g, &s);
			free(buf);
		}
		nblocks = 1;
	} else {
		nblocks = (len + bs - 1) / bs;
		if (nblocks > MAX_BLOCKS)
			nblocks = MAX_BLOCKS;
		if (nblocks == 0)
			nblocks = 1;
		if (len > nblocks * bs)
			len = nblocks * bs;
	}
	buf = calloc(nblocks, bs);
	if (!buf)
		fz_fail("out of memory", nblocks, bs);
	memcpy(buf, data, len);
	switch (kind) {
	case 1: fuzz_leaf(buf, bs, owner, word, level, &g, &s); break;
	case 2: fuzz_node(buf, bs, owner, word, level, &g, &s); break;
	case 3: fuzz_rmt(buf, nblocks, owner, word, &g, &s); break;
	default: fuzz_symlink_rmt(buf, nblocks, owner, word, &g, &s); break;
	}
	fz_blackhole += s.count;
	free(buf);
	return 0;
}
