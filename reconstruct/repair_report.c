/*
 * repair_report.c - the repair's XML report (see repair_report.h).
 *
 * Identifiers tie the parts together: findings are F1..Fn in the order the
 * planner sorted them, actions A1..Am in the order planned; an action lists
 * the findings it answers, a change names its action.  Like the check
 * report, the document is built in memory and written only when complete,
 * with nothing volatile in it.
 */
#include "config.h"

#include "reconstruct/repair_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/report/escape.h"
#include "analyzer/report/xml_writer.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair.h"

static const char *type_name(uint16_t mode)
{
	switch (mode & 0170000u) {
	case 0040000u: return "directory";
	case 0100000u: return "regular";
	case 0120000u: return "symlink";
	case 0020000u: return "chardev";
	case 0060000u: return "blockdev";
	case 0010000u: return "fifo";
	case 0140000u: return "socket";
	default:       return "unknown";
	}
}

void xr_report_input(struct xa_xw *x, const struct xa_ctx *ctx)
{
	const char *path = ctx->image_path ? ctx->image_path : "";

	xa_xw_start(x, "input");
	xa_xw_attr_bytes(x, "path", path, strlen(path));
	xa_xw_attr_u64(x, "size", ctx->input->size);
	if (ctx->have_sha256)
		xa_xw_attr_sha256(x, "sha256", ctx->sha256);
	if (ctx->input && ctx->input->ops && ctx->input->ops->kind)
		xa_xw_attr(x, "kind", ctx->input->ops->kind);
	xa_xw_end(x);
}

static void write_output(struct xa_xw *x, const struct xr_report_info *ri)
{
	if (!ri->out_path)
		return;
	xa_xw_start(x, "output");
	xa_xw_attr_bytes(x, "path", ri->out_path, strlen(ri->out_path));
	if (ri->have_out_sha)
		xa_xw_attr_sha256(x, "sha256", ri->out_sha256);
	xa_xw_end(x);
}

void xr_report_summary(struct xa_xw *x, const struct xa_ctx *ctx, const struct xr_plan *plan,
		       const struct xr_repair_summary *sum, const struct xr_report_info *ri)
{
	xa_xw_start(x, "summary");
	xa_xw_attr(x, "result", ri->result);
	xa_xw_attr_u64(x, "findings", ctx->findings.count);
	xa_xw_attr_u64(x, "errors", sum->errors);
	xa_xw_attr_u64(x, "answered", sum->answered);
	xa_xw_attr_u64(x, "actions", plan->nactions);
	xa_xw_attr_u64(x, "changes", plan->nchanges);
	xa_xw_attr_u64(x, "bytes-changed", xr_plan_bytes(plan));
	xa_xw_attr_u64(x, "orphans", plan->norphans);
	xa_xw_attr_u64(x, "ags-rebuilt", sum->ags_rebuilt);
	xa_xw_attr_u64(x, "ags-blocked", sum->ags_blocked);
	xa_xw_attr_u64(x, "inodes-cleared", sum->inodes_cleared);
	xa_xw_attr_u64(x, "inodes-fixed", sum->inodes_fixed);
	xa_xw_attr_bool(x, "dirty-log", sum->dirty_log);
	xa_xw_end(x);
}

void xr_report_findings(struct xa_xw *x, const struct xa_findings *f, const char *element)
{
	char ref[32];

	xa_xw_start(x, element);
	xa_xw_attr_u64(x, "count", f->count);
	xa_xw_attr_u64(x, "errors", f->by_severity[XSEV_ERROR]);
	xa_xw_attr_u64(x, "warnings", f->by_severity[XSEV_WARNING]);
	xa_xw_attr_u64(x, "dropped", f->dropped);
	for (size_t i = 0; i < f->count && !x->failed; i++) {
		snprintf(ref, sizeof(ref), "F%zu", i + 1);
		xa_xw_finding(x, &f->items[i], ref);
	}
	xa_xw_end(x);
}

