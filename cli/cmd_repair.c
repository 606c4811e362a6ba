/*
 * cmd_repair.c - the `repair` command (see cmd_repair.h).
 *
 * Steps: check the input (keeping the ownership lists), plan, then either
 * print the plan (--dry-run) or write OUT, check OUT with the same checker,
 * and write the report.  The exit code comes from the check of OUT, not
 * from the plan: "repaired" is a claim the output itself must bear out.
 */
#include "cli/cmd_repair.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/sha256.h"
#include "cli/cmd_common.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/views/report_text.h"
#include "reconstruct/output.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair.h"
#include "reconstruct/repair_report.h"

static void pass_progress(void *arg, const char *pass, uint32_t agno, uint32_t nags)
{
	FILE *errs = arg;

	if (agno == UINT32_MAX)
		fprintf(errs, "xfsrecon: %s\n", pass);
	else
		fprintf(errs, "xfsrecon: %s: AG %" PRIu32 " of %" PRIu32 "\n", pass, agno + 1, nags);
}

/* A bar on a terminal, one line per 10 % otherwise. */
struct bar {
	FILE *errs;
	bool  tty;
	int   last;
};

static void copy_progress(void *arg, uint64_t done, uint64_t total)
{
	struct bar *b = arg;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (pct == b->last)
		return;
	if (b->tty) {
		int fill = pct / 4;

		fprintf(b->errs, "\rxfsrecon: writing output [%.*s%*s] %3d%%", fill,
			"#########################", 25 - fill, "", pct);
		if (pct >= 100)
			fputc('\n', b->errs);
	} else if (pct / 10 != b->last / 10 || pct == 100) {
		fprintf(b->errs, "xfsrecon: writing output: %d%%\n", pct);
	}
	b->last = pct;
	fflush(b->errs);
}

/* The plan's one-line summary: what `repair` prints first. */
static void print_plan_summary(FILE *out, const struct xr_plan *plan,
			       const struct xr_repair_summary *sum)
{
	fprintf(out, "plan: %zu actions, %zu writes (%" PRIu64 " bytes), %zu orphans; "
		"%" PRIu64 " of %" PRIu64 " errors answered\n", plan->nactions, plan->nchanges,
		xr_plan_bytes(plan), plan->norphans, sum->answered, sum->errors);
}

/*
 * Every action, one line each; with verbose also the findings each answers
 * and every write (a modest repair makes thousands: they are in the XML
 * report whatever is printed).
 */
static void print_plan(FILE *out, const struct xa_ctx *ctx, const struct xr_plan *plan,
		       bool verbose)
{
	for (size_t i = 0; i < plan->nactions; i++) {
		const struct xr_action *a = &plan->actions[i];
		uint64_t bytes = 0, n = 0;

		for (size_t k = 0; k < plan->nchanges; k++)
			if (plan->changes[k].action == i) {
				n++;
				bytes += plan->changes[k].len;
			}
		fprintf(out, "A%zu %s: %s [%" PRIu64 " writes, %" PRIu64 " bytes, %zu findings]\n",
			i + 1, xr_action_name(a->kind), a->text, n, bytes, a->nfindings);
		for (size_t k = 0; verbose && k < a->nfindings; k++) {
			const struct xa_finding *f = &ctx->findings.items[a->findings[k]];
			char msg[512];

			xa_finding_render(f, msg, sizeof(msg));
			fprintf(out, "    answers F%zu [%s] %s\n", a->findings[k] + 1,
				xprob_id(f->p.code) ? xprob_id(f->p.code) : "unknown", msg);
		}
	}
	for (size_t i = 0; verbose && i < plan->nchanges; i++) {
		const struct xr_change *c = &plan->changes[i];

		fprintf(out, "write %" PRIu32 " bytes at byte %" PRIu64 " (%s", c->len, c->offset,
			c->structure);
		if (c->agno != XR_NO_AG)
			fprintf(out, ", AG %" PRIu32 " block %" PRIu32, c->agno, c->agbno);
		if (c->ino)
			fprintf(out, ", inode %" PRIu64, c->ino);
		fprintf(out, ") for A%" PRIu32 "\n", c->action + 1);
	}
}

