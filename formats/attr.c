/*
 * attr.c - shortform attr forks, attr leaf blocks and remote value blocks:
 * decoding, iteration and verification.  Rules: the kernel's
 * xfs_attr_shortform_verify, xfs_attr3_leaf_verify(_entry),
 * xfs_attr3_rmt_verify / _hdr_ok, xfs_attr_namecheck, xfs_parent_*check,
 * plus xfs_repair's leaf checks (hash of each name, overlapping name/value
 * structures, usedbytes, firstused).  Every failed rule is reported; the
 * kernel and xfs_repair stop at the first.
 */
#include "formats/attr.h"

#include <string.h>

#include "formats/attr_layout.h"
#include "formats/crc32c.h"
#include "formats/dahash.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"
#include "formats/sb.h"

/* Remote value header (xfs-ondisk.md 8.4). */
_Static_assert(XFMT_RMT_CRC_OFF == XFMT_ATTR_CRC_OFF, "remote header crc offset");

/* Largest block size: the used-space map of a leaf is this many bits. */
#define ATTR_MAX_BLKSIZE 65536u

static size_t round4(size_t v)
{
	return (v + NAME_ALIGN - 1) & ~(size_t)(NAME_ALIGN - 1);
}

/* ------------------------------------------------------ namespaces */

enum xfmt_attr_ns xfmt_attr_ns_of(uint8_t flags)
{
	switch (flags & XFS_ATTR_NSP_ONDISK_MASK) {
	case 0:               return XFMT_ATTR_NS_USER;
	case XFS_ATTR_ROOT:   return XFMT_ATTR_NS_TRUSTED;
	case XFS_ATTR_SECURE: return XFMT_ATTR_NS_SECURE;
	case XFS_ATTR_PARENT: return XFMT_ATTR_NS_PARENT;
	default:              return XFMT_ATTR_NS_INVALID;
	}
}

const char *xfmt_attr_ns_prefix(enum xfmt_attr_ns ns)
{
	switch (ns) {
	case XFMT_ATTR_NS_USER:    return "user.";
	case XFMT_ATTR_NS_TRUSTED: return "trusted.";
	case XFMT_ATTR_NS_SECURE:  return "security.";
	case XFMT_ATTR_NS_PARENT:  return "parent.";
	default:                   return "";
	}
}

int xfmt_attr_pptr_decode(const uint8_t *value, size_t valuelen, uint64_t *parent_ino,
			  uint32_t *parent_gen)
{
	if (!value || valuelen != XFMT_ATTR_PPTR_VALUE_LEN)
		return -1;
	*parent_ino = xfmt_get_be64(value);
	*parent_gen = xfmt_get_be32(value + 8);
	return 0;
}

uint32_t xfmt_attr_hashval(const struct xfmt_geom *g, uint8_t flags, const uint8_t *name,
			   size_t namelen, const uint8_t *value, size_t valuelen)
{
	uint64_t pino;
	uint32_t pgen;

	if (!(flags & XFS_ATTR_PARENT))
		return xfmt_da_hashname(name, namelen);
	if (xfmt_attr_pptr_decode(value, valuelen, &pino, &pgen) != 0)
		return 0;
	/* Mixing in the parent tells apart hard links of one name in two directories. */
	return xfmt_dir2_hashname(g, name, namelen) ^ (uint32_t)(pino >> 32) ^ (uint32_t)pino;
}

/* ------------------------------------------------ entry rules, both forms */

/* Flag rules of one entry; bad_flags_mask are the bits this form may not carry. */
static unsigned check_flags(const struct xfmt_attr_entry *e, uint8_t bad_flags_mask,
			    const struct xprob_sink *sink)
{
	unsigned n = 0;

	if (e->flags & bad_flags_mask)
		n += (unsigned)xprob_emit_obs(sink, XP_attrBadFlags, "flags", e->idx, e->flags);
	if (e->ns == XFMT_ATTR_NS_INVALID)
		n += (unsigned)xprob_emit_obs(sink, XP_attrMultipleNs, "flags", e->idx, e->flags);
	return n;
}

/*
 * Rules on the name and value of one decoded entry that do not depend on
 * the form: name bytes, parent pointer feature and value.
 */
