/*
 * btrec.c - decoders, key order and per-record sanity for the records of
 * every XFS btree.  Rules follow the kernel's xfs_alloc_check_irec,
 * xfs_inobt_check_irec, xfs_rmap_check_irec, xfs_refcount_check_irec and
 * the bmbt extent checks, reporting every failed rule instead of the first.
 */
#include "formats/btrec.h"

#include <string.h>

#include "formats/endian.h"

/* Record and key layouts (xfs-ondisk.md 3.4). */
#define AR_STARTBLOCK   0
#define AR_BLOCKCOUNT   4
#define IR_STARTINO     0
#define IR_HOLEMASK     4
#define IR_COUNT        6
#define IR_FREECOUNT_SP 7
#define IR_FREECOUNT    4
#define IR_FREE         8
#define RM_STARTBLOCK   0
#define RM_BLOCKCOUNT   4
#define RM_OWNER        8
#define RM_OFFSET       16
#define RK_STARTBLOCK   0
#define RK_OWNER        4
#define RK_OFFSET       12
#define RC_STARTBLOCK   0
#define RC_BLOCKCOUNT   4
#define RC_REFCOUNT     8
_Static_assert(AR_BLOCKCOUNT + 4 == 8, "alloc record is 8 bytes");
_Static_assert(IR_FREE + 8 == 16, "inobt record is 16 bytes");
_Static_assert(RM_OFFSET + 8 == 24, "rmap record is 24 bytes");
_Static_assert(RK_OFFSET + 8 == 20, "rmap key is 20 bytes");
_Static_assert(RC_REFCOUNT + 4 == 12, "refcount record is 12 bytes");
_Static_assert(XFMT_BT_KEY_MAX == RK_OFFSET + 8, "largest key");

/* ------------------------------------------------------------ decoders */

void xfmt_alloc_rec_decode(const uint8_t *p, struct xfmt_alloc_rec *out)
{
	out->startblock = xfmt_get_be32(p + AR_STARTBLOCK);
	out->blockcount = xfmt_get_be32(p + AR_BLOCKCOUNT);
}

void xfmt_alloc_key_decode(const uint8_t *p, struct xfmt_alloc_rec *out)
{
	xfmt_alloc_rec_decode(p, out);
}

void xfmt_inobt_rec_decode(const uint8_t *p, bool sparse, struct xfmt_inobt_rec *out)
{
	out->startino = xfmt_get_be32(p + IR_STARTINO);
	out->freecount_sparse = p[IR_FREECOUNT_SP];
	if (sparse) {
		out->holemask = xfmt_get_be16(p + IR_HOLEMASK);
		out->count = p[IR_COUNT];
		out->freecount = p[IR_FREECOUNT_SP];
	} else {
		/* The full layout has no holemask/count: a chunk is all there. */
		out->holemask = XFS_INOBT_HOLEMASK_FULL;
		out->count = XFS_INODES_PER_CHUNK;
		out->freecount = xfmt_get_be32(p + IR_FREECOUNT);
	}
	out->free = xfmt_get_be64(p + IR_FREE);
}

uint32_t xfmt_inobt_key_decode(const uint8_t *p)
{
	return xfmt_get_be32(p);
}

static void rmap_offset_split(uint64_t raw, uint64_t *offset, bool *attr,
			      bool *bmbt, bool *unwritten)
{
	*offset = raw & XFS_RMAP_OFF_MASK;
	*attr = (raw & XFS_RMAP_OFF_ATTR_FORK) != 0;
	*bmbt = (raw & XFS_RMAP_OFF_BMBT_BLOCK) != 0;
	*unwritten = (raw & XFS_RMAP_OFF_UNWRITTEN) != 0;
}

