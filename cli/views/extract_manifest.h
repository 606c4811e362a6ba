/*
 * extract_manifest.h - the manifest `extract --manifest FILE` writes: one
 * tab-separated line per name extracted, for a case file or a script.
 *
 *   path  inode  type  size  sha256  state
 *
 * path is the name in the image (escaped as ls prints it, so no tab or
 * newline can appear in it); type is file, dir, symlink, fifo, socket,
 * chardev or blockdev; sha256 is that of the bytes extracted (holes and
 * unreadable ranges as the zeros written; a symlink's target; "-" for
 * the rest, or where it was not computed); state is "intact", "damaged:"
 * with what was wrong (unreadable=FIRST-LAST byte ranges, map, twice=N
 * blocks mapped twice, size-cut), "hardlink" for a later name of an inode
 * already extracted (the inode column ties it to the first), "stripped"
 * for a device node not created, or "skipped".  The first line names the
 * columns.
 */
#ifndef XC_EXTRACT_MANIFEST_H
#define XC_EXTRACT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

struct xc_manifest;

/*
 * Create path (never the image or what aliases it: image_path and
 * image_fd name it; an existing path is refused) and write the column
 * line.  Returns 0 or a negative xerr with err filled in.
 */
int xc_manifest_open(struct xc_manifest **m, const char *path, const char *image_path,
		     int image_fd, char *err, size_t errlen);

/* One line; sha NULL prints "-". */
void xc_manifest_line(struct xc_manifest *m, const char *path, uint64_t ino, const char *type,
		      uint64_t size, const uint8_t *sha, const char *state);

/* Flush and close; 0, or XERR_IO when a write failed (err filled in). */
int xc_manifest_close(struct xc_manifest **m, char *err, size_t errlen);

#endif /* XC_EXTRACT_MANIFEST_H */