static unsigned check_entry(const struct xfmt_geom *g, const struct xfmt_attr_entry *e,
			    const struct xprob_sink *sink)
{
	bool parent = e->flags & XFS_ATTR_PARENT;
	unsigned n = 0;

	if (e->namelen == 0) {
		n += (unsigned)xprob_emit(sink, XP_attrBadNamelen, "namelen", e->idx);
	} else if (memchr(e->name, 0, e->namelen) ||
		   (parent && memchr(e->name, '/', e->namelen))) {
		n += (unsigned)xprob_emit(sink, XP_attrBadName, "name", e->idx);
	}
	if (!parent)
		return n;
	if (!xfmt_geom_has_parent(g)) {
		n += (unsigned)xprob_emit(sink, XP_attrParentNoFeature, "flags", e->idx);
		return n;
	}
	/* A parent record is 12 local bytes naming a valid directory inode. */
	if (!e->local || !e->value || e->valuelen != XFMT_ATTR_PPTR_VALUE_LEN) {
		n += (unsigned)xprob_emit_obs(sink, XP_attrParentBadValue, "valuelen", e->idx,
					      e->valuelen);
	} else {
		uint64_t pino = xfmt_get_be64(e->value);

		if (!xfmt_geom_ino_valid(g, pino))
			n += (unsigned)xprob_emit_obs(sink, XP_attrParentBadValue, "parent_ino",
						      e->idx, pino);
	}
	return n;
}

/* ------------------------------------------------------- shortform */

int xfmt_attr_sf_hdr_decode(const uint8_t *fork, size_t forksize, struct xfmt_attr_sf_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (!fork || forksize < XFMT_ATTR_SF_HDR_LEN)
		return -1;
	out->totsize = xfmt_get_be16(fork + ASF_TOTSIZE);
	out->count = fork[ASF_COUNT];
	out->pad = fork[ASF_PAD];
	return 0;
}

void xfmt_attr_sf_iter_init(struct xfmt_attr_sf_iter *it, const uint8_t *fork,
			    size_t forksize)
{
	struct xfmt_attr_sf_hdr h;

	memset(it, 0, sizeof(*it));
	if (xfmt_attr_sf_hdr_decode(fork, forksize, &h) != 0)
		return;
	it->fork = fork;
	it->end = h.totsize < forksize ? h.totsize : forksize;
	it->pos = XFMT_ATTR_SF_HDR_LEN;
	it->count = h.count;
}

int xfmt_attr_sf_next(struct xfmt_attr_sf_iter *it, struct xfmt_attr_entry *out)
{
	const uint8_t *p;
	size_t size;

	memset(out, 0, sizeof(*out));
	if (it->idx >= it->count)
		return 0;
	/* The 3-byte entry header, then name and value, all before the end. */
	if (!it->fork || it->pos + XFMT_ATTR_SF_ENTRY_HDR > it->end) {
		it->count = it->idx;
		return -1;
	}
	p = it->fork + it->pos;
	size = XFMT_ATTR_SF_ENTRY_HDR + (size_t)p[ASFE_NAMELEN] + p[ASFE_VALUELEN];
	if (it->pos + size > it->end) {
		it->count = it->idx;
		return -1;
	}
	out->idx = it->idx;
	out->flags = p[ASFE_FLAGS];
	out->ns = xfmt_attr_ns_of(out->flags);
	out->local = true;
	out->incomplete = (out->flags & XFS_ATTR_INCOMPLETE) != 0;
	out->namelen = p[ASFE_NAMELEN];
	out->name = p + XFMT_ATTR_SF_ENTRY_HDR;
	out->valuelen = p[ASFE_VALUELEN];
	out->value = out->name + out->namelen;
	out->entsize = size;
	it->pos += size;
	it->idx++;
	return 1;
}

