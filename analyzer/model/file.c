/*
 * file.c - inodes, their mappings and their bytes, for the file views.
 */
#include "analyzer/model/file.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/symlink.h"

/* Counts the errors a verifier reports, ignoring one code. */
struct count_sink {
	unsigned        errors;
	enum xprob_code ignore;
};

static void count_report(void *arg, const struct xprob *p)
{
	struct count_sink *cs = arg;

	if (p->code != cs->ignore && xprob_severity_of(p->code) == XSEV_ERROR)
		cs->errors++;
}

/*
 * Is the magic number the inode's only fault?  With the magic put back
 * (into fixed, inodesize bytes) the core must verify with no error but its
 * CRC (a CRC covers the magic), and be in use.  Then *d is its decoding.
 */
bool xa_inode_magic_only(const struct xfmt_geom *g, uint64_t ino, const uint8_t *raw,
		       uint8_t *fixed, struct xfmt_dinode *d)
{
	struct count_sink cs = { 0, XP_inoBadCrc };
	struct xprob_sink sink = { count_report, &cs };

	if (g->inodesize > XFMT_DINODE_MAX_SIZE)
		return false;
	memcpy(fixed, raw, g->inodesize);
	fixed[0] = (uint8_t)(XFS_DINODE_MAGIC >> 8);
	fixed[1] = (uint8_t)XFS_DINODE_MAGIC;
	if (xfmt_dinode_decode(fixed, g->inodesize, g, d) != 0)
		return false;
	xfmt_dinode_verify(fixed, g->inodesize, g, ino, d, &sink);
	return cs.errors == 0 && xfmt_dinode_in_use(d);
}

int xa_inode_read(struct xa_ctx *ctx, uint64_t ino, struct xa_inode *out)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xbuf *b = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!xfmt_geom_ino_valid(g, ino))
		return XERR_RANGE;
	rc = xa_read(ctx, xfmt_geom_ino_byte(g, ino), g->inodesize, &b, NULL);
	if (rc)
		return rc;
	out->raw = malloc(g->inodesize);
	if (!out->raw) {
		xa_put(ctx, &b);
		return XERR_NOMEM;
	}
	memcpy(out->raw, b->data, g->inodesize);
	out->len = g->inodesize;
	out->ino = ino;
	xa_put(ctx, &b);
	if (xfmt_dinode_decode(out->raw, out->len, g, &out->d) != 0) {
		xa_inode_release(out);
		return XERR_FORMAT;
	}
	if (out->d.magic != XFS_DINODE_MAGIC) {
		/* read as the inodes pass reads it: a magic that is the only fault
		 * does not hide the inode (the check reports it) */
		uint8_t fixed[XFMT_DINODE_MAX_SIZE];

		if (!xa_inode_magic_only(g, ino, out->raw, fixed, &out->d)) {
			xa_inode_release(out);
			return XERR_FORMAT;
		}
		memcpy(out->raw, fixed, out->len);
	}
	return 0;
}

void xa_inode_release(struct xa_inode *ip)
{
	free(ip->raw);
	memset(ip, 0, sizeof(*ip));
}

unsigned xa_inode_type(const struct xa_inode *ip)
{
	return ip->d.mode & 0170000u;
}

struct collect {
	struct xa_extents       *ex;
	const struct xfmt_geom  *g;
	size_t                   max;
	uint64_t                 rblocks;   /* the realtime device's size in blocks */
};

