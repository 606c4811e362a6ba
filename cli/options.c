/*
 * options.c - the option table and the parser that fills struct xc_args.
 *
 * The getopt_long table is built from xc_options[], so an option exists in
 * exactly one place; numbers are checked here (cli_number.c), everything else
 * (which command may take what) in main.c from the command table.
 */
#include "cli/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_number.h"

const struct xc_option xc_options[XC_OPT_COUNT] = {
	[XC_OPT_XML] = { "xml", 0, "FILE", "also write the XML report to FILE" },
	[XC_OPT_NO_HASH] = { "no-hash", 0, NULL, "do not compute the image's SHA-256" },
	[XC_OPT_VERIFY_OUTPUT] = { "verify-output", 0, NULL,
				   "hash the output as it reads back after it is synced" },
	[XC_OPT_OFFSET] = { "offset", 0, "BYTES", "the filesystem starts at this byte of the image" },
	[XC_OPT_PARTITION] = { "partition", 0, "N", "use partition N of a whole-disk image" },
	[XC_OPT_ANNOTATE] = { "annotate", 0, NULL,
			      "explain each field: offset, size, raw bytes, meaning" },
	[XC_OPT_JSON] = { "json", 0, NULL, "one JSON document instead of text" },
	[XC_OPT_AS] = { "as", 0, "TYPE",
			"read the block as TYPE (bnobt, cntbt, inobt, finobt, rmapbt, refcountbt, "
			"bmbt, dir3, attr3, symlink, inode, sb, or raw: its "
			"bytes) instead of going by its magic" },
	[XC_OPT_PROGRESS] = { "progress", 0, NULL, "report progress on standard error" },
	[XC_OPT_QUIET] = { "quiet", 'q', NULL, "print only the summary line" },
	[XC_OPT_DIRECTORY] = { "directory", 'C', "DIR", "the existing host directory to write into" },
	[XC_OPT_LONG] = { "long", 'l', NULL,
			  "inode, type and mode, links, owner, size, the full mtime (UTC, with "
			  "nanoseconds) and a symlink's target after \"->\" (not with -0)" },
	[XC_OPT_RECURSIVE] = { "recursive", 'R', NULL, "every path below, one per line" },
	[XC_OPT_DELETED] = { "deleted", 0, NULL,
			     "also the names of deleted entries still in the directory blocks" },
	[XC_OPT_NULL] = { "null", '0', NULL, "names as stored, each entry ended by a NUL byte" },
	[XC_OPT_XFS_DB] = { "xfs-db", 0, NULL, "lines exactly as xfs_db's fsmap prints them" },
	[XC_OPT_FORWARD] = { "forward", 0, NULL,
			     "owners from the primary metadata, not the rmapbt (always so on a "
			     "filesystem without an rmapbt)" },
	[XC_OPT_OUTPUT] = { "output", 'o', "OUT", "the file to write" },
	[XC_OPT_AG] = { "ag", 0, "N", "AG N alone, at a finer resolution" },
	[XC_OPT_HTML] = { "html", 0, NULL, "an HTML page with the picture and per-AG tables" },
	[XC_OPT_REPORT] = { "report", 0, "FILE", "the XML report: changes, orphans, hashes" },
	[XC_OPT_FORCE] = { "force", 0, NULL, "overwrite an existing output file" },
	[XC_OPT_DRY_RUN] = { "dry-run", 0, NULL, "write nothing" },
	[XC_OPT_ZERO_LOG] = { "zero-log", 0, NULL, "discard a dirty log, as xfs_repair -L does" },
	[XC_OPT_NO_REPLAY] = { "no-replay", 0, NULL,
			       "analyse the state on disk: do not replay a dirty log (by default "
			       "it is replayed in memory)" },
	[XC_OPT_LOG_ONLY] = { "log-only", 0, NULL,
			      "list the dirty log's transactions: LSN, items, the inodes and "
			      "blocks each touched" },
	[XC_OPT_UNDO] = { "undo", 0, "UNDO",
			  "write the old bytes to UNDO before writing (or resume an interrupted "
			  "apply that wrote UNDO)" },
	[XC_OPT_SAME_OWNER] = { "same-owner", 0, NULL,
				"give entries the image's uid and gid (default: they belong to "
				"whoever runs extract)" },
	[XC_OPT_PRESERVE_PRIVILEGES] = { "preserve-privileges", 0, NULL,
					 "keep setuid/setgid/sticky bits, create device nodes, set "
					 "trusted.* and security.* attributes (default: all stripped, "
					 "and counted)" },
	[XC_OPT_MAX_BYTES] = { "max-bytes", 0, "N",
			       "stop before writing more than N bytes of data (always: before "
			       "the destination's free space runs out)" },
	[XC_OPT_VERBOSE] = { "verbose", 'v', NULL, "name each thing stripped on standard error" },
	[XC_OPT_MANIFEST] = { "manifest", 0, "FILE",
			       "also write FILE: one tab-separated line per name extracted (path, "
			       "inode, type, size, SHA-256 of the bytes written, state: intact, "
			       "damaged with what, hardlink, stripped, skipped); never the image, "
			       "never over an existing file" },
	[XC_OPT_BADMAP] = { "badmap", 0, "MAPFILE",
			     "treat the sectors a GNU ddrescue mapfile (or a list of OFFSET LENGTH "
			     "lines) marks as unreadable: never read, lost wherever they fall" },
	[XC_OPT_LOGDEV] = { "logdev", 0, "FILE",
			     "the external log device's image (raw or zstd) of a filesystem whose "
			     "log is not inside it: checked and replayed like an internal one" },
	[XC_OPT_RTDEV] = { "rtdev", 0, "FILE",
			    "the realtime device's image (raw or zstd): realtime files' data is "
			    "read there (without it, it is named unreadable, never guessed)" },
	[XC_OPT_ORPHANS] = { "orphans", 0, NULL,
			      "the allocated inodes no path from the root reaches, as \"orphan:INODE\" "
			      "(an unreachable directory with its tree); the image is checked first" },
	[XC_OPT_BODYFILE] = { "bodyfile", 0, NULL,
			       "one Sleuth Kit body line per event, \"PATH (EVENT)\" with the "
			       "inode's times then (mactime input)" },
	[XC_OPT_CACHE_MB] = { "cache-mb", 0, "MIB",
			      "bound the block cache to MIB mebibytes (default: a 256th of the image, "
			      "32 to 256)" },
	[XC_OPT_JOBS] = { "jobs", 'j', "N",
			  "use at most N threads (default: one per CPU; 1: none beside the "
			  "main one); the output is the same with any N" },
	[XC_OPT_HELP] = { "help", 'h', NULL, "this command's usage and options" },
	[XC_OPT_VERSION] = { "version", 0, NULL, "the version" },
};