unsigned xfmt_attr_sf_verify(const uint8_t *fork, size_t forksize, const struct xfmt_geom *g,
			     const struct xprob_sink *sink)
{
	struct xfmt_attr_sf_hdr h;
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	bool totsize_ok;
	unsigned n = 0;
	int rc;

	if (xfmt_attr_sf_hdr_decode(fork, forksize, &h) != 0)
		return (unsigned)xprob_emit_val(sink, XP_attrSfBadTotsize, "hdr.totsize", ASF_TOTSIZE,
						forksize, 0);
	totsize_ok = h.totsize >= XFMT_ATTR_SF_HDR_LEN && h.totsize <= forksize;
	if (!totsize_ok)
		n += (unsigned)xprob_emit_val(sink, XP_attrSfBadTotsize, "hdr.totsize", ASF_TOTSIZE,
					      forksize, h.totsize);

	xfmt_attr_sf_iter_init(&it, fork, forksize);
	while ((rc = xfmt_attr_sf_next(&it, &e)) == 1) {
		/* LOCAL and INCOMPLETE exist only in leaf entries: the kernel rejects them here. */
		n += check_flags(&e, (uint8_t)~XFS_ATTR_NSP_ONDISK_MASK, sink);
		n += check_entry(g, &e, sink);
	}
	if (rc < 0) {
		n += (unsigned)xprob_emit(sink, XP_attrSfEntryOverflow, "hdr.count", it.idx);
	} else if (totsize_ok && it.pos != h.totsize) {
		/* Entries end short of totsize: count or totsize is wrong. */
		n += (unsigned)xprob_emit_val(sink, XP_attrSfSizeMismatch, "hdr.totsize",
					      ASF_TOTSIZE, it.pos, h.totsize);
	}
	return n;
}

/* ------------------------------------------------------- leaf blocks */

