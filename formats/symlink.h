/*
 * symlink.h - symbolic link targets: the local form (target bytes in the
 * inode's data fork) and the remote form (target bytes in fs blocks mapped
 * by the data fork), with the v5 XSLM block header.
 *
 * Owns: where the target bytes are, the header of a remote buffer, the
 * per-buffer checks of the kernel's xfs_symlink_verify / xfs_symlink_hdr_ok,
 * the target checks of xfs_symlink_shortform_verify and xfs_repair's
 * process_symlink (length 1..1023, no NUL byte), and an assembler that
 * rebuilds a remote target from its buffers in a fixed-size buffer.
 *
 * The remote form, as the kernel writes and reads it: the data fork maps
 * file blocks 0..n-1 (n <= 3; one for any target on 4 KiB blocks).  Each
 * MAPPING (one extent record, possibly several contiguous blocks) is one
 * buffer; on v5 that buffer starts with ONE 56-byte header (not one per
 * block) whose CRC covers the whole buffer, then sl_bytes target bytes
 * starting at target offset sl_offset.  v4 buffers are raw target bytes.
 * (Remote attr values differ: one header per block, see attr.h.)
 *
 * How a reader uses this (cat, stat, readlink):
 *   LOCAL:   t = xfmt_symlink_local(fork, forksize, di_size, &len).
 *   EXTENTS: xfmt_symlink_asm_init(&a, g, ino, di_size); for each mapping
 *            of the data fork in file-offset order, read blockcount *
 *            blocksize bytes at its startblock and call xfmt_symlink_asm_add;
 *            stop when xfmt_rmt_cursor_done(&a.cur); then xfmt_symlink_asm_finish.
 *            a.target[0..a.cur.have) is the target (not NUL-terminated).
 * Facts: xfs-ondisk.md 8.4 (header layout) and 9.
 */
#ifndef XFMT_SYMLINK_H
#define XFMT_SYMLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btrec.h"
#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"
#include "formats/rmt_hdr.h"

#define XFS_SYMLINK_MAGIC     0x58534C4Du  /* "XSLM" */
#define XFMT_SYMLINK_HDR_LEN  XFMT_RMT_HDR_LEN
#define XFMT_SYMLINK_CRC_OFF  12u
/* MAXPATHLEN: a target is at most XFMT_SYMLINK_MAXLEN - 1 bytes. */
#define XFMT_SYMLINK_MAXLEN   1024u
/* Most mappings a remote target may use (XFS_SYMLINK_MAPS). */
#define XFMT_SYMLINK_MAPS     3u

/* ----------------------------------------------------------- local */

/*
 * The target of a LOCAL symlink: a pointer to the start of the data fork
 * (fork/forksize as xfmt_dinode_fork returns them), with *len =
 * min(size, forksize) where size is di_size.  Never points past the fork.
 * Returns NULL (and *len = 0) if fork is NULL.
 */
const uint8_t *xfmt_symlink_local(const uint8_t *fork, size_t forksize, uint64_t size,
				  size_t *len);

/*
 * Verify a LOCAL symlink: symBadSize (di_size 0 or >= 1024), symLocalOverflow
 * (di_size larger than the data fork), symNulInTarget (a NUL byte among the
 * target bytes that fit; {off} is its offset).  Returns the findings count.
 */
unsigned xfmt_symlink_local_verify(const uint8_t *fork, size_t forksize, uint64_t size,
				   const struct xprob_sink *sink);

/* ---------------------------------------------------------- remote */

/* Target bytes a buffer of buflen bytes can carry: buflen - 56 (v5) or buflen. */
size_t xfmt_symlink_buf_space(size_t buflen, bool v5);

/* Where the target bytes of a remote buffer start: 56 on v5, 0 on v4. */
size_t xfmt_symlink_payload_off(bool v5);

/*
 * Verify one remote buffer of len bytes (a whole mapping).  v4 buffers have
 * no header: nothing to check, 0 findings.  v5, each its own finding:
 * symUnreadable (len < 56), symBadMagic, symBadCrc (over len bytes),
 * symBadUuid, symBadBlkno (!= exp->daddr), symBadRange (bytes over the
 * buffer space; offset + bytes >= 1024), symBadOwner (0, or != exp->owner),
 * and with know_range symHdrMismatch for offset and bytes.  The LSN is not
 * checked (that needs the log head).  Returns the findings count.
 */
unsigned xfmt_symlink_rmt_verify(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
				 const struct xfmt_rmt_expect *exp,
				 const struct xprob_sink *sink);

/*
 * Verify a remote symlink's data fork map (n mappings, in fork order), as
 * xfs_repair's process_symlink_extlist does: at most as many mappings and
 * blocks as the longest target needs, each mapping starting where the last
 * ended (the first at file block 0) and none empty.  symBadMap for the
 * first that breaks a rule (field "extents", "startoff" or "blockcount").
 * Returns the findings count.
 */
unsigned xfmt_symlink_map_verify(const struct xfmt_bmbt_rec *v, size_t n,
				 const struct xfmt_geom *g, const struct xprob_sink *sink);

/* Rebuilds a remote target from its buffers; no allocation. */
struct xfmt_symlink_asm {
	struct xfmt_rmt_cursor cur;  /* want: di_size, at most MAXLEN - 1 */
	uint8_t  target[XFMT_SYMLINK_MAXLEN];
	uint64_t size;               /* di_size as given */
};

/* Start assembling the target of inode owner whose di_size is size. */
void xfmt_symlink_asm_init(struct xfmt_symlink_asm *a, const struct xfmt_geom *g,
			   uint64_t owner, uint64_t size);

/*
 * Add the next buffer (len bytes read from daddr, one mapping of the data
 * fork in file order): verify it with the expectation the bytes collected
 * so far give (xfmt_symlink_rmt_verify with know_range), then copy
 * min(bytes left, buffer space) payload bytes, even from a damaged buffer
 * (the findings say so) as the kernel's reader would.  A buffer added after
 * the target is complete is ignored.  Returns the findings for this buffer.
 */
unsigned xfmt_symlink_asm_add(struct xfmt_symlink_asm *a, const uint8_t *buf, size_t len,
			      uint64_t daddr, const struct xfmt_geom *g,
			      const struct xprob_sink *sink);

/*
 * After the last buffer: symBadSize (di_size 0 or >= 1024),
 * symTargetIncomplete (fewer bytes than di_size), symNulInTarget.
 * Returns the findings count.
 */
unsigned xfmt_symlink_asm_finish(struct xfmt_symlink_asm *a, const struct xprob_sink *sink);

/* Header field table with xfs_db's names (magic, offset, bytes, crc, uuid, owner, bno, lsn). */
extern const struct xfmt_field xfmt_symlink_hdr_fields[];

#endif /* XFMT_SYMLINK_H */
