/*
 * findings.c - storage and rendering of findings.
 *
 * Storage grows geometrically up to XA_FINDINGS_MAX entries; past that, or
 * when memory runs out, findings are counted but not stored, so a run on a
 * pathological image degrades to counts instead of failing.
 */
#include "analyzer/findings/findings.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/btrec.h"

void xa_findings_init(struct xa_findings *f)
{
	memset(f, 0, sizeof(*f));
}

void xa_findings_release(struct xa_findings *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}

static void merge_loc(struct xprob *p, const struct xa_loc *loc)
{
	if (!loc)
		return;
	if ((loc->has & XPROB_HAS_AG) && !(p->has & XPROB_HAS_AG)) {
		p->agno = loc->agno;
		p->has |= XPROB_HAS_AG;
	}
	if ((loc->has & XPROB_HAS_AGBNO) && !(p->has & XPROB_HAS_AGBNO)) {
		p->agbno = loc->agbno;
		p->has |= XPROB_HAS_AGBNO;
	}
	if ((loc->has & XPROB_HAS_INO) && !(p->has & XPROB_HAS_INO)) {
		p->ino = loc->ino;
		p->has |= XPROB_HAS_INO;
	}
	if ((loc->has & XPROB_HAS_BYTE) && !(p->has & XPROB_HAS_BYTE)) {
		p->byte = loc->byte;
		p->has |= XPROB_HAS_BYTE;
	}
}

void xa_findings_add(struct xa_findings *f, const struct xprob *p,
		     const struct xa_loc *loc)
{
	enum xprob_severity sev = xprob_severity_of(p->code);
	struct xa_finding *fd;

	if ((unsigned)sev < 3)
		f->by_severity[sev]++;
	if (f->count == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 64;
		struct xa_finding *n;

		if (ncap > XA_FINDINGS_MAX)
			ncap = XA_FINDINGS_MAX;
		if (ncap <= f->cap) {
			f->dropped++;
			return;
		}
		n = realloc(f->items, ncap * sizeof(*n));
		if (!n) {
			f->dropped++;
			return;
		}
		f->items = n;
		f->cap = ncap;
	}
	fd = &f->items[f->count++];
	fd->p = *p;
	merge_loc(&fd->p, loc);
	fd->what = loc && loc->what ? loc->what : "";
}

static void loc_sink_report(void *arg, const struct xprob *p)
{
	struct xa_loc_sink *ls = arg;

	xa_findings_add(ls->findings, p, &ls->loc);
}

void xa_loc_sink_init(struct xa_loc_sink *ls, struct xa_findings *f)
{
	memset(ls, 0, sizeof(*ls));
	ls->findings = f;
	ls->sink.report = loc_sink_report;
	ls->sink.arg = ls;
}

bool xa_findings_have(const struct xa_findings *f, enum xprob_code code)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->items[i].p.code == code)
			return true;
	return false;
}

uint64_t xa_findings_count(const struct xa_findings *f, enum xprob_severity min)
{
	uint64_t n = 0;

	for (int s = (int)min; s <= (int)XSEV_ERROR; s++)
		n += f->by_severity[s];
	return n;
}

/* Magic numbers, CRCs and flag words read better in hex. */
static int value_is_hex(const struct xa_finding *fd)
{
	const char *id = xprob_id(fd->p.code);
	const char *field = fd->p.field;

	if (id && (strstr(id, "Magic") || strstr(id, "Crc") || strstr(id, "Feature") ||
		   strstr(id, "Flags") || strstr(id, "Mode")))
		return 1;
	return field && (strstr(field, "features") || strstr(field, "flags") ||
			 strstr(field, "versionnum"));
}

static size_t put_str(char *buf, size_t len, size_t pos, const char *s)
{
	while (*s && pos + 1 < len)
		buf[pos++] = *s++;
	return pos;
}

const char *xa_owner_label(uint64_t owner)
{
	switch (owner) {
	case XFS_RMAP_OWN_NULL:    return "NULL";
	case XFS_RMAP_OWN_UNKNOWN: return "UNKNOWN";
	case XFS_RMAP_OWN_FS:      return "FS";
	case XFS_RMAP_OWN_LOG:     return "LOG";
	case XFS_RMAP_OWN_AG:      return "AG";
	case XFS_RMAP_OWN_INOBT:   return "INOBT";
	case XFS_RMAP_OWN_INODES:  return "INODES";
	case XFS_RMAP_OWN_REFC:    return "REFC";
	case XFS_RMAP_OWN_COW:     return "COW";
	default:                   return NULL;
	}
}

