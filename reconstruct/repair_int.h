/*
 * repair_int.h - state shared by the planner's phases (repair.c drives;
 * repair_inodes.c, repair_names.c, crosslink.c, repair_space.c,
 * repair_tail.c and log_salvage.c plan; repair_state.c and repair_chunks.c
 * serve them all and call none).  Not a public interface.
 */
#ifndef XR_REPAIR_INT_H
#define XR_REPAIR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/check/ownrec.h"
#include "analyzer/log/log_stale.h"
#include "analyzer/model/bitmap.h"
#include "analyzer/model/u64set.h"
#include "reconstruct/ag_rebuild.h"
#include "reconstruct/env.h"
#include "reconstruct/rmap_owners.h"
#include "reconstruct/repair.h"

/* Finding families (the high byte of a code, problems.def). */
enum {
	FAM_IMAGE = 0x00, FAM_SB = 0x01, FAM_SBCOPY = 0x02, FAM_AGF = 0x03, FAM_AGI = 0x04,
	FAM_AGFL = 0x05, FAM_BTREE = 0x06, FAM_INODE = 0x07, FAM_ICHUNK = 0x08,
	FAM_COUNTER = 0x09, FAM_DIR = 0x0A, FAM_ATTR = 0x0B, FAM_SYMLINK = 0x0C,
	FAM_BMAP = 0x0D, FAM_NS = 0x0E, FAM_OWN = 0x0F,
};

struct rp_ag {
	bool                rebuild;    /* space and inode indexes must be rebuilt */
	const char         *blocked;    /* why they cannot be (NULL = they can) */
	int                 action;     /* the rebuild action, -1 before it exists */
	bool                blocked_known;  /* rp_ag_blocked's answer is cached */
	const char         *blocked_why;
	bool                have_res;
	struct xr_ag_result res;
	/* Space handed out by the planner itself (directory blocks): */
	bool                space_ready;  /* used is built */
	struct xa_bitmap    used;         /* blocks owned before the repair, or allocated */
	struct xa_ownlist   added;        /* records of the blocks allocated */
};

/* One parent pointer an inode carried before the repair (repair_pptr.c). */
struct rp_pptr {
	uint64_t child;
	uint64_t parent;
	uint32_t gen;
	uint32_t name_off;   /* in rp_pptrs.names */
	uint8_t  namelen;
};

/* Every parent pointer of the live inodes, sorted by parent, then name. */
struct rp_pptrs {
	bool            built;
	struct rp_pptr *v;
	size_t          n, cap;
	uint8_t        *names;
	size_t          nnames, names_cap;
	/* what rp_pptr_write did */
	size_t          written, unwritten, added, removed;
};

struct xr_rp {
	struct xa_ctx                *ctx;
	struct xr_plan               *plan;
	struct xr_env                 env;
	const struct xr_repair_opts  *o;
	struct xr_repair_summary     *sum;
	struct rp_ag                 *ags;
	bool                         *answered;      /* per finding index */
	struct xa_u64set              cleared;       /* inodes freed by the plan */
	struct xa_u64set              attr_dropped;  /* inodes whose attr fork is emptied,
	                                                or its map replaced (crosslink.c) */
	struct xa_u64set              dir_rewritten; /* directories whose data fork is
	                                                replaced by new blocks, and files
	                                                whose data fork map is replaced
	                                                (crosslink.c): the old records go */
	struct xa_u64set              new_inodes;    /* inodes the plan allocates */
	struct xa_u64set              dead;          /* slots of a chunk taken back that
	                                                held no inode: written free */
	bool                          root_fixed;    /* sb rootino recomputed */
	bool                          sb_fixed;      /* another field of the primary set
	                                                from what the check found */
	bool                          zero_log;      /* the dirty log is discarded: asked
	                                                for, or it holds no record */
	/* v5 without rmapbt: directory data blocks found in unowned space, by
	 * the owner their header names (dir_salvage.c builds it once) */
	bool                          dscan_built;
	struct rp_dblk               *dscan;
	size_t                        ndscan;
	/* the same for the log's copies of directory blocks at places nothing
	 * owned and the disk no longer holds their block (dir_salvage.c) */
	bool                          lscan_built;
	struct rp_dblk               *lscan;
	size_t                        nlscan;
	/* the last logged state of every inode and directory block the log
	 * names (dir_salvage.c builds it once, on the first need) */
	bool                          stale_built;
	struct xa_stale               stale;
	/* where the last rp_dir_salvage that found a directory found it
	 * (static: "directory-blocks", "directory-blocks-and-log",
	 * "literal-area", "log"), and for the log the LSN of the newest copy
	 * used */
	const char                   *salvage_source;
	uint64_t                      salvage_lsn;
	size_t                        salvage_nlog;  /* blocks of it the log gave */
	/* parent pointers, on filesystems that have them (repair_pptr.c
	 * builds the index on the first need) */
	struct rp_pptrs               pptrs;
	/* the reverse map by owner and by start (rmap_owners.c builds it on
	 * the first need) */
	struct rp_rmap_owners         rmo;
};

