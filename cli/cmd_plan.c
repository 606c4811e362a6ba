/*
 * cmd_plan.c - the `plan` and `show-plan` commands (see cmd_plan.h).
 *
 * The index of a plan carries what the repair report carries (input,
 * summary, AG decisions, findings F1.., actions A1.. with the findings they
 * answer, orphans), written by the report's own code, plus what `apply`
 * needs: the filesystem's identity and, for every write, the SHA-256 of the
 * bytes there now and of the bytes to be written.  show-plan reads the
 * index back through the same verifying loader `apply` uses, so what is
 * reviewed is what would be applied.
 */
#include "config.h"

#include "cli/cmd_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/sha256.h"
#include "cli/cmd_repair.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "reconstruct/plan.h"
#include "reconstruct/plan_file.h"
#include "reconstruct/repair.h"
#include "reconstruct/repair_report.h"

/* ------------------------------------------------------------------ plan */

/* The payload and each change's digests, from the finished plan. */
static int collect(struct xa_ctx *ctx, const struct xr_plan *plan, struct xr_pf_change *pc,
		   uint8_t *payload)
{
	uint64_t used = 0;
	size_t maxlen = xr_plan_max_change(plan);
	uint8_t *cur = malloc(maxlen), *spilled = malloc(maxlen);
	int rc = 0;

	if (!cur || !spilled) {
		free(cur);
		free(spilled);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < plan->nchanges && !rc; i++) {
		const struct xr_change *c = &plan->changes[i];
		struct xr_pf_change *p = &pc[i];
		const uint8_t *bytes;

		memset(p, 0, sizeof(*p));
		p->offset = c->offset;
		p->len = c->len;
		p->payload_off = used;
		snprintf(p->structure, sizeof(p->structure), "%s", c->structure);
		p->agno = c->agno;
		p->agbno = c->agbno;
		p->ino = c->ino;
		p->action = c->action + 1;
		/* The bytes on disk (the evidence), not a replayed log's view of
		 * them: a target holds what the input holds; past the end of a
		 * truncated input, zeros (what repair reads there too). */
		rc = ximg_pread(xa_base_image(ctx), cur, c->len, c->offset);
		if (rc)
			break;
		xsha256(cur, c->len, p->before);
		bytes = xr_plan_change_bytes(plan, c, spilled);
		if (!bytes) {
			rc = XERR_IO;
			break;
		}
		xsha256(bytes, c->len, p->after);
		memcpy(payload + used, bytes, c->len);
		used += c->len;
	}
	free(cur);
	free(spilled);
	return rc;
}