void xfmt_rmap_rec_decode(const uint8_t *p, struct xfmt_rmap_rec *out)
{
	out->startblock = xfmt_get_be32(p + RM_STARTBLOCK);
	out->blockcount = xfmt_get_be32(p + RM_BLOCKCOUNT);
	out->owner = xfmt_get_be64(p + RM_OWNER);
	out->raw_offset = xfmt_get_be64(p + RM_OFFSET);
	rmap_offset_split(out->raw_offset, &out->offset, &out->attr_fork,
			  &out->bmbt_block, &out->unwritten);
}

void xfmt_rmap_key_decode(const uint8_t *p, struct xfmt_rmap_key *out)
{
	out->startblock = xfmt_get_be32(p + RK_STARTBLOCK);
	out->owner = xfmt_get_be64(p + RK_OWNER);
	out->raw_offset = xfmt_get_be64(p + RK_OFFSET);
	rmap_offset_split(out->raw_offset, &out->offset, &out->attr_fork,
			  &out->bmbt_block, &out->unwritten);
}

void xfmt_refc_rec_decode(const uint8_t *p, struct xfmt_refc_rec *out)
{
	uint32_t sb = xfmt_get_be32(p + RC_STARTBLOCK);

	out->startblock = sb & ~XFS_REFC_COWFLAG;
	out->cow = (sb & XFS_REFC_COWFLAG) != 0;
	out->blockcount = xfmt_get_be32(p + RC_BLOCKCOUNT);
	out->refcount = xfmt_get_be32(p + RC_REFCOUNT);
}

uint32_t xfmt_refc_key_decode(const uint8_t *p)
{
	return xfmt_get_be32(p);
}

void xfmt_bmbt_rec_decode(const uint8_t *p, struct xfmt_bmbt_rec *out)
{
	uint64_t l0 = xfmt_get_be64(p), l1 = xfmt_get_be64(p + 8);

	out->unwritten = (l0 >> 63) != 0;
	out->startoff = (l0 >> 9) & XFS_BMBT_STARTOFF_MASK;
	out->startblock = ((l0 & 0x1FFu) << 43) | (l1 >> 21);
	out->blockcount = (uint32_t)(l1 & XFS_BMBT_BLOCKCOUNT_MASK);
}

void xfmt_bmbt_rec_encode(uint8_t *p, const struct xfmt_bmbt_rec *r)
{
	uint64_t l0 = ((uint64_t)(r->unwritten ? 1 : 0) << 63) |
		      ((r->startoff & XFS_BMBT_STARTOFF_MASK) << 9) | ((r->startblock >> 43) & 0x1FFu);
	uint64_t l1 = (r->startblock << 21) | (r->blockcount & XFS_BMBT_BLOCKCOUNT_MASK);

	xfmt_put_be64(p, l0);
	xfmt_put_be64(p + 8, l1);
}

uint64_t xfmt_bmbt_key_decode(const uint8_t *p)
{
	return xfmt_get_be64(p);
}

/* ---------------------------------------------------------- inode chunks */

