/*
 * cmd_common.c - opening and running an image for the commands that read one.
 */
#include "cli/cmd_common.h"

#include <inttypes.h>
#include <stdio.h>

#include "analyzer/errors.h"
#include "cli/exit_codes.h"
#include "analyzer/io/sha256.h"
#include "cli/views/report_text.h"

int xc_exit_for_error(int xerr)
{
	return xerr == XERR_USAGE ? XC_EXIT_USAGE : XC_EXIT_OPERATIONAL;
}

void xc_progress_cb(void *arg, const char *pass, uint32_t agno, uint32_t nags)
{
	(void)arg;
	if (agno == UINT32_MAX)
		fprintf(stderr, "xfsrecon: %s\n", pass);
	else
		fprintf(stderr, "xfsrecon: %s: AG %" PRIu32 " of %" PRIu32 "\n", pass, agno + 1, nags);
}

/* One line per tenth of the input hashed: a script can follow it too. */
static void hash_progress(void *arg, uint64_t done, uint64_t total)
{
	unsigned *last = arg;
	unsigned tenth = total ? (unsigned)(done * 10 / total) : 10;

	if (tenth == *last)
		return;
	*last = tenth;
	fprintf(stderr, "xfsrecon: hashing the input: %u%% (%" PRIu64 " of %" PRIu64 " MiB)\n",
		tenth * 10, done >> 20, total >> 20);
}

void xc_hash_input(struct xa_ctx *ctx, bool progress)
{
	unsigned last = 0;

	if (ximg_sha256_progress(ctx->input, ctx->sha256, progress ? hash_progress : NULL,
				 &last) == 0)
		ctx->have_sha256 = true;
}

int xc_ctx_run(const struct xc_args *a, unsigned mode, bool keep_ownership,
	       bool findings_if_not_xfs, struct xa_ctx *ctx)
{
	struct xa_options opts = { 0 };
	const char *image = a->words[1];
	char err[512];
	int rc;

	opts.keep_ownership = keep_ownership;
	opts.cache_bytes = a->cache_bytes;
	opts.jobs = a->jobs;
	opts.no_replay = xc_has(a, XC_OPT_NO_REPLAY);
	if (xc_has(a, XC_OPT_PROGRESS))
		opts.progress = xc_progress_cb;
	rc = xa_ctx_open(ctx, image, &a->io, &opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xfsrecon: %s\n", err);
		return xc_exit_for_error(rc);
	}
	rc = xa_run(ctx, mode);
	if (rc == XERR_NOTXFS || (rc == 0 && ctx->geom_source == XA_GEOM_NONE)) {
		fprintf(stderr, "xfsrecon: %s: not an XFS filesystem (no usable superblock)\n", image);
		if (findings_if_not_xfs)
			xc_report_text_findings(stdout, ctx);
		xa_ctx_release(ctx);
		return XC_EXIT_OPERATIONAL;
	}
	if (rc) {
		fprintf(stderr, "xfsrecon: %s: %s\n", image, xerr_str(rc));
		xa_ctx_release(ctx);
		return XC_EXIT_OPERATIONAL;
	}
	return 0;
}

int xc_exit_after(int rc)
{
	if (fflush(stdout) != 0 && !rc)
		rc = XERR_IO;
	return rc ? xc_exit_for_error(rc) : XC_EXIT_CLEAN;
}
