/*
 * attr_layout.h - byte offsets inside attribute structures: the shortform
 * list in the inode and the leaf block's header, entries and name/value
 * records (xfs-ondisk.md 8.1-8.3); the DA blkinfo and node header they
 * share with directories are dir2_layout.h's.  As with dinode_layout.h,
 * for attr.c only: everything else reads the decoded structures or the
 * field tables.
 */
#ifndef XFMT_ATTR_LAYOUT_H
#define XFMT_ATTR_LAYOUT_H

#include "formats/attr.h"
#include "formats/danode.h"

/* Shortform header and entry (xfs-ondisk.md 8.1). */
#define ASF_TOTSIZE 0
#define ASF_COUNT   2
#define ASF_PAD     3
#define ASFE_NAMELEN  0
#define ASFE_VALUELEN 1
#define ASFE_FLAGS    2
_Static_assert(ASF_PAD + 1 == XFMT_ATTR_SF_HDR_LEN, "shortform header is 4 bytes");
_Static_assert(ASFE_FLAGS + 1 == XFMT_ATTR_SF_ENTRY_HDR, "shortform entry header is 3 bytes");

/* Leaf header after the blkinfo: v5 offsets, then v4 (xfs-ondisk.md 8.2). */
#define L5_COUNT     56
#define L5_USEDBYTES 58
#define L5_FIRSTUSED 60
#define L5_HOLES     62
#define L5_PAD1      63
#define L5_FREEMAP   64
#define L5_PAD2      76
#define L4_COUNT     12
#define L4_USEDBYTES 14
#define L4_FIRSTUSED 16
#define L4_HOLES     18
#define L4_PAD1      19
#define L4_FREEMAP   20
_Static_assert(L5_PAD2 + 4 == XFMT_ATTR_LEAF_HDR_V5, "v5 attr leaf header is 80 bytes");
_Static_assert(L4_FREEMAP + 12 == XFMT_ATTR_LEAF_HDR_V4, "v4 attr leaf header is 32 bytes");
_Static_assert(L5_COUNT == XFMT_DA_BLKINFO_V5 && L4_COUNT == XFMT_DA_BLKINFO_V4,
	       "leaf header follows the blkinfo");

/* Leaf entry and name/value structures. */
#define LE_HASHVAL 0
#define LE_NAMEIDX 4
#define LE_FLAGS   6
#define LOC_VALUELEN 0   /* be16 */
#define LOC_NAMELEN  2
#define LOC_NAME     3
#define RMT_VALUEBLK 0   /* be32 */
#define RMT_VALUELEN 4   /* be32 */
#define RMT_NAMELEN  8
#define RMT_NAME     9
/* The rounded sizes keep a historical pad byte: roundup(3 + n + v, 4), roundup(11 + n, 4). */
#define LOC_ENTSIZE_BASE 3u
#define RMT_ENTSIZE_BASE 11u
#define NAME_ALIGN 4u

#endif /* XFMT_ATTR_LAYOUT_H */
