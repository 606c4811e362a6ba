/*
 * repair_report.h - the XML report of a repair (doc/repair-report.xsd):
 * input and output with their SHA-256, the findings with the actions that
 * answer them, every change written, every orphan placed in lost+found,
 * and what a check of the output still found.
 */
#ifndef XR_REPAIR_REPORT_H
#define XR_REPAIR_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xa_ctx;
struct xr_plan;
struct xr_repair_summary;

struct xr_report_info {
	const char    *out_path;       /* NULL for a dry run */
	bool           have_out_sha;
	uint8_t        out_sha256[32];
	const char    *result;         /* "clean", "repaired", "incomplete", "refused" */
	/* The check of the output (when it ran). */
	bool           after_checked;
	uint64_t       after_errors, after_warnings;
	const struct xa_ctx *after;    /* its findings are listed (may be NULL) */
};

/*
 * Write the report to path ("-" = standard output; never over the image).
 * Returns 0, XERR_NOMEM, XERR_USAGE or XERR_IO with a reason in err.
 */
int xr_repair_report_write(const struct xa_ctx *ctx, const struct xr_plan *plan,
			   const struct xr_repair_summary *sum, const struct xr_report_info *ri,
			   const char *path, char *err, size_t errlen);

/*
 * The report's parts, shared with the index of a stored plan (cmd_plan.c),
 * so both name findings (F1..), actions (A1..), orphans and AG decisions the
 * same way.  Each writes one element (with its children) through x, doing
 * nothing once x has failed.
 */
struct xa_xw;
struct xa_findings;
void xr_report_input(struct xa_xw *x, const struct xa_ctx *ctx);
void xr_report_summary(struct xa_xw *x, const struct xa_ctx *ctx, const struct xr_plan *plan,
		       const struct xr_repair_summary *sum, const struct xr_report_info *ri);
void xr_report_ags(struct xa_xw *x, const struct xr_plan *plan);
/* element: "findings" (the name the schemas use) */
void xr_report_findings(struct xa_xw *x, const struct xa_findings *f, const char *element);
void xr_report_actions(struct xa_xw *x, const struct xr_plan *plan);
void xr_report_orphans(struct xa_xw *x, const struct xr_plan *plan);

/* <reattached>: names rewritten directories hold again that their own
 * blocks no longer gave, each with its source (left out when none). */
void xr_report_reattached(struct xa_xw *x, const struct xr_plan *plan);

/* <revived>: inodes brought back with a new core, what in each is evidence
 * and what was synthesized (absent when there are none). */
void xr_report_revived(struct xa_xw *x, const struct xr_plan *plan);

/* <losses>: files whose blocks the output cannot give back (absent when
 * there are none). */
void xr_report_losses(struct xa_xw *x, const struct xr_plan *plan);

#endif /* XR_REPAIR_REPORT_H */
