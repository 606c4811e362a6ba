/*
 * actions.c - look-ups into the actions table (actions.def; see actions.h).
 */
#include "reconstruct/actions.h"

#include <stddef.h>

struct xr_action_row {
	const char *name;
	uint64_t    fixes;
	const char *desc;
};

static const struct xr_action_row xr_action_rows[] = {
#define XACTION(kind, name, answers, desc) [XR_ACT_##kind] = { name, answers, desc },
#include "reconstruct/actions.def"
#undef XACTION
};

_Static_assert(sizeof(xr_action_rows) / sizeof(xr_action_rows[0]) == XR_ACT_COUNT,
	       "one row per action kind");

static const struct xr_action_row *row(enum xr_action_kind kind)
{
	return (unsigned)kind < XR_ACT_COUNT ? &xr_action_rows[kind] : NULL;
}

const char *xr_action_name(enum xr_action_kind kind)
{
	const struct xr_action_row *r = row(kind);

	return r ? r->name : NULL;
}

const char *xr_action_description(enum xr_action_kind kind)
{
	const struct xr_action_row *r = row(kind);

	return r ? r->desc : NULL;
}

uint64_t xr_action_fixes(enum xr_action_kind kind)
{
	const struct xr_action_row *r = row(kind);

	return r ? r->fixes : 0;
}

bool xr_action_answers(enum xr_action_kind kind, enum xprob_fix fix)
{
	if ((unsigned)fix >= XFIX_COUNT)
		return false;
	return (xr_action_fixes(kind) >> fix) & 1u;
}
