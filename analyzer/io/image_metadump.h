/*
 * image_metadump.h - an xfs_metadump file read as the filesystem it was
 * taken from: the dumped blocks where they were, zeros everywhere else
 * (what xfs_mdrestore would write, without writing it).
 *
 * Version 1 ("XFSM"): index blocks of 2^blocklog bytes, each a header
 * (be32 magic, be16 count, u8 blocklog, u8 info) and count be64 daddrs,
 * followed by count blocks of 2^blocklog bytes; an index block that is not
 * full ends the dump.  Version 2 ("XMD2"): a 24-byte header (magic,
 * version, compat and incompat flags, reserved), then extents: be64 address
 * (daddr in the low 54 bits, the device above: 0 data, 1 external log),
 * be32 length in 512-byte units, and that many bytes of data.  The first
 * block of either must be the primary superblock, which gives the size.
 */
#ifndef XA_IMAGE_METADUMP_H
#define XA_IMAGE_METADUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ximg;

#define XIMG_METADUMP_V1_MAGIC 0x5846534Du  /* "XFSM" */
#define XIMG_METADUMP_V2_MAGIC 0x584D4432u  /* "XMD2" */

/* Does file start like a metadump (either version)? */
bool ximg_is_metadump(struct ximg *file);

/*
 * The filesystem in metadump file (taken over: freed with the view, or on
 * failure).  Every count, length and address of the dump is checked against
 * the file's size before it is believed.  Returns 0, or XERR_FORMAT (err
 * says which part is wrong) / XERR_NOMEM / XERR_IO.
 */
int ximg_open_metadump(struct ximg *file, struct ximg **out, char *err, size_t errlen);

#endif /* XA_IMAGE_METADUMP_H */
