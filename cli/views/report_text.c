/*
 * report_text.c - text rendering of findings and of the `info` summary.
 * Each finding is one line: severity, [ID], location, message — stable
 * enough for grep, while the XML report is the format for programs.
 */
#include "cli/views/report_text.h"

#include <inttypes.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/io/image.h"
#include "cli/views/field_print.h"
#include "formats/sb.h"

static void print_location(FILE *out, const struct xa_finding *fd)
{
	const struct xprob *p = &fd->p;
	const char *sep = "";

	if (p->has & XPROB_HAS_AG) {
		fprintf(out, "ag %" PRIu32, p->agno);
		sep = " ";
	}
	if (p->has & XPROB_HAS_INO) {
		fprintf(out, "%sinode %" PRIu64, sep, p->ino);
		sep = " ";
	} else if (p->has & XPROB_HAS_AGBNO) {
		fprintf(out, "%sagbno %" PRIu32, sep, p->agbno);
		sep = " ";
	}
	if (fd->what && *fd->what) {
		fprintf(out, "%s%s", sep, fd->what);
		sep = " ";
	}
	if (p->has & XPROB_HAS_BYTE)
		fprintf(out, "%s@%" PRIu64, sep, p->byte);
}

void xc_report_text_findings(FILE *out, const struct xa_ctx *ctx)
{
	const struct xa_findings *f = &ctx->findings;
	char msg[512];

	for (size_t i = 0; i < f->count; i++) {
		const struct xa_finding *fd = &f->items[i];

		xa_finding_render(fd, msg, sizeof(msg));
		fprintf(out, "%-7s [%s] ", xprob_severity_name(xprob_severity_of(fd->p.code)),
			xprob_id(fd->p.code) ? xprob_id(fd->p.code) : "unknown");
		print_location(out, fd);
		fprintf(out, ": %s\n", msg);
	}
	if (f->dropped)
		fprintf(out, "(%" PRIu64 " more findings were counted but not stored)\n", f->dropped);
	fprintf(out, "%" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes\n",
		f->by_severity[XSEV_ERROR], f->by_severity[XSEV_WARNING],
		f->by_severity[XSEV_INFO]);
}

struct feat_name {
	int         word;   /* 0 versionnum, 1 features2, 2 ro_compat, 3 incompat */
	uint32_t    bit;
	const char *name;
};

static const struct feat_name feat_names[] = {
	{ 0, 0x0010, "attr" },     { 0, 0x0040, "quota" },   { 0, 0x0100, "dalign" },
	{ 0, 0x0400, "logv2" },    { 0, 0x0800, "sector" },  { 0, 0x4000, "asciici" },
	{ 1, 0x0002, "lazycount" },{ 1, 0x0008, "attr2" },   { 1, 0x0080, "projid32" },
	{ 1, 0x0100, "crc" },      { 1, 0x0200, "ftype" },
	{ 2, 0x1, "finobt" },      { 2, 0x2, "rmapbt" },     { 2, 0x4, "reflink" },
	{ 2, 0x8, "inobtcount" },
	{ 3, 0x01, "ftype" },      { 3, 0x02, "sparse" },    { 3, 0x04, "metauuid" },
	{ 3, 0x08, "bigtime" },    { 3, 0x10, "needsrepair" }, { 3, 0x20, "nrext64" },
	{ 3, 0x40, "exchrange" },  { 3, 0x80, "parent" },     { 3, 0x100, "metadir" },
};

void xc_features_string(const struct xa_ctx *ctx, char *buf, size_t len)
{
	const struct xfmt_sb *sb = &ctx->sb;
	uint32_t words[4] = { sb->versionnum, sb->features2, sb->features_ro_compat,
			      sb->features_incompat };
	size_t pos = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(feat_names) / sizeof(feat_names[0]); i++) {
		const struct feat_name *fn = &feat_names[i];
		int n;

		/* v5 has no v4 ftype bit; v4 has no feature words. */
		if (fn->word >= 2 && !ctx->geom.v5)
			continue;
		if (fn->word == 1 && fn->bit == 0x0200 && ctx->geom.v5)
			continue;
		if (!(words[fn->word] & fn->bit))
			continue;
		n = snprintf(buf + pos, len - pos, "%s%s", pos ? " " : "", fn->name);
		if (n < 0 || (size_t)n >= len - pos)
			break;
		pos += (size_t)n;
	}
}

