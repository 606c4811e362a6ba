/*
 * show_int.h - what the files of `xfsrecon show` share: the run's state and
 * the views each file provides (show.c: headers, inodes, single blocks;
 * show_btree.c: btree blocks and whole trees; show_dir.c: directory blocks,
 * directories and path lookups; show_log.c: the log's record headers).
 */
#ifndef XC_SHOW_INT_H
#define XC_SHOW_INT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/engine.h"
#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "cli/views/show_out.h"
#include "formats/btree.h"

struct xbuf;

/* Blocks one `show btree` or `show dir` prints at most (a bound on hostile images). */
#define XC_SHOW_MAX_BLOCKS 100000u

struct xc_show_run {
	struct xa_ctx     *ctx;
	FILE              *err;
	struct xc_show_out o;
};

/*
 * Read len bytes at image byte off through the cache.  Returns 0 and a
 * buffer to release with xa_put, or a negative xerr (with a message on err).
 * Inline: every view file reads, none should need show.c for it.
 */
static inline int xc_show_read(struct xc_show_run *s, uint64_t off, size_t len,
			       struct xbuf **b)
{
	int rc = xa_read(s->ctx, off, len, b, NULL);

	if (rc)
		fprintf(s->err, "xfsrecon: cannot read %zu bytes at byte %" PRIu64 ": %s\n", len,
			off, xerr_str(rc));
	return rc;
}

/*
 * Show one btree block of tree bt (buf holds blocksize bytes read from
 * image byte `byte`): header fields with the header verifier's verdicts,
 * then records (each verified) or keys and pointers.  agno is the AG (AG
 * trees) and owner the expected owner (agno, or the inode for a bmbt);
 * level is the expected level or -1.  Child pointers of a node go to
 * children (up to *nchildren entries, *nchildren set to how many) when
 * children is not NULL.
 */
void xc_show_bt_block(struct xc_show_run *s, enum xfmt_btnum bt, const char *where,
		      const uint8_t *buf, size_t len, uint64_t byte, uint32_t agno,
		      uint64_t owner, int level, bool is_root, uint64_t *children,
		      size_t *nchildren);

/* `show btree AG TREE`: the whole tree, level by level.  0 or a negative xerr. */
int xc_show_btree(struct xc_show_run *s, uint32_t agno, enum xfmt_btnum bt);

/* Parse a tree name (bnobt, cntbt, inobt, finobt, rmapbt, refcountbt, bmbt). */
bool xc_show_bt_parse(const char *name, enum xfmt_btnum *bt);

/*
 * Show one directory block (dirblksize bytes at image byte `byte`) of
 * directory owner, at fork block dablk (UINT32_MAX: not known; the checks
 * that need it assume the first block of the segment its magic belongs to).
 * The form comes from the magic.  Returns 0, or XERR_USAGE (with a message
 * on err) when the magic is no directory block's.
 */
int xc_show_dirblock(struct xc_show_run *s, const char *where, const uint8_t *buf,
		     size_t len, uint64_t byte, uint64_t owner, uint32_t dablk);

/*
 * Show one attr-fork block (blocksize bytes at image byte `byte`) of inode
 * owner (0: the one a v5 header names) at attr block dablk (UINT32_MAX: not
 * known, the checks that need it are left out), in a fork mapping blocks
 * below fork_end (0: not known).  The kind comes from the magic: leaf, DA
 * node (checked as an attr fork's) or v5 remote value; on v4 a block with
 * no magic is shown as raw value bytes.  Returns 0, or XERR_USAGE (with a
 * message on err) for a v5 block whose magic is no attr block's.
 */
int xc_show_attrblock(struct xc_show_run *s, const char *where, const uint8_t *buf,
		      size_t len, uint64_t byte, uint64_t owner, uint32_t dablk,
		      uint32_t fork_end);

/* A DA node block whose fork is not known (dir3 and attr3 share the form).  Returns 0. */
int xc_show_danode(struct xc_show_run *s, const char *where, const uint8_t *buf, size_t len,
		   uint64_t byte);

/* A remote symlink block (v5: the XSLM header and the target bytes; v4: raw bytes). */
void xc_show_symlink_block(struct xc_show_run *s, const char *where, const uint8_t *buf,
			   size_t len, uint64_t byte);

/* `show attr PATH|INODE`: every block of the attr fork, or its shortform list. */
int xc_show_attr(struct xc_show_run *s, const char *arg);

/*
 * Inode number from "123" or an absolute path.  Returns 0, XERR_USAGE
 * (with a message on err) or XERR_NOMEM.
 */
int xc_show_resolve(struct xc_show_run *s, const char *arg, uint64_t *ino);

/* `show dir PATH|INODE` and `show path PATH`.  0 or a negative xerr. */
int xc_show_dir(struct xc_show_run *s, const char *arg);
int xc_show_path(struct xc_show_run *s, const char *path);

/* `show log`: the record headers from the start of the log.  0 or a negative xerr. */
int xc_show_log(struct xc_show_run *s);

#endif /* XC_SHOW_INT_H */
