/*
 * log_item.h - the items of a logged transaction: decoders for their format
 * regions, and the pure steps of replaying them onto metadata bytes.
 *
 * Format regions are in the writer's byte order (`big`, from the record's
 * h_fmt), except the icreate item's body, which is big-endian.  Replay
 * steps work on a caller's buffer holding the metadata as it stands (the
 * caller reads and writes the image); they follow what kernel recovery
 * does for physical items (xfs-ondisk.md 10.5): buffer regions copied by
 * their dirty bitmap of 128-byte chunks, only the di_next_unlinked words
 * of an inode buffer, the logged inode core converted to disk order with
 * the forks copied into the literal area, icreate chunks initialised.
 */
#ifndef XFMT_LOG_ITEM_H
#define XFMT_LOG_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/log_trans.h"

/* Item types (the u16 at the start of every format region). */
#define XFS_LI_EFI      0x1236u
#define XFS_LI_EFD      0x1237u
#define XFS_LI_IUNLINK  0x1238u
#define XFS_LI_INODE    0x123Bu
#define XFS_LI_BUF      0x123Cu
#define XFS_LI_DQUOT    0x123Du
#define XFS_LI_QUOTAOFF 0x123Eu
#define XFS_LI_ICREATE  0x123Fu
#define XFS_LI_RUI      0x1240u
#define XFS_LI_RUD      0x1241u
#define XFS_LI_CUI      0x1242u
#define XFS_LI_CUD      0x1243u
#define XFS_LI_BUI      0x1244u
#define XFS_LI_BUD      0x1245u
#define XFS_LI_ATTRI    0x1246u
#define XFS_LI_ATTRD    0x1247u
#define XFS_LI_XMI      0x1248u
#define XFS_LI_XMD      0x1249u

/* Short name of an item type ("buf", "inode", "efi", ...; "?" if unknown). */
const char *xfmt_log_item_name(uint16_t type);

/* ---- buffer items ---- */

#define XFS_BLF_INODE_BUF  0x0001u
#define XFS_BLF_CANCEL     0x0002u
#define XFS_BLF_UDQUOT_BUF 0x0004u
#define XFS_BLF_PDQUOT_BUF 0x0008u
#define XFS_BLF_GDQUOT_BUF 0x0010u
#define XFS_BLF_CHUNK      128u
#define XFS_BLF_DATAMAP_WORDS 16u     /* 64 KiB / 128 / 32 */
#define XFS_BLFT_SHIFT     11
#define XFS_BLFT_MASK      0x1Fu
/* Buffer types (the order of the kernel's xfs_blft; cli/views/loglist.c
 * names them all). */
#define XFS_BLFT_UNKNOWN_BUF   0u
#define XFS_BLFT_DIR_BLOCK_BUF 10u
#define XFS_BLFT_DIR_DATA_BUF  11u
#define XLOG_BUF_FMT_MIN   20u        /* type .. map_size, before the bitmap */
#define XLOG_MAX_BUF_BBS   128u       /* 64 KiB: the largest buffer */

struct xfmt_log_buf {
	uint16_t flags;
	uint16_t len;         /* 512-byte blocks */
	uint64_t blkno;       /* daddr of the buffer */
	uint32_t map_size;    /* bitmap words */
	uint32_t map[XFS_BLF_DATAMAP_WORDS];
	uint32_t nregions;    /* regions of the item (format included) */
	uint8_t  blft;        /* buffer type (bits 11..15 of flags) */
};

/*
 * Decode the buffer item it (writer order big).  Returns 0, or -1 if the
 * format region is too short for its bitmap, the bitmap is larger than 16
 * words or covers less than the buffer, or len is 0 or over 64 KiB.
 */
int xfmt_log_buf_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_buf *out);

/*
 * Copy the item's data regions into buf (buflen = the buffer's bytes) at
 * the offsets the dirty bitmap names, as recovery does for an ordinary
 * buffer.  Returns 0, or -1 if a region is missing or a run lies outside
 * buf (buf may then be partly written).
 */
int xfmt_log_buf_apply(const struct xfmt_log_titem *it, const struct xfmt_log_buf *b, uint8_t *buf,
		       size_t buflen);

/*
 * For an XFS_BLF_INODE_BUF item: copy only the di_next_unlinked words the
 * logged regions hold into the inodes of buf (inodesize each), and when
 * crc is set recompute each touched inode's CRC.  Returns the inodes
 * touched, or -1 if a logged word is zero (recovery calls that corrupt)
 * or a region is missing or out of bounds.
 */
int xfmt_log_inode_buf_apply(const struct xfmt_log_titem *it, const struct xfmt_log_buf *b,
			     uint8_t *buf, size_t buflen, uint32_t inodesize, bool crc);

/*
 * The metadata LSN of a buffer, as recovery reads it to decide whether the
 * buffer is newer than a transaction: by its magic (AG headers, btree
 * blocks, directory, attr and symlink blocks, superblock), and only if its
 * uuid is meta_uuid.  Returns true with *lsn, or false when the buffer has
 * no LSN recovery trusts (inode, dquot, remote attr and unknown blocks).
 */
bool xfmt_log_buf_lsn(const uint8_t *buf, size_t len, const uint8_t meta_uuid[16], uint64_t *lsn);

