/*
 * show_dir.c - directories for `xfsrecon show`: one directory block of any
 * form (data, single block, leaf1, leafN, DA node, free index) with its
 * header fields, records (entries and unused regions), leaf entries, bests
 * and tail, each judged by the form's verifier; `dir`, every block of one
 * directory in fork order (or its shortform entries); and `path`, how a
 * path is resolved: for every component the directory, its form, the name's
 * hash and the leaf or DA node entries the lookup followed to the entry.
 *
 * Array and field names are xfs_db's (bu/du records, bleaf, lents, lbests,
 * nbtree, fbests, u3.sfdir3.list), so a test can compare the two.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_number.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "cli/views/show_int.h"
#include "formats/block.h"
#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/endian.h"

/* A directory block's kind, by magic (either version's); UNKNOWN for any other block. */
static enum xfmt_blk_kind dir_kind(const uint8_t *buf, size_t len)
{
	enum xfmt_blk_kind k = xfmt_blk_classify(buf, len, XFMT_BLK_ANY);

	return xfmt_blk_is_dir_data(k) || xfmt_blk_is_dir_index(k) || k == XFMT_BLK_DIR_FREE
		       ? k
		       : XFMT_BLK_UNKNOWN;
}

/* Fields of a tail table, whose offsets count from the tail, shown at base. */
static void tail_fields(struct xc_show_out *o, const struct xfmt_field *t, const uint8_t *buf,
			size_t len, size_t base)
{
	struct xfmt_field f;

	for (; t->name; t++) {
		f = *t;
		if (base + f.off > UINT16_MAX)
			return;
		f.off = (uint16_t)(base + f.off);
		xc_so_field(o, &f, buf, len);
	}
}

/* ------------------------------------------------------------ block forms */

/* Entries and unused regions of a data or single-block block. */
static void data_records(struct xc_show_run *s, const uint8_t *buf, size_t len, bool block_form)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	const char *arr = block_form ? "bu" : "du";
	bool ft = xfmt_geom_has_ftype(g);
	struct xfmt_dir2_rec r;
	size_t pos = 0;
	unsigned i = 0;
	int rc;

	while ((rc = xfmt_dir2_data_rec_next(buf, len, g, block_form, &pos, &r)) == 1) {
		xc_so_item_begin(&s->o, arr, i++, r.offset, r.length, false);
		if (r.kind == XFMT_DIR2_REC_ENTRY) {
			xc_so_item_u64(&s->o, "inumber", r.ent.ino);
			xc_so_item_u64(&s->o, "namelen", r.ent.namelen);
			xc_so_item_name(&s->o, "name", r.ent.name, r.ent.namelen);
			if (ft)
				xc_so_item_u64(&s->o, "filetype", r.ent.ftype);
		} else {
			xc_so_item_hex(&s->o, "freetag", XFS_DIR2_DATA_FREE_TAG);
			xc_so_item_hex(&s->o, "length", r.length);
		}
		xc_so_item_hex(&s->o, "tag", r.tag);
		xc_so_item_end(&s->o);
	}
	if (rc < 0)
		xc_so_note(&s->o, "the record at byte %zu is malformed: the rest of the block "
			   "cannot be walked", pos);
}

static void block_leaf(struct xc_show_run *s, const uint8_t *buf, size_t len)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dir2_block_tail tail;
	uint32_t h, a;

	if (xfmt_dir2_block_tail_decode(buf, len, g, &tail) != 0) {
		xc_so_note(&s->o, "the block tail's count does not fit the block; no leaf shown");
	} else {
		for (unsigned i = 0; i < tail.count; i++) {
			if (xfmt_dir2_block_leaf(buf, len, g, &tail, i, &h, &a) != 0)
				break;
			xc_so_item_begin(&s->o, "bleaf", i, tail.leaf_off + 8u * i, 8, true);
			xc_so_item_hex(&s->o, "hashval", h);
			xc_so_item_hex(&s->o, "address", a);
			xc_so_item_end(&s->o);
		}
	}
	tail_fields(&s->o, xfmt_dir2_block_tail_fields, buf, len, g->dirblksize - 8u);
}