/* Build the index of plan and save the file; id receives its identity. */
static int store(const struct xc_cmd_plan_opts *o, struct xa_ctx *ctx, const struct xr_plan *plan,
		 const struct xr_repair_summary *sum, const char *result, uint8_t id[32],
		 char *err, size_t errlen)
{
	struct ximg_out_opts guard = { .what = "the plan" };
	struct xr_report_info ri;
	struct xr_pf_change *pc = NULL;
	struct xr_pf_xml px;
	struct xr_pf_fs fs;
	uint64_t plen = xr_plan_bytes(plan);
	uint8_t *payload = NULL, psha[32];
	const uint8_t *index;
	size_t ilen;
	int rc;

	memset(&px, 0, sizeof(px));
	memset(&ri, 0, sizeof(ri));
	ri.result = result;
	memset(&fs, 0, sizeof(fs));
	memcpy(fs.uuid, ctx->sb.uuid, 16);
	fs.blocksize = ctx->geom.blocksize;
	fs.sectsize = ctx->geom.sectsize;
	fs.agblocks = ctx->geom.agblocks;
	fs.agcount = ctx->geom.agcount;
	fs.dblocks = ctx->geom.dblocks;
	fs.size = ctx->image_size;
	/* apply reads a stored plan back whole: it is bounded (plan.h) */
	if (plen > (plan->max_bytes ? plan->max_bytes : XR_PLAN_MAX_BYTES)) {
		rc = XERR_NOMEM;
		snprintf(err, errlen, "the plan writes %" PRIu64 " MiB, more than a stored plan may "
			 "hold (%" PRIu64 " MiB; XFSRECON_PLAN_MAX=MIB raises it)", plen >> 20,
			 (uint64_t)(plan->max_bytes ? plan->max_bytes : XR_PLAN_MAX_BYTES) >> 20);
		goto out;
	}
	pc = calloc(plan->nchanges ? plan->nchanges : 1, sizeof(*pc));
	payload = malloc(plen ? (size_t)plen : 1);
	if (!pc || !payload) {
		rc = XERR_NOMEM;
		snprintf(err, errlen, "out of memory storing the plan");
		goto out;
	}
	rc = collect(ctx, plan, pc, payload);
	if (rc) {
		snprintf(err, errlen, "%s: reading the bytes to be replaced: %s", o->prep.image,
			 xerr_str(rc));
		goto out;
	}
	xsha256(payload, (size_t)plen, psha);
	rc = xr_pf_xml_begin(&px, XR_PF_PLAN, &fs);
	if (rc) {
		snprintf(err, errlen, "out of memory building the plan index");
		goto out;
	}
	xa_xw_start(&px.x, "tool");
	xa_xw_attr(&px.x, "name", PACKAGE_NAME);
	xa_xw_attr(&px.x, "version", PACKAGE_VERSION);
	xa_xw_end(&px.x);
	xr_report_input(&px.x, ctx);
	xr_report_summary(&px.x, ctx, plan, sum, &ri);
	xr_pf_xml_payload(&px, plen, psha);
	xr_report_ags(&px.x, plan);
	xr_report_findings(&px.x, &ctx->findings, "findings");
	xr_report_actions(&px.x, plan);
	xa_xw_start(&px.x, "changes");
	xa_xw_attr_u64(&px.x, "count", plan->nchanges);
	xa_xw_attr_u64(&px.x, "bytes", plen);
	for (size_t i = 0; i < plan->nchanges && !px.x.failed; i++)
		xr_pf_xml_change(&px, &pc[i]);
	xa_xw_end(&px.x);
	xr_report_orphans(&px.x, plan);
	xr_report_reattached(&px.x, plan);
	xr_report_revived(&px.x, plan);
	xr_report_losses(&px.x, plan);
	rc = xr_pf_xml_end(&px, &index, &ilen);
	if (rc) {
		snprintf(err, errlen, "out of memory building the plan index");
		goto out;
	}
	guard.in_path[0] = ctx->image_path;
	guard.in_path[1] = ctx->logdev_path;
	guard.in_path[2] = ctx->rtdev_path;
	guard.in_fd = ximg_raw_fd(ctx->input);
	guard.in_fd_set = guard.in_fd >= 0;
	rc = xr_pf_save(o->out, XR_PF_PLAN, index, ilen, payload, plen, o->force, &guard, id, err,
			errlen);
out:
	xr_pf_xml_free(&px);
	free(pc);
	free(payload);
	return rc;
}

int xc_cmd_plan(const struct xc_cmd_plan_opts *o, FILE *out, FILE *errs)
{
	struct xc_prepare_opts po = o->prep;  /* a plan hashes nothing */
	struct xr_repair_summary sum;
	struct xr_plan plan;
	struct xa_ctx ctx;
	const char *result;
	uint8_t id[32];
	char err[512] = "", hex[65];
	int rc, code;

	code = xc_repair_prepare(&po, &ctx, &plan, &sum, errs);
	if (code)
		return code;
	if (sum.refused) {
		xc_say_dirty_log_refused(errs, o->prep.image, "No plan written.");
		code = XC_EXIT_LEFT;
		goto out;
	}
	result = sum.errors == 0 && plan.nchanges == 0 ? "clean" :
		 sum.answered == sum.errors ? "planned" : "incomplete";
	rc = store(o, &ctx, &plan, &sum, result, id, err, sizeof(err));
	if (rc) {
		fprintf(errs, "xfsrecon: %s\n", err);
		code = rc == XERR_EXISTS ? XC_EXIT_USAGE : rc == XERR_USAGE ? XC_EXIT_USAGE
								     : XC_EXIT_OPERATIONAL;
		if (rc == XERR_EXISTS)
			fprintf(errs, "xfsrecon: --force replaces it\n");
		goto out;
	}
	xsha256_hex(id, hex);
	if (!o->quiet)
		fprintf(out, "plan %s written to %s\n", hex, o->out);
	fprintf(out, "plan: %zu actions, %zu writes (%" PRIu64 " bytes), %zu orphans to lost+found; "
		"%" PRIu64 " of %" PRIu64 " errors answered\n", plan.nactions, plan.nchanges,
		xr_plan_bytes(&plan), plan.norphans, sum.answered, sum.errors);
	code = !strcmp(result, "clean") ? XC_EXIT_CLEAN :
	       !strcmp(result, "planned") ? XC_EXIT_REPAIRED : XC_EXIT_LEFT;
out:
	xr_plan_release(&plan);
	xa_ctx_release(&ctx);
	return code;
}

