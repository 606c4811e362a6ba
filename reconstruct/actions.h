/*
 * actions.h - the vocabulary of repair actions: the kinds of step a plan is
 * made of, generated from actions.def, with the fix classes of the findings
 * each may answer.
 *
 * The planner starts every action with a kind from here (xr_plan_action);
 * plans, reports and show-plan carry its name.  The findings table
 * (formats/problems.def) gives each finding a fix class; xr_plan_answer
 * checks that the action answering a finding lists that class.  Depends on
 * formats/problem.h alone, so the documentation generator can print the
 * table.
 */
#ifndef XR_ACTIONS_H
#define XR_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/problem.h"

/* One bit per fix class, for the answers column of actions.def. */
#define XR_FIX(cls) (UINT64_C(1) << XFIX_##cls)

_Static_assert(XFIX_COUNT <= 64, "the answers mask holds one bit per fix class");

enum xr_action_kind {
#define XACTION(kind, name, answers, desc) XR_ACT_##kind,
#include "reconstruct/actions.def"
#undef XACTION
	XR_ACT_COUNT
};

/* The action's name as plans and reports write it ("rebuild-ag"), or NULL
 * for a kind outside the table. */
const char *xr_action_name(enum xr_action_kind kind);

/* Its one-line description, or NULL for a kind outside the table. */
const char *xr_action_description(enum xr_action_kind kind);

/* The fix classes it may answer, one bit each (XR_FIX); 0 outside the table. */
uint64_t xr_action_fixes(enum xr_action_kind kind);

/* May an action of this kind answer a finding of fix class fix? */
bool xr_action_answers(enum xr_action_kind kind, enum xprob_fix fix);

#endif /* XR_ACTIONS_H */