static void leaf_block(struct xc_show_run *s, const uint8_t *buf, size_t len, bool leaf1)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dir2_leaf_hdr hdr;
	struct xfmt_dir2_leaf_tail tail;
	unsigned n, max = xfmt_dir2_leaf_max_ents(g);
	uint32_t h, a;
	uint16_t best;

	xc_so_fields(&s->o, xfmt_dir2_leaf_fields(g->v5), buf, len);
	if (xfmt_dir2_leaf_hdr_decode(buf, len, g->v5, &hdr) != 0)
		return;
	if (leaf1 && xfmt_dir2_leaf1_tail_decode(buf, len, g, &tail) == 0) {
		for (unsigned i = 0; i < tail.bestcount; i++) {
			if (xfmt_dir2_leaf1_best(buf, &tail, i, &best) != 0)
				break;
			xc_so_item_begin(&s->o, "lbests", i, tail.bests_off + 2u * i, 2, true);
			xc_so_item_hex(&s->o, NULL, best);
			xc_so_item_end(&s->o);
		}
	}
	n = hdr.count < max ? hdr.count : max;
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_dir2_leaf_entry(buf, len, g->v5, i, &h, &a) != 0)
			break;
		xc_so_item_begin(&s->o, "lents", i, hdr.hdr_len + 8u * i, 8, true);
		xc_so_item_hex(&s->o, "hashval", h);
		xc_so_item_hex(&s->o, "address", a);
		xc_so_item_end(&s->o);
	}
	if (leaf1)
		tail_fields(&s->o, xfmt_dir2_leaf_tail_fields, buf, len, g->dirblksize - 4u);
}

static void node_block(struct xc_show_run *s, const uint8_t *buf, size_t len)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_da_node_hdr hdr;
	unsigned n, max = xfmt_da_node_max_ents(g->dirblksize, g->v5);
	uint32_t h, before;

	xc_so_fields(&s->o, xfmt_da_node_fields_for(g->v5), buf, len);
	if (xfmt_da_node_hdr_decode(buf, len, g->v5, &hdr) != 0)
		return;
	n = hdr.count < max ? hdr.count : max;
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_da_node_entry(buf, len, g->v5, i, &h, &before) != 0)
			break;
		xc_so_item_begin(&s->o, "nbtree", i, hdr.hdr_len + 8u * i, 8, true);
		xc_so_item_hex(&s->o, "hashval", h);
		xc_so_item_u64(&s->o, "before", before);
		xc_so_item_end(&s->o);
	}
}

static void free_block(struct xc_show_run *s, const uint8_t *buf, size_t len)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dir2_free_hdr hdr;
	unsigned n, max = xfmt_dir2_free_max_bests(g);
	uint16_t best;

	xc_so_fields(&s->o, xfmt_dir2_free_fields(g->v5), buf, len);
	if (xfmt_dir2_free_hdr_decode(buf, len, g->v5, &hdr) != 0)
		return;
	n = hdr.nvalid < max ? hdr.nvalid : max;
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_dir2_free_best(buf, len, g->v5, i, &best) != 0)
			break;
		xc_so_item_begin(&s->o, "fbests", i, hdr.hdr_len + 2u * i, 2, true);
		xc_so_item_hex(&s->o, NULL, best);
		xc_so_item_end(&s->o);
	}
}

int xc_show_dirblock(struct xc_show_run *s, const char *where, const uint8_t *buf,
		     size_t len, uint64_t byte, uint64_t owner, uint32_t dablk)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	enum xfmt_blk_kind k = dir_kind(buf, len);
	const struct xprob_sink *sink;
	struct xfmt_da_expect exp;
	bool known = dablk != UINT32_MAX;

	if (k == XFMT_BLK_UNKNOWN) {
		fprintf(s->err, "xfsrecon: %s: magic 0x%08" PRIx32 " is not a directory block's\n",
			where, len >= 4 ? xfmt_get_be32(buf) : 0);
		return XERR_USAGE;
	}
	if (!known)
		dablk = k == XFMT_BLK_DIR_FREE ? xfmt_dir2_free_firstda(g) :
			xfmt_blk_is_dir_data(k) ? 0 : xfmt_dir2_leaf_firstda(g);
	/* A DA node here is a directory's: the registry's name serves both forks. */
	xc_so_begin(&s->o, k == XFMT_BLK_DA_NODE ? "dir node" : xfmt_blk_row(k)->name, where, byte,
		    g->dirblksize);
	if (len < g->dirblksize) {
		xc_so_note(&s->o, "only %zu of the directory block's %" PRIu32 " bytes could be read",
			   len, g->dirblksize);
		xc_so_end(&s->o);
		return 0;
	}
	if (!known)
		xc_so_note(&s->o, "shown without its directory: the checks that need the block's "
			   "place in the fork assume the first block of its segment");
	xfmt_dir2_da_expect_init(&exp, g, owner, dablk, byte >> XFS_BB_SHIFT);
	sink = xc_so_sink(&s->o);
	switch (k) {
	case XFMT_BLK_DIR_BLOCK:
		xfmt_dir2_block_verify(buf, len, g, &exp, sink);
		xc_so_fields(&s->o, xfmt_dir2_data_fields(g->v5, true), buf, len);
		data_records(s, buf, len, true);
		block_leaf(s, buf, len);
		break;
	case XFMT_BLK_DIR_DATA:
		xfmt_dir2_data_verify(buf, len, g, &exp, sink);
		xc_so_fields(&s->o, xfmt_dir2_data_fields(g->v5, false), buf, len);
		data_records(s, buf, len, false);
		break;
	case XFMT_BLK_DIR_LEAF1:
	case XFMT_BLK_DIR_LEAFN:
		xfmt_dir2_leaf_verify(buf, len, g, &exp, k == XFMT_BLK_DIR_LEAF1, sink);
		leaf_block(s, buf, len, k == XFMT_BLK_DIR_LEAF1);
		break;
	case XFMT_BLK_DA_NODE:
		xfmt_da_node_verify(buf, len, g->dirblksize, g, &exp, sink);
		node_block(s, buf, len);
		break;
	default:
		xfmt_dir2_free_verify(buf, len, g, &exp, sink);
		free_block(s, buf, len);
		break;
	}
	xc_so_end(&s->o);
	return 0;
}

