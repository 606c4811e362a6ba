/*
 * prefetch.h - a known sequence of reads done ahead, on a thread of its own.
 *
 * A pass that knows which ranges it will read next (the inode pass: every
 * inode chunk of every AG in inobt order) hands the sequence over as a
 * generator; a reader thread fills a ring of buffers in that order while
 * the pass decodes and verifies what is already there.  On a million-inode
 * image the reads (the kernel copying page-cache pages into ours) were a
 * sixth of a check, on the same core as the rest.
 *
 * The bytes are exactly what the same read on the caller's thread gives:
 * the reader reads only a raw file or block device (whole, or under a
 * partition slice) with pread(2), which may run beside other reads of the
 * same descriptor.  Any other image (compressed, a bad-sector map, the log
 * replayed over it) is not prefetched: xprefetch_start says so and the
 * caller reads as before.  A read that fails is not an error here: its slot
 * says so and the caller reads that range its own way, which reports the
 * failure as it always did.
 */
#ifndef XA_PREFETCH_H
#define XA_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ximg;
struct xprefetch;

/*
 * The next range of the sequence: true and *off, *len (len at most the
 * maxlen given to xprefetch_start; 0 for a range not to be read, which
 * still takes its turn), or false at the end.  Called on the reader thread:
 * it must only read what the caller does not change meanwhile.
 */
typedef bool (*xprefetch_next_fn)(void *arg, uint64_t *off, size_t *len);

/*
 * Work done on the bytes of a range as soon as they are read, on the reader
 * thread (checksums the caller would otherwise compute itself): it fills
 * meta (meta_size bytes) from the len bytes at data.  The same rule as for
 * next: it reads nothing the caller changes meanwhile.
 */
typedef void (*xprefetch_post_fn)(void *arg, const uint8_t *data, size_t len, void *meta);

struct xprefetch_opts {
	size_t            maxlen;     /* the longest range */
	unsigned          depth;      /* buffers in the ring */
	xprefetch_next_fn next;
	xprefetch_post_fn post;       /* may be NULL */
	size_t            meta_size;  /* bytes post fills per range */
	void             *arg;        /* for next and post */
};

/*
 * Start reading img's ranges ahead, at most o->depth buffers of o->maxlen
 * bytes.  threads is how many threads the command may use: below 2, or
 * with one CPU, or on an image that cannot be read beside the caller, *out
 * is NULL and 0 is returned (read as before).  XERR_NOMEM when memory ran
 * out.
 */
int xprefetch_start(struct ximg *img, unsigned threads, const struct xprefetch_opts *o,
		    struct xprefetch **out);

/*
 * The next range of the sequence, in order: true with *data (len bytes read
 * at off, valid until the next call) and *meta (what post made of them, or
 * NULL without post), or true with *data and *meta NULL when it was not
 * read (a zero-length range, a failed read: the caller reads it), or false
 * at the end of the sequence.  meta may be NULL.
 */
bool xprefetch_take(struct xprefetch *p, const uint8_t **data, const void **meta, uint64_t *off,
		    size_t *len);

/* Stop the reader (wherever it is) and free everything; *p becomes NULL. */
void xprefetch_stop(struct xprefetch **p);

#endif /* XA_PREFETCH_H */
