/*
 * fuzz_btree.c - libFuzzer target for btree blocks: header decode and
 * verify, bounds-checked record/key/high-key/pointer access, record decode
 * and verify, key construction and comparison, and the in-inode bmbt root.
 *
 * Input: the geometry header of harness.h, then
 *   byte 0  btree type (modulo the number of trees)
 *   byte 1  flags: bit 0 read the block with the other header form (v4/v5)
 *                  bit 1 the caller says it is a root
 *                  bits 2-3 expected level: unknown, as stored, stored+1, 0
 *                  bits 4-7 bmbt-root fork size (in 64-byte steps, +64)
 *   byte 2  AG number (modulo agcount)
 *   then the block: up to blocksize bytes, zero-padded to blocksize (so
 *   seeds can drop trailing zeros); a shorter payload is also offered as a
 *   short read, in an allocation of exactly its length.
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * accessors return pointers wholly inside the block; a key compares equal to
 * itself and comparison is antisymmetric; record->key gives key_len bytes;
 * capacities leave room for header + records in the block.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/btrec.h"
#include "formats/btree.h"
#include "tests/fuzz/harness.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void check_inside(const uint8_t *buf, size_t len, const uint8_t *p, size_t elen,
			 const char *what)
{
	if (p && (p < buf || elen > len || p > buf + len - elen))
		fz_fail(what, (unsigned long long)(p - buf), len);
}

static void check_order(enum xfmt_btnum bt, const uint8_t *a, const uint8_t *b, bool keys)
{
	int ab = keys ? xfmt_bt_key_cmp(bt, a, b) : xfmt_bt_rec_cmp(bt, a, b);
	int ba = keys ? xfmt_bt_key_cmp(bt, b, a) : xfmt_bt_rec_cmp(bt, b, a);

	if (sign(ab) != -sign(ba))
		fz_fail("btree comparison is not antisymmetric", bt, keys);
	if ((keys ? xfmt_bt_key_cmp(bt, a, a) : xfmt_bt_rec_cmp(bt, a, a)) != 0)
		fz_fail("btree key differs from itself", bt, keys);
}

/* Decode one record with the decoder of its tree. */
static void decode_rec(enum xfmt_btnum bt, const uint8_t *rec)
{
	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT: {
		struct xfmt_alloc_rec r;
		xfmt_alloc_rec_decode(rec, &r);
		fz_blackhole += r.startblock + r.blockcount;
		break;
	}
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		for (int sparse = 0; sparse < 2; sparse++) {
			struct xfmt_inobt_rec r;
			unsigned hc;

			xfmt_inobt_rec_decode(rec, sparse, &r);
			hc = xfmt_inobt_holemask_count(r.holemask);
			if (hc > 64 || hc % 4)
				fz_fail("holemask count out of range", hc, r.holemask);
			if (xfmt_popcount64(xfmt_inobt_allocmask(r.holemask)) != hc)
				fz_fail("allocmask and holemask count disagree", r.holemask, hc);
			fz_blackhole += xfmt_inobt_rec_freecount(&r) + r.startino;
		}
		break;
	case XFMT_BT_RMAP: {
		struct xfmt_rmap_rec r;
		xfmt_rmap_rec_decode(rec, &r);
		if (r.offset & ~XFS_RMAP_OFF_MASK)
			fz_fail("rmap offset keeps flag bits", r.offset, 0);
		fz_blackhole += r.owner + r.offset;
		break;
	}
	case XFMT_BT_REFC: {
		struct xfmt_refc_rec r;
		xfmt_refc_rec_decode(rec, &r);
		if (r.startblock & XFS_REFC_COWFLAG)
			fz_fail("refcount startblock keeps the CoW bit", r.startblock, 0);
		fz_blackhole += r.refcount;
		break;
	}
	case XFMT_BT_BMAP: {
		struct xfmt_bmbt_rec r;
		xfmt_bmbt_rec_decode(rec, &r);
		if (r.startoff > XFS_BMBT_STARTOFF_MASK ||
		    r.startblock > XFS_BMBT_STARTBLOCK_MASK ||
		    r.blockcount > XFS_BMBT_BLOCKCOUNT_MASK)
			fz_fail("bmbt record field wider than its width", r.startoff, r.blockcount);
		break;
	}
	default:
		break;
	}
}

static void decode_key(enum xfmt_btnum bt, const uint8_t *key)
{
	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT: {
		struct xfmt_alloc_rec r;
		xfmt_alloc_key_decode(key, &r);
		fz_blackhole += r.startblock;
		break;
	}
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		fz_blackhole += xfmt_inobt_key_decode(key);
		break;
	case XFMT_BT_RMAP: {
		struct xfmt_rmap_key k;
		xfmt_rmap_key_decode(key, &k);
		fz_blackhole += k.owner;
		break;
	}
	case XFMT_BT_REFC:
		fz_blackhole += xfmt_refc_key_decode(key);
		break;
	case XFMT_BT_BMAP:
		fz_blackhole += xfmt_bmbt_key_decode(key);
		break;
	default:
		break;
	}
}

