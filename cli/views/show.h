/*
 * show.h - `xfsrecon show IMAGE WHAT`: structures field by field, each
 * field with its offset, size, raw and decoded value, meaning and the
 * verifier's verdict, as text or JSON.
 */
#ifndef XC_SHOW_H
#define XC_SHOW_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

struct xc_show_opts {
	bool        annotate;  /* text: offset, size, raw bytes, meaning, verdict */
	bool        json;      /* one JSON document instead of text */
	const char *as;        /* `block`: the structure type to read it as, or NULL */
	const char *image;     /* the image's name, for the JSON document (may be NULL) */
};

/*
 * Show the structures named by argv to out.  WHAT is one of: sb [AG], agf
 * AG, agi AG, agfl AG, inode INO, block AG/AGBNO, btree AG TREE (the whole
 * tree, level by level), btree AG AGBNO (one btree block), dir PATH|INODE,
 * attr PATH|INODE, path PATH, log.  The context must have run the superblock pass.  Returns
 * 0, XERR_USAGE for an unknown or out-of-range WHAT (with a message on err),
 * or another negative xerr (the JSON document is still closed).
 */
int xc_show_cmd(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv,
		const struct xc_show_opts *opts);

/* The text form of xc_show_cmd, with or without --annotate. */
int xc_show(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv, bool annotate);

#endif /* XC_SHOW_H */