static int collect_rec(void *arg, const struct xfmt_bmbt_rec *r)
{
	struct collect *c = arg;
	struct xa_extents *ex = c->ex;

	/* Keep only mappings that are usable as they stand (a realtime
	 * file's inside the realtime device). */
	if (r->blockcount == 0 ||
	    (ex->realtime ? r->startblock >= c->rblocks || r->blockcount > c->rblocks - r->startblock
			  : !xfmt_geom_fsb_valid(c->g, r->startblock) ||
			    !xfmt_geom_fsb_valid(c->g, r->startblock + r->blockcount - 1)) ||
	    (ex->n && ex->v[ex->n - 1].startoff + ex->v[ex->n - 1].blockcount > r->startoff)) {
		ex->complete = false;
		return 0;
	}
	if (ex->n == c->max) {
		ex->complete = false;
		return 0;
	}
	if (ex->n == ex->cap) {
		size_t ncap = ex->cap ? ex->cap * 2 : 16;
		struct xfmt_bmbt_rec *n = realloc(ex->v, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		ex->v = n;
		ex->cap = ncap;
	}
	ex->v[ex->n++] = *r;
	return 0;
}

int xa_extents_load(struct xa_ctx *ctx, const struct xa_inode *ip, int whichfork,
		    struct xa_extents *out)
{
	struct xa_fork_result res;
	struct collect c;
	int rc;

	memset(out, 0, sizeof(*out));
	out->complete = true;
	out->realtime = whichfork == XA_DATA_FORK && xfmt_dinode_data_realtime(&ctx->geom, &ip->d);
	c.ex = out;
	c.g = &ctx->geom;
	c.rblocks = ctx->sb.rblocks;
	/* A file cannot map more extents than the filesystem has blocks. */
	c.max = ctx->geom.dblocks < SIZE_MAX / 2 ? (size_t)ctx->geom.dblocks : SIZE_MAX / 2;
	rc = xa_fork_walk(ctx, ip->ino, ip->raw, &ip->d, whichfork, false, collect_rec, &c, &res);
	if (rc) {
		xa_extents_release(out);
		return rc;
	}
	if (!res.complete)
		out->complete = false;
	return 0;
}

void xa_extents_release(struct xa_extents *ex)
{
	free(ex->v);
	memset(ex, 0, sizeof(*ex));
}

const struct xfmt_bmbt_rec *xa_extents_find(const struct xa_extents *ex, uint64_t fblock)
{
	size_t lo = 0, hi = ex->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct xfmt_bmbt_rec *r = &ex->v[mid];

		if (fblock < r->startoff)
			hi = mid;
		else if (fblock >= r->startoff + r->blockcount)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

/* n bytes of the file at off could not be read: zeros, and said so. */
static void unreadable(uint8_t *p, size_t n, uint64_t off, xa_missing_fn missing, void *arg)
{
	memset(p, 0, n);
	if (missing)
		missing(arg, off, n);
}

int xa_file_pread(struct xa_ctx *ctx, const struct xa_extents *ex, void *buf, size_t len,
		  uint64_t off, xa_missing_fn missing, void *arg)
{
	const struct xfmt_geom *g = &ctx->geom;
	uint8_t *p = buf;

	while (len) {
		uint64_t fblock = off >> g->blocklog;
		size_t in_block = (size_t)(off & (g->blocksize - 1));
		size_t n = g->blocksize - in_block;
		const struct xfmt_bmbt_rec *r;

		if (n > len)
			n = len;
		r = xa_extents_find(ex, fblock);
		if (!r || r->unwritten) {
			memset(p, 0, n);
		} else if (ex->realtime) {
			/* the realtime device: read where --rtdev gave it, else
			 * unreadable (never the data device's bytes there); the
			 * run is cut to what the read asks before any shift, so a
			 * hostile block number cannot wrap a byte offset */
			uint64_t rtb = r->startblock + (fblock - r->startoff);
			uint64_t left = r->startoff + r->blockcount - fblock;
			uint64_t want = ((uint64_t)in_block + len + g->blocksize - 1) >> g->blocklog;
			uint64_t have = ctx->rtdev ? ctx->rtdev->size >> g->blocklog : 0;
			int rc = XERR_IO;

			if (left > want)
				left = want;
			n = (size_t)((left << g->blocklog) - in_block);
			if (n > len)
				n = len;
			if (rtb < have && left <= have - rtb)
				rc = ximg_pread(ctx->rtdev, p, n, (rtb << g->blocklog) + in_block);
			if (rc == XERR_NOMEM)
				return rc;
			if (rc)
				unreadable(p, n, off, missing, arg);
		} else {
			uint64_t fsb = r->startblock + (fblock - r->startoff);
			uint64_t left = r->startoff + r->blockcount - fblock;
			uint32_t agbno = xfmt_geom_fsb_agbno(g, fsb);
			uint32_t aglen = xfmt_geom_ag_length(g, xfmt_geom_fsb_agno(g, fsb));
			uint64_t run;
			int rc;

			/* File data bypasses the metadata cache.  Read the longest
			 * run that stays inside this extent and this AG: fsblock
			 * numbers are not linear across AGs. */
			if (aglen > agbno && left > aglen - agbno)
				left = aglen - agbno;
			run = (left << g->blocklog) - in_block;
			if (run > len)
				run = len;
			if (run > n)
				n = (size_t)run;
			rc = ximg_pread(ctx->img, p, n, xfmt_geom_fsb_byte(g, fsb) + in_block);
			if (rc && rc != XERR_NOMEM && n > g->blocksize - in_block) {
				/* Narrow a failed run to its first block, so one bad
				 * sector costs one block, not the whole run. */
				n = g->blocksize - in_block;
				if (n > len)
					n = len;
				rc = ximg_pread(ctx->img, p, n, xfmt_geom_fsb_byte(g, fsb) + in_block);
			}
			if (rc == XERR_NOMEM)
				return rc;
			if (rc)
				unreadable(p, n, off, missing, arg);
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static void sink_drop(void *arg, const struct xprob *p)
{
	(void)arg;
	(void)p;
}

int xa_symlink_target(struct xa_ctx *ctx, const struct xa_inode *ip, uint8_t *out,
		      size_t *len, const struct xprob_sink *sink)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xprob_sink drop = { sink_drop, NULL };
	struct xfmt_symlink_asm a;
	struct xa_extents ex;
	uint8_t *buf;
	int rc;

	if (!sink)
		sink = &drop;
	*len = 0;
	if (ip->d.format == 1) {
		size_t fsz = 0, n = 0;
		const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, XA_DATA_FORK, &fsz);
		const uint8_t *t = xfmt_symlink_local(fork, fsz, ip->d.size, &n);

		xfmt_symlink_local_verify(fork, fsz, ip->d.size, sink);
		if (!t)
			return XERR_FORMAT;
		if (n > XFMT_SYMLINK_MAXLEN - 1)
			n = XFMT_SYMLINK_MAXLEN - 1;
		memcpy(out, t, n);
		*len = n;
		return n == ip->d.size ? 0 : XERR_FORMAT;
	}
	rc = xa_extents_load(ctx, ip, XA_DATA_FORK, &ex);
	if (rc)
		return rc;
	xfmt_symlink_map_verify(ex.v, ex.n, g, sink);
	xfmt_symlink_asm_init(&a, g, ip->ino, ip->d.size);
	/* A remote target spans at most 3 mappings of at most 1 KiB each
	 * in use; read at most 4 blocks per mapping. */
	buf = malloc((size_t)g->blocksize * 4);
	if (!buf) {
		xa_extents_release(&ex);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < ex.n && i < XFMT_SYMLINK_MAPS && !xfmt_rmt_cursor_done(&a.cur); i++) {
		uint32_t nb = ex.v[i].blockcount < 4 ? ex.v[i].blockcount : 4;
		uint64_t byte = xfmt_geom_fsb_byte(g, ex.v[i].startblock);
		size_t n = (size_t)nb << g->blocklog;

		if (ximg_pread(ctx->img, buf, n, byte) != 0)
			break;
		xfmt_symlink_asm_add(&a, buf, n, byte >> XFS_BB_SHIFT, g, sink);
		/* One header per mapping, as the kernel writes it. */
		struct xa_loc loc = { XPROB_HAS_INO | XPROB_HAS_BYTE, 0, 0, ip->ino, byte,
				      "symlink block" };

		xa_note_meta_lsn(ctx, buf, n, &loc);
	}
	xfmt_symlink_asm_finish(&a, sink);
	free(buf);
	xa_extents_release(&ex);
	memcpy(out, a.target, a.cur.have);
	*len = a.cur.have;
	return a.cur.have == a.cur.want && a.cur.want == ip->d.size ? 0 : XERR_FORMAT;
}
