/*
 * crc32c.h - CRC-32C (Castagnoli) as XFS uses it for every self-describing
 * metadata object: seed ~0, final inversion, stored little-endian, computed
 * with the object's own CRC field taken as four zero bytes.
 */
#ifndef XFMT_CRC32C_H
#define XFMT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Standard CRC-32C of len bytes (check value: "123456789" -> 0xE3069283). */
uint32_t xfmt_crc32c(const void *buf, size_t len);

/*
 * CRC-32C of buf[0..len) with the 4 bytes at crc_off treated as zero, which is
 * how XFS computes the checksum of an object that contains its own CRC.
 * Returns 0 if the CRC field does not fit inside the buffer (callers check
 * sizes first; this keeps a bad call from reading out of bounds).
 */
uint32_t xfmt_crc32c_excluding(const uint8_t *buf, size_t len, size_t crc_off);

/* True when the little-endian CRC stored at crc_off matches the contents. */
int xfmt_crc_ok(const uint8_t *buf, size_t len, size_t crc_off);

/*
 * Streaming form for objects whose covered bytes are not contiguous (a log
 * record: header, extended headers, payload): start with reg = ~0u, feed
 * every piece in order, and the CRC is the final ~reg.
 */
uint32_t xfmt_crc32c_raw(uint32_t reg, const void *buf, size_t len);

/*
 * xfmt_crc32c_raw by table alone: what every function here uses where the CPU
 * lacks the crc32 instruction (SSE4.2); tests compare the two.
 */
uint32_t xfmt_crc32c_raw_portable(uint32_t reg, const void *buf, size_t len);

/* Recompute and store the CRC at crc_off (used by writers and test fixtures). */
void xfmt_crc_update(uint8_t *buf, size_t len, size_t crc_off);

#endif /* XFMT_CRC32C_H */
