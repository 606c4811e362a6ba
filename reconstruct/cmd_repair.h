/*
 * cmd_repair.h - the `repair` command: check, plan, write OUT, check OUT,
 * report.  main.c parses the options; this file runs the steps and says
 * which exit code the run earned.
 */
#ifndef XR_CMD_REPAIR_H
#define XR_CMD_REPAIR_H

#include <stdbool.h>
#include <stdio.h>

struct ximg_open_opts;

struct xr_cmd_repair_opts {
	const char *image;
	const struct ximg_open_opts *io;
	const char *out;          /* OUT (required unless dry_run) */
	const char *report;       /* XML report path, or NULL */
	bool        force;        /* overwrite an existing OUT */
	bool        dry_run;      /* print the plan, write nothing */
	bool        zero_log;     /* discard a dirty log */
	bool        no_replay;    /* do not replay a dirty log (it is then refused
	                             unless zero_log discards it) */
	bool        progress;     /* progress on stderr */
	bool        quiet;        /* only the summary line */
};

/* Exit codes of the command (fsck style, as design.md says). */
enum {
	XR_EXIT_CLEAN = 0,        /* nothing needed repair */
	XR_EXIT_REPAIRED = 1,     /* problems found; OUT checks clean */
	XR_EXIT_LEFT = 4,         /* problems left (in OUT, or the repair was refused) */
	XR_EXIT_OPERATIONAL = 8,
	XR_EXIT_USAGE = 16,
};

/* Run the command; messages go to out (results) and errs (diagnostics). */
int xr_cmd_repair(const struct xr_cmd_repair_opts *o, FILE *out, FILE *errs);

#endif /* XR_CMD_REPAIR_H */
