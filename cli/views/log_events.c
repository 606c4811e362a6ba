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
#include "analyzer/model/paths.h"
#include "analyzer/model/u64set.h"
#include "analyzer/report/escape.h"
#include "cli/message_streams.h"

struct lv_state {
	struct xa_u64set want;
	struct xa_paths  paths;
	FILE            *out;
	bool             json;
	int              err;
};

static int gather(void *arg, const struct xa_event *e)
{
	struct lv_state *st = arg;

	if (xa_u64set_add(&st->want, e->ino) < 0 ||
	    (e->dir && xa_u64set_add(&st->want, e->dir) < 0) ||
	    (e->dir2 && xa_u64set_add(&st->want, e->dir2) < 0))
		return XERR_NOMEM;
	return 0;
}

static const char *path_of(const struct lv_state *st, uint64_t ino)
{
	size_t n, i = xa_paths_of(&st->paths, ino, &n);

	return n ? st->paths.v[i].path : NULL;
}

/* "DIR/NAME" (escaped) into a malloc'd string. */
static char *name_path(const struct lv_state *st, uint64_t dir, const uint8_t *name, size_t len)
{
	const char *d = path_of(st, dir);
	char *esc = xa_escape_name(name, len), *p;
	char tmp[48];

	if (!esc)
		return NULL;
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
	char *p1 = NULL, *p2 = NULL, details[160] = "";
	size_t dl = 0;

	if (e->name && !(p1 = name_path(st, e->dir, e->name, e->namelen)))
		return XERR_NOMEM;
	if (e->name2 && !(p2 = name_path(st, e->dir2, e->name2, e->namelen2))) {
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
			(void)snprintf(details + dl, sizeof(details) - dl, " gid %" PRIu32 " -> %"
				       PRIu32, e->old_gid, e->gid);
	}
	if (!p1) {
		const char *ip = path_of(st, e->ino);

		p1 = strdup(ip ? ip : "-");
		if (!p1)
			return XERR_NOMEM;
	}
	if (st->json) {
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

int xc_cmd_log_events(struct xa_ctx *ctx, bool json, FILE *out, FILE *err)
{
	struct lv_state st = { .out = out, .json = json };
	struct xc_message_streams ms;
	int rc;

	rc = xa_log_events(ctx, gather, &st);
	if (!rc)
		rc = xa_paths_find(ctx, &st.want, 1, 0, xc_message_streams(&ms, NULL, err), &st.paths);
	if (!rc)
		rc = xa_log_events(ctx, print_event, &st);
	xa_u64set_release(&st.want);
	xa_paths_release(&st.paths);
	return rc;
}
