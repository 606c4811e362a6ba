/*
 * block.c - the block registry and the one classify.  Magic numbers,
 * CRC and owner offsets come from xfs-ondisk.md (sections 2-8); the
 * verifier names are the kernel's (fs/xfs/libxfs), for readers who look
 * the rules up there.
 */
#include "formats/block.h"

#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/attr.h"
#include "formats/danode.h"
#include "formats/dinode.h"
#include "formats/dir2.h"
#include "formats/dir2_layout.h"
#include "formats/endian.h"
#include "formats/rmt_hdr.h"
#include "formats/sb.h"
#include "formats/symlink.h"

#define ROW(k, n, m4, m5, mo, ms, crc, oo, os, own, bt, ver, f4, f5)                          \
	[k] = { .kind = (k), .name = (n), .magic_v4 = (m4), .magic_v5 = (m5), .magic_off = (mo), \
		.magic_size = (ms), .crc_off = (crc), .owner_off = (oo), .owner_size = (os),      \
		.owner = (own), .btnum = (bt), .verifier = (ver), .fields_v4 = (f4),              \
		.fields_v5 = (f5) }

static const struct xfmt_blk_row rows[XFMT_BLK_KIND_COUNT] = {
	ROW(XFMT_BLK_UNKNOWN, "unknown", 0, 0, 0, 0, -1, -1, 0, XFMT_BLK_OWN_NONE, -1, NULL,
	    NULL, NULL),
	ROW(XFMT_BLK_SB, "sb", XFS_SB_MAGIC, XFS_SB_MAGIC, 0, 4, XFS_SB_CRC_OFF, -1, 0,
	    XFMT_BLK_OWN_FS, -1, "xfs_sb_verify", xfmt_sb_fields, xfmt_sb_fields),
	ROW(XFMT_BLK_AGF, "agf", XFS_AGF_MAGIC, XFS_AGF_MAGIC, 0, 4, XFS_AGF_CRC_OFF, -1, 0,
	    XFMT_BLK_OWN_AG, -1, "xfs_agf_verify", xfmt_agf_fields, xfmt_agf_fields),
	ROW(XFMT_BLK_AGI, "agi", XFS_AGI_MAGIC, XFS_AGI_MAGIC, 0, 4, XFS_AGI_CRC_OFF, -1, 0,
	    XFMT_BLK_OWN_AG, -1, "xfs_agi_verify", xfmt_agi_fields, xfmt_agi_fields),
	ROW(XFMT_BLK_AGFL, "agfl", 0, XFS_AGFL_MAGIC, 0, 4, XFS_AGFL_CRC_OFF, -1, 0,
	    XFMT_BLK_OWN_AG, -1, "xfs_agfl_verify", NULL, xfmt_agfl_fields),
	ROW(XFMT_BLK_BNOBT, "bnobt", XFS_ABTB_MAGIC, XFS_ABTB_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF,
	    XFMT_BT_SHORT_OWNER_OFF, 4, XFMT_BLK_OWN_AG, XFMT_BT_BNO,
	    "xfs_allocbt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_CNTBT, "cntbt", XFS_ABTC_MAGIC, XFS_ABTC_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF,
	    XFMT_BT_SHORT_OWNER_OFF, 4, XFMT_BLK_OWN_AG, XFMT_BT_CNT,
	    "xfs_allocbt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_INOBT, "inobt", XFS_IBT_MAGIC, XFS_IBT_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF,
	    XFMT_BT_SHORT_OWNER_OFF, 4, XFMT_BLK_OWN_AG, XFMT_BT_INO,
	    "xfs_inobt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_FINOBT, "finobt", XFS_FIBT_MAGIC, XFS_FIBT_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF,
	    XFMT_BT_SHORT_OWNER_OFF, 4, XFMT_BLK_OWN_AG, XFMT_BT_FINO,
	    "xfs_inobt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_RMAPBT, "rmapbt", 0, XFS_RMAP_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF, XFMT_BT_SHORT_OWNER_OFF,
	    4, XFMT_BLK_OWN_AG, XFMT_BT_RMAP,
	    "xfs_rmapbt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_REFCBT, "refcountbt", 0, XFS_REFC_CRC_MAGIC, 0, 4, XFMT_BT_SHORT_CRC_OFF,
	    XFMT_BT_SHORT_OWNER_OFF, 4, XFMT_BLK_OWN_AG, XFMT_BT_REFC,
	    "xfs_refcountbt_verify", xfmt_bt_short_fields, xfmt_bt_short_fields),
	ROW(XFMT_BLK_BMBT, "bmbt", XFS_BMAP_MAGIC, XFS_BMAP_CRC_MAGIC, 0, 4, XFMT_BT_LONG_CRC_OFF,
	    XFMT_BT_LONG_OWNER_OFF, 8, XFMT_BLK_OWN_FORK, XFMT_BT_BMAP,
	    "xfs_bmbt_verify", xfmt_bt_long_fields, xfmt_bt_long_fields),
	ROW(XFMT_BLK_DIR_BLOCK, "dir block", XFS_DIR2_BLOCK_MAGIC, XFS_DIR3_BLOCK_MAGIC, 0, 4,
	    BH_CRC, BH_OWNER, 8, XFMT_BLK_OWN_DIR, -1, "xfs_dir3_block_verify",
	    xfmt_dir2_block_hdr_fields, xfmt_dir3_block_hdr_fields),
	ROW(XFMT_BLK_DIR_DATA, "dir data", XFS_DIR2_DATA_MAGIC, XFS_DIR3_DATA_MAGIC, 0, 4,
	    BH_CRC, BH_OWNER, 8, XFMT_BLK_OWN_DIR, -1, "xfs_dir3_data_verify",
	    xfmt_dir2_data_hdr_fields, xfmt_dir3_data_hdr_fields),
	ROW(XFMT_BLK_DIR_LEAF1, "dir leaf1", XFS_DIR2_LEAF1_MAGIC, XFS_DIR3_LEAF1_MAGIC, DA_MAGIC, 2,
	    DA_CRC, DA_OWNER, 8, XFMT_BLK_OWN_DIR, -1, "xfs_dir3_leaf1_verify",
	    xfmt_dir2_leaf_hdr_fields, xfmt_dir3_leaf_hdr_fields),
	ROW(XFMT_BLK_DIR_LEAFN, "dir leafn", XFS_DIR2_LEAFN_MAGIC, XFS_DIR3_LEAFN_MAGIC, DA_MAGIC, 2,
	    DA_CRC, DA_OWNER, 8, XFMT_BLK_OWN_DIR, -1, "xfs_dir3_leafn_verify",
	    xfmt_dir2_leaf_hdr_fields, xfmt_dir3_leaf_hdr_fields),
	ROW(XFMT_BLK_DIR_FREE, "dir free", XFS_DIR2_FREE_MAGIC, XFS_DIR3_FREE_MAGIC, 0, 4,
	    BH_CRC, BH_OWNER, 8, XFMT_BLK_OWN_DIR, -1, "xfs_dir3_free_verify",
	    xfmt_dir2_free_hdr_fields, xfmt_dir3_free_hdr_fields),
	ROW(XFMT_BLK_DA_NODE, "da node", XFS_DA_NODE_MAGIC, XFS_DA3_NODE_MAGIC, DA_MAGIC, 2, DA_CRC,
	    DA_OWNER, 8, XFMT_BLK_OWN_DIR_OR_ATTR, -1, "xfs_da3_node_verify",
	    xfmt_da_node_fields, xfmt_da3_node_fields),
	ROW(XFMT_BLK_ATTR_LEAF, "attr leaf", XFS_ATTR_LEAF_MAGIC, XFS_ATTR3_LEAF_MAGIC, DA_MAGIC, 2,
	    DA_CRC, DA_OWNER, 8, XFMT_BLK_OWN_ATTR, -1, "xfs_attr3_leaf_verify",
	    xfmt_attr_leaf_hdr_fields, xfmt_attr3_leaf_hdr_fields),
	ROW(XFMT_BLK_ATTR_RMT, "attr remote", 0, XFS_ATTR3_RMT_MAGIC, 0, 4, XFMT_RMT_CRC_OFF,
	    XFMT_RMT_OWNER_OFF, 8, XFMT_BLK_OWN_ATTR, -1,
	    "xfs_attr3_rmt_verify", NULL, xfmt_attr3_rmt_hdr_fields),
	ROW(XFMT_BLK_SYMLINK, "symlink", 0, XFS_SYMLINK_MAGIC, 0, 4, XFMT_RMT_CRC_OFF,
	    XFMT_RMT_OWNER_OFF, 8, XFMT_BLK_OWN_SYMLINK, -1,
	    "xfs_symlink_verify", NULL, xfmt_symlink_hdr_fields),
	ROW(XFMT_BLK_INODES, "inode", XFS_DINODE_MAGIC, XFS_DINODE_MAGIC, 0, 2,
	    XFMT_DINODE_CRC_OFF, -1, 0, XFMT_BLK_OWN_INODES, -1,
	    "xfs_dinode_verify", xfmt_dinode_core_fields, xfmt_dinode_core_fields),
};