struct rp_dblk {
	uint64_t owner;
	uint32_t agno, agbno;
};

static inline unsigned rp_family(unsigned code)
{
	return (code >> 8) & 0xFF;
}

/* A btree finding about an inode's bmbt block (its structure is "bmbt...");
 * inobt record findings name an inode too but belong to the AG. */
struct xa_finding;
bool rp_is_bmbt_finding(const struct xa_finding *f);

struct xa_inode;
/* Inode ino as the plan leaves it (an earlier phase may have mended it):
 * 0, XERR_NOMEM, or XERR_FORMAT when it does not decode as an inode
 * (repair_state.c). */
int rp_read_planned_inode(struct xr_rp *rp, uint64_t ino, struct xa_inode *ip);

/* Plan inode ino's whole core (g->inodesize bytes of buf) under action. */
int rp_write_inode(struct xr_rp *rp, int action, uint64_t ino, const uint8_t *buf);

/* Blocks ino owns in its attr fork (extents and attr bmbt blocks), 0 when
 * the plan empties that fork. */
uint64_t rp_attr_blocks(const struct xr_rp *rp, uint64_t ino);

/* Blocks the data fork of inode ino (raw bytes, decoded d) maps, with its
 * bmbt blocks, into *n; false when its map cannot be read whole. */
struct xfmt_dinode;
bool rp_data_blocks(struct xr_rp *rp, uint64_t ino, const uint8_t *raw,
		    const struct xfmt_dinode *d, uint64_t *n);

/* Mark finding fi answered by action; 0 or XERR_NOMEM. */
int rp_answer(struct xr_rp *rp, int action, size_t fi);

/* Entries that named ino when it looked dead (nsEntryBadInode) are
 * answered by the action that brings ino back; 0 or XERR_NOMEM. */
int rp_answer_entries(struct xr_rp *rp, int action, uint64_t ino);

/* AG agno must be rebuilt (records of it changed, or it is damaged). */
void rp_need_rebuild(struct xr_rp *rp, uint32_t agno);

/* The inode phase: clear, mend and count inodes (repair_inodes.c). */
int rp_plan_inodes(struct xr_rp *rp);

/* Does the inode btree (or the rmapbt, when it stood in) say ino is
 * allocated?  The evidence that an inode whose core is gone was in use. */
bool rp_inobt_says_used(const struct xa_ctx *ctx, uint64_t ino);

/* Insert a record for ino (an inode the plan brings back) into ctx->irecs,
 * keeping them sorted; 0 or XERR_NOMEM. */
int rp_irec_insert(struct xa_ctx *ctx, uint64_t ino, uint16_t mode);
/* The same for n inodes none of which has a record, in one merge (one at
 * a time, each insert moves the records after it: quadratic for the
 * thousands of files a lost inode region brings back).  Sorts inos. */
int rp_irec_insert_many(struct xa_ctx *ctx, uint64_t *inos, size_t n, uint16_t mode);

/*
 * Regular files the inode phase cleared, or whose data fork map is lost,
 * whose data the rmapbt still names: a data fork rebuilt from those
 * records (file_salvage.c).  Runs before the namespace is built.
 */
int rp_revive_files(struct xr_rp *rp);

/*
 * The cross-link phase (crosslink.c): every block two owners claim gets
 * one; the loser's fork gets a copy of the blocks (the winner is file data)
 * or a hole (metadata), so that the AG can be rebuilt.  Runs after the
 * namespace phase, before the AG rebuilds.  0 or a negative xerr.
 */
int rp_plan_crosslinks(struct xr_rp *rp);

/*
 * The metadata directory tree (metadir filesystems) written again where
 * the check found it broken, its root made anew where it is lost
 * (repair_metadir.c).  Runs after the inode phase, before the namespace.
 */
int rp_plan_metadir(struct xr_rp *rp);

