/*
 * files.c - stat and cat of single files.
 */
#include "cli/views/files.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli_number.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/xattr.h"
#include "analyzer/report/escape.h"
#include "cli/views/field_print.h"
#include "analyzer/scan/fork_walk.h"
#include "formats/symlink.h"

#define CAT_CHUNK (1u << 20)

int xc_target_resolve(struct xa_ctx *ctx, const char *target, uint64_t *ino, FILE *err)
{
	uint64_t v;

	if (target[0] == '/') {
		char msg[512];
		int rc = xa_path_resolve(ctx, target, ino, msg, sizeof(msg));

		if (rc)
			fprintf(err, "xfsrecon: %s: %s\n", target, msg);
		/* Unreadable on the way is damage (8); a wrong path is usage (16). */
		return rc == XERR_NOMEM || rc == XERR_IO ? rc : rc ? XERR_USAGE : 0;
	}
	if (xc_parse_u64(target, &v) != 0) {
		fprintf(err, "xfsrecon: '%s' is neither an absolute path nor an inode number\n",
			target);
		return XERR_USAGE;
	}
	if (!xfmt_geom_ino_valid(&ctx->geom, v)) {
		fprintf(err, "xfsrecon: inode %" PRIu64 " is outside the filesystem\n", v);
		return XERR_USAGE;
	}
	*ino = v;
	return 0;
}

/* Resolve target and read its inode, saying on err what went wrong. */
/* A CRC value as xfs_db prints it: its stored little-endian bytes read as
 * a big-endian number. */
