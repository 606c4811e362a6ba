/*
 * main.c - the xfsrecon command line.  Parses options, runs the engine and
 * picks the exit code; everything else lives in the engine and the reports.
 *
 * Exit codes follow fsck: 0 clean, 4 problems found and left, 8 operational
 * error (I/O, memory, not XFS, truncated image), 16 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "analyzer/cli_number.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/sha256.h"
#include "analyzer/report/report_text.h"
#include "analyzer/report/report_xml.h"
#include "analyzer/views/bodyfile.h"
#include "analyzer/views/extract.h"
#include "analyzer/views/files.h"
#include "analyzer/views/fsmap.h"
#include "analyzer/views/loglist.h"
#include "analyzer/views/ls.h"
#include "analyzer/views/map.h"
#include "analyzer/views/show.h"
#include "reconstruct/apply.h"
#include "reconstruct/cmd_plan.h"
#include "reconstruct/cmd_repair.h"

enum {
	EXIT_CLEAN = 0,
	EXIT_PROBLEMS_LEFT = 4,
	EXIT_OPERATIONAL = 8,
	EXIT_USAGE = 16,
};

struct cli {
	const char *command;
	const char *image;
	const char *xml;
	bool        annotate;
	bool        json;
	const char *show_as;
	bool        progress;
	bool        quiet;
	bool        no_hash;
	const char *dest;
	bool        ls_long;
	bool        ls_recursive;
	bool        ls_deleted;
	bool        ls_null;
	bool        xfs_db_format;
	bool        forward;
	const char *out;
	const char *report;
	bool        force;
	bool        dry_run;
	bool        zero_log;
	bool        html;
	bool        have_ag;
	uint32_t    ag;
	bool        no_replay;
	bool        log_only;
	const char *undo;
	struct ximg_open_opts io;
	int         nargs;
	char      **args;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xfsrecon COMMAND [OPTIONS] IMAGE [ARGS]\n"
		"\n"
		"commands:\n"
		"  info IMAGE              geometry, features, log state, per-AG summary\n"
		"  check IMAGE             verify every structure; fsck-style exit code\n"
		"  show IMAGE WHAT         structures field by field (offset, size, value, meaning,\n"
		"                          verdict); WHAT is sb [AG] | agf AG | agi AG | agfl AG |\n"
		"                          inode INO | block AG/AGBNO | btree AG TREE (bnobt, cntbt,\n"
		"                          inobt, finobt, rmapbt, refcountbt: the whole tree) |\n"
		"                          btree AG AGBNO | dir PATH|INODE | attr PATH|INODE |\n"
		"                          path PATH | log\n"
		"  stat IMAGE INODE        every inode field and the fork mappings\n"
		"  cat IMAGE INODE         the file's exact bytes to standard output\n"
		"  ls IMAGE [PATH]         list a directory (-l long, -R recursive)\n"
		"  extract IMAGE [PATH] -C DIR   copy files out into DIR (default PATH: /)\n"
		"  bodyfile IMAGE          every path as a Sleuth Kit body line (mactime input)\n"
		"  fsmap IMAGE             who owns which blocks: the rmapbt, or the forward map\n"
		"  repair IMAGE -o OUT     write a repaired copy of the filesystem to OUT\n"
		"  map IMAGE -o FILE       SVG picture of who owns every block (--ag N, --html)\n"
		"  plan IMAGE -o PLAN      store the repair of IMAGE as a reviewable plan\n"
		"  show-plan PLAN          print a plan or undo file (--xml FILE: its XML index)\n"
		"  apply PLAN TARGET       write the plan into TARGET in place, after verifying\n"
		"                          every block it overwrites (--undo UNDO, --dry-run)\n"
		"  undo UNDO TARGET        put back the bytes an apply replaced\n"
		"\n"
		"options:\n"
		"  --xml FILE              (check) also write the XML report to FILE\n"
		"  --no-hash               (check) do not compute the image's SHA-256\n"
		"  --offset BYTES          the filesystem starts at this byte of the image (apply,\n"
		"                          undo: of TARGET)\n"
		"  --partition N           use partition N of a whole-disk image\n"
		"  --annotate              (show) explain each field: offset, size, raw bytes, meaning\n"
		"  --json                  (show) one JSON document instead of text\n"
		"  --as TYPE               (show block) read the block as TYPE (bnobt ... bmbt, dir3,\n"
		"                          attr3, symlink, inode, sb) instead of going by its magic\n"
		"  --progress              report progress on standard error\n"
		"  -q, --quiet             (check) print only the summary line\n"
		"  -C, --directory DIR     (extract) the host directory to extract into\n"
		"  -l, --long              (ls) inode, type and mode, links, owner, size, mtime\n"
		"  -R, --recursive         (ls) every path below, one per line\n"
		"  --deleted               (ls) also names of deleted entries still in the blocks\n"
		"  -0, --null              (ls) names as stored, each entry ended by a NUL byte\n"
		"  --xfs-db                (fsmap) lines exactly as xfs_db's fsmap prints them\n"
		"  --forward               (fsmap) the map built from primary metadata, not the rmapbt\n"
		"                          (always so on a filesystem without an rmapbt)\n"
		"  -o, --output OUT        (repair) the repaired image to write (never the input);\n"
		"                          (map) the picture to write\n"
		"  --ag N                  (map) draw AG N alone, at a finer resolution\n"
		"  --html                  (map) an HTML page with the picture and per-AG tables\n"
		"  --report FILE           (repair) the XML report: changes, orphans, hashes\n"
		"  --force                 (repair, map) overwrite an existing OUT (or follow a\n"
		"                          symlink there; never the input or its aliases)\n"
		"  --dry-run               (repair) print the plan, write nothing;\n"
		"                          (apply) verify TARGET, write nothing\n"
		"  --zero-log              (repair) discard a dirty log, as xfs_repair -L does\n"
		"                          (-o, --force and --zero-log also serve plan)\n"
		"  --no-replay             analyse the state on disk: do not replay a dirty log\n"
		"                          (by default it is replayed in memory, and into OUT)\n"
		"  --log-only              (info, check) list the dirty log's transactions: LSN,\n"
		"                          items, the inodes and blocks each touched\n"
		"  --undo UNDO             (apply) write the old bytes to UNDO before writing\n"
		"                          (or resume an interrupted apply that wrote UNDO)\n"
		"  -h, --help              this text;  --version  the version\n"
		"\n"
		"The image is only ever opened read-only.\n"
		"exit codes: 0 clean, 1 problems repaired (repair), 4 problems found or left,\n"
		"            8 operational error, 16 usage error\n");
}

/* Codes of long options without a short letter: past every char, so a new
 * option cannot collide with a letter another one uses. */