/*
 * Plan a directory core for ino with an empty data fork under action, marked
 * new and its AG due for a rebuild (repair_names.c).  With keep_old, the old
 * core's mode, owner and times stay where it still decodes as a directory
 * (*kept is then true); otherwise the core is fresh, with the fixed values
 * of struct xr_revived: owner 0:0, times the epoch, permissions perm.
 */
int rp_plan_dir_core(struct xr_rp *rp, uint64_t ino, uint16_t perm, int action, bool keep_old,
		     bool *kept);

/* ---- parent pointers (repair_pptr.c) ---- */

/* Does the filesystem keep parent pointers? */
bool rp_has_pptrs(const struct xa_ctx *ctx);

/* Build rp->pptrs from every live inode as the plan leaves it (once);
 * nothing on a filesystem without parent pointers.  0 or XERR_NOMEM. */
int rp_pptr_prepare(struct xr_rp *rp);

/* The run of rp_pptrs entries naming directory parent: its length, and
 * *first its start. */
size_t rp_pptr_children(const struct rp_pptrs *x, uint64_t parent, size_t *first);

/* The generation most parent pointers naming parent give (*gen), and how
 * many give it (0: none names parent). */
size_t rp_pptr_gen_vote(const struct rp_pptrs *x, uint64_t parent, uint32_t *gen);

/* A revived directory ino takes the generation its children's parent
 * pointers name (planned under action); 0 or a negative xerr. */
int rp_pptr_take_gen(struct xr_rp *rp, uint64_t ino, int action);

/* One name the repaired tree gives an inode, for rp_pptr_write. */
struct rp_pptr_want {
	uint64_t       child, parent;
	uint32_t       gen;      /* the parent's generation as planned */
	const uint8_t *name;     /* namelen bytes (the caller's) */
	uint8_t        namelen;
};

/* Every inode named in w (all of its names there; w is sorted here) whose
 * parent pointers differ from them gets them written again under one
 * write-parent-pointers action.  0 or a negative xerr. */
int rp_pptr_write(struct xr_rp *rp, struct rp_pptr_want *w, size_t n);

/* Free the index. */
void rp_pptr_release(struct rp_pptrs *x);

/* The namespace phase: directories rewritten from what they still name,
 * orphans linked into lost+found, link counts (repair_names.c). */
int rp_plan_names(struct xr_rp *rp);

/* A truncated input (repair_tail.c): the files whose blocks lay in the
 * missing end are listed as losses, the truncation finding answered.  0 or
 * XERR_NOMEM. */
int rp_plan_missing_tail(struct xr_rp *rp);

/*
 * Allocate up to want contiguous blocks (a multiple of unit) for owner (file offset, XA_OWN_*
 * flags), in AG agno_hint when it has room, else in another AG whose owned
 * blocks are known.  Never hands out a block anything owned before the
 * repair (released blocks stay as they were: evidence is not overwritten).
 * On success *agno, *agbno and *got say what was given (got <= want; the
 * caller asks again for the rest) and the AG is marked for a rebuild.
 * Returns 0, XERR_NOMEM, or XERR_UNSUPPORTED when no AG has a free block
 * (repair_space.c).
 */
int rp_space_alloc(struct xr_rp *rp, uint32_t agno_hint, uint32_t want, uint32_t unit,
		   uint64_t owner, uint64_t offset, uint32_t flags, uint32_t *agno, uint32_t *agbno,
		   uint32_t *got);

/* Never hand out these blocks (old blocks read as evidence by a salvage). */
void rp_space_hold(struct xr_rp *rp, uint32_t agno, uint32_t agbno, uint32_t len);

/* Blocks of AG agno owned before the repair or allocated by it, or NULL
 * when the AG's ownership is not known (or out of memory). */
const struct xa_bitmap *rp_space_owned(struct xr_rp *rp, uint32_t agno);

/* Give back every block allocated for owner (a write that could not finish). */
void rp_space_unalloc(struct xr_rp *rp, uint64_t owner);

/* Why AG agno's ownership cannot be trusted for a rebuild, or NULL. */
const char *rp_ag_blocked(struct xr_rp *rp, uint32_t agno);

/* Free what the per-AG space state holds. */
void rp_space_release(struct xr_rp *rp);

struct xfmt_dirent;
/* What rp->salvage_source says, for a sentence ("its blocks", "the log"). */
const char *rp_salvage_source_text(const char *source);

/* The last logged state of inode ino when the log holds one (dir_salvage.c),
 * else NULL. */
