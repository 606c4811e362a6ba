/*
 * prefetch.c - reads done ahead on a reader thread (see prefetch.h).
 *
 * A ring of depth buffers: the reader fills item k into slot k % depth once
 * the caller has let go of item k - depth; the caller holds one item (the
 * last it took) and lets go of it by taking the next.  Counters and the
 * end flag are shared under one mutex; a slot's bytes belong to whichever
 * side the counters say, so they need no lock.
 */
#include "analyzer/io/prefetch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/io/fd_io.h"
#include "analyzer/io/image.h"

struct slot {
	uint8_t *buf;
	void    *meta;   /* what post made of buf (meta_size bytes) */
	uint64_t off;
	size_t   len;
	bool     ok;     /* buf holds len bytes read at off */
};

struct xprefetch {
	int               fd;
	uint64_t          base;   /* the image's byte 0 in fd */
	uint64_t          size;   /* the image's size: nothing past it is read */
	size_t            maxlen;
	unsigned          depth;
	xprefetch_next_fn next;
	xprefetch_post_fn post;
	size_t            meta_size;
	void             *arg;
	struct slot      *slots;
	pthread_t         thread;
	pthread_mutex_t   mu;
	pthread_cond_t    cv;
	/* under mu */
	uint64_t          produced;   /* items filled */
	uint64_t          taken;      /* items handed to the caller */
	bool              end;        /* the generator has no more */
	bool              stop;
	bool              reader_waits;   /* for room: the ring was full */
	bool              taker_waits;    /* for the next item */
};

/* Item k may be filled once the caller has let go of item k - depth: it
 * holds the last item it took, taken - 1.  The slots free now. */
static uint64_t room(const struct xprefetch *p)
{
	uint64_t held = p->taken ? p->taken - 1 : 0;

	return held + p->depth - p->produced;
}

/* A full ring waits until half of it is free, so that the two threads do
 * not wake each other for every item. */
static uint64_t refill_at(const struct xprefetch *p)
{
	return p->depth / 2 ? p->depth / 2 : 1;
}

static void *reader(void *arg)
{
	struct xprefetch *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct slot *s;
		uint64_t off = 0;
		size_t len = 0;
		bool more;

		if (!p->stop && !room(p)) {
			p->reader_waits = true;
			while (!p->stop && room(p) < refill_at(p))
				pthread_cond_wait(&p->cv, &p->mu);
			p->reader_waits = false;
		}
		if (p->stop)
			break;
		s = &p->slots[p->produced % p->depth];
		pthread_mutex_unlock(&p->mu);
		more = p->next(p->arg, &off, &len);
		if (more) {
			s->off = off;
			s->len = len;
			s->ok = len && len <= p->maxlen && off <= p->size && p->size - off >= len &&
				p->base <= UINT64_MAX - p->size &&
				xio_pread_full(p->fd, s->buf, len, p->base + off) == 0;
			if (s->ok && p->post)
				p->post(p->arg, s->buf, len, s->meta);
		}
		pthread_mutex_lock(&p->mu);
		if (!more) {
			p->end = true;
			pthread_cond_broadcast(&p->cv);
			break;
		}
		p->produced++;
		if (p->taker_waits)
			pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void free_slots(struct xprefetch *p)
{
	if (p->slots)
		for (unsigned i = 0; i < p->depth; i++) {
			free(p->slots[i].buf);
			free(p->slots[i].meta);
		}
	free(p->slots);
}

int xprefetch_start(struct ximg *img, unsigned threads, const struct xprefetch_opts *o,
		    struct xprefetch **out)
{
	size_t maxlen = o->maxlen;
	unsigned depth = o->depth;
	struct xprefetch *p;
	uint64_t base;
	int fd;

	*out = NULL;
	if (threads < 2 || depth < 2 || !maxlen || !o->next || (o->post && !o->meta_size) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	fd = ximg_direct_fd(img, &base);
	if (fd < 0)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return XERR_NOMEM;
	p->fd = fd;
	p->base = base;
	p->size = img->size;
	p->maxlen = maxlen;
	p->depth = depth;
	p->next = o->next;
	p->post = o->post;
	p->meta_size = o->post ? o->meta_size : 0;
	p->arg = o->arg;
	p->slots = calloc(depth, sizeof(*p->slots));
	if (!p->slots) {
		free(p);
		return XERR_NOMEM;
	}
	for (unsigned i = 0; i < depth; i++) {
		p->slots[i].buf = malloc(maxlen);
		if (p->meta_size)
			p->slots[i].meta = malloc(p->meta_size);
		if (!p->slots[i].buf || (p->meta_size && !p->slots[i].meta)) {
			free_slots(p);
			free(p);
			return XERR_NOMEM;
		}
	}
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		goto plain;
	if (pthread_cond_init(&p->cv, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		goto plain;
	}
	if (pthread_create(&p->thread, NULL, reader, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		goto plain;
	}
	*out = p;
	return 0;
plain:
	/* No thread to be had: the caller reads as it would have. */
	free_slots(p);
	free(p);
	return 0;
}

bool xprefetch_take(struct xprefetch *p, const uint8_t **data, const void **meta, uint64_t *off,
		    size_t *len)
{
	struct slot *s;
	uint64_t want;

	pthread_mutex_lock(&p->mu);
	want = p->taken;
	p->taker_waits = true;
	while (p->produced <= want && !p->end)
		pthread_cond_wait(&p->cv, &p->mu);
	p->taker_waits = false;
	if (p->produced <= want) {
		pthread_mutex_unlock(&p->mu);
		return false;
	}
	/* Taking item want lets go of item want - 1: its slot may be refilled. */
	p->taken = want + 1;
	if (p->reader_waits && room(p) >= refill_at(p))
		pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	s = &p->slots[want % p->depth];
	*data = s->ok ? s->buf : NULL;
	if (meta)
		*meta = s->ok ? s->meta : NULL;
	*off = s->off;
	*len = s->len;
	return true;
}

void xprefetch_stop(struct xprefetch **pp)
{
	struct xprefetch *p = *pp;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free_slots(p);
	free(p);
	*pp = NULL;
}
