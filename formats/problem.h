/*
 * problem.h - the vocabulary of findings, shared by every layer.
 *
 * Every corruption finding has one row in problems.def: a stable numeric code,
 * a camelCase ID, a severity, a message template and the repair action.  The
 * enums below are generated from that table; nothing prints corruption text
 * directly.  A verifier fills a struct xprob (what failed, where inside the
 * structure, expected vs observed) and hands it to a sink; the analyzer's sink
 * adds the location (AG, block, byte offset, inode) and stores it.
 *
 * Message templates name context fields in braces: {ag} {agbno} {ino} {off}
 * {field} {expected} {observed} {struct}, and for findings about block
 * owners {owner} {owner2} (the owner alone: an inode number, or a special
 * owner's name) and {claim} {claim2} (the owner with its fork and file
 * offset).  The renderer substitutes them.
 */
#ifndef XFMT_PROBLEM_H
#define XFMT_PROBLEM_H

#include <stdint.h>

enum xprob_severity {
	XSEV_INFO,      /* worth knowing, not wrong (e.g. dirty log) */
	XSEV_WARNING,   /* legal but suspicious, or unchecked */
	XSEV_ERROR,     /* corruption */
};

/* Repair actions a finding calls for; reconstruct/ plans from these. */
#define XFIX_LIST(X) \
	X(NONE)                 /* nothing to do */ \
	X(RECOMPUTE_CRC)        /* contents trusted, checksum rewritten */ \
	X(SB_FROM_VOTE)         /* superblock rewritten from the voted geometry */ \
	X(SB_COUNTERS)          /* summary counters recomputed */ \
	X(REBUILD_AGF)          /* AGF rebuilt from rmap and the free-space scan */ \
	X(REBUILD_AGI)          /* AGI rebuilt from the inode scan */ \
	X(RESET_AGFL)           /* AGFL emptied and refilled */ \
	X(REBUILD_FREESPACE)    /* bnobt and cntbt rebuilt from rmap */ \
	X(REBUILD_INOBT)        /* inobt and finobt rebuilt from inode chunks */ \
	X(REBUILD_RMAPBT)       /* rmapbt rebuilt from primary metadata */ \
	X(REBUILD_REFCOUNTBT)   /* refcountbt rebuilt from rmap */ \
	X(REBUILD_BMBT)         /* an inode's fork mapping rebuilt from rmap */ \
	X(FIX_INODE)            /* inode core fields corrected */ \
	X(CLEAR_INODE)          /* inode freed, its blocks released */ \
	X(REPLAY_LOG)           /* dirty log replayed into the output */ \
	X(FIX_DIRECTORY)        /* directory entries or blocks rewritten */ \
	X(FIX_LINK_COUNT)       /* nlink set to the number of names */ \
	X(LOST_FOUND)           /* orphan linked into lost+found */ \
	X(RESOLVE_CROSSLINK)    /* one claimant keeps the block, the other gets a copy or a hole */

enum xprob_fix {
#define XFIX_ENUM(name) XFIX_##name,
	XFIX_LIST(XFIX_ENUM)
#undef XFIX_ENUM
	XFIX_COUNT
};

enum xprob_code {
#define XPROB(code, id, sev, fix, msg) XP_##id = code,
#include "formats/problems.def"
#undef XPROB
};

/* Which of the optional context fields of a struct xprob are meaningful. */
enum {
	XPROB_HAS_AG       = 1u << 0,
	XPROB_HAS_AGBNO    = 1u << 1,
	XPROB_HAS_INO      = 1u << 2,
	XPROB_HAS_OFF      = 1u << 3,  /* byte offset within the structure */
	XPROB_HAS_EXPECTED = 1u << 4,
	XPROB_HAS_OBSERVED = 1u << 5,
	XPROB_HAS_BYTE     = 1u << 6,  /* absolute byte offset in the image */
	XPROB_HAS_OWNERS   = 1u << 7,  /* owners[0] and owners[1] name two claimants */
};

/* How an owner holds a block (the rmapbt's offset flags). */
enum {
	XPROB_OWN_ATTR      = 1u << 0,  /* attr fork */
	XPROB_OWN_BMBT      = 1u << 1,  /* a block of the fork's bmbt */
	XPROB_OWN_UNWRITTEN = 1u << 2,  /* unwritten extent */
};

/*
 * One claimant of a block range, as the rmapbt names owners: an inode
 * number, or a special owner (bit 63 set: XFS_RMAP_OWN_* in btrec.h).  Two
 * of them name both sides of a finding about who owns a block: a block
 * claimed twice, or the rmapbt naming another owner than the primary
 * metadata does.
 */
struct xprob_owner {
	uint64_t owner;
	uint64_t offset;   /* file offset in blocks (inode data and attr forks) */
	uint32_t flags;    /* XPROB_OWN_* */
};

/* Typed context of one finding. */
struct xprob {
	enum xprob_code code;
	unsigned        has;        /* XPROB_HAS_* */
	const char     *field;      /* static field name, or NULL */
	uint32_t        agno;
	uint32_t        agbno;
	uint64_t        ino;
	uint64_t        off;        /* offset of the field inside the structure */
	uint64_t        byte;       /* absolute image byte of the structure */
	uint64_t        expected;
	uint64_t        observed;
	struct xprob_owner owners[2];  /* with XPROB_HAS_OWNERS */
};

/*
 * Where verifiers send findings.  report() must not fail: a sink that cannot
 * store a finding counts it as dropped itself.  A NULL sink is not allowed.
 */
struct xprob_sink {
	void (*report)(void *arg, const struct xprob *p);
	void *arg;
};

/*
 * Helpers for verifiers: report a failed check on a named field, optionally
 * with expected/observed values.  Return 1 so callers can count failures.
 */
int xprob_emit(const struct xprob_sink *sink, enum xprob_code code,
	       const char *field, uint64_t off);
int xprob_emit_val(const struct xprob_sink *sink, enum xprob_code code,
		   const char *field, uint64_t off, uint64_t expected,
		   uint64_t observed);
int xprob_emit_obs(const struct xprob_sink *sink, enum xprob_code code,
		   const char *field, uint64_t off, uint64_t observed);

/* Table look-ups; unknown codes give NULL / XSEV_ERROR / XFIX_NONE. */
const char *xprob_id(enum xprob_code code);
const char *xprob_message(enum xprob_code code);
enum xprob_severity xprob_severity_of(enum xprob_code code);
enum xprob_fix xprob_fix_of(enum xprob_code code);
const char *xprob_severity_name(enum xprob_severity sev);
const char *xprob_fix_name(enum xprob_fix fix);

/* Iterate the table (for the generated documentation and tests). */
unsigned xprob_table_size(void);
enum xprob_code xprob_table_code(unsigned idx);

#endif /* XFMT_PROBLEM_H */
