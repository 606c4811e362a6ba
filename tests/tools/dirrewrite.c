/*
 * dirrewrite.c - test helper: re-encode every directory of a raw XFS image
 * from its own entries with the directory encoder (formats/dir2_build.h)
 * and write the result over the directory, in place, so that xfs_repair and
 * the kernel can judge the encoder.
 *
 *   dirrewrite IMAGE
 *
 * IMAGE is a scratch copy: it is modified.  Every directory reachable from
 * the root is read through the analyzer (entries in storage order), then:
 *   - short form: the data fork is encoded again, di_size set, the inode
 *     CRC recomputed (v5), the inode written back;
 *   - block, leaf, node: the directory is built in the same form, with as
 *     many data blocks and leafN blocks as it maps; when the new blocks are
 *     exactly the directory blocks it maps, each is sealed with the daddr it
 *     is written at (and the LSN of the block it replaces) and written; a
 *     directory whose layout cannot be matched (holes, more blocks) is left
 *     alone and reported as skipped.
 * One line per directory on stdout:
 *   rewrote INO FORM data=D leaf=L node=N free=F identical=I/T
 *   skipped INO REASON
 * and a summary: "dirs N rewrote R skipped S blocks T identical I".  With
 * DIRREWRITE_VERBOSE set, each block's comparison with the one it replaces
 * goes to stderr.  Exit
 * 0, or 1 on an error (a directory that could not be read completely, an
 * encoder error other than a layout mismatch, an I/O error).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/messages.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/tree.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/crc32c.h"
#include "formats/dinode.h"
#include "formats/dir2.h"
#include "formats/dir2_build.h"
#include "formats/endian.h"

struct dirs {
	uint64_t *v;
	size_t n, cap;
};

static int dirs_add(struct dirs *d, uint64_t ino)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		uint64_t *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return XERR_NOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = ino;
	return 0;
}

static int collect_dir(void *arg, const struct xa_tree_entry *e)
{
	if (e->ip && (e->ip->d.mode & XFMT_S_IFMT) == XFMT_S_IFDIR)
		return dirs_add(arg, e->ino);
	return 0;
}

/* A directory's entries, copied out of the analyzer's buffers. */
struct ents {
	struct xfmt_dirent_in *e;
	uint8_t *names;          /* 255 bytes per entry */
	size_t n, cap;
	uint64_t parent;
};

static int collect_ent(void *arg, const struct xfmt_dirent *de)
{
	struct ents *s = arg;
	int dots = xfmt_dir2_name_dots(de->name, de->namelen);

	if (dots == 2)
		s->parent = de->ino;
	if (dots)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct xfmt_dirent_in *e = realloc(s->e, cap * sizeof(*e));
		uint8_t *names;

		if (!e)
			return XERR_NOMEM;
		s->e = e;
		names = realloc(s->names, cap * 255);
		if (!names)
			return XERR_NOMEM;
		s->names = names;
		s->cap = cap;
	}
	memcpy(s->names + s->n * 255, de->name, de->namelen);
	s->e[s->n] = (struct xfmt_dirent_in){ NULL, de->namelen, de->ino, de->ftype };
	s->n++;
	return 0;
}

struct stats {
	size_t dirs, rewrote, skipped, blocks, identical;
};

static int write_inode(int fd, const struct xfmt_geom *g, uint64_t ino, uint8_t *raw)
{
	if (g->v5)
		xfmt_crc_update(raw, g->inodesize, XFMT_DINODE_CRC_OFF);
	return pwrite(fd, raw, g->inodesize, (off_t)xfmt_geom_ino_byte(g, ino)) ==
	       (ssize_t)g->inodesize ? 0 : XERR_IO;
}

static int rewrite_sf(int fd, const struct xfmt_geom *g, struct xa_inode *ip, struct ents *s,
		      struct stats *st)
{
	uint8_t *fork = ip->raw + ip->d.dfork_off;
	uint8_t *out = calloc(1, ip->d.dfork_size);
	size_t size;
	int rc;

	if (!out)
		return XERR_NOMEM;
	rc = xfmt_dir2_sf_encode(g, s->parent, s->e, s->n, out, ip->d.dfork_size, &size);
	if (rc) {
		fprintf(stderr, "dirrewrite: %" PRIu64 ": short form: error %d\n", ip->ino, rc);
		free(out);
		return XERR_FORMAT;
	}
	st->blocks++;
	if (size == ip->d.size && memcmp(out, fork, size) == 0)
		st->identical++;
	printf("rewrote %" PRIu64 " sf size=%zu identical=%d/1\n", ip->ino, size,
	       size == ip->d.size && memcmp(out, fork, size) == 0);
	memcpy(fork, out, ip->d.dfork_size);
	xfmt_put_be64(ip->raw + 56, size);
	free(out);
	st->rewrote++;
	return write_inode(fd, g, ip->ino, ip->raw);
}

