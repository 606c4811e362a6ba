/*
 * dir2_data.c - directory data blocks (XDD3 / v4 XD2D) and single-block
 * directories (XDB3 / v4 XD2B): header, record walk (entries and unused
 * regions), block tail and block leaf array, and their verifiers.
 * Facts: xfs-ondisk.md 7.3/7.4 and the kernel's __xfs_dir3_data_check and
 * xfs_dir2_data_freefind_verify; unlike the kernel, every failed check is
 * reported, and a block-form leaf entry must point at the entry it hashes.
 */
#include "formats/dir2.h"

#include <string.h>

#include "formats/dahash.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"

/* Records. */
#define DIR_MIN_REC    8u   /* the smallest record (an 8-byte unused region) */

/* Largest directory block (64 KiB); sizes the per-block bitmaps below. */
#define DIR_MAX_BLKSIZE 65536u

static const char *const bf_off_names[XFS_DIR2_DATA_FD_COUNT] = {
	"bestfree[0].offset", "bestfree[1].offset", "bestfree[2].offset",
};
static const char *const bf_len_names[XFS_DIR2_DATA_FD_COUNT] = {
	"bestfree[0].length", "bestfree[1].length", "bestfree[2].length",
};

int xfmt_dir2_data_hdr_decode(const uint8_t *buf, size_t len, bool v5,
			      struct xfmt_dir2_data_hdr *out)
{
	size_t bf = v5 ? DH3_BESTFREE : DH2_BESTFREE;

	memset(out, 0, sizeof(*out));
	out->hdr_len = v5 ? XFMT_DIR3_DATA_HDR : XFMT_DIR2_DATA_HDR;
	if (len < out->hdr_len) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->v5 = v5;
	out->magic = xfmt_get_be32(buf + DH_MAGIC);
	if (v5) {
		out->crc = xfmt_get_le32(buf + 4);
		out->blkno = xfmt_get_be64(buf + 8);
		out->lsn = xfmt_get_be64(buf + 16);
		memcpy(out->uuid, buf + 24, 16);
		out->owner = xfmt_get_be64(buf + 40);
		out->pad = xfmt_get_be32(buf + DH3_PAD);
	}
	for (unsigned i = 0; i < XFS_DIR2_DATA_FD_COUNT; i++) {
		out->bestfree[i].offset = xfmt_get_be16(buf + bf + 4 * i);
		out->bestfree[i].length = xfmt_get_be16(buf + bf + 4 * i + 2);
	}
	return 0;
}

int xfmt_dir2_block_tail_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				struct xfmt_dir2_block_tail *out)
{
	size_t tail = g->dirblksize - XFMT_DIR2_BLOCK_TAIL;

	memset(out, 0, sizeof(*out));
	if (len < g->dirblksize || g->dirblksize < XFMT_DIR2_BLOCK_TAIL)
		return -1;
	out->count = xfmt_get_be32(buf + tail);
	out->stale = xfmt_get_be32(buf + tail + 4);
	/* The kernel's bound: count < max, so at least one record fits. */
	if (out->count >= xfmt_dir2_block_max_leaf(g))
		return -1;
	out->leaf_off = tail - (size_t)out->count * XFMT_DIR2_LEAF_ENTRY;
	return 0;
}

size_t xfmt_dir2_data_end(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			  bool block_form)
{
	struct xfmt_dir2_block_tail t;

	if (len < g->dirblksize || g->dirblksize <= xfmt_dir2_data_hdr_len(g))
		return 0;
	if (!block_form)
		return g->dirblksize;
	if (xfmt_dir2_block_tail_decode(buf, len, g, &t) < 0)
		return 0;
	return t.leaf_off;
}

