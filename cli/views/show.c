/*
 * show.c - `xfsrecon show IMAGE WHAT`: parses WHAT and shows the AG header
 * sectors, inodes and single blocks (their type found from the magic, or
 * named with --as: btree, AG header, directory, attr, DA node, symlink and
 * inode blocks).  Every field comes from the formats/ field tables and is
 * printed with the verdict of the structure's verifier (show_out.h); the
 * btree, directory and log views live in show_btree.c, show_dir.c and
 * show_log.c.  Field names and value notation follow xfs_db's `print`, so
 * the oracle tests can hold the two side by side.
 */
#include "cli/views/show.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_number.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "cli/views/show_int.h"
#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "formats/attr.h"
#include "formats/block.h"
#include "formats/btrec.h"
#include "formats/dinode.h"
#include "formats/dir2.h"
#include "formats/endian.h"
#include "formats/sb.h"
#include "formats/symlink.h"

/* ------------------------------------------------------- AG header sectors */

enum hdr_kind { HDR_SB, HDR_AGF, HDR_AGI, HDR_AGFL };

static void show_sb(struct xc_show_run *s, const uint8_t *buf, size_t len, uint32_t agno)
{
	struct xfmt_sb sb;

	if (xfmt_sb_decode(buf, len, &sb) == 0) {
		if (agno == 0)
			xfmt_sb_verify(buf, len, &sb, xc_so_sink(&s->o));
		else
			xfmt_sb_verify_secondary(buf, len, &sb, xc_so_sink(&s->o));
	}
	xc_so_fields(&s->o, xfmt_sb_fields, buf, len);
}

static void show_agi(struct xc_show_run *s, const uint8_t *buf, size_t len, uint32_t agno)
{
	struct xfmt_agi agi;
	bool ok = xfmt_agi_decode(buf, len, &agi) == 0;

	if (ok)
		xfmt_agi_verify(buf, len, &agi, &s->ctx->geom, agno, xc_so_sink(&s->o));
	/* The bucket array shows as items, one per non-empty bucket, as xfs_db does. */
	xc_so_fields_except(&s->o, xfmt_agi_fields, buf, len, "unlinked");
	if (!ok)
		return;
	for (unsigned i = 0; i < XFS_AGI_UNLINKED_BUCKETS; i++) {
		const struct xfmt_field *f = xfmt_field_find(xfmt_agi_fields, "unlinked");

		if (agi.unlinked[i] == XFS_NULLAGINO)
			continue;
		xc_so_item_begin(&s->o, "unlinked", i, (f ? f->off : 0) + 4u * i, 4, true);
		xc_so_item_u64(&s->o, NULL, agi.unlinked[i]);
		xc_so_item_end(&s->o);
	}
}

static void show_agfl(struct xc_show_run *s, const uint8_t *buf, size_t len, uint32_t agno)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_agfl agfl;
	struct xfmt_agf agf;
	struct xbuf *ab = NULL;
	bool have_agf = false;

	if (xfmt_agfl_decode(buf, len, g, &agfl) != 0) {
		xc_so_note(&s->o, "the sector is too small for an AGFL");
		return;
	}
	/* The AGF's window (flfirst..fllast) tells which slots are live. */
	if (xa_read(s->ctx, xfmt_geom_ag_byte(g, agno) + g->sectsize, g->sectsize, &ab, NULL) == 0) {
		have_agf = xfmt_agf_decode(ab->data, ab->len, &agf) == 0;
		xa_put(s->ctx, &ab);
	}
	xfmt_agfl_verify(buf, len, &agfl, have_agf ? &agf : NULL, g, agno, xc_so_sink(&s->o));
	/* A v4 AGFL has no header at all, unlike the other sectors. */
	if (g->v5)
		xc_so_fields(&s->o, xfmt_agfl_fields, buf, len);
	for (uint32_t i = 0; i < agfl.size; i++) {
		uint32_t v = xfmt_agfl_slot(&agfl, i);

		if (v == XFS_NULLAGBLOCK)
			continue;
		xc_so_item_begin(&s->o, "bno", i, (uint64_t)(agfl.slots - buf) + 4u * i, 4, true);
		xc_so_item_u64(&s->o, NULL, v);
		xc_so_item_end(&s->o);
	}
	if (have_agf)
		xc_so_note(&s->o, "live slots (the AGF's flfirst..fllast): %" PRIu32 "..%" PRIu32
			   ", %" PRIu32 " blocks", agf.flfirst, agf.fllast, agf.flcount);
}

