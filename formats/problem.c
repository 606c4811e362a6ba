/*
 * problem.c - look-ups into the findings table and the emit helpers that
 * verifiers use.  The table itself is problems.def.
 */
#include "formats/problem.h"

#include <stddef.h>

struct xprob_row {
	enum xprob_code     code;
	const char         *id;
	enum xprob_severity sev;
	enum xprob_fix      fix;
	const char         *msg;
};

static const struct xprob_row xprob_rows[] = {
#define XPROB(code, id, sev, fix, msg) { code, #id, XSEV_##sev, XFIX_##fix, msg },
#include "formats/problems.def"
#undef XPROB
};

static const char *const xfix_names[] = {
#define XFIX_NAME(name, desc) #name,
	XFIX_LIST(XFIX_NAME)
#undef XFIX_NAME
};

static const struct xprob_row *xprob_row_find(enum xprob_code code)
{
	size_t lo = 0, hi = sizeof(xprob_rows) / sizeof(xprob_rows[0]);

	/* problems.def is kept sorted by code (a unit test enforces it). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((unsigned)xprob_rows[mid].code == (unsigned)code)
			return &xprob_rows[mid];
		if ((unsigned)xprob_rows[mid].code < (unsigned)code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *xprob_id(enum xprob_code code)
{
	const struct xprob_row *r = xprob_row_find(code);
	return r ? r->id : NULL;
}

const char *xprob_message(enum xprob_code code)
{
	const struct xprob_row *r = xprob_row_find(code);
	return r ? r->msg : NULL;
}

enum xprob_severity xprob_severity_of(enum xprob_code code)
{
	const struct xprob_row *r = xprob_row_find(code);
	return r ? r->sev : XSEV_ERROR;
}

enum xprob_fix xprob_fix_of(enum xprob_code code)
{
	const struct xprob_row *r = xprob_row_find(code);
	return r ? r->fix : XFIX_NONE;
}

const char *xprob_severity_name(enum xprob_severity sev)
{
	switch (sev) {
	case XSEV_INFO: return "info";
	case XSEV_WARNING: return "warning";
	case XSEV_ERROR: return "error";
	}
	return "error";
}

const char *xprob_fix_name(enum xprob_fix fix)
{
	if ((unsigned)fix >= XFIX_COUNT)
		return "NONE";
	return xfix_names[fix];
}

static const char *const xfix_descriptions[] = {
#define XFIX_DESC(name, desc) desc,
	XFIX_LIST(XFIX_DESC)
#undef XFIX_DESC
};

const char *xprob_fix_description(enum xprob_fix fix)
{
	if ((unsigned)fix >= XFIX_COUNT)
		return "";
	return xfix_descriptions[fix];
}

unsigned xprob_table_size(void)
{
	return (unsigned)(sizeof(xprob_rows) / sizeof(xprob_rows[0]));
}

enum xprob_code xprob_table_code(unsigned idx)
{
	if (idx >= xprob_table_size())
		return (enum xprob_code)0;
	return xprob_rows[idx].code;
}

int xprob_emit(const struct xprob_sink *sink, enum xprob_code code,
	       const char *field, uint64_t off)
{
	struct xprob p = { .code = code, .has = XPROB_HAS_OFF, .field = field, .off = off };

	sink->report(sink->arg, &p);
	return 1;
}

int xprob_emit_val(const struct xprob_sink *sink, enum xprob_code code,
		   const char *field, uint64_t off, uint64_t expected,
		   uint64_t observed)
{
	struct xprob p = {
		.code = code,
		.has = XPROB_HAS_OFF | XPROB_HAS_EXPECTED | XPROB_HAS_OBSERVED,
		.field = field, .off = off, .expected = expected, .observed = observed,
	};

	sink->report(sink->arg, &p);
	return 1;
}

int xprob_emit_obs(const struct xprob_sink *sink, enum xprob_code code,
		   const char *field, uint64_t off, uint64_t observed)
{
	struct xprob p = {
		.code = code, .has = XPROB_HAS_OFF | XPROB_HAS_OBSERVED,
		.field = field, .off = off, .observed = observed,
	};

	sink->report(sink->arg, &p);
	return 1;
}
