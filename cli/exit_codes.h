/*
 * exit_codes.h - the one set of process exit codes, as fsck has them.
 *
 * Only cli/ turns results into exit codes; the libraries below it return
 * negative xerr values (analyzer/errors.h) and findings.
 */
#ifndef XC_EXIT_CODES_H
#define XC_EXIT_CODES_H

enum xc_exit {
	XC_EXIT_CLEAN = 0,        /* nothing wrong (repair: nothing needed repair) */
	XC_EXIT_REPAIRED = 1,     /* repair: problems found, and OUT checks clean */
	XC_EXIT_LEFT = 4,         /* problems found and left (or a repair refused) */
	XC_EXIT_OPERATIONAL = 8,  /* I/O, memory, not XFS, truncated, unreadable */
	XC_EXIT_USAGE = 16,       /* the command line was wrong */
};

/* The exit code for a negative xerr: 16 for XERR_USAGE, 8 for the rest. */
int xc_exit_for_error(int xerr);

#endif /* XC_EXIT_CODES_H */