int xfmt_attr_leaf_hdr_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			      struct xfmt_attr_leaf_hdr *out)
{
	bool v5 = g->v5;
	size_t fm;
	uint16_t fu;

	memset(out, 0, sizeof(*out));
	out->hdr_len = v5 ? XFMT_ATTR_LEAF_HDR_V5 : XFMT_ATTR_LEAF_HDR_V4;
	if (len < out->hdr_len || xfmt_da_blkinfo_decode(buf, len, v5, &out->info) != 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->blksize = g->blocksize;
	out->count = xfmt_get_be16(buf + (v5 ? L5_COUNT : L4_COUNT));
	out->usedbytes = xfmt_get_be16(buf + (v5 ? L5_USEDBYTES : L4_USEDBYTES));
	fu = xfmt_get_be16(buf + (v5 ? L5_FIRSTUSED : L4_FIRSTUSED));
	/* 16 bits cannot say 65536: on-disk 0 stands for the block size. */
	out->firstused = fu ? fu : g->blocksize;
	out->firstused_raw = fu;
	out->holes = buf[v5 ? L5_HOLES : L4_HOLES];
	out->pad1 = buf[v5 ? L5_PAD1 : L4_PAD1];
	fm = v5 ? L5_FREEMAP : L4_FREEMAP;
	for (unsigned i = 0; i < XFMT_ATTR_LEAF_MAPSIZE; i++) {
		out->freemap[i].base = xfmt_get_be16(buf + fm + i * 4);
		out->freemap[i].size = xfmt_get_be16(buf + fm + i * 4 + 2);
	}
	if (v5)
		out->pad2 = xfmt_get_be32(buf + L5_PAD2);
	return 0;
}

/* Entries a leaf of this header can hold at most (the rest would leave the block). */
static size_t leaf_max_ents(const struct xfmt_attr_leaf_hdr *h, size_t lim)
{
	return lim > h->hdr_len ? (lim - h->hdr_len) / XFMT_ATTR_LEAF_ENTRY_LEN : 0;
}

int xfmt_attr_leaf_entry(const uint8_t *buf, size_t len, const struct xfmt_attr_leaf_hdr *h,
			 unsigned i, struct xfmt_attr_entry *out)
{
	size_t lim = len < h->blksize ? len : h->blksize;
	size_t slot = h->hdr_len + (size_t)i * XFMT_ATTR_LEAF_ENTRY_LEN;
	size_t nents = h->count < leaf_max_ents(h, lim) ? h->count : leaf_max_ents(h, lim);
	size_t table_end = h->hdr_len + nents * XFMT_ATTR_LEAF_ENTRY_LEN;
	const uint8_t *e, *p;
	size_t idx;

	memset(out, 0, sizeof(*out));
	if (h->hdr_len == 0 || slot + XFMT_ATTR_LEAF_ENTRY_LEN > lim)
		return -1;
	e = buf + slot;
	out->idx = i;
	out->hashval = xfmt_get_be32(e + LE_HASHVAL);
	out->nameidx = xfmt_get_be16(e + LE_NAMEIDX);
	out->flags = e[LE_FLAGS];
	out->ns = xfmt_attr_ns_of(out->flags);
	out->local = (out->flags & XFS_ATTR_LOCAL) != 0;
	out->incomplete = (out->flags & XFS_ATTR_INCOMPLETE) != 0;

	idx = out->nameidx;
	/* The name area lies after the entry table, inside the block. */
	if (idx < table_end || idx < slot + XFMT_ATTR_LEAF_ENTRY_LEN)
		return -2;
	p = buf + idx;
	if (out->local) {
		if (idx + LOC_NAME > lim)
			return -2;
		out->valuelen = xfmt_get_be16(p + LOC_VALUELEN);
		out->namelen = p[LOC_NAMELEN];
		out->entsize = round4(LOC_ENTSIZE_BASE + (size_t)out->namelen + out->valuelen);
		if (idx + out->entsize > lim)
			return -2;
		out->name = p + LOC_NAME;
		out->value = out->name + out->namelen;
	} else {
		if (idx + RMT_NAME > lim)
			return -2;
		out->valueblk = xfmt_get_be32(p + RMT_VALUEBLK);
		out->valuelen = xfmt_get_be32(p + RMT_VALUELEN);
		out->namelen = p[RMT_NAMELEN];
		out->entsize = round4(RMT_ENTSIZE_BASE + (size_t)out->namelen);
		if (idx + out->entsize > lim)
			return -2;
		out->name = p + RMT_NAME;
	}
	return 0;
}

/*
 * Mark [start, end) used in map; true if any byte was already used.  Whole
 * map bytes are handled eight bits at a time: a hostile 64 KiB leaf with
 * 8000 entries each claiming most of the block stays at tens of millions
 * of steps, not hundreds.
 */
static bool map_claim(uint8_t *map, size_t start, size_t end)
{
	bool clash = false;
	size_t b = start;

	for (; b < end && (b & 7); b++) {
		clash |= (map[b >> 3] >> (b & 7)) & 1u;
		map[b >> 3] |= (uint8_t)(1u << (b & 7));
	}
	for (; b + 8 <= end; b += 8) {
		clash |= map[b >> 3] != 0;
		map[b >> 3] = 0xFF;
	}
	for (; b < end; b++) {
		clash |= (map[b >> 3] >> (b & 7)) & 1u;
		map[b >> 3] |= (uint8_t)(1u << (b & 7));
	}
	return clash;
}

/*
 * Header-level rules beyond the blkinfo.  Sets *nents (entries that fit the
 * block, which are the ones read) and *name_lo (where names may start).
 */
static unsigned leaf_check_hdr(const struct xfmt_attr_leaf_hdr *h, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp, size_t *name_lo,
			       unsigned *nents, const struct xprob_sink *sink)
{
	bool v5 = g->v5;
	uint32_t bs = g->blocksize;
	size_t table_end = h->hdr_len + (size_t)h->count * XFMT_ATTR_LEAF_ENTRY_LEN;
	size_t max_ents = leaf_max_ents(h, bs);
	/* 0 stands for 65536, which only a 64 KiB block needs. */
	bool fu_ok = h->firstused <= bs && h->firstused >= h->hdr_len &&
		     (h->firstused_raw != 0 || bs > UINT16_MAX);
	unsigned n = 0;

	/* Block 0 is a leaf only when it is the only block of the fork. */
	if (exp->dablk == 0 && h->info.forw)
		n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadSibling, "hdr.info.forw", DA_FORW,
					      h->info.forw);
	if (exp->dablk == 0 && h->info.back)
		n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadSibling, "hdr.info.back", DA_BACK,
					      h->info.back);
	if (h->pad1)
		n += (unsigned)xprob_emit_obs(sink, XP_attrLeafNonzeroPad, "hdr.pad1",
					      v5 ? L5_PAD1 : L4_PAD1, h->pad1);
	if (v5 && h->pad2)
		n += (unsigned)xprob_emit_obs(sink, XP_attrLeafNonzeroPad, "hdr.pad2", L5_PAD2,
					      h->pad2);
	if (!fu_ok)
		n += (unsigned)xprob_emit_val(sink, XP_attrLeafBadFirstused, "hdr.firstused",
					      v5 ? L5_FIRSTUSED : L4_FIRSTUSED, h->hdr_len,
					      h->firstused_raw);
	/* The entry table must end before the names (or the block, if firstused is bad). */
	if (table_end > (fu_ok ? h->firstused : bs))
		n += (unsigned)xprob_emit_val(sink, XP_attrLeafBadCount, "hdr.count",
					      v5 ? L5_COUNT : L4_COUNT, fu_ok ? h->firstused : bs,
					      h->count);
	if (h->count == 0)
		n += (unsigned)xprob_emit(sink, XP_attrLeafEmpty, "hdr.count",
					  v5 ? L5_COUNT : L4_COUNT);

	/* Only the entries that fit in the block are read. */
	*nents = h->count < max_ents ? h->count : (unsigned)max_ents;
	*name_lo = h->hdr_len + (size_t)*nents * XFMT_ATTR_LEAF_ENTRY_LEN;

	for (unsigned i = 0; i < XFMT_ATTR_LEAF_MAPSIZE; i++) {
		static const char *const bname[] = { "hdr.freemap[0].base", "hdr.freemap[1].base",
						     "hdr.freemap[2].base" };
		static const char *const sname[] = { "hdr.freemap[0].size", "hdr.freemap[1].size",
						     "hdr.freemap[2].size" };
		size_t off = (v5 ? L5_FREEMAP : L4_FREEMAP) + i * 4u;
		uint32_t base = h->freemap[i].base, size = h->freemap[i].size;

		if (base > bs || (base & 3u))
			n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadFreemap, bname[i], off,
						      base);
		if (size > bs || (size & 3u) || base + size > bs)
			n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadFreemap, sname[i],
						      off + 2, size);
	}
	return n;
}