unsigned xfmt_popcount64(uint64_t v)
{
	unsigned n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

uint64_t xfmt_inobt_allocmask(uint16_t holemask)
{
	uint64_t mask = 0;

	for (unsigned j = 0; j < 16; j++)
		if (!(holemask & (1u << j)))
			mask |= 0xFull << (j * XFS_INODES_PER_HOLEMASK_BIT);
	return mask;
}

unsigned xfmt_inobt_holemask_count(uint16_t holemask)
{
	return XFS_INODES_PER_CHUNK - XFS_INODES_PER_HOLEMASK_BIT * xfmt_popcount64(holemask);
}

unsigned xfmt_inobt_rec_freecount(const struct xfmt_inobt_rec *r)
{
	return xfmt_popcount64(r->free & xfmt_inobt_allocmask(r->holemask));
}

/* Alignment, in blocks, of inode chunks (the kernel's cluster_align). */
static uint32_t chunk_align(const struct xfmt_geom *g)
{
	return g->inoalignmt ? g->inoalignmt : 1;
}

bool xfmt_agino_range(const struct xfmt_geom *g, uint32_t agno, uint32_t *first,
		      uint32_t *last)
{
	uint32_t aglen = xfmt_geom_ag_length(g, agno), align = chunk_align(g);
	uint64_t lo = (uint64_t)xfmt_bt_agfl_block(g) + 1, hi;

	lo = (lo + align - 1) / align * align;
	hi = (uint64_t)aglen / align * align;
	if (hi <= lo || (hi << g->inopblog) > (uint64_t)UINT32_MAX + 1)
		return false;
	*first = (uint32_t)(lo << g->inopblog);
	*last = (uint32_t)((hi << g->inopblog) - 1);
	return true;
}

/* ------------------------------------------------------------ key order */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

int xfmt_bt_key_cmp(enum xfmt_btnum bt, const uint8_t *a, const uint8_t *b)
{
	int c;

	switch (bt) {
	case XFMT_BT_BNO:
		return cmp_u64(xfmt_get_be32(a), xfmt_get_be32(b));
	case XFMT_BT_CNT:
		c = cmp_u64(xfmt_get_be32(a + AR_BLOCKCOUNT), xfmt_get_be32(b + AR_BLOCKCOUNT));
		return c ? c : cmp_u64(xfmt_get_be32(a), xfmt_get_be32(b));
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
	case XFMT_BT_REFC:
		return cmp_u64(xfmt_get_be32(a), xfmt_get_be32(b));
	case XFMT_BT_RMAP:
		c = cmp_u64(xfmt_get_be32(a + RK_STARTBLOCK), xfmt_get_be32(b + RK_STARTBLOCK));
		if (c)
			return c;
		c = cmp_u64(xfmt_get_be64(a + RK_OWNER), xfmt_get_be64(b + RK_OWNER));
		if (c)
			return c;
		return cmp_u64(xfmt_get_be64(a + RK_OFFSET) & ~XFS_RMAP_OFF_UNWRITTEN,
			       xfmt_get_be64(b + RK_OFFSET) & ~XFS_RMAP_OFF_UNWRITTEN);
	case XFMT_BT_BMAP:
		return cmp_u64(xfmt_get_be64(a), xfmt_get_be64(b));
	default:
		return 0;
	}
}

int xfmt_bt_rec_key(enum xfmt_btnum bt, const uint8_t *rec, uint8_t *keybuf)
{
	struct xfmt_bmbt_rec br;

	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT:
		memcpy(keybuf, rec, 8);
		return 8;
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
	case XFMT_BT_REFC:
		memcpy(keybuf, rec, 4);
		return 4;
	case XFMT_BT_RMAP:
		memcpy(keybuf + RK_STARTBLOCK, rec + RM_STARTBLOCK, 4);
		memcpy(keybuf + RK_OWNER, rec + RM_OWNER, 8);
		xfmt_put_be64(keybuf + RK_OFFSET,
			      xfmt_get_be64(rec + RM_OFFSET) & ~XFS_RMAP_OFF_UNWRITTEN);
		return 20;
	case XFMT_BT_BMAP:
		xfmt_bmbt_rec_decode(rec, &br);
		xfmt_put_be64(keybuf, br.startoff);
		return 8;
	default:
		return -1;
	}
}

int xfmt_bt_rec_highkey(enum xfmt_btnum bt, const uint8_t *rec, uint8_t *keybuf)
{
	struct xfmt_rmap_rec r;
	uint32_t adj;
	uint64_t off;

	if (bt != XFMT_BT_RMAP)
		return -1;
	xfmt_rmap_rec_decode(rec, &r);
	/* A zero-length record is corrupt; keep its high key equal to its low key. */
	adj = r.blockcount ? r.blockcount - 1 : 0;
	xfmt_put_be32(keybuf + RK_STARTBLOCK, r.startblock + adj);
	xfmt_put_be64(keybuf + RK_OWNER, r.owner);
	off = r.raw_offset & ~XFS_RMAP_OFF_UNWRITTEN;
	if (!(r.owner & (1ull << 63)) && !r.bmbt_block)
		off = (((off & XFS_RMAP_OFF_MASK) + adj) & XFS_RMAP_OFF_MASK) |
		      (off & ~XFS_RMAP_OFF_MASK);
	xfmt_put_be64(keybuf + RK_OFFSET, off);
	return 20;
}

