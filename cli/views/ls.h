/*
 * ls.h - `xfsrecon ls IMAGE [PATH]`: directory listings without mounting.
 */
#ifndef XC_LS_H
#define XC_LS_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

struct xc_ls_opts {
	bool longfmt;    /* -l: inode, type, mode, links, uid, gid, size, mtime, name */
	bool recursive;  /* -R: every path below, depth first, one per line */
	bool deleted;    /* --deleted: names of removed entries still in the blocks */
	bool null;       /* -0: names as stored (raw bytes, a "/" in a name
			    included), each line ended by a NUL byte */
	bool orphans;    /* --orphans: the unreachable inodes instead of TARGET */
};

/*
 * List TARGET (a path or an inode number; default "/") to out.  Entries are
 * sorted by name bytes; "." and ".." are not listed.  Names are printed with
 * unprintable bytes and a "/" inside a name escaped as \xNN (and "\" as
 * "\\"), so a printed path splits at its "/" into the stored names.  Returns 0, XERR_USAGE
 * for a bad target, XERR_IO when some directory could not be read completely
 * (what could be read is still listed), or another negative xerr.
 * With o->deleted, each listed directory's deleted names follow its live
 * ones as "name (deleted: inode N, STATE)", STATE the inode btree's word
 * on the inode now: free, in use (again), chunk freed, or unknown; with
 * o->longfmt, ", ctime T, crtime T" of an inode not in use again.
 */
int xc_cmd_ls(struct xa_ctx *ctx, const char *target, const struct xc_ls_opts *o,
	      FILE *out, FILE *err);

/*
 * ls --orphans: each top of the unreachable trees (analyzer/model/orphans.h)
 * as "orphan:INODE", with -R the tree below an unreachable directory as
 * "orphan:INODE/name...", -l and --deleted as for a listing.  Needs the
 * check's namespace pass (XA_RUN_CHECK).  Returns 0 or a negative xerr.
 */
int xc_cmd_ls_orphans(struct xa_ctx *ctx, const struct xc_ls_opts *o, FILE *out, FILE *err);

#endif /* XC_LS_H */
