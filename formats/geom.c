/*
 * geom.c - address arithmetic over a validated geometry.
 */
#include "formats/geom.h"

#define XFS_SB_FEAT_RO_COMPAT_FINOBT   0x1u
#define XFS_SB_FEAT_RO_COMPAT_RMAPBT   0x2u
#define XFS_SB_FEAT_RO_COMPAT_REFLINK  0x4u
#define XFS_SB_FEAT_RO_COMPAT_INOBTCNT 0x8u
#define XFS_SB_FEAT_INCOMPAT_FTYPE     0x01u
#define XFS_SB_FEAT_INCOMPAT_SPINODES  0x02u
#define XFS_SB_FEAT_INCOMPAT_BIGTIME   0x08u
#define XFS_SB_FEAT_INCOMPAT_NREXT64   0x20u
#define XFS_SB_FEAT_INCOMPAT_PARENT    0x80u
#define XFS_SB_FEAT_INCOMPAT_METADIR   0x100u
#define XFS_SB_VERSION2_FTYPE          0x200u
#define XFS_AGFL_V5_HDR                36u

bool xfmt_geom_has_finobt(const struct xfmt_geom *g)
{
	return g->v5 && (g->ro_compat & XFS_SB_FEAT_RO_COMPAT_FINOBT);
}

bool xfmt_geom_has_rmapbt(const struct xfmt_geom *g)
{
	return g->v5 && (g->ro_compat & XFS_SB_FEAT_RO_COMPAT_RMAPBT);
}

bool xfmt_geom_has_reflink(const struct xfmt_geom *g)
{
	return g->v5 && (g->ro_compat & XFS_SB_FEAT_RO_COMPAT_REFLINK);
}

bool xfmt_geom_has_inobtcnt(const struct xfmt_geom *g)
{
	return g->v5 && (g->ro_compat & XFS_SB_FEAT_RO_COMPAT_INOBTCNT);
}

bool xfmt_geom_has_sparse_inodes(const struct xfmt_geom *g)
{
	return g->v5 && (g->incompat & XFS_SB_FEAT_INCOMPAT_SPINODES);
}

bool xfmt_geom_has_ftype(const struct xfmt_geom *g)
{
	if (g->v5)
		return (g->incompat & XFS_SB_FEAT_INCOMPAT_FTYPE) != 0;
	return (g->features2 & XFS_SB_VERSION2_FTYPE) != 0;
}

bool xfmt_geom_has_bigtime(const struct xfmt_geom *g)
{
	return g->v5 && (g->incompat & XFS_SB_FEAT_INCOMPAT_BIGTIME);
}

bool xfmt_geom_has_nrext64(const struct xfmt_geom *g)
{
	return g->v5 && (g->incompat & XFS_SB_FEAT_INCOMPAT_NREXT64);
}

bool xfmt_geom_has_parent(const struct xfmt_geom *g)
{
	return g->v5 && (g->incompat & XFS_SB_FEAT_INCOMPAT_PARENT);
}

bool xfmt_geom_has_metadir(const struct xfmt_geom *g)
{
	return g->v5 && (g->incompat & XFS_SB_FEAT_INCOMPAT_METADIR);
}

uint32_t xfmt_geom_ag_length(const struct xfmt_geom *g, uint32_t agno)
{
	uint64_t start;

	if (agno >= g->agcount)
		return 0;
	start = (uint64_t)agno * g->agblocks;
	if (start >= g->dblocks)
		return 0;
	if (g->dblocks - start < g->agblocks)
		return (uint32_t)(g->dblocks - start);
	return g->agblocks;
}

uint64_t xfmt_geom_ag_byte(const struct xfmt_geom *g, uint32_t agno)
{
	return ((uint64_t)agno * g->agblocks) << g->blocklog;
}

uint64_t xfmt_geom_agbno_byte(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno)
{
	return ((uint64_t)agno * g->agblocks + agbno) << g->blocklog;
}

uint64_t xfmt_geom_agbno_daddr(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno)
{
	return xfmt_geom_agbno_byte(g, agno, agbno) >> XFS_BB_SHIFT;
}

uint64_t xfmt_geom_fsb(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno)
{
	return (uint64_t)agno << g->agblklog | agbno;
}

