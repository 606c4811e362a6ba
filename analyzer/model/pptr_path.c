/*
 * pptr_path.c - a former path from parent pointers, one step at a time.
 */
#include "analyzer/model/pptr_path.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/model/xattr.h"
#include "analyzer/report/escape.h"
#include "formats/attr.h"

#define MAX_STEPS 256

struct first {
	bool     found;
	uint64_t parent;
	uint8_t  name[256];
	uint8_t  namelen;
};

static int first_cb(void *arg, const struct xa_xattr *a)
{
	struct first *f = arg;
	uint32_t gen;

	if (f->found || a->ns != XFMT_ATTR_NS_PARENT || !a->namelen || !a->value_complete ||
	    xfmt_attr_pptr_decode(a->value, a->valuelen, &f->parent, &gen) != 0)
		return 0;
	memcpy(f->name, a->name, a->namelen);
	f->namelen = a->namelen;
	f->found = true;
	return 0;
}

/* ino's first parent pointer into *f; 0, or XERR_NOMEM. */
static int first_pptr(struct xa_ctx *ctx, uint64_t ino, struct first *f)
{
	struct xa_inode ip;
	int rc;

	memset(f, 0, sizeof(*f));
	rc = xa_inode_read(ctx, ino, &ip);
	if (rc)
		return rc == XERR_NOMEM ? rc : 0;
	rc = ip.d.has_attr_fork ? xa_xattr_iterate(ctx, &ip, NULL, first_cb, f, NULL) : 0;
	xa_inode_release(&ip);
	return rc == XERR_NOMEM ? rc : 0;
}

/* Prepend "/" and the escaped name to the path built from the end of buf. */
static size_t prepend(char *buf, size_t pos, const char *s)
{
	size_t n = strlen(s);

	if (n + 1 > pos)
		return 0;
	pos -= n;
	memcpy(buf + pos, s, n);
	buf[--pos] = '/';
	return pos;
}

int xa_pptr_path(struct xa_ctx *ctx, uint64_t ino, char *buf, size_t len)
{
	char *tmp;
	size_t pos;
	uint64_t cur = ino;
	bool cut = false;
	int rc = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!xfmt_geom_has_parent(&ctx->geom) || len < 16)
		return 0;
	tmp = malloc(len);
	if (!tmp)
		return XERR_NOMEM;
	pos = len - 1;
	tmp[pos] = '\0';
	for (unsigned step = 0; step < MAX_STEPS; step++) {
		struct first f;
		char *esc;
		size_t np;

		rc = first_pptr(ctx, cur, &f);
		if (rc)
			break;
		if (!f.found) {
			if (step == 0)
				break;
			/* a directory that no longer names its parent: said so */
			char head[40];

			snprintf(head, sizeof(head), "<inode %" PRIu64 ">", cur);
			np = strlen(head);
			if (np <= pos) {
				pos -= np;
				memcpy(tmp + pos, head, np);
			} else {
				cut = true;
			}
			rc = 1;
			break;
		}
		esc = xa_escape_name(f.name, f.namelen);
		if (!esc) {
			rc = XERR_NOMEM;
			break;
		}
		np = prepend(tmp, pos, esc);
		free(esc);
		if (!np) {
			cut = true;
			rc = 1;
			break;
		}
		pos = np;
		cur = f.parent;
		if (cur == ctx->sb.rootino) {
			rc = 1;
			break;
		}
		if (step + 1 == MAX_STEPS) {
			cut = true;
			rc = 1;
		}
	}
	if (rc == 1)
		snprintf(buf, len, "%s%s", cut ? "..." : "", tmp + pos);
	free(tmp);
	return rc;
}
