/*
 * apply.h - the `apply` and `undo` commands: write a stored plan into a
 * TARGET (an image file or a block device) in place, and put the old bytes
 * back from the undo file apply wrote.
 *
 * Nothing is written unless everything checks: TARGET is not mounted (a
 * block device is opened O_EXCL; an image file must not back a mounted or
 * held loop device), it is the filesystem the plan was made for (uuid and
 * geometry), and every planned range holds either the bytes the plan found
 * there ("before") or the bytes it writes ("after", already written by an
 * interrupted run).  Any other content is a divergence: each is reported
 * and TARGET is left as it was.  The undo file (the old bytes and the
 * plan's identity) is durable before the first write.  A second apply
 * completes an interrupted one; undo takes back a complete or partial one.
 *
 * Offsets are filesystem offsets.  TARGET holds the filesystem at byte 0
 * (a partition's device, an image of the filesystem alone), at --offset
 * BYTES, in partition --partition N of a whole-disk image or device, or,
 * when byte 0 holds no XFS superblock, in the first partition of its table
 * that does (as the reading commands find it).  The uuid and geometry checks
 * are made there.
 *
 * Test hook: $XFSRECON_TEST_APPLY_STOP_AFTER=N makes apply (and undo) kill
 * itself with SIGKILL right after its Nth write to TARGET, to prove that an
 * interrupted run is completed or undone.  Nothing else reads it.
 */
#ifndef XR_APPLY_H
#define XR_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/messages.h"

struct xr_apply_opts {
	const char *file;      /* the plan (apply) or the undo file (undo) */
	const char *target;
	const char *undo;      /* apply: the undo file to write, or the one an
	                          interrupted apply wrote (resumed); may be NULL */
	bool        undo_mode; /* run `undo` (file is an undo file) */
	bool        dry_run;   /* verify only; write nothing */
	bool        have_offset; /* the filesystem starts at byte offset of TARGET */
	uint64_t    offset;
	int         partition; /* > 0: partition number partition of TARGET's table */
};

/* How an apply or undo ended; the command line turns it into an exit code. */
enum xr_apply_result {
	XR_APPLY_DONE = 0,        /* written and read back, verified (dry run), or nothing to do */
	XR_APPLY_REFUSED,         /* TARGET is mounted, foreign or diverged: nothing written */
	XR_APPLY_BAD_REQUEST,     /* the plan, undo file or TARGET named is unusable */
	XR_APPLY_FAILED,          /* I/O or memory failed (TARGET may be partly written) */
};

/*
 * Run apply or undo: DONE when applied, restored, already in place, or (dry
 * run) verified; REFUSED when TARGET is mounted, another filesystem, or
 * diverged (each divergent range is a result message), nothing written;
 * FAILED on I/O or a damaged plan; BAD_REQUEST for an unusable file or
 * TARGET.  What was done is said as results on msgs, why not as
 * diagnostics; nothing is printed.
 */
enum xr_apply_result xr_apply(const struct xr_apply_opts *o, const struct xa_messages *msgs);

#endif /* XR_APPLY_H */
