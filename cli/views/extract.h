/*
 * extract.h - `xfsrecon extract IMAGE [PATH] -C DIR`: copy files out of the
 * image into a host directory, without mounting.
 */
#ifndef XC_EXTRACT_H
#define XC_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct xa_ctx;

struct xc_extract_opts {
	const char *dest;      /* existing host directory everything goes under */
	bool        progress;  /* a progress line on err (when err is a terminal) */
	bool        verbose;   /* one line on err per thing stripped */
	bool        same_owner;           /* reproduce the image's uid and gid */
	bool        preserve_privileges;  /* setuid/setgid/sticky bits, device
					   * nodes, trusted.* and security.* */
	uint64_t    max_bytes; /* stop before writing more (0: no bound but the
				* destination's free space) */
	bool        progress_lines; /* --progress: a line on err every 1,000 entries
				     * (and at the end), terminal or not */
	const char *manifest;  /* --manifest FILE: one line per name (extract_manifest.h) */
	bool        deleted;   /* --deleted: deleted files too (needs XA_RUN_CHECK with
				* keep_ownership: the free space) */
};

struct xc_extract_stats {
	uint64_t files, dirs, symlinks, specials;
	uint64_t bytes;        /* data bytes written (holes and zero blocks are not) */
	uint64_t skipped;      /* entries that could not be created on the host */
	uint64_t damaged;      /* files with byte ranges that could not be read,
				* mapped twice, or cut at a damaged size */
	/* Stripped by default (see xc_cmd_extract): */
	uint64_t strip_modes;    /* non-directories whose setuid/setgid/sticky bits were dropped */
	uint64_t strip_owners;   /* entries whose uid/gid was not reproduced */
	uint64_t strip_devices;  /* device nodes not created */
	uint64_t strip_xattrs;   /* trusted.* / security.* attributes not set */
	uint64_t dup_blocks;     /* blocks mapped twice in one file, left as holes */
	uint64_t hardlinks;      /* later names of an inode, made as hard links */
	uint64_t link_copies;    /* later names written as copies (link table full or
				  * linking refused by the host) */
	uint64_t deleted_files;  /* deleted files written (--deleted) */
	uint64_t deleted_lost;   /* deleted names whose file could not be (why on err) */
	bool     limit_hit;      /* stopped before the byte bound or the free space */
};

/*
 * Extract TARGET (a path or inode number; "/" for everything) into o->dest.
 * Every host file is created relative to an open directory descriptor with
 * O_NOFOLLOW / O_EXCL, so no name and no symlink in the image can make a
 * write land outside dest, and nothing existing is overwritten.  Names are
 * written as stored, except that "/" and NUL bytes become \x2f / \x00.
 *
 * Every attribute is set through a descriptor of the entry just created
 * (never by name, except the owner and times of a symlink, which the
 * no-follow calls set on the link itself), so an entry swapped for a
 * symlink by someone who can write into dest changes nothing outside.
 * Unless asked (o->same_owner, o->preserve_privileges), what would hand
 * privileges from the image to the host is stripped, as tar does for a
 * user: setuid/setgid/sticky bits of non-directories, the image's owners,
 * device nodes, trusted.* and security.* attributes; st counts what was.
 * An inode with several names (hard links) is extracted once and its
 * other names linked to it (extract_links.h); o->manifest lists every name
 * with its inode, digest and state (extract_manifest.h).
 * Data: holes, unwritten extents, unreadable ranges and all-zero blocks
 * stay holes; a block mapped twice in one file is written once; nothing
 * is written past o->max_bytes or the destination's free space.
 * Returns 0, XERR_IO when something was skipped or damaged (named on err),
 * XERR_NOMEM when a bound stopped it (st->limit_hit), or another negative
 * xerr.
 */
int xc_cmd_extract(struct xa_ctx *ctx, const char *target, const struct xc_extract_opts *o,
		   struct xc_extract_stats *st, FILE *err);

#endif /* XC_EXTRACT_H */
