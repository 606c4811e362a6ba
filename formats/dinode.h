/*
 * dinode.h - the on-disk inode core (xfs_dinode): decoding, fork geometry,
 * verification and the field tables.
 *
 * Covers v1/v2 cores (100 bytes, v4 filesystems) and v3 cores (176 bytes,
 * v5), both extent-counter layouts (classic and NREXT64) and both timestamp
 * encodings (legacy and BIGTIME).  The contents of the forks (extent lists,
 * bmbt roots, shortform directories...) belong to other decoders; this file
 * only says where the forks are and whether their counts fit.
 * Facts: xfs-ondisk.md section 5 and the kernel's xfs_dinode_verify.
 */
#ifndef XFMT_DINODE_H
#define XFMT_DINODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_DINODE_MAGIC    0x494Eu
#define XFMT_DINODE_V2_CORE 100u  /* v1/v2 core; literal area starts here */
#define XFMT_DINODE_V3_CORE 176u
#define XFMT_DINODE_CRC_OFF 100u
#define XFMT_DINODE_MAX_SIZE 2048u  /* largest inode a superblock may declare */

/* di_format / di_aformat */
#define XFS_DINODE_FMT_DEV     0
#define XFS_DINODE_FMT_LOCAL   1
#define XFS_DINODE_FMT_EXTENTS 2
#define XFS_DINODE_FMT_BTREE   3
#define XFS_DINODE_FMT_UUID    4

/* di_flags */
#define XFS_DIFLAG_REALTIME     0x0001u
#define XFS_DIFLAG_PREALLOC     0x0002u
#define XFS_DIFLAG_NEWRTBM      0x0004u
#define XFS_DIFLAG_IMMUTABLE    0x0008u
#define XFS_DIFLAG_APPEND       0x0010u
#define XFS_DIFLAG_SYNC         0x0020u
#define XFS_DIFLAG_NOATIME      0x0040u
#define XFS_DIFLAG_NODUMP       0x0080u
#define XFS_DIFLAG_RTINHERIT    0x0100u
#define XFS_DIFLAG_PROJINHERIT  0x0200u
#define XFS_DIFLAG_NOSYMLINKS   0x0400u
#define XFS_DIFLAG_EXTSIZE      0x0800u
#define XFS_DIFLAG_EXTSZINHERIT 0x1000u
#define XFS_DIFLAG_NODEFRAG     0x2000u
#define XFS_DIFLAG_FILESTREAM   0x4000u
#define XFS_DIFLAG_ANY          0x7FFFu

/* di_flags2 */
#define XFS_DIFLAG2_DAX         0x01ull
#define XFS_DIFLAG2_REFLINK     0x02ull
#define XFS_DIFLAG2_COWEXTSIZE  0x04ull
#define XFS_DIFLAG2_BIGTIME     0x08ull
#define XFS_DIFLAG2_NREXT64     0x10ull
#define XFS_DIFLAG2_METADATA    0x20ull  /* a metadir file: di_onlink is di_metatype */
#define XFS_DIFLAG2_ANY         0x3Full
/* di_metatype values (XFS_METAFILE_*): a directory of the tree is of type
 * DIR; all end below MAX */
#define XFS_METAFILE_DIR        1u
#define XFS_METAFILE_MAX        7u

/* File types (di_mode & S_IFMT), spelled out so formats/ needs no sys headers. */
#define XFMT_S_IFMT   0170000u
#define XFMT_S_IFIFO  0010000u
#define XFMT_S_IFCHR  0020000u
#define XFMT_S_IFDIR  0040000u
#define XFMT_S_IFBLK  0060000u
#define XFMT_S_IFREG  0100000u
#define XFMT_S_IFLNK  0120000u
#define XFMT_S_IFSOCK 0140000u

/* Extent count limits (classic / NREXT64). */
#define XFS_MAX_EXTCNT_DATA_FORK_LARGE ((1ull << 48) - 1)
#define XFS_MAX_EXTCNT_ATTR_FORK_LARGE ((1ull << 32) - 1)
#define XFS_MAX_EXTCNT_DATA_FORK_SMALL ((1ull << 31) - 1)
#define XFS_MAX_EXTCNT_ATTR_FORK_SMALL ((1ull << 15) - 1)

