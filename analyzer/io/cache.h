/*
 * cache.h - the block cache between the image backends and the analyzer.
 *
 * Every metadata read of a check goes through here.  A buffer is identified
 * by its exact (offset, length): reading the same range again while it is
 * cached costs one hash lookup and no allocation.  Overlapping ranges with a
 * different key are separate buffers (the analyzer reads each structure with
 * one fixed size, so this does not waste memory in practice).
 *
 * Buffers are reference-counted.  Only unreferenced buffers are evicted, least
 * recently released first.  max_bytes bounds the memory of cached data; while
 * everything is referenced the cache may exceed it, up to 2 * max_bytes, after
 * which a read fails with XERR_NOMEM (a leak of references must not turn into
 * unbounded memory).  Not thread-safe: one cache per thread.
 */
#ifndef XA_CACHE_H
#define XA_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct ximg;
struct xcache;

struct xbuf {
	const uint8_t *data;  /* len bytes of the image at off; read-only */
	size_t         len;
	uint64_t       off;
	/* private to cache.c from here on */
	uint32_t       refs;
	uint32_t       hash;
	struct xbuf   *hnext;     /* hash chain */
	struct xbuf   *lru_prev;  /* LRU list (unreferenced buffers only) */
	struct xbuf   *lru_next;
};

struct xcache_stats {
	uint64_t hits;        /* reads served from memory */
	uint64_t misses;      /* reads that went to the image */
	uint64_t bytes_read;  /* bytes read from the image by misses */
	uint64_t evictions;   /* buffers dropped to stay under max_bytes */
};

/*
 * Create a cache over img (borrowed: it must outlive the cache) holding at
 * most about max_bytes of data.  Returns 0 and *out, or XERR_NOMEM.
 */
int xcache_new(struct ximg *img, size_t max_bytes, struct xcache **out);

/*
 * Free the cache and every buffer; *c becomes NULL (NULL allowed).  Buffers
 * still referenced become invalid: release them first.
 */
void xcache_free(struct xcache **c);

/*
 * Get a referenced buffer holding the len bytes at image offset off.
 * Returns 0 and *out, or a negative xerr: XERR_RANGE when any part lies past
 * the end of the image, XERR_IO or XERR_FORMAT from the backend (the image's
 * errmsg says more), XERR_NOMEM when memory is exhausted or referenced
 * buffers already hold 2 * max_bytes.  Failed reads are not cached.
 */
int xcache_read(struct xcache *c, uint64_t off, size_t len, struct xbuf **out);

/* Drop one reference to *b and set *b = NULL (NULL or *b == NULL allowed). */
void xcache_release(struct xcache *c, struct xbuf **b);

/* Copy the counters into *out. */
void xcache_get_stats(const struct xcache *c, struct xcache_stats *out);

/* The image the cache reads from (a reader beside it must read the same). */
struct ximg *xcache_image(const struct xcache *c);

/* Bytes of data currently held (referenced and unreferenced). */
size_t xcache_bytes(const struct xcache *c);

#endif /* XA_CACHE_H */
