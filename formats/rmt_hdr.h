/*
 * rmt_hdr.h - the 56-byte header of a v5 "remote" block: a remote
 * attribute value block (XARM) and a remote symlink block (XSLM) share it
 * field for field (xfs-ondisk.md 8.4).  One decoder and one encoder; the
 * rules each kind applies stay in attr.c and symlink.c.
 */
#ifndef XFMT_RMT_HDR_H
#define XFMT_RMT_HDR_H

#include <stddef.h>
#include <stdint.h>

#include "formats/geom.h"

#define XFMT_RMT_MAGIC_OFF   0u
#define XFMT_RMT_OFFSET_OFF  4u
#define XFMT_RMT_BYTES_OFF   8u
#define XFMT_RMT_CRC_OFF     12u
#define XFMT_RMT_UUID_OFF    16u
#define XFMT_RMT_OWNER_OFF   32u
#define XFMT_RMT_BLKNO_OFF   40u
#define XFMT_RMT_LSN_OFF     48u
#define XFMT_RMT_HDR_LEN     56u

/* A decoded remote block header. */
struct xfmt_rmt_hdr {
	uint32_t magic;
	uint32_t offset;   /* payload offset of this block's first byte */
	uint32_t bytes;    /* payload bytes in this block */
	uint32_t crc;      /* stored value (little-endian on disk) */
	uint8_t  uuid[16];
	uint64_t owner;    /* inode number */
	uint64_t blkno;    /* daddr of this block */
	uint64_t lsn;
};

/* Decode the header at buf; -1 (and *out zeroed) if len < 56. */
int xfmt_rmt_hdr_decode(const uint8_t *buf, size_t len, struct xfmt_rmt_hdr *out);

/*
 * Write a header anew (magic, offset, bytes, the metadata uuid of g,
 * owner, blkno = daddr, lsn) and the CRC over len bytes; the payload after
 * it is left as it is.  Returns 0, or -1 if len cannot hold the header.
 */
int xfmt_rmt_hdr_encode(uint8_t *buf, size_t len, const struct xfmt_geom *g, uint32_t magic,
			uint64_t owner, uint32_t offset, uint32_t bytes, uint64_t daddr,
			uint64_t lsn);

#endif /* XFMT_RMT_HDR_H */