static int show_header(struct xc_show_run *s, enum hdr_kind n, uint32_t agno)
{
	static const char *const names[] = { "sb", "agf", "agi", "agfl" };
	const struct xfmt_geom *g = &s->ctx->geom;
	uint64_t off = xfmt_geom_ag_byte(g, agno) + (uint64_t)n * g->sectsize;
	struct xbuf *b = NULL;
	char where[48];
	int rc;

	rc = xc_show_read(s, off, g->sectsize, &b);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "AG %" PRIu32 ", sector %u", agno, (unsigned)n);
	xc_so_begin(&s->o, names[n], where, off, g->sectsize);
	switch (n) {
	case HDR_SB:
		show_sb(s, b->data, b->len, agno);
		break;
	case HDR_AGF: {
		struct xfmt_agf agf;

		if (xfmt_agf_decode(b->data, b->len, &agf) == 0)
			xfmt_agf_verify(b->data, b->len, &agf, g, agno, xc_so_sink(&s->o));
		xc_so_fields(&s->o, xfmt_agf_fields, b->data, b->len);
		break;
	}
	case HDR_AGI:
		show_agi(s, b->data, b->len, agno);
		break;
	case HDR_AGFL:
		show_agfl(s, b->data, b->len, agno);
		break;
	}
	xc_so_end(&s->o);
	xa_put(s->ctx, &b);
	return 0;
}

/* ------------------------------------------------------------------ inodes */

/* The data fork's extent list, as xfs_db prints it (u3.bmx[i] / u.bmx[i]). */
static void show_extents(struct xc_show_run *s, const uint8_t *buf, const struct xfmt_dinode *d)
{
	size_t size = 0;
	const uint8_t *fork = xfmt_dinode_fork(buf, d, 0, &size);
	uint64_t n = d->nextents;
	const char *arr = d->version >= 3 ? "u3.bmx" : "u.bmx";

	if (!fork || d->format != XFS_DINODE_FMT_EXTENTS)
		return;
	/* A hostile count is bounded by what the fork can hold. */
	if (n > size / 16)
		n = size / 16;
	for (uint64_t i = 0; i < n; i++) {
		struct xfmt_bmbt_rec r;

		xfmt_bmbt_rec_decode(fork + 16 * i, &r);
		xc_so_item_begin(&s->o, arr, (unsigned)i, (uint64_t)(fork - buf) + 16 * i, 16, true);
		xc_so_item_u64(&s->o, "startoff", r.startoff);
		xc_so_item_u64(&s->o, "startblock", r.startblock);
		xc_so_item_u64(&s->o, "blockcount", r.blockcount);
		xc_so_item_u64(&s->o, "extentflag", r.unwritten);
		xc_so_item_end(&s->o);
	}
}

/* One inode from buf (inodesize bytes at image byte `byte`). */
static void show_inode_buf(struct xc_show_run *s, uint64_t ino, const uint8_t *buf, size_t len,
			   uint64_t byte)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_dinode d;
	char where[48];

	snprintf(where, sizeof(where), "inode %" PRIu64, ino);
	xc_so_begin(&s->o, "inode", where, byte, len);
	if (xfmt_dinode_decode(buf, len, g, &d) == 0) {
		xfmt_dinode_verify(buf, len, g, ino, &d, xc_so_sink(&s->o));
		s->o.po.bigtime = (d.flags2 & 0x8) != 0;
		s->o.po.v5 = d.version >= 3;  /* xfs_db prints v3 fields only for v3 inodes */
		xc_so_fields(&s->o, xfmt_dinode_fields(&d), buf, len);
		show_extents(s, buf, &d);
	} else {
		xc_so_fields(&s->o, xfmt_dinode_core_fields, buf, len);
	}
	s->o.po.bigtime = false;
	s->o.po.v5 = true;
	xc_so_end(&s->o);
}

