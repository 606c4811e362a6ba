/*
 * sha256_worker.c - one SHA-256 digest on a thread of its own (see
 * sha256_worker.h).  One chunk at a time is in flight: the handover is a
 * pointer under a mutex, so the bytes hashed and their order are exactly
 * those of the calls.
 */
#include "analyzer/io/sha256_worker.h"

#include <string.h>
#include <unistd.h>

static void *run(void *arg)
{
	struct xsha256_worker *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->p && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->p)
			break;   /* stop, nothing left */
		{
			const uint8_t *p = w->p;
			size_t len = w->len;

			pthread_mutex_unlock(&w->mu);
			xsha256_update(&w->ctx, p, len);
			pthread_mutex_lock(&w->mu);
		}
		w->p = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

void xsha256_worker_start(struct xsha256_worker *w, bool threaded)
{
	memset(w, 0, sizeof(*w));
	xsha256_init(&w->ctx);
	if (!threaded || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&w->cv, NULL) != 0) {
		pthread_mutex_destroy(&w->mu);
		return;
	}
	if (pthread_create(&w->thread, NULL, run, w) != 0) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		return;
	}
	w->threaded = true;
}

void xsha256_worker_wait(struct xsha256_worker *w)
{
	if (!w->threaded)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->p)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void xsha256_worker_feed(struct xsha256_worker *w, const uint8_t *p, size_t len)
{
	if (!len)
		return;
	if (!w->threaded) {
		xsha256_update(&w->ctx, p, len);
		return;
	}
	pthread_mutex_lock(&w->mu);
	while (w->p)
		pthread_cond_wait(&w->cv, &w->mu);
	w->p = p;
	w->len = len;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void xsha256_worker_finish(struct xsha256_worker *w, uint8_t out[XSHA256_DIGEST_LEN])
{
	uint8_t scratch[XSHA256_DIGEST_LEN];

	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		w->threaded = false;
	}
	xsha256_final(&w->ctx, out ? out : scratch);
}
