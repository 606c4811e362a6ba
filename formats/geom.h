/*
 * geom.h - filesystem geometry and address arithmetic.
 *
 * Every decoder and verifier that needs to know "how big is a block" or
 * "is this agbno inside the AG" takes a struct xfmt_geom.  It is derived from
 * a superblock that has passed the geometry checks (xfmt_geom_from_sb), so the
 * helpers here may assume sane shifts; they still never overflow on hostile
 * numbers because every input is masked or range-checked first.
 *
 * Remember: an fsblock number is packed (agno << agblklog | agbno), not linear,
 * unless agblocks is a power of two.
 */
#ifndef XFMT_GEOM_H
#define XFMT_GEOM_H

#include <stdbool.h>
#include <stdint.h>

#define XFS_NULLAGBLOCK   0xFFFFFFFFu
#define XFS_NULLAGINO     0xFFFFFFFFu
#define XFS_NULLFSBLOCK   0xFFFFFFFFFFFFFFFFull
#define XFS_NULLFSINO     0xFFFFFFFFFFFFFFFFull
#define XFS_BB_SHIFT      9
#define XFS_BB_SIZE       512u
#define XFS_INODES_PER_CHUNK 64u
#define XFS_MAXINUMBER    ((1ull << 56) - 1)
/* Deepest btree any XFS geometry can produce; deeper is corruption. */
#define XFS_BTREE_MAXLEVELS 9u

struct xfmt_geom {
	uint32_t blocksize;
	uint8_t  blocklog;
	uint16_t sectsize;
	uint8_t  sectlog;
	uint16_t inodesize;
	uint8_t  inodelog;
	uint16_t inopblock;
	uint8_t  inopblog;
	uint32_t agblocks;
	uint8_t  agblklog;
	uint32_t agcount;
	uint64_t dblocks;
	uint32_t dirblksize;
	uint8_t  dirblklog;
	bool     v5;             /* CRC-enabled (version 5) filesystem */
	uint16_t versionnum;
	uint32_t features2;
	uint32_t ro_compat;
	uint32_t incompat;
	uint8_t  meta_uuid[16];  /* uuid stamped in v5 metadata */
	uint64_t logstart;       /* fsblock, 0 = external log */
	uint32_t logblocks;
	uint32_t inoalignmt;
	uint32_t spino_align;
	uint64_t rbmino;         /* realtime bitmap inode; 0 or NULLFSINO: unknown */
	uint64_t rblocks;        /* blocks of the realtime section (0: none) */
};

/* Feature tests used all over the checker. */
bool xfmt_geom_has_finobt(const struct xfmt_geom *g);
bool xfmt_geom_has_rmapbt(const struct xfmt_geom *g);
bool xfmt_geom_has_reflink(const struct xfmt_geom *g);
bool xfmt_geom_has_inobtcnt(const struct xfmt_geom *g);
bool xfmt_geom_has_sparse_inodes(const struct xfmt_geom *g);
bool xfmt_geom_has_ftype(const struct xfmt_geom *g);
bool xfmt_geom_has_bigtime(const struct xfmt_geom *g);
bool xfmt_geom_has_nrext64(const struct xfmt_geom *g);
/* Parent pointers (INCOMPAT_PARENT): every inode names its entries. */
bool xfmt_geom_has_parent(const struct xfmt_geom *g);
/* A metadata directory tree (INCOMPAT_METADIR, xfsprogs 6.13). */
bool xfmt_geom_has_metadir(const struct xfmt_geom *g);

/* Length in blocks of AG agno (the last AG may be short); 0 if agno is out of range. */
uint32_t xfmt_geom_ag_length(const struct xfmt_geom *g, uint32_t agno);

/* Byte offset of the start of AG agno / of agbno within AG agno. */
uint64_t xfmt_geom_ag_byte(const struct xfmt_geom *g, uint32_t agno);
uint64_t xfmt_geom_agbno_byte(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno);
/* Daddr (512-byte unit) of an AG block. */
uint64_t xfmt_geom_agbno_daddr(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno);

/* Packed fsblock <-> (agno, agbno). */
uint64_t xfmt_geom_fsb(const struct xfmt_geom *g, uint32_t agno, uint32_t agbno);
uint32_t xfmt_geom_fsb_agno(const struct xfmt_geom *g, uint64_t fsb);
uint32_t xfmt_geom_fsb_agbno(const struct xfmt_geom *g, uint64_t fsb);
/* True if fsb names a block inside the data device. */
bool xfmt_geom_fsb_valid(const struct xfmt_geom *g, uint64_t fsb);

/*
 * The block the kernel reads for fsb: it cuts the AG number to 32 bits
 * (xfs_agnumber_t), so bits above those are not seen.  True, with *as_read,
 * when that is another block than fsb and a valid one.
 */
bool xfmt_geom_fsb_as_read(const struct xfmt_geom *g, uint64_t fsb, uint64_t *as_read);
/* Byte offset of a packed fsblock (caller checks validity first). */
uint64_t xfmt_geom_fsb_byte(const struct xfmt_geom *g, uint64_t fsb);

/* Inode numbers. */
unsigned xfmt_geom_agino_bits(const struct xfmt_geom *g);
uint32_t xfmt_geom_ino_agno(const struct xfmt_geom *g, uint64_t ino);
uint32_t xfmt_geom_ino_agino(const struct xfmt_geom *g, uint64_t ino);
uint64_t xfmt_geom_ino(const struct xfmt_geom *g, uint32_t agno, uint32_t agino);
uint32_t xfmt_geom_agino_agbno(const struct xfmt_geom *g, uint32_t agino);
uint32_t xfmt_geom_agino_slot(const struct xfmt_geom *g, uint32_t agino);
/* True if ino could name an inode inside the filesystem (AG and block in range). */
bool xfmt_geom_ino_valid(const struct xfmt_geom *g, uint64_t ino);
bool xfmt_geom_agino_valid(const struct xfmt_geom *g, uint32_t agno, uint32_t agino);
uint64_t xfmt_geom_ino_byte(const struct xfmt_geom *g, uint64_t ino);

/* Blocks per 64-inode chunk (at least 1). */
uint32_t xfmt_geom_chunk_blocks(const struct xfmt_geom *g);

/* Size of the AGFL array in entries. */
uint32_t xfmt_geom_agfl_size(const struct xfmt_geom *g);

#endif /* XFMT_GEOM_H */