static int show_inode(struct xc_show_run *s, uint64_t ino)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xbuf *b = NULL;
	int rc;

	if (!xfmt_geom_ino_valid(g, ino)) {
		fprintf(s->err, "xfsrecon: inode %" PRIu64 " is outside the filesystem\n", ino);
		return XERR_USAGE;
	}
	rc = xc_show_read(s, xfmt_geom_ino_byte(g, ino), g->inodesize, &b);
	if (rc)
		return rc;
	show_inode_buf(s, ino, b->data, b->len, xfmt_geom_ino_byte(g, ino));
	xa_put(s->ctx, &b);
	return 0;
}

/* ------------------------------------------------------------ single blocks */

/* What a block holds, from its magic or from --as. */
enum blk_type { BLK_UNKNOWN, BLK_AGHDR, BLK_BTREE, BLK_DIR, BLK_INODES, BLK_ATTR,
		BLK_DANODE, BLK_SYMLINK, BLK_RAW };

static enum blk_type detect(const uint8_t *p, size_t len, enum xfmt_btnum *bt)
{
	/* Either version's magic: a stray block is shown for what it looks like. */
	const struct xfmt_blk_row *r = xfmt_blk_row(xfmt_blk_classify(p, len, XFMT_BLK_ANY));

	if (r->btnum >= 0) {
		*bt = (enum xfmt_btnum)r->btnum;
		return BLK_BTREE;
	}
	switch (r->owner) {
	case XFMT_BLK_OWN_FS:
		return BLK_AGHDR;
	case XFMT_BLK_OWN_DIR:
		return BLK_DIR;
	case XFMT_BLK_OWN_ATTR:
		return BLK_ATTR;
	/* A node serves directories and attr forks alike: --as tells which. */
	case XFMT_BLK_OWN_DIR_OR_ATTR:
		return BLK_DANODE;
	case XFMT_BLK_OWN_SYMLINK:
		return BLK_SYMLINK;
	case XFMT_BLK_OWN_INODES:
		return BLK_INODES;
	default:
		return BLK_UNKNOWN;
	}
}

static enum blk_type parse_as(const char *as, enum xfmt_btnum *bt)
{
	if (xc_show_bt_parse(as, bt))
		return BLK_BTREE;
	if (!strcmp(as, "dir") || !strcmp(as, "dir3") || !strcmp(as, "dir2"))
		return BLK_DIR;
	if (!strcmp(as, "attr") || !strcmp(as, "attr3"))
		return BLK_ATTR;
	if (!strcmp(as, "symlink"))
		return BLK_SYMLINK;
	if (!strcmp(as, "inode") || !strcmp(as, "inodes"))
		return BLK_INODES;
	if (!strcmp(as, "sb") || !strcmp(as, "agheaders"))
		return BLK_AGHDR;
	if (!strcmp(as, "raw"))
		return BLK_RAW;
	return BLK_UNKNOWN;
}