/*
 * After a replay into buf, do what the write verifiers do on a v5
 * filesystem: stamp lsn into the header of a block type that carries one,
 * and recompute the CRC (per block of blocksize for remote attr values).
 * Unknown contents are left alone.  Returns true if buf was a known type.
 */
bool xfmt_log_buf_seal(uint8_t *buf, size_t len, uint64_t lsn, uint32_t blocksize);

/* ---- inode items ---- */

#define XFS_ILOG_CORE   0x001u
#define XFS_ILOG_DDATA  0x002u
#define XFS_ILOG_DEXT   0x004u
#define XFS_ILOG_DBROOT 0x008u
#define XFS_ILOG_DEV    0x010u
#define XFS_ILOG_ADATA  0x040u
#define XFS_ILOG_AEXT   0x080u
#define XFS_ILOG_ABROOT 0x100u
#define XFS_ILOG_DOWNER 0x200u
#define XFS_ILOG_AOWNER 0x400u
#define XFS_ILOG_DFORK  (XFS_ILOG_DDATA | XFS_ILOG_DEXT | XFS_ILOG_DBROOT)
#define XFS_ILOG_AFORK  (XFS_ILOG_ADATA | XFS_ILOG_AEXT | XFS_ILOG_ABROOT)
#define XLOG_INODE_FMT_SIZE    56u
#define XLOG_INODE_FMT32_SIZE  52u  /* packed variant old 32-bit kernels wrote */
#define XLOG_DINODE_V3_SIZE    176u
#define XLOG_DINODE_V2_SIZE    100u

struct xfmt_log_inode {
	uint16_t nregions;
	uint32_t fields;    /* XFS_ILOG_* */
	uint16_t asize, dsize;
	uint64_t ino;
	uint32_t rdev;      /* first word of the union (XFS_ILOG_DEV) */
	uint64_t blkno;     /* daddr of the inode's cluster buffer */
	uint32_t len;       /* its length in 512-byte blocks */
	uint32_t boffset;   /* byte offset of the inode in that buffer */
};

/* Decode an inode item's format region (56 or 52 bytes).  0 or -1. */
int xfmt_log_inode_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_inode *out);

/* Why an inode item was not replayed (0 = replayed). */
enum xfmt_log_inode_skip {
	XLOG_INODE_REPLAYED = 0,
	XLOG_INODE_NEWER,       /* the on-disk v3 inode's LSN is past the transaction */
	XLOG_INODE_FLUSHITER,   /* v2: the on-disk flush counter is newer */
	XLOG_INODE_BAD,         /* the item or the target is damaged: nothing written */
};

/*
 * Replay an inode item onto dip (inodesize bytes of the on-disk inode).
 * The logged core (region 1) is converted to disk order; di_lsn becomes
 * lsn, di_next_unlinked and di_crc are not taken from the log; then the
 * data and attr fork regions are copied into the literal area (a logged
 * bmbt root converted to the bmdr form), rdev stored for XFS_ILOG_DEV, and
 * on v3 the CRC recomputed.  v3inodes says the filesystem has v3 inodes
 * (no flush-counter check).  Returns the outcome.
 */
enum xfmt_log_inode_skip xfmt_log_inode_apply(const struct xfmt_log_titem *it,
					      const struct xfmt_log_inode *in, bool big,
					      uint8_t *dip, uint32_t inodesize, bool v3inodes,
					      uint64_t lsn);

/*
 * Convert a bmbt root in the long btree block form (src, srclen bytes;
 * header of 72 bytes when crc, else 24) into the bmdr form at dst (dstlen
 * bytes: the fork's size).  Returns 0, or -1 if the records do not fit.
 */
int xfmt_log_bmbt_to_bmdr(const uint8_t *src, size_t srclen, bool crc, uint8_t *dst, size_t dstlen);

/* ---- icreate ---- */

#define XLOG_ICREATE_SIZE 28u

struct xfmt_log_icreate {
	uint32_t agno, agbno, count, isize, length, gen;
};

/* Decode an icreate item (type/size in writer order, the rest big-endian). */
int xfmt_log_icreate_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_icreate *out);

/*
 * Initialise one inode cluster buffer (len bytes) as icreate recovery does:
 * zeroed, then every inode with its magic, version, generation gen and
 * di_next_unlinked NULLAGINO; version 3 inodes also get their number
 * (first_ino onwards), meta_uuid and the CRC.  Returns 0 or -1 (bad sizes).
 */
int xfmt_log_icreate_init(uint8_t *buf, size_t len, uint32_t inodesize, uint8_t version,
			  uint64_t first_ino, uint32_t gen, const uint8_t meta_uuid[16]);

/* ---- intents and their done items ---- */

struct xfmt_log_intent {
	uint16_t type;      /* the item's own type */
	uint16_t intent;    /* the intent type it belongs to (EFI for EFD, ...) */
	bool     done;      /* a done item */
	uint64_t id;        /* intent id (done items: the id they finish) */
	uint32_t nextents;  /* intents: extents or mappings listed (0 if none) */
};

/* Decode an intent or done item (EFI/EFD, RUI/RUD, CUI/CUD, BUI/BUD,
 * ATTRI/ATTRD, XMI/XMD).  0, or -1 if it is not one or is too short. */
int xfmt_log_intent_decode(const struct xfmt_log_titem *it, bool big, struct xfmt_log_intent *out);

#endif /* XFMT_LOG_ITEM_H */
