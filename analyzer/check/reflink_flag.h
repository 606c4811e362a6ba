/*
 * reflink_flag.h - an inode whose data fork maps shared blocks must carry
 * the reflink flag (XFS_DIFLAG2_REFLINK): the kernel decides from the flag
 * whether a write must copy first, so a shared block under an unflagged
 * inode would be overwritten in place under the other owners.  xfs_repair
 * sets the flag ("setting reflink flag on inode"); the check reports it
 * (inoReflinkFlagMissing) and repair sets it too.  A flag on an inode that
 * shares nothing is harmless (a clone was deleted): not reported.  Only
 * regular files can carry the flag, and a refcount record that runs past
 * its AG is damage, not evidence of sharing: neither makes a finding here.
 */
#ifndef XA_REFLINK_FLAG_H
#define XA_REFLINK_FLAG_H

#include "analyzer/check/ownrec.h"
#include "analyzer/model/u64set.h"

struct xa_ctx;

/*
 * One AG: report every inode whose data-fork records in fwd (normalised)
 * overlap an extent refc (the refcountbt's records, owner = count) shares,
 * unless flagged holds it.  reported holds the inodes already reported (in
 * other AGs) and gains the new ones.  Returns 0 or XERR_NOMEM.
 */
int xa_check_reflink_flags(struct xa_ctx *ctx, uint32_t agno, const struct xa_ownlist *fwd,
			   const struct xa_ownlist *refc, const struct xa_u64set *flagged,
			   struct xa_u64set *reported);

#endif /* XA_REFLINK_FLAG_H */