static int show_block(struct xc_show_run *s, uint64_t agno, uint64_t agbno, const char *as,
		      bool btree_only)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	enum xfmt_btnum bt = XFMT_BT_COUNT;
	enum blk_type t = BLK_UNKNOWN;
	struct xbuf *b = NULL;
	uint64_t byte;
	size_t len;
	char where[64];
	int rc = 0;

	if (agno >= g->agcount || agbno >= xfmt_geom_ag_length(g, (uint32_t)agno)) {
		fprintf(s->err, "xfsrecon: block %" PRIu64 "/%" PRIu64 " is outside the filesystem\n",
			agno, agbno);
		return XERR_USAGE;
	}
	if (as && (t = parse_as(as, &bt)) == BLK_UNKNOWN) {
		fprintf(s->err, "xfsrecon: --as takes bnobt, cntbt, inobt, finobt, rmapbt, "
			"refcountbt, bmbt, dir3, attr3, symlink, inode, sb or raw, not '%s'\n", as);
		return XERR_USAGE;
	}
	byte = xfmt_geom_agbno_byte(g, (uint32_t)agno, (uint32_t)agbno);
	/* A directory block may span several filesystem blocks. */
	len = g->dirblksize > g->blocksize ? g->dirblksize : g->blocksize;
	if (byte + len > s->ctx->image_size || agbno + (len >> g->blocklog) >
	    xfmt_geom_ag_length(g, (uint32_t)agno))
		len = g->blocksize;
	rc = xc_show_read(s, byte, len, &b);
	if (rc)
		return rc;
	if (!as)
		t = detect(b->data, b->len, &bt);
	if (btree_only && t != BLK_BTREE) {
		fprintf(s->err, "xfsrecon: block %" PRIu64 "/%" PRIu64 " has magic 0x%08" PRIx32
			", not a btree block\n", agno, agbno, xfmt_get_be32(b->data));
		rc = XERR_USAGE;
		goto out;
	}
	snprintf(where, sizeof(where), "block %" PRIu64 "/%" PRIu64, agno, agbno);
	switch (t) {
	case BLK_BTREE: {
		uint64_t owner = agno;

		if (bt == XFMT_BT_BMAP && g->v5)
			xfmt_blk_owner_of(b->data, b->len, XFMT_BLK_BMBT, &owner);

		xc_show_bt_block(s, bt, where, b->data, g->blocksize, byte, (uint32_t)agno, owner,
				 -1, false, NULL, NULL);
		break;
	}
	case BLK_DIR: {
		/* The owner comes from the v5 header; without a directory the fork block is unknown. */
		uint64_t owner = 0;

		if (g->v5)
			xfmt_blk_owner_of(b->data, b->len,
					  xfmt_blk_classify(b->data, b->len, XFMT_BLK_V5), &owner);
		rc = xc_show_dirblock(s, where, b->data, b->len, byte, owner, UINT32_MAX);
		break;
	}
	case BLK_ATTR:
		/* Attr blocks are one filesystem block; the owner comes from a v5 header. */
		rc = xc_show_attrblock(s, where, b->data, g->blocksize < b->len ? g->blocksize :
				       b->len, byte, 0, UINT32_MAX, 0);
		break;
	case BLK_DANODE:
		rc = xc_show_danode(s, where, b->data, g->blocksize < b->len ? g->blocksize :
				    b->len, byte);
		break;
	case BLK_SYMLINK:
		xc_show_symlink_block(s, where, b->data, g->blocksize < b->len ? g->blocksize :
				      b->len, byte);
		break;
	case BLK_INODES: {
		for (uint32_t i = 0; i < g->inopblock && (size_t)(i + 1) * g->inodesize <= b->len;
		     i++) {
			uint64_t agino = ((uint64_t)agbno << g->inopblog) | i;

			show_inode_buf(s, xfmt_geom_ino(g, (uint32_t)agno, (uint32_t)agino),
				       b->data + (size_t)i * g->inodesize, g->inodesize,
				       byte + (uint64_t)i * g->inodesize);
		}
		break;
	}
	case BLK_AGHDR:
		if (agbno != 0) {
			/* A superblock copy is a block's first sector only at agbno 0. */
			xc_so_begin(&s->o, "sb", where, byte, g->sectsize);
			show_sb(s, b->data, g->sectsize < b->len ? g->sectsize : b->len, 1);
			xc_so_end(&s->o);
			break;
		}
		for (int n = HDR_SB; n <= HDR_AGFL && !rc; n++)
			rc = show_header(s, (enum hdr_kind)n, (uint32_t)agno);
		break;
	default:
		/* File data, free space, or a structure whose magic is gone: its
		 * bytes as they are (one filesystem block), and how to read it
		 * as something else. */
		xc_so_begin(&s->o, "raw", where, byte, g->blocksize);
		if (t != BLK_RAW)
			xc_so_note(&s->o, "magic 0x%08" PRIx32 " names no structure; its bytes "
				   "follow (--as TYPE reads it as a structure)", xfmt_get_be32(b->data));
		xc_so_raw(&s->o, b->data, g->blocksize < b->len ? g->blocksize : b->len);
		xc_so_end(&s->o);
		break;
	}
out:
	xa_put(s->ctx, &b);
	return rc;
}