/* ------------------------------------------------------ whole directories */

/* The name of a directory's form, from its fork (as the kernel decides it). */
static const char *dir_form(struct xc_show_run *s, const struct xa_inode *ip,
			    const struct xa_extents *ex, uint8_t *blk)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	const struct xfmt_bmbt_rec *last;
	uint64_t byte;

	if (ip->d.format == 1)
		return "shortform";
	if (ex->n == 0)
		return "empty";
	last = &ex->v[ex->n - 1];
	if (((last->startoff + last->blockcount) << g->blocklog) == g->dirblksize)
		return "block";
	if (xa_dir_read_block(s->ctx, ex, xfmt_dir2_leaf_firstda(g), blk, &byte, NULL) != 0)
		return "leaf or node (no leaf block)";
	switch (dir_kind(blk, g->dirblksize)) {
	case XFMT_BLK_DIR_LEAF1: return "leaf";
	case XFMT_BLK_DA_NODE: return "node";
	default: return "leaf or node (unrecognised leaf block)";
	}
}

static void show_shortform(struct xc_show_run *s, const struct xa_inode *ip)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	bool ft = xfmt_geom_has_ftype(g), v3 = ip->d.version >= 3;
	struct xfmt_dir2_sf_hdr hdr;
	struct xfmt_dirent de;
	size_t forksize = 0, size, pos = 0;
	const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, 0, &forksize);
	char arr[32], where[64];
	unsigned i = 0;
	int rc;

	if (!fork) {
		xc_so_note(&s->o, "the inode has no data fork");
		return;
	}
	size = ip->d.size < forksize ? (size_t)ip->d.size : forksize;
	snprintf(where, sizeof(where), "inode %" PRIu64 ", data fork", ip->ino);
	xc_so_begin(&s->o, "shortform directory", where,
		    xfmt_geom_ino_byte(g, ip->ino) + (uint64_t)(fork - ip->raw), forksize);
	xfmt_dir2_sf_verify(fork, forksize, ip->d.size, g, xc_so_sink(&s->o));
	if (xfmt_dir2_sf_hdr_decode(fork, size, &hdr) != 0) {
		xc_so_note(&s->o, "di_size %" PRIu64 " cannot hold the header", ip->d.size);
		return;
	}
	xc_so_fields(&s->o, xfmt_dir2_sf_hdr_fields(v3, ft, hdr.i8count != 0), fork, forksize);
	snprintf(arr, sizeof(arr), "%s.%s.list", v3 ? "u3" : "u", ft ? "sfdir3" : "sfdir2");
	while ((rc = xfmt_dir2_sf_next(fork, size, g, &pos, &de)) == 1) {
		size_t len = xfmt_dir2_sf_entsize(g, hdr.i8count != 0, de.namelen);

		xc_so_item_begin(&s->o, arr, i++, pos - len, len, false);
		xc_so_item_u64(&s->o, "namelen", de.namelen);
		xc_so_item_hex(&s->o, "offset", de.offset);
		xc_so_item_name(&s->o, "name", de.name, de.namelen);
		xc_so_item_u64(&s->o, hdr.i8count ? "inumber.i8" : "inumber.i4", de.ino);
		if (ft)
			xc_so_item_u64(&s->o, "filetype", de.ftype);
		xc_so_item_end(&s->o);
	}
	if (rc < 0)
		xc_so_note(&s->o, "the entry at byte %zu of the fork is malformed", pos);
}

int xc_show_resolve(struct xc_show_run *s, const char *arg, uint64_t *ino)
{
	char msg[256];
	int rc;

	if (xc_parse_u64(arg, ino) == 0)
		return 0;
	rc = xa_path_resolve(s->ctx, arg, ino, msg, sizeof(msg));
	if (rc)
		fprintf(s->err, "xfsrecon: %s\n", msg);
	/* Unreadable on the way is damage (8); a wrong path is usage (16). */
	return rc == XERR_NOMEM || rc == XERR_IO ? rc : rc ? XERR_USAGE : 0;
}

