/*
 * repair_int.h - state shared by the planner's phases (repair.c drives,
 * repair_inodes.c decides about inodes).  Not a public interface.
 */
#ifndef XR_REPAIR_INT_H
#define XR_REPAIR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/model/u64set.h"
#include "reconstruct/ag_rebuild.h"
#include "reconstruct/env.h"
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
	bool                have_res;
	struct xr_ag_result res;
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
	struct xa_u64set              attr_dropped;  /* inodes whose attr fork is emptied */
	struct xa_u64set              ino_indexed;   /* inodes whose inobt state the
	                                                AG rebuild answers for */
};

static inline unsigned rp_family(unsigned code)
{
	return (code >> 8) & 0xFF;
}

/* Mark finding fi answered by action; 0 or XERR_NOMEM. */
int rp_answer(struct xr_rp *rp, int action, size_t fi);

/* AG agno must be rebuilt (records of it changed, or it is damaged). */
void rp_need_rebuild(struct xr_rp *rp, uint32_t agno);

/* The inode phase: clear, mend and count inodes (repair_inodes.c). */
int rp_plan_inodes(struct xr_rp *rp);

/* Is ino's record dropped from the kept ownership (cleared inode, or an
 * attr-fork record of an inode whose attr fork is emptied)? */
bool rp_record_dropped(const struct xr_rp *rp, uint64_t owner, uint32_t flags);

#endif /* XR_REPAIR_INT_H */
