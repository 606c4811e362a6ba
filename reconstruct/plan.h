/*
 * plan.h - the repair plan: every byte the repair will write, grouped into
 * actions, each action tied to the findings it answers.
 *
 * Reconstruction never writes while it decides.  Writers (ag_rebuild.c,
 * inode and directory writers, sb and log writers) add changes to a plan;
 * the output writer (output.c) copies the input and applies the finished
 * plan; `--dry-run` prints the plan instead; later `plan`/`apply` store it.
 * A change is a byte range of the filesystem (offsets relative to the start
 * of the filesystem, not of a whole-disk image) and its new bytes.  Two
 * changes never overlap: a writer that must change a range again replaces
 * its earlier change (xr_plan_write does this for an identical range and
 * refuses a partial overlap, which is a planner bug).
 *
 * Orphans moved to lost+found are recorded here too, for the report.
 */
#ifndef XR_PLAN_H
#define XR_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reconstruct/actions.h"

struct xa_ctx;

#define XR_NO_AG UINT32_MAX

/* One planned write. */
struct xr_change {
	uint64_t    offset;     /* byte offset in the filesystem */
	uint32_t    len;
	uint8_t    *bytes;      /* owned, len bytes; NULL when spilled (read them
	                           with xr_plan_change_bytes, never directly) */
	uint64_t    spill_off;  /* where a spilled change's bytes are in the spill file */
	const char *structure;  /* static name: "sb", "agf", "bnobt", "inode", "dir", "log" ... */
	uint32_t    agno;       /* XR_NO_AG when not within one AG */
	uint32_t    agbno;      /* block of the AG (when agno is set) */
	uint64_t    ino;        /* inode the bytes belong to, 0 = none */
	uint32_t    action;     /* index of the action it belongs to */
};

/* One step of the repair, in the order planned. */
struct xr_action {
	enum xr_action_kind kind;  /* its row in actions.def (xr_action_name) */
	uint32_t    agno;       /* XR_NO_AG when not about one AG */
	uint64_t    ino;        /* 0 when not about one inode */
	char       *text;       /* one human line, owned */
	size_t     *findings;   /* indices into ctx->findings.items it answers */
	size_t      nfindings, findings_cap;
};

/* An inode that no directory reached, placed in lost+found. */
struct xr_orphan {
	uint64_t ino;
	uint16_t mode;
	uint64_t size;
	uint64_t parent;        /* original parent directory, 0 = unknown */
	uint8_t *orig_name;     /* original name when known (owned), else NULL */
	size_t   orig_namelen;
	char    *new_path;      /* path in the output, e.g. "/lost+found/131" (owned) */
	uint64_t entries;       /* directories: entries it holds */
	uint64_t descendants;   /* directories: inodes moved with it */
};

/*
 * A name a rewritten directory holds that its own blocks no longer held:
 * where the repair found it, so that nothing inferred passes for read.
 */
struct xr_reattached {
	uint64_t    dir;        /* the directory that holds it again */
	uint64_t    ino;        /* the inode it names */
	uint8_t    *name;       /* owned */
	size_t      namelen;
	const char *source;     /* static: "parent-pointer", "log-blocks", ... */
};

/*
 * Blocks of a file that the repaired image cannot give back: they lay where
 * the input holds no bytes (past the end of a truncated image).  The file is
 * kept with its map; those blocks read as zeros.
 */
struct xr_loss {
	uint64_t ino;
	uint32_t flags;         /* XA_OWN_ATTR / XA_OWN_BMBT: which fork or block */
	uint64_t blocks;        /* filesystem blocks lost */
	uint64_t first_byte;    /* byte address of the first one */
};

/*
 * An inode the repair brought back with a new core (revive-file,
 * revive-directory): which of its fields come from evidence and which were
 * made up, so that nothing synthesized passes for evidence.  Synthesized
 * values are fixed and documented (README, "Revived inodes"): owner 0:0, all
 * times the Unix epoch, mode 0644 for a file; never a copy of another
 * inode's.  The strings are static, space-separated field names.
 */
struct xr_revived {
	uint64_t    ino;
	uint16_t    mode;
	const char *source;       /* where its contents came from */
	const char *recovered;    /* fields taken from the old core or the source */
	const char *synthesized;  /* fields given the fixed values ("" none) */
	const char *lost;         /* what could not be brought back ("" nothing) */
	uint64_t    size;
	const char *size_from;    /* the evidence the size rests on */
	uint64_t    lsn;          /* source "log": the LSN of the copy used */
};

/* What the planner decided for one AG, and on whose word (rule 4). */
struct xr_ag_note {
	uint32_t    agno;
	const char *decision;   /* static: "rebuilt", "not rebuilt: ...", "untouched" */
	const char *chunks;     /* static: where its inode chunks came from */
	const char *believed;   /* static: which metadata the rebuild trusted */
};

/*
 * Answers the actions table does not allow: a finding tied to an action
 * whose row in actions.def lacks the finding's fix class.  A planner or
 * table bug, never the input's fault: the answer is kept, counted, and the
 * first one named, for the test suite to fail on and users to be told of.
 */
struct xr_plan_mismatch {
	size_t          count;
	size_t          action;   /* the first one: its action index */
	size_t          finding;  /* its finding index */
	enum xprob_code code;     /* the finding's code */
};

struct xr_plan_index;