/* Findings no action answers, one line each. */
static void print_unanswered(FILE *out, const struct xa_ctx *ctx, const struct xr_plan *plan)
{
	for (size_t i = 0; i < ctx->findings.count; i++) {
		const struct xa_finding *f = &ctx->findings.items[i];
		bool answered = false;
		char msg[512];

		if (xprob_severity_of(f->p.code) != XSEV_ERROR)
			continue;
		for (size_t a = 0; a < plan->nactions && !answered; a++)
			for (size_t k = 0; k < plan->actions[a].nfindings && !answered; k++)
				answered = plan->actions[a].findings[k] == i;
		if (answered)
			continue;
		xa_finding_render(f, msg, sizeof(msg));
		fprintf(out, "not repaired: F%zu [%s] %s\n", i + 1,
			xprob_id(f->p.code) ? xprob_id(f->p.code) : "unknown", msg);
	}
}

/*
 * What in OUT is not plain evidence, one line each kind, before the result:
 * inodes revived with a new core (and how many of them carry synthesized
 * fields), and files whose blocks lay past the end of a truncated input.
 * The report lists each one.
 */
static void print_evidence_notes(FILE *out, const struct xr_plan *plan)
{
	size_t synth = 0, from_log = 0;
	uint64_t blocks = 0;

	for (size_t i = 0; i < plan->nrevived; i++) {
		synth += plan->revived[i].synthesized[0] != '\0';
		from_log += !strcmp(plan->revived[i].source, "log");
	}
	if (plan->nrevived)
		fprintf(out, "revived: %zu inodes with a new core, %zu of them from old copies in the "
			"log, %zu with fields made up (fixed values; the report's <revived> names them)\n",
			plan->nrevived, from_log, synth);
	for (size_t i = 0; i < plan->nlosses; i++)
		blocks += plan->losses[i].blocks;
	if (plan->nlosses)
		fprintf(out, "lost: %zu file forks kept %" PRIu64 " blocks past the end of the "
			"truncated input; they read as zeros (the report's <losses> names them)\n",
			plan->nlosses, blocks);
}

/* Check OUT with the same checker; fills the counts, keeps the context. */
static int check_output(const char *path, const struct xc_prepare_opts *po,
			struct xa_ctx *after, FILE *errs)
{
	struct xa_options opts = { 0 };
	char err[512];
	int rc;

	opts.cache_bytes = po->cache_bytes;
	opts.jobs = po->jobs;
	rc = xa_ctx_open(after, path, NULL, &opts, err, sizeof(err));
	if (rc) {
		fprintf(errs, "xfsrecon: checking the output: %s\n", err);
		return rc;
	}
	rc = xa_run(after, XA_RUN_CHECK);
	if (rc) {
		fprintf(errs, "xfsrecon: checking the output: %s\n", xerr_str(rc));
		xa_ctx_release(after);
		return rc;
	}
	xa_findings_sort(&after->findings);
	return 0;
}

static int finish_report(const struct xc_cmd_repair_opts *o, const struct xa_ctx *ctx,
			 const struct xr_plan *plan, const struct xr_repair_summary *sum,
			 const struct xr_report_info *ri, FILE *errs)
{
	char err[512];
	int rc;

	if (!o->report)
		return 0;
	rc = xr_repair_report_write(ctx, plan, sum, ri, o->report, err, sizeof(err));
	if (rc)
		fprintf(errs, "xfsrecon: %s\n", err);
	return rc;
}

void xc_say_dirty_log_refused(FILE *errs, const char *image, const char *outcome)
{
	fprintf(errs, "xfsrecon: %s: the log is dirty and was not replayed: the newest metadata "
		"changes are only in the journal.\nxfsrecon: a repair now would lose them; without "
		"--no-replay they are replayed, --zero-log discards them (as xfs_repair -L does).  "
		"%s\n", image, outcome);
}

void xc_prepare_opts_from_args(struct xc_prepare_opts *po, const struct xc_args *a)
{
	memset(po, 0, sizeof(*po));
	po->image = a->words[1];
	po->io = &a->io;
	po->zero_log = xc_has(a, XC_OPT_ZERO_LOG);
	po->no_replay = xc_has(a, XC_OPT_NO_REPLAY);
	po->progress = xc_has(a, XC_OPT_PROGRESS);
	po->cache_bytes = a->cache_bytes;
	po->jobs = a->jobs;
}

int xc_repair_prepare(const struct xc_prepare_opts *o, struct xa_ctx *ctx, struct xr_plan *plan,
		      struct xr_repair_summary *sum, FILE *errs)
{
	struct xa_options opts = { 0 };
	struct xr_repair_opts ro = { o->zero_log };
	char err[512] = "";
	int rc, code;