/* Byte offset of fork block fblock, or UINT64_MAX for a hole. */
static uint64_t fblock_byte(const struct xfmt_geom *g, const struct xa_extents *ex, uint64_t fb)
{
	const struct xfmt_bmbt_rec *r = xa_extents_find(ex, fb);

	if (!r)
		return UINT64_MAX;
	return xfmt_geom_fsb_byte(g, r->startblock + (fb - r->startoff));
}

/* The directory blocks the fork maps, by their first fork block. */
static int mapped_dablocks(const struct xfmt_geom *g, const struct xa_extents *ex,
			   uint32_t **out, size_t *nout)
{
	uint32_t fsbcount = 1u << g->dirblklog, *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < ex->n; i++) {
		for (uint64_t b = 0; b < ex->v[i].blockcount; b++) {
			uint64_t fb = ex->v[i].startoff + b;
			uint32_t da = (uint32_t)(fb & ~(uint64_t)(fsbcount - 1));

			if (n && v[n - 1] == da)
				continue;
			if (n == cap) {
				uint32_t *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv) {
					free(v);
					return XERR_NOMEM;
				}
				v = nv;
			}
			v[n++] = da;
		}
	}
	*out = v;
	*nout = n;
	return 0;
}

static int rewrite_blocks(int fd, const struct xfmt_geom *g, struct xa_ctx *ctx,
			  struct xa_inode *ip, struct ents *s, struct stats *st)
{
	struct xa_extents ex = { 0 };
	struct xfmt_dir2_build b = { 0 };
	struct xfmt_dir2_build_opts o = { 0 };
	uint32_t *das = NULL, leafda = xfmt_dir2_leaf_firstda(g), freeda = xfmt_dir2_free_firstda(g);
	uint32_t fsbcount = 1u << g->dirblklog, ndata = 0, nleafsp = 0, nfree = 0, nleafn = 0;
	size_t nda = 0, same = 0;
	uint8_t *old = malloc(g->dirblksize);
	const char *why = NULL;
	int rc;

	if (!old)
		return XERR_NOMEM;
	if ((rc = xa_extents_load(ctx, ip, XA_DATA_FORK, &ex)) != 0 || !ex.complete) {
		rc = rc ? rc : XERR_FORMAT;
		goto out;
	}
	if ((rc = mapped_dablocks(g, &ex, &das, &nda)) != 0)
		goto out;
	for (size_t i = 0; i < nda; i++) {
		if (das[i] < leafda) {
			if (das[i] != ndata * fsbcount)
				why = "hole in the data segment";
			ndata++;
		} else if (das[i] < freeda) {
			uint64_t byte = fblock_byte(g, &ex, das[i]);

			nleafsp++;
			if (byte != UINT64_MAX && pread(fd, old, 16, (off_t)byte) == 16) {
				uint16_t m = xfmt_get_be16(old + 8);

				nleafn += m == XFS_DIR3_LEAFN_MAGIC || m == XFS_DIR2_LEAFN_MAGIC;
			}
		} else {
			nfree++;
		}
	}
	o.form = nleafsp == 0 ? XFMT_DIR2_FORM_BLOCK :
		 nfree == 0 ? XFMT_DIR2_FORM_LEAF : XFMT_DIR2_FORM_NODE;
	if (o.form != XFMT_DIR2_FORM_BLOCK)
		o.data_blocks = ndata;
	if (o.form == XFMT_DIR2_FORM_NODE)
		o.leaf_blocks = nleafn;
	if (!why) {
		rc = xfmt_dir2_build(g, ip->ino, s->parent, s->e, s->n, &o, &b);
		if (rc == XFMT_DIRB_NOFIT)
			why = "the entries do not fit the blocks the directory maps";
		else if (rc) {
			fprintf(stderr, "dirrewrite: %" PRIu64 ": encoder error %d\n", ip->ino, rc);
			rc = XERR_FORMAT;
			goto out;
		}
	}
	if (!why && b.nblks != nda)
		why = "the new layout has a different number of blocks";
	for (size_t i = 0; !why && i < nda; i++)
		if (b.blks[i].da != das[i])
			why = "the new layout uses other fork offsets";
	if (why) {
		printf("skipped %" PRIu64 " %s\n", ip->ino, why);
		st->skipped++;
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < b.nblks; i++) {
		uint8_t *buf = b.blks[i].buf;
		uint64_t byte0 = fblock_byte(g, &ex, b.blks[i].da), lsn = 0;
		bool da3;

		/* Read the old block (it may span extents) for its LSN and a comparison. */
		for (uint32_t f = 0; f < fsbcount; f++) {
			uint64_t byte = fblock_byte(g, &ex, b.blks[i].da + f);

			if (pread(fd, old + (size_t)f * g->blocksize, g->blocksize, (off_t)byte) !=
			    (ssize_t)g->blocksize) {
				rc = XERR_IO;
				goto out;
			}
		}
		da3 = xfmt_get_be32(buf) != XFS_DIR3_DATA_MAGIC &&
		      xfmt_get_be32(buf) != XFS_DIR3_BLOCK_MAGIC &&
		      xfmt_get_be32(buf) != XFS_DIR3_FREE_MAGIC;
		if (g->v5)
			lsn = xfmt_get_be64(old + (da3 ? 24 : 16));
		if (xfmt_dir2_blk_seal(g, buf, g->dirblksize, byte0 >> XFS_BB_SHIFT, ip->ino, lsn)) {
			rc = XERR_FORMAT;
			goto out;
		}
		same += memcmp(old, buf, g->dirblksize) == 0;
		if (getenv("DIRREWRITE_VERBOSE")) {
			size_t k = 0;

			while (k < g->dirblksize && old[k] == buf[k])
				k++;
			fprintf(stderr, "  da %u: %s (first difference at %zu)\n", b.blks[i].da,
				k == g->dirblksize ? "identical" : "differs", k);
		}
		for (uint32_t f = 0; f < fsbcount; f++) {
			uint64_t byte = fblock_byte(g, &ex, b.blks[i].da + f);

			if (pwrite(fd, buf + (size_t)f * g->blocksize, g->blocksize, (off_t)byte) !=
			    (ssize_t)g->blocksize) {
				rc = XERR_IO;
				goto out;
			}
		}
	}
	printf("rewrote %" PRIu64 " %s data=%u leaf=%u node=%u free=%u identical=%zu/%zu\n",
	       ip->ino, b.form == XFMT_DIR2_FORM_BLOCK ? "block" :
	       b.form == XFMT_DIR2_FORM_LEAF ? "leaf" : "node",
	       b.ndata, b.nleaf, b.nnode, b.nfree, same, b.nblks);
	st->rewrote++;
	st->blocks += b.nblks;
	st->identical += same;
	rc = 0;
	if (b.di_size != ip->d.size) {
		xfmt_put_be64(ip->raw + 56, b.di_size);
		rc = write_inode(fd, g, ip->ino, ip->raw);
	}
out:
	xfmt_dir2_build_release(&b);
	xa_extents_release(&ex);
	free(das);
	free(old);
	return rc;
}

