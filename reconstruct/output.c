/*
 * output.c - the output image writer (see output.h): refuse what would
 * touch the evidence, copy the input sparsely, lay the plan over it, sync,
 * and hash the input and what was written.
 *
 * Why one pass: the input must be read once for its digest anyway, and
 * OUT's bytes are the input's with the plan's changes laid over them, so
 * both digests come from that read (and, where the kernel cannot copy the
 * file, the bytes written come from it too).  Reading OUT back after fsync
 * would only catch a storage fault that fsync did not report, at the price
 * of a second read of every byte: it is an option (reread).
 */
#include "reconstruct/output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/badmap.h"
#include "analyzer/io/image.h"
#include "analyzer/io/outpath.h"
#include "analyzer/io/sha256.h"
#include "analyzer/io/sha256_worker.h"
#include "reconstruct/plan.h"

#define COPY_CHUNK  (1u << 20)
#define ZERO_GRAIN  4096u      /* holes are left at this granularity */

struct out {
	struct xa_ctx             *ctx;
	const struct xr_plan      *plan;
	const struct xr_output_opts *o;
	bool                       hash;     /* compute the digests */
	const char                *path;
	int                        fd;
	bool                       is_blk;
	bool                       created;
	uint64_t                   size;     /* filesystem bytes OUT holds */
	uint64_t                   done, total;
	uint8_t                   *buf;
	uint8_t                   *obuf;     /* a changed chunk while buf is hashed */
	char                      *err;
	size_t                     errlen;
};

