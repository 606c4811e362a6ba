/*
 * dinode_enc.h - writing inode cores: the few edits a repair makes to an
 * inode that stays, a free inode as the kernel leaves one, and the v3 seal.
 *
 * Edits work on the raw inode bytes in place (the rest of the core and the
 * forks are kept exactly as they were); the caller seals the inode last.
 */
#ifndef XFMT_DINODE_ENC_H
#define XFMT_DINODE_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/dinode.h"
#include "formats/geom.h"

/*
 * Fill buf (g->inodesize bytes) with a free inode: magic, the version the
 * filesystem uses (3 on v5, else 2), mode 0, extent-format forks with no
 * extents, no attr fork, next_unlinked NULLAGINO, generation gen; on v5
 * also di_ino, the metadata uuid, lsn and the CRC.  Everything else zero.
 */
void xfmt_dinode_free_encode(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint32_t gen,
			     uint64_t lsn);

/*
 * Fill buf with a fresh in-use inode of type and permissions mode: a free
 * inode (as above, generation 0) given mode, nlink and di_flags; a
 * directory's data fork is an empty short-form directory whose ".." is ino
 * itself (right for a root; the caller rewrites any other directory), other
 * types get empty extents and size 0; times and owner zero.  What a repair writes where a root directory or a
 * realtime inode was destroyed and nothing is left to copy.  Sealed.
 */
void xfmt_dinode_new_encode(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint16_t mode,
			    uint32_t nlink, uint16_t flags, uint64_t lsn);

/* Field edits (decoded layout d tells NREXT64 from classic counters). */
void xfmt_dinode_put_flags(uint8_t *buf, uint16_t flags);
void xfmt_dinode_put_nlink(uint8_t *buf, uint32_t nlink);
void xfmt_dinode_put_size(uint8_t *buf, uint64_t size);
/* di_flags2 (v3 inodes only: the caller checks the version). */
void xfmt_dinode_put_flags2(uint8_t *buf, uint64_t flags2);
void xfmt_dinode_put_nblocks(uint8_t *buf, uint64_t nblocks);
void xfmt_dinode_put_nextents(uint8_t *buf, const struct xfmt_dinode *d, uint64_t n);
void xfmt_dinode_put_anextents(uint8_t *buf, const struct xfmt_dinode *d, uint32_t n);
void xfmt_dinode_put_next_unlinked(uint8_t *buf, uint32_t agino);
void xfmt_dinode_put_format(uint8_t *buf, uint8_t format);
void xfmt_dinode_put_forkoff(uint8_t *buf, uint8_t forkoff);
void xfmt_dinode_put_aformat(uint8_t *buf, uint8_t aformat);
/* di_gen: a revived directory takes the generation its children's parent
 * pointers name, so that they stay true. */
void xfmt_dinode_put_gen(uint8_t *buf, uint32_t gen);
/* A file of the user's tree marked as a metadata file: the METADATA flag
 * cleared and di_onlink, which holds a metadata file's type, zeroed (the
 * link count is di_nlink's). */
void xfmt_dinode_unmark_metadata(uint8_t *buf, const struct xfmt_dinode *d);
/* A metadata file's core as the kernel wants it (xfmt_dinode_metafile_flags
 * set, no access permissions, owner and group 0, no DMAPI state; the project
 * id, a realtime group's number on its files, is left);
 * nothing for an inode without the METADATA flag. */
void xfmt_dinode_tidy_metafile(uint8_t *buf, const struct xfmt_dinode *d);
/* Make a v3 core a metadata file of type metatype (XFS_METAFILE_*): the
 * METADATA flag, di_onlink the type, and the core tidied as above. */
void xfmt_dinode_mark_metadata(uint8_t *buf, const struct xfmt_dinode *d, uint16_t metatype);

/*
 * Take back what the inode verifier refuses in flags, flags2 and the
 * extent size hints, as xfs_repair does: unknown bits cleared; an extent
 * size hint flag on a file of the wrong type, a flag its mode or number
 * cannot carry (xfmt_dinode_flags_allowed), reflink and CoW-hint bits the
 * filesystem or file type cannot carry, a bigtime flag the filesystem does
 * not know, dropped; a hint value with no flag, or invalid, zeroed with its
 * flag.  The NREXT64 flag is kept where the filesystem has large extent
 * counts (the counters' layout depends on it); where it has not, no kernel
 * set it, the counters are in the small layout, and the flag goes.
 * Returns whether anything changed; the caller seals.
 */
bool xfmt_dinode_sanitize_flags(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino,
				const struct xfmt_dinode *d);

/*
 * What a repair keeps of an old core must pass the verifier on its own:
 * the version the filesystem writes (3 on v5; on v4 a version 1 core is
 * made version 2), di_onlink zero, flags and hints sanitized
 * (xfmt_dinode_sanitize_flags), the pads zeroed, and timestamps a lost
 * bigtime flag left out of range mended (xfmt_dinode_fix_times).  d is buf
 * decoded; buf holds g->inodesize bytes.  The caller seals.
 */
void xfmt_dinode_tidy_kept_core(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino,
				const struct xfmt_dinode *d);

/*
 * Zero the padding of a v3 core the kernel always writes as zero (what
 * inoNonzeroPad reports): di_v3_pad, or nrext64_pad under NREXT64, and
 * di_pad2.  Nothing on older cores.
 */
/*
 * Legacy timestamps with nanoseconds over 999999999 (inoBadTimestamp).  On
 * a bigtime filesystem where every stamp of the inode reads as a date from
 * 1970 to 2100 in the bigtime encoding, the inode's bigtime flag is what was
 * lost, and it is set back; otherwise the bad nanoseconds are zeroed, as
 * xfs_repair does.  Returns whether anything changed; the caller seals.
 */
bool xfmt_dinode_fix_times(uint8_t *buf, const struct xfmt_geom *g, const struct xfmt_dinode *d);

void xfmt_dinode_zero_pads(uint8_t *buf, const struct xfmt_dinode *d);

/*
 * Empty the attr fork: aformat EXTENTS, no attr extents, its bytes zeroed
 * (forkoff is kept).  The caller releases its blocks.
 */
void xfmt_dinode_drop_attr_fork(uint8_t *buf, const struct xfmt_geom *g,
				const struct xfmt_dinode *d);

/*
 * Seal a v3 inode (no-op on v4): di_ino, di_uuid (g->meta_uuid), di_lsn and
 * the CRC.  Call after every edit.
 */
void xfmt_dinode_seal(uint8_t *buf, const struct xfmt_geom *g, uint64_t ino, uint64_t lsn);

#endif /* XFMT_DINODE_ENC_H */
