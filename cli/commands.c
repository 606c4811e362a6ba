/*
 * commands.c - the command table and the help printed from it.
 *
 * Each command lists the options it takes, with what an option means for it
 * where that differs from the general text in options.c.  The image options
 * (--offset, --partition) and --progress/--no-replay are listed per command
 * too: a command that cannot use one refuses it instead of ignoring it.
 */
#include "cli/commands.h"

#include <string.h>

#define END { XC_OPT_COUNT, NULL }
/* How every command that opens an image may be told where the filesystem
 * is, and how a dirty log is read. */
#define IMAGE_OPTS { XC_OPT_OFFSET, NULL }, { XC_OPT_PARTITION, NULL }, \
	{ XC_OPT_BADMAP, NULL }, { XC_OPT_LOGDEV, NULL }, { XC_OPT_RTDEV, NULL }, \
	{ XC_OPT_CACHE_MB, NULL }, { XC_OPT_JOBS, NULL }, \
	{ XC_OPT_NO_REPLAY, NULL }, { XC_OPT_PROGRESS, "report pass and AG progress on standard error" }

static const struct xc_cmd_option info_opts[] = {
	IMAGE_OPTS,
	{ XC_OPT_LOG_ONLY, NULL },
	END
};

static const struct xc_cmd_option check_opts[] = {
	{ XC_OPT_XML, "also write the XML report to FILE (schema doc/report.xsd)" },
	{ XC_OPT_NO_HASH, "do not compute the image's SHA-256 for the XML report" },
	{ XC_OPT_QUIET, "print only the count of errors, warnings and notes" },
	IMAGE_OPTS,
	{ XC_OPT_LOG_ONLY, NULL },
	END
};