/* Seconds between the bigtime epoch (1901-12-13T20:45:52Z) and the Unix epoch. */
#define XFMT_BIGTIME_EPOCH_OFFSET 2147483648ll

struct xfmt_timestamp {
	int64_t  sec;   /* seconds since 1970-01-01 UTC (may be negative) */
	uint32_t nsec;  /* as stored for legacy stamps: may exceed 999999999 */
};

struct xfmt_dinode {
	uint16_t magic;
	uint16_t mode;
	uint8_t  version;
	uint8_t  format;
	uint16_t onlink;
	uint32_t uid;
	uint32_t gid;
	uint32_t nlink;
	uint32_t projid;        /* projid_hi << 16 | projid_lo */
	uint16_t flushiter;     /* v2 only */
	struct xfmt_timestamp atime, mtime, ctime, crtime;  /* crtime: v3 core only */
	uint64_t size;
	uint64_t nblocks;
	uint32_t extsize;
	uint64_t nextents;      /* data fork; from offset 24 on NREXT64 inodes */
	uint32_t anextents;     /* attr fork; be32 at 76 on NREXT64 inodes */
	uint8_t  forkoff;
	uint8_t  aformat;
	uint32_t dmevmask;
	uint16_t dmstate;
	uint16_t flags;
	uint32_t gen;
	uint32_t next_unlinked;
	/* v3 core (v5 filesystems) only; zero otherwise */
	uint32_t crc;           /* stored value */
	uint64_t changecount;
	uint64_t lsn;
	uint64_t flags2;
	uint32_t cowextsize;
	uint64_t ino;
	uint8_t  uuid[16];
	/* derived */
	bool     bigtime;       /* timestamps use the BIGTIME encoding */
	bool     nrext64;       /* large extent counters layout */
	size_t   core_size;     /* 176 (v5 filesystem) or 100 */
	size_t   lit_off;       /* start of the literal area (== core_size) */
	size_t   lit_size;      /* inodesize - core_size */
	size_t   dfork_off;
	size_t   dfork_size;
	size_t   afork_off;     /* 0 without an attr fork */
	size_t   afork_size;
	bool     has_attr_fork; /* forkoff != 0, unless stray_forkoff */
	/* forkoff names an empty extents-format attr fork and leaves the data
	 * fork too small for its extent list, which fits the whole literal
	 * area: the forkoff is the fault, and the forks are read as if it
	 * were 0 (no attr fork), the data fork being what the file still has */
	bool     stray_forkoff;
};

/*
 * Whether d was laid out with the v3 core (its fields past byte 100 are
 * core fields, not the literal area): the filesystem decides, not the
 * version byte, which may be the damage being repaired.
 */
static inline bool xfmt_dinode_v3_core(const struct xfmt_dinode *d)
{
	return d->core_size == XFMT_DINODE_V3_CORE;
}

/*
 * Decode the inode at buf (len == the filesystem's inode size).  The core
 * size comes from the filesystem version (g->v5).  Fork offsets are clamped
 * to the inode so a hostile forkoff never points outside it (the verifier
 * reports it).  Returns 0, or -1 if len is shorter than the core.
 */
int xfmt_dinode_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		       struct xfmt_dinode *out);

/*
 * The di_flags bits an inode of this mode may carry (xfs_repair's rules):
 * the inherit flags and NOSYMLINKS only on directories, REALTIME only on
 * regular files of a filesystem with a realtime section, NEWRTBM only on the realtime bitmap inode (g->rbmino,
 * where known).  The extent size hint flags are judged with the hint.
 */
uint16_t xfmt_dinode_flags_allowed(const struct xfmt_geom *g, uint64_t ino, uint16_t mode);