	opts.keep_ownership = true;
	opts.cache_bytes = o->cache_bytes;
	opts.jobs = o->jobs;
	/* Repair works with what exists: a truncated image's missing end and
	 * AGs with blank headers are rebuilt like zeroed ones. */
	opts.zero_tail = true;
	opts.walk_blank = true;
	/* Discarding the log means repairing the state on disk. */
	opts.no_replay = o->zero_log || o->no_replay;
	if (o->progress) {
		opts.progress = pass_progress;
		opts.progress_arg = errs;
	}
	rc = xa_ctx_open(ctx, o->image, o->io, &opts, err, sizeof(err));
	if (rc) {
		fprintf(errs, "xfsrecon: %s\n", err);
		return rc == XERR_USAGE ? XC_EXIT_USAGE : XC_EXIT_OPERATIONAL;
	}
	xr_plan_init(plan);
	rc = xa_run(ctx, XA_RUN_CHECK);
	if (rc == XERR_NOTXFS || (rc == 0 && ctx->geom_source == XA_GEOM_NONE)) {
		fprintf(errs, "xfsrecon: %s: not an XFS filesystem (no usable superblock)\n", o->image);
		code = XC_EXIT_OPERATIONAL;
		goto fail;
	}
	if (rc == 0 && ctx->read_errors) {
		fprintf(errs, "xfsrecon: %s: the image is unreadable in places; refusing to repair "
			"from incomplete evidence\n", o->image);
		code = XC_EXIT_OPERATIONAL;
		goto fail;
	}
	/* The input's hash goes into the report and pairs with OUT's; a dry
	 * run without a report has nowhere to put it, and on a large image it
	 * would cost more than the plan. */
	if (rc == 0 && o->hash)
		xc_hash_input(ctx, o->progress);
	/* What opening the image left in err (the partition probe's "no
	 * partition table" before reading the raw image) is no reason for a
	 * planning failure: the planner's own message or none. */
	err[0] = '\0';
	if (rc == 0)
		rc = xr_repair_plan(ctx, &ro, plan, sum, err, sizeof(err));
	if (rc && plan->over_bound) {
		fprintf(errs, "xfsrecon: %s: the repair writes more than %" PRIu64 " MiB and the rest "
			"could not be kept in a temporary file in $TMPDIR (or /tmp): is it full?\n",
			o->image, (uint64_t)((plan->mem_max ? plan->mem_max : XR_PLAN_MEM_BYTES) >> 20));
		code = XC_EXIT_OPERATIONAL;
		goto fail;
	}
	if (rc) {
		fprintf(errs, "xfsrecon: %s: %s\n", o->image, err[0] ? err : xerr_str(rc));
		code = XC_EXIT_OPERATIONAL;
		goto fail;
	}
	/* Our bug, not the input's: the plan stands, the user is told. */
	if (xr_plan_mismatch_text(plan, err, sizeof(err)))
		fprintf(errs, "xfsrecon: %s: note: %s; please report it\n", o->image, err);
	return 0;
fail:
	xr_plan_release(plan);
	xa_ctx_release(ctx);
	return code;
}

