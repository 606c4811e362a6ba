/*
 * dir2_layout.h - byte offsets inside directory and DA btree blocks
 * (xfs-ondisk.md 7.2-7.6), shared by the decoders (danode.c, attr.c, dir2.c,
 * dir2_data.c, dir2_leaf.c, dir2_node.c, dir2_sf.c), the encoder
 * (dir2_build.c, dir2_build_index.c) and the block registry.  As with
 * dinode_layout.h, not for use outside formats/: everything else reads the
 * decoded headers or the field tables.
 */
#ifndef XFMT_DIR2_LAYOUT_H
#define XFMT_DIR2_LAYOUT_H

#include "formats/danode.h"
#include "formats/dir2.h"

/* DA blkinfo: xfs_da_blkinfo (v4, 12 bytes), then the v5 tail of xfs_da3_blkinfo. */
#define DA_FORW    0
#define DA_BACK    4
#define DA_MAGIC   8
#define DA_PAD     10
#define DA_CRC     12
#define DA_BLKNO   16
#define DA_LSN     24
#define DA_UUID    32
#define DA_OWNER   48
_Static_assert(DA_PAD + 2 == XFMT_DA_BLKINFO_V4, "v4 blkinfo is 12 bytes");
_Static_assert(DA_OWNER + 8 == XFMT_DA_BLKINFO_V5, "v5 blkinfo is 56 bytes");
_Static_assert(DA_CRC == XFMT_DA_CRC_OFF, "blkinfo crc offset");

/* DA node header: the blkinfo, then count and level (v5: and 4 bytes of pad). */
#define N4_COUNT   12
#define N4_LEVEL   14
#define N5_COUNT   56
#define N5_LEVEL   58
#define N5_PAD     60
_Static_assert(N4_LEVEL + 2 == XFMT_DA_NODE_HDR_V4, "v4 node header is 16 bytes");
_Static_assert(N5_PAD + 4 == XFMT_DA_NODE_HDR_V5, "v5 node header is 64 bytes");

/* v5 header of data, block and free blocks (xfs_dir3_blk_hdr). */
#define BH_MAGIC   0
#define BH_CRC     4
#define BH_BLKNO   8
#define BH_LSN     16
#define BH_UUID    24
#define BH_OWNER   40
#define BH_END     48
_Static_assert(BH_CRC == XFMT_DIR3_DATA_CRC_OFF, "dir3 block crc offset");

/* Data and block-form header: magic (or the v5 header), three bestfree pairs, v5 pad. */
#define DH_MAGIC       0
#define DH3_BESTFREE   48
#define DH3_PAD        60
#define DH2_BESTFREE   4
_Static_assert(DH3_BESTFREE == BH_END, "v5 bestfree follows the block header");
_Static_assert(DH3_PAD + 4 == XFMT_DIR3_DATA_HDR, "v5 data header is 64 bytes");
_Static_assert(DH2_BESTFREE + 12 == XFMT_DIR2_DATA_HDR, "v4 data header is 16 bytes");

/* A data entry and an unused region of a data block. */
#define DE_INUMBER     0
#define DE_NAMELEN     8
#define DE_NAME        9
#define DU_FREETAG     0
#define DU_LENGTH      2

/* Leaf header: the blkinfo, then count and stale (v5: and 4 bytes of pad). */
#define L3_COUNT   56
#define L3_STALE   58
#define L3_PAD     60
#define L2_COUNT   12
#define L2_STALE   14
_Static_assert(L3_COUNT == XFMT_DA_BLKINFO_V5, "v5 leaf count follows the blkinfo");
_Static_assert(L2_COUNT == XFMT_DA_BLKINFO_V4, "v4 leaf count follows the blkinfo");
_Static_assert(L3_PAD + 4 == XFMT_DIR3_LEAF_HDR, "v5 leaf header is 64 bytes");
_Static_assert(L2_STALE + 2 == XFMT_DIR2_LEAF_HDR, "v4 leaf header is 16 bytes");
_Static_assert(XFMT_DA_NODE_HDR_V5 == XFMT_DIR3_LEAF_HDR, "node and leaf headers match");

