/*
 * show_int.h - what the files of `xfsrecon show` share: the run's state and
 * the views each file provides (show.c: headers, inodes, single blocks;
 * show_btree.c: btree blocks and whole trees; show_dir.c: directory blocks,
 * directories and path lookups; show_log.c: the log's record headers).
 */
#ifndef XA_SHOW_INT_H
#define XA_SHOW_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/engine.h"
#include "analyzer/views/show_out.h"
#include "formats/btree.h"

struct xbuf;

/* Blocks one `show btree` or `show dir` prints at most (a bound on hostile images). */
#define XA_SHOW_MAX_BLOCKS 100000u

struct xa_show_run {
	struct xa_ctx     *ctx;
	FILE              *err;
	struct xa_show_out o;
};

/*
 * Read len bytes at image byte off through the cache.  Returns 0 and a
 * buffer to release with xa_put, or a negative xerr (with a message on err).
 */
int xa_show_read(struct xa_show_run *s, uint64_t off, size_t len, struct xbuf **b);

/*
 * Show one btree block of tree bt (buf holds blocksize bytes read from
 * image byte `byte`): header fields with the header verifier's verdicts,
 * then records (each verified) or keys and pointers.  agno is the AG (AG
 * trees) and owner the expected owner (agno, or the inode for a bmbt);
 * level is the expected level or -1.  Child pointers of a node go to
 * children (up to *nchildren entries, *nchildren set to how many) when
 * children is not NULL.
 */
void xa_show_bt_block(struct xa_show_run *s, enum xfmt_btnum bt, const char *where,
		      const uint8_t *buf, size_t len, uint64_t byte, uint32_t agno,
		      uint64_t owner, int level, bool is_root, uint64_t *children,
		      size_t *nchildren);

/* `show btree AG TREE`: the whole tree, level by level.  0 or a negative xerr. */
int xa_show_btree(struct xa_show_run *s, uint32_t agno, enum xfmt_btnum bt);

/* Parse a tree name (bnobt, cntbt, inobt, finobt, rmapbt, refcountbt, bmbt). */
bool xa_show_bt_parse(const char *name, enum xfmt_btnum *bt);

/*
 * Show one directory block (dirblksize bytes at image byte `byte`) of
 * directory owner, at fork block dablk (UINT32_MAX: not known; the checks
 * that need it assume the first block of the segment its magic belongs to).
 * The form comes from the magic.  Returns 0, or XERR_USAGE (with a message
 * on err) when the magic is no directory block's.
 */
int xa_show_dirblock(struct xa_show_run *s, const char *where, const uint8_t *buf,
		     size_t len, uint64_t byte, uint64_t owner, uint32_t dablk);

/* `show dir PATH|INODE` and `show path PATH`.  0 or a negative xerr. */
int xa_show_dir(struct xa_show_run *s, const char *arg);
int xa_show_path(struct xa_show_run *s, const char *path);

/* `show log`: the record headers from the start of the log.  0 or a negative xerr. */
int xa_show_log(struct xa_show_run *s);

#endif /* XA_SHOW_INT_H */
