/*
 * zstd_seek.h - the zstd container: seek table of the zstd seekable format,
 * XXH64 (its per-frame checksum), and opening a zstd image over any image.
 *
 * Seekable format (zstd contrib/seekable_format, version 0.1.0): ordinary
 * frames followed by one skippable frame (magic 0x184D2A5E) holding one entry
 * per frame - compressed size, decompressed size, optional checksum (low 32
 * bits of XXH64 of the decompressed frame), 4 bytes each, little-endian - and
 * a 9-byte footer: number of frames, descriptor byte (bit 7: checksums
 * present; bits 6-2 reserved, must be zero), magic 0x8F92EAB1.
 */
#ifndef XA_ZSTD_SEEK_H
#define XA_ZSTD_SEEK_H

#include <stddef.h>
#include <stdint.h>

struct ximg;

#define XZST_SKIPPABLE_SEEK_MAGIC 0x184D2A5Eu
#define XZST_SEEKABLE_MAGIC       0x8F92EAB1u
#define XZST_FOOTER_SIZE          9u
#define XZST_SKIP_HEADER_SIZE     8u
#define XZST_DESC_CHECKSUM        0x80u
#define XZST_DESC_RESERVED        0x7Cu
/* Bounds on hostile tables (the reference implementation uses the same). */
#define XZST_MAX_FRAMES           0x8000000u
#define XZST_MAX_FRAME_DSIZE      0x40000000u
/* No frame, skippable or not, is shorter than a skippable frame header. */
#define XZST_MIN_FRAME_CSIZE      8u
/*
 * The most decompressed bytes one compressed byte can stand for.  A zstd
 * frame's content comes only from its blocks; every block has a 3-byte
 * header and at most Block_Maximum_Size = min(window, 128 KiB) bytes of
 * content, and the densest block is an RLE block: its header plus one byte,
 * repeated up to 128 KiB.  Frame headers, checksums, empty blocks and
 * skippable frames only add compressed bytes without content, so any run of
 * frames yields at most 128 KiB per 4 compressed bytes: 32 KiB per byte.
 * A seek table entry claiming more than that is a lie, found before any
 * size it claims is believed.
 */
#define XZST_MAX_RATIO            32768u

/* Default memory cap of the zstd backend; XFSRECON_ZSTD_MAX_MEM overrides. */
#define XIMG_ZSTD_MAX_RESIDENT    (1ull << 30)
#define XIMG_ZSTD_ENV_MAX_MEM     "XFSRECON_ZSTD_MAX_MEM"

/* A parsed, validated seek table. */
struct xzst_seek_table {
	uint32_t  nframes;
	int       has_checksums;
	uint64_t  data_size;     /* compressed bytes before the seek table frame */
	uint64_t  content_size;  /* sum of the decompressed sizes */
	uint32_t  max_dsize;     /* largest decompressed frame */
	uint64_t *coff;          /* nframes + 1 compressed offsets; coff[n] = data_size */
	uint64_t *doff;          /* nframes + 1 decompressed offsets; doff[n] = content_size */
	uint32_t *checksum;      /* nframes entries when has_checksums, else NULL */
};

/*
 * Look at the last 9 bytes of a file.  Returns 1 and the table's total size
 * (skippable header included) in *table_size when they are a seekable
 * footer, else 0.  *table_size is computed, not validated against anything.
 */
int xzst_seek_footer(const uint8_t footer[XZST_FOOTER_SIZE], uint64_t *table_size);

/*
 * Parse and validate the seek table frame tab (tab_len bytes, from its
 * skippable magic to the end of the file) of a file of file_size bytes.
 * Checks: magics, frame size field, reserved bits, entry count against the
 * file size, every compressed size >= 8, every decompressed size <= 1 GiB
 * and <= XZST_MAX_RATIO times its compressed size, and that the compressed
 * sizes add up to exactly the bytes before the table (so the image size the
 * table claims is at most XZST_MAX_RATIO times the file's size).  Returns 0 and fills *t (release with xzst_seek_release), or
 * XERR_FORMAT / XERR_UNSUPPORTED (reserved bits) / XERR_NOMEM with why set.
 */
int xzst_seek_parse(const uint8_t *tab, size_t tab_len, uint64_t file_size,
		    struct xzst_seek_table *t, char *why, size_t whylen);

/* Free the arrays of t and zero it. */
void xzst_seek_release(struct xzst_seek_table *t);

/*
 * Index of the frame holding decompressed byte off (off < content_size):
 * the one frame i with doff[i] <= off < doff[i+1].  Empty frames are never
 * returned.
 */
uint32_t xzst_seek_find(const struct xzst_seek_table *t, uint64_t off);

/* XXH64 of len bytes with seed (xxHash specification, 64-bit variant). */
uint64_t xzst_xxh64(const void *data, size_t len, uint64_t seed);

/* Options of ximg_open_zstd_img. */
struct xzst_opts {
	uint64_t max_resident;  /* memory cap in bytes; 0: env XFSRECON_ZSTD_MAX_MEM or 1 GiB */
	int      ignore_seek_table; /* 1: always use the streaming fallback (tests) */
};

/*
 * Open a zstd image whose compressed bytes are those of src.  On success the
 * new image owns src; on failure src is left to the caller.  opts may be
 * NULL.  Returns 0, or XERR_FORMAT (damaged container), XERR_UNSUPPORTED
 * (over the memory cap, or a newer seekable format), XERR_USAGE (a bad
 * XFSRECON_ZSTD_MAX_MEM), XERR_NOMEM, XERR_IO, with a reason in err.
 */
int ximg_open_zstd_img(struct ximg *src, const struct xzst_opts *opts,
		       struct ximg **out, char *err, size_t errlen);

/* Parse a size such as "1073741824", "512M", "2G" (binary units). 0 or -1. */
int xzst_parse_size(const char *s, uint64_t *out);

#endif /* XA_ZSTD_SEEK_H */
