/*
 * badmap.h - `xfsrecon badmap IMAGE MAPFILE`: every file, directory and
 * metadata structure an unreadable range of a ddrescue mapfile touches, so
 * that a ddrescue user can decide what to retry.
 */
#ifndef XC_BADMAP_H
#define XC_BADMAP_H

#include <stdio.h>

struct xa_ctx;

/*
 * For each range of the map inside the filesystem: a line "range BYTE0-BYTE1
 * (N bytes)", the AG header sectors it hits by name, then the owner lines of
 * its blocks, consecutive blocks of one owner merged (owner.h, runs mode;
 * a file's lines carry its block offsets and paths).  Then a summary line
 * "unreadable: ... files, ... directories, ... metadata blocks, ... free
 * blocks".  The context must have been opened with the map (so the check
 * never read those sectors) and run XA_RUN_CHECK with keep_ownership.
 * Returns 0, 1 when something in use is touched, or a negative xerr.
 * Unreadable metadata that hides owners is said on err.
 */
int xc_cmd_badmap(struct xa_ctx *ctx, const char *mapfile, FILE *out, FILE *err);

#endif /* XC_BADMAP_H */