const struct xfmt_blk_row *xfmt_blk_row(enum xfmt_blk_kind k)
{
	return (unsigned)k < XFMT_BLK_KIND_COUNT ? &rows[k] : &rows[XFMT_BLK_UNKNOWN];
}

const struct xfmt_blk_row *xfmt_blk_row_bt(enum xfmt_btnum bt)
{
	for (unsigned k = 0; k < XFMT_BLK_KIND_COUNT; k++)
		if (rows[k].btnum >= 0 && rows[k].btnum == (int)bt)
			return &rows[k];
	return NULL;
}

const struct xfmt_field *xfmt_blk_fields(const struct xfmt_blk_row *r, bool v5)
{
	if (!xfmt_blk_magic(r, v5))
		return NULL;
	return v5 ? r->fields_v5 : r->fields_v4;
}

uint32_t xfmt_blk_magic(const struct xfmt_blk_row *r, bool v5)
{
	return v5 ? r->magic_v5 : r->magic_v4;
}

/* The magic-sized number at the row's offset, or false if len is short. */
static bool magic_at(const uint8_t *p, size_t len, const struct xfmt_blk_row *r, uint32_t *m)
{
	if ((size_t)r->magic_off + r->magic_size > len)
		return false;
	*m = r->magic_size == 2 ? xfmt_get_be16(p + r->magic_off) : xfmt_get_be32(p + r->magic_off);
	return true;
}

