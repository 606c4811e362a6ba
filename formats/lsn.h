/*
 * lsn.h - log sequence numbers stamped in v5 metadata, and their order
 * against the log.
 *
 * An LSN is cycle << 32 | block.  Every v5 metadata block that is written
 * through the log carries the LSN of its last write; recovery compares it
 * with the LSNs of logged changes to skip those already on disk.  So no
 * metadata may carry an LSN at or past the log's head: the kernel's read
 * verifiers call such a block corrupt (xfs_log_check_lsn), and xfs_repair
 * then formats the log to a cycle past the largest one.  Both read the two
 * halves as signed 32-bit numbers, so an LSN whose cycle or block has the
 * top bit set is never ahead; NULLCOMMITLSN (all ones) means "not logged".
 */
#ifndef XFMT_LSN_H
#define XFMT_LSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"

#define XFMT_NULLCOMMITLSN UINT64_MAX

/* The LSN of log block `block` written in cycle `cycle`. */
static inline uint64_t xfmt_lsn_make(uint32_t cycle, uint32_t block)
{
	return (uint64_t)cycle << 32 | block;
}

/*
 * True when lsn is at or past head, in the kernel's signed arithmetic; a
 * NULLCOMMITLSN, or an LSN whose halves read as negative, never is.
 */
bool xfmt_lsn_ahead(uint64_t lsn, uint64_t head);

/*
 * Of two LSNs the later one in the same arithmetic (a NULLCOMMITLSN or a
 * negative half counts as earliest).
 */
uint64_t xfmt_lsn_later(uint64_t a, uint64_t b);

/*
 * The LSN stamped in the v5 metadata block at buf (len bytes), found by its
 * magic: AG headers (AGF, AGI, AGFL), every short and long btree block,
 * directory data, block, leaf, node and free blocks, attribute leaf and node
 * blocks, remote attribute values and remote symlink blocks.  Returns true
 * with *lsn set, false for v4 geometry, an unknown magic or a buffer too
 * short for the header.  The caller vouches that buf was read as metadata:
 * file data may carry any magic.
 */
bool xfmt_meta_lsn(const uint8_t *buf, size_t len, const struct xfmt_geom *g, uint64_t *lsn);

#endif /* XFMT_LSN_H */