int xfmt_dir2_block_leaf(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			 const struct xfmt_dir2_block_tail *tail, unsigned i,
			 uint32_t *hashval, uint32_t *address)
{
	uint64_t off = (uint64_t)tail->leaf_off + (uint64_t)i * XFMT_DIR2_LEAF_ENTRY;

	if (tail->leaf_off == 0 || off + XFMT_DIR2_LEAF_ENTRY > len ||
	    off + XFMT_DIR2_LEAF_ENTRY > g->dirblksize)
		return -1;
	*hashval = xfmt_get_be32(buf + off);
	*address = xfmt_get_be32(buf + off + 4);
	return 0;
}

/* --------------------------------------------------------- record walk */

/* Why a record could not be parsed. */
enum rec_err {
	REC_OK,
	REC_SHORT,        /* fewer than 8 bytes before the end */
	REC_UNUSED_LEN,   /* unused length 0 or not a multiple of 8 */
	REC_NAMELEN0,
	REC_OVERRUN,      /* the record's size reaches past the end */
};

/* Parse the record at p (p < end, both inside blk).  *rec_end: where it would end. */
static enum rec_err rec_parse(const uint8_t *blk, size_t end, const struct xfmt_geom *g,
			      size_t p, struct xfmt_dir2_rec *out, uint64_t *rec_end)
{
	bool ft = xfmt_geom_has_ftype(g);
	size_t sz;

	*rec_end = p;
	if (end - p < DIR_MIN_REC)
		return REC_SHORT;
	memset(out, 0, sizeof(*out));
	out->offset = (uint32_t)p;
	if (xfmt_get_be16(blk + p + DU_FREETAG) == XFS_DIR2_DATA_FREE_TAG) {
		sz = xfmt_get_be16(blk + p + DU_LENGTH);
		*rec_end = p + sz;
		if (sz == 0 || sz % XFS_DIR2_DATA_ALIGN)
			return REC_UNUSED_LEN;
		if (sz > end - p)
			return REC_OVERRUN;
		out->kind = XFMT_DIR2_REC_UNUSED;
	} else {
		uint8_t namelen;

		/* Room for the smallest entry before its namelen byte is read. */
		if (end - p < xfmt_dir2_data_entsize(g, 1)) {
			*rec_end = p + xfmt_dir2_data_entsize(g, 1);
			return REC_OVERRUN;
		}
		namelen = blk[p + DE_NAMELEN];
		if (namelen == 0)
			return REC_NAMELEN0;
		sz = xfmt_dir2_data_entsize(g, namelen);
		*rec_end = p + sz;
		if (sz > end - p)
			return REC_OVERRUN;
		out->kind = XFMT_DIR2_REC_ENTRY;
		out->ent.ino = xfmt_get_be64(blk + p + DE_INUMBER);
		out->ent.namelen = namelen;
		out->ent.name = blk + p + DE_NAME;
		out->ent.ftype = ft ? blk[p + DE_NAME + namelen] : XFS_DIR3_FT_UNKNOWN;
		out->ent.offset = (uint32_t)p;
	}
	out->length = (uint32_t)sz;
	out->tag = xfmt_get_be16(blk + p + sz - 2);
	out->ent.tag = out->kind == XFMT_DIR2_REC_ENTRY ? out->tag : 0;
	return REC_OK;
}

int xfmt_dir2_data_rec_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			    bool block_form, size_t *pos, struct xfmt_dir2_rec *out)
{
	size_t end = xfmt_dir2_data_end(blk, len, g, block_form);
	size_t hdr = xfmt_dir2_data_hdr_len(g);
	uint64_t rec_end;

	if (end == 0)
		return -1;
	if (*pos == 0)
		*pos = hdr;
	if (*pos >= end)
		return 0;
	if (*pos < hdr || rec_parse(blk, end, g, *pos, out, &rec_end) != REC_OK)
		return -1;
	*pos += out->length;   /* length >= 8: the walk always moves on */
	return 1;
}

int xfmt_dir2_data_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			bool block_form, size_t *pos, struct xfmt_dirent *out)
{
	struct xfmt_dir2_rec rec;
	int r;

	while ((r = xfmt_dir2_data_rec_next(blk, len, g, block_form, pos, &rec)) == 1) {
		if (rec.kind == XFMT_DIR2_REC_ENTRY) {
			*out = rec.ent;
			return 1;
		}
	}
	return r;
}