int xc_cmd_repair(const struct xc_cmd_repair_opts *o, FILE *out, FILE *errs)
{
	struct xc_prepare_opts po = { 0 };
	struct xr_repair_summary sum;
	struct xr_report_info ri;
	struct xr_plan plan;
	struct xa_ctx ctx, after;
	struct xr_output_pending pending = { .fd = -1 };
	bool after_open = false;
	char err[512] = "";
	int rc, srv, code;

	memset(&ri, 0, sizeof(ri));
	po = o->prep;
	/* A repair that writes OUT hashes the input in the same read that
	 * hashes OUT (output.h); a dry run hashes it for its report. */
	po.hash = o->dry_run && o->report && !o->no_hash;
	code = xc_repair_prepare(&po, &ctx, &plan, &sum, errs);
	if (code)
		return code;
	if (sum.refused) {
		xc_say_dirty_log_refused(errs, o->prep.image, "Nothing written.");
		if (o->report && !o->no_hash && !o->dry_run)
			xc_hash_input(&ctx, o->prep.progress);
		ri.result = "refused";
		finish_report(o, &ctx, &plan, &sum, &ri, errs);
		code = XC_EXIT_LEFT;
		goto out;
	}
	/* The summary first (with -q the dry run's only line; a repair's is
	 * then its result line alone). */
	if (!o->quiet || o->dry_run)
		print_plan_summary(out, &plan, &sum);
	if (!o->quiet)
		print_plan(out, &ctx, &plan, o->verbose);
	if (o->dry_run) {
		print_unanswered(out, &ctx, &plan);
		ri.result = sum.errors == 0 && plan.nchanges == 0 ? "clean" :
			    sum.answered == sum.errors ? "planned" : "incomplete";
		rc = finish_report(o, &ctx, &plan, &sum, &ri, errs);
		code = rc ? XC_EXIT_OPERATIONAL : sum.errors ? XC_EXIT_LEFT : XC_EXIT_CLEAN;
		goto out;
	}

	{
		struct bar bar = { errs, isatty(fileno(errs)) != 0, -1 };
		struct xr_output_opts oo = { 0 };
		struct xr_output_digests dg;

		oo.force = o->force;
		/* The digests go into the report and nowhere else: without one,
		 * hashing the input and OUT would be most of a small repair's
		 * time for nothing. */
		oo.no_hash = o->no_hash || !o->report;
		oo.reread = o->verify_output;
		oo.jobs = o->prep.jobs;
		oo.pending = &pending;
		if (o->prep.progress || bar.tty) {
			oo.progress = copy_progress;
			oo.progress_arg = &bar;
		}
		rc = xr_output_write(&ctx, &plan, o->out, &oo, &dg, err, sizeof(err));
		if (rc) {
			fprintf(errs, "xfsrecon: %s\n", err);
			code = rc == XERR_USAGE || rc == XERR_EXISTS ? XC_EXIT_USAGE : XC_EXIT_OPERATIONAL;
			goto out;
		}
		ri.out_path = o->out;
		if (dg.have_in) {
			memcpy(ctx.sha256, dg.in, sizeof(ctx.sha256));
			ctx.have_sha256 = true;
		}
		if (dg.have_out) {
			memcpy(ri.out_sha256, dg.out, sizeof(ri.out_sha256));
			ri.have_out_sha = true;
		}
	}
	/* OUT is checked while its writeback runs (the check reads the same
	 * bytes from the page cache); nothing is called repaired before the
	 * sync says they are on the disk. */
	rc = check_output(o->out, &o->prep, &after, errs);
	srv = xr_output_sync(&pending, err, sizeof(err));
	if (srv) {
		fprintf(errs, "xfsrecon: %s\n", err);
		if (rc == 0)
			xa_ctx_release(&after);
		code = XC_EXIT_OPERATIONAL;
		goto out;
	}
	if (rc) {
		code = XC_EXIT_OPERATIONAL;
		goto out;
	}
	after_open = true;
	ri.after_checked = true;
	ri.after = &after;
	ri.after_errors = xa_findings_count(&after.findings, XSEV_ERROR);
	ri.after_warnings = after.findings.by_severity[XSEV_WARNING];
	if (ri.after_errors) {
		ri.result = "incomplete";
		code = XC_EXIT_LEFT;
		if (!o->quiet)
			xc_report_text_findings(out, &after);
	} else if (sum.errors == 0 && plan.nchanges == 0) {
		ri.result = "clean";
		code = XC_EXIT_CLEAN;
	} else {
		ri.result = "repaired";
		code = XC_EXIT_REPAIRED;
	}
	if (!o->quiet)
		print_evidence_notes(out, &plan);
	fprintf(out, "%s: %zu actions, %zu writes (%" PRIu64 " bytes), %zu orphans in lost+found; "
		"input had %" PRIu64 " errors, the output has %" PRIu64 "\n", ri.result, plan.nactions,
		plan.nchanges, xr_plan_bytes(&plan), plan.norphans, sum.errors, ri.after_errors);
	rc = finish_report(o, &ctx, &plan, &sum, &ri, errs);
	if (rc)
		code = rc == XERR_USAGE ? XC_EXIT_USAGE : XC_EXIT_OPERATIONAL;
out:
	if (after_open)
		xa_ctx_release(&after);
	xr_plan_release(&plan);
	xa_ctx_release(&ctx);
	return code;
}

int xc_run_repair(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xc_cmd_repair_opts ro = { 0 };

	(void)cmd;
	if (!a->out && !xc_has(a, XC_OPT_DRY_RUN)) {
		fprintf(stderr, "xfsrecon: repair needs -o OUT (or --dry-run)\n");
		return XC_EXIT_USAGE;
	}
	xc_prepare_opts_from_args(&ro.prep, a);
	ro.out = a->out;
	ro.report = a->report;
	ro.force = xc_has(a, XC_OPT_FORCE);
	ro.dry_run = xc_has(a, XC_OPT_DRY_RUN);
	ro.quiet = xc_has(a, XC_OPT_QUIET);
	ro.verbose = xc_has(a, XC_OPT_VERBOSE);
	ro.no_hash = xc_has(a, XC_OPT_NO_HASH);
	ro.verify_output = xc_has(a, XC_OPT_VERIFY_OUTPUT);
	return xc_cmd_repair(&ro, stdout, stderr);
}
