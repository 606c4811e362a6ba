/*
 * options.h - every command-line option once: its names, its argument, its
 * general meaning, and the parsed values.
 *
 * Which command accepts which option is the command table's business
 * (commands.c); this file only knows the options themselves.
 */
#ifndef XC_OPTIONS_H
#define XC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/io/image.h"

enum xc_opt {
	XC_OPT_XML,
	XC_OPT_NO_HASH,
	XC_OPT_VERIFY_OUTPUT,
	XC_OPT_OFFSET,
	XC_OPT_PARTITION,
	XC_OPT_ANNOTATE,
	XC_OPT_JSON,
	XC_OPT_AS,
	XC_OPT_PROGRESS,
	XC_OPT_QUIET,
	XC_OPT_DIRECTORY,
	XC_OPT_LONG,
	XC_OPT_RECURSIVE,
	XC_OPT_DELETED,
	XC_OPT_NULL,
	XC_OPT_XFS_DB,
	XC_OPT_FORWARD,
	XC_OPT_OUTPUT,
	XC_OPT_AG,
	XC_OPT_HTML,
	XC_OPT_REPORT,
	XC_OPT_FORCE,
	XC_OPT_DRY_RUN,
	XC_OPT_ZERO_LOG,
	XC_OPT_NO_REPLAY,
	XC_OPT_LOG_ONLY,
	XC_OPT_UNDO,
	XC_OPT_SAME_OWNER,
	XC_OPT_PRESERVE_PRIVILEGES,
	XC_OPT_MAX_BYTES,
	XC_OPT_VERBOSE,
	XC_OPT_MANIFEST,
	XC_OPT_BADMAP,
	XC_OPT_LOGDEV,
	XC_OPT_RTDEV,
	XC_OPT_ORPHANS,
	XC_OPT_BODYFILE,
	XC_OPT_CACHE_MB,
	XC_OPT_JOBS,
	XC_OPT_HELP,
	XC_OPT_VERSION,
	XC_OPT_COUNT
};

struct xc_option {
	const char *name;    /* the long name, without "--" */
	char        letter;  /* the short letter, or 0 */
	const char *arg;     /* the argument's name, or NULL for a flag */
	const char *help;    /* its meaning wherever a command says no more */
};

/* Indexed by enum xc_opt. */
extern const struct xc_option xc_options[XC_OPT_COUNT];

/* What the command line said. */
struct xc_args {
	uint64_t    given;     /* bit (1 << enum xc_opt) for each option seen */
	const char *xml;
	const char *show_as;
	const char *dest;
	const char *out;
	const char *report;
	const char *undo;
	const char *manifest;
	uint32_t    ag;
	uint64_t    max_bytes;
	uint64_t    cache_bytes;  /* --cache-mb, in bytes; 0 = sized from the image */
	unsigned    jobs;         /* --jobs; 0 = one thread per CPU */
	struct ximg_open_opts io;   /* --offset, --partition */
	int         nwords;    /* operands in order: the command, then its own */
	char      **words;
};

static inline bool xc_has(const struct xc_args *a, enum xc_opt o)
{
	return (a->given >> o) & 1u;
}

/*
 * Parse argv into *a (options may stand anywhere among the operands).
 * Returns 0, or -1 after saying on err what was wrong.
 */
int xc_options_parse(int argc, char **argv, struct xc_args *a, FILE *err);

#endif /* XC_OPTIONS_H */