/* A record that parses at p and is tagged with its own offset. */
static bool tagged_rec_at(const uint8_t *blk, size_t end, const struct xfmt_geom *g, size_t p)
{
	struct xfmt_dir2_rec rec;
	uint64_t rec_end;

	return rec_parse(blk, end, g, p, &rec, &rec_end) == REC_OK && rec.tag == p;
}

int xfmt_dir2_data_next_resync(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			       bool block_form, size_t *pos, struct xfmt_dirent *out,
			       bool *skipped)
{
	size_t end = xfmt_dir2_data_end(blk, len, g, block_form);
	size_t hdr = xfmt_dir2_data_hdr_len(g);

	if (end == 0)
		return 0;
	if (*pos == 0)
		*pos = hdr;
	while (*pos < end) {
		struct xfmt_dir2_rec rec;
		size_t at = *pos, next;
		int r = xfmt_dir2_data_rec_next(blk, len, g, block_form, pos, &rec);

		if (r == 0)
			return 0;
		if (r == 1) {
			next = rec.offset + rec.length;
			/* believed: its own tag, or a sound successor (only the
			 * tag was hit) */
			if (rec.tag == rec.offset || next >= end || tagged_rec_at(blk, end, g, next)) {
				if (rec.kind == XFMT_DIR2_REC_ENTRY) {
					*out = rec.ent;
					return 1;
				}
				continue;
			}
		}
		/* resync: the next slot that holds a tagged record */
		*skipped = true;
		for (*pos = at + XFS_DIR2_DATA_ALIGN; *pos < end; *pos += XFS_DIR2_DATA_ALIGN)
			if (tagged_rec_at(blk, end, g, *pos))
				break;
	}
	return 0;
}

int xfmt_dir2_unused_next(const uint8_t *blk, size_t len, const struct xfmt_geom *g,
			  bool block_form, size_t *pos, struct xfmt_dir2_unused *out)
{
	struct xfmt_dir2_rec rec;
	int r;

	while ((r = xfmt_dir2_data_rec_next(blk, len, g, block_form, pos, &rec)) == 1) {
		if (rec.kind == XFMT_DIR2_REC_UNUSED) {
			out->offset = rec.offset;
			out->length = rec.length;
			out->tag = rec.tag;
			return 1;
		}
	}
	return r;
}

/* ----------------------------------------------------------- verifiers */

static inline void bit_set(uint8_t *map, size_t off)
{
	map[off / 8 / 8] |= (uint8_t)(1u << ((off / 8) % 8));
}

static inline bool bit_get(const uint8_t *map, size_t off)
{
	return (map[off / 8 / 8] >> ((off / 8) % 8)) & 1u;
}

/* What the record walk learned, for the block-form leaf checks. */
struct walk {
	size_t  stop;        /* records before this offset were seen */
	bool    complete;    /* the walk reached the end of the record area */
	unsigned entries;
	uint8_t is_entry[DIR_MAX_BLKSIZE / 64];  /* one bit per 8-byte slot */
};

/* Report why the record at p could not be parsed. */
static unsigned report_bad_rec(enum rec_err err, size_t p, uint64_t rec_end, size_t end,
			       const uint8_t *blk, const struct xprob_sink *sink)
{
	switch (err) {
	case REC_UNUSED_LEN:
		return (unsigned)xprob_emit_obs(sink, XP_dirBadUnusedLength, "length",
						p + DU_LENGTH, xfmt_get_be16(blk + p + DU_LENGTH));
	case REC_NAMELEN0:
		return (unsigned)xprob_emit(sink, XP_dirBadNamelen, "namelen", p + DE_NAMELEN);
	case REC_SHORT:
		rec_end = p + DIR_MIN_REC;
		/* fall through */
	default:
		return (unsigned)xprob_emit_val(sink, XP_dirRecordOverrun, NULL, p, end, rec_end);
	}
}