struct xa_stale_inode;
const struct xa_stale_inode *rp_stale_inode(struct xr_rp *rp, uint64_t ino);

/* Sweep the log once for the last copy of every inode and directory block
 * it names: rp->stale.
 * Later calls do nothing.  0 or XERR_NOMEM (dir_salvage.c). */
int rp_stale_prepare(struct xr_rp *rp);

/* Inodes whose slot the plan empties (cleared, or dead in a chunk taken
 * back) brought back whole from their last copy in the log, where it holds
 * (log_salvage.c).  0 or a negative xerr. */
int rp_revive_from_log(struct xr_rp *rp);

/* The log's last copy of ino describes an inode in use (log_salvage.c). */
bool rp_stale_in_use(struct xr_rp *rp, uint64_t ino);

/* The chunk of ino, which no tree or scan knows, taken back where the
 * geometry puts it when nothing owns its blocks, its slots written free
 * and marked dead (for rp_revive_from_log to fill); under an action of its
 * own.  0, XERR_UNSUPPORTED (it cannot be), or XERR_NOMEM (repair_chunks.c). */
int rp_take_back_chunk(struct xr_rp *rp, uint64_t ino);

/* The known chunk holding ino (in its AG), or NULL (repair_chunks.c). */
const struct xa_ichunk *rp_chunk_of(const struct xa_ctx *ctx, uint64_t ino);

/* ino's chunk, which no known chunk holds, recorded where the geometry puts
 * it and owned by OWN_INODES for the rebuild, when nothing owns those
 * blocks; 0, XERR_UNSUPPORTED or XERR_NOMEM (repair_chunks.c). */
int rp_add_chunk(struct xr_rp *rp, uint64_t ino);

/* The slots of every known chunk in the blocks of ino's chunk (rp_add_chunk
 * takes a whole block's chunks back) that hold no inode, written as free
 * inodes under action (repair_chunks.c). */
int rp_reinit_taken_back(struct xr_rp *rp, uint64_t ino, int action);

/* The slots of chunk c of AG agno that hold no inode written as free
 * inodes under action (repair_chunks.c). */
int rp_reinit_dead_slots(struct xr_rp *rp, uint32_t agno, const struct xa_ichunk *c,
			 int action);


/*
 * Entries of directory ino whose inode core is destroyed, from the data
 * blocks the rmapbt says it owned (or, without one, whose v5 header names
 * it) and the log's copies of those gone on disk, or else from its literal
 * area read as a short-form directory, or else from the last copy of that
 * area the log holds (dir_salvage.c).  fn (may be NULL) gets each entry
 * ("." and ".." excluded); *dotdot the ".." found (0 = none).  Returns 1
 * when the directory was found, 0 when nothing describes it, or a negative
 * xerr (fn's included).
 */
int rp_dir_salvage(struct xr_rp *rp, uint64_t ino, int (*fn)(void *arg, const struct xfmt_dirent *de),
		   void *arg, uint64_t *dotdot);

/*
 * Directory dir (its inode standing) could not be read whole: fn gets the
 * entries of the log's copies of the data blocks its fork maps where the
 * disk no longer holds a block of it (v5 only: a copy must name its owner
 * and address).  The number of blocks the log gave, or a negative xerr
 * (dir_salvage.c).
 */
struct xa_inode;
int rp_dir_log_blocks(struct xr_rp *rp, const struct xa_inode *dir,
		      int (*fn)(void *arg, const struct xfmt_dirent *de), void *arg);

/*
 * Rewrite directory ino (its inode read through the plan) to hold exactly
 * the n entries e with ".." = parent: short form when it fits the inode,
 * else new blocks from rp_space_alloc mapped as an extent list, or by a
 * new bmbt when the list does not fit the fork (its old data blocks are
 * released).  The inode's size, format, extent count, block count and
 * link count (nlink) are set and it is sealed.  Returns 0, XERR_NOMEM, or
 * XERR_UNSUPPORTED when the directory cannot be written (no space) -
 * nothing planned then (dir_write.c).
 */
struct xfmt_dirent_in;
int rp_dir_write(struct xr_rp *rp, int action, uint64_t ino, uint64_t parent,
		 const struct xfmt_dirent_in *e, size_t n, uint32_t nlink);

/* Is ino's record dropped from the kept ownership (cleared inode, or an
 * attr-fork record of an inode whose attr fork is emptied)? */
bool rp_record_dropped(const struct xr_rp *rp, uint64_t owner, uint32_t flags);

#endif /* XR_REPAIR_INT_H */