static int fail(struct out *w, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct out *w, int rc, const char *fmt, ...)
{
	va_list ap;

	if (w->err && w->errlen) {
		va_start(ap, fmt);
		vsnprintf(w->err, w->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void progress(struct out *w, uint64_t n)
{
	w->done += n;
	if (w->o && w->o->progress)
		w->o->progress(w->o->progress_arg, w->done, w->total);
}

static int pwrite_full(struct out *w, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, XERR_IO, "%s: write of %zu bytes at byte %llu failed: %s",
				    w->path, len, (unsigned long long)off,
				    n < 0 ? strerror(errno) : "no space");
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---------------------------------------------------------- the evidence */

/* Open OUT by the rules of analyzer/io/outpath.h (a block device allowed
 * with force); sets w->fd, is_blk, created. */
static int open_out(struct out *w)
{
	struct ximg_out_opts oo = {
		.what = "the repaired image", .in_fd = ximg_raw_fd(w->ctx->input),
		.force = w->o && w->o->force, .block_ok = true, .rdwr = true, .mode = 0600,
	};
	int rc;

	oo.in_fd_set = oo.in_fd >= 0;
	oo.in_path[0] = w->ctx->image_path;
	oo.in_path[1] = w->ctx->logdev_path;  /* the external log is evidence too */
	oo.in_path[2] = w->ctx->rtdev_path;   /* and the realtime device */
	rc = ximg_out_open(w->path, &oo, &w->fd, &w->created, &w->is_blk, w->err, w->errlen);
	if (rc)
		return rc;
	if (w->is_blk) {
#ifdef BLKGETSIZE64
		uint64_t devsize = 0;

		if (ioctl(w->fd, BLKGETSIZE64, &devsize) != 0)
			return fail(w, XERR_IO, "%s: cannot get device size: %s", w->path,
				    strerror(errno));
		if (devsize < w->size)
			return fail(w, XERR_USAGE, "%s: device holds %llu bytes, the image needs %llu",
				    w->path, (unsigned long long)devsize,
				    (unsigned long long)w->size);
#endif
		return 0;
	}
	/* A regular file: empty it, then give it the image's size as a hole. */
	if (ftruncate(w->fd, 0) != 0 || ftruncate(w->fd, (off_t)w->size) != 0)
		return fail(w, XERR_IO, "%s: %s", w->path, strerror(errno));
	return 0;
}

/* ---------------------------------------------------------------- copying */

/* Start writing back what was just written to a regular OUT, without
 * waiting: the disk works while the copy goes on (Linux). */
static void writeback_range(struct out *w, uint64_t off, uint64_t len)
{
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
	if (!w->is_blk)
		(void)sync_file_range(w->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
	(void)w;
	(void)off;
	(void)len;
#endif
}

/* Write len bytes at off, skipping all-zero grains (OUT is a fresh hole). */
static int write_sparse(struct out *w, const uint8_t *p, size_t len, uint64_t off)
{
	static const uint8_t zero[ZERO_GRAIN];
	size_t i = 0;

	while (i < len) {
		size_t start, n;

		while (i < len) {
			n = len - i < ZERO_GRAIN ? len - i : ZERO_GRAIN;
			if (memcmp(p + i, zero, n) != 0)
				break;
			i += n;
		}
		start = i;
		while (i < len) {
			n = len - i < ZERO_GRAIN ? len - i : ZERO_GRAIN;
			if (memcmp(p + i, zero, n) == 0)
				break;
			i += n;
		}
		if (i > start) {
			int rc = pwrite_full(w, p + start, i - start, off + start);

			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Copy a raw input file's data ranges with copy_file_range (the kernel may
 * share or clone the blocks), leaving its holes as holes.  Returns 1 when
 * the kernel cannot do it here (the caller falls back), 0 or an error.
 */
static int copy_ranges(struct out *w, int in)
{
#if defined(__linux__) && defined(SEEK_DATA)
	uint64_t size = w->ctx->input->size, copied = 0;
	off_t data = 0;

	for (;;) {
		off_t hole, oin, oout;

		data = lseek(in, data, SEEK_DATA);
		if (data < 0 || (uint64_t)data >= size)
			break;   /* ENXIO: no data past here */
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		oin = oout = data;
		while (oin < hole) {
			/* 64 MiB at a time: each piece's writeback starts while
			 * the next is copied. */
			size_t want = (uint64_t)(hole - oin) < (64u << 20) ? (size_t)(hole - oin)
									   : (64u << 20);
			ssize_t n = copy_file_range(in, &oin, w->fd, &oout, want, 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
				      errno == EOPNOTSUPP))
				return 1;
			if (n < 0)
				return fail(w, XERR_IO, "%s: copy at byte %llu failed: %s", w->path,
					    (unsigned long long)oout, strerror(errno));
			if (n == 0)
				return 1;   /* short source: let the reader say why */
			copied += (uint64_t)n;
			progress(w, (uint64_t)n);
			writeback_range(w, (uint64_t)(oout - n), (uint64_t)n);
		}
		data = hole;
	}
	/* Holes count as copied for the progress bar. */
	progress(w, size - copied);
	return 0;
#else
	(void)w;
	(void)in;
	return 1;
#endif
}

/* Whether the input is a whole raw file (not a slice of one, not a device)
 * that the kernel may copy into a regular OUT. */
static bool fast_copy_possible(struct out *w)
{
	int in = ximg_raw_fd(w->ctx->input);
	struct stat st;

	return !w->is_blk && in >= 0 && fstat(in, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size == w->ctx->input->size;
}

/*
 * Copy a raw input with copy_file_range where the kernel can: 0 copied, 1
 * when it cannot (OUT emptied again: the caller writes it itself), or an
 * error.
 */
static int copy_input_fast(struct out *w)
{
	uint64_t done0 = w->done;
	int rc;

	if (!fast_copy_possible(w))
		return 1;
	rc = copy_ranges(w, ximg_raw_fd(w->ctx->input));
	if (rc <= 0)
		return rc;
	w->done = done0;   /* start over through the reader */
	if (ftruncate(w->fd, 0) != 0 || ftruncate(w->fd, (off_t)w->size) != 0)
		return fail(w, XERR_IO, "%s: %s", w->path, strerror(errno));
	return 1;
}

/* ---------------------------------------------------------------- the rest */

static int apply_plan(struct out *w);

/*
 * The kernel's copy and the plan laid over it, on a thread of its own
 * while the caller hashes (the digests come from the input and the plan,
 * not from OUT, so neither waits for the other).  The thread works on its
 * own copy of the writer (its own error text, no progress: the caller
 * counts the copy's bytes when it is done).
 */
struct copier {
	struct out             own;
	struct xr_output_opts  o;     /* the caller's, without progress */
	char                   err[512];
	int                    rc;    /* 0 copied and planned, 1 not copied, or an error */
	pthread_t              thread;
};

static void *copier_run(void *arg)
{
	struct copier *c = arg;

	c->rc = copy_input_fast(&c->own);
	if (c->rc == 0)
		c->rc = apply_plan(&c->own);
	return NULL;
}

static int apply_plan(struct out *w)
{
	uint8_t *buf = malloc(xr_plan_max_change(w->plan));
	int rc = 0;

	if (!buf)
		return fail(w, XERR_NOMEM, "out of memory");
	for (size_t i = 0; i < w->plan->nchanges && !rc; i++) {
		const struct xr_change *c = &w->plan->changes[i];
		const uint8_t *b = xr_plan_change_bytes(w->plan, c, buf);

		if (!b) {
			rc = fail(w, XERR_IO, "the plan's temporary file cannot be read back");
			break;
		}
		rc = pwrite_full(w, b, c->len, c->offset);
		if (!rc)
			progress(w, c->len);
	}
	free(buf);
	return rc;
}

/*
 * One read of the input, chunk by chunk: its bytes go into the input's
 * digest; the plan's changes are laid over them (changes are sorted and
 * never overlap, so one cursor follows them; a change may span chunks),
 * and the result goes into OUT's digest and, with write_out, into OUT.
 * Past the input's end (a truncated input, changes past it) the bytes are
 * zeros with the changes over them.
 *
 * The two digests are most of the pass.  Where the CPU has the SHA
 * extensions both are kept here, interleaved (xsha256_update2: about the
 * time of one), and the other core is left to the kernel's copy
 * (copy_beside_hash); elsewhere the input's digest is kept on another core
 * (sha256_worker.h) while this one lays the changes, keeps OUT's digest and
 * writes.  The input's bytes stay in w->buf until its digest has them; a
 * chunk the plan changes is changed in a copy (w->obuf).
 */
static int stream_pass(struct out *w, bool write_out, struct xr_output_digests *dg)
{
	const struct xr_plan *plan = w->plan;
	uint64_t insize = w->ctx->input->size;
	uint8_t *cbuf = malloc(xr_plan_max_change(plan));
	struct xsha256_worker hin;
	struct xsha256 hout;
	/* Both digests here, together (not with reread: OUT's comes from OUT). */
	bool pair = w->hash && !w->o->reread && xsha256_pair_fast();
	size_t ci = 0;
	int rc = 0;

	if (!cbuf)
		return fail(w, XERR_NOMEM, "out of memory");
	xsha256_worker_start(&hin, w->hash && !pair && w->o->jobs != 1);
	xsha256_init(&hout);
	for (uint64_t off = 0; off < w->size && !rc; off += COPY_CHUNK) {
		size_t n = w->size - off < COPY_CHUNK ? (size_t)(w->size - off) : COPY_CHUNK;
		size_t have = off >= insize ? 0 : insize - off < n ? (size_t)(insize - off) : n;
		uint8_t *ob = w->buf;

		if (have) {
			/* Sectors of a bad-sector map are never read: zeros; nor
			 * are the holes of a sparse input. */
			if (ximg_is_hole(w->ctx->input, off, have))
				memset(w->buf, 0, have);
			else
				rc = ximg_pread_fill(w->ctx->input, w->buf, have, off, NULL);
			if (rc) {
				rc = fail(w, rc, "%s: %s", w->ctx->input->name,
					  w->ctx->input->errmsg);
				break;
			}
			if (w->hash && !pair)
				xsha256_worker_feed(&hin, w->buf, have);
		}
		memset(w->buf + have, 0, n - have);
		while (ci < plan->nchanges && plan->changes[ci].offset + plan->changes[ci].len <= off)
			ci++;
		if (w->hash && ci < plan->nchanges && plan->changes[ci].offset < off + n) {
			memcpy(w->obuf, w->buf, n);
			ob = w->obuf;
		}
		for (size_t k = ci; k < plan->nchanges && plan->changes[k].offset < off + n; k++) {
			const struct xr_change *c = &plan->changes[k];
			uint64_t from = c->offset > off ? c->offset : off;
			uint64_t to = c->offset + c->len < off + n ? c->offset + c->len : off + n;
			const uint8_t *b = xr_plan_change_bytes(plan, c, cbuf);

			if (!b) {
				rc = fail(w, XERR_IO, "the plan's temporary file cannot be read back");
				break;
			}
			memcpy(ob + (from - off), b + (from - c->offset), (size_t)(to - from));
		}
		if (rc)
			break;
		if (pair && have == n) {
			xsha256_update2(&hin.ctx, w->buf, &hout, ob, n);
		} else if (pair) {
			xsha256_update(&hin.ctx, w->buf, have);   /* the input's end */
			xsha256_update(&hout, ob, n);
		} else if (w->hash && !w->o->reread) {
			xsha256_update(&hout, ob, n);
		}
		if (write_out) {
			rc = w->is_blk ? pwrite_full(w, ob, n, off) : write_sparse(w, ob, n, off);
			if (rc == 0 && (off + n) % (64u << 20) == 0)
				writeback_range(w, off + n - (64u << 20), 64u << 20);
		}
		progress(w, n);
		/* w->buf is read into next: the input's digest must be done with it. */
		xsha256_worker_wait(&hin);
	}
	free(cbuf);
	xsha256_worker_finish(&hin, rc || !w->hash ? NULL : dg->in);
	if (rc || !w->hash)
		return rc;
	dg->have_in = true;
	if (!w->o->reread) {
		xsha256_final(&hout, dg->out);
		dg->have_out = true;
	}
	return 0;
}

/*
 * The kernel's copy and the plan on a thread (copier) while this one
 * hashes: the wall time of the larger, not of the sum.  Where the kernel
 * cannot copy after all, OUT is written by a stream that no longer hashes
 * (the digests are already made).  *copied: the kernel copied.
 */
static int copy_beside_hash(struct out *w, struct xr_output_digests *dg, bool *copied)
{
	struct copier *c = calloc(1, sizeof(*c));
	uint64_t copy_bytes = w->ctx->input->size + xr_plan_bytes(w->plan);
	bool threaded;
	int rc, crc;

	*copied = false;
	if (!c)
		return fail(w, XERR_NOMEM, "out of memory");
	c->o = *w->o;
	c->o.progress = NULL;
	c->own = *w;
	c->own.o = &c->o;
	c->own.err = c->err;
	c->own.errlen = sizeof(c->err);
	c->own.created = false;   /* (only the caller unlinks a failed OUT) */
	threaded = pthread_create(&c->thread, NULL, copier_run, c) == 0;
	if (!threaded)
		copier_run(c);   /* no thread to be had: one after the other */
	rc = stream_pass(w, false, dg);
	if (threaded)
		pthread_join(c->thread, NULL);
	crc = c->rc;
	if (crc < 0 && rc == 0)
		rc = fail(w, crc, "%s", c->err);
	if (rc == 0 && crc == 0) {
		*copied = true;
		progress(w, copy_bytes);
	}
	if (rc == 0 && crc == 1) {
		/* Written by the stream, which hashes no more. */
		bool hash = w->hash;

		w->total = w->done + w->size + (hash && w->o->reread ? w->size : 0);
		w->hash = false;
		rc = stream_pass(w, true, dg);
		w->hash = hash;
	}
	free(c);
	return rc;
}

/* OUT's digest read back from OUT after fsync (reread). */
static int hash_out(struct out *w, uint8_t digest[XSHA256_DIGEST_LEN])
{
	struct xsha256 h;

	xsha256_init(&h);
	for (uint64_t off = 0; off < w->size;) {
		size_t want = w->size - off < COPY_CHUNK ? (size_t)(w->size - off) : COPY_CHUNK;
		ssize_t n = pread(w->fd, w->buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, XERR_IO, "%s: re-reading byte %llu failed: %s", w->path,
				    (unsigned long long)off, n < 0 ? strerror(errno) : "short file");
		xsha256_update(&h, w->buf, (size_t)n);
		off += (uint64_t)n;
		progress(w, (uint64_t)n);
	}
	xsha256_final(&h, digest);
	return 0;
}

/* Ask the kernel to start writing OUT's dirty pages out without waiting
 * for them (Linux; elsewhere the sync does it all). */
static void start_writeback(struct out *w)
{
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
	(void)sync_file_range(w->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
	(void)w;
#endif
}

int xr_output_sync(struct xr_output_pending *p, char *err, size_t errlen)
{
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (p->fd < 0)
		return 0;
	if (fsync(p->fd) != 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: fsync: %s", p->path, strerror(errno));
		rc = XERR_IO;
	}
	if (close(p->fd) != 0 && rc == 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: close: %s", p->path, strerror(errno));
		rc = XERR_IO;
	}
	/* A file we created that may not hold what was written must not pass
	 * for a result. */
	if (rc && p->created)
		unlink(p->path);
	p->fd = -1;
	p->created = false;
	return rc;
}

int xr_output_write(struct xa_ctx *ctx, const struct xr_plan *plan, const char *out_path,
		    const struct xr_output_opts *o, struct xr_output_digests *dg, char *err,
		    size_t errlen)
{
	static const struct xr_output_opts none = { .no_hash = true };
	struct xr_output_digests scratch;
	struct out w;
	bool copied = false;
	int rc;

	if (!o)
		o = &none;
	if (o->pending) {
		o->pending->fd = -1;
		o->pending->created = false;
	}
	if (!dg)
		dg = &scratch;
	memset(dg, 0, sizeof(*dg));
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.plan = plan;
	w.o = o;
	w.hash = !o->no_hash;
	w.path = out_path;
	w.fd = -1;
	w.err = err;
	w.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (!plan->sorted && plan->nchanges)
		return fail(&w, XERR_USAGE, "the plan is not finished");
	w.size = ctx->image_size;
	for (size_t i = 0; i < plan->nchanges; i++)
		if (plan->changes[i].offset + plan->changes[i].len > w.size)
			w.size = plan->changes[i].offset + plan->changes[i].len;

	w.buf = malloc(COPY_CHUNK);
	w.obuf = w.hash ? malloc(COPY_CHUNK) : NULL;   /* only the digests need it */
	if (!w.buf || (w.hash && !w.obuf)) {
		free(w.buf);
		free(w.obuf);
		return fail(&w, XERR_NOMEM, "out of memory");
	}
	rc = open_out(&w);
	/* What the progress counts: the kernel's copy, the plan and a stream
	 * that only hashes, or a stream that writes; then any read back. */
	w.total = (fast_copy_possible(&w) ? ctx->input->size + xr_plan_bytes(plan) +
					    (w.hash ? w.size : 0)
					  : w.size) +
		  (w.hash && o->reread ? w.size : 0);
	if (rc == 0 && w.hash && o->jobs != 1 && fast_copy_possible(&w) &&
	    sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		rc = copy_beside_hash(&w, dg, &copied);
	} else if (rc == 0) {
		rc = copy_input_fast(&w);
		copied = rc == 0;
		if (rc == 1) {
			rc = 0;
			w.total = w.size + (w.hash && o->reread ? w.size : 0);
		}
		if (rc == 0 && copied)
			rc = apply_plan(&w);
		/* With the kernel's copy, the stream only hashes (and is skipped
		 * when nothing is hashed); else it writes OUT. */
		if (rc == 0 && (!copied || w.hash))
			rc = stream_pass(&w, !copied, dg);
	}
	if (rc == 0 && o->pending && !o->reread) {
		/* The caller syncs later: the disk works meanwhile. */
		start_writeback(&w);
		o->pending->fd = w.fd;
		o->pending->created = w.created;
		o->pending->path = w.path;
		free(w.buf);
		free(w.obuf);
		return 0;
	}
	if (rc == 0 && fsync(w.fd) != 0)
		rc = fail(&w, XERR_IO, "%s: fsync: %s", w.path, strerror(errno));
	if (rc == 0 && w.hash && o->reread) {
		rc = hash_out(&w, dg->out);
		dg->have_out = rc == 0;
	}
	if (w.fd >= 0 && close(w.fd) != 0 && rc == 0)
		rc = fail(&w, XERR_IO, "%s: close: %s", w.path, strerror(errno));
	/* A half-written file we created must not pass for a result. */
	if (rc && w.created)
		unlink(w.path);
	if (rc)
		memset(dg, 0, sizeof(*dg));
	free(w.buf);
	free(w.obuf);
	return rc;
}