struct xr_plan {
	struct xr_ag_note *ag_notes;  /* one per AG, in AG order (may be NULL) */
	size_t             nag_notes;
	struct xr_action *actions;
	size_t            nactions, actions_cap;
	struct xr_change *changes;
	size_t            nchanges, changes_cap;
	struct xr_orphan *orphans;
	size_t            norphans, orphans_cap;
	struct xr_loss   *losses;   /* by inode, then fork (see struct xr_loss) */
	size_t            nlosses, losses_cap;
	struct xr_reattached *reattached; /* in the order they were planned */
	size_t            nreattached, reattached_cap;
	struct xr_revived *revived; /* in the order they were planned */
	size_t            nrevived, revived_cap;
	bool              sorted;   /* changes sorted by offset (xr_plan_finish) */
	uint64_t          bytes;    /* bytes the changes hold */
	uint64_t          max_bytes; /* bound of a stored plan's payload (0 = the
	                                default, XR_PLAN_MAX_BYTES; plan_file.c) */
	uint64_t          mem_max;  /* change bytes held in memory before spilling
	                               (0 = the default, XR_PLAN_MEM_BYTES) */
	uint64_t          mem_bytes; /* change bytes held in memory now */
	int               spill_fd; /* unnamed temporary file, -1 until needed */
	uint64_t          spill_end;
	bool              over_bound; /* the spill file could not be written */
	struct xr_plan_index *index;  /* changes ordered by offset (plan.c) */
	struct xr_plan_mismatch mismatch;  /* answers outside the actions table */
};

/*
 * A repair of a hostile or badly damaged image may rewrite most of it, so a
 * plan keeps at most this many bytes of changes in memory (or
 * $XFSRECON_PLAN_MEM MiB); the rest go to an unnamed temporary file in
 * $TMPDIR (or /tmp), created 0600 and gone when the plan is released.
 * Changes never overlap, so that file never outgrows the filesystem.
 */
#define XR_PLAN_MEM_BYTES (64ull << 20)

/*
 * A stored plan (`xfsrecon plan`) is read back whole by `apply`; its payload
 * may hold at most this many bytes (or $XFSRECON_PLAN_MAX MiB).
 */
#define XR_PLAN_MAX_BYTES (512ull << 20)

void xr_plan_init(struct xr_plan *p);
void xr_plan_release(struct xr_plan *p);

/*
 * Start an action of a kind of actions.def; returns its index (>= 0),
 * XERR_NOMEM, or XERR_USAGE for a kind outside the table.  The text is
 * formatted printf-style and copied.
 */
int xr_plan_action(struct xr_plan *p, enum xr_action_kind kind, uint32_t agno, uint64_t ino,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Count blocks lost to the file ino (fork flags): added to the entry of the
 * same inode and fork when it is the last one.  0 or XERR_NOMEM. */
int xr_plan_loss(struct xr_plan *p, uint64_t ino, uint32_t flags, uint64_t blocks,
		 uint64_t first_byte);

/* Note an inode brought back (copied).  0 or XERR_NOMEM. */
int xr_plan_revived(struct xr_plan *p, const struct xr_revived *r);

/*
 * The action answers finding index fi of ctx->findings, whose code is code;
 * 0, XERR_NOMEM, or XERR_USAGE for an action that does not exist.  When the
 * action's row in actions.def does not list the code's fix class, the answer
 * is recorded all the same and counted in p->mismatch.
 */
int xr_plan_answer(struct xr_plan *p, int action, size_t fi, enum xprob_code code);

/*
 * One line naming the plan's first answer outside the actions table, and how
 * many there are, into buf (len bytes, NUL-terminated).  Returns the count
 * (0: nothing written but "").
 */
size_t xr_plan_mismatch_text(const struct xr_plan *p, char *buf, size_t len);

/*
 * Plan writing len bytes at filesystem byte offset (copied).  A change of the
 * same range replaces the earlier one; a partial overlap with an earlier
 * change returns XERR_USAGE (a planner bug, reported as such).  structure is
 * a static string.  O(log n) in the number of changes.  Returns 0,
 * XERR_NOMEM, XERR_IO (the spill file could not be written; over_bound is
 * set) or XERR_USAGE.
 */
int xr_plan_write(struct xr_plan *p, int action, const char *structure, uint32_t agno,
		  uint32_t agbno, uint64_t ino, uint64_t offset, const void *bytes, size_t len);

/*
 * Read len bytes at filesystem byte offset as they will be after the plan:
 * the image's bytes with every planned change laid over them.  Returns 0 or
 * the image (or spill file) read error.
 */
int xr_plan_read(const struct xr_plan *p, struct xa_ctx *ctx, uint64_t offset, void *buf,
		 size_t len);

/* Append to action's line (printf-style); 0, XERR_NOMEM or XERR_USAGE. */
int xr_plan_action_append(struct xr_plan *p, int action, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a reattached name (its owned name moves into the plan). */
int xr_plan_reattached(struct xr_plan *p, struct xr_reattached *r);

/* Record an orphan (the struct's owned pointers move into the plan);
 * 0 or XERR_NOMEM (then the caller still owns them). */
int xr_plan_orphan(struct xr_plan *p, struct xr_orphan *o);

/*
 * Finish the plan: sort changes by offset and drop every change whose bytes
 * equal what the image holds already (so a clean filesystem plans nothing
 * and a plan names only real changes).  Returns 0 or an image read error.
 */
int xr_plan_finish(struct xr_plan *p, struct xa_ctx *ctx);

/*
 * The bytes of change c of plan p: its own buffer, or a spilled change's
 * bytes read into buf (at least c->len bytes; xr_plan_max_change says how
 * many any change needs).  NULL when a spilled change cannot be read back.
 */
const uint8_t *xr_plan_change_bytes(const struct xr_plan *p, const struct xr_change *c,
				    uint8_t *buf);

/* The length of the plan's longest change (at least 1). */
size_t xr_plan_max_change(const struct xr_plan *p);

/* Bytes the plan changes (sum of change lengths). */
uint64_t xr_plan_bytes(const struct xr_plan *p);

#endif /* XR_PLAN_H */