void xa_owner_format(uint64_t owner, char *buf, size_t len)
{
	const char *name = xa_owner_label(owner);

	if (name)
		snprintf(buf, len, "%s", name);
	else if (owner >> 63)
		snprintf(buf, len, "%" PRId64, (int64_t)owner);  /* as xfs_db prints it */
	else
		snprintf(buf, len, "%" PRIu64, owner);
}

const char *xa_owner_fork(const struct xprob_owner *o)
{
	if (o->owner >> 63)
		return NULL;
	switch (o->flags & (XPROB_OWN_ATTR | XPROB_OWN_BMBT)) {
	case XPROB_OWN_BMBT:                  return "data-bmbt";
	case XPROB_OWN_ATTR | XPROB_OWN_BMBT: return "attr-bmbt";
	case XPROB_OWN_ATTR:                  return "attr";
	default:                              return "data";
	}
}

/* What a special owner's blocks are, in words. */
static const char *special_words(uint64_t owner)
{
	switch (owner) {
	case XFS_RMAP_OWN_FS:     return "the AG headers";
	case XFS_RMAP_OWN_LOG:    return "the log";
	case XFS_RMAP_OWN_AG:     return "a free-space btree, the rmapbt or the AGFL";
	case XFS_RMAP_OWN_INOBT:  return "an inode btree";
	case XFS_RMAP_OWN_INODES: return "an inode chunk";
	case XFS_RMAP_OWN_REFC:   return "the refcount btree";
	case XFS_RMAP_OWN_COW:    return "a CoW staging extent";
	default:                  return "an invalid special owner";
	}
}

/* "inode 131's data fork at file offset 5", "an inode btree (INOBT)". */
static void claim_format(const struct xprob_owner *o, char *buf, size_t len)
{
	char own[32];

	xa_owner_format(o->owner, own, sizeof(own));
	if (o->owner >> 63) {
		snprintf(buf, len, "%s (%s)", special_words(o->owner), own);
		return;
	}
	if (o->flags & XPROB_OWN_BMBT)
		snprintf(buf, len, "a block of inode %s's %s-fork bmbt", own,
			 (o->flags & XPROB_OWN_ATTR) ? "attr" : "data");
	else
		snprintf(buf, len, "inode %s's %s fork at file offset %" PRIu64 "%s", own,
			 (o->flags & XPROB_OWN_ATTR) ? "attr" : "data", o->offset,
			 (o->flags & XPROB_OWN_UNWRITTEN) ? " (unwritten)" : "");
}

/* A value; an rmap owner field's special owner by its name, as xfs_db and
 * fsmap show owners, not as a 20-digit number. */
static void value_format(const struct xa_finding *fd, uint64_t v, int hex, char *buf, size_t len)
{
	if (fd->p.code == XP_btBadRecord && fd->p.field && !strcmp(fd->p.field, "owner") &&
	    (v >> 63))
		xa_owner_format(v, buf, len);
	else
		snprintf(buf, len, hex ? "0x%" PRIx64 : "%" PRIu64, v);
}