/* Checks of one live entry at rec->offset. */
static unsigned check_entry(const struct xfmt_geom *g,
			    const struct xfmt_da_expect *exp, const struct xfmt_dir2_rec *rec,
			    bool *saw_dot, bool *saw_dotdot, const struct xprob_sink *sink)
{
	const struct xfmt_dirent *de = &rec->ent;
	size_t hdr = xfmt_dir2_data_hdr_len(g);
	bool block0 = xfmt_dir2_da_to_db(g, exp->dablk) == 0;
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);
	unsigned n = 0;

	/* "." and ".." are the first two records of data block 0 and nowhere else. */
	if (dots == 1 && block0 && rec->offset == hdr) {
		*saw_dot = true;
		if (de->ino != exp->owner)
			n += (unsigned)xprob_emit_val(sink, XP_dirBadDotIno, "inumber",
						      rec->offset, exp->owner, de->ino);
	} else if (dots == 2 && block0 && rec->offset == hdr + xfmt_dir2_data_entsize(g, 1)) {
		*saw_dotdot = true;
	} else if (dots) {
		n += (unsigned)xprob_emit(sink, XP_dirDotMisplaced, dots == 1 ? "." : "..",
					  rec->offset);
	} else if (!xfmt_dir2_name_ok(de->name, de->namelen)) {
		n += (unsigned)xprob_emit(sink, XP_dirBadName, "name", rec->offset + DE_NAME);
	}
	if (!xfmt_dir2_ino_ok(g, de->ino))
		n += (unsigned)xprob_emit_obs(sink, XP_dirBadInumber, "inumber", rec->offset,
					      de->ino);
	if (xfmt_geom_has_ftype(g) && de->ftype >= XFS_DIR3_FT_MAX)
		n += (unsigned)xprob_emit_obs(sink, XP_dirBadFtype, "filetype",
					      rec->offset + DE_NAME + de->namelen, de->ftype);
	return n;
}

/*
 * The checks common to data and block-form blocks, over the record area
 * [hdr, end).  Fills *w for the leaf checks.
 */
