/*
 * image.h - read-only access to the bytes of an image, as a small vtable.
 *
 * Backends: raw file, block device (both O_RDONLY), zstd-compressed file,
 * memory (tests and fuzzers), and a slice (a partition inside a whole-disk
 * image).  Nothing here can write: the vtable has no write operation, and the
 * file backends never open for writing.  That is rule 1 of the product.
 */
#ifndef XA_IMAGE_H
#define XA_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ximg;

struct ximg_ops {
	const char *kind;  /* "raw", "blockdev", "zstd", "memory", "slice" */
	/*
	 * Read exactly len bytes at byte off.  Returns 0, XERR_RANGE if any part
	 * lies past the end of the image, XERR_IO on an OS error (img->errmsg
	 * says more), XERR_FORMAT if a compressed container is damaged there.
	 */
	int (*pread)(struct ximg *img, void *buf, size_t len, uint64_t off);
	/* Free backend state (not the struct ximg itself). */
	void (*release)(struct ximg *img);
};

struct ximg {
	const struct ximg_ops *ops;
	uint64_t size;        /* readable bytes */
	char    *name;        /* for messages; owned */
	void    *priv;        /* backend state */
	char     errmsg[256]; /* detail of the last XERR_IO / XERR_FORMAT */
	int      clipped;     /* 1: a plain zstd stream held more than the
	                         filesystem's size and was read only that far */
};

/* Options for ximg_open: which partition or offset to use. */
struct ximg_open_opts {
	int      partition;   /* 1-based partition number; 0 = choose automatically */
	int      have_offset; /* 1: use offset below instead of the partition table */
	uint64_t offset;      /* byte offset of the filesystem in the image */
	const char *badmap;   /* a bad-sector map of the image (badmap.h), or NULL */
	const char *logdev;   /* the external log device's image (xa_ctx_open opens
	                         it beside the filesystem), or NULL */
	const char *rtdev;    /* the realtime device's image, likewise, or NULL */
};

/*
 * Open path read-only.  Detects a zstd file by its magic, a block device by
 * stat, and otherwise reads it raw; then, unless the filesystem starts at
 * byte 0, looks for an XFS partition in a GPT or MBR table (or applies the
 * offset/partition in opts, which may be NULL).  On failure returns a negative
 * xerr and writes a one-line reason into err (errlen bytes).
 */
int ximg_open(const char *path, const struct ximg_open_opts *opts,
	      struct ximg **out, char *err, size_t errlen);

/* Backends.  Each returns 0 or a negative xerr; *out is set only on success. */
int ximg_open_raw(const char *path, struct ximg **out, char *err, size_t errlen);
/* A zstd file (by its magic) or a raw one, read whole: no partition table,
 * no metadump (an external log device's image). */
int ximg_open_plain(const char *path, struct ximg **out, char *err, size_t errlen);
int ximg_open_zstd(const char *path, struct ximg **out, char *err, size_t errlen);
/* Memory image over buf; the bytes are copied when copy != 0, else borrowed. */
int ximg_open_mem(const void *buf, size_t len, int copy, const char *name,
		  struct ximg **out);
/* The range [off, off+len) of parent, which the slice takes ownership of. */
int ximg_open_slice(struct ximg *parent, uint64_t off, uint64_t len,
		    struct ximg **out);

/* The image a partition slice reads from, and where in it (*base); NULL
 * for any other backend. */
struct ximg *ximg_slice_parent(const struct ximg *img, uint64_t *base);

/*
 * inner read as an image of size bytes, the bytes past inner's end reading as
 * zeros: what repair sees of a truncated image (the missing tail is treated
 * as lost, like zeroed sectors).  inner is borrowed and must outlive the view.
 */
int ximg_open_zero_tail(struct ximg *inner, uint64_t size, struct ximg **out);

/*
 * The read-only descriptor of a raw file or block device image (the output
 * writer copies a raw input with copy_file_range), or -1 for every other
 * backend, a partition slice included.  The image keeps owning it.
 */
int ximg_raw_fd(const struct ximg *img);

/*
 * The descriptor a raw image's bytes come from, and in *base where img's
 * byte 0 lies in it: a raw file or block device, or a partition slice of
 * one.  -1 for every other backend (compressed, memory, a bad-sector map,
 * an overlay): reads of those must go through ximg_pread.  For readers
 * beside the caller's thread (prefetch.h): pread(2) on it needs no lock.
 */
int ximg_direct_fd(const struct ximg *img, uint64_t *base);

/*
 * True when the len bytes at off are known to read as zeros without being
 * read: they lie wholly in a hole of a raw image file (or of the raw file a
 * partition slice reads from), as SEEK_DATA says.  False whenever that is
 * not known (another backend, a block device, no SEEK_DATA): the caller
 * reads.  Whole-image passes (the input's digest) skip reading the holes of
 * a sparse image this way: they are most of a fresh filesystem's bytes.
 */
bool ximg_is_hole(const struct ximg *img, uint64_t off, size_t len);

/* Read exactly len bytes at off (see ximg_ops.pread). */
int ximg_pread(struct ximg *img, void *buf, size_t len, uint64_t off);

/* Release an image and set *img to NULL; NULL is allowed. */
void ximg_free(struct ximg **img);

/* Helper for backends: allocate a struct ximg with ops, size and a copy of name. */
struct ximg *ximg_alloc(const struct ximg_ops *ops, uint64_t size, const char *name);

#endif /* XA_IMAGE_H */
