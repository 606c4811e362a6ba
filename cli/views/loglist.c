/*
 * loglist.c - the --log-only listing of a dirty log's transactions (see
 * loglist.h).
 *
 * The listing decodes items with the same decoders replay uses, so what it
 * shows is what replay would see; it says nothing about whether an item
 * was skipped (newer on disk, cancelled): `info` counts those.
 */
#include "cli/views/loglist.h"

#include <inttypes.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "formats/geom.h"
#include "formats/log_item.h"

struct lister {
	FILE *out;
	const struct xfmt_geom *g;
	uint64_t n;
};

static const char *const blft_names[] = {
	"unknown", "udquot", "pdquot", "gdquot", "btree", "agf", "agfl", "agi", "inodes",
	"symlink", "dir-block", "dir-data", "dir-free", "dir-leaf1", "dir-leafn", "da-node",
	"attr-leaf", "attr-remote", "sb", "rtbitmap", "rtsummary",
};

static void print_fields(FILE *out, uint32_t f)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ XFS_ILOG_CORE, "core" }, { XFS_ILOG_DDATA, "data" }, { XFS_ILOG_DEXT, "extents" },
		{ XFS_ILOG_DBROOT, "bmbt-root" }, { XFS_ILOG_DEV, "dev" },
		{ XFS_ILOG_ADATA, "attr-data" }, { XFS_ILOG_AEXT, "attr-extents" },
		{ XFS_ILOG_ABROOT, "attr-bmbt-root" },
	};
	const char *sep = "";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (f & names[i].bit) {
			fprintf(out, "%s%s", sep, names[i].name);
			sep = ",";
		}
	}
}

static void print_item(struct lister *l, const struct xfmt_log_trans *t,
		       const struct xfmt_log_titem *it)
{
	FILE *out = l->out;
	struct xfmt_log_buf b;
	struct xfmt_log_inode in;
	struct xfmt_log_icreate ic;
	struct xfmt_log_intent x;

	fprintf(out, "    %-8s", xfmt_log_item_name(it->type));
	switch (it->type) {
	case XFS_LI_BUF:
		if (xfmt_log_buf_decode(it, t->big, &b) != 0)
			break;
		fprintf(out, " daddr %" PRIu64 " len %u", b.blkno, b.len);
		if (l->g->blocksize && (b.blkno * 512) % l->g->blocksize == 0) {
			uint64_t fsblock = (b.blkno * 512) >> l->g->blocklog;
			uint64_t agb = (uint64_t)l->g->agblocks;

			if (agb)
				fprintf(out, " (ag %" PRIu64 " agbno %" PRIu64 ")", fsblock / agb,
					fsblock % agb);
		}
		fprintf(out, " type %s%s%s\n", b.blft < sizeof(blft_names) / sizeof(blft_names[0]) ?
			blft_names[b.blft] : "?", (b.flags & XFS_BLF_CANCEL) ? " cancel" : "",
			(b.flags & XFS_BLF_INODE_BUF) ? " inode-unlinked" : "");
		return;
	case XFS_LI_INODE:
		if (xfmt_log_inode_decode(it, t->big, &in) != 0)
			break;
		fprintf(out, " ino %" PRIu64 " ", in.ino);
		print_fields(out, in.fields);
		fprintf(out, " (daddr %" PRIu64 " +%u)\n", in.blkno, in.boffset);
		return;
	case XFS_LI_ICREATE:
		if (xfmt_log_icreate_decode(it, t->big, &ic) != 0)
			break;
		fprintf(out, " ag %u agbno %u inodes %u blocks %u gen %u\n", ic.agno, ic.agbno,
			ic.count, ic.length, ic.gen);
		return;
	default:
		if (xfmt_log_intent_decode(it, t->big, &x) != 0) {
			fprintf(out, " (%u regions)\n", it->nregions);
			return;
		}
		fprintf(out, " id 0x%" PRIx64, x.id);
		if (!x.done && x.nextents)
			fprintf(out, " extents %u", x.nextents);
		fprintf(out, "\n");
		return;
	}
	fprintf(out, " (damaged: %u regions)\n", it->nregions);
}

static int print_trans(void *arg, const struct xfmt_log_trans *t)
{
	struct lister *l = arg;

	l->n++;
	fprintf(l->out, "transaction %" PRIu64 ": tid 0x%08" PRIx32 ", lsn %" PRIu32 "/%" PRIu32
		", commit lsn %" PRIu32 "/%" PRIu32 ", %zu items\n", l->n, t->tid,
		(uint32_t)(t->lsn >> 32), (uint32_t)t->lsn, (uint32_t)(t->commit_lsn >> 32),
		(uint32_t)t->commit_lsn, t->nitems && !t->items[t->nitems - 1].nregions ?
		t->nitems - 1 : t->nitems);
	for (size_t i = 0; i < t->nitems; i++)
		if (t->items[i].nregions)
			print_item(l, t, &t->items[i]);
	return 0;
}

int xc_cmd_log_list(struct xa_ctx *ctx, FILE *out, FILE *err)
{
	struct lister l = { out, &ctx->geom, 0 };
	struct xa_log_walk w;
	int rc;

	if (!ctx->log.present) {
		fprintf(err, "xfsrecon: no internal log could be read\n");
		return XERR_UNSUPPORTED;
	}
	fprintf(out, "log %s: head %" PRIu32 "/%" PRIu32 ", tail %" PRIu32 "/%" PRIu32
		" (cycle/block)\n", ctx->log_dirty ? "dirty" : "clean", ctx->log.bounds.head_cycle,
		ctx->log.bounds.head, ctx->log.bounds.tail_cycle, ctx->log.bounds.tail);
	if (!ctx->log_dirty || !ctx->log.bounds.found)
		return 0;
	rc = xa_log_each_trans(ctx, &ctx->log.pos, &ctx->log.bounds, print_trans, &l, &w);
	if (rc)
		return rc;
	fprintf(out, "%" PRIu64 " records, %" PRIu64 " transactions", w.records, l.n);
	if (w.end != XA_LOG_WALK_DONE)
		fprintf(out, "; %s at log block %" PRIu32 " (LSN %" PRIu32 "/%" PRIu32 ", %s): %"
			PRIu64 " blocks not read", w.end == XA_LOG_WALK_TORN ? "torn write" : "damage",
			w.bad_block, (uint32_t)(w.stop_lsn >> 32), (uint32_t)w.stop_lsn, w.why,
			w.lost_blocks);
	fprintf(out, "\n");
	return 0;
}
