/*
 * ls.c - directory listings, on top of the shared tree walk.
 */
#include "cli/views/ls.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/inode_alloc.h"
#include "analyzer/model/orphans.h"
#include "analyzer/model/pptr_path.h"
#include "analyzer/model/tree.h"
#include "analyzer/report/escape.h"
#include "cli/message_streams.h"
#include "cli/views/files.h"
#include "formats/dir2_carve.h"
#include "formats/symlink.h"

struct ls_state {
	struct xa_ctx            *ctx;
	const struct xc_ls_opts  *o;
	FILE                     *out;
};

static char type_char(unsigned mode_type)
{
	switch (mode_type) {
	case 0010000: return 'p';
	case 0020000: return 'c';
	case 0040000: return 'd';
	case 0060000: return 'b';
	case 0100000: return '-';
	case 0120000: return 'l';
	case 0140000: return 's';
	}
	return '?';
}

/*
 * One entry.  -l adds inode, type and mode, links, owner, size and the full
 * mtime (UTC, with nanoseconds), and a symlink's target after " -> "
 * (escaped as names are; not with -0, whose lines hold the name alone).
 */
static void print_entry(struct xa_ctx *ctx, FILE *out, const char *display, uint64_t ino,
			const struct xa_inode *ip, bool longfmt, char end)
{
	char tbuf[48], *target = NULL;
	struct tm tm;
	time_t t;

	if (!longfmt) {
		fprintf(out, "%s%c", display, end);
		return;
	}
	if (!ip) {
		fprintf(out, "%12" PRIu64 " ?????    ?      ?      ?            ? ? ? %s%c", ino,
			display, end);
		return;
	}
	t = (time_t)ip->d.mtime.sec;
	if (!gmtime_r(&t, &tm) || !strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(tbuf, sizeof(tbuf), "%" PRId64 " -", ip->d.mtime.sec);
	else
		snprintf(tbuf + strlen(tbuf), sizeof(tbuf) - strlen(tbuf), ".%09" PRIu32,
			 ip->d.mtime.nsec < 1000000000u ? ip->d.mtime.nsec : 0);
	if (ctx && end == '\n' && (ip->d.mode & 0170000u) == 0120000u) {
		uint8_t raw[XFMT_SYMLINK_MAXLEN];
		size_t n = 0;

		/* A damaged target shows what could be read of it. */
		(void)xa_symlink_target(ctx, ip, raw, &n, NULL);
		target = xa_escape_text(raw, n);
	}
	fprintf(out, "%12" PRIu64 " %c%04o %4" PRIu32 " %6" PRIu32 " %6" PRIu32 " %12" PRIu64
		" %s %s%s%s%c", ino, type_char(ip->d.mode & 0170000u), ip->d.mode & 07777,
		ip->d.nlink, ip->d.uid, ip->d.gid, ip->d.size, tbuf, display,
		target ? " -> " : "", target ? target : "", end);
	free(target);
}

struct del_state {
	struct xa_ctx *ctx;
	FILE          *out;
	const char    *prefix;   /* display path of the directory, or NULL */
	bool           longfmt;  /* -l: the inode's ctime and crtime too */
};

/* "YYYY-MM-DD HH:MM:SS.nnnnnnnnn" (UTC) into buf. */
static void format_time(const struct xfmt_timestamp *ts, char *buf, size_t len)
{
	time_t t = (time_t)ts->sec;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%" PRId64, ts->sec);
	else
		snprintf(buf + strlen(buf), len - strlen(buf), ".%09" PRIu32,
			 ts->nsec < 1000000000u ? ts->nsec : 0);
}

/*
 * One carved name: the inode it named and what the inode btree says of
 * that inode now (free, in use again, its chunk freed).  With -l, the
 * inode's ctime (for a free inode, when it was freed) and crtime, taken
 * only where the core is still the one that was freed (free, not reused).
 */
static int print_deleted(void *arg, const struct xfmt_dir2_carved *c)
{
	struct del_state *d = arg;
	char *esc = xa_escape_name(c->name, c->namelen);
	const char *state = "unknown";
	char times[128] = "";
	struct xa_inode ip;
	uint64_t ino = c->ino;

	if (!esc)
		return XERR_NOMEM;
	/* A number known only by its low half names no inode for sure. */
	if (c->ino_whole) {
		enum xa_ino_alloc a = xa_inode_alloc(d->ctx, ino);

		state = xa_ino_alloc_name(a);
		if (a == XA_INO_UNKNOWN && xa_inode_read(d->ctx, ino, &ip) == 0) {
			state = xfmt_dinode_in_use(&ip.d) ? "in use" : "free";
			xa_inode_release(&ip);
		}
		if (d->longfmt && a != XA_INO_IN_USE && xa_inode_read(d->ctx, ino, &ip) == 0) {
			char ct[48], cr[48];

			format_time(&ip.d.ctime, ct, sizeof(ct));
			if (d->ctx->geom.v5) {
				format_time(&ip.d.crtime, cr, sizeof(cr));
				snprintf(times, sizeof(times), ", ctime %s, crtime %s", ct, cr);
			} else {
				snprintf(times, sizeof(times), ", ctime %s", ct);
			}
			xa_inode_release(&ip);
		}
	}
	if (d->prefix)
		fprintf(d->out, "%s/%s (deleted: inode %" PRIu64 "%s, %s%s)\n", d->prefix, esc, ino,
			c->ino_whole ? "" : " from its low 32 bits", state, times);
	else
		fprintf(d->out, "%s (deleted: inode %" PRIu64 "%s, %s%s)\n", esc, ino,
			c->ino_whole ? "" : " from its low 32 bits", state, times);
	free(esc);
	return 0;
}

static int list_deleted(struct xa_ctx *ctx, FILE *out, uint64_t dir_ino, const char *prefix,
			bool longfmt)
{
	struct del_state d = { ctx, out, prefix, longfmt };
	struct xa_inode dir;
	int rc;

	if (xa_inode_read(ctx, dir_ino, &dir) != 0)
		return 0;
	rc = xa_dir_deleted(ctx, &dir, print_deleted, &d);
	xa_inode_release(&dir);
	return rc;
}

static int ls_entry(void *arg, const struct xa_tree_entry *e)
{
	struct ls_state *st = arg;

	if (st->o->deleted && st->o->recursive && e->ip &&
	    (e->ip->d.mode & 0170000u) == 0040000u) {
		int rc;

		print_entry(st->ctx, st->out, st->o->null ? e->raw_path : e->path, e->ino, e->ip,
			    st->o->longfmt, st->o->null ? '\0' : '\n');
		rc = list_deleted(st->ctx, st->out, e->ino, e->path, st->o->longfmt);
		return rc;
	}

	char end = st->o->null ? '\0' : '\n';

	if (st->o->recursive) {
		print_entry(st->ctx, st->out, st->o->null ? e->raw_path : e->path, e->ino, e->ip,
			    st->o->longfmt, end);
	} else if (st->o->null) {
		print_entry(st->ctx, st->out, e->raw_name, e->ino, e->ip, st->o->longfmt, end);
	} else {
		char *esc = xa_escape_name(e->name, e->namelen);

		if (!esc)
			return XERR_NOMEM;
		print_entry(st->ctx, st->out, esc, e->ino, e->ip, st->o->longfmt, end);
		free(esc);
	}
	return 0;
}

int xc_cmd_ls_orphans(struct xa_ctx *ctx, const struct xc_ls_opts *o, FILE *out, FILE *err)
{
	struct ls_state st = { ctx, o, out };
	struct xc_message_streams ms;
	const struct xa_messages *msgs = xc_message_streams(&ms, out, err);
	uint64_t *tops = NULL;
	size_t n = 0;
	int rc = xa_orphan_tops(ctx, msgs, &tops, &n), result = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		char base[48];
		struct xa_inode ip;
		bool incomplete = false, have = xa_inode_read(ctx, tops[i], &ip) == 0;

		char shown[48 + 32 + XA_PPTR_PATH_MAX];

		snprintf(base, sizeof(base), "orphan:%" PRIu64, tops[i]);
		/* -l: where its parent pointers say it was */
		snprintf(shown, sizeof(shown), "%s", base);
		if (o->longfmt) {
			char was[XA_PPTR_PATH_MAX];
			int prc = xa_pptr_path(ctx, tops[i], was, sizeof(was));

			if (prc < 0) {
				rc = prc;
				if (have)
					xa_inode_release(&ip);
				break;
			}
			if (prc == 1)
				snprintf(shown, sizeof(shown), "%s (parent pointers: %s)", base, was);
		}
		print_entry(ctx, out, shown, tops[i], have ? &ip : NULL, o->longfmt,
			    o->null ? '\0' : '\n');
		if (have && (ip.d.mode & 0170000u) == 0040000u && o->recursive) {
			rc = xa_tree_walk(ctx, tops[i], base, true, ls_entry, &st, msgs, &incomplete);
			if (!rc && o->deleted)
				rc = list_deleted(ctx, out, tops[i], base, o->longfmt);
			if (incomplete)
				result = XERR_IO;
		}
		if (have)
			xa_inode_release(&ip);
	}
	free(tops);
	return rc ? rc : result;
}