int xfmt_bt_rec_cmp(enum xfmt_btnum bt, const uint8_t *a, const uint8_t *b)
{
	uint8_t ka[XFMT_BT_KEY_MAX], kb[XFMT_BT_KEY_MAX];

	if (xfmt_bt_rec_key(bt, a, ka) < 0 || xfmt_bt_rec_key(bt, b, kb) < 0)
		return 0;
	return xfmt_bt_key_cmp(bt, ka, kb);
}

bool xfmt_bt_recs_overlap(enum xfmt_btnum bt, const uint8_t *prev, const uint8_t *cur)
{
	struct xfmt_alloc_rec a, b;
	struct xfmt_refc_rec ra, rb;
	struct xfmt_bmbt_rec ba, bb;

	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT:
		xfmt_alloc_rec_decode(prev, &a);
		xfmt_alloc_rec_decode(cur, &b);
		/* cntbt neighbours are not in block order: test both ways. */
		return (uint64_t)a.startblock + a.blockcount > b.startblock &&
		       (uint64_t)b.startblock + b.blockcount > a.startblock;
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		return (uint64_t)xfmt_get_be32(prev) + XFS_INODES_PER_CHUNK > xfmt_get_be32(cur);
	case XFMT_BT_REFC:
		xfmt_refc_rec_decode(prev, &ra);
		xfmt_refc_rec_decode(cur, &rb);
		if (ra.cow != rb.cow)
			return false;
		return (uint64_t)ra.startblock + ra.blockcount > rb.startblock;
	case XFMT_BT_BMAP:
		xfmt_bmbt_rec_decode(prev, &ba);
		xfmt_bmbt_rec_decode(cur, &bb);
		return ba.startoff + ba.blockcount > bb.startoff;
	default:
		return false;
	}
}

/* --------------------------------------------------------- record sanity */

/* Report an invalid record field; {off} carries the record index. */
static unsigned bad_rec(const struct xprob_sink *sink, unsigned idx,
			const char *field, uint64_t value)
{
	return (unsigned)xprob_emit_obs(sink, XP_btBadRecord, field, idx, value);
}

/* Extent [start, start+len) of AG agno: report a bad start and a bad end separately. */
static unsigned check_agext(const struct xfmt_geom *g, uint32_t agno, uint32_t start,
			    uint32_t len, unsigned idx, const struct xprob_sink *sink)
{
	unsigned n = 0;

	if (len == 0)
		return 0;   /* reported by the caller */
	if (!xfmt_bt_agbno_ok(g, agno, start))
		n += bad_rec(sink, idx, "startblock", start);
	else if (!xfmt_bt_agbext_ok(g, agno, start, len))
		n += bad_rec(sink, idx, "blockcount", len);
	return n;
}

static unsigned verify_alloc(const uint8_t *rec, unsigned idx, const struct xfmt_geom *g,
			     uint32_t agno, const struct xprob_sink *sink)
{
	struct xfmt_alloc_rec r;
	unsigned n = 0;

	xfmt_alloc_rec_decode(rec, &r);
	if (r.blockcount == 0)
		n += bad_rec(sink, idx, "blockcount", 0);
	n += check_agext(g, agno, r.startblock, r.blockcount, idx, sink);
	return n;
}

/* Whether holemask (a bit per 4 inodes) is made of whole sparse
 * allocation units of spino_align blocks. */
