/*
 * bodyfile.c - the TSK 3.x body format.
 */
#include "cli/views/bodyfile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/inode_alloc.h"
#include "analyzer/model/tree.h"
#include "analyzer/report/escape.h"
#include "cli/message_streams.h"
#include "formats/dir2_carve.h"

void xc_body_mode_string(uint16_t mode, char out[13])
{
	static const char rwx[] = "rwxrwxrwx";
	char t1, t2;

	switch (mode & 0170000u) {
	case 0040000: t1 = 'd'; t2 = 'd'; break;
	case 0120000: t1 = 'l'; t2 = 'l'; break;
	case 0020000: t1 = 'c'; t2 = 'c'; break;
	case 0060000: t1 = 'b'; t2 = 'b'; break;
	case 0010000: t1 = 'p'; t2 = 'p'; break;
	case 0140000: t1 = 's'; t2 = 's'; break;
	case 0100000: t1 = 'r'; t2 = '-'; break;
	default: t1 = '-'; t2 = '-'; break;
	}
	out[0] = t1;
	out[1] = '/';
	out[2] = t2;
	for (int i = 0; i < 9; i++)
		out[3 + i] = (mode >> (8 - i)) & 1 ? rwx[i] : '-';
	if (mode & 04000)
		out[5] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		out[8] = (mode & 010) ? 's' : 'S';
	if (mode & 01000)
		out[11] = (mode & 01) ? 't' : 'T';
	out[12] = '\0';
}

void xc_body_put_path(FILE *out, const char *path)
{
	for (const char *p = path; *p; p++) {
		if (*p == '|')
			fputs("\\x7c", out);
		else
			fputc(*p, out);
	}
}

static void line(FILE *out, const char *path, uint64_t ino, const struct xa_inode *ip)
{
	char mode[13];

	fputs("0|", out);
	xc_body_put_path(out, path);
	if (!ip) {
		fprintf(out, "|%" PRIu64 "|?|0|0|0|0|0|0|0\n", ino);
		return;
	}
	xc_body_mode_string(ip->d.mode, mode);
	fprintf(out, "|%" PRIu64 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|%" PRId64 "|%" PRId64
		"|%" PRId64 "|%" PRId64 "\n", ino, mode, ip->d.uid, ip->d.gid, ip->d.size,
		ip->d.atime.sec, ip->d.mtime.sec, ip->d.ctime.sec,
		xfmt_dinode_v3_core(&ip->d) ? ip->d.crtime.sec : 0);
}

struct body_state {
	struct xa_ctx *ctx;
	FILE          *out;
	bool           deleted;
	const char    *dir;      /* display path of the directory being carved */
};

static int body_deleted(void *arg, const struct xfmt_dir2_carved *c)
{
	struct body_state *b = arg;
	char *esc = xa_escape_name(c->name, c->namelen), *path;
	enum xa_ino_alloc a;
	struct xa_inode ip;
	bool have;

	if (!esc)
		return XERR_NOMEM;
	a = c->ino_whole ? xa_inode_alloc(b->ctx, c->ino) : XA_INO_UNKNOWN;
	have = c->ino_whole && xa_inode_read(b->ctx, c->ino, &ip) == 0;
	path = malloc(strlen(b->dir) + strlen(esc) + 24);
	if (!path) {
		free(esc);
		if (have)
			xa_inode_release(&ip);
		return XERR_NOMEM;
	}
	sprintf(path, "%s/%s %s", b->dir, esc, a == XA_INO_IN_USE ? "(deleted-realloc)" : "(deleted)");
	line(b->out, path, c->ino, have ? &ip : NULL);
	if (have)
		xa_inode_release(&ip);
	free(path);
	free(esc);
	return 0;
}

static int carve_dir(struct body_state *b, uint64_t ino, const char *path)
{
	struct xa_inode dir;
	int rc;

	if (xa_inode_read(b->ctx, ino, &dir) != 0)
		return 0;
	b->dir = path;
	rc = xa_dir_deleted(b->ctx, &dir, body_deleted, b);
	xa_inode_release(&dir);
	return rc;
}

static int body_entry(void *arg, const struct xa_tree_entry *e)
{
	struct body_state *b = arg;

	line(b->out, e->path, e->ino, e->ip);
	if (b->deleted && e->ip && (e->ip->d.mode & 0170000u) == 0040000u)
		return carve_dir(b, e->ino, e->path);
	return 0;
}

int xc_cmd_bodyfile(struct xa_ctx *ctx, bool deleted, FILE *out, FILE *err)
{
	struct body_state b = { ctx, out, deleted, "" };
	struct xa_inode root;
	struct xc_message_streams ms;
	bool root_lost = false, incomplete;
	int rc;

	if (xa_inode_read(ctx, ctx->sb.rootino, &root) == 0) {
		line(out, "/", root.ino, &root);
		xa_inode_release(&root);
	} else {
		fprintf(err, "xfsrecon: the root inode cannot be read\n");
		root_lost = true;
	}
	if (deleted && !root_lost) {
		rc = carve_dir(&b, ctx->sb.rootino, "");
		if (rc)
			return rc;
	}
	rc = xa_tree_walk(ctx, ctx->sb.rootino, "", true, body_entry, &b,
			  xc_message_streams(&ms, out, err), &incomplete);
	if (rc)
		return rc;
	return incomplete || root_lost ? XERR_IO : 0;
}
