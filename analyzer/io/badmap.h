/*
 * badmap.h - sectors the user says are unreadable: a GNU ddrescue mapfile
 * (or a plain list of byte ranges), and an image view that refuses to read
 * them.
 *
 * A ddrescue copy holds zeros (or a fill pattern) where the source could not
 * be read; read as data they would pass for the disk's contents.  Under the
 * view every read that touches a listed byte fails as an I/O error does, so
 * every pass, view and writer treats those bytes as lost, and none of them
 * is ever read from the image.
 */
#ifndef XA_BADMAP_H
#define XA_BADMAP_H

#include <stddef.h>
#include <stdint.h>

struct ximg;

/* Byte ranges [start, end) of the whole image, sorted, merged. */
struct ximg_badmap {
	uint64_t *start, *end;
	size_t    n;
};

/* At most this many ranges are read from a map (a map of a whole disk in
 * 512-byte pieces is far smaller). */
#define XIMG_BADMAP_MAX (1u << 22)

/*
 * Read the map at path.  A ddrescue mapfile: '#' comments, the
 * current-position line, then "POS SIZE STATUS" lines (0x numbers); every
 * status but '+' (finished) is unreadable.  A plain list: "OFFSET LENGTH"
 * per line (decimal or 0x).  Returns 0, or XERR_FORMAT / XERR_IO /
 * XERR_NOMEM with err filled in (the line that is wrong, by number).
 */
int ximg_badmap_load(const char *path, struct ximg_badmap *out, char *err, size_t errlen);

void ximg_badmap_release(struct ximg_badmap *bm);

/* Bytes of [off, off + len) the map lists. */
uint64_t ximg_badmap_overlap(const struct ximg_badmap *bm, uint64_t off, uint64_t len);

/*
 * A view of inner (taken over, freed with the view) whose reads fail with
 * XERR_IO where they touch a range of bm (taken over too).
 */
int ximg_open_badmap(struct ximg *inner, struct ximg_badmap *bm, struct ximg **out);

/*
 * Read len bytes at off, the listed ranges as zeros without reading them:
 * for the passes that must copy or hash everything (repair's output, the
 * input digest).  *bad (may be NULL) receives the bytes zeroed.  On any
 * other image it is ximg_pread.  Returns 0 or a negative xerr.
 */
int ximg_pread_fill(struct ximg *img, void *buf, size_t len, uint64_t off, uint64_t *bad);

#endif /* XA_BADMAP_H */
