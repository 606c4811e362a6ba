/*
 * problem.h - the vocabulary of findings, shared by every layer.
 *
 * Every corruption finding has one row in problems.def: a stable numeric code,
 * a camelCase ID, a severity, a message template and the fix class.  The
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

/*
 * Fix classes: the kind of repair that answers a finding.  Each row of
 * problems.def names one; each action of the planner (reconstruct/
 * actions.def) lists the classes of the findings it may answer, and the
 * plan counts every answer by an action that does not list the finding's
 * class (reconstruct/plan.c; the tests fail on one).  NONE is for notes
 * and warnings repair leaves alone; an error never has it.  REPORT_ONLY
 * marks an error repair deliberately leaves (the row's comment says why);
 * no action answers it.  X(name, description): the description is the one
 * line doc/findings.md prints.
 */
#define XFIX_LIST(X) \
	X(NONE,               "nothing to repair: a note or a warning repair leaves alone") \
	X(REPORT_ONLY,        "an error repair deliberately leaves as it is: reported, never " \
	                      "answered, so the output stays incomplete (exit 4)") \
	X(RECOMPUTE_CRC,      "contents trusted, checksum rewritten (or the structure " \
	                      "rewritten whole by the action that rebuilds it)") \
	X(SB_FROM_VOTE,       "superblock rewritten from the copy the vote chose; a field the " \
	                      "primary alone gets wrong from a sound secondary") \
	X(SB_FIELDS,          "superblock field set to what the filesystem implies: the " \
	                      "features2 mirror, flags, inprogress, NEEDSREPAIR, root, " \
	                      "realtime and quota inode pointers, the bytes past the " \
	                      "structure") \
	X(SB_COUNTERS,        "summary counters recomputed") \
	X(REBUILD_AGF,        "AGF rebuilt from the owned extents and the free-space scan") \
	X(REBUILD_AGI,        "AGI rebuilt from the inode scan, with empty unlinked buckets") \
	X(RESET_AGFL,         "AGFL emptied and refilled") \
	X(REBUILD_FREESPACE,  "bnobt and cntbt rebuilt from what stays owned") \
	X(REBUILD_INOBT,      "inobt and finobt rebuilt from the inode chunks and the inode " \
	                      "cores") \
	X(REBUILD_RMAPBT,     "rmapbt rebuilt from the primary metadata") \
	X(REBUILD_REFCOUNTBT, "refcountbt rebuilt from the file mappings; leftover CoW " \
	                      "staging extents freed") \
	X(REBUILD_BTREE,      "a damaged btree block: the tree it belongs to is rebuilt (an " \
	                      "AG's trees with the AG; a bmbt goes with its inode)") \
	X(REBUILD_BMBT,       "an inode's fork map is damaged: the inode is cleared, and a " \
	                      "regular file's data fork rebuilt from the rmapbt (revive-file) " \
	                      "where its records are left") \
	X(FIX_INODE,          "inode core fields corrected in place; an inode whose other " \
	                      "faults no edit answers is cleared instead") \
	X(CLEAR_INODE,        "inode freed, its blocks released") \
	X(DROP_ATTR_FORK,     "the damaged attribute fork emptied; the file keeps its data") \
	X(REVIVE_INODE,       "an inode whose core is lost brought back from the rmapbt, its " \
	                      "directory blocks or the log; an entry naming one nothing " \
	                      "brings back is dropped when its directory is rewritten") \
	X(REPLAY_LOG,         "dirty log replayed into the output, or discarded when asked or " \
	                      "empty (zero-log); either way a clean log is written") \
	X(FORMAT_LOG,         "a clean log written at a cycle past every metadata LSN, as " \
	                      "xfs_repair formats it (with a replay or discard, or alone)") \
	X(FIX_DIRECTORY,      "directory rewritten from the entries it still holds") \
	X(FIX_ROOT,           "the root directory: the superblock pointed back at the one " \
	                      "mkfs made, or a new one made in its place") \
	X(RT_INODES,          "the realtime bitmap and summary inodes made anew, empty, as " \
	                      "mkfs makes them where there is no realtime section") \
	X(FIX_LINK_COUNT,     "nlink set to the number of names") \
	X(PARENT_POINTERS,    "the inode's parent pointers written again to name exactly " \
	                      "its directory entries (short-form attributes)") \
	X(LOST_FOUND,         "orphan linked into lost+found, or reached again through a " \
	                      "directory the repair rebuilt") \
	X(RESOLVE_CROSSLINK,  "one claimant keeps the block, the other gets a copy or a hole") \
	X(MISSING_TAIL,       "the missing end of a truncated image taken as lost: read as " \
	                      "zeros, written as a hole, the files with blocks there listed") \
	X(METADIR_TREE,       "the metadata directory tree written again from the metadata " \
	                      "files it still names, its root made anew where it is lost " \
	                      "(xfs_repair 6.13 reinitializes it)")

enum xprob_fix {
#define XFIX_ENUM(name, desc) XFIX_##name,
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
/* The one-line description of a fix class ("" for an unknown one). */
const char *xprob_fix_description(enum xprob_fix fix);

/* Iterate the table (for the generated documentation and tests). */
unsigned xprob_table_size(void);
enum xprob_code xprob_table_code(unsigned idx);

#endif /* XFMT_PROBLEM_H */
