/*
 * sha256_worker.h - a SHA-256 digest computed on a thread of its own.
 *
 * repair's output pass keeps two digests of the same stream of chunks, the
 * input's and OUT's; each costs as much as the rest of the pass together.
 * The worker takes one of them to another core: the caller hands it a
 * chunk, does its own work, and waits for the worker before it reuses the
 * chunk's memory.  The digest is the one xsha256_update gives for the same
 * bytes in the same order.  Without a second CPU, or when the thread cannot
 * be made, each chunk is hashed at once by the caller instead.
 */
#ifndef XA_SHA256_WORKER_H
#define XA_SHA256_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/io/sha256.h"

struct xsha256_worker {
	struct xsha256  ctx;
	bool            threaded;   /* a thread runs; else feed hashes inline */
	/* shared with the thread, under mu */
	pthread_t       thread;
	pthread_mutex_t mu;
	pthread_cond_t  cv;
	const uint8_t  *p;          /* the chunk handed over, or NULL when idle */
	size_t          len;
	bool            stop;
};

/* Start a digest; on a thread when threaded is asked and more than one CPU
 * is online. */
void xsha256_worker_start(struct xsha256_worker *w, bool threaded);

/* Hand over len bytes at p (wait for the previous chunk first).  p must stay
 * unchanged until xsha256_worker_wait or the next feed returns. */
void xsha256_worker_feed(struct xsha256_worker *w, const uint8_t *p, size_t len);

/* Wait until the chunk handed over is hashed (its memory is free again). */
void xsha256_worker_wait(struct xsha256_worker *w);

/* Stop the thread and write the digest (out may be NULL to discard it). */
void xsha256_worker_finish(struct xsha256_worker *w, uint8_t out[XSHA256_DIGEST_LEN]);

#endif /* XA_SHA256_WORKER_H */
