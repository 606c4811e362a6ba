/*
 * findings.h - the collected findings of one run.
 *
 * Verifiers report to a struct xprob_sink; the analyzer's sink is a
 * struct xa_findings plus the current location (AG, block, image byte,
 * inode), which it stamps onto each finding before storing it.  Storage is
 * bounded: past XA_FINDINGS_MAX entries further findings are only counted
 * (per code), so a pathological image cannot exhaust memory.
 */
#ifndef XA_FINDINGS_H
#define XA_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/problem.h"

#define XA_FINDINGS_MAX 100000u

/* Where the structure being verified lives. */
struct xa_loc {
	unsigned    has;     /* XPROB_HAS_AG / _AGBNO / _INO / _BYTE */
	uint32_t    agno;
	uint32_t    agbno;
	uint64_t    ino;
	uint64_t    byte;    /* absolute image byte of the structure */
	const char *what;    /* structure name: "sb", "agf", "bnobt", "inode", ... */
};

struct xa_finding {
	struct xprob p;      /* code, field, offsets, values; location merged in */
	const char  *what;   /* structure name from the location */
};

struct xa_findings {
	struct xa_finding *items;
	size_t             count;
	size_t             cap;
	uint64_t           dropped;        /* findings past the bound, not stored */
	uint64_t           by_severity[3]; /* counted, stored or not */
};

void xa_findings_init(struct xa_findings *f);
void xa_findings_release(struct xa_findings *f);

/* Store one finding with its location (loc may be NULL). Never fails. */
void xa_findings_add(struct xa_findings *f, const struct xprob *p,
		     const struct xa_loc *loc);

/*
 * A sink that stamps loc onto every finding and stores it in f.  The struct
 * must outlive every use of its .sink; set .loc before each verifier call.
 */
struct xa_loc_sink {
	struct xprob_sink   sink;
	struct xa_findings *findings;
	struct xa_loc       loc;
};
void xa_loc_sink_init(struct xa_loc_sink *ls, struct xa_findings *f);

/* True when a finding of this code is stored. */
bool xa_findings_have(const struct xa_findings *f, enum xprob_code code);

/* Number of findings of at least the given severity (stored or dropped). */
uint64_t xa_findings_count(const struct xa_findings *f, enum xprob_severity min);

/*
 * Render a finding's message template into buf (always NUL-terminated).
 * Values print in decimal, except magic numbers and CRCs, which print in hex;
 * {lsn} prints off as an LSN, "cycle/block".
 */
void xa_finding_render(const struct xa_finding *fd, char *buf, size_t len);

/*
 * Owners of blocks, as findings and views name them: a special owner
 * (bit 63 set) by its rmapbt name ("FS", "LOG", "AG", "INOBT", "INODES",
 * "REFC", "COW", ...; NULL from xa_owner_label for an inode or an unknown
 * value), an unknown special owner as the negative number xfs_db prints,
 * an inode by its number.  xa_owner_format writes into buf (NUL-terminated).
 */
const char *xa_owner_label(uint64_t owner);
void xa_owner_format(uint64_t owner, char *buf, size_t len);

/* Which fork of its inode an owner holds the blocks in ("data", "attr",
 * "data-bmbt", "attr-bmbt"), or NULL for a special owner. */
const char *xa_owner_fork(const struct xprob_owner *o);

/* Sort findings by (AG, byte, code) so output is deterministic. */
void xa_findings_sort(struct xa_findings *f);

#endif /* XA_FINDINGS_H */
