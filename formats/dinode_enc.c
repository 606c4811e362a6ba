/*
 * dinode_enc.c - writing inode cores (see dinode_enc.h).
 *
 * Offsets are those of the on-disk core (v2 layout through byte 99, the v3
 * extension after it); the decoder in dinode.c reads the same ones.
 */
#include "formats/dinode_enc.h"

#include <string.h>

#include "formats/crc32c.h"
#include "formats/endian.h"

enum {
	OFF_MAGIC = 0,
	OFF_MODE = 2,
	OFF_VERSION = 4,
	OFF_FORMAT = 5,
	OFF_NLINK = 16,
	OFF_BIG_NEXTENTS = 24,
	OFF_SIZE = 56,
	OFF_NBLOCKS = 64,
	OFF_NEXTENTS = 76,      /* NREXT64: attr extent count (be32) */
	OFF_ANEXTENTS = 80,     /* classic: be16; NREXT64: must be 0 */
	OFF_FORKOFF = 82,
	OFF_AFORMAT = 83,
	OFF_GEN = 92,
	OFF_NEXT_UNLINKED = 96,
	OFF_LSN = 112,
	OFF_FLAGS2 = 120,       /* v3 only */
	OFF_INO = 152,
	OFF_UUID = 160,
};

#define NULLAGINO 0xFFFFFFFFu

void xfmt_dinode_seal(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint64_t lsn)
{
	if (!g->v5)
		return;
	xfmt_put_be64(buf + OFF_LSN, lsn);
	xfmt_put_be64(buf + OFF_INO, ino);
	memcpy(buf + OFF_UUID, g->meta_uuid, 16);
	xfmt_crc_update(buf, g->inodesize, XFMT_DINODE_CRC_OFF);
}

void xfmt_dinode_free_encode(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint32_t gen,
			     uint64_t lsn)
{
	memset(buf, 0, g->inodesize);
	xfmt_put_be16(buf + OFF_MAGIC, XFS_DINODE_MAGIC);
	buf[OFF_VERSION] = g->v5 ? 3 : 2;
	/* A freed inode keeps extent-format (empty) forks, as the kernel's
	 * ifree leaves it; xfs_repair accepts nothing else for a free slot. */
	buf[OFF_FORMAT] = XFS_DINODE_FMT_EXTENTS;
	buf[OFF_AFORMAT] = XFS_DINODE_FMT_EXTENTS;
	xfmt_put_be32(buf + OFF_GEN, gen);
	xfmt_put_be32(buf + OFF_NEXT_UNLINKED, NULLAGINO);
	xfmt_dinode_seal(buf, g, ino, lsn);
}

void xfmt_dinode_put_nlink(uint8_t *buf, uint32_t nlink)
{
	xfmt_put_be32(buf + OFF_NLINK, nlink);
}

void xfmt_dinode_put_flags2(uint8_t *buf, uint64_t flags2)
{
	xfmt_put_be64(buf + OFF_FLAGS2, flags2);
}

void xfmt_dinode_put_size(uint8_t *buf, uint64_t size)
{
	xfmt_put_be64(buf + OFF_SIZE, size);
}

void xfmt_dinode_put_nblocks(uint8_t *buf, uint64_t nblocks)
{
	xfmt_put_be64(buf + OFF_NBLOCKS, nblocks);
}

void xfmt_dinode_put_nextents(uint8_t *buf, const struct xfmt_dinode *d, uint64_t n)
{
	if (d->nrext64)
		xfmt_put_be64(buf + OFF_BIG_NEXTENTS, n);
	else
		xfmt_put_be32(buf + OFF_NEXTENTS, (uint32_t)n);
}

void xfmt_dinode_put_anextents(uint8_t *buf, const struct xfmt_dinode *d, uint32_t n)
{
	if (d->nrext64)
		xfmt_put_be32(buf + OFF_NEXTENTS, n);
	else
		xfmt_put_be16(buf + OFF_ANEXTENTS, (uint16_t)n);
}

void xfmt_dinode_put_next_unlinked(uint8_t *buf, uint32_t agino)
{
	xfmt_put_be32(buf + OFF_NEXT_UNLINKED, agino);
}

void xfmt_dinode_put_format(uint8_t *buf, uint8_t format)
{
	buf[OFF_FORMAT] = format;
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
	buf[OFF_AFORMAT] = XFS_DINODE_FMT_EXTENTS;
	xfmt_dinode_put_anextents(buf, d, 0);
}
