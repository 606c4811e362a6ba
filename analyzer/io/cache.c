/*
 * cache.c - the block cache: a chained hash table keyed by (offset, length),
 * reference counts, and an LRU list of the unreferenced buffers.
 *
 * Hot path (a hit): hash, walk one short chain, bump the reference count and
 * unlink the buffer from the LRU list.  No allocation, no copy.  A miss
 * allocates the header and the data in one block and reads the image once.
 * Each buffer is charged len + sizeof(struct xbuf) against max_bytes so that
 * many small reads cannot hide their overhead.
 */
#include "analyzer/io/cache.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"

#define CACHE_MIN_BUCKETS 1024u
/* The bucket array stops growing here (2^24 buckets = 128 MiB of pointers). */
#define CACHE_MAX_BUCKETS (1u << 24)

struct xcache {
	struct ximg  *img;
	size_t        max_bytes;
	size_t        bytes;       /* charged bytes of all buffers */
	size_t        count;       /* buffers in the table */
	struct xbuf **buckets;
	uint32_t      nbuckets;    /* a power of two */
	struct xbuf  *lru_head;    /* most recently released */
	struct xbuf  *lru_tail;    /* next to evict */
	struct xcache_stats stats;
};

static inline uint32_t key_hash(uint64_t off, size_t len)
{
	/* Fibonacci-style mixing; offsets are multiples of sector sizes, so
	 * the low bits alone would collide badly. */
	uint64_t h = off * 0x9E3779B97F4A7C15ull ^ ((uint64_t)len * 0xC2B2AE3D27D4EB4Full);

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static inline size_t charge_of(const struct xbuf *b)
{
	return b->len + sizeof(struct xbuf);
}

/* Would adding charge to bytes exceed limit?  (Written to never overflow.) */
static inline int over_budget(size_t bytes, size_t charge, size_t limit)
{
	return charge > limit || bytes > limit - charge;
}

static void lru_unlink(struct xcache *c, struct xbuf *b)
{
	if (b->lru_prev)
		b->lru_prev->lru_next = b->lru_next;
	else
		c->lru_head = b->lru_next;
	if (b->lru_next)
		b->lru_next->lru_prev = b->lru_prev;
	else
		c->lru_tail = b->lru_prev;
	b->lru_prev = b->lru_next = NULL;
}

static void lru_push_head(struct xcache *c, struct xbuf *b)
{
	b->lru_prev = NULL;
	b->lru_next = c->lru_head;
	if (c->lru_head)
		c->lru_head->lru_prev = b;
	else
		c->lru_tail = b;
	c->lru_head = b;
}

static void hash_remove(struct xcache *c, struct xbuf *b)
{
	struct xbuf **pp = &c->buckets[b->hash & (c->nbuckets - 1)];

	while (*pp && *pp != b)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = b->hnext;
	b->hnext = NULL;
}

/* Drop the least recently released buffer. */
static void evict_one(struct xcache *c)
{
	struct xbuf *b = c->lru_tail;

	lru_unlink(c, b);
	hash_remove(c, b);
	c->bytes -= charge_of(b);
	c->count--;
	c->stats.evictions++;
	free(b);
}

/* Double the bucket array when chains get long; failure only costs speed. */
static void maybe_grow(struct xcache *c)
{
	uint32_t n = c->nbuckets * 2;
	struct xbuf **nb;

	if (c->count <= c->nbuckets || c->nbuckets >= CACHE_MAX_BUCKETS)
		return;
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return;
	for (uint32_t i = 0; i < c->nbuckets; i++) {
		struct xbuf *b = c->buckets[i], *next;

		for (; b; b = next) {
			next = b->hnext;
			b->hnext = nb[b->hash & (n - 1)];
			nb[b->hash & (n - 1)] = b;
		}
	}
	free(c->buckets);
	c->buckets = nb;
	c->nbuckets = n;
}

int xcache_new(struct ximg *img, size_t max_bytes, struct xcache **out)
{
	struct xcache *c;

	if (!img)
		return XERR_USAGE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return XERR_NOMEM;
	c->buckets = calloc(CACHE_MIN_BUCKETS, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return XERR_NOMEM;
	}
	c->nbuckets = CACHE_MIN_BUCKETS;
	c->img = img;
	c->max_bytes = max_bytes;
	*out = c;
	return 0;
}

void xcache_free(struct xcache **c)
{
	if (!c || !*c)
		return;
	for (uint32_t i = 0; i < (*c)->nbuckets; i++) {
		struct xbuf *b = (*c)->buckets[i], *next;

		for (; b; b = next) {
			next = b->hnext;
			free(b);
		}
	}
	free((*c)->buckets);
	free(*c);
	*c = NULL;
}

int xcache_read(struct xcache *c, uint64_t off, size_t len, struct xbuf **out)
{
	uint32_t h = key_hash(off, len);
	struct xbuf *b;
	size_t charge;
	uint8_t *data;
	int rc;

	for (b = c->buckets[h & (c->nbuckets - 1)]; b; b = b->hnext) {
		if (b->off == off && b->len == len) {
			if (b->refs == 0)
				lru_unlink(c, b);
			b->refs++;
			c->stats.hits++;
			*out = b;
			return 0;
		}
	}

	/* Miss.  Check the range before evicting anything for it. */
	if (off > c->img->size || c->img->size - off < len)
		return XERR_RANGE;
	if (len > SIZE_MAX - sizeof(struct xbuf))
		return XERR_NOMEM;
	charge = len + sizeof(struct xbuf);
	while (c->lru_tail && over_budget(c->bytes, charge, c->max_bytes))
		evict_one(c);
	/* Everything left is referenced: allow overshoot, but bounded. */
	if (over_budget(c->bytes, charge, c->max_bytes)) {
		size_t limit = c->max_bytes > SIZE_MAX / 2 ? SIZE_MAX : c->max_bytes * 2;

		if (over_budget(c->bytes, charge, limit))
			return XERR_NOMEM;
	}

	b = malloc(charge);
	if (!b)
		return XERR_NOMEM;
	data = (uint8_t *)(b + 1);
	rc = ximg_pread(c->img, data, len, off);
	if (rc) {
		free(b);
		return rc;
	}
	b->data = data;
	b->len = len;
	b->off = off;
	b->refs = 1;
	b->hash = h;
	b->lru_prev = b->lru_next = NULL;
	b->hnext = c->buckets[h & (c->nbuckets - 1)];
	c->buckets[h & (c->nbuckets - 1)] = b;
	c->bytes += charge;
	c->count++;
	c->stats.misses++;
	c->stats.bytes_read += len;
	maybe_grow(c);
	*out = b;
	return 0;
}

void xcache_release(struct xcache *c, struct xbuf **bp)
{
	struct xbuf *b;

	if (!bp || !*bp)
		return;
	b = *bp;
	*bp = NULL;
	if (b->refs == 0)
		return;  /* double release: ignore rather than corrupt the list */
	if (--b->refs)
		return;
	lru_push_head(c, b);
	/* A buffer read while the cache was over budget goes now. */
	while (c->bytes > c->max_bytes && c->lru_tail)
		evict_one(c);
}

void xcache_get_stats(const struct xcache *c, struct xcache_stats *out)
{
	*out = c->stats;
}

size_t xcache_bytes(const struct xcache *c)
{
	return c->bytes;
}

struct ximg *xcache_image(const struct xcache *c)
{
	return c->img;
}
