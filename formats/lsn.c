/*
 * lsn.c - LSN order and the LSN of any v5 metadata block (see lsn.h).
 */
#include "formats/lsn.h"

#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/attr.h"
#include "formats/btree.h"
#include "formats/danode.h"
#include "formats/dir2.h"
#include "formats/endian.h"
#include "formats/symlink.h"

/*
 * Cycle and block as the kernel reads them: signed.  A negative cycle is
 * never ahead; a negative block only loses to the head's within the same
 * cycle (a later cycle is ahead whatever its block says: xfs_repair -n
 * reports 2:-16 ahead of 1:13810).
 */
static bool lsn_usable(uint64_t lsn, int32_t *cycle, int32_t *block)
{
	if (lsn == XFMT_NULLCOMMITLSN)
		return false;
	*cycle = (int32_t)(uint32_t)(lsn >> 32);
	*block = (int32_t)(uint32_t)lsn;
	return *cycle >= 0;
}

bool xfmt_lsn_ahead(uint64_t lsn, uint64_t head)
{
	int32_t c, b, hc, hb;

	if (!lsn_usable(lsn, &c, &b) || !lsn_usable(head, &hc, &hb))
		return false;
	return c > hc || (c == hc && b >= hb);
}

uint64_t xfmt_lsn_later(uint64_t a, uint64_t b)
{
	int32_t ac, ab, bc, bb;

	if (!lsn_usable(a, &ac, &ab))
		return lsn_usable(b, &bc, &bb) ? b : 0;
	if (!lsn_usable(b, &bc, &bb))
		return a;
	return (bc > ac || (bc == ac && bb > ab)) ? b : a;
}

/* A btree block of any tree, by its v5 magic. */
static bool btree_lsn(const uint8_t *buf, size_t len, uint32_t magic, uint64_t *lsn)
{
	for (int bt = 0; bt < XFMT_BT_COUNT; bt++) {
		struct xfmt_bt_hdr h;

		if (xfmt_bt_magic((enum xfmt_btnum)bt, true) != magic)
			continue;
		if (xfmt_bt_hdr_decode(buf, len, (enum xfmt_btnum)bt, true, &h) != 0)
			return false;
		*lsn = h.lsn;
		return true;
	}
	return false;
}

/* Blocks whose 32-bit magic opens them. */
static bool magic32_lsn(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			uint32_t magic, uint64_t *lsn)
{
	union {
		struct xfmt_agf agf;
		struct xfmt_agi agi;
		struct xfmt_agfl agfl;
		struct xfmt_dir2_data_hdr data;
		struct xfmt_dir2_free_hdr free;
		struct xfmt_rmt_hdr rmt;
	} u;
	int rc;

	switch (magic) {
	case XFS_AGF_MAGIC:
		rc = xfmt_agf_decode(buf, len, &u.agf);
		*lsn = u.agf.lsn;
		break;
	case XFS_AGI_MAGIC:
		rc = xfmt_agi_decode(buf, len, &u.agi);
		*lsn = u.agi.lsn;
		break;
	case XFS_AGFL_MAGIC:
		rc = xfmt_agfl_decode(buf, len, g, &u.agfl);
		*lsn = u.agfl.lsn;
		break;
	case XFS_DIR3_BLOCK_MAGIC:
	case XFS_DIR3_DATA_MAGIC:
		rc = xfmt_dir2_data_hdr_decode(buf, len, true, &u.data);
		*lsn = u.data.lsn;
		break;
	case XFS_DIR3_FREE_MAGIC:
		rc = xfmt_dir2_free_hdr_decode(buf, len, true, &u.free);
		*lsn = u.free.lsn;
		break;
	case XFS_SYMLINK_MAGIC:
	case XFS_ATTR3_RMT_MAGIC:
		rc = xfmt_rmt_hdr_decode(buf, len, &u.rmt);
		*lsn = u.rmt.lsn;
		break;
	default:
		return btree_lsn(buf, len, magic, lsn);
	}
	return rc == 0;
}

bool xfmt_meta_lsn(const uint8_t *buf, size_t len, const struct xfmt_geom *g, uint64_t *lsn)
{
	struct xfmt_da_blkinfo bi;

	if (!g->v5 || len < 12)
		return false;
	if (magic32_lsn(buf, len, g, xfmt_get_be32(buf), lsn))
		return true;
	/* DA blocks: the 16-bit magic of the blkinfo header, at byte 8. */
	switch (xfmt_get_be16(buf + 8)) {
	case XFS_DA3_NODE_MAGIC:
	case XFS_DIR3_LEAF1_MAGIC:
	case XFS_DIR3_LEAFN_MAGIC:
	case XFS_ATTR3_LEAF_MAGIC:
		if (xfmt_da_blkinfo_decode(buf, len, true, &bi) != 0)
			return false;
		*lsn = bi.lsn;
		return true;
	default:
		return false;
	}
}