/*
 * Verify a decoded inode d (decoded from buf/len) that lives at inode
 * number ino.  Rules: the kernel's xfs_dinode_verify plus xfs-ondisk.md 5:
 * magic, CRC (v3; its own finding), version, di_ino, uuid, next_unlinked,
 * and for an inode in use (mode != 0): file type, data/attr fork format per
 * type, forkoff bounds, extent counts vs fork capacity and limits, bmbt root
 * header for BTREE forks, size bit 63, zero-size dirs/symlinks, nblocks vs
 * extent counts, onlink, extent size hints, flags/flags2 bits and
 * combinations, feature-dependent flags, pads, legacy nsec range.  A free
 * inode gets only the header checks (magic, CRC, version, ino, uuid,
 * next_unlinked).  Returns the number of findings reported.
 */
unsigned xfmt_dinode_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			    uint64_t ino, const struct xfmt_dinode *d,
			    const struct xprob_sink *sink);

/* The same, with the CRC32c of the len bytes already known (*crc: what
 * xfmt_crc32c_excluding(buf, len, XFMT_DINODE_CRC_OFF) gives; NULL: it is
 * computed here).  A caller that checksums inodes ahead of time, on
 * another thread, saves doing it here. */
unsigned xfmt_dinode_verify_crc(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				uint64_t ino, const struct xfmt_dinode *d, const uint32_t *crc,
				const struct xprob_sink *sink);

/* The flags every metadata file carries (XFS_METAFILE_DIFLAGS: immutable,
 * sync, noatime, nodump, nodefrag), and nosymlinks on a directory. */
static inline uint16_t xfmt_dinode_metafile_flags(uint16_t mode)
{
	uint16_t f = XFS_DIFLAG_IMMUTABLE | XFS_DIFLAG_SYNC | XFS_DIFLAG_NOATIME |
		     XFS_DIFLAG_NODUMP | XFS_DIFLAG_NODEFRAG;

	return (mode & XFMT_S_IFMT) == XFMT_S_IFDIR ? (uint16_t)(f | XFS_DIFLAG_NOSYMLINKS) : f;
}

/* True if the inode is allocated (mode != 0). */
bool xfmt_dinode_in_use(const struct xfmt_dinode *d);

/*
 * True if the data fork maps realtime extents: the REALTIME flag on a
 * regular file of a filesystem with a realtime section.  The flag anywhere
 * else is damage to the flag (inoBadFlags), and the fork maps data-device
 * blocks as ever: a symlink or directory read from the realtime device on
 * its word would lose its blocks to a flipped bit.
 */
static inline bool xfmt_dinode_data_realtime(const struct xfmt_geom *g,
					     const struct xfmt_dinode *d)
{
	return (d->flags & XFS_DIFLAG_REALTIME) && (d->mode & XFMT_S_IFMT) == XFMT_S_IFREG &&
	       g->rblocks != 0;
}

/*
 * True if the slot at buf (len bytes) looks like an inode written at its
 * place ino, whatever else (the CRC) a flipped bit broke: the magic and a
 * version this filesystem writes, and on v5 its own number and the
 * metadata uuid; on v4 (where inodes do not name themselves) a known fork
 * format.  For telling inode chunks from other blocks.
 */
bool xfmt_dinode_at_place(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
			  uint64_t ino);

/* Decode one 8-byte timestamp field; bigtime selects the encoding. */
void xfmt_timestamp_decode(const uint8_t *p, bool bigtime, struct xfmt_timestamp *out);

/* Data (whichfork 0) or attr (1) fork: pointer, size and format; NULL/0 if absent. */
const uint8_t *xfmt_dinode_fork(const uint8_t *buf, const struct xfmt_dinode *d,
				int whichfork, size_t *size);

/*
 * Field tables with xfs_db's names (core.magic, core.mode, ..., v3.crc,
 * v3.inumber...).  xfmt_dinode_core_fields has the classic layout (data
 * extent count at 76; core.flushiter exists only on v2 inodes);
 * xfmt_dinode_nrext64_fields the NREXT64 layout (core.nextents at 24).
 * xfmt_dinode_fields picks the table for a decoded inode.
 */
extern const struct xfmt_field xfmt_dinode_core_fields[];
extern const struct xfmt_field xfmt_dinode_nrext64_fields[];
const struct xfmt_field *xfmt_dinode_fields(const struct xfmt_dinode *d);

#endif /* XFMT_DINODE_H */