/* getopt_long's value for option o: its letter, or a code past every char. */
static int opt_code(enum xc_opt o)
{
	return xc_options[o].letter ? xc_options[o].letter : 0x100 + (int)o;
}

static int opt_from_code(int code)
{
	for (int o = 0; o < XC_OPT_COUNT; o++)
		if (opt_code((enum xc_opt)o) == code)
			return o;
	return -1;
}

static int take_value(struct xc_args *a, enum xc_opt o, const char *v, FILE *err)
{
	uint64_t n;

	switch (o) {
	case XC_OPT_XML: a->xml = v; break;
	case XC_OPT_AS: a->show_as = v; break;
	case XC_OPT_DIRECTORY: a->dest = v; break;
	case XC_OPT_OUTPUT: a->out = v; break;
	case XC_OPT_REPORT: a->report = v; break;
	case XC_OPT_UNDO: a->undo = v; break;
	case XC_OPT_MANIFEST: a->manifest = v; break;
	case XC_OPT_BADMAP: a->io.badmap = v; break;
	case XC_OPT_LOGDEV: a->io.logdev = v; break;
	case XC_OPT_RTDEV: a->io.rtdev = v; break;
	case XC_OPT_OFFSET:
		if (xc_parse_u64(v, &n)) {
			fprintf(err, "xfsrecon: --offset needs a byte count, not '%s'\n", v);
			return -1;
		}
		a->io.have_offset = 1;
		a->io.offset = n;
		break;
	case XC_OPT_PARTITION:
		if (xc_parse_u64(v, &n) || n == 0 || n > 4096) {
			fprintf(err, "xfsrecon: --partition needs a partition number, not '%s'\n", v);
			return -1;
		}
		a->io.partition = (int)n;
		break;
	case XC_OPT_MAX_BYTES:
		if (xc_parse_u64(v, &n) || n == 0) {
			fprintf(err, "xfsrecon: --max-bytes needs a byte count, not '%s'\n", v);
			return -1;
		}
		a->max_bytes = n;
		break;
	case XC_OPT_CACHE_MB:
		/* Below 4 MiB a walk holding a directory's blocks could run out. */
		if (xc_parse_u64(v, &n) || n < 4 || n > (UINT64_C(1) << 20)) {
			fprintf(err, "xfsrecon: --cache-mb needs a size in MiB from 4 to 1048576, "
				"not '%s'\n", v);
			return -1;
		}
		a->cache_bytes = n << 20;
		break;
	case XC_OPT_JOBS:
		if (xc_parse_u64(v, &n) || n < 1 || n > 1024) {
			fprintf(err, "xfsrecon: --jobs needs a thread count from 1 to 1024, "
				"not '%s'\n", v);
			return -1;
		}
		a->jobs = (unsigned)n;
		break;
	case XC_OPT_AG:
		if (xc_parse_u64(v, &n) || n > UINT32_MAX) {
			fprintf(err, "xfsrecon: --ag needs an AG number, not '%s'\n", v);
			return -1;
		}
		a->ag = (uint32_t)n;
		break;
	default:
		break;
	}
	return 0;
}