static bool holemask_in_units(const struct xfmt_geom *g, uint16_t holemask)
{
	uint64_t inodes = (uint64_t)g->spino_align << g->inopblog;
	unsigned bits = (unsigned)(inodes / XFS_INODES_PER_HOLEMASK_BIT);

	if (bits <= 1 || g->spino_align == 0)
		return true;
	if (bits >= 16)
		return holemask == 0;
	for (unsigned b = 0; b < 16; b += bits) {
		unsigned unit = (holemask >> b) & ((1u << bits) - 1);

		if (unit != 0 && unit != (1u << bits) - 1)
			return false;
	}
	return true;
}

static unsigned verify_inobt(enum xfmt_btnum bt, const uint8_t *rec, unsigned idx,
			     const struct xfmt_geom *g, uint32_t agno,
			     const struct xprob_sink *sink)
{
	struct xfmt_inobt_rec r;
	bool sparse = xfmt_geom_has_sparse_inodes(g);
	uint32_t first, last, align = chunk_align(g);
	uint32_t inopblock = 1u << g->inopblog;
	uint64_t holes;
	unsigned n = 0, want;

	xfmt_inobt_rec_decode(rec, sparse, &r);

	/* A chunk starts on a block (or a 64-inode boundary inside a big block)
	 * and on the inode cluster alignment. */
	if ((inopblock <= XFS_INODES_PER_CHUNK && (r.startino & (inopblock - 1))) ||
	    (inopblock > XFS_INODES_PER_CHUNK && (r.startino % XFS_INODES_PER_CHUNK)) ||
	    (inopblock <= XFS_INODES_PER_CHUNK && align > 1 &&
	     xfmt_geom_agino_agbno(g, r.startino) % align))
		n += (unsigned)xprob_emit_obs(sink, XP_ichunkMisaligned, "startino", idx,
					      r.startino);
	if (!xfmt_agino_range(g, agno, &first, &last) || r.startino < first ||
	    r.startino > last ||
	    (uint64_t)r.startino + XFS_INODES_PER_CHUNK - 1 > last)
		n += (unsigned)xprob_emit_obs(sink, XP_ichunkOutsideAg, "startino", idx,
					      r.startino);

	if (sparse) {
		want = xfmt_inobt_holemask_count(r.holemask);
		if (r.count < XFS_INODES_PER_HOLEMASK_BIT || r.count > XFS_INODES_PER_CHUNK ||
		    r.count != want)
			n += (unsigned)xprob_emit_val(sink, XP_ichunkBadCount, "count", idx,
						      want, r.count);
		/* Inodes in holes do not exist and are always marked free; and
		 * sparse chunks are allocated spino_align blocks at a time, so
		 * each such unit is all hole or all there. */
		holes = ~xfmt_inobt_allocmask(r.holemask);
		if (r.holemask == 0xFFFFu || (r.free & holes) != holes ||
		    !holemask_in_units(g, r.holemask))
			n += (unsigned)xprob_emit_obs(sink, XP_ichunkBadHolemask, "holemask",
						      idx, r.holemask);
	}
	want = xfmt_inobt_rec_freecount(&r);
	if (r.freecount > XFS_INODES_PER_CHUNK || r.freecount != want)
		n += (unsigned)xprob_emit_val(sink, XP_ichunkBadCount, "freecount", idx,
					      want, r.freecount);
	if (bt == XFMT_BT_FINO && r.freecount == 0)
		n += (unsigned)xprob_emit_obs(sink, XP_ichunkFinobtMismatch, "freecount",
					      idx, r.startino);
	return n;
}

static bool rmap_owner_is_inode(const struct xfmt_geom *g, uint64_t owner)
{
	uint32_t agno, agino, first, last;

	if (owner > XFS_MAXINUMBER || !xfmt_geom_ino_valid(g, owner))
		return false;
	agno = xfmt_geom_ino_agno(g, owner);
	agino = xfmt_geom_ino_agino(g, owner);
	return xfmt_agino_range(g, agno, &first, &last) && agino >= first && agino <= last;
}