int xc_cmd_ls(struct xa_ctx *ctx, const char *target, const struct xc_ls_opts *o,
	      FILE *out, FILE *err)
{
	struct ls_state st = { ctx, o, out };
	struct xc_message_streams ms;
	struct xa_inode ip;
	bool incomplete = false;
	uint64_t ino;
	char *base;
	size_t len;
	int rc;

	if (!target)
		target = "/";
	rc = xc_target_resolve(ctx, target, &ino, err);
	if (rc)
		return rc;
	rc = xa_inode_read(ctx, ino, &ip);
	if (rc) {
		fprintf(err, "xfsrecon: %s: inode %" PRIu64 " cannot be read\n", target, ino);
		return rc == XERR_NOMEM ? rc : XERR_IO;
	}
	if ((ip.d.mode & 0170000u) != 0040000u) {
		print_entry(ctx, out, target, ino, &ip, o->longfmt, o->null ? '\0' : '\n');
		xa_inode_release(&ip);
		return 0;
	}
	xa_inode_release(&ip);
	/* Display paths hang off the target as given, without a trailing "/". */
	base = strdup(target[0] == '/' ? target : "");
	if (!base)
		return XERR_NOMEM;
	len = strlen(base);
	while (len && base[len - 1] == '/')
		base[--len] = '\0';
	rc = xa_tree_walk(ctx, ino, base, o->recursive, ls_entry, &st,
			  xc_message_streams(&ms, out, err), &incomplete);
	if (!rc && o->deleted)
		rc = list_deleted(ctx, out, ino, o->recursive ? base : NULL, o->longfmt);
	free(base);
	if (rc)
		return rc;
	return incomplete ? XERR_IO : 0;
}