/* ------------------------------------------------------------- show-plan */

/* Print s with every control byte as '?' (an index is input). */
static void put_safe(FILE *out, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* Attribute value (or "" when absent), copied into buf. */
static const char *get(xmlTextReaderPtr r, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlTextReaderGetAttribute(r, xa_xc(name));

	snprintf(buf, len, "%s", v ? (const char *)v : "");
	xmlFree(v);
	return buf;
}

/* A heading before the first element of each section. */
static void section(FILE *out, const char **last, const char *name, const char *title)
{
	if (*last && !strcmp(*last, name))
		return;
	*last = name;
	fprintf(out, "\n%s:\n", title);
}

/* show_element's walk: the changes as loaded, in index order. */
struct show {
	const struct xr_planfile *pf;
	size_t                    nchange;
};

static void show_element(FILE *out, xmlTextReaderPtr r, const char *name, const char **last,
			 struct show *sh)
{
	char a[7][1024];

	if (!strcmp(name, "filesystem")) {
		fprintf(out, "filesystem %s: %s-byte blocks, %s blocks, %s AGs of %s blocks "
			"(%s bytes)\n", get(r, "uuid", a[0], sizeof(a[0])), get(r, "blocksize", a[1], sizeof(a[1])),
			get(r, "dblocks", a[2], sizeof(a[2])), get(r, "agcount", a[3], sizeof(a[3])),
			get(r, "agblocks", a[4], sizeof(a[4])), get(r, "size", a[5], sizeof(a[5])));
	} else if (!strcmp(name, "input")) {
		fprintf(out, "planned from ");
		put_safe(out, get(r, "path", a[0], sizeof(a[0])));
		fprintf(out, " (%s bytes)\n", get(r, "size", a[1], sizeof(a[1])));
	} else if (!strcmp(name, "undoes")) {
		fprintf(out, "undoes plan %s\n", get(r, "plan", a[0], sizeof(a[0])));
	} else if (!strcmp(name, "summary")) {
		fprintf(out, "summary: %s; %s errors in the input, %s answered; %s actions, %s writes "
			"(%s bytes change), ", get(r, "result", a[0], sizeof(a[0])), get(r, "errors", a[1], sizeof(a[1])),
			get(r, "answered", a[2], sizeof(a[2])), get(r, "actions", a[3], sizeof(a[3])),
			get(r, "changes", a[4], sizeof(a[4])), get(r, "bytes-changed", a[5], sizeof(a[5])));
		fprintf(out, "%s orphans to lost+found, %s AGs rebuilt, %s inodes cleared, %s mended\n",
			get(r, "orphans", a[0], sizeof(a[0])), get(r, "ags-rebuilt", a[1], sizeof(a[1])),
			get(r, "inodes-cleared", a[2], sizeof(a[2])), get(r, "inodes-fixed", a[3], sizeof(a[3])));
	} else if (!strcmp(name, "ag")) {
		section(out, last, name, "allocation groups");
		fprintf(out, "  AG %s: ", get(r, "no", a[0], sizeof(a[0])));
		put_safe(out, get(r, "decision", a[1], sizeof(a[1])));
		fprintf(out, " (inode chunks from ");
		put_safe(out, get(r, "inode-chunks-from", a[2], sizeof(a[2])));
		fprintf(out, "; believed ");
		put_safe(out, get(r, "believed", a[3], sizeof(a[3])));
		fprintf(out, ")\n");
	} else if (!strcmp(name, "finding")) {
		xmlChar *text = xmlTextReaderReadString(r);

		section(out, last, name, "findings");
		fprintf(out, "  %s [", get(r, "ref", a[0], sizeof(a[0])));
		put_safe(out, get(r, "id", a[1], sizeof(a[1])));
		fprintf(out, "] %s: ", get(r, "severity", a[2], sizeof(a[2])));
		/* where, as check's text says it: AG, block, inode, structure, byte */
		{
			const char *sep = "";

			if (*get(r, "ag", a[3], sizeof(a[3]))) {
				fprintf(out, "ag %s", a[3]);
				sep = " ";
			}
			if (*get(r, "agbno", a[4], sizeof(a[4]))) {
				fprintf(out, "%sblock %s", sep, a[4]);
				sep = " ";
			}
			if (*get(r, "ino", a[5], sizeof(a[5]))) {
				fprintf(out, "%sinode %s", sep, a[5]);
				sep = " ";
			}
			if (*get(r, "structure", a[6], sizeof(a[6]))) {
				fputs(sep, out);
				put_safe(out, a[6]);
				sep = " ";
			}
			if (*get(r, "byte", a[3], sizeof(a[3]))) {
				fprintf(out, "%s@%s", sep, a[3]);
				sep = " ";
			}
			if (*sep)
				fprintf(out, ": ");
		}
		put_safe(out, (const char *)text);
		fputc('\n', out);
		xmlFree(text);
	} else if (!strcmp(name, "action")) {
		xmlChar *text = xmlTextReaderReadString(r);
		xmlChar *ans = xmlTextReaderGetAttribute(r, xa_xc("answers"));

		section(out, last, name, "actions");
		fprintf(out, "  %s ", get(r, "id", a[0], sizeof(a[0])));
		put_safe(out, get(r, "kind", a[1], sizeof(a[1])));
		fprintf(out, ": ");
		put_safe(out, (const char *)text);
		if (ans) {
			fprintf(out, "\n      answers ");
			put_safe(out, (const char *)ans);
		}
		fputc('\n', out);
		xmlFree(text);
		xmlFree(ans);
	} else if (!strcmp(name, "change")) {
		section(out, last, name, "writes (before -> after SHA-256)");
		fprintf(out, "  %s bytes at byte %s (", get(r, "length", a[0], sizeof(a[0])),
			get(r, "offset", a[1], sizeof(a[1])));
		put_safe(out, get(r, "structure", a[2], sizeof(a[2])));
		if (*get(r, "ag", a[3], sizeof(a[3])))
			fprintf(out, ", AG %s block %s", a[3], get(r, "agbno", a[4], sizeof(a[4])));
		if (*get(r, "ino", a[5], sizeof(a[5])))
			fprintf(out, ", inode %s", a[5]);
		if (*get(r, "action", a[6], sizeof(a[6])))
			fprintf(out, ") for %s", a[6]);
		else
			fprintf(out, ")");
		/* Loaded and parsed in the same order: change k is changes[k]. */
		if (sh->nchange < sh->pf->nchanges && sh->pf->changes[sh->nchange].outside)
			fprintf(out, " OUTSIDE THE FILESYSTEM (%" PRIu64 " bytes): apply refuses it",
				sh->pf->fs.dblocks * sh->pf->fs.blocksize);
		fputc('\n', out);
		sh->nchange++;
		fprintf(out, "      %s -> %s\n", get(r, "before", a[0], sizeof(a[0])), get(r, "after", a[1], sizeof(a[1])));
	} else if (!strcmp(name, "orphan")) {
		section(out, last, name, "moved to lost+found");
		fprintf(out, "  inode %s (%s, %s bytes) -> ", get(r, "ino", a[0], sizeof(a[0])),
			get(r, "type", a[1], sizeof(a[1])), get(r, "size", a[2], sizeof(a[2])));
		put_safe(out, get(r, "new-path", a[3], sizeof(a[3])));
		if (*get(r, "original-name", a[4], sizeof(a[4]))) {
			fprintf(out, ", was \"");
			put_safe(out, a[4]);
			fprintf(out, "\"");
		}
		if (*get(r, "parent", a[5], sizeof(a[5])))
			fprintf(out, " in directory %s", a[5]);
		fputc('\n', out);
	}
}

int xc_cmd_show_plan(const char *path, const char *xml_path, FILE *out, FILE *errs)
{
	struct xr_planfile pf;
	xmlTextReaderPtr r;
	const char *last = NULL;
	struct show sh = { &pf, 0 };
	char err[512], hex[65];
	size_t outside;
	int rc, st;

	rc = xr_pf_load_review(path, 0, &pf, err, sizeof(err));
	if (rc) {
		fprintf(errs, "xfsrecon: %s\n", err);
		return rc == XERR_USAGE ? XC_EXIT_USAGE : XC_EXIT_OPERATIONAL;
	}
	if (xml_path) {
		fflush(out);
		rc = xa_xml_save(path, -1, xml_path, (const uint8_t *)pf.index, pf.index_len, err,
				 sizeof(err));
		if (rc)
			fprintf(errs, "xfsrecon: %s\n", err);
		outside = pf.noutside;
		xr_pf_release(&pf);
		return rc == XERR_USAGE || rc == XERR_EXISTS ? XC_EXIT_USAGE : rc ? XC_EXIT_OPERATIONAL
			: outside ? XC_EXIT_LEFT : XC_EXIT_CLEAN;
	}
	xsha256_hex(pf.id, hex);
	fprintf(out, "%s %s: %zu writes, %" PRIu64 " bytes\n",
		pf.kind == XR_PF_PLAN ? "plan" : "undo file", hex, pf.nchanges, pf.payload_len);
	if (pf.noutside)
		fprintf(out, "WARNING: %zu writes reach outside the filesystem (past byte %" PRIu64
			"): apply and undo refuse this file\n", pf.noutside,
			pf.fs.dblocks * pf.fs.blocksize);
	/* The index was verified and parsed once already; this walk only prints. */
	r = xmlReaderForMemory(pf.index, (int)pf.index_len, NULL, "UTF-8", XML_PARSE_NONET);
	if (!r) {
		xr_pf_release(&pf);
		fprintf(errs, "xfsrecon: out of memory\n");
		return XC_EXIT_OPERATIONAL;
	}
	xr_pf_reader_quiet(r);
	while ((st = xmlTextReaderRead(r)) == 1)
		if (xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT)
			show_element(out, r, (const char *)xmlTextReaderConstName(r), &last, &sh);
	xmlFreeTextReader(r);
	outside = pf.noutside;
	xr_pf_release(&pf);
	if (fflush(out) != 0 || st != 0) {
		fprintf(errs, "xfsrecon: %s: cannot print the plan\n", path);
		return XC_EXIT_OPERATIONAL;
	}
	return outside ? XC_EXIT_LEFT : XC_EXIT_CLEAN;
}

int xc_run_plan(const struct xc_command *cmd, const struct xc_args *a)
{
	struct xc_cmd_plan_opts po = { 0 };

	(void)cmd;
	if (!a->out) {
		fprintf(stderr, "xfsrecon: plan needs -o PLAN\n");
		return XC_EXIT_USAGE;
	}
	xc_prepare_opts_from_args(&po.prep, a);
	po.out = a->out;
	po.force = xc_has(a, XC_OPT_FORCE);
	po.quiet = xc_has(a, XC_OPT_QUIET);
	return xc_cmd_plan(&po, stdout, stderr);
}

int xc_run_show_plan(const struct xc_command *cmd, const struct xc_args *a)
{
	(void)cmd;
	return xc_cmd_show_plan(a->words[1], a->xml, stdout, stderr);
}
