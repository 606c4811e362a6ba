/*
 * dinode_enc.c - writing inode cores (see dinode_enc.h).
 *
 * Offsets are those of the on-disk core (formats/dinode_layout.h), the ones
 * the decoder in dinode.c reads.
 */
#include "formats/dinode_enc.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/dinode_layout.h"
#include "formats/endian.h"


#define NULLAGINO 0xFFFFFFFFu

void xfmt_dinode_seal(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint64_t lsn)
{
	if (!g->v5)
		return;
	xfmt_put_be64(buf + DI_LSN, lsn);
	xfmt_put_be64(buf + DI_INO, ino);
	memcpy(buf + DI_UUID, g->meta_uuid, 16);
	xfmt_crc_update(buf, g->inodesize, XFMT_DINODE_CRC_OFF);
}

void xfmt_dinode_free_encode(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint32_t gen,
			     uint64_t lsn)
{
	memset(buf, 0, g->inodesize);
	xfmt_put_be16(buf + DI_MAGIC, XFS_DINODE_MAGIC);
	buf[DI_VERSION] = g->v5 ? 3 : 2;
	/* A freed inode keeps extent-format (empty) forks, as the kernel's
	 * ifree leaves it; xfs_repair accepts nothing else for a free slot. */
	buf[DI_FORMAT] = XFS_DINODE_FMT_EXTENTS;
	buf[DI_AFORMAT] = XFS_DINODE_FMT_EXTENTS;
	xfmt_put_be32(buf + DI_GEN, gen);
	xfmt_put_be32(buf + DI_NEXT_UNLINKED, NULLAGINO);
	xfmt_dinode_seal(buf, g, ino, lsn);
}

void xfmt_dinode_new_encode(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint16_t mode,
			    uint32_t nlink, uint16_t flags, uint64_t lsn)
{
	xfmt_dinode_free_encode(buf, g, ino, 0, lsn);
	xfmt_put_be16(buf + DI_MODE, mode);
	if ((mode & XFMT_S_IFMT) == XFMT_S_IFDIR) {
		/* an empty short-form directory: no entries, 4-byte parent
		 * numbers, ".." naming itself (as the root's does) */
		size_t fork = g->v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE;

		buf[DI_FORMAT] = XFS_DINODE_FMT_LOCAL;
		if (ino > UINT32_MAX) {
			buf[fork + 1] = 1;  /* i8count: 8-byte inode numbers */
			xfmt_put_be64(buf + fork + 2, ino);
			xfmt_put_be64(buf + DI_SIZE, 10);
		} else {
			xfmt_put_be32(buf + fork + 2, (uint32_t)ino);
			xfmt_put_be64(buf + DI_SIZE, 6);
		}
	}
	xfmt_put_be32(buf + DI_NLINK, nlink);
	xfmt_put_be16(buf + DI_FLAGS, flags);
	xfmt_dinode_seal(buf, g, ino, lsn);
}

void xfmt_dinode_tidy_kept_core(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino,
				const struct xfmt_dinode *d)
{
	struct xfmt_dinode now;

	buf[DI_VERSION] = g->v5 ? 3 : 2;
	/* (a metadata file's di_onlink is its type: on a directory it can
	 * only be the directory type) */
	if (!(d->version >= 3 && (d->flags2 & XFS_DIFLAG2_METADATA) && xfmt_geom_has_metadir(g)))
		xfmt_put_be16(buf + DI_ONLINK, 0);
	else if ((d->mode & XFMT_S_IFMT) == XFMT_S_IFDIR)
		xfmt_put_be16(buf + DI_ONLINK, XFS_METAFILE_DIR);
	xfmt_dinode_sanitize_flags(buf, g, ino, d);
	xfmt_dinode_zero_pads(buf, d);
	if (xfmt_dinode_decode(buf, g->inodesize, g, &now) == 0)
		xfmt_dinode_fix_times(buf, g, &now);
}

void xfmt_dinode_put_flags(uint8_t *buf, uint16_t flags)
{
	xfmt_put_be16(buf + DI_FLAGS, flags);
}

/* Largest extent length a bmbt record holds (the verifier's bound too). */
#define HINT_MAX 0x1FFFFFu

