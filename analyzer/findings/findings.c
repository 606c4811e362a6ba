/*
 * findings.c - storage and rendering of findings.
 *
 * Storage grows geometrically up to XA_FINDINGS_MAX entries; past that, or
 * when memory runs out, findings are counted but not stored, so a run on a
 * pathological image degrades to counts instead of failing.
 */
#include "analyzer/findings/findings.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void xa_finding_render(const struct xa_finding *fd, char *buf, size_t len)
{
	const char *t = xprob_message(fd->p.code);
	int hex = value_is_hex(fd);
	size_t pos = 0;
	char num[32];

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
			snprintf(num, sizeof(num), hex ? "0x%" PRIx64 : "%" PRIu64, fd->p.expected);
		else if (klen == 8 && !strncmp(t + 1, "observed", 8))
			snprintf(num, sizeof(num), hex ? "0x%" PRIx64 : "%" PRIu64, fd->p.observed);
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
	return strcmp(x->what, y->what);
}

void xa_findings_sort(struct xa_findings *f)
{
	/* qsort is not stable; finding_cmp compares every printed attribute,
	 * so elements it calls equal print identically. */
	if (f->count > 1)
		qsort(f->items, f->count, sizeof(f->items[0]), finding_cmp);
}