static const char *geom_source_text(enum xa_geom_source s)
{
	switch (s) {
	case XA_GEOM_PRIMARY: return "primary superblock";
	case XA_GEOM_VOTE: return "vote of the secondary superblocks";
	default: return "none";
	}
}

/* "cycle/block" of an LSN, as xfs_logprint writes it. */
static void lsn_text(uint64_t lsn, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu32 "/%" PRIu32, (uint32_t)(lsn >> 32), (uint32_t)lsn);
}

void xc_report_text_log(FILE *out, const struct xa_ctx *ctx)
{
	const struct xa_log_state *ls = &ctx->log;
	char head[32], tail[32];

	if (!ls->present)
		return;
	lsn_text(((uint64_t)ls->bounds.head_cycle << 32) | ls->bounds.head, head, sizeof(head));
	lsn_text(((uint64_t)ls->bounds.tail_cycle << 32) | ls->bounds.tail, tail, sizeof(tail));
	fprintf(out, "            head %s, tail %s (cycle/block)", head, tail);
	if (!ctx->log_dirty) {
		fprintf(out, "\n");
		return;
	}
	fprintf(out, ", %" PRIu64 " records, %" PRIu64 " transactions%s\n", ls->walk.records,
		ls->st.transactions,
		ls->walk.end == XA_LOG_WALK_TORN ? " (torn write at the head dropped)" :
		ls->walk.end == XA_LOG_WALK_DAMAGED ? " (walk stopped at damage)" : "");
	if (ls->walk.end != XA_LOG_WALK_DONE) {
		char stop[32];

		lsn_text(ls->walk.stop_lsn, stop, sizeof(stop));
		if (ls->walk.end == XA_LOG_WALK_TORN)
			fprintf(out, "            torn write from LSN %s (%s): the last %" PRIu64
				" log blocks dropped, as the kernel drops them\n", stop,
				ls->walk.why ? ls->walk.why : "?", ls->walk.lost_blocks);
		else
			fprintf(out, "            damaged record at LSN %s (%s): replay stops there; %"
				PRIu64 " transactions kept, %" PRIu64 " log blocks not replayed\n",
				stop, ls->walk.why ? ls->walk.why : "?", ls->st.transactions,
				ls->walk.lost_blocks);
	}
	if (ls->replayed)
		fprintf(out, "            replayed in memory: %" PRIu64 " buffers, %" PRIu64
			" inode buffers, %" PRIu64 " inodes, %" PRIu64 " inode chunks (%" PRIu64
			" bytes); skipped %" PRIu64 " newer and %" PRIu64 " cancelled buffers, %" PRIu64
			" inodes\n", ls->st.bufs, ls->st.inode_bufs, ls->st.inodes, ls->st.icreates,
			ls->st.bytes, ls->st.bufs_newer, ls->st.bufs_cancelled, ls->st.inodes_skipped);
	else
		fprintf(out, "            not replayed: the state on disk is shown\n");
	if (ls->st.intents)
		fprintf(out, "            intents: %" PRIu64 " logged, %" PRIu64 " without a done item\n",
			ls->st.intents, ls->st.intents_pending);
}