bool xfmt_dinode_sanitize_flags(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino,
				const struct xfmt_dinode *d)
{
	uint16_t type = d->mode & XFMT_S_IFMT;
	/* The bits this inode may carry at all come first: a realtime flag
	 * without a realtime device goes before it can rule out the flags2
	 * bits (reflink, CoW hint) a data-device file may have. */
	uint16_t flags = d->flags & XFS_DIFLAG_ANY & xfmt_dinode_flags_allowed(g, ino, d->mode);
	uint64_t flags2 = d->flags2;
	uint32_t extsize = d->extsize, cowext = d->cowextsize;
	bool rt = flags & XFS_DIFLAG_REALTIME, changed;

	if (type != XFMT_S_IFREG)
		flags &= (uint16_t)~XFS_DIFLAG_EXTSIZE;
	if (type != XFMT_S_IFDIR)
		flags &= (uint16_t)~XFS_DIFLAG_EXTSZINHERIT;
	if (!(flags & (XFS_DIFLAG_EXTSIZE | XFS_DIFLAG_EXTSZINHERIT)) || extsize == 0 ||
	    extsize > HINT_MAX || (!rt && extsize > g->agblocks / 2)) {
		flags &= (uint16_t)~(XFS_DIFLAG_EXTSIZE | XFS_DIFLAG_EXTSZINHERIT);
		extsize = 0;
	}
	if (xfmt_dinode_v3_core(d)) {
		flags2 &= XFS_DIFLAG2_ANY;
		if (!xfmt_geom_has_reflink(g))
			flags2 &= ~(XFS_DIFLAG2_REFLINK | XFS_DIFLAG2_COWEXTSIZE);
		if (type != XFMT_S_IFREG || rt)
			flags2 &= ~XFS_DIFLAG2_REFLINK;
		if ((type != XFMT_S_IFREG && type != XFMT_S_IFDIR) || rt)
			flags2 &= ~XFS_DIFLAG2_COWEXTSIZE;
		if (!xfmt_geom_has_bigtime(g))
			flags2 &= ~XFS_DIFLAG2_BIGTIME;
		if (type != XFMT_S_IFREG && type != XFMT_S_IFDIR)
			flags2 &= ~XFS_DIFLAG2_DAX;
		/* a metadata file only where a metadir tree can hold one, and
		 * never DAX */
		if (!xfmt_geom_has_metadir(g) || (type != XFMT_S_IFREG && type != XFMT_S_IFDIR))
			flags2 &= ~XFS_DIFLAG2_METADATA;
		if (flags2 & XFS_DIFLAG2_METADATA)
			flags2 &= ~XFS_DIFLAG2_DAX;
		if (!(flags2 & XFS_DIFLAG2_COWEXTSIZE) || cowext == 0 || cowext > HINT_MAX ||
		    cowext > g->agblocks / 2) {
			flags2 &= ~XFS_DIFLAG2_COWEXTSIZE;
			cowext = 0;
		}
	}
	changed = flags != d->flags || extsize != d->extsize;
	xfmt_put_be16(buf + DI_FLAGS, flags);
	xfmt_put_be32(buf + DI_EXTSIZE, extsize);
	/* Large extent counts on a filesystem without them: no kernel wrote
	 * the inode so, its counters are in the small layout; only the flag
	 * is wrong. */
	if (xfmt_dinode_v3_core(d) && (d->flags2 & XFS_DIFLAG2_NREXT64) && !xfmt_geom_has_nrext64(g))
		flags2 &= ~XFS_DIFLAG2_NREXT64;
	if (xfmt_dinode_v3_core(d)) {
		changed = changed || flags2 != d->flags2 || cowext != d->cowextsize;
		xfmt_put_be64(buf + DI_FLAGS2, flags2);
		xfmt_put_be32(buf + DI_COWEXTSIZE, cowext);
	}
	return changed;
}

bool xfmt_dinode_fix_times(uint8_t *buf, const struct xfmt_geom *g, const struct xfmt_dinode *d)
{
	/* bigtime: nanoseconds since 1901-12-13T20:45:52Z (2^31 s before 1970) */
	const uint64_t epoch = 2147483648ull, lo = epoch * 1000000000ull,
		       hi = (epoch + 4102444800ull) * 1000000000ull;  /* 2100-01-01 */
	size_t offs[4] = { DI_ATIME, DI_MTIME, DI_CTIME, DI_CRTIME };
	unsigned n = xfmt_dinode_v3_core(d) ? 4 : 3;
	bool plausible = xfmt_dinode_v3_core(d) && xfmt_geom_has_bigtime(g) && !d->bigtime, changed = false;

	if (d->bigtime)
		return false;
	for (unsigned i = 0; i < n && plausible; i++) {
		uint64_t v = xfmt_get_be64(buf + offs[i]);

		plausible = v >= lo && v < hi;
	}
	if (plausible) {
		xfmt_put_be64(buf + DI_FLAGS2, d->flags2 | XFS_DIFLAG2_BIGTIME);
		return true;
	}
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_get_be32(buf + offs[i] + 4) >= 1000000000u) {
			xfmt_put_be32(buf + offs[i] + 4, 0);
			changed = true;
		}
	}
	return changed;
}

