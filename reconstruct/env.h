/*
 * env.h - what every reconstruct writer needs to encode a structure the
 * kernel accepts: the geometry, the identity stamped into v5 headers, and
 * the LSN to stamp.
 */
#ifndef XR_ENV_H
#define XR_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/geom.h"
#include "formats/sb.h"

struct xa_ctx;
struct xr_plan;

struct xr_env {
	struct xa_ctx        *ctx;    /* the analyzed input (read through xr_plan_read) */
	struct xr_plan       *plan;
	const struct xfmt_geom *g;
	const struct xfmt_sb *sb;     /* the superblock whose geometry is used */
	bool                  v5;     /* g->v5; v5 headers carry g->meta_uuid */
	uint64_t              lsn;    /* LSN for v5 headers written: the log head's
	                                 (never ahead of the log the output carries) */
};

#endif /* XR_ENV_H */