void xr_report_actions(struct xa_xw *x, const struct xr_plan *plan)
{
	xa_xw_start(x, "actions");
	for (size_t i = 0; i < plan->nactions && !x->failed; i++) {
		const struct xr_action *a = &plan->actions[i];
		char id[32];

		snprintf(id, sizeof(id), "A%zu", i + 1);
		xa_xw_start(x, "action");
		xa_xw_attr(x, "id", id);
		xa_xw_attr(x, "kind", xr_action_name(a->kind));
		if (a->agno != XR_NO_AG)
			xa_xw_attr_u64(x, "ag", a->agno);
		if (a->ino)
			xa_xw_attr_u64(x, "ino", a->ino);
		if (a->nfindings) {
			/* "F1 F7 F9": an IDREFS list */
			size_t cap = a->nfindings * 22 + 1, pos = 0;
			char *list = malloc(cap);

			if (!list) {
				x->failed = true;
				break;
			}
			for (size_t k = 0; k < a->nfindings; k++)
				pos += (size_t)snprintf(list + pos, cap - pos, "%sF%zu", k ? " " : "",
							a->findings[k] + 1);
			xa_xw_attr(x, "answers", list);
			free(list);
		}
		if (!x->failed) {
			char *safe = xa_escape_text(a->text, strlen(a->text));

			if (!safe)
				x->failed = true;
			else
				xa_xw_check(x, xmlTextWriterWriteString(x->w, xa_xc(safe)));
			free(safe);
		}
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

static void write_changes(struct xa_xw *x, const struct xr_plan *plan)
{
	xa_xw_start(x, "changes");
	xa_xw_attr_u64(x, "count", plan->nchanges);
	xa_xw_attr_u64(x, "bytes", xr_plan_bytes(plan));
	for (size_t i = 0; i < plan->nchanges && !x->failed; i++) {
		const struct xr_change *c = &plan->changes[i];
		char id[32];

		snprintf(id, sizeof(id), "A%" PRIu32, c->action + 1);
		xa_xw_start(x, "change");
		xa_xw_attr_u64(x, "offset", c->offset);
		xa_xw_attr_u64(x, "length", c->len);
		xa_xw_attr(x, "structure", c->structure);
		if (c->agno != XR_NO_AG) {
			xa_xw_attr_u64(x, "ag", c->agno);
			xa_xw_attr_u64(x, "agbno", c->agbno);
		}
		if (c->ino)
			xa_xw_attr_u64(x, "ino", c->ino);
		xa_xw_attr(x, "action", id);
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

void xr_report_orphans(struct xa_xw *x, const struct xr_plan *plan)
{
	xa_xw_start(x, "orphans");
	xa_xw_attr_u64(x, "count", plan->norphans);
	for (size_t i = 0; i < plan->norphans && !x->failed; i++) {
		const struct xr_orphan *o = &plan->orphans[i];

		xa_xw_start(x, "orphan");
		xa_xw_attr_u64(x, "ino", o->ino);
		xa_xw_attr(x, "type", type_name(o->mode));
		xa_xw_attr_u64(x, "size", o->size);
		if (o->parent)
			xa_xw_attr_u64(x, "parent", o->parent);
		if (o->orig_name)
			xa_xw_attr_bytes(x, "original-name", o->orig_name, o->orig_namelen);
		if (o->new_path)
			xa_xw_attr_bytes(x, "new-path", o->new_path, strlen(o->new_path));
		if ((o->mode & 0170000u) == 0040000u) {
			xa_xw_attr_u64(x, "entries", o->entries);
			xa_xw_attr_u64(x, "descendants", o->descendants);
		}
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

void xr_report_reattached(struct xa_xw *x, const struct xr_plan *plan)
{
	if (!plan->nreattached)
		return;
	xa_xw_start(x, "reattached");
	xa_xw_attr_u64(x, "count", plan->nreattached);
	for (size_t i = 0; i < plan->nreattached && !x->failed; i++) {
		const struct xr_reattached *r = &plan->reattached[i];

		xa_xw_start(x, "entry");
		xa_xw_attr_u64(x, "dir", r->dir);
		xa_xw_attr_u64(x, "ino", r->ino);
		xa_xw_attr_bytes(x, "name", (const char *)r->name, r->namelen);
		xa_xw_attr(x, "source", r->source);
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

void xr_report_revived(struct xa_xw *x, const struct xr_plan *plan)
{
	if (!plan->nrevived)
		return;
	xa_xw_start(x, "revived");
	xa_xw_attr_u64(x, "count", plan->nrevived);
	for (size_t i = 0; i < plan->nrevived && !x->failed; i++) {
		const struct xr_revived *r = &plan->revived[i];

		xa_xw_start(x, "inode");
		xa_xw_attr_u64(x, "ino", r->ino);
		xa_xw_attr(x, "type", type_name(r->mode));
		xa_xw_attr(x, "source", r->source);
		if (r->lsn)
			xa_xw_attr_u64(x, "lsn", r->lsn);
		xa_xw_attr(x, "recovered", r->recovered);
		xa_xw_attr(x, "synthesized", r->synthesized);
		xa_xw_attr(x, "lost", r->lost);
		if (r->size_from) {
			xa_xw_attr_u64(x, "size", r->size);
			xa_xw_attr(x, "size-from", r->size_from);
		}
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

void xr_report_losses(struct xa_xw *x, const struct xr_plan *plan)
{
	if (!plan->nlosses)
		return;
	xa_xw_start(x, "losses");
	xa_xw_attr_u64(x, "count", plan->nlosses);
	for (size_t i = 0; i < plan->nlosses && !x->failed; i++) {
		const struct xr_loss *l = &plan->losses[i];

		xa_xw_start(x, "loss");
		xa_xw_attr_u64(x, "ino", l->ino);
		xa_xw_attr(x, "fork", (l->flags & XA_OWN_BMBT) ? "bmbt"
				      : (l->flags & XA_OWN_ATTR) ? "attr" : "data");
		xa_xw_attr_u64(x, "blocks", l->blocks);
		xa_xw_attr_u64(x, "first-byte", l->first_byte);
		xa_xw_attr(x, "why", "missing-tail");
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

void xr_report_ags(struct xa_xw *x, const struct xr_plan *plan)
{
	xa_xw_start(x, "ags");
	xa_xw_attr_u64(x, "count", plan->nag_notes);
	for (size_t i = 0; i < plan->nag_notes && !x->failed; i++) {
		const struct xr_ag_note *n = &plan->ag_notes[i];

		xa_xw_start(x, "ag");
		xa_xw_attr_u64(x, "no", n->agno);
		xa_xw_attr(x, "decision", n->decision);
		xa_xw_attr(x, "inode-chunks-from", n->chunks);
		xa_xw_attr(x, "believed", n->believed);
		xa_xw_end(x);
	}
	xa_xw_end(x);
}

static void write_after(struct xa_xw *x, const struct xr_report_info *ri)
{
	if (!ri->after_checked)
		return;
	xa_xw_start(x, "output-check");
	xa_xw_attr_u64(x, "errors", ri->after_errors);
	xa_xw_attr_u64(x, "warnings", ri->after_warnings);
	if (ri->after)
		xr_report_findings(x, &ri->after->findings, "findings");
	xa_xw_end(x);
}

int xr_repair_report_write(const struct xa_ctx *ctx, const struct xr_plan *plan,
			   const struct xr_repair_summary *sum, const struct xr_report_info *ri,
			   const char *path, char *err, size_t errlen)
{
	xmlBufferPtr buf = xmlBufferCreate();
	struct xa_xw x = { NULL, false };
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!buf) {
		snprintf(err, errlen, "out of memory building the repair report");
		return XERR_NOMEM;
	}
	xmlBufferSetAllocationScheme(buf, XML_BUFFER_ALLOC_DOUBLEIT);
	x.w = xmlNewTextWriterMemory(buf, 0);
	if (!x.w) {
		xmlBufferFree(buf);
		snprintf(err, errlen, "out of memory building the repair report");
		return XERR_NOMEM;
	}
	xa_xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
	xa_xw_check(&x, xmlTextWriterSetIndentString(x.w, xa_xc("  ")));
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
	xa_xw_start(&x, "xfsrecon-repair");
	xa_xw_attr(&x, "version", "1");
	xa_xw_start(&x, "tool");
	xa_xw_attr(&x, "name", PACKAGE_NAME);
	xa_xw_attr(&x, "version", PACKAGE_VERSION);
	xa_xw_end(&x);
	xr_report_input(&x, ctx);
	write_output(&x, ri);
	xr_report_summary(&x, ctx, plan, sum, ri);
	xr_report_ags(&x, plan);
	xr_report_findings(&x, &ctx->findings, "findings");
	xr_report_actions(&x, plan);
	write_changes(&x, plan);
	xr_report_orphans(&x, plan);
	xr_report_reattached(&x, plan);
	xr_report_revived(&x, plan);
	xr_report_losses(&x, plan);
	write_after(&x, ri);
	xa_xw_end(&x);
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterEndDocument(x.w));
	if (!x.failed)
		xa_xw_check(&x, xmlTextWriterFlush(x.w));
	xmlFreeTextWriter(x.w);
	if (x.failed) {
		snprintf(err, errlen, "out of memory building the repair report");
		rc = XERR_NOMEM;
	} else {
		rc = xa_xml_save(ctx->image_path, ximg_raw_fd(ctx->input), path,
				 xmlBufferContent(buf), (size_t)xmlBufferLength(buf), err, errlen);
	}
	xmlBufferFree(buf);
	return rc;
}