static int read_dir_inode(struct xc_show_run *s, uint64_t ino, struct xa_inode *ip)
{
	int rc = xa_inode_read(s->ctx, ino, ip);

	if (rc) {
		fprintf(s->err, "xfsrecon: inode %" PRIu64 " cannot be read as an inode\n", ino);
		/* Not an inode (bad magic) answers a wrong number; a read that
		 * failed (an image cut short) is damage. */
		return rc == XERR_FORMAT ? XERR_USAGE : rc == XERR_NOMEM ? rc : XERR_IO;
	}
	if ((ip->d.mode & 0170000u) != 0040000u) {
		fprintf(s->err, "xfsrecon: inode %" PRIu64 " is not a directory\n", ino);
		xa_inode_release(ip);
		return XERR_USAGE;
	}
	return 0;
}

int xc_show_dir(struct xc_show_run *s, const char *arg)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;
	struct xa_extents ex = { 0 };
	struct xa_inode ip;
	uint8_t *blk = NULL;
	uint64_t ino, shown = 0;
	char where[96];
	int rc;

	rc = xc_show_resolve(s, arg, &ino);
	if (rc)
		return rc;
	rc = read_dir_inode(s, ino, &ip);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "inode %" PRIu64, ino);
	if (ip.d.format == 1) {
		xc_so_begin(&s->o, "directory", where, xfmt_geom_ino_byte(g, ino), g->inodesize);
		xc_so_note(&s->o, "form: shortform (the entries live in the inode), di_size %" PRIu64,
			   ip.d.size);
		xc_so_end(&s->o);
		show_shortform(s, &ip);
		goto out;
	}
	blk = malloc(g->dirblksize);
	if (!blk) {
		rc = XERR_NOMEM;
		goto out;
	}
	rc = xa_extents_load(s->ctx, &ip, XA_DATA_FORK, &ex);
	if (rc)
		goto out;
	xc_so_begin(&s->o, "directory", where, xfmt_geom_ino_byte(g, ino), g->inodesize);
	xc_so_note(&s->o, "form: %s; di_size %" PRIu64 ", %zu mapping%s%s; directory blocks of %"
		   PRIu32 " bytes", dir_form(s, &ip, &ex, blk), ip.d.size, ex.n,
		   ex.n == 1 ? "" : "s", ex.complete ? "" : " (the map is incomplete)",
		   g->dirblksize);
	for (size_t i = 0; i < ex.n; i++) {
		xc_so_item_begin(&s->o, "extent", (unsigned)i, 0, 0, true);
		xc_so_item_u64(&s->o, "startoff", ex.v[i].startoff);
		xc_so_item_u64(&s->o, "startblock", ex.v[i].startblock);
		xc_so_item_u64(&s->o, "blockcount", ex.v[i].blockcount);
		xc_so_item_end(&s->o);
	}
	xc_so_end(&s->o);
	for (size_t i = 0; i < ex.n && !rc; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t end = r->startoff + r->blockcount;
		/* the first directory-block boundary inside this mapping */
		uint64_t da = (r->startoff + per - 1) / per * per;

		for (; da < end && !rc; da += per) {
			uint64_t byte = 0;
			int rrc;

			if (shown++ >= XC_SHOW_MAX_BLOCKS) {
				xc_so_begin(&s->o, "directory", where, 0, 0);
				xc_so_note(&s->o, "stopped after %u blocks", XC_SHOW_MAX_BLOCKS);
				xc_so_end(&s->o);
				goto out;
			}
			snprintf(where, sizeof(where), "inode %" PRIu64 ", fork block %" PRIu64 " (%s segment)",
				 ino, da, da >= xfmt_dir2_free_firstda(g) ? "free" :
				 da >= xfmt_dir2_leaf_firstda(g) ? "leaf" : "data");
			rrc = xa_dir_read_block(s->ctx, &ex, da, blk, &byte, NULL);
			if (rrc == XERR_NOMEM) {
				rc = rrc;
				break;
			}
			if (rrc) {
				xc_so_begin(&s->o, "dir block", where, 0, 0);
				xc_so_note(&s->o, "cannot be read: %s", xerr_str(rrc));
				xc_so_end(&s->o);
				continue;
			}
			if (xc_show_dirblock(s, where, blk, g->dirblksize, byte, ino,
					     (uint32_t)da) != 0) {
				xc_so_begin(&s->o, "dir block", where, byte, g->dirblksize);
				xc_so_note(&s->o, "magic 0x%08" PRIx32 " is no directory block's",
					   xfmt_get_be32(blk));
				xc_so_end(&s->o);
			}
		}
	}
out:
	free(blk);
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	return rc;
}
