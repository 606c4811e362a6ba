/*
 * sparse_image.h - the compact image container fed to fuzz_image.
 *
 * A whole XFS image is hundreds of megabytes but only a few kilobytes of it
 * are not zero right after mkfs, so the fuzzer input lists just those bytes:
 *
 *   "XFZI"  be32 image size in KiB (clamped to FZI_MAX_KIB)
 *   then records until the end of the input, each
 *     be32 sector   512-byte unit where the record starts
 *     be16 skip     bytes to add to that (any value)
 *     be16 word     bit 15 clear: a literal of `word` bytes follows
 *                   bit 15 set:   one byte follows, repeated word & 0x7fff times
 *
 * Everything not covered by a record is zero.  Bytes past the image size
 * and a literal cut short by the end of the input are dropped.  Records may
 * overlap (later ones win) and may come in any order, so a mutation of a
 * header field moves or resizes one piece of metadata without breaking the
 * rest.  An input without the magic is itself the raw image.
 */
#ifndef XFZ_SPARSE_IMAGE_H
#define XFZ_SPARSE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define FZI_MAGIC       "XFZI"
#define FZI_HDR_LEN     8u
#define FZI_REC_LEN     8u
#define FZI_FILL_BIT    0x8000u
#define FZI_MAX_KIB     (1u << 20)   /* 1 GiB: holes cost nothing in a memfd */

/* Called for each piece of the image: len bytes at off, from src (literal)
 * or all equal to fill (src NULL).  Return non-zero to stop. */
typedef int (*fzi_emit_fn)(void *arg, uint64_t off, const uint8_t *src, uint8_t fill,
			   size_t len);

/*
 * Walk the container in (or the raw image, when in lacks the magic).
 * Stores the image size in *size before the first emit; emits only pieces
 * inside it.  Returns 0, or the first non-zero value emit returned.
 */
int fzi_parse(const uint8_t *in, size_t len, uint64_t *size, fzi_emit_fn emit, void *arg);

#endif /* XFZ_SPARSE_IMAGE_H */