/* The rules of leaf entry e (decoded with rc from xfmt_attr_leaf_entry). */
static unsigned leaf_check_entry(const struct xfmt_geom *g, const struct xfmt_attr_entry *e,
				 int rc, size_t name_lo, const struct xprob_sink *sink)
{
	unsigned n = check_flags(e, (uint8_t)~XFS_ATTR_ONDISK_MASK, sink);

	if (rc == -2) {
		uint32_t bs = g->blocksize;

		/* Where the structure starts is wrong, or its size runs off the block. */
		if (e->nameidx < name_lo || e->nameidx >= bs)
			return n + (unsigned)xprob_emit_obs(sink, XP_attrLeafBadNameidx, "nameidx",
							    e->idx, e->nameidx);
		return n + (unsigned)xprob_emit_obs(sink, XP_attrLeafEntryOverflow, "nameidx",
						    e->idx, e->nameidx);
	}
	n += check_entry(g, e, sink);
	if (!e->local) {
		if (e->valueblk == 0 && !e->incomplete)
			n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadRemote, "valueblk", e->idx,
						      0);
		if (e->valuelen > XFMT_ATTR_VALUE_MAX)
			n += (unsigned)xprob_emit_obs(sink, XP_attrLeafBadRemote, "valuelen",
						      e->idx, e->valuelen);
	}
	/* A parent pointer with a bad value has no hash to compare with. */
	if (e->namelen && (!(e->flags & XFS_ATTR_PARENT) ||
			   (e->local && e->valuelen == XFMT_ATTR_PPTR_VALUE_LEN))) {
		uint32_t want = xfmt_attr_hashval(g, e->flags, e->name, e->namelen, e->value,
						  e->valuelen);

		if (want != e->hashval)
			n += (unsigned)xprob_emit_val(sink, XP_attrBadHash, "hashval", e->idx,
						      want, e->hashval);
	}
	return n;
}