void xa_finding_render(const struct xa_finding *fd, char *buf, size_t len)
{
	const char *t = xprob_message(fd->p.code);
	int hex = value_is_hex(fd);
	size_t pos = 0;
	char num[160];
	bool owners = (fd->p.has & XPROB_HAS_OWNERS) != 0;

	if (!len)
		return;
	if (!t)
		t = "unknown finding";
	while (*t && pos + 1 < len) {
		const char *end;
		size_t klen;

		if (*t != '{' || !(end = strchr(t, '}'))) {
			buf[pos++] = *t++;
			continue;
		}
		klen = (size_t)(end - t - 1);
		num[0] = '\0';
		if (klen == 5 && !strncmp(t + 1, "field", 5))
			pos = put_str(buf, len, pos, fd->p.field ? fd->p.field : "field");
		else if (klen == 8 && !strncmp(t + 1, "expected", 8))
			value_format(fd, fd->p.expected, hex, num, sizeof(num));
		else if (klen == 8 && !strncmp(t + 1, "observed", 8))
			value_format(fd, fd->p.observed, hex, num, sizeof(num));
		else if (klen == 2 && !strncmp(t + 1, "ag", 2))
			snprintf(num, sizeof(num), "%" PRIu32, fd->p.agno);
		else if (klen == 5 && !strncmp(t + 1, "agbno", 5))
			snprintf(num, sizeof(num), "%" PRIu32, fd->p.agbno);
		else if (klen == 3 && !strncmp(t + 1, "ino", 3))
			snprintf(num, sizeof(num), "%" PRIu64, fd->p.ino);
		else if (klen == 3 && !strncmp(t + 1, "off", 3))
			snprintf(num, sizeof(num), "%" PRIu64, fd->p.off);
		else if (klen == 3 && !strncmp(t + 1, "lsn", 3))
			snprintf(num, sizeof(num), "%" PRIu32 "/%" PRIu32, (uint32_t)(fd->p.off >> 32),
				 (uint32_t)fd->p.off);
		else if (owners && klen == 5 && !strncmp(t + 1, "owner", 5))
			xa_owner_format(fd->p.owners[0].owner, num, sizeof(num));
		else if (owners && klen == 6 && !strncmp(t + 1, "owner2", 6))
			xa_owner_format(fd->p.owners[1].owner, num, sizeof(num));
		else if (owners && klen == 5 && !strncmp(t + 1, "claim", 5))
			claim_format(&fd->p.owners[0], num, sizeof(num));
		else if (owners && klen == 6 && !strncmp(t + 1, "claim2", 6))
			claim_format(&fd->p.owners[1], num, sizeof(num));
		else if (klen == 6 && !strncmp(t + 1, "struct", 6))
			pos = put_str(buf, len, pos, fd->what ? fd->what : "");
		pos = put_str(buf, len, pos, num);
		t = end + 1;
	}
	buf[pos] = '\0';
}

static int finding_cmp(const void *a, const void *b)
{
	const struct xa_finding *x = a, *y = b;
	uint64_t xa = (x->p.has & XPROB_HAS_AG) ? x->p.agno : UINT64_MAX;
	uint64_t ya = (y->p.has & XPROB_HAS_AG) ? y->p.agno : UINT64_MAX;
	uint64_t xb = (x->p.has & XPROB_HAS_BYTE) ? x->p.byte : 0;
	uint64_t yb = (y->p.has & XPROB_HAS_BYTE) ? y->p.byte : 0;

	/* Findings without an AG (whole-filesystem ones) come first. */
	if (xa != ya) {
		if (xa == UINT64_MAX)
			return -1;
		if (ya == UINT64_MAX)
			return 1;
		return xa < ya ? -1 : 1;
	}
	if (xb != yb)
		return xb < yb ? -1 : 1;
	if (x->p.ino != y->p.ino)
		return x->p.ino < y->p.ino ? -1 : 1;
	if (x->p.code != y->p.code)
		return (unsigned)x->p.code < (unsigned)y->p.code ? -1 : 1;
	if (x->p.off != y->p.off)
		return x->p.off < y->p.off ? -1 : 1;
	if (x->p.agbno != y->p.agbno)
		return x->p.agbno < y->p.agbno ? -1 : 1;
	if ((x->p.field == NULL) != (y->p.field == NULL))
		return x->p.field ? 1 : -1;
	if (x->p.field && strcmp(x->p.field, y->p.field))
		return strcmp(x->p.field, y->p.field);
	if (x->p.expected != y->p.expected)
		return x->p.expected < y->p.expected ? -1 : 1;
	if (x->p.observed != y->p.observed)
		return x->p.observed < y->p.observed ? -1 : 1;
	if ((x->p.has ^ y->p.has) & XPROB_HAS_OWNERS)
		return (x->p.has & XPROB_HAS_OWNERS) ? 1 : -1;
	for (int k = 0; k < 2 && (x->p.has & XPROB_HAS_OWNERS); k++) {
		const struct xprob_owner *ox = &x->p.owners[k], *oy = &y->p.owners[k];

		if (ox->owner != oy->owner)
			return ox->owner < oy->owner ? -1 : 1;
		if (ox->offset != oy->offset)
			return ox->offset < oy->offset ? -1 : 1;
		if (ox->flags != oy->flags)
			return ox->flags < oy->flags ? -1 : 1;
	}
	return strcmp(x->what, y->what);
}

void xa_findings_sort(struct xa_findings *f)
{
	/* qsort is not stable; finding_cmp compares every printed attribute,
	 * so elements it calls equal print identically. */
	if (f->count > 1)
		qsort(f->items, f->count, sizeof(f->items[0]), finding_cmp);
}
