/*
 * ls.c - directory listings.
 *
 * Recursion uses an explicit stack and a set of directories already listed,
 * so a directory linked twice or a cycle in a damaged tree is listed once and
 * named on err, and depth is bounded by XA_LS_MAX_DEPTH, not by the C stack.
 */
#include "analyzer/views/ls.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/report_xml.h"
#include "analyzer/views/files.h"

#define XA_LS_MAX_DEPTH 4096u

struct ent {
	uint64_t ino;
	uint8_t  ftype;
	uint8_t  namelen;
	char     name[256];
};

struct entlist {
	struct ent *v;
	size_t      n, cap;
};

static int collect(void *arg, const struct xfmt_dirent *de)
{
	struct entlist *l = arg;

	if (xfmt_dir2_name_dots(de->name, de->namelen))
		return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 32;
		struct ent *n = realloc(l->v, ncap * sizeof(*n));

		if (!n)
			return XERR_NOMEM;
		l->v = n;
		l->cap = ncap;
	}
	l->v[l->n].ino = de->ino;
	l->v[l->n].ftype = de->ftype;
	l->v[l->n].namelen = de->namelen;
	memcpy(l->v[l->n].name, de->name, de->namelen);
	l->v[l->n].name[de->namelen] = '\0';
	l->n++;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	return (int)x->namelen - (int)y->namelen;
}

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

static void print_entry(struct xa_ctx *ctx, FILE *out, const char *display,
			const struct ent *e, const struct xa_ls_opts *o)
{
	struct xa_inode ip;

	if (!o->longfmt) {
		fprintf(out, "%s\n", display);
		return;
	}
	if (xa_inode_read(ctx, e->ino, &ip) != 0) {
		fprintf(out, "%12" PRIu64 " ?---------  ? ? ? ? ? %s\n", e->ino, display);
		return;
	}
	{
		char tbuf[32];
		time_t t = (time_t)ip.d.mtime.sec;
		struct tm tm;

		if (!gmtime_r(&t, &tm) || !strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M", &tm))
			snprintf(tbuf, sizeof(tbuf), "%" PRId64, ip.d.mtime.sec);
		fprintf(out, "%12" PRIu64 " %c%04o %4" PRIu32 " %6" PRIu32 " %6" PRIu32 " %12" PRIu64
			" %s %s\n", e->ino, type_char(ip.d.mode & 0170000u), ip.d.mode & 07777,
			ip.d.nlink, ip.d.uid, ip.d.gid, ip.d.size, tbuf, display);
	}
	xa_inode_release(&ip);
}

struct frame {
	uint64_t ino;
	char    *path;    /* escaped display path of the directory */
	unsigned depth;
};

static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a == 0 || dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

int xa_cmd_ls(struct xa_ctx *ctx, const char *target, const struct xa_ls_opts *o,
	      FILE *out, FILE *err)
{
	struct frame *stack = NULL;
	size_t sn = 0, scap = 0;
	struct xa_u64set seen = { 0 };
	uint64_t ino;
	bool incomplete = false;
	int rc;

	if (!target)
		target = "/";
	rc = xa_target_resolve(ctx, target, &ino, err);
	if (rc)
		return rc;
	stack = malloc(sizeof(*stack));
	if (!stack)
		return XERR_NOMEM;
	scap = 1;
	stack[sn].ino = ino;
	stack[sn].path = strdup(target[0] == '/' ? target : "");
	stack[sn].depth = 0;
	if (!stack[sn].path) {
		free(stack);
		return XERR_NOMEM;
	}
	sn++;

	while (sn && rc == 0) {
		struct frame f = stack[--sn];
		struct entlist l = { 0 };
		struct xa_inode dir;
		bool complete = true;

		int added = xa_u64set_add(&seen, f.ino);

		if (added < 0) {
			free(f.path);
			rc = XERR_NOMEM;
			break;
		}
		if (added == 0) {
			fprintf(err, "xfsrecon: directory inode %" PRIu64 " (%s) is reached twice; "
				"listed once\n", f.ino, f.path);
			free(f.path);
			continue;
		}
		rc = xa_inode_read(ctx, f.ino, &dir);
		if (rc) {
			fprintf(err, "xfsrecon: %s: inode %" PRIu64 " cannot be read\n", f.path, f.ino);
			incomplete = true;
			rc = rc == XERR_NOMEM ? rc : 0;
			free(f.path);
			continue;
		}
		if ((dir.d.mode & 0170000u) != 0040000u) {
			if (f.depth == 0) {
				struct ent e = { f.ino, 0, 0, "" };
				print_entry(ctx, out, f.path, &e, o);
			}
			xa_inode_release(&dir);
			free(f.path);
			continue;
		}
		rc = xa_dir_iterate(ctx, &dir, NULL, collect, &l, &complete);
		xa_inode_release(&dir);
		if (!complete) {
			fprintf(err, "xfsrecon: %s: directory inode %" PRIu64 " could not be read "
				"completely\n", f.path[0] ? f.path : "/", f.ino);
			incomplete = true;
		}
		if (l.n > 1)
			qsort(l.v, l.n, sizeof(*l.v), ent_cmp);
		/* Print in order; push subdirectories in reverse so they pop in order. */
		for (size_t i = 0; i < l.n && rc == 0; i++) {
			char *esc = xa_report_xml_escape(l.v[i].name, l.v[i].namelen);
			char *full;

			if (!esc) {
				rc = XERR_NOMEM;
				break;
			}
			full = o->recursive ? path_join(f.path, esc) : NULL;
			if (o->recursive && !full) {
				free(esc);
				rc = XERR_NOMEM;
				break;
			}
			print_entry(ctx, out, o->recursive ? full : esc, &l.v[i], o);
			free(full);
			free(esc);
		}
		if (o->recursive && f.depth < XA_LS_MAX_DEPTH) {
			for (size_t i = l.n; i-- > 0 && rc == 0;) {
				struct xa_inode child;
				char *esc, *full;
				bool is_dir;

				if (l.v[i].ftype && l.v[i].ftype != XFS_DIR3_FT_DIR)
					continue;
				if (xa_inode_read(ctx, l.v[i].ino, &child) != 0)
					continue;
				is_dir = (child.d.mode & 0170000u) == 0040000u;
				xa_inode_release(&child);
				if (!is_dir)
					continue;
				esc = xa_report_xml_escape(l.v[i].name, l.v[i].namelen);
				full = esc ? path_join(f.path, esc) : NULL;
				free(esc);
				if (!full) {
					rc = XERR_NOMEM;
					break;
				}
				if (sn == scap) {
					size_t ncap = scap * 2;
					struct frame *n = realloc(stack, ncap * sizeof(*n));
					if (!n) {
						free(full);
						rc = XERR_NOMEM;
						break;
					}
					stack = n;
					scap = ncap;
				}
				stack[sn].ino = l.v[i].ino;
				stack[sn].path = full;
				stack[sn].depth = f.depth + 1;
				sn++;
			}
		}
		free(l.v);
		free(f.path);
	}
	while (sn)
		free(stack[--sn].path);
	free(stack);
	xa_u64set_release(&seen);
	if (rc)
		return rc;
	return incomplete ? XERR_IO : 0;
}