static int rewrite_dir(int fd, struct xa_ctx *ctx, uint64_t ino, struct stats *st)
{
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_inode ip;
	struct ents s = { 0 };
	bool complete = true;
	int rc;

	if ((rc = xa_inode_read(ctx, ino, &ip)) != 0)
		return rc;
	rc = xa_dir_iterate(ctx, &ip, NULL, collect_ent, &s, &complete);
	if (rc == 0 && !complete)
		rc = XERR_FORMAT;
	if (rc)
		goto out;
	for (size_t i = 0; i < s.n; i++)
		s.e[i].name = s.names + i * 255;
	st->dirs++;
	if (ip.d.format == 1)   /* LOCAL */
		rc = rewrite_sf(fd, g, &ip, &s, st);
	else
		rc = rewrite_blocks(fd, g, ctx, &ip, &s, st);
out:
	free(s.e);
	free(s.names);
	xa_inode_release(&ip);
	return rc;
}

/* The tree walk's diagnostics, on standard error. */
static void say(void *arg, enum xa_msg_kind kind, const char *text)
{
	(void)arg;
	(void)kind;
	fprintf(stderr, "dirrewrite: %s\n", text);
}

int main(int argc, char **argv)
{
	struct xa_ctx ctx;
	struct xa_options opts = { 0 };
	struct dirs d = { 0 };
	struct stats st = { 0 };
	const struct xa_messages msgs = { say, NULL };
	bool incomplete = false;
	char err[512];
	int fd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: dirrewrite IMAGE\n");
		return 16;
	}
	if (xa_ctx_open(&ctx, argv[1], NULL, &opts, err, sizeof(err)) != 0) {
		fprintf(stderr, "dirrewrite: %s\n", err);
		return 1;
	}
	fd = open(argv[1], O_RDWR);
	rc = fd < 0 ? XERR_IO : xa_run(&ctx, XA_RUN_INFO);
	/* First every directory (nothing written yet), then the rewrites. */
	if (rc == 0)
		rc = dirs_add(&d, ctx.sb.rootino);
	if (rc == 0)
		rc = xa_tree_walk(&ctx, ctx.sb.rootino, "", true, collect_dir, &d, &msgs,
				  &incomplete);
	for (size_t i = 0; rc == 0 && i < d.n; i++) {
		rc = rewrite_dir(fd, &ctx, d.v[i], &st);
		if (rc)
			fprintf(stderr, "dirrewrite: directory %" PRIu64 ": %s\n", d.v[i], xerr_str(rc));
	}
	if (rc == 0 && incomplete)
		rc = XERR_FORMAT;
	if (fd >= 0 && fsync(fd) != 0 && rc == 0)
		rc = XERR_IO;
	if (fd >= 0)
		close(fd);
	printf("dirs %zu rewrote %zu skipped %zu blocks %zu identical %zu\n", st.dirs, st.rewrote,
	       st.skipped, st.blocks, st.identical);
	free(d.v);
	xa_ctx_release(&ctx);
	return rc ? 1 : 0;
}