static unsigned verify_rmap(const uint8_t *rec, unsigned idx, const struct xfmt_geom *g,
			    uint32_t agno, const struct xprob_sink *sink)
{
	struct xfmt_rmap_rec r;
	uint32_t agfl = xfmt_bt_agfl_block(g);
	bool is_inode, owner_ok;
	unsigned n = 0;

	xfmt_rmap_rec_decode(rec, &r);
	if (r.blockcount == 0)
		n += bad_rec(sink, idx, "blockcount", 0);
	if (r.startblock <= agfl) {
		/* The only mapping of the AG headers: {0, agfl + 1, OWN_FS}. */
		if (r.owner != XFS_RMAP_OWN_FS)
			n += bad_rec(sink, idx, "owner", r.owner);
		if (r.startblock != 0)
			n += bad_rec(sink, idx, "startblock", r.startblock);
		if (r.blockcount != 0 && r.blockcount != agfl + 1)
			n += bad_rec(sink, idx, "blockcount", r.blockcount);
	} else {
		n += check_agext(g, agno, r.startblock, r.blockcount, idx, sink);
	}

	is_inode = !(r.owner & (1ull << 63));
	owner_ok = is_inode ? rmap_owner_is_inode(g, r.owner)
			    : (r.owner <= XFS_RMAP_OWN_FS && r.owner >= XFS_RMAP_OWN_MIN);
	if (!owner_ok && r.startblock > agfl)
		n += bad_rec(sink, idx, "owner", r.owner);

	if (r.raw_offset & ~(XFS_RMAP_OFF_MASK | XFS_RMAP_OFF_FLAGS))
		n += bad_rec(sink, idx, "offset", r.raw_offset);
	if ((r.bmbt_block || !is_inode) && r.offset != 0)
		n += bad_rec(sink, idx, "offset", r.offset);
	if (r.unwritten && (r.bmbt_block || !is_inode || r.attr_fork))
		n += bad_rec(sink, idx, "extentflag", 1);
	if (!is_inode && r.attr_fork)
		n += bad_rec(sink, idx, "attrfork", 1);
	if (!is_inode && r.bmbt_block)
		n += bad_rec(sink, idx, "bmbtblock", 1);
	if (is_inode && !r.bmbt_block && r.blockcount != 0 &&
	    r.offset + r.blockcount - 1 > XFS_MAX_FILEOFF)
		n += bad_rec(sink, idx, "offset", r.offset);
	return n;
}

static unsigned verify_refc(const uint8_t *rec, unsigned idx, const struct xfmt_geom *g,
			    uint32_t agno, const struct xprob_sink *sink)
{
	struct xfmt_refc_rec r;
	unsigned n = 0;

	xfmt_refc_rec_decode(rec, &r);
	if (r.blockcount == 0)
		n += bad_rec(sink, idx, "blockcount", 0);
	/* Shared extents have >= 2 owners; a CoW staging extent exactly one. */
	if ((r.cow && r.refcount != 1) || (!r.cow && r.refcount < 2))
		n += bad_rec(sink, idx, "refcount", r.refcount);
	n += check_agext(g, agno, r.startblock, r.blockcount, idx, sink);
	return n;
}

static unsigned verify_bmbt(const uint8_t *rec, unsigned idx, const struct xfmt_geom *g,
			    const struct xprob_sink *sink)
{
	struct xfmt_bmbt_rec r;
	unsigned n = 0;

	xfmt_bmbt_rec_decode(rec, &r);
	if (r.blockcount == 0)
		n += bad_rec(sink, idx, "blockcount", 0);
	if (!xfmt_bt_fsbno_ok(g, r.startblock)) {
		n += bad_rec(sink, idx, "startblock", r.startblock);
	} else if (r.blockcount) {
		uint32_t agno = xfmt_geom_fsb_agno(g, r.startblock);
		uint32_t agbno = xfmt_geom_fsb_agbno(g, r.startblock);

		/* An extent never crosses the end of its AG. */
		if (!xfmt_bt_agbext_ok(g, agno, agbno, r.blockcount))
			n += bad_rec(sink, idx, "blockcount", r.blockcount);
	}
	if (r.startoff + r.blockcount > XFS_MAX_FILEOFF)
		n += bad_rec(sink, idx, "startoff", r.startoff);
	return n;
}