/* Free index header: firstdb, nvalid, nused (v5: after the block header, then pad). */
#define F3_FIRSTDB 48
#define F3_NVALID  52
#define F3_NUSED   56
#define F3_PAD     60
#define F2_FIRSTDB 4
#define F2_NVALID  8
#define F2_NUSED   12
_Static_assert(F3_PAD + 4 == XFMT_DIR3_FREE_HDR, "v5 free header is 64 bytes");
_Static_assert(F2_NUSED + 4 == XFMT_DIR2_FREE_HDR, "v4 free header is 16 bytes");

/* Short form: count, i8count, parent (4 or 8 bytes); an entry: namelen, offset, name. */
#define SF_COUNT     0
#define SF_I8COUNT   1
#define SF_PARENT    2
#define SFE_NAMELEN  0
#define SFE_OFFSET   1
#define SFE_NAME     3
_Static_assert(SF_PARENT + 4 == XFMT_DIR2_SF_HDR4, "sf header with 4-byte parent");
_Static_assert(SF_PARENT + 8 == XFMT_DIR2_SF_HDR8, "sf header with 8-byte parent");

/*
 * The header fields of a DA node block as xfs_db names them under prefix
 * P: "nhdr" in a directory, "hdr" in an attribute fork (the block is the
 * same).  For field tables (field.h); v5 (DA3), then v4.
 */
#define XFMT_DA_FIELD(n, o, s, k, v5, d) { (n), (o), (s), (k), (v5), (d), 0 }
#define XFMT_DA3_NODE_HDR_FIELDS(P)                                                              \
	XFMT_DA_FIELD(P ".info.hdr.forw", DA_FORW, 4, XFK_UINT, 0,                               \
		      "next node at this level (fork block, 0 = none)"),                        \
	XFMT_DA_FIELD(P ".info.hdr.back", DA_BACK, 4, XFK_UINT, 0,                               \
		      "previous node at this level (0 = none)"),                                \
	XFMT_DA_FIELD(P ".info.hdr.magic", DA_MAGIC, 2, XFK_HEX, 0, "0x3ebe: v5 DA node"),      \
	XFMT_DA_FIELD(P ".info.crc", DA_CRC, 4, XFK_CRC, 1, "CRC32c of the whole block"),       \
	XFMT_DA_FIELD(P ".info.bno", DA_BLKNO, 8, XFK_UINT, 1,                                  \
		      "daddr (512-byte sector) where this block lives"),                        \
	XFMT_DA_FIELD(P ".info.lsn", DA_LSN, 8, XFK_LSN, 1,                                     \
		      "log sequence number of the last write"),                                 \
	XFMT_DA_FIELD(P ".info.uuid", DA_UUID, 16, XFK_UUID, 1, "filesystem metadata uuid"),    \
	XFMT_DA_FIELD(P ".info.owner", DA_OWNER, 8, XFK_UINT, 1,                                \
		      "inode whose fork holds this tree"),                                      \
	XFMT_DA_FIELD(P ".count", N5_COUNT, 2, XFK_UINT, 0, "entries {hashval, before} in use"), \
	XFMT_DA_FIELD(P ".level", N5_LEVEL, 2, XFK_UINT, 0, "height above the leaf blocks (1..5)")
#define XFMT_DA_NODE_HDR_FIELDS(P)                                                               \
	XFMT_DA_FIELD(P ".info.forw", DA_FORW, 4, XFK_UINT, 0,                                   \
		      "next node at this level (fork block, 0 = none)"),                        \
	XFMT_DA_FIELD(P ".info.back", DA_BACK, 4, XFK_UINT, 0,                                   \
		      "previous node at this level (0 = none)"),                                \
	XFMT_DA_FIELD(P ".info.magic", DA_MAGIC, 2, XFK_HEX, 0, "0xfebe: v4 DA node"),          \
	XFMT_DA_FIELD(P ".count", N4_COUNT, 2, XFK_UINT, 0, "entries {hashval, before} in use"), \
	XFMT_DA_FIELD(P ".level", N4_LEVEL, 2, XFK_UINT, 0, "height above the leaf blocks (1..5)")

#endif /* XFMT_DIR2_LAYOUT_H */
