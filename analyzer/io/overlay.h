/*
 * overlay.h - replayed bytes laid over an image: a bounded store of
 * 512-byte sectors, and an image backend that reads through it.
 *
 * Log replay writes whole metadata buffers; they are kept here, one copy
 * per sector, keyed by the sector's number in the filesystem.  The overlay
 * image (kind "replay") reads the parent's bytes and patches every sector
 * the store holds, so passes, views and the repair planner see the
 * filesystem as the log leaves it while the parent (the evidence) is never
 * changed.  Memory is bounded: a store refuses writes past max_bytes.
 */
#ifndef XA_OVERLAY_H
#define XA_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

struct ximg;
struct ximg_overlay;

#define XIMG_OVERLAY_SECTOR 512u

/* An empty store holding at most max_bytes of sectors.  0 or XERR_NOMEM. */
int ximg_overlay_new(uint64_t max_bytes, struct ximg_overlay **out);

/* Free the store; *ov becomes NULL (NULL allowed). */
void ximg_overlay_free(struct ximg_overlay **ov);

/*
 * Store len bytes at filesystem byte off (both multiples of 512).
 * Returns 0, XERR_USAGE (unaligned), or XERR_NOMEM (memory or the bound).
 */
int ximg_overlay_write(struct ximg_overlay *ov, uint64_t off, const void *buf, size_t len);

/* Lay the stored sectors that fall in [off, off+len) over buf. */
void ximg_overlay_patch(const struct ximg_overlay *ov, uint64_t off, void *buf, size_t len);

/* Read len bytes at off from parent with the stored sectors laid over. */
int ximg_overlay_read(const struct ximg_overlay *ov, struct ximg *parent, uint64_t off, void *buf,
		      size_t len);

/* Bytes stored (sectors * 512). */
uint64_t ximg_overlay_bytes(const struct ximg_overlay *ov);

/*
 * Call fn for every run of consecutive stored sectors, in offset order,
 * in pieces of at most 1 MiB.  Stops at and returns fn's first non-zero
 * result; XERR_NOMEM if the sort needs memory it cannot get.
 */
int ximg_overlay_each(const struct ximg_overlay *ov,
		      int (*fn)(void *arg, uint64_t off, const uint8_t *bytes, size_t len),
		      void *arg);

/*
 * An image over parent that reads through ov.  Both are borrowed and must
 * outlive the image.  0 or XERR_NOMEM.
 */
int ximg_open_overlay(struct ximg *parent, const struct ximg_overlay *ov, struct ximg **out);

#endif /* XA_OVERLAY_H */