enum xfmt_blk_kind xfmt_blk_classify(const uint8_t *p, size_t len, enum xfmt_blk_ver ver)
{
	if (!p)
		return XFMT_BLK_UNKNOWN;
	for (unsigned k = XFMT_BLK_UNKNOWN + 1; k < XFMT_BLK_KIND_COUNT; k++) {
		const struct xfmt_blk_row *r = &rows[k];
		uint32_t m;

		if (!magic_at(p, len, r, &m) || m == 0)
			continue;
		if ((ver != XFMT_BLK_V5 && m == r->magic_v4) ||
		    (ver != XFMT_BLK_V4 && m == r->magic_v5))
			return r->kind;
	}
	return XFMT_BLK_UNKNOWN;
}

bool xfmt_blk_owner_of(const uint8_t *p, size_t len, enum xfmt_blk_kind k, uint64_t *owner)
{
	const struct xfmt_blk_row *r = xfmt_blk_row(k);

	if (r->owner_off < 0 || (size_t)r->owner_off + r->owner_size > len)
		return false;
	*owner = r->owner_size == 4 ? xfmt_get_be32(p + r->owner_off)
				    : xfmt_get_be64(p + r->owner_off);
	return true;
}

bool xfmt_blk_is_dir_index(enum xfmt_blk_kind k)
{
	return k == XFMT_BLK_DIR_LEAF1 || k == XFMT_BLK_DIR_LEAFN || k == XFMT_BLK_DA_NODE;
}

bool xfmt_blk_is_dir_data(enum xfmt_blk_kind k)
{
	return k == XFMT_BLK_DIR_BLOCK || k == XFMT_BLK_DIR_DATA;
}
