/*
 * dir2_sf.c - shortform directories: the entries packed into the inode's
 * data fork.  Facts: xfs-ondisk.md 7.2 and the kernel's xfs_dir2_sf_verify
 * (offsets increase, i8count matches, the list ends exactly at di_size, the
 * directory would fit one block).  Entry names are also checked here.
 */
#include "formats/dir2.h"

#include "formats/dir2_layout.h"
#include "formats/endian.h"

int xfmt_dir2_sf_hdr_decode(const uint8_t *sf, size_t size, struct xfmt_dir2_sf_hdr *out)
{
	*out = (struct xfmt_dir2_sf_hdr){ 0 };
	if (size < SF_PARENT)
		return -1;
	out->count = sf[SF_COUNT];
	out->i8count = sf[SF_I8COUNT];
	out->hdr_len = out->i8count ? XFMT_DIR2_SF_HDR8 : XFMT_DIR2_SF_HDR4;
	if (size < out->hdr_len) {
		*out = (struct xfmt_dir2_sf_hdr){ 0 };
		return -1;
	}
	/* Raw value: an 8-byte number with bits above 2^56 is flagged, not masked. */
	out->parent = out->i8count ? xfmt_get_be64(sf + SF_PARENT) : xfmt_get_be32(sf + SF_PARENT);
	return 0;
}

size_t xfmt_dir2_sf_entsize(const struct xfmt_geom *g, bool i8, unsigned namelen)
{
	return SFE_NAME + (size_t)namelen + (xfmt_geom_has_ftype(g) ? 1 : 0) + (i8 ? 8 : 4);
}

int xfmt_dir2_sf_next(const uint8_t *sf, size_t size, const struct xfmt_geom *g,
		      size_t *pos, struct xfmt_dirent *out)
{
	struct xfmt_dir2_sf_hdr h;
	size_t p, es;
	const uint8_t *e;
	bool ft = xfmt_geom_has_ftype(g);

	if (xfmt_dir2_sf_hdr_decode(sf, size, &h) < 0)
		return -1;
	if (*pos == 0)
		*pos = h.hdr_len;
	p = *pos;
	if (p >= size)
		return 0;
	if (p < h.hdr_len || size - p < SFE_NAME + 1)
		return -1;
	e = sf + p;
	if (e[SFE_NAMELEN] == 0)
		return -1;
	es = xfmt_dir2_sf_entsize(g, h.i8count != 0, e[SFE_NAMELEN]);
	if (es > size - p)
		return -1;
	*out = (struct xfmt_dirent){ 0 };
	out->namelen = e[SFE_NAMELEN];
	out->offset = xfmt_get_be16(e + SFE_OFFSET);
	out->name = e + SFE_NAME;
	out->ftype = ft ? e[SFE_NAME + out->namelen] : XFS_DIR3_FT_UNKNOWN;
	e += SFE_NAME + out->namelen + (ft ? 1 : 0);
	out->ino = h.i8count ? xfmt_get_be64(e) : xfmt_get_be32(e);
	*pos = p + es;
	return 1;
}

unsigned xfmt_dir2_sf_verify(const uint8_t *fork, size_t forksize, uint64_t di_size,
			     const struct xfmt_geom *g, const struct xprob_sink *sink)
{
	struct xfmt_dir2_sf_hdr h;
	struct xfmt_dirent de;
	unsigned n = 0, i8 = 0, i;
	size_t size = forksize, pos = 0;
	uint64_t next_off = xfmt_dir2_data_first_offset(g);
	bool broke = false;

	/* di_size says how many fork bytes are the directory. */
	if (di_size > forksize)
		n += (unsigned)xprob_emit_val(sink, XP_dirSfBadSize, "size", 0, forksize, di_size);
	else
		size = (size_t)di_size;
	if (xfmt_dir2_sf_hdr_decode(fork, size, &h) < 0 || size <= SF_PARENT) {
		size_t need = (size >= SF_PARENT && fork[SF_I8COUNT]) ? XFMT_DIR2_SF_HDR8
								       : XFMT_DIR2_SF_HDR4;
		return n + (unsigned)xprob_emit_val(sink, XP_dirSfTooShort, "size", 0, need, size);
	}

	if (!xfmt_dir2_ino_ok(g, h.parent))
		n += (unsigned)xprob_emit_obs(sink, XP_dirSfBadParent, "parent", SF_PARENT, h.parent);
	if (h.parent > XFS_DIR2_MAX_SHORT_INUM)
		i8++;

	for (i = 0; i < h.count; i++) {
		size_t at = pos ? pos : h.hdr_len;
		int dots;

		if (xfmt_dir2_sf_next(fork, size, g, &pos, &de) != 1) {
			/* Say why the walk cannot go on: a zero namelen, or no room. */
			if (at < size && size - at > SFE_NAMELEN && fork[at + SFE_NAMELEN] == 0)
				n += (unsigned)xprob_emit(sink, XP_dirBadNamelen, "namelen", at);
			else
				n += (unsigned)xprob_emit_val(sink, XP_dirSfEntryOverrun, NULL, at,
							      size, at);
			broke = true;
			break;
		}
		if (de.offset < next_off)
			n += (unsigned)xprob_emit_val(sink, XP_dirSfBadOffset, "offset",
						      at + SFE_OFFSET, next_off, de.offset);
		dots = xfmt_dir2_name_dots(de.name, de.namelen);
		if (dots)
			n += (unsigned)xprob_emit(sink, XP_dirDotMisplaced, dots == 1 ? "." : "..",
						  at);
		else if (!xfmt_dir2_name_ok(de.name, de.namelen))
			n += (unsigned)xprob_emit(sink, XP_dirBadName, "name", at + SFE_NAME);
		if (de.ino > XFS_DIR2_MAX_SHORT_INUM)
			i8++;
		if (!xfmt_dir2_ino_ok(g, de.ino))
			n += (unsigned)xprob_emit_obs(sink, XP_dirBadInumber, "inumber", at, de.ino);
		if (xfmt_geom_has_ftype(g) && de.ftype >= XFS_DIR3_FT_MAX)
			n += (unsigned)xprob_emit_obs(sink, XP_dirBadFtype, "filetype",
						      at + SFE_NAME + de.namelen, de.ftype);
		/* As the kernel: the next entry may not start before this one ends. */
		next_off = (uint64_t)de.offset + xfmt_dir2_data_entsize(g, de.namelen);
	}
	if (broke)
		return n;
	if (pos == 0)
		pos = h.hdr_len;

	if (i8 != h.i8count)
		n += (unsigned)xprob_emit_val(sink, XP_dirSfBadI8count, "i8count", SF_I8COUNT,
					      i8, h.i8count);
	if (di_size <= forksize && pos != size)
		n += (unsigned)xprob_emit_val(sink, XP_dirSfSizeMismatch, "size", pos, size, pos);
	/* It must fit one block: entries, count + 2 leaf entries and the tail. */
	if (next_off + ((uint64_t)h.count + 2) * XFMT_DIR2_LEAF_ENTRY + XFMT_DIR2_BLOCK_TAIL >
	    g->dirblksize)
		n += (unsigned)xprob_emit_val(sink, XP_dirSfTooBig, NULL, 0, g->dirblksize,
					      next_off + ((uint64_t)h.count + 2) * XFMT_DIR2_LEAF_ENTRY +
					      XFMT_DIR2_BLOCK_TAIL);
	return n;
}