unsigned xfmt_attr_leaf_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink)
{
	uint16_t magic = g->v5 ? XFS_ATTR3_LEAF_MAGIC : XFS_ATTR_LEAF_MAGIC;
	uint32_t bs = g->blocksize;
	struct xfmt_attr_leaf_hdr h;
	uint8_t map[ATTR_MAX_BLKSIZE / 8];
	size_t name_lo, used = 0, lowest = bs;
	uint32_t last_hash = 0;
	unsigned n, nents;

	n = xfmt_da_blkinfo_verify(buf, len, bs, g, magic, exp, sink);
	/* Nothing more can be read safely from a short buffer (daTruncated says so). */
	if (len < bs || bs > ATTR_MAX_BLKSIZE || xfmt_attr_leaf_hdr_decode(buf, len, g, &h) != 0)
		return n;

	n += leaf_check_hdr(&h, g, exp, &name_lo, &nents, sink);
	memset(map, 0, (bs + 7) / 8);
	for (unsigned i = 0; i < nents; i++) {
		struct xfmt_attr_entry e;
		int rc = xfmt_attr_leaf_entry(buf, len, &h, i, &e);

		if (rc == -1)
			break;  /* cannot happen: nents fits the block */
		if (i > 0 && e.hashval < last_hash)
			n += (unsigned)xprob_emit_val(sink, XP_attrLeafHashOrder, "hashval", i,
						      last_hash, e.hashval);
		last_hash = e.hashval;
		if (e.incomplete)
			n += (unsigned)xprob_emit(sink, XP_attrIncomplete, "flags", i);
		n += leaf_check_entry(g, &e, rc, name_lo, sink);
		if (rc != 0)
			continue;
		if (map_claim(map, e.nameidx, e.nameidx + e.entsize))
			n += (unsigned)xprob_emit_obs(sink, XP_attrLeafOverlap, "name/value", i,
						      e.nameidx);
		used += e.entsize;
		if (e.nameidx < lowest)
			lowest = e.nameidx;
	}

	if (used != h.usedbytes)
		n += (unsigned)xprob_emit_val(sink, XP_attrLeafBadUsedbytes, "hdr.usedbytes",
					      g->v5 ? L5_USEDBYTES : L4_USEDBYTES, used,
					      h.usedbytes);
	/* With holes, firstused may sit below the lowest structure, never above it. */
	if (nents && ((h.holes == 0 && h.firstused != lowest) || h.firstused > lowest))
		n += (unsigned)xprob_emit_val(sink, XP_attrLeafFirstusedMismatch, "hdr.firstused",
					      g->v5 ? L5_FIRSTUSED : L4_FIRSTUSED, lowest,
					      h.firstused);
	return n;
}

int xfmt_attr_leaf_lasthash(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			    uint32_t *hash)
{
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_attr_entry e;

	if (xfmt_attr_leaf_hdr_decode(buf, len, g, &h) != 0 || h.count == 0 ||
	    xfmt_attr_leaf_entry(buf, len, &h, h.count - 1u, &e) == -1)
		return -1;
	*hash = e.hashval;
	return 0;
}

/* ------------------------------------------------ node form, block kinds */

void xfmt_attr_da_expect_init(struct xfmt_da_expect *exp, uint64_t daddr, uint64_t owner,
			      uint32_t dablk, int level, uint32_t fork_end)
{
	memset(exp, 0, sizeof(*exp));
	exp->daddr = daddr;
	exp->owner = owner;
	exp->dablk = dablk;
	exp->level = level;
	exp->blk_lo = fork_end ? 1 : 0;
	exp->blk_hi = fork_end;
}

/* ------------------------------------------------------ remote values */

uint32_t xfmt_attr_rmt_space(const struct xfmt_geom *g)
{
	if (!g->v5)
		return g->blocksize;
	return g->blocksize > XFMT_ATTR_RMT_HDR_LEN ? g->blocksize - XFMT_ATTR_RMT_HDR_LEN : 0;
}

uint32_t xfmt_attr_rmt_blocks(const struct xfmt_geom *g, uint32_t valuelen)
{
	uint32_t space = xfmt_attr_rmt_space(g);

	if (space == 0)
		return 0;
	return (uint32_t)(((uint64_t)valuelen + space - 1) / space);
}

static const struct xfmt_rmt_kind attr_rmt_kind = {
	.magic = XFS_ATTR3_RMT_MAGIC,
	.payload_max = XFMT_ATTR_VALUE_MAX,
	/* Written outside the log: recovery must never see a real LSN here. */
	.check_lsn = true,
	.lsn = XFMT_ATTR_RMT_LSN,
	.unreadable = XP_attrRmtUnreadable, .bad_magic = XP_attrRmtBadMagic,
	.bad_crc = XP_attrRmtBadCrc, .bad_uuid = XP_attrRmtBadUuid,
	.bad_blkno = XP_attrRmtBadBlkno, .bad_range = XP_attrRmtBadRange,
	.bad_owner = XP_attrRmtBadOwner, .mismatch = XP_attrRmtMismatch,
	.bad_lsn = XP_attrRmtBadLsn,
	.f_magic = "hdr.magic", .f_crc = "hdr.crc", .f_uuid = "hdr.uuid", .f_bno = "hdr.bno",
	.f_bytes = "hdr.bytes", .f_offset = "hdr.offset", .f_owner = "hdr.owner",
	.f_lsn = "hdr.lsn",
};

