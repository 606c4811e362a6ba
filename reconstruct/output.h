/*
 * output.h - write the repaired image: a copy of the input with the finished
 * plan applied, and the SHA-256 of what was written.
 *
 * OUT holds the filesystem alone, byte for byte what the analyzer read as
 * the image (ctx->img): for a whole-disk input that is the XFS partition the
 * analyzer sliced out, not the disk with its partition table; for a
 * zstd-compressed input it is the decompressed bytes.  Plan offsets are
 * filesystem offsets, so they are OUT offsets.
 *
 * The evidence is protected: the input is only read, through the analyzer's
 * read-only image (never reopened); OUT is opened by ximg_out_open
 * (analyzer/io/outpath.h), so it is never the input nor anything aliasing it
 * (a hard link, a loop device backed by it, the device holding it, a file
 * behind an input loop device); an existing OUT is refused unless forced; a
 * new OUT is created 0600 (an image of someone's disk is not for other users
 * of the machine) with O_EXCL | O_NOFOLLOW, and removed again if writing it
 * fails, so a half-written output never looks like a result.
 */
#ifndef XR_OUTPUT_H
#define XR_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xa_ctx;
struct xr_plan;

/*
 * OUT written but not yet synced (xr_output_opts.pending): its writeback is
 * under way while the caller does other work (the check of OUT reads the
 * page cache, which holds the same bytes); xr_output_sync waits for it.
 */
struct xr_output_pending {
	int         fd;        /* -1: nothing pending */
	bool        created;   /* OUT was made by this write: removed if the sync fails */
	const char *path;      /* the caller's OUT */
};

struct xr_output_opts {
	/* Overwrite an existing OUT: a regular file is truncated and rewritten;
	 * a block device (opened exclusively, so not while mounted) gets every
	 * byte written, zeros included. */
	bool force;
	/* Compute no digest (neither the input's nor OUT's). */
	bool no_hash;
	/* Hash OUT by reading it back after fsync (a second read of every
	 * byte) instead of hashing the bytes as they are written. */
	bool reread;
	/* Threads it may use (--jobs): below 2, the input's digest is kept on
	 * the caller's thread too (0 counts as any number). */
	unsigned jobs;
	/* Where to leave OUT open and unsynced, its writeback started, for
	 * xr_output_sync (NULL: synced and closed before returning; ignored
	 * with reread, whose read back comes after the sync). */
	struct xr_output_pending *pending;
	/* Called as bytes are copied, patched and hashed (may be NULL):
	 * done grows monotonically to total. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/* The digests xr_output_write computed. */
struct xr_output_digests {
	bool    have_in, have_out;
	uint8_t in[32];    /* the input (ctx->input), as its bytes were read */
	uint8_t out[32];   /* OUT's filesystem bytes */
};

/*
 * Copy ctx's image to out_path and apply plan (which must be finished, see
 * xr_plan_finish), fsync OUT (or leave that to xr_output_sync), and compute the SHA-256 of the input and of
 * OUT's filesystem bytes (the image size, or the end of the last change
 * when that is further) in one read of the input: OUT's digest is that of
 * the input's bytes with the plan laid over them, which is what was written
 * (o->reread hashes OUT as it reads back instead).  A regular OUT is
 * written sparsely: all-zero 4 KiB blocks are left as holes (a raw input
 * file is copied with copy_file_range over its data ranges, which also
 * keeps its holes and lets the kernel share blocks).
 * o may be NULL (no force, digests, no progress); dg may be NULL.
 * Returns 0; XERR_EXISTS (OUT exists, not forced); XERR_USAGE (OUT aliases
 * the input, is a symlink not forced, or not a regular file or block device;
 * plan not finished); XERR_IO (with the OS reason); or an image read error.
 * err receives one line for any failure.
 */
int xr_output_write(struct xa_ctx *ctx, const struct xr_plan *plan, const char *out_path,
		    const struct xr_output_opts *o, struct xr_output_digests *dg, char *err,
		    size_t errlen);

/*
 * Finish a write left pending: fsync OUT and close it (a no-op when nothing
 * is pending).  Returns 0, or XERR_IO with the OS reason in err; then an OUT
 * the write created is removed, as a failed write's is.  p is left with
 * nothing pending either way.
 */
int xr_output_sync(struct xr_output_pending *p, char *err, size_t errlen);

#endif /* XR_OUTPUT_H */