static void walk_records(const uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
			 const struct xfmt_geom *g, uint32_t agno, unsigned n,
			 struct fz_sink *s)
{
	size_t rlen = xfmt_bt_rec_len(bt);
	const uint8_t *prev = NULL;
	uint8_t key[XFMT_BT_KEY_MAX], prevkey[XFMT_BT_KEY_MAX], hk[XFMT_BT_KEY_MAX];

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *rec = xfmt_bt_rec(buf, len, bt, v5, i);
		int klen;

		if (!rec)
			break;
		check_inside(buf, len, rec, rlen, "record outside the block");
		decode_rec(bt, rec);
		/* Realtime mappings must not reach the bmbt verifier; we have none. */
		xfmt_bt_rec_verify(bt, rec, i, g, agno, &s->sink);
		klen = xfmt_bt_rec_key(bt, rec, key);
		if (klen != (int)xfmt_bt_key_len(bt))
			fz_fail("record key of the wrong length", bt, (unsigned)klen);
		if (xfmt_bt_rec_highkey(bt, rec, hk) >= 0)
			check_order(bt, key, hk, true);
		if (prev) {
			check_order(bt, prev, rec, false);
			check_order(bt, prevkey, key, true);
			fz_blackhole += xfmt_bt_recs_overlap(bt, prev, rec);
		}
		prev = rec;
		memcpy(prevkey, key, sizeof(key));
	}
}

static void walk_keys(const uint8_t *buf, size_t len, enum xfmt_btnum bt, bool v5,
		      uint32_t blocksize, unsigned n)
{
	size_t klen = xfmt_bt_key_len(bt);
	const uint8_t *prev = NULL;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *key = xfmt_bt_key(buf, len, bt, v5, i);
		const uint8_t *hk = xfmt_bt_highkey(buf, len, bt, v5, i);
		uint64_t ptr;

		if (hk && bt != XFMT_BT_RMAP)
			fz_fail("high key for a tree without high keys", bt, i);
		check_inside(buf, len, hk, klen, "high key outside the block");
		if (xfmt_bt_ptr(buf, len, bt, v5, blocksize, i, &ptr) == 0)
			fz_blackhole += ptr;
		if (!key)
			continue;
		check_inside(buf, len, key, klen, "key outside the block");
		decode_key(bt, key);
		if (hk)
			check_order(bt, key, hk, true);
		if (prev)
			check_order(bt, prev, key, true);
		prev = key;
	}
}

/* The block read as an inode fork holding a bmbt root. */
static void walk_bmdr(const uint8_t *buf, size_t len, size_t forksize)
{
	uint16_t level, numrecs;
	unsigned max;
	uint64_t v;

	if (forksize > len)
		forksize = len;
	max = xfmt_bmdr_maxrecs(forksize);
	if (forksize >= XFMT_BMDR_HDR_LEN && (size_t)max * 16 + XFMT_BMDR_HDR_LEN > forksize)
		fz_fail("bmdr capacity exceeds the fork", max, forksize);
	if (xfmt_bmdr_decode(buf, forksize, &level, &numrecs) != 0)
		return;
	for (unsigned i = 0; i < (unsigned)numrecs && i <= max; i++) {
		if (xfmt_bmdr_key(buf, forksize, i, &v) == 0)
			fz_blackhole += v;
		if (xfmt_bmdr_ptr(buf, forksize, i, &v) == 0)
			fz_blackhole += v;
	}
	if (xfmt_bmdr_key(buf, forksize, max, &v) == 0 ||
	    xfmt_bmdr_ptr(buf, forksize, max, &v) == 0)
		fz_fail("bmdr accessor accepted an index past maxrecs", max, forksize);
}

