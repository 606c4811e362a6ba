/*
 * cmd_plan.h - the `plan` command (store the repair plan of IMAGE in a plan
 * file) and the `show-plan` command (print a plan or undo file for review).
 *
 * `plan` runs the very planner `repair` runs (xc_repair_prepare), so that
 * applying the stored plan to a copy of IMAGE gives what `repair -o` writes,
 * byte for byte.  The file format is plan_file.h's.
 */
#ifndef XC_CMD_PLAN_H
#define XC_CMD_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cmd_repair.h"

struct xc_cmd_plan_opts {
	struct xc_prepare_opts prep;  /* a zero_log plan clears the log */
	const char *out;          /* the plan file to write (required) */
	bool        force;        /* replace an existing plan file */
	bool        quiet;        /* only the summary line */
};

/*
 * Plan the repair of o->image and store it in o->out.  Exit codes: 0 the
 * filesystem is clean (an empty plan is still written), 1 a plan answering
 * every error was written, 4 problems the plan leaves (it is still written)
 * or a dirty log refused (nothing written), 8 operational, 16 usage.
 */
int xc_cmd_plan(const struct xc_cmd_plan_opts *o, FILE *out, FILE *errs);

/*
 * Print the plan or undo file at path: a text review to out, or, when
 * xml_path is not NULL, its verified XML index to xml_path ("-" = out).
 * Writes outside the filesystem the file describes are shown, flagged
 * (apply refuses such a file).  Exit codes: 0, 4 (writes outside the
 * filesystem), 8 (unreadable or damaged file), 16 usage (also a refused
 * XML path).
 */
int xc_cmd_show_plan(const char *path, const char *xml_path, FILE *out, FILE *errs);

#endif /* XC_CMD_PLAN_H */