static unsigned data_check(const uint8_t *buf, const struct xfmt_geom *g,
			   const struct xfmt_da_expect *exp, size_t end, struct walk *w,
			   const struct xprob_sink *sink)
{
	struct xfmt_dir2_data_hdr h;
	struct xfmt_dir2_rec rec;
	size_t hdr = xfmt_dir2_data_hdr_len(g);
	size_t bf_base = g->v5 ? DH3_BESTFREE : DH2_BESTFREE;
	size_t p = hdr;
	bool matched[XFS_DIR2_DATA_FD_COUNT] = { false, false, false };
	bool seen_empty = false, lastfree = false, saw_dot = false, saw_dotdot = false;
	unsigned n = 0;

	(void)xfmt_dir2_data_hdr_decode(buf, g->dirblksize, g->v5, &h);
	if (g->v5 && h.pad != 0)
		n += (unsigned)xprob_emit_obs(sink, XP_daNonzeroPad, "pad", DH3_PAD, h.pad);

	/* The table on its own: empty slots are (0,0) and last; longest first. */
	for (unsigned i = 0; i < XFS_DIR2_DATA_FD_COUNT; i++) {
		const struct xfmt_dir2_bestfree *bf = &h.bestfree[i];

		if (bf->length == 0) {
			if (bf->offset != 0)
				n += (unsigned)xprob_emit_obs(sink, XP_dirBestfreeBad, bf_off_names[i],
							      bf_base + 4 * i, bf->offset);
			seen_empty = true;
			continue;
		}
		if (seen_empty || (i > 0 && bf->length > h.bestfree[i - 1].length))
			n += (unsigned)xprob_emit_obs(sink, XP_dirBestfreeOrder, bf_len_names[i],
						      bf_base + 4 * i + 2, bf->length);
	}

	memset(w, 0, sizeof(*w));
	while (p < end) {
		uint64_t rec_end;
		enum rec_err err = rec_parse(buf, end, g, p, &rec, &rec_end);

		if (err != REC_OK) {
			n += report_bad_rec(err, p, rec_end, end, buf, sink);
			break;
		}
		if (rec.tag != rec.offset)
			n += (unsigned)xprob_emit_val(sink, XP_dirBadTag, "tag",
						      rec.offset + rec.length - 2, rec.offset, rec.tag);
		if (rec.kind == XFMT_DIR2_REC_UNUSED) {
			bool listed = false;

			if (lastfree)
				n += (unsigned)xprob_emit(sink, XP_dirAdjacentUnused, NULL, rec.offset);
			lastfree = true;
			for (unsigned i = 0; i < XFS_DIR2_DATA_FD_COUNT; i++) {
				const struct xfmt_dir2_bestfree *bf = &h.bestfree[i];

				if (bf->length == 0 || bf->offset != rec.offset || matched[i])
					continue;
				listed = matched[i] = true;
				if (bf->length != rec.length)
					n += (unsigned)xprob_emit_val(sink, XP_dirBestfreeBad,
								      bf_len_names[i], bf_base + 4 * i + 2,
								      rec.length, bf->length);
				/* A second slot naming the same region stays unmatched. */
				break;
			}
			/* Ties are legal: an unlisted region may equal the shortest listed. */
			if (!listed && rec.length > h.bestfree[XFS_DIR2_DATA_FD_COUNT - 1].length)
				n += (unsigned)xprob_emit_val(sink, XP_dirBestfreeMissing, NULL,
							      rec.offset,
							      h.bestfree[XFS_DIR2_DATA_FD_COUNT - 1].length,
							      rec.length);
		} else {
			lastfree = false;
			w->entries++;
			bit_set(w->is_entry, rec.offset);
			n += check_entry(g, exp, &rec, &saw_dot, &saw_dotdot, sink);
		}
		p += rec.length;
	}
	w->stop = p;
	w->complete = p >= end;

	/* A listed slot must name a region, as far as the walk could see. */
	for (unsigned i = 0; i < XFS_DIR2_DATA_FD_COUNT; i++) {
		const struct xfmt_dir2_bestfree *bf = &h.bestfree[i];

		if (bf->length != 0 && !matched[i] && (w->complete || bf->offset < w->stop))
			n += (unsigned)xprob_emit_obs(sink, XP_dirBestfreeBad, bf_off_names[i],
						      bf_base + 4 * i, bf->offset);
	}
	if (xfmt_dir2_da_to_db(g, exp->dablk) == 0) {
		if (!saw_dot && (w->complete || w->stop > hdr))
			n += (unsigned)xprob_emit(sink, XP_dirMissingDot, ".", hdr);
		if (!saw_dotdot && (w->complete || w->stop > hdr + xfmt_dir2_data_entsize(g, 1)))
			n += (unsigned)xprob_emit(sink, XP_dirMissingDot, "..",
						  hdr + xfmt_dir2_data_entsize(g, 1));
	}
	return n;
}

unsigned xfmt_dir2_data_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			       const struct xfmt_da_expect *exp,
			       const struct xprob_sink *sink)
{
	struct walk w;
	unsigned n;

	n = xfmt_dir3_blkhdr_verify(buf, len, g, g->v5 ? XFS_DIR3_DATA_MAGIC : XFS_DIR2_DATA_MAGIC,
				    exp, sink);
	if (len < g->dirblksize || g->dirblksize > DIR_MAX_BLKSIZE ||
	    g->dirblksize <= xfmt_dir2_data_hdr_len(g))
		return n;
	return n + data_check(buf, g, exp, g->dirblksize, &w, sink);
}

