/*
 * file.h - one inode as the file views see it: its decoded core, its raw
 * bytes (the forks live there), its mappings, and its contents.
 *
 * Nothing here reports findings: `check` owns verification.  These helpers
 * read what can be read from a possibly damaged image and say what could not.
 */
#ifndef XA_FILE_H
#define XA_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/btrec.h"
#include "formats/dinode.h"

struct xa_ctx;

struct xa_inode {
	uint64_t           ino;
	uint8_t           *raw;     /* inodesize bytes, owned */
	size_t             len;
	struct xfmt_dinode d;
};

/* Sorted, non-overlapping mappings of one fork (bad records are dropped). */
struct xa_extents {
	struct xfmt_bmbt_rec *v;
	size_t                n, cap;
	bool                  complete;   /* the whole map could be read */
	bool                  realtime;   /* a realtime file's data: the blocks are
	                                     the realtime device's, numbered from 0 */
};

/*
 * Is the magic number the only fault of the inode at raw?  With the magic
 * put back (into fixed, g->inodesize bytes, at most XFMT_DINODE_MAX_SIZE)
 * the core must verify with no error but its CRC (which covers the magic)
 * and be in use; then *d is its decoding.  Such an inode is read as an
 * inode (xfs_repair resets the magic); the check still reports the magic.
 */
struct xfmt_geom;
bool xa_inode_magic_only(const struct xfmt_geom *g, uint64_t ino, const uint8_t *raw,
			 uint8_t *fixed, struct xfmt_dinode *d);

/*
 * Read and decode inode ino (an inode whose magic alone is damaged is read
 * with it put back).  Returns 0, XERR_RANGE if ino is not inside the
 * filesystem, XERR_FORMAT if the bytes there are not an inode (bad magic), or
 * another negative xerr.  Release with xa_inode_release.
 */
int xa_inode_read(struct xa_ctx *ctx, uint64_t ino, struct xa_inode *out);
void xa_inode_release(struct xa_inode *ip);

/* File type of the inode's mode (S_IFMT bits), 0 for a free inode. */
unsigned xa_inode_type(const struct xa_inode *ip);

/*
 * The mappings of fork whichfork (XA_DATA_FORK / XA_ATTR_FORK), at most
 * max_extents of them (0 = a bound derived from the filesystem size).
 * Records that overlap a previous one or lie outside the filesystem are left
 * out and make the map incomplete.  Release with xa_extents_release.
 */
int xa_extents_load(struct xa_ctx *ctx, const struct xa_inode *ip, int whichfork,
		    struct xa_extents *out);
void xa_extents_release(struct xa_extents *ex);

/* The mapping covering file block fblock, or NULL for a hole. */
const struct xfmt_bmbt_rec *xa_extents_find(const struct xa_extents *ex, uint64_t fblock);

/* Called for each byte range of a read that could not be read from the image. */
typedef void (*xa_missing_fn)(void *arg, uint64_t off, uint64_t len);

/*
 * Unreadable ranges as runs: xa_file_pread names each unreadable block on
 * its own once a run fails (so one bad sector costs one block), which would
 * be one message per block of a long unreadable stretch.  Callers add each
 * range here and name the runs: xa_missing_run_add returns true, with the
 * finished run in *done, when a range does not continue the current run;
 * xa_missing_run_end hands over the last one.
 */
struct xa_missing_run {
	uint64_t off, len;   /* the current run (len 0: none yet) */
};

static inline bool xa_missing_run_add(struct xa_missing_run *r, uint64_t off, uint64_t len,
				      struct xa_missing_run *done)
{
	if (r->len && off == r->off + r->len) {
		r->len += len;
		return false;
	}
	*done = *r;
	r->off = off;
	r->len = len;
	return done->len != 0;
}

static inline bool xa_missing_run_end(struct xa_missing_run *r, struct xa_missing_run *done)
{
	*done = *r;
	r->len = 0;
	return done->len != 0;
}

/*
 * Read len bytes of the data fork at file offset off into buf: holes and
 * unwritten extents read as zeros; blocks that cannot be read read as zeros
 * and are reported to missing (may be NULL).  Returns 0 or a negative xerr
 * (only for memory); the caller bounds off/len by the file size.
 */
int xa_file_pread(struct xa_ctx *ctx, const struct xa_extents *ex, void *buf, size_t len,
		  uint64_t off, xa_missing_fn missing, void *arg);

/*
 * The target of symlink ip (local or stored in blocks) into out (at least
 * 1024 bytes), its length in *len.  With sink non-NULL every check on the
 * target's storage reports there.  Returns 0, XERR_FORMAT when the target
 * could not be assembled completely (what was found is still in out), or a
 * negative xerr.
 */
int xa_symlink_target(struct xa_ctx *ctx, const struct xa_inode *ip, uint8_t *out,
		      size_t *len, const struct xprob_sink *sink);

#endif /* XA_FILE_H */
