/*
 * log_events.c - the log's events printed with paths.
 *
 * Two walks of the log: the first gathers the inodes the events name (and
 * their directories), the tree of the replayed image is walked once for
 * their paths, the second walk prints.  Logs are small next to the tree,
 * so walking one twice costs less than keeping its events.
 */
#include "cli/views/log_events.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/log/log_events.h"
#include "analyzer/model/grow.h"
#include "analyzer/model/paths.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/escape.h"
#include "cli/message_streams.h"
#include "cli/views/bodyfile.h"

/* The last name the log gave an inode (for inodes no tree names). */
struct seen_name {
	uint64_t ino, dir;
	uint8_t  len;
	uint8_t  name[256];
};

struct lv_state {
	struct xa_u64set  want;
	struct xa_paths   paths, before;
	struct seen_name *seen;
	size_t            nseen, seencap;
	FILE             *out;
	enum xc_log_format fmt;
	int               err;
};

static struct seen_name *seen_of(struct lv_state *st, uint64_t ino)
{
	for (size_t i = st->nseen; i-- > 0;)
		if (st->seen[i].ino == ino)
			return &st->seen[i];
	return NULL;
}

static int gather(void *arg, const struct xa_event *e)
{
	struct lv_state *st = arg;
	const uint8_t *nm = e->name2 ? e->name2 : e->name;
	size_t nl = e->name2 ? e->namelen2 : e->namelen;

	if (nm) {
		struct seen_name *sn = seen_of(st, e->ino);

		if (!sn) {
			if (xa_grow((void **)&st->seen, &st->seencap, st->nseen + 1, sizeof(*st->seen)))
				return XERR_NOMEM;
			sn = &st->seen[st->nseen++];
			sn->ino = e->ino;
		}
		sn->dir = e->name2 ? e->dir2 : e->dir;
		sn->len = (uint8_t)nl;
		memcpy(sn->name, nm, nl);
	}
	if (xa_u64set_add(&st->want, e->ino) < 0 ||
	    (e->dir && xa_u64set_add(&st->want, e->dir) < 0) ||
	    (e->dir2 && xa_u64set_add(&st->want, e->dir2) < 0))
		return XERR_NOMEM;
	return 0;
}

static char *name_path(struct lv_state *st, uint64_t dir, const uint8_t *name, size_t len,
		       unsigned depth);

/* The path of ino (malloc'd): the replayed tree's, the tree before the
 * replay's, or its last name in the log; NULL when none. */
static char *path_of(struct lv_state *st, uint64_t ino, unsigned depth)
{
	size_t n, i = xa_paths_of(&st->paths, ino, &n);
	struct seen_name *sn;

	if (n)
		return strdup(st->paths.v[i].path);
	i = xa_paths_of(&st->before, ino, &n);
	if (n)
		return strdup(st->before.v[i].path);
	sn = seen_of(st, ino);
	if (sn && depth < 64)
		return name_path(st, sn->dir, sn->name, sn->len, depth + 1);
	return NULL;
}

/* "DIR/NAME" (escaped) into a malloc'd string. */
static char *name_path(struct lv_state *st, uint64_t dir, const uint8_t *name, size_t len,
		       unsigned depth)
{
	char *dp = path_of(st, dir, depth), *esc = xa_escape_name(name, len), *p;
	const char *d = dp;
	char tmp[48];

	if (!esc) {
		free(dp);
		return NULL;
	}
	if (!d) {
		snprintf(tmp, sizeof(tmp), "<dir %" PRIu64 ">", dir);
		d = tmp;
	} else if (!strcmp(d, "/")) {
		d = "";
	}
	p = malloc(strlen(d) + strlen(esc) + 2);
	if (p)
		sprintf(p, "%s/%s", d, esc);
	free(esc);
	free(dp);
	return p;
}

static const char *type_name(uint16_t mode)
{
	switch (mode & 0170000u) {
	case 0040000: return "directory";
	case 0100000: return "file";
	case 0120000: return "symlink";
	case 0010000: return "fifo";
	case 0140000: return "socket";
	case 0020000: return "chardev";
	case 0060000: return "blockdev";
	}
	return "inode";
}