enum { OPT_LOG_ONLY = 0x100, OPT_UNDO };

static int parse_cli(int argc, char **argv, struct cli *c)
{
	static const struct option longopts[] = {
		{ "xml", required_argument, NULL, 'x' },
		{ "no-hash", no_argument, NULL, 'H' },
		{ "offset", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "zero-log", no_argument, NULL, 'L' },
		{ "no-replay", no_argument, NULL, 'Z' },
		{ "log-only", no_argument, NULL, OPT_LOG_ONLY },
		{ "undo", required_argument, NULL, OPT_UNDO },
		{ "partition", required_argument, NULL, 'p' },
		{ "annotate", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },
		{ "as", required_argument, NULL, 'S' },
		{ "progress", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "long", no_argument, NULL, 'l' },
		{ "directory", required_argument, NULL, 'C' },
		{ "recursive", no_argument, NULL, 'R' },
		{ "deleted", no_argument, NULL, 'D' },
		{ "null", no_argument, NULL, '0' },
		{ "xfs-db", no_argument, NULL, 'X' },
		{ "forward", no_argument, NULL, 'F' },
		{ "ag", required_argument, NULL, 'G' },
		{ "html", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(c, 0, sizeof(*c));
	while ((opt = getopt_long(argc, argv, "qhlRC:0o:", longopts, NULL)) != -1) {
		uint64_t v;

		switch (opt) {
		case 'x':
			c->xml = optarg;
			break;
		case 'H':
			c->no_hash = true;
			break;
		case 'o':
			c->out = optarg;
			break;
		case 'r':
			c->report = optarg;
			break;
		case 'f':
			c->force = true;
			break;
		case 'n':
			c->dry_run = true;
			break;
		case 'L':
			c->zero_log = true;
			break;
		case 'Z':
			c->no_replay = true;
			break;
		case OPT_LOG_ONLY:
			c->log_only = true;
			break;
		case OPT_UNDO:
			c->undo = optarg;
			break;
		case 'O':
			if (xa_parse_u64(optarg, &v)) {
				fprintf(stderr, "xfsrecon: --offset needs a byte count, not '%s'\n", optarg);
				return -1;
			}
			c->io.have_offset = 1;
			c->io.offset = v;
			break;
		case 'p':
			if (xa_parse_u64(optarg, &v) || v == 0 || v > 4096) {
				fprintf(stderr, "xfsrecon: --partition needs a partition number, not '%s'\n",
					optarg);
				return -1;
			}
			c->io.partition = (int)v;
			break;
		case 'a':
			c->annotate = true;
			break;
		case 'J':
			c->json = true;
			break;
		case 'S':
			c->show_as = optarg;
			break;
		case 'P':
			c->progress = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'l':
			c->ls_long = true;
			break;
		case 'C':
			c->dest = optarg;
			break;
		case 'R':
			c->ls_recursive = true;
			break;
		case 'D':
			c->ls_deleted = true;
			break;
		case '0':
			c->ls_null = true;
			break;
		case 'X':
			c->xfs_db_format = true;
			break;
		case 'F':
			c->forward = true;
			break;
		case 'G':
			if (xa_parse_u64(optarg, &v) || v > UINT32_MAX) {
				fprintf(stderr, "xfsrecon: --ag needs an AG number, not '%s'\n", optarg);
				return -1;
			}
			c->have_ag = true;
			c->ag = (uint32_t)v;
			break;
		case 'T':
			c->html = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_CLEAN);
		case 'V':
			printf("xfsrecon %s\n", PACKAGE_VERSION);
			exit(EXIT_CLEAN);
		default:
			return -1;
		}
	}
	if (c->io.have_offset && c->io.partition) {
		fprintf(stderr, "xfsrecon: --offset and --partition exclude each other\n");
		return -1;
	}
	if (argc - optind < 2) {
		if (argc - optind == 1 && !strcmp(argv[optind], "help")) {
			usage(stdout);
			exit(EXIT_CLEAN);
		}
		if (argc - optind == 1 && !strcmp(argv[optind], "version")) {
			printf("xfsrecon %s\n", PACKAGE_VERSION);
			exit(EXIT_CLEAN);
		}
		fprintf(stderr, "xfsrecon: a command and an image are needed\n");
		return -1;
	}
	c->command = argv[optind];
	c->image = argv[optind + 1];
	c->nargs = argc - optind - 2;
	c->args = argv + optind + 2;
	return 0;
}

static void progress_cb(void *arg, const char *pass, uint32_t agno, uint32_t nags)
{
	(void)arg;
	if (agno == UINT32_MAX)
		fprintf(stderr, "xfsrecon: %s\n", pass);
	else
		fprintf(stderr, "xfsrecon: %s: AG %" PRIu32 " of %" PRIu32 "\n", pass, agno + 1, nags);
}

static int exit_for_error(int rc)
{
	return rc == XERR_USAGE ? EXIT_USAGE : EXIT_OPERATIONAL;
}

static int run_repair(const struct cli *c)
{
	struct xr_cmd_repair_opts ro = { 0 };

	if (c->nargs) {
		fprintf(stderr, "xfsrecon: unexpected argument '%s'\n", c->args[0]);
		return EXIT_USAGE;
	}
	if (!c->out && !c->dry_run) {
		fprintf(stderr, "xfsrecon: repair needs -o OUT (or --dry-run)\n");
		return EXIT_USAGE;
	}
	ro.image = c->image;
	ro.io = &c->io;
	ro.out = c->out;
	ro.report = c->report;
	ro.force = c->force;
	ro.dry_run = c->dry_run;
	ro.zero_log = c->zero_log;
	ro.no_replay = c->no_replay;
	ro.progress = c->progress;
	ro.quiet = c->quiet;
	return xr_cmd_repair(&ro, stdout, stderr);
}

static int run_map(const struct cli *c)
{
	struct xa_map_opts mo = { c->out, c->html, c->force, c->forward, c->have_ag, c->ag };
	struct xa_options opts = { .keep_ownership = true };
	struct xa_ctx ctx;
	char err[512];
	int rc;

	if (c->nargs || !c->out || c->report || c->dry_run || c->zero_log) {
		fprintf(stderr, "xfsrecon: usage: xfsrecon map IMAGE -o FILE [--ag N] [--html] "
			"[--force] [--forward]\n");
		return EXIT_USAGE;
	}
	if (c->progress)
		opts.progress = progress_cb;
	rc = xa_ctx_open(&ctx, c->image, &c->io, &opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xfsrecon: %s\n", err);
		return exit_for_error(rc);
	}
	/* Owners and damage come from the check (the forward map, the rmapbt
	 * as read, the findings). */
	rc = xa_run(&ctx, XA_RUN_CHECK);
	if (rc == 0 && ctx.geom_source == XA_GEOM_NONE)
		rc = XERR_NOTXFS;
	if (rc) {
		fprintf(stderr, "xfsrecon: %s: %s\n", c->image, xerr_str(rc));
		xa_ctx_release(&ctx);
		return EXIT_OPERATIONAL;
	}
	rc = xa_cmd_map(&ctx, &mo, stderr);
	xa_ctx_release(&ctx);
	if (rc == XERR_EXISTS)
		return EXIT_USAGE;
	return rc ? exit_for_error(rc) : EXIT_CLEAN;
}

/* plan, show-plan, apply, undo: their logic is in reconstruct/. */
static int run_plan_command(const struct cli *c)
{
	bool ap = !strcmp(c->command, "apply"), un = !strcmp(c->command, "undo");
	bool pl = !strcmp(c->command, "plan"), sp = !strcmp(c->command, "show-plan");

	if (c->report || (c->out && !pl) || (c->force && !pl) || (c->zero_log && !pl) ||
	    (c->dry_run && !ap) || (c->xml && !sp) || (c->undo && !ap) ||
	    ((c->io.have_offset || c->io.partition) && sp) || c->html || c->have_ag || c->forward ||
	    (c->no_replay && !pl) || c->log_only || c->json || c->show_as) {
		fprintf(stderr, "xfsrecon: an option given does not belong to %s\n", c->command);
		return EXIT_USAGE;
	}
	if (c->nargs != (ap || un ? 1 : 0)) {
		fprintf(stderr, "xfsrecon: %s takes %s\n", c->command,
			ap ? "PLAN TARGET" : un ? "UNDO TARGET" : pl ? "IMAGE -o PLAN" : "PLAN");
		return EXIT_USAGE;
	}
	if (pl) {
		struct xr_cmd_plan_opts po = { 0 };

		if (!c->out) {
			fprintf(stderr, "xfsrecon: plan needs -o PLAN\n");
			return EXIT_USAGE;
		}
		po.image = c->image;
		po.io = &c->io;
		po.out = c->out;
		po.force = c->force;
		po.zero_log = c->zero_log;
		po.no_replay = c->no_replay;
		po.progress = c->progress;
		po.quiet = c->quiet;
		return xr_cmd_plan(&po, stdout, stderr);
	}
	if (sp)
		return xr_cmd_show_plan(c->image, c->xml, stdout, stderr);
	{
		struct xr_cmd_apply_opts ao = { 0 };

		ao.file = c->image;
		ao.target = c->args[0];
		ao.undo = c->undo;
		ao.undo_mode = un;
		ao.dry_run = c->dry_run;
		ao.have_offset = c->io.have_offset;
		ao.offset = c->io.offset;
		ao.partition = c->io.partition;
		return xr_cmd_apply(&ao, stdout, stderr);
	}
}

static int run(const struct cli *c)
{
	struct xa_options opts = { 0 };
	struct xa_ctx ctx;
	char err[512];
	unsigned mode;
	int rc, code = EXIT_CLEAN;

	if (!strcmp(c->command, "plan") || !strcmp(c->command, "show-plan") ||
	    !strcmp(c->command, "apply") || !strcmp(c->command, "undo"))
		return run_plan_command(c);
	if (c->undo) {
		fprintf(stderr, "xfsrecon: --undo belongs to apply\n");
		return EXIT_USAGE;
	}
	if (!strcmp(c->command, "repair"))
		return run_repair(c);
	if (!strcmp(c->command, "map"))
		return run_map(c);
	if ((c->json || c->show_as) && strcmp(c->command, "show")) {
		fprintf(stderr, "xfsrecon: --json and --as belong to show\n");
		return EXIT_USAGE;
	}
	if (c->forward && strcmp(c->command, "fsmap")) {
		fprintf(stderr, "xfsrecon: --forward belongs to fsmap and map\n");
		return EXIT_USAGE;
	}
	if (c->have_ag || c->html) {
		fprintf(stderr, "xfsrecon: --ag and --html belong to map\n");
		return EXIT_USAGE;
	}
	if (c->out || c->report || c->force || c->dry_run || c->zero_log) {
		fprintf(stderr, "xfsrecon: -o, --report, --force, --dry-run and --zero-log belong to "
			"repair\n");
		return EXIT_USAGE;
	}
	if (!strcmp(c->command, "check"))
		mode = XA_RUN_CHECK;
	else if (!strcmp(c->command, "fsmap")) {
		/* the forward map (--forward, or no rmapbt) is the check's */
		mode = XA_RUN_CHECK;
		opts.keep_ownership = true;
	} else if (!strcmp(c->command, "info") || !strcmp(c->command, "show") ||
		 !strcmp(c->command, "stat") || !strcmp(c->command, "cat") ||
		 !strcmp(c->command, "ls") || !strcmp(c->command, "extract") ||
		 !strcmp(c->command, "bodyfile"))
		mode = XA_RUN_INFO;
	else {
		fprintf(stderr, "xfsrecon: unknown command '%s'; try 'xfsrecon --help'\n", c->command);
		return EXIT_USAGE;
	}
	if ((!strcmp(c->command, "stat") || !strcmp(c->command, "cat")) && c->nargs != 1) {
		fprintf(stderr, "xfsrecon: %s needs one PATH or INODE after the image\n", c->command);
		return EXIT_USAGE;
	}
	if ((!strcmp(c->command, "ls") || !strcmp(c->command, "extract")) && c->nargs > 1) {
		fprintf(stderr, "xfsrecon: %s takes at most one PATH after the image\n", c->command);
		return EXIT_USAGE;
	}
	if (!strcmp(c->command, "extract") && !c->dest) {
		fprintf(stderr, "xfsrecon: extract needs -C DIR, an existing directory to write into\n");
		return EXIT_USAGE;
	}
	if (strcmp(c->command, "show") && strcmp(c->command, "stat") && strcmp(c->command, "cat") &&
	    strcmp(c->command, "ls") && strcmp(c->command, "extract") && c->nargs) {
		fprintf(stderr, "xfsrecon: unexpected argument '%s'\n", c->args[0]);
		return EXIT_USAGE;
	}
	if (c->log_only && strcmp(c->command, "info") && strcmp(c->command, "check")) {
		fprintf(stderr, "xfsrecon: --log-only belongs to info and check\n");
		return EXIT_USAGE;
	}
	if (c->progress) {
		opts.progress = progress_cb;
	}
	opts.no_replay = c->no_replay;
	rc = xa_ctx_open(&ctx, c->image, &c->io, &opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "xfsrecon: %s\n", err);
		return exit_for_error(rc);
	}
	rc = xa_run(&ctx, mode);
	if (rc == XERR_NOTXFS || (rc == 0 && ctx.geom_source == XA_GEOM_NONE)) {
		fprintf(stderr, "xfsrecon: %s: not an XFS filesystem (no usable superblock)\n",
			c->image);
		if (!strcmp(c->command, "check") && !c->quiet)
			xa_report_text_findings(stdout, &ctx);
		xa_ctx_release(&ctx);
		return EXIT_OPERATIONAL;
	}
	if (rc) {
		fprintf(stderr, "xfsrecon: %s: %s\n", c->image, xerr_str(rc));
		xa_ctx_release(&ctx);
		return EXIT_OPERATIONAL;
	}

	if (!strcmp(c->command, "show")) {
		struct xa_show_opts so = { c->annotate, c->json, c->show_as, c->image };

		rc = xa_show_cmd(stdout, stderr, &ctx, c->nargs, c->args, &so);
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "fsmap")) {
		rc = xa_cmd_fsmap(&ctx, c->xfs_db_format, c->forward, stdout, stderr);
		if (fflush(stdout) != 0 && !rc)
			rc = XERR_IO;
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "bodyfile")) {
		rc = xa_cmd_bodyfile(&ctx, stdout, stderr);
		if (fflush(stdout) != 0 && !rc)
			rc = XERR_IO;
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "extract")) {
		struct xa_extract_opts eo = { c->dest, true };
		struct xa_extract_stats es;

		rc = xa_cmd_extract(&ctx, c->nargs ? c->args[0] : "/", &eo, &es, stderr);
		if (!c->quiet)
			printf("extracted %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64
			       " directories, %" PRIu64 " symlinks, %" PRIu64 " special files; %" PRIu64
			       " skipped, %" PRIu64 " damaged\n", es.files, es.bytes, es.dirs,
			       es.symlinks, es.specials, es.skipped, es.damaged);
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "ls")) {
		struct xa_ls_opts lo = { c->ls_long, c->ls_recursive, c->ls_deleted, c->ls_null };

		rc = xa_cmd_ls(&ctx, c->nargs ? c->args[0] : "/", &lo, stdout, stderr);
		if (fflush(stdout) != 0 && !rc)
			rc = XERR_IO;
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "stat") || !strcmp(c->command, "cat")) {
		rc = !strcmp(c->command, "stat") ? xa_cmd_stat(&ctx, c->args[0], stdout, stderr)
						 : xa_cmd_cat(&ctx, c->args[0], stdout, stderr);
		if (fflush(stdout) != 0 && !rc)
			rc = XERR_IO;
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (c->log_only) {
		rc = xa_cmd_log_list(&ctx, stdout, stderr);
		if (fflush(stdout) != 0 && !rc)
			rc = XERR_IO;
		xa_ctx_release(&ctx);
		return rc ? exit_for_error(rc) : EXIT_CLEAN;
	}
	if (!strcmp(c->command, "info")) {
		xa_report_text_info(stdout, &ctx);
	} else {
		if (c->xml && !c->no_hash) {
			if (ximg_sha256(ctx.input, ctx.sha256) == 0)
				ctx.have_sha256 = true;
		}
		if (c->quiet) {
			fprintf(stdout, "%" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " notes\n",
				ctx.findings.by_severity[XSEV_ERROR],
				ctx.findings.by_severity[XSEV_WARNING],
				ctx.findings.by_severity[XSEV_INFO]);
		} else {
			if (ctx.log_dirty) {
				fprintf(stdout, "log:        dirty; %s\n", ctx.log.replayed ?
					"checked as replayed" : "checked as on disk (not replayed)");
				xa_report_text_log(stdout, &ctx);
			}
			xa_report_text_findings(stdout, &ctx);
		}
		if (c->xml) {
			rc = xa_report_xml_write(&ctx, c->xml, err, sizeof(err));
			if (rc) {
				fprintf(stderr, "xfsrecon: %s\n", err);
				code = exit_for_error(rc);
			}
		}
		if (code == EXIT_CLEAN && xa_findings_count(&ctx.findings, XSEV_ERROR) > 0)
			code = EXIT_PROBLEMS_LEFT;
	}
	if (ctx.truncated) {
		fprintf(stderr, "xfsrecon: %s: image is truncated: the filesystem needs %" PRIu64
			" bytes, the image has %" PRIu64 "\n", c->image,
			ctx.geom.dblocks << ctx.geom.blocklog, ctx.image_size);
		code = EXIT_OPERATIONAL;
	} else if (ctx.read_errors) {
		fprintf(stderr, "xfsrecon: %s: %" PRIu64 " reads failed; results are incomplete\n",
			c->image, ctx.read_errors);
		code = EXIT_OPERATIONAL;
	}
	xa_ctx_release(&ctx);
	return code;
}

int main(int argc, char **argv)
{
	struct cli c;

	if (parse_cli(argc, argv, &c) != 0) {
		fprintf(stderr, "try 'xfsrecon --help'\n");
		return EXIT_USAGE;
	}
	return run(&c);
}
