/*
 * extract_map.h - the data-fork map extract may write: one file's mappings
 * with every physical block mapped twice inside that file kept at its first
 * file offset only, unless the refcount btree says the blocks are shared.
 *
 * Why: a file that maps one physical run at many offsets is damage (or an
 * attack: twelve records of a 192-byte fork mapping one 64 MB run make
 * 768 MB of output), and copying each mapping would multiply the image's
 * size on the host.  With duplicates removed, what a file can write is
 * bounded by the blocks of the filesystem plus what the refcountbt vouches
 * for.
 */
#ifndef XC_EXTRACT_MAP_H
#define XC_EXTRACT_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/model/file.h"

struct xa_ctx;

/* The refcount evidence of every AG, read once per run on first use. */
struct xc_extract_refc;

/* Free what xc_extract_map_dedup gathered; *rp is NULL afterwards. */
void xc_extract_refc_free(struct xc_extract_refc **rp);

/*
 * Remove from ex (one data fork, sorted by file offset) every
 * block whose physical block an earlier mapping of the same fork (by file
 * offset) already maps, unless the refcountbt (read completely) says those
 * blocks are shared; *dup_blocks counts the blocks removed.  The removed
 * ranges become holes.  *tangled is set when the search ran out of its
 * work budget (a hostile map): then every mapping that overlaps another is
 * removed whole.  *refc caches the refcountbt records between calls.
 * Returns 0 or XERR_NOMEM.
 */
int xc_extract_map_dedup(struct xa_ctx *ctx, struct xa_extents *ex,
			 struct xc_extract_refc **refc, uint64_t *dup_blocks, bool *tangled);

#endif /* XC_EXTRACT_MAP_H */