int xc_options_parse(int argc, char **argv, struct xc_args *a, FILE *err)
{
	struct option longopts[XC_OPT_COUNT + 1];
	char shortopts[2 * XC_OPT_COUNT + 2];
	size_t ns = 0;
	int code;

	memset(a, 0, sizeof(*a));
	memset(longopts, 0, sizeof(longopts));
	for (int o = 0; o < XC_OPT_COUNT; o++) {
		const struct xc_option *x = &xc_options[o];

		longopts[o].name = x->name;
		longopts[o].has_arg = x->arg ? required_argument : no_argument;
		longopts[o].val = opt_code((enum xc_opt)o);
		if (x->letter) {
			shortopts[ns++] = x->letter;
			if (x->arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	opterr = 0;
	while ((code = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int o = opt_from_code(code);

		if (o < 0) {
			if (optopt && optopt < 0x100 && opt_from_code(optopt) >= 0)
				fprintf(err, "xfsrecon: option -%c needs an argument\n", optopt);
			else if (optopt >= 0x100 && opt_from_code(optopt) >= 0)
				fprintf(err, "xfsrecon: option --%s needs an argument\n",
					xc_options[opt_from_code(optopt)].name);
			else if (optopt)
				fprintf(err, "xfsrecon: unknown option -%c\n", optopt);
			else
				fprintf(err, "xfsrecon: unknown option '%s'\n", argv[optind - 1]);
			return -1;
		}
		a->given |= UINT64_C(1) << o;
		if (xc_options[o].arg && take_value(a, (enum xc_opt)o, optarg, err))
			return -1;
	}
	if (a->io.have_offset && a->io.partition) {
		fprintf(err, "xfsrecon: --offset and --partition exclude each other\n");
		return -1;
	}
	a->nwords = argc - optind;
	a->words = argv + optind;
	return 0;
}