/* "AG/AGBNO" */
static int parse_agblock(const char *arg, uint64_t *agno, uint64_t *agbno)
{
	const char *slash = strchr(arg, '/');
	char ag[32];

	if (!slash || (size_t)(slash - arg) >= sizeof(ag))
		return -1;
	memcpy(ag, arg, (size_t)(slash - arg));
	ag[slash - arg] = '\0';
	return xc_parse_u64(ag, agno) || xc_parse_u64(slash + 1, agbno) ? -1 : 0;
}

/* ---------------------------------------------------------------- dispatch */

static int dispatch(struct xc_show_run *s, int argc, char **argv, const struct xc_show_opts *opts)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	uint64_t a = 0, b = 0;
	enum xfmt_btnum bt;

	if (argc < 1)
		goto usage;
	if (opts->as && strcmp(argv[0], "block")) {
		fprintf(s->err, "xfsrecon: --as belongs to show block\n");
		return XERR_USAGE;
	}
	if (!strcmp(argv[0], "sb") && argc == 1)
		return show_header(s, HDR_SB, 0);
	if (!strcmp(argv[0], "sb") || !strcmp(argv[0], "agf") || !strcmp(argv[0], "agi") ||
	    !strcmp(argv[0], "agfl")) {
		enum hdr_kind n = !strcmp(argv[0], "sb") ? HDR_SB : !strcmp(argv[0], "agf") ? HDR_AGF :
				  !strcmp(argv[0], "agi") ? HDR_AGI : HDR_AGFL;

		if (argc != 2 || xc_parse_u64(argv[1], &a) || a >= g->agcount) {
			fprintf(s->err, "xfsrecon: show %s needs an AG number below %" PRIu32 "\n",
				argv[0], g->agcount);
			return XERR_USAGE;
		}
		return show_header(s, n, (uint32_t)a);
	}
	if (!strcmp(argv[0], "inode")) {
		if (argc != 2 || xc_parse_u64(argv[1], &a))
			goto usage;
		return show_inode(s, a);
	}
	if (!strcmp(argv[0], "block")) {
		if (argc != 2 || parse_agblock(argv[1], &a, &b))
			goto usage;
		return show_block(s, a, b, opts->as, false);
	}
	if (!strcmp(argv[0], "btree")) {
		if (argc == 3 && xc_show_bt_parse(argv[2], &bt)) {
			if (xc_parse_u64(argv[1], &a) || a >= g->agcount) {
				fprintf(s->err, "xfsrecon: show btree needs an AG number below %"
					PRIu32 "\n", g->agcount);
				return XERR_USAGE;
			}
			return xc_show_btree(s, (uint32_t)a, bt);
		}
		/* the older form: one block, btree AGNO AGBNO */
		if (argc != 3 || xc_parse_u64(argv[1], &a) || xc_parse_u64(argv[2], &b))
			goto usage;
		return show_block(s, a, b, NULL, true);
	}
	if (!strcmp(argv[0], "dir") && argc == 2)
		return xc_show_dir(s, argv[1]);
	if (!strcmp(argv[0], "attr") && argc == 2)
		return xc_show_attr(s, argv[1]);
	if (!strcmp(argv[0], "path") && argc == 2)
		return xc_show_path(s, argv[1]);
	if (!strcmp(argv[0], "log") && argc == 1)
		return xc_show_log(s);
usage:
	fprintf(s->err, "xfsrecon: show WHAT is one of: sb [AG] | agf AG | agi AG | agfl AG | "
		"inode INO | block AG/AGBNO [--as TYPE] | btree AG bnobt|cntbt|inobt|finobt|rmapbt|"
		"refcountbt | btree AG AGBNO | dir PATH|INODE | attr PATH|INODE | path PATH | log\n");
	return XERR_USAGE;
}

int xc_show_cmd(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv,
		const struct xc_show_opts *opts)
{
	struct xc_show_run s;
	int rc, frc;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	s.err = err;
	xc_so_init(&s.o, out, opts->json, opts->annotate, opts->image, argc, argv);
	rc = dispatch(&s, argc, argv, opts);
	frc = xc_so_finish(&s.o);
	xc_so_release(&s.o);
	return rc ? rc : frc;
}

int xc_show(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv, bool annotate)
{
	struct xc_show_opts opts = { annotate, false, NULL, NULL };

	return xc_show_cmd(out, err, ctx, argc, argv, &opts);
}