unsigned xfmt_bt_rec_verify(enum xfmt_btnum bt, const uint8_t *rec, unsigned idx,
			    const struct xfmt_geom *g, uint32_t agno,
			    const struct xprob_sink *sink)
{
	switch (bt) {
	case XFMT_BT_BNO:
	case XFMT_BT_CNT:
		return verify_alloc(rec, idx, g, agno, sink);
	case XFMT_BT_INO:
	case XFMT_BT_FINO:
		return verify_inobt(bt, rec, idx, g, agno, sink);
	case XFMT_BT_RMAP:
		return verify_rmap(rec, idx, g, agno, sink);
	case XFMT_BT_REFC:
		return verify_refc(rec, idx, g, agno, sink);
	case XFMT_BT_BMAP:
		return verify_bmbt(rec, idx, g, sink);
	default:
		return 0;
	}
}

/* ------------------------------------------------------------- encoders */

void xfmt_alloc_rec_encode(uint8_t *p, const struct xfmt_alloc_rec *r)
{
	xfmt_put_be32(p + AR_STARTBLOCK, r->startblock);
	xfmt_put_be32(p + AR_BLOCKCOUNT, r->blockcount);
}

void xfmt_inobt_rec_encode(uint8_t *p, bool sparse, const struct xfmt_inobt_rec *r)
{
	xfmt_put_be32(p + IR_STARTINO, r->startino);
	if (sparse) {
		xfmt_put_be16(p + IR_HOLEMASK, r->holemask);
		p[IR_COUNT] = r->count;
		p[IR_FREECOUNT_SP] = (uint8_t)r->freecount;
	} else {
		xfmt_put_be32(p + IR_FREECOUNT, r->freecount);
	}
	xfmt_put_be64(p + IR_FREE, r->free);
}

uint64_t xfmt_rmap_raw_offset(uint64_t offset, bool attr_fork, bool bmbt_block,
			      bool unwritten)
{
	uint64_t raw = offset & XFS_RMAP_OFF_MASK;

	if (attr_fork)
		raw |= XFS_RMAP_OFF_ATTR_FORK;
	if (bmbt_block)
		raw |= XFS_RMAP_OFF_BMBT_BLOCK;
	if (unwritten)
		raw |= XFS_RMAP_OFF_UNWRITTEN;
	return raw;
}

void xfmt_rmap_rec_encode(uint8_t *p, const struct xfmt_rmap_rec *r)
{
	xfmt_put_be32(p + RM_STARTBLOCK, r->startblock);
	xfmt_put_be32(p + RM_BLOCKCOUNT, r->blockcount);
	xfmt_put_be64(p + RM_OWNER, r->owner);
	xfmt_put_be64(p + RM_OFFSET, xfmt_rmap_raw_offset(r->offset, r->attr_fork,
							   r->bmbt_block, r->unwritten));
}

void xfmt_refc_rec_encode(uint8_t *p, const struct xfmt_refc_rec *r)
{
	uint32_t sb = r->startblock & ~XFS_REFC_COWFLAG;

	xfmt_put_be32(p + RC_STARTBLOCK, r->cow ? sb | XFS_REFC_COWFLAG : sb);
	xfmt_put_be32(p + RC_BLOCKCOUNT, r->blockcount);
	xfmt_put_be32(p + RC_REFCOUNT, r->refcount);
}
