/*
 * dinode_layout.h - byte offsets of the inode core (xfs-ondisk.md 5.1),
 * shared by the inode decoder (dinode.c) and the log's inode items
 * (log_item.c), whose logged core has the same layout in the writer's byte
 * order.  Not for use outside formats/: everything else reads a decoded
 * struct xfmt_dinode or the field tables.
 */
#ifndef XFMT_DINODE_LAYOUT_H
#define XFMT_DINODE_LAYOUT_H

#define DI_MAGIC         0
#define DI_MODE          2
#define DI_VERSION       4
#define DI_FORMAT        5
#define DI_ONLINK        6
#define DI_UID           8
#define DI_GID           12
#define DI_NLINK         16
#define DI_PROJID_LO     20
#define DI_PROJID_HI     22
#define DI_BIG_NEXTENTS  24  /* NREXT64; v3_pad otherwise; v2: pad + flushiter */
#define DI_FLUSHITER     30
#define DI_ATIME         32
#define DI_MTIME         40
#define DI_CTIME         48
#define DI_SIZE          56
#define DI_NBLOCKS       64
#define DI_EXTSIZE       72
#define DI_NEXTENTS      76  /* NREXT64: big_anextents */
#define DI_ANEXTENTS     80  /* NREXT64: nrext64_pad */
#define DI_FORKOFF       82
#define DI_AFORMAT       83
#define DI_DMEVMASK      84
#define DI_DMSTATE       88
#define DI_FLAGS         90
#define DI_GEN           92
#define DI_NEXT_UNLINKED 96
#define DI_CRC           100
#define DI_CHANGECOUNT   104
#define DI_LSN           112
#define DI_FLAGS2        120
#define DI_COWEXTSIZE    128
#define DI_PAD2          132
#define DI_CRTIME        144
#define DI_INO           152
#define DI_UUID          160

#endif /* XFMT_DINODE_LAYOUT_H */