void xfmt_dinode_zero_pads(uint8_t *buf, const struct xfmt_dinode *d)
{
	if (!xfmt_dinode_v3_core(d))
		return;
	if (d->nrext64)
		memset(buf + DI_ANEXTENTS, 0, 2);
	else
		memset(buf + DI_BIG_NEXTENTS, 0, 8);
	memset(buf + DI_PAD2, 0, DI_CRTIME - DI_PAD2);
}

void xfmt_dinode_put_nlink(uint8_t *buf, uint32_t nlink)
{
	xfmt_put_be32(buf + DI_NLINK, nlink);
}

void xfmt_dinode_put_flags2(uint8_t *buf, uint64_t flags2)
{
	xfmt_put_be64(buf + DI_FLAGS2, flags2);
}

void xfmt_dinode_unmark_metadata(uint8_t *buf, const struct xfmt_dinode *d)
{
	if (d->version < 3)
		return;
	xfmt_put_be64(buf + DI_FLAGS2, d->flags2 & ~XFS_DIFLAG2_METADATA);
	xfmt_put_be16(buf + DI_ONLINK, 0);
}

void xfmt_dinode_tidy_metafile(uint8_t *buf, const struct xfmt_dinode *d)
{
	if (d->version < 3 || !(d->flags2 & XFS_DIFLAG2_METADATA))
		return;
	xfmt_put_be16(buf + DI_FLAGS, (uint16_t)(d->flags | xfmt_dinode_metafile_flags(d->mode)));
	xfmt_put_be16(buf + DI_MODE, (uint16_t)(d->mode & ~07777u));
	xfmt_put_be32(buf + DI_UID, 0);
	xfmt_put_be32(buf + DI_GID, 0);
	xfmt_put_be32(buf + DI_DMEVMASK, 0);
	xfmt_put_be16(buf + DI_DMSTATE, 0);
}

void xfmt_dinode_mark_metadata(uint8_t *buf, const struct xfmt_dinode *d, uint16_t metatype)
{
	struct xfmt_dinode m = *d;

	if (d->version < 3)
		return;
	m.flags2 |= XFS_DIFLAG2_METADATA;
	xfmt_put_be64(buf + DI_FLAGS2, m.flags2);
	xfmt_put_be16(buf + DI_ONLINK, metatype);
	xfmt_dinode_tidy_metafile(buf, &m);
}

void xfmt_dinode_put_size(uint8_t *buf, uint64_t size)
{
	xfmt_put_be64(buf + DI_SIZE, size);
}

void xfmt_dinode_put_nblocks(uint8_t *buf, uint64_t nblocks)
{
	xfmt_put_be64(buf + DI_NBLOCKS, nblocks);
}

void xfmt_dinode_put_nextents(uint8_t *buf, const struct xfmt_dinode *d, uint64_t n)
{
	if (d->nrext64)
		xfmt_put_be64(buf + DI_BIG_NEXTENTS, n);
	else
		xfmt_put_be32(buf + DI_NEXTENTS, (uint32_t)n);
}

void xfmt_dinode_put_anextents(uint8_t *buf, const struct xfmt_dinode *d, uint32_t n)
{
	if (d->nrext64)
		xfmt_put_be32(buf + DI_NEXTENTS, n);
	else
		xfmt_put_be16(buf + DI_ANEXTENTS, (uint16_t)n);
}

void xfmt_dinode_put_next_unlinked(uint8_t *buf, uint32_t agino)
{
	xfmt_put_be32(buf + DI_NEXT_UNLINKED, agino);
}

void xfmt_dinode_put_gen(uint8_t *buf, uint32_t gen)
{
	xfmt_put_be32(buf + DI_GEN, gen);
}

void xfmt_dinode_put_aformat(uint8_t *buf, uint8_t aformat)
{
	buf[DI_AFORMAT] = aformat;
}

void xfmt_dinode_put_format(uint8_t *buf, uint8_t format)
{
	buf[DI_FORMAT] = format;
}

void xfmt_dinode_put_forkoff(uint8_t *buf, uint8_t forkoff)
{
	buf[DI_FORKOFF] = forkoff;
}

void xfmt_dinode_drop_attr_fork(uint8_t *buf, const struct xfmt_geom *g,
				const struct xfmt_dinode *d)
{
	if (d->has_attr_fork && d->afork_off < g->inodesize && d->afork_size <= g->inodesize &&
	    d->afork_off + d->afork_size <= g->inodesize)
		memset(buf + d->afork_off, 0, d->afork_size);
	/* forkoff stays: the data fork keeps its size, so a btree root in it
	 * keeps its layout; an empty extents-format attr fork is what the
	 * kernel itself leaves after the last attribute goes. */
	buf[DI_AFORMAT] = XFS_DINODE_FMT_EXTENTS;
	xfmt_dinode_put_anextents(buf, d, 0);
}