/* The leaf array of a block-form block against the records the walk saw. */
static unsigned block_leaf_check(const uint8_t *buf, const struct xfmt_geom *g,
				 const struct xfmt_dir2_block_tail *t, const struct walk *w,
				 const struct xprob_sink *sink)
{
	uint8_t has_leaf[DIR_MAX_BLKSIZE / 64];
	size_t tail = g->dirblksize - XFMT_DIR2_BLOCK_TAIL;
	uint32_t prev = 0, stale = 0;
	unsigned n = 0;

	memset(has_leaf, 0, sizeof(has_leaf));
	for (unsigned i = 0; i < t->count; i++) {
		uint32_t hash, addr, off;

		if (xfmt_dir2_block_leaf(buf, g->dirblksize, g, t, i, &hash, &addr) < 0)
			break;
		if (i > 0 && hash < prev)
			n += (unsigned)xprob_emit_val(sink, XP_daHashOrder, "hashval", i, prev, hash);
		prev = hash;
		if (addr == XFS_DIR2_NULL_DATAPTR) {
			stale++;
			continue;
		}
		off = xfmt_dir2_dataptr_to_off(g, addr);
		/* Beyond where a broken walk stopped nothing can be said. */
		if (xfmt_dir2_dataptr_to_db(g, addr) == 0 && off >= w->stop && !w->complete)
			continue;
		if (xfmt_dir2_dataptr_to_db(g, addr) != 0 || off >= t->leaf_off ||
		    !bit_get(w->is_entry, off)) {
			n += (unsigned)xprob_emit_obs(sink, XP_dirLeafBadAddress, "address", i, addr);
			continue;
		}
		if (bit_get(has_leaf, off))
			n += (unsigned)xprob_emit_obs(sink, XP_dirLeafDupAddress, "address", i, addr);
		bit_set(has_leaf, off);
		/* The walk proved the entry at off is whole, so its name is in bounds. */
		{
			uint32_t want = xfmt_dir2_hashname(g, buf + off + DE_NAME, buf[off + DE_NAMELEN]);

			if (want != hash)
				n += (unsigned)xprob_emit_val(sink, XP_dirLeafBadHash, "hashval", i,
							      want, hash);
		}
	}
	if (stale != t->stale)
		n += (unsigned)xprob_emit_val(sink, XP_dirLeafBadStale, "stale", tail + 4, stale,
					      t->stale);
	if (w->complete) {
		int64_t live = (int64_t)t->count - (int64_t)t->stale;

		for (size_t off = xfmt_dir2_data_hdr_len(g); off < t->leaf_off; off += 8)
			if (bit_get(w->is_entry, off) && !bit_get(has_leaf, off))
				n += (unsigned)xprob_emit(sink, XP_dirLeafMissing, NULL, off);
		if (live != (int64_t)w->entries)
			n += (unsigned)xprob_emit_val(sink, XP_dirLeafBadLive, "count", tail,
						      w->entries, (uint64_t)live);
	}
	return n;
}

unsigned xfmt_dir2_block_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				const struct xfmt_da_expect *exp,
				const struct xprob_sink *sink)
{
	struct xfmt_dir2_block_tail t;
	struct walk w;
	unsigned n;

	n = xfmt_dir3_blkhdr_verify(buf, len, g,
				    g->v5 ? XFS_DIR3_BLOCK_MAGIC : XFS_DIR2_BLOCK_MAGIC, exp, sink);
	if (len < g->dirblksize || g->dirblksize > DIR_MAX_BLKSIZE ||
	    g->dirblksize <= xfmt_dir2_data_hdr_len(g) + XFMT_DIR2_BLOCK_TAIL)
		return n;
	if (xfmt_dir2_block_tail_decode(buf, len, g, &t) < 0) {
		/* Without a believable count the entry area has no known end. */
		return n + (unsigned)xprob_emit_val(sink, XP_dirBlockBadCount, "count",
						    g->dirblksize - XFMT_DIR2_BLOCK_TAIL,
						    xfmt_dir2_block_max_leaf(g) - 1, t.count);
	}
	n += data_check(buf, g, exp, t.leaf_off, &w, sink);
	return n + block_leaf_check(buf, g, &t, &w, sink);
}