unsigned xfmt_attr_rmt_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			      const struct xfmt_rmt_expect *exp,
			      const struct xprob_sink *sink)
{
	if (!g->v5)
		return 0;  /* raw value bytes */
	/* One CRC per block, even when one buffer spans several blocks. */
	return xfmt_rmt_verify(buf, len, g->blocksize, g, &attr_rmt_kind, exp, sink);
}

void xfmt_attr_rmt_asm_init(struct xfmt_attr_rmt_asm *a, const struct xfmt_geom *g,
			    uint64_t owner, uint32_t valuelen, uint8_t *out, size_t cap)
{
	memset(a, 0, sizeof(*a));
	xfmt_rmt_cursor_init(&a->cur, g, owner,
			     valuelen < XFMT_ATTR_VALUE_MAX ? valuelen : XFMT_ATTR_VALUE_MAX);
	a->out = out;
	a->cap = out ? cap : 0;
	a->valuelen = valuelen;
}

unsigned xfmt_attr_rmt_asm_add(struct xfmt_attr_rmt_asm *a, const uint8_t *buf, size_t len,
			       uint64_t daddr, const struct xfmt_geom *g,
			       const struct xprob_sink *sink)
{
	struct xfmt_rmt_expect exp;
	size_t hdr = a->cur.v5 ? XFMT_ATTR_RMT_HDR_LEN : 0;
	size_t avail = len > hdr ? len - hdr : 0;
	uint32_t take, have = a->cur.have;
	unsigned n;

	if (xfmt_rmt_cursor_done(&a->cur))
		return 0;
	take = xfmt_rmt_cursor_next(&a->cur, daddr, xfmt_attr_rmt_space(g), &exp);
	n = xfmt_attr_rmt_verify(buf, len, g, &exp, sink);
	/*
	 * Copy what the buffer holds, at most the caller's room.  A short
	 * buffer still advances by a whole block's share (zeros where bytes
	 * are missing), so the next block's bytes land at their own offset.
	 */
	if (have < a->cap) {
		size_t room = a->cap - have, copy = take < avail ? take : avail;
		size_t fill = take < room ? take : room;

		if (copy > fill)
			copy = fill;
		memcpy(a->out + have, buf + hdr, copy);
		memset(a->out + have + copy, 0, fill - copy);
	}
	xfmt_rmt_cursor_advance(&a->cur, take, n);
	return n;
}

unsigned xfmt_attr_rmt_asm_finish(struct xfmt_attr_rmt_asm *a, const struct xprob_sink *sink)
{
	if (a->cur.have >= a->valuelen)
		return 0;
	a->cur.findings++;
	return (unsigned)xprob_emit_val(sink, XP_attrRmtIncomplete, "valuelen", 0, a->valuelen,
					a->cur.have);
}

/* ------------------------------------------------------ field tables */

#define AF(n, o, s, k, v5, d) \
	{ .name = (n), .off = (o), .size = (s), .kind = (k), .v5only = (v5), .doc = (d) }