static uint32_t crc_as_xfs_db(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static int open_target(struct xa_ctx *ctx, const char *target, uint64_t *ino,
		       struct xa_inode *ip, FILE *err)
{
	int rc = xc_target_resolve(ctx, target, ino, err);

	if (rc)
		return rc;
	rc = xa_inode_read(ctx, *ino, ip);
	if (rc) {
		fprintf(err, "xfsrecon: inode %" PRIu64 ": %s\n", *ino,
			rc == XERR_FORMAT ? "not an inode (bad magic)" : xerr_str(rc));
		return rc == XERR_FORMAT ? XERR_USAGE : rc;
	}
	return 0;
}

static const char *type_name(unsigned type)
{
	switch (type) {
	case 0010000: return "fifo";
	case 0020000: return "character device";
	case 0040000: return "directory";
	case 0060000: return "block device";
	case 0100000: return "regular file";
	case 0120000: return "symbolic link";
	case 0140000: return "socket";
	case 0: return "free";
	}
	return "invalid";
}

static const char *format_name(unsigned f)
{
	static const char *const names[] = { "dev", "local", "extents", "btree", "uuid" };
	return f < 5 ? names[f] : "invalid";
}

static void print_time(FILE *out, const char *name, const struct xfmt_timestamp *t)
{
	char buf[64];
	time_t s = (time_t)t->sec;
	struct tm tm;

	if (gmtime_r(&s, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		fprintf(out, "%-8s %s.%09" PRIu32 " UTC\n", name, buf, t->nsec);
	else
		fprintf(out, "%-8s %" PRId64 ".%09" PRIu32 "\n", name, t->sec, t->nsec);
}

static void print_map(FILE *out, const struct xfmt_geom *g, const char *which,
		      const struct xa_extents *ex)
{
	fprintf(out, "%s fork: %zu mapping%s%s\n", which, ex->n, ex->n == 1 ? "" : "s",
		ex->complete ? "" : " (map incomplete: damaged records left out)");
	for (size_t i = 0; i < ex->n; i++) {
		const struct xfmt_bmbt_rec *r = &ex->v[i];

		fprintf(out, "  [%" PRIu64 "..%" PRIu64 "] -> fsblock %" PRIu64 " (ag %" PRIu32
			" agbno %" PRIu32 "), %" PRIu32 " block%s%s\n",
			r->startoff, r->startoff + r->blockcount - 1, r->startblock,
			xfmt_geom_fsb_agno(g, r->startblock), xfmt_geom_fsb_agbno(g, r->startblock),
			r->blockcount, r->blockcount == 1 ? "" : "s", r->unwritten ? ", unwritten" : "");
	}
}

static int print_xattr(void *arg, const struct xa_xattr *a)
{
	FILE *out = arg;
	size_t show = a->valuelen < 64 ? a->valuelen : 64;
	char *name = xa_escape_text(a->name, a->namelen);
	char *value = xa_escape_text(a->value, show);

	uint64_t pino;
	uint32_t pgen;

	if (!name || !value) {
		free(name);
		free(value);
		return XERR_NOMEM;
	}
	/* a parent pointer: the directory that names the file so, and the
	 * generation that directory had */
	if (a->ns == XFMT_ATTR_NS_PARENT && a->value_complete &&
	    xfmt_attr_pptr_decode(a->value, a->valuelen, &pino, &pgen) == 0)
		fprintf(out, "  %s%s -> directory %" PRIu64 ", generation %" PRIu32 "\n",
			xfmt_attr_ns_prefix(a->ns), name, pino, pgen);
	else
		fprintf(out, "  %s%s = \"%s\"%s (%" PRIu32 " bytes%s)\n",
		xfmt_attr_ns_prefix(a->ns), name, value, show < a->valuelen ? "..." : "",
		a->valuelen, a->value_complete ? "" : ", incomplete");
	free(name);
	free(value);
	return 0;
}

int xc_cmd_stat(struct xa_ctx *ctx, const char *target, FILE *out, FILE *err)
{
	struct xa_inode ip;
	struct xa_extents ex;
	uint64_t ino;
	int rc;

	rc = open_target(ctx, target, &ino, &ip, err);
	if (rc)
		return rc;
	fprintf(out, "inode    %" PRIu64 " (ag %" PRIu32 ", agino %" PRIu32 ")\n", ino,
		xfmt_geom_ino_agno(&ctx->geom, ino), xfmt_geom_ino_agino(&ctx->geom, ino));
	fprintf(out, "type     %s\n", type_name(xa_inode_type(&ip)));
	fprintf(out, "mode     0%o\n", ip.d.mode & 07777);
	fprintf(out, "links    %" PRIu32 "\n", ip.d.nlink);
	fprintf(out, "uid      %" PRIu32 "\ngid      %" PRIu32 "\nprojid   %" PRIu32 "\n",
		ip.d.uid, ip.d.gid, ip.d.projid);
	fprintf(out, "size     %" PRIu64 "\nblocks   %" PRIu64 "\n", ip.d.size, ip.d.nblocks);
	print_time(out, "atime", &ip.d.atime);
	print_time(out, "mtime", &ip.d.mtime);
	print_time(out, "ctime", &ip.d.ctime);
	if (xfmt_dinode_v3_core(&ip.d))
		print_time(out, "crtime", &ip.d.crtime);
	fprintf(out, "format   data %s, attr %s\n", format_name(ip.d.format),
		ip.d.has_attr_fork ? format_name(ip.d.aformat) : "none");
	fprintf(out, "extents  data %" PRIu64 ", attr %" PRIu32 "\n", ip.d.nextents, ip.d.anextents);
	fprintf(out, "flags    0x%x, flags2 0x%" PRIx64 "\n", ip.d.flags, ip.d.flags2);
	fprintf(out, "gen      %" PRIu32 "\n", ip.d.gen);
	fprintf(out, "version  %u, forkoff %u, extsize %" PRIu32 ", cowextsize %" PRIu32 "\n",
		ip.d.version, ip.d.forkoff, ip.d.extsize, ip.d.cowextsize);
	fprintf(out, "unlinked next %" PRIu32 "%s\n", ip.d.next_unlinked,
		ip.d.next_unlinked == XFS_NULLAGINO ? " (none)" : "");
	/* The CRC as xfs_db and `show inode` print it: its four bytes read as
	 * a big-endian number (the value is stored little-endian). */
	if (xfmt_dinode_v3_core(&ip.d))
		fprintf(out, "v3       changecount %" PRIu64 ", lsn 0x%" PRIx64 ", crc 0x%08" PRIx32 "\n",
			ip.d.changecount, ip.d.lsn, crc_as_xfs_db(ip.d.crc));
	if (ip.d.dmevmask || ip.d.dmstate)
		fprintf(out, "dmapi    evmask 0x%" PRIx32 ", state %u\n", ip.d.dmevmask, ip.d.dmstate);

	for (int fork = XA_DATA_FORK; fork <= XA_ATTR_FORK; fork++) {
		unsigned fmt = fork == XA_DATA_FORK ? ip.d.format : ip.d.aformat;

		if (fork == XA_ATTR_FORK && !ip.d.has_attr_fork)
			continue;
		if (fmt != XFS_DINODE_FMT_EXTENTS && fmt != XFS_DINODE_FMT_BTREE)
			continue;
		rc = xa_extents_load(ctx, &ip, fork, &ex);
		if (rc) {
			xa_inode_release(&ip);
			return rc;
		}
		print_map(out, &ctx->geom, fork == XA_DATA_FORK ? "data" : "attr", &ex);
		xa_extents_release(&ex);
	}
	if (ip.d.has_attr_fork) {
		bool complete = true;

		fprintf(out, "xattrs:\n");
		rc = xa_xattr_iterate(ctx, &ip, NULL, print_xattr, out, &complete);
		if (!complete)
			fprintf(out, "  (some attributes could not be read)\n");
		if (rc) {
			xa_inode_release(&ip);
			return rc;
		}
	}
	xa_inode_release(&ip);
	return 0;
}

struct missing_state {
	FILE                 *err;
	uint64_t              ino;
	uint64_t              count;
	struct xa_missing_run run;   /* unreadable bytes not yet named */
};

static void say_missing(const struct missing_state *m, const struct xa_missing_run *r)
{
	fprintf(m->err, "xfsrecon: inode %" PRIu64 ": bytes %" PRIu64 "..%" PRIu64
		" could not be read; written as zeros\n", m->ino, r->off, r->off + r->len - 1);
}

/* Unreadable ranges are named a run at a time, not a block at a time. */
static void note_missing(void *arg, uint64_t off, uint64_t len)
{
	struct missing_state *m = arg;
	struct xa_missing_run done;

	m->count++;
	if (xa_missing_run_add(&m->run, off, len, &done))
		say_missing(m, &done);
}

int xc_cmd_cat(struct xa_ctx *ctx, const char *target, FILE *out, FILE *err)
{
	struct missing_state ms = { err, 0, 0, { 0, 0 } };
	struct xa_missing_run tail;
	struct xa_inode ip;
	struct xa_extents ex;
	uint8_t *buf = NULL;
	uint64_t ino, size, off;
	int rc;

	rc = open_target(ctx, target, &ino, &ip, err);
	if (rc)
		return rc;
	ms.ino = ino;
	size = ip.d.size;
	if (xa_inode_type(&ip) == 0120000) {
		uint8_t t[XFMT_SYMLINK_MAXLEN];
		size_t n = 0;

		rc = xa_symlink_target(ctx, &ip, t, &n, NULL);
		fwrite(t, 1, n, out);
		if (rc && rc != XERR_NOMEM)
			fprintf(err, "xfsrecon: inode %" PRIu64 ": the symlink target is damaged; "
				"%zu bytes of %" PRIu64 " recovered\n", ino, n, size);
		xa_inode_release(&ip);
		return rc == XERR_FORMAT ? XERR_IO : rc;
	}
	if (xa_inode_type(&ip) != 0100000) {
		fprintf(err, "xfsrecon: inode %" PRIu64 " is a %s, not a file\n", ino,
			type_name(xa_inode_type(&ip)));
		xa_inode_release(&ip);
		return XERR_USAGE;
	}
	rc = xa_extents_load(ctx, &ip, XA_DATA_FORK, &ex);
	if (rc)
		goto out;
	buf = malloc(CAT_CHUNK);
	if (!buf) {
		rc = XERR_NOMEM;
		goto out_ex;
	}
	/* A size past the largest an XFS file can have (2^63 - 1 bytes, the
	 * kernel's MAX_LFS_FILESIZE; see xfmt_bmap_max_fileoff) is damage, not
	 * exabytes of zeros to stream: stop at the end of the last mapped block. */
	if (size > (uint64_t)INT64_MAX) {
		uint64_t end = 0;
		unsigned blocklog = ctx->geom.blocklog;

		if (ex.n) {
			uint64_t last = ex.v[ex.n - 1].startoff + ex.v[ex.n - 1].blockcount;

			end = last > ((uint64_t)INT64_MAX >> blocklog) ? (uint64_t)INT64_MAX
								       : last << blocklog;
		}
		fprintf(err, "xfsrecon: inode %" PRIu64 ": the size %" PRIu64 " is past the largest "
			"an XFS file can have (2^63 - 1 bytes); stopping at %" PRIu64 " bytes, the end "
			"of its last mapped block\n", ino, size, end);
		size = end;
		ms.count++;
	}
	for (off = 0; off < size; ) {
		size_t n = size - off < CAT_CHUNK ? (size_t)(size - off) : CAT_CHUNK;

		rc = xa_file_pread(ctx, &ex, buf, n, off, note_missing, &ms);
		if (rc)
			break;
		if (fwrite(buf, 1, n, out) != n) {
			fprintf(err, "xfsrecon: write error: %s\n", strerror(errno));
			rc = XERR_IO;
			break;
		}
		off += n;
	}
	if (xa_missing_run_end(&ms.run, &tail))
		say_missing(&ms, &tail);
	if (!rc && !ex.complete)
		fprintf(err, "xfsrecon: inode %" PRIu64 ": its block map is damaged; unmapped "
			"ranges were written as zeros\n", ino);
	if (!rc && ms.count)
		rc = XERR_IO;
	free(buf);
out_ex:
	xa_extents_release(&ex);
out:
	xa_inode_release(&ip);
	return rc;
}
