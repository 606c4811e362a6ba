/*
 * dahash.h - the name hash of XFS directories and extended attributes.
 *
 * Every directory leaf entry, DA node key and attribute leaf entry is keyed
 * by a 32-bit hash of the name (xfs-ondisk.md 7.8).  Two functions exist:
 * the classic xfs_da_hashname, used for all attribute names and for
 * directory names on normal filesystems, and the ASCII case-insensitive
 * variant used for directory names when the superblock has the BORG
 * ("ascii-ci") version bit.  Both treat name bytes as unsigned and take any
 * byte value; they never read past len.
 */
#ifndef XFMT_DAHASH_H
#define XFMT_DAHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"

/* sb_versionnum bit that selects the ASCII case-insensitive name hash. */
#define XFS_SB_VERSION_BORGBIT 0x4000u

/* Hashes of the two names every directory has (checked against xfs_db). */
#define XFS_DA_HASH_DOT    0x2Eu
#define XFS_DA_HASH_DOTDOT 0x172Eu

/*
 * xfs_da_hashname: the hash of len bytes at name.  Four bytes are folded per
 * step with a 28-bit rotation of the running value, the 1-3 byte remainder
 * with a 7-bit rotation per byte.  A zero-length name hashes to 0.
 */
uint32_t xfmt_da_hashname(const uint8_t *name, size_t len);

/*
 * The byte transformation of ASCII-CI directories: A-Z, 0xC0-0xD6 and
 * 0xD8-0xDE (Latin-1 capitals) map to their lower-case value (+0x20);
 * every other byte is unchanged.  This is the kernel's rule since Linux
 * 6.4; older kernels and xfsprogs before 6.4 used the C library's
 * tolower(), which in the C locale folds A-Z only.  The two agree on ASCII.
 */
uint8_t xfmt_ascii_ci_xfrm(uint8_t c);

/* ASCII-CI hash: h = xfrm(c) ^ rol32(h, 7) for each byte. */
uint32_t xfmt_ascii_ci_hashname(const uint8_t *name, size_t len);

/* True when directory names on this filesystem use the ASCII-CI hash. */
bool xfmt_dir_is_ci(const struct xfmt_geom *g);

/*
 * The hash a directory leaf entry of this filesystem stores for a name:
 * the ASCII-CI hash on ascii-ci filesystems, xfs_da_hashname otherwise.
 * (Attribute names always use xfmt_da_hashname.)
 */
uint32_t xfmt_dir2_hashname(const struct xfmt_geom *g, const uint8_t *name, size_t len);

#endif /* XFMT_DAHASH_H */