/* Table-level facts that must hold for every tree and block size. */
static void check_tables(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (int bt = 0; bt <= XFMT_BT_COUNT; bt++) {
		fz_blackhole += (uintptr_t)xfmt_bt_name((enum xfmt_btnum)bt);
		if (bt == XFMT_BT_COUNT) {
			if (xfmt_bt_rec_len((enum xfmt_btnum)bt) || xfmt_bt_key_len((enum xfmt_btnum)bt))
				fz_fail("unknown tree has record sizes", bt, 0);
			continue;
		}
		for (int v5 = 0; v5 < 2; v5++) {
			for (uint32_t bs = 512; bs <= 65536; bs <<= 1) {
				for (int leaf = 0; leaf < 2; leaf++) {
					size_t slot = leaf ? xfmt_bt_rec_len((enum xfmt_btnum)bt)
							   : xfmt_bt_keyslot_len((enum xfmt_btnum)bt) +
							     xfmt_bt_ptr_len((enum xfmt_btnum)bt);
					unsigned m = xfmt_bt_maxrecs((enum xfmt_btnum)bt, bs, v5, leaf);

					if (xfmt_bt_hdr_len((enum xfmt_btnum)bt, v5) + m * slot > bs)
						fz_fail("btree capacity overflows the block", bt, bs);
				}
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfmt_geom g;
	struct fz_sink s;
	struct xfmt_bt_hdr hdr;
	struct xfmt_bt_expect exp;
	enum xfmt_btnum bt;
	uint8_t flags, *buf;
	uint32_t agno, first, last;
	size_t len;
	bool v5;
	long off;

	check_tables();
	if (size > 65536 + 512)
		return 0;
	off = fz_geom_header(data, size, &g);
	if (off < 0 || size - (size_t)off < 3)
		return 0;
	fz_sink_init(&s);
	bt = (enum xfmt_btnum)(data[off] % XFMT_BT_COUNT);
	flags = data[off + 1];
	agno = data[off + 2] % g.agcount;
	len = size - (size_t)off - 3;
	if (len > g.blocksize)
		len = g.blocksize;
	v5 = (flags & 1) ? !g.v5 : g.v5;
	if (len < g.blocksize) {
		/* The short read the analyzer may meet at the end of an image. */
		buf = fz_dup(data + off + 3, len);
		if (xfmt_bt_hdr_decode(buf, len, bt, v5, &hdr) == 0) {
			exp.is_root = flags & 2;
			exp.level = -1;
			exp.daddr = hdr.blkno;
			exp.owner = agno;
			xfmt_bt_verify_hdr(buf, len, bt, &g, &exp, &s.sink);
			walk_records(buf, len, bt, v5, &g, agno, hdr.numrecs < 64 ? hdr.numrecs : 64, &s);
			walk_keys(buf, len, bt, v5, g.blocksize, hdr.numrecs < 64 ? hdr.numrecs : 64);
		}
		free(buf);
	}
	buf = calloc(1, g.blocksize);
	if (!buf)
		fz_fail("out of memory", g.blocksize, 0);
	memcpy(buf, data + off + 3, len);
	len = g.blocksize;

	fz_sweep_fields(xfmt_bt_fields(bt), buf, len);
	if (xfmt_bt_hdr_decode(buf, len, bt, v5, &hdr) == 0) {
		unsigned maxl = xfmt_bt_maxrecs(bt, g.blocksize, v5, true);
		unsigned maxn = xfmt_bt_maxrecs(bt, g.blocksize, v5, false);
		unsigned n = hdr.numrecs;

		if (n > (maxl > maxn ? maxl : maxn) + 2)
			n = (maxl > maxn ? maxl : maxn) + 2;
		exp.is_root = flags & 2;
		switch ((flags >> 2) & 3) {
		case 0: exp.level = -1; break;
		case 1: exp.level = hdr.level; break;
		case 2: exp.level = hdr.level + 1; break;
		default: exp.level = 0; break;
		}
		exp.daddr = hdr.blkno;
		exp.owner = bt == XFMT_BT_BMAP ? hdr.owner : agno;
		xfmt_bt_verify_hdr(buf, len, bt, &g, &exp, &s.sink);
		/* Accessors must not trust numrecs: read both views of the block. */
		walk_records(buf, len, bt, v5, &g, agno, n, &s);
		walk_keys(buf, len, bt, v5, g.blocksize, n);
		/* Indices far past any capacity must be refused. */
		if (xfmt_bt_rec(buf, len, bt, v5, 0xFFFFFFFFu) ||
		    xfmt_bt_key(buf, len, bt, v5, 0x7FFFFFFFu))
			fz_fail("accessor accepted a huge index", bt, len);
		fz_blackhole += xfmt_bt_fsbno_ok(&g, hdr.leftsib) + xfmt_bt_fsbno_ok(&g, hdr.rightsib);
		fz_blackhole += xfmt_bt_agbno_ok(&g, agno, (uint32_t)hdr.leftsib) +
				xfmt_bt_agbext_ok(&g, agno, (uint32_t)hdr.rightsib, hdr.numrecs);
	} else if (len >= xfmt_bt_hdr_len(bt, v5)) {
		fz_fail("xfmt_bt_hdr_decode refused a full header", bt, len);
	}
	walk_bmdr(buf, len, 64u + 64u * (flags >> 4));
	fz_blackhole += xfmt_bt_agfl_block(&g);
	if (xfmt_agino_range(&g, agno, &first, &last) && first > last)
		fz_fail("agino range is inverted", first, last);
	fz_blackhole += s.count;
	free(buf);
	return 0;
}