const struct xfmt_field xfmt_attr3_leaf_hdr_fields[] = {
	AF("hdr.info.hdr.forw", DA_FORW, 4, XFK_UINT, 0, "next leaf (attr block), 0 = none"),
	AF("hdr.info.hdr.back", DA_BACK, 4, XFK_UINT, 0, "previous leaf, 0 = none"),
	AF("hdr.info.hdr.magic", DA_MAGIC, 2, XFK_HEX, 0, "0x3bee: v5 attr leaf"),
	AF("hdr.info.crc", XFMT_ATTR_CRC_OFF, 4, XFK_CRC, 1, "CRC32c of the whole block"),
	AF("hdr.info.bno", DA_BLKNO, 8, XFK_UINT, 1, "daddr (512-byte sector) of this block"),
	AF("hdr.info.lsn", DA_LSN, 8, XFK_LSN, 1, "log sequence number of the last write"),
	AF("hdr.info.uuid", DA_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"),
	AF("hdr.info.owner", DA_OWNER, 8, XFK_UINT, 1, "inode whose attr fork holds this block"),
	AF("hdr.count", L5_COUNT, 2, XFK_UINT, 0, "entries in this leaf"),
	AF("hdr.usedbytes", L5_USEDBYTES, 2, XFK_UINT, 0, "bytes of name/value structures"),
	AF("hdr.firstused", L5_FIRSTUSED, 2, XFK_UINT, 0, "lowest name/value offset (0 = 65536)"),
	AF("hdr.holes", L5_HOLES, 1, XFK_UINT, 0, "non-zero if the name area has gaps"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_attr_leaf_hdr_fields[] = {
	AF("hdr.info.forw", DA_FORW, 4, XFK_UINT, 0, "next leaf (logical attr block), 0 = none"),
	AF("hdr.info.back", DA_BACK, 4, XFK_UINT, 0, "previous leaf, 0 = none"),
	AF("hdr.info.magic", DA_MAGIC, 2, XFK_HEX, 0, "0xfbee: v4 attr leaf"),
	AF("hdr.count", L4_COUNT, 2, XFK_UINT, 0, "entries in this leaf"),
	AF("hdr.usedbytes", L4_USEDBYTES, 2, XFK_UINT, 0, "bytes of name/value structures"),
	AF("hdr.firstused", L4_FIRSTUSED, 2, XFK_UINT, 0, "lowest name/value offset"),
	AF("hdr.holes", L4_HOLES, 1, XFK_UINT, 0, "non-zero if the name area has gaps"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_attr_leaf_hdr_fields_for(bool v5)
{
	return v5 ? xfmt_attr3_leaf_hdr_fields : xfmt_attr_leaf_hdr_fields;
}

const struct xfmt_field xfmt_attr3_rmt_hdr_fields[] = {
	AF("hdr.magic", XFMT_RMT_MAGIC_OFF, 4, XFK_HEX, 1, "0x5841524d \"XARM\""),
	AF("hdr.offset", XFMT_RMT_OFFSET_OFF, 4, XFK_UINT, 1,
	   "value offset of this block's first byte"),
	AF("hdr.bytes", XFMT_RMT_BYTES_OFF, 4, XFK_UINT, 1, "value bytes in this block"),
	AF("hdr.crc", XFMT_RMT_CRC_OFF, 4, XFK_CRC, 1, "CRC32c of this block"),
	AF("hdr.uuid", XFMT_RMT_UUID_OFF, 16, XFK_UUID, 1, "filesystem metadata uuid"),
	AF("hdr.owner", XFMT_RMT_OWNER_OFF, 8, XFK_UINT, 1, "inode whose attribute this is"),
	AF("hdr.bno", XFMT_RMT_BLKNO_OFF, 8, XFK_UINT, 1, "daddr (512-byte sector) of this block"),
	AF("hdr.lsn", XFMT_RMT_LSN_OFF, 8, XFK_LSN, 1, "NULLCOMMITLSN: written outside the log"),
	XFMT_FIELD_END
};

/* The DA node block, under the name xfs_db gives it in an attribute fork. */
const struct xfmt_field xfmt_attr3_node_hdr_fields[] = {
	XFMT_DA3_NODE_HDR_FIELDS("hdr"),
	XFMT_FIELD_END
};

const struct xfmt_field xfmt_attr_node_hdr_fields[] = {
	XFMT_DA_NODE_HDR_FIELDS("hdr"),
	XFMT_FIELD_END
};

const struct xfmt_field *xfmt_attr_node_hdr_fields_for(bool v5)
{
	return v5 ? xfmt_attr3_node_hdr_fields : xfmt_attr_node_hdr_fields;
}

const struct xfmt_field xfmt_attr_sf_hdr_fields[] = {
	AF("hdr.totsize", ASF_TOTSIZE, 2, XFK_UINT, 0, "bytes of the whole list, header included"),
	AF("hdr.count", ASF_COUNT, 1, XFK_UINT, 0, "attributes in the list"),
	XFMT_FIELD_END
};