static const struct xc_cmd_option show_opts[] = {
	{ XC_OPT_ANNOTATE, NULL },
	{ XC_OPT_JSON, NULL },
	{ XC_OPT_AS, "(show block) read the block as TYPE (bnobt, cntbt, inobt, finobt, rmapbt, "
	  "refcountbt, bmbt, dir3, attr3, symlink, inode, sb, or raw: its "
			"bytes) instead of going by its magic" },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option plain_opts[] = {
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option ls_opts[] = {
	{ XC_OPT_LONG, NULL },
	{ XC_OPT_RECURSIVE, NULL },
	{ XC_OPT_DELETED, NULL },
	{ XC_OPT_ORPHANS, NULL },
	{ XC_OPT_NULL, NULL },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option bodyfile_opts[] = {
	{ XC_OPT_DELETED, "also the deleted names still in the directory blocks, as fls -m writes "
	  "them: \"PATH (deleted)\" with the freed inode's times, \"(deleted-realloc)\" where "
	  "the inode names another file now" },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option log_opts[] = {
	{ XC_OPT_JSON, "one JSON object per line (lsn, event, path, to, inode, details)" },
	{ XC_OPT_BODYFILE, NULL },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option extract_opts[] = {
	{ XC_OPT_DIRECTORY, "the existing host directory to extract into (required)" },
	{ XC_OPT_QUIET, "do not print the closing count of what was extracted" },
	{ XC_OPT_SAME_OWNER, NULL },
	{ XC_OPT_PRESERVE_PRIVILEGES, NULL },
	{ XC_OPT_MAX_BYTES, NULL },
	{ XC_OPT_MANIFEST, NULL },
	{ XC_OPT_DELETED, "also each deleted name still in the directories, with the content its "
	  "file had when the log last saw it, where its blocks are still free (in use again: a hole, "
	  "and said); why not, where not" },
	{ XC_OPT_ORPHANS, "extract the unreachable inodes instead of PATH: each top as DIR/INODE "
	  "(a directory with its tree)" },
	{ XC_OPT_VERBOSE, NULL },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option fsmap_opts[] = {
	{ XC_OPT_XFS_DB, NULL },
	{ XC_OPT_FORWARD, NULL },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option map_opts[] = {
	{ XC_OPT_OUTPUT, "the picture to write (required; never the image)" },
	{ XC_OPT_AG, "draw AG N alone, at a finer resolution" },
	{ XC_OPT_HTML, NULL },
	{ XC_OPT_FORCE, "overwrite an existing picture (never the image or its aliases)" },
	{ XC_OPT_FORWARD, NULL },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option repair_opts[] = {
	{ XC_OPT_OUTPUT, "the repaired image to write (never the input)" },
	{ XC_OPT_REPORT, NULL },
	{ XC_OPT_FORCE, "overwrite an existing OUT, or write a block device (never the input or "
	  "anything holding or aliasing it)" },
	{ XC_OPT_DRY_RUN, "print the plan; write nothing" },
	{ XC_OPT_ZERO_LOG, NULL },
	{ XC_OPT_NO_HASH, "compute neither the input's nor OUT's SHA-256 (the report then has "
	  "none; without --report neither is computed)" },
	{ XC_OPT_VERIFY_OUTPUT, "hash OUT as it reads back after it is synced (a second read "
	  "of every byte), not the bytes as they are written" },
	{ XC_OPT_QUIET, "print only the summary" },
	{ XC_OPT_VERBOSE, "also print the findings each action answers and every write" },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option plan_opts[] = {
	{ XC_OPT_OUTPUT, "the plan file to write (required)" },
	{ XC_OPT_FORCE, "replace an existing plan file" },
	{ XC_OPT_ZERO_LOG, "discard a dirty log (the plan then clears it)" },
	{ XC_OPT_QUIET, "print only the summary" },
	IMAGE_OPTS,
	END
};

static const struct xc_cmd_option show_plan_opts[] = {
	{ XC_OPT_XML, "also write the plan's XML index to FILE" },
	END
};

static const struct xc_cmd_option apply_opts[] = {
	{ XC_OPT_UNDO, NULL },
	{ XC_OPT_DRY_RUN, "verify TARGET; write nothing" },
	{ XC_OPT_OFFSET, "the filesystem starts at this byte of TARGET" },
	{ XC_OPT_PARTITION, "use partition N of a whole-disk TARGET" },
	END
};

static const struct xc_cmd_option undo_opts[] = {
	{ XC_OPT_OFFSET, "the filesystem starts at this byte of TARGET" },
	{ XC_OPT_PARTITION, "use partition N of a whole-disk TARGET" },
	END
};

const struct xc_command xc_commands[] = {
	{ "info", "IMAGE", 1, 1, "geometry, features, log state, per-AG summary",
	  "With --log-only, the dirty log's committed transactions instead.",
	  info_opts, xc_run_info },
	{ "check", "IMAGE", 1, 1, "verify every structure; fsck-style exit code",
	  "Every superblock, AG header, btree, inode, fork, directory, attribute and "
	  "symlink is verified, primary metadata is cross-checked against the rmapbt, and "
	  "the namespace (link counts, orphans) is checked. Each finding is one line: "
	  "severity, [ID], location, message. Exit 0 clean, 4 problems found, 8 the image "
	  "could not be read whole.",
	  check_opts, xc_run_check },
	{ "show", "IMAGE WHAT", 2, 16, "structures field by field, with the verifier's verdicts",
	  "WHAT is: sb [AG] | agf AG | agi AG | agfl AG | inode INO | block AG/AGBNO | "
	  "btree AG bnobt|cntbt|inobt|finobt|rmapbt|refcountbt (the whole tree) | "
	  "btree AG AGBNO | dir PATH|INODE | attr PATH|INODE | path PATH | log.",
	  show_opts, xc_run_show },
	{ "stat", "IMAGE PATH|INODE", 2, 2, "every inode field, the fork mappings, the xattrs",
	  NULL, plain_opts, xc_run_files },
	{ "cat", "IMAGE PATH|INODE", 2, 2, "a file's exact bytes, or a symlink's target",
	  "Holes and unwritten extents read as zeros; ranges that cannot be read are named "
	  "on standard error and the exit code is 8.",
	  plain_opts, xc_run_files },
	{ "ls", "IMAGE [PATH]", 1, 2, "list a directory (PATH defaults to /)",
	  NULL, ls_opts, xc_run_files },
	{ "extract", "IMAGE [PATH] -C DIR", 1, 2, "copy files out into DIR (PATH defaults to /)",
	  "Nothing is written outside DIR and no existing file is replaced. What would "
	  "carry privileges from the image to the host (setuid/setgid/sticky bits, owners, "
	  "device nodes, trusted.* and security.* attributes) is stripped unless asked, "
	  "and counted. Zero blocks and blocks a file maps twice are left as holes. A file "
	  "with several names is extracted once and its other names made hard links to it.",
	  extract_opts, xc_run_files },
	{ "bodyfile", "IMAGE", 1, 1, "every path as a Sleuth Kit body line (mactime input)",
	  NULL, bodyfile_opts, xc_run_files },
	{ "ncheck", "IMAGE [INODE...]", 1, 1 << 20, "every path of an inode, hard links included",
	  "One line \"INODE PATH\" per path, paths escaped as ls prints them; without INODE, "
	  "every path of the tree. An inode no path reaches is named on standard error with "
	  "its state (free, in use but unreachable, not an inode), and the exit code is 4.",
	  plain_opts, xc_run_ncheck },
	{ "owner", "IMAGE BLOCK...", 2, 1 << 20, "what a block is, who owns it, and its paths",
	  "BLOCK is a filesystem block number (as xfs_db's fsblock), AG/AGBNO, or FIRST-LAST "
	  "of either. One line per block and owner: \"FSBLOCK AG/AGBNO TYPE\", then for a "
	  "file's block \"inode N fork data|attr offset F\", then each path of the file after "
	  "a tab. TYPE is a header (sb, agf, agi, agfl), an AG btree (bnobt, cntbt, inobt, "
	  "finobt, rmapbt, refcountbt), freelist, log, inodes (with the inodes the block holds), "
	  "data, dir, symlink, attr, bmbt, cow, free, or unowned (neither free nor owned). "
	  "Owners come from the primary metadata; where the rmapbt says otherwise, "
	  "\"rmapbt:OWNER\" follows.",
	  plain_opts, xc_run_owner },
	{ "log", "IMAGE", 1, 1, "the dirty log's transactions as file-level events with paths",
	  "Each committed transaction, in log order, as what it did to files: create, link, "
	  "unlink (freed when the inode went with the name), rename, free, write (size or "
	  "mapping grew), truncate, setattr (mode, owner, group), xattr. One line per event: "
	  "the commit LSN as cycle/block, the event, the path (the replayed tree's path of the "
	  "directory, then the name the log holds), \" -> \" and the new path for a rename, the "
	  "inode, and details. A clean log holds no events.",
	  log_opts, xc_run_log },
	{ "badmap", "IMAGE MAPFILE", 2, 2, "what the unreadable ranges of a ddrescue map hold",
	  "MAPFILE is a GNU ddrescue mapfile (every status but '+' is unreadable) or a list of "
	  "OFFSET LENGTH lines, in bytes of the image. The image is checked without reading "
	  "those sectors; then each range inside the filesystem is listed with the AG header "
	  "sectors it hits and the owner of its blocks, consecutive blocks of one owner as one "
	  "line (as owner prints them: a file's with its inode, fork, block offsets and paths), "
	  "and a summary line counts the files, directories, metadata and free blocks touched. "
	  "Exit 0 when only free space is hit, 4 when anything in use is.",
	  plain_opts, xc_run_badmap },
	{ "fsmap", "IMAGE", 1, 1, "who owns which blocks: the rmapbt, or the forward map",
	  NULL, fsmap_opts, xc_run_fsmap },
	{ "map", "IMAGE -o FILE", 1, 1, "an SVG picture of who owns every block",
	  NULL, map_opts, xc_run_map },
	{ "repair", "IMAGE -o OUT", 1, 1, "write a repaired copy of the filesystem to OUT",
	  "The input is only read. It prints the plan's summary first, one line per action, "
	  "what no action answers, and the result; every write is in the --report XML (and "
	  "printed with -v). Exit 0 nothing needed repair, 1 repaired (OUT checks clean), 4 "
	  "problems left or repair refused, 8 operational error.",
	  repair_opts, xc_run_repair },
	{ "plan", "IMAGE -o PLAN", 1, 1, "store the repair of IMAGE as a reviewable plan",
	  NULL, plan_opts, xc_run_plan },
	{ "show-plan", "PLAN", 1, 1, "print a plan or undo file",
	  NULL, show_plan_opts, xc_run_show_plan },
	{ "apply", "PLAN TARGET", 2, 2, "write a plan into TARGET in place",
	  "Only where TARGET holds the bytes the plan expects; every block is verified "
	  "before anything is written.",
	  apply_opts, xc_run_apply },
	{ "undo", "UNDO TARGET", 2, 2, "put back the bytes an apply replaced",
	  NULL, undo_opts, xc_run_apply },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};

const struct xc_command *xc_command_find(const char *name)
{
	for (const struct xc_command *c = xc_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int xc_command_takes(const struct xc_command *cmd, enum xc_opt o)
{
	if (o == XC_OPT_HELP)
		return 1;
	for (const struct xc_cmd_option *x = cmd->options; x->opt != XC_OPT_COUNT; x++)
		if (x->opt == o)
			return 1;
	return 0;
}

const char *xc_command_option_help(const struct xc_command *cmd, enum xc_opt o)
{
	for (const struct xc_cmd_option *x = cmd->options; x->opt != XC_OPT_COUNT; x++)
		if (x->opt == o && x->help)
			return x->help;
	return xc_options[o].help;
}

/* Print text from column col, wrapped before column 80, continuation lines
 * indented to column indent. */
static void wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	const char *p = text;

	while (*p) {
		size_t room = col < 79 ? 79 - col : 20, n = strlen(p), cut = n;

		if (n > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(p, " ");
		}
		fprintf(f, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", (int)indent, "");
		col = indent;
	}
}

/* "-q, --quiet" or "--xml FILE", into buf. */
static const char *option_label(enum xc_opt o, char *buf, size_t len)
{
	const struct xc_option *x = &xc_options[o];

	if (x->letter)
		snprintf(buf, len, "-%c, --%s%s%s", x->letter, x->name, x->arg ? " " : "",
			 x->arg ? x->arg : "");
	else
		snprintf(buf, len, "--%s%s%s", x->name, x->arg ? " " : "", x->arg ? x->arg : "");
	return buf;
}

void xc_help_all(FILE *f)
{
	fprintf(f, "usage: xfsrecon COMMAND [OPTIONS] IMAGE [ARGS]\n\ncommands:\n");
	for (const struct xc_command *c = xc_commands; c->name; c++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", c->name, c->operands);
		fprintf(f, "  %-28s %s\n", head, c->summary);
	}
	fprintf(f, "\n'xfsrecon help COMMAND' or 'xfsrecon COMMAND --help' lists a command's "
		"options.\n"
		"The image is only ever opened read-only.\n"
		"exit codes: 0 clean, 1 problems repaired (repair), 4 problems found or left,\n"
		"            8 operational error, 16 usage error\n");
}

void xc_help_command(FILE *f, const struct xc_command *cmd)
{
	fprintf(f, "usage: xfsrecon %s [OPTIONS] %s\n\n%s\n", cmd->name, cmd->operands,
		cmd->summary);
	if (cmd->details) {
		fprintf(f, "\n");
		wrap(f, cmd->details, 0, 0);
	}
	fprintf(f, "\noptions:\n");
	for (const struct xc_cmd_option *x = cmd->options; x->opt != XC_OPT_COUNT; x++) {
		char label[64];
		const char *h = xc_command_option_help(cmd, x->opt);

		fprintf(f, "  %-22s ", option_label(x->opt, label, sizeof(label)));
		wrap(f, h, 25, 25);
	}
	fprintf(f, "  %-22s %s\n", "-h, --help", xc_options[XC_OPT_HELP].help);
}