uint32_t xfmt_geom_fsb_agno(const struct xfmt_geom *g, uint64_t fsb)
{
	uint64_t agno = fsb >> g->agblklog;
	return agno > UINT32_MAX ? UINT32_MAX : (uint32_t)agno;
}

uint32_t xfmt_geom_fsb_agbno(const struct xfmt_geom *g, uint64_t fsb)
{
	return (uint32_t)(fsb & ((1ull << g->agblklog) - 1));
}

bool xfmt_geom_fsb_valid(const struct xfmt_geom *g, uint64_t fsb)
{
	uint32_t agno = xfmt_geom_fsb_agno(g, fsb);

	if (agno >= g->agcount)
		return false;
	return xfmt_geom_fsb_agbno(g, fsb) < xfmt_geom_ag_length(g, agno);
}

bool xfmt_geom_fsb_as_read(const struct xfmt_geom *g, uint64_t fsb, uint64_t *as_read)
{
	uint64_t agno = (fsb >> g->agblklog) & UINT32_MAX;
	uint64_t r;

	if (g->agblklog >= 32)
		return false;
	r = (agno << g->agblklog) | xfmt_geom_fsb_agbno(g, fsb);
	if (r == fsb || !xfmt_geom_fsb_valid(g, r))
		return false;
	*as_read = r;
	return true;
}

uint64_t xfmt_geom_fsb_byte(const struct xfmt_geom *g, uint64_t fsb)
{
	return xfmt_geom_agbno_byte(g, xfmt_geom_fsb_agno(g, fsb),
				    xfmt_geom_fsb_agbno(g, fsb));
}

unsigned xfmt_geom_agino_bits(const struct xfmt_geom *g)
{
	return (unsigned)g->agblklog + g->inopblog;
}

uint32_t xfmt_geom_ino_agno(const struct xfmt_geom *g, uint64_t ino)
{
	uint64_t agno = ino >> xfmt_geom_agino_bits(g);
	return agno > UINT32_MAX ? UINT32_MAX : (uint32_t)agno;
}

uint32_t xfmt_geom_ino_agino(const struct xfmt_geom *g, uint64_t ino)
{
	return (uint32_t)(ino & ((1ull << xfmt_geom_agino_bits(g)) - 1));
}

uint64_t xfmt_geom_ino(const struct xfmt_geom *g, uint32_t agno, uint32_t agino)
{
	return (uint64_t)agno << xfmt_geom_agino_bits(g) | agino;
}

uint32_t xfmt_geom_agino_agbno(const struct xfmt_geom *g, uint32_t agino)
{
	return agino >> g->inopblog;
}

uint32_t xfmt_geom_agino_slot(const struct xfmt_geom *g, uint32_t agino)
{
	return agino & ((1u << g->inopblog) - 1);
}

bool xfmt_geom_agino_valid(const struct xfmt_geom *g, uint32_t agno, uint32_t agino)
{
	if (agno >= g->agcount)
		return false;
	if (xfmt_geom_agino_bits(g) < 32 && (agino >> xfmt_geom_agino_bits(g)) != 0)
		return false;
	return xfmt_geom_agino_agbno(g, agino) < xfmt_geom_ag_length(g, agno);
}

bool xfmt_geom_ino_valid(const struct xfmt_geom *g, uint64_t ino)
{
	if (ino > XFS_MAXINUMBER)
		return false;
	return xfmt_geom_agino_valid(g, xfmt_geom_ino_agno(g, ino),
				     xfmt_geom_ino_agino(g, ino));
}

uint64_t xfmt_geom_ino_byte(const struct xfmt_geom *g, uint64_t ino)
{
	uint32_t agino = xfmt_geom_ino_agino(g, ino);

	return xfmt_geom_agbno_byte(g, xfmt_geom_ino_agno(g, ino),
				    xfmt_geom_agino_agbno(g, agino)) +
	       ((uint64_t)xfmt_geom_agino_slot(g, agino) << g->inodelog);
}

uint32_t xfmt_geom_chunk_blocks(const struct xfmt_geom *g)
{
	uint32_t n = (uint32_t)(((uint64_t)XFS_INODES_PER_CHUNK << g->inodelog) >> g->blocklog);
	return n ? n : 1;
}

uint32_t xfmt_geom_agfl_size(const struct xfmt_geom *g)
{
	if (g->v5)
		return (g->sectsize - XFS_AGFL_V5_HDR) / 4u;
	return g->sectsize / 4u;
}
