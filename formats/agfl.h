/*
 * agfl.h - the AGFL (sector 3 of every AG): the small reserve of free blocks
 * the AG btrees draw on when they split.  v5 has a 36-byte header and then
 * (sectsize - 36) / 4 slots; v4 has no header and sectsize / 4 slots.  The
 * active entries are the AGF's window flfirst..fllast (flcount of them,
 * wrapping at the end of the array).  Decoder, window helpers, verifier and
 * the header field table.
 */
#ifndef XFMT_AGFL_H
#define XFMT_AGFL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/agf.h"
#include "formats/field.h"
#include "formats/geom.h"
#include "formats/problem.h"

#define XFS_AGFL_MAGIC        0x5841464Cu   /* "XAFL" */
#define XFS_AGFL_HDR_SIZE     36            /* v5 header, packed */
#define XFS_AGFL_CRC_OFF      32

/*
 * Decoded AGFL.  The header fields are zero on v4.  slots borrows the
 * buffer passed to xfmt_agfl_decode: it is valid as long as that buffer is,
 * and holds size big-endian 32-bit agbnos (read them with xfmt_agfl_slot).
 */
struct xfmt_agfl {
	uint32_t magicnum;
	uint32_t seqno;
	uint8_t  uuid[16];
	uint64_t lsn;
	uint32_t crc;
	uint32_t size;          /* entries in the slot array */
	const uint8_t *slots;   /* borrowed pointer to the be32 array inside buf */
};

/*
 * Decode the AGFL sector at buf using g (sectsize, v5).  Returns 0, or -1 if
 * len < g->sectsize or g->sectsize is too small to hold an AGFL.
 */
int xfmt_agfl_decode(const uint8_t *buf, size_t len, const struct xfmt_geom *g,
		     struct xfmt_agfl *out);

/* Slot i of the array; NULLAGBLOCK when i >= size. */
uint32_t xfmt_agfl_slot(const struct xfmt_agfl *agfl, uint32_t i);

/*
 * The i-th active block (0 <= i < flcount), following the wrap from flfirst.
 * NULLAGBLOCK when i is past flcount or the array, or flfirst is out of range.
 */
uint32_t xfmt_agfl_active(const struct xfmt_agfl *agfl, const struct xfmt_agf *agf,
			  uint32_t i);

/* Slot index of the i-th active block (same rules); UINT32_MAX when none. */
uint32_t xfmt_agfl_active_slot(const struct xfmt_agfl *agfl, const struct xfmt_agf *agf,
			       uint32_t i);

/*
 * Verify the AGFL of AG agno.  v5: magic, seqno, uuid, CRC (over sectsize,
 * when len >= sectsize), and the kernel's rule that every slot holds null or
 * a block below agblocks.  With a usable AGF (agf non-NULL, its flfirst below
 * the array size): every active block is inside the AG and past the header
 * blocks (agflBadBlock, off = slot index), no block appears twice in the
 * window (agflDuplicateBlock), and a window whose count is off by one after
 * a wrap, the old-kernel header padding signature that makes
 * xfs_agfl_needs_reset fire, is agflNeedsReset.  Returns the findings count.
 */
unsigned xfmt_agfl_verify(const uint8_t *buf, size_t len, const struct xfmt_agfl *agfl,
			  const struct xfmt_agf *agf, const struct xfmt_geom *g,
			  uint32_t agno, const struct xprob_sink *sink);

/*
 * Encode the AGFL sector of AG agno at buf (len >= g->sectsize) holding
 * blocks[0..n) in slots 0..n-1 (the AGF window is then flfirst 0, fllast
 * n - 1, flcount n) and NULLAGBLOCK in every other slot.  v5: header with
 * magic, seqno, g->meta_uuid, lsn and the CRC.  Returns 0, or -1 if the
 * sector cannot hold an AGFL or n exceeds its slots.
 */
int xfmt_agfl_encode(uint8_t *buf, size_t len, const struct xfmt_geom *g, uint32_t agno,
		     uint64_t lsn, const uint32_t *blocks, uint32_t n);

/*
 * The v5 header fields, named as `xfs_db -c 'agfl N' -c p` prints them (it
 * then prints the slot array as "bno").  All are v5only: v4 has no header.
 */
extern const struct xfmt_field xfmt_agfl_fields[];

#endif /* XFMT_AGFL_H */