void xc_report_text_info(FILE *out, const struct xa_ctx *ctx)
{
	const struct xfmt_geom *g = &ctx->geom;
	char uuid[40], feats[512];

	fprintf(out, "image:      %s (%s, %" PRIu64 " bytes)\n", ctx->image_path,
		ctx->input ? ctx->input->ops->kind : "?", ctx->input ? ctx->input->size : ctx->image_size);
	if (ctx->geom_source == XA_GEOM_NONE) {
		fprintf(out, "filesystem: no usable XFS superblock\n");
		return;
	}
	xc_uuid_format(ctx->sb.uuid, uuid);
	fprintf(out, "filesystem: XFS v%u, uuid %s, label \"", g->v5 ? 5 : 4, uuid);
	for (unsigned i = 0; i < sizeof(ctx->sb.fname) && ctx->sb.fname[i]; i++) {
		uint8_t c = ctx->sb.fname[i];
		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
	fprintf(out, "\"\n");
	fprintf(out, "geometry:   blocksize %" PRIu32 ", sectsize %u, inodesize %u, dirblksize %" PRIu32 "\n",
		g->blocksize, g->sectsize, g->inodesize, g->dirblksize);
	fprintf(out, "            agcount %" PRIu32 ", agblocks %" PRIu32 ", dblocks %" PRIu64 "\n",
		g->agcount, g->agblocks, g->dblocks);
	if (g->logstart)
		fprintf(out, "            log internal at fsblock %" PRIu64 ", %" PRIu32 " blocks\n",
			g->logstart, g->logblocks);
	else
		fprintf(out, "            log external, %" PRIu32 " blocks\n", g->logblocks);
	xc_features_string(ctx, feats, sizeof(feats));
	fprintf(out, "features:   %s\n", feats);
	fprintf(out, "superblock: geometry from the %s (%" PRIu32 " of %" PRIu32 " superblocks agree)\n",
		geom_source_text(ctx->geom_source), ctx->sb_votes_for, ctx->sb_votes_total);
	fprintf(out, "log:        %s\n", !ctx->log_checked ? "not checked (external or unreadable)"
		: ctx->log_dirty ? "dirty (not cleanly unmounted; needs replay)" : "clean");
	xc_report_text_log(out, ctx);
	fprintf(out, "counters:   icount %" PRIu64 ", ifree %" PRIu64 ", fdblocks %" PRIu64 "\n",
		ctx->sb.icount, ctx->sb.ifree, ctx->sb.fdblocks);
	/* With lazy counters the kernel keeps them in memory and writes the
	 * superblock at unmount: a dirty image's are stale, and the AG
	 * headers (replayed) hold the current sums. */
	if (ctx->log_dirty) {
		uint64_t icount = 0, ifree = 0, fd = 0;
		bool all = ctx->nags > 0;

		for (uint32_t i = 0; i < ctx->nags; i++) {
			const struct xa_ag *ag = &ctx->ags[i];

			if (!ag->agf_ok || !ag->agi_ok) {
				all = false;
				continue;
			}
			icount += ag->agi.count;
			ifree += ag->agi.freecount;
			fd += (uint64_t)ag->agf.freeblks + ag->agf.flcount + ag->agf.btreeblks;
		}
		fprintf(out, "            (the superblock's, stale with a dirty log; the AG headers "
			"%s: icount %" PRIu64 ", ifree %" PRIu64 ", fdblocks %" PRIu64 ")\n",
			all ? "add up to" : "that could be read add up to", icount, ifree, fd);
	}
	fprintf(out, "\n%4s %10s %10s %10s %6s %10s %10s  %s\n", "ag", "length", "freeblks",
		"longest", "flcnt", "inodes", "ifree", "headers");
	for (uint32_t i = 0; i < ctx->nags; i++) {
		const struct xa_ag *ag = &ctx->ags[i];

		/* A run of blank AGs is one line, however long. */
		if (ag->blank) {
			uint32_t last = i;

			while (last + 1 < ctx->nags && ctx->ags[last + 1].blank)
				last++;
			fprintf(out, "%4" PRIu32 "-%" PRIu32 "  blank: no header sector holds a byte; "
				"not walked\n", i, last);
			i = last;
			continue;
		}
		fprintf(out, "%4" PRIu32 " %10" PRIu32, ag->agno, ag->length);
		if (ag->agf_ok)
			fprintf(out, " %10" PRIu32 " %10" PRIu32 " %6" PRIu32, ag->agf.freeblks,
				ag->agf.longest, ag->agf.flcount);
		else
			fprintf(out, " %10s %10s %6s", "-", "-", "-");
		if (ag->agi_ok)
			fprintf(out, " %10" PRIu32 " %10" PRIu32, ag->agi.count, ag->agi.freecount);
		else
			fprintf(out, " %10s %10s", "-", "-");
		fprintf(out, "  sb:%s agf:%s agi:%s agfl:%s\n", ag->sb_ok ? "ok" : "BAD",
			ag->agf_ok ? "ok" : "BAD", ag->agi_ok ? "ok" : "BAD",
			ag->agfl_ok ? "ok" : "BAD");
	}
	if (ctx->ags && ctx->nags < ctx->ags_in_image)
		fprintf(out, "%4" PRIu32 "-%" PRIu32 "  blank to the end of the image; not walked\n",
			ctx->nags, ctx->ags_in_image - 1);
	if (ctx->ags && ctx->ags_in_image < g->agcount)
		fprintf(out, "%4" PRIu32 "-%" PRIu32 "  past the end of the image\n",
			ctx->ags_in_image, g->agcount - 1);
}
