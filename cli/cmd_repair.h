/*
 * cmd_repair.h - the `repair` command: check, plan, write OUT, check OUT,
 * report.  main.c parses the options; this file runs the steps and says
 * which exit code the run earned.
 */
#ifndef XC_CMD_REPAIR_H
#define XC_CMD_REPAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ximg_open_opts;
struct xc_args;

/* What `repair` and `plan` share: the input and how to plan it. */
struct xc_prepare_opts {
	const char *image;
	const struct ximg_open_opts *io;
	bool        zero_log;     /* discard a dirty log */
	bool        no_replay;    /* do not replay a dirty log */
	bool        progress;     /* progress on stderr */
	bool        hash;         /* compute the input's SHA-256 (ctx->sha256) */
	uint64_t    cache_bytes;  /* block cache bound (--cache-mb); 0 = default */
	unsigned    jobs;         /* --jobs; 0 = one thread per CPU */
};

/* Fill what the command line says of those (image, io, log, progress). */
void xc_prepare_opts_from_args(struct xc_prepare_opts *po, const struct xc_args *a);

struct xc_cmd_repair_opts {
	struct xc_prepare_opts prep;  /* hash is set by the command */
	const char *out;          /* OUT (required unless dry_run) */
	const char *report;       /* XML report path, or NULL */
	bool        force;        /* overwrite an existing OUT */
	bool        dry_run;      /* print the plan, write nothing */
	bool        quiet;        /* only the summary line */
	bool        verbose;      /* also each action's findings and every write */
	bool        no_hash;      /* compute no digest */
	bool        verify_output; /* OUT's digest from reading it back */
};


/* Run the command; messages go to out (results) and errs (diagnostics). */
int xc_cmd_repair(const struct xc_cmd_repair_opts *o, FILE *out, FILE *errs);

struct xa_ctx;
struct xr_plan;
struct xr_repair_summary;

/*
 * The one planner path of `repair` and `plan` (so that applying a stored
 * plan gives exactly what `repair -o` writes): open and check IMAGE keeping
 * the ownership lists, refuse a truncated or partly unreadable image, and
 * plan the repair into plan (finished: sorted, no-op changes dropped).
 * Returns 0 with ctx and plan ready (the caller releases both with
 * xa_ctx_release and xr_plan_release; a refused dirty log is sum->refused),
 * or the exit code of a failure already reported on errs (nothing to
 * release then).
 */
int xc_repair_prepare(const struct xc_prepare_opts *o, struct xa_ctx *ctx, struct xr_plan *plan,
		      struct xr_repair_summary *sum, FILE *errs);

/*
 * Tell why `repair` and `plan` stop on a dirty log that was not replayed:
 * what a repair would lose and the two ways on; outcome ends the message
 * ("No plan written.").
 */
void xc_say_dirty_log_refused(FILE *errs, const char *image, const char *outcome);

#endif /* XC_CMD_REPAIR_H */
