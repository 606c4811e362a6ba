/*
 * show.h - `xfsrecon show IMAGE WHAT`: one structure, field by field.
 */
#ifndef XA_SHOW_H
#define XA_SHOW_H

#include <stdbool.h>
#include <stdio.h>

struct xa_ctx;

/*
 * Print the structure named by argv (e.g. {"agf", "1"}) to out.  The context
 * must have run the superblock pass.  Returns 0, XERR_USAGE for an unknown or
 * out-of-range WHAT (with a message on err), or another negative xerr.
 */
int xa_show(FILE *out, FILE *err, struct xa_ctx *ctx, int argc, char **argv, bool annotate);

#endif /* XA_SHOW_H */