/* A JSON string of already escaped (printable UTF-8) text. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int print_event(void *arg, const struct xa_event *e)
{
	struct lv_state *st = arg;
	char *p1 = NULL, *p2 = NULL, details[160] = "", mode[13];
	size_t dl = 0;

	if (e->name && !(p1 = name_path(st, e->dir, e->name, e->namelen, 0)))
		return XERR_NOMEM;
	if (e->name2 && !(p2 = name_path(st, e->dir2, e->name2, e->namelen2, 0))) {
		free(p1);
		return XERR_NOMEM;
	}
	if (e->kind == XA_EV_CREATE)
		dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " %s", type_name(e->mode));
	if (e->freed)
		dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " freed");
	if (e->kind == XA_EV_WRITE || e->kind == XA_EV_TRUNCATE) {
		dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " size %" PRIu64 " -> %"
				       PRIu64, e->old_size, e->size);
		if (e->nextents != e->old_nextents && dl < sizeof(details))
			dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " extents %" PRIu64
					       " -> %" PRIu64, e->old_nextents, e->nextents);
	}
	if (e->kind == XA_EV_SETATTR) {
		if ((e->mode & 07777) != (e->old_mode & 07777))
			dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " mode %04o -> %04o",
					       e->old_mode & 07777, e->mode & 07777);
		if (e->uid != e->old_uid && dl < sizeof(details))
			dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " uid %" PRIu32
					       " -> %" PRIu32, e->old_uid, e->uid);
		if (e->gid != e->old_gid && dl < sizeof(details))
			dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " gid %" PRIu32
					       " -> %" PRIu32, e->old_gid, e->gid);
		if (e->flags != e->old_flags && dl < sizeof(details))
			dl += (size_t)snprintf(details + dl, sizeof(details) - dl, " flags 0x%" PRIx64
					       " -> 0x%" PRIx64, e->old_flags, e->flags);
		if (e->mtime != e->old_mtime && dl < sizeof(details))
			(void)snprintf(details + dl, sizeof(details) - dl, " mtime %" PRId64 " -> %"
				       PRId64, e->old_mtime, e->mtime);
	}
	if (!p1) {
		p1 = path_of(st, e->ino, 0);
		if (!p1)
			p1 = strdup("-");
		if (!p1)
			return XERR_NOMEM;
	}
	if (st->fmt == XC_LOG_BODYFILE) {
		fputs("0|", st->out);
		xc_body_put_path(st->out, p1);
		if (p2) {
			fputs(" -> ", st->out);
			xc_body_put_path(st->out, p2);
		}
		xc_body_mode_string(e->mode, mode);
		fprintf(st->out, " (%s)|%" PRIu64 "|%s|%" PRIu32 "|%" PRIu32 "|%" PRIu64 "|%" PRId64
			"|%" PRId64 "|%" PRId64 "|%" PRId64 "\n", xa_ev_name(e->kind), e->ino, mode,
			e->uid, e->gid, e->size, e->atime, e->mtime, e->ctime, e->crtime);
	} else if (st->fmt == XC_LOG_JSON) {
		fprintf(st->out, "{\"lsn\":\"%" PRIu32 "/%" PRIu32 "\",\"event\":\"%s\",\"path\":",
			(uint32_t)(e->lsn >> 32), (uint32_t)e->lsn, xa_ev_name(e->kind));
		json_str(st->out, p1);
		if (p2) {
			fputs(",\"to\":", st->out);
			json_str(st->out, p2);
		}
		fprintf(st->out, ",\"inode\":%" PRIu64 ",\"details\":", e->ino);
		json_str(st->out, details[0] ? details + 1 : "");
		fputs("}\n", st->out);
	} else {
		fprintf(st->out, "%" PRIu32 "/%" PRIu32 " %s %s%s%s inode %" PRIu64 "%s\n",
			(uint32_t)(e->lsn >> 32), (uint32_t)e->lsn, xa_ev_name(e->kind), p1,
			p2 ? " -> " : "", p2 ? p2 : "", e->ino, details);
	}
	free(p1);
	free(p2);
	return 0;
}

int xc_cmd_log_events(struct xa_ctx *ctx, struct xa_ctx *before, enum xc_log_format fmt,
		      FILE *out, FILE *err)
{
	struct lv_state st = { .out = out, .fmt = fmt };
	struct xc_message_streams ms;
	const struct xa_messages *msgs = xc_message_streams(&ms, NULL, err);
	int rc;

	rc = xa_log_events(ctx, gather, &st);
	if (!rc)
		rc = xa_paths_find(ctx, &st.want, 1, 0, msgs, &st.paths);
	if (!rc && before)
		rc = xa_paths_find(before, &st.want, 1, 0, msgs, &st.before);
	if (!rc)
		rc = xa_log_events(ctx, print_event, &st);
	xa_u64set_release(&st.want);
	xa_paths_release(&st.paths);
	xa_paths_release(&st.before);
	free(st.seen);
	return rc;
}
