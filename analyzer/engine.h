/*
 * engine.h - the analyzer's one context and its ordered passes.
 *
 * The engine owns a struct xa_ctx for the run: the image, the block cache,
 * the geometry chosen for the filesystem, one summary per AG, and the
 * findings table.  Passes (analyzer/scan/) run in order over this context;
 * each pass file's header says what it checks and what it leaves behind for
 * later passes.  Reports and views read the finished context.
 */
#ifndef XA_ENGINE_H
#define XA_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/check/lsn_order.h"
#include "analyzer/findings/findings.h"
#include "analyzer/log/log_replay.h"
#include "analyzer/log/log_scan.h"
#include "analyzer/model/bitmap.h"
#include "formats/agf.h"
#include "formats/agi.h"
#include "formats/geom.h"
#include "formats/sb.h"

struct ximg;
struct ximg_overlay;
struct xcache;
struct xa_own;
struct ximg_open_opts;

/* How the geometry in use was chosen (rule 4: which copy we believed, and why). */
enum xa_geom_source {
	XA_GEOM_NONE,       /* no usable superblock anywhere */
	XA_GEOM_PRIMARY,    /* primary superblock, agreed with (or not outvoted by) secondaries */
	XA_GEOM_VOTE,       /* primary unusable or outvoted: majority of secondaries */
};

/* Per-btree walk summary. */
struct xa_btree_sum {
	bool     present;    /* the tree exists on this filesystem */
	bool     walked;     /* the walk reached every block it could */
	uint32_t root;
	uint32_t levels;     /* height found by the walk */
	uint64_t blocks;     /* blocks visited, root included */
	uint64_t records;    /* leaf records visited */
};

enum { XA_BT_BNO, XA_BT_CNT, XA_BT_INO, XA_BT_FINO, XA_BT_RMAP, XA_BT_REFC, XA_BT_AG_COUNT };

/* What the passes learned about one allocation group. */
struct xa_ag {
	uint32_t agno;
	uint32_t length;            /* from the geometry */
	bool     sb_ok, agf_ok, agi_ok, agfl_ok;  /* header decoded and usable */
	/* All four header sectors zero or unreadable (one imageAgsBlank finding
	 * per run of such AGs): nothing is walked, claimed or allocated for it,
	 * so an AG that is not there costs only this struct. */
	bool     blank;
	struct xfmt_agf agf;        /* decoded AGF (valid when agf_ok) */
	struct xfmt_agi agi;        /* decoded AGI (valid when agi_ok) */
	struct xa_btree_sum bt[XA_BT_AG_COUNT];
	/* Totals counted by walking, to compare with the header counters. */
	uint64_t free_blocks;       /* sum of bnobt record lengths */
	uint64_t longest_free;      /* longest bnobt extent */
	uint64_t inodes;            /* sum of inobt ir_count */
	uint64_t free_inodes;       /* sum of inobt ir_freecount */
	uint64_t inodes_checked;    /* inode cores read and verified */
	uint64_t inodes_in_use;     /* of those, allocated (mode != 0) */
	uint32_t unlinked_heads;    /* non-empty AGI unlinked buckets */

	/* Left by the btrees pass for the inodes pass: the inobt leaf records
	 * in key order (count bounded by the blocks actually walked). */
	struct xa_ichunk *chunks;
	size_t            nchunks, chunks_cap;
	/* The inobt was unreadable: chunks come from the rmapbt's OWN_INODES
	 * records and their free masks are unknown (only holes are set). */
	bool              chunks_from_rmap;
	/* ... or, without an rmapbt, from a scan of the AG for inode blocks. */
	bool              chunks_from_scan;
	/* Blocks claimed by AG metadata so far (headers, btree blocks, AGFL,
	 * inode chunks); a second claim is a finding. */
	struct xa_bitmap  claimed;
	/* Order-independent digest of the bnobt and cntbt record sets: the two
	 * trees must index the same extents. */
	uint64_t          bno_digest, cnt_digest;
	uint64_t          bno_recs, cnt_recs, cnt_free_blocks, cnt_longest;
};

/* One inobt record, decoded. */
struct xa_ichunk {
	uint32_t startino;   /* agino of the first inode */
	uint16_t holemask;   /* bit j set: inodes 4j..4j+3 absent */
	uint8_t  count;      /* inodes present */
	uint8_t  freecount;
	uint64_t free;       /* bit i set: inode startino+i is free */
};

/* What the inodes pass records of each in-use inode, for the namespace pass. */
struct xa_irec {
	uint64_t ino;
	uint64_t parent;       /* directory that named it first (dirs), 0 = none */
	uint32_t nlink;        /* as stored */
	uint32_t names;        /* entries naming it (not "." / "..") */
	uint32_t subdirs;      /* directories: child directories named */
	uint16_t mode;
	uint8_t  reached;      /* named from the tree rooted at the root */
	uint8_t  linked_on;    /* di_next_unlinked is not null */
	uint8_t  metafile;     /* a metadir file (di_flags2 METADATA): not a user's */
};

/* The AG's inode chunks are known: read from the inobt or derived. */
static inline bool xa_ag_chunks_known(const struct xa_ag *ag)
{
	return (ag->agi_ok && ag->bt[XA_BT_INO].walked) || ag->chunks_from_rmap ||
	       ag->chunks_from_scan;
}

/* Room for one more chunk record at the end of ag->chunks; NULL when out
 * of memory. */
struct xa_ichunk *xa_ag_chunk_append(struct xa_ag *ag);

/* The chunk of ag holding inode agino in a slot that is not a hole, or NULL. */
const struct xa_ichunk *xa_ag_chunk_of(const struct xa_ag *ag, uint32_t agino);

/* Free what a struct xa_ag owns (not the struct itself). */
void xa_ag_release(struct xa_ag *ag);

/* How many threads a pass may use: --jobs, or one per online CPU. */
unsigned xa_jobs(const struct xa_ctx *ctx);

struct xa_options {
	bool     verbose;
	uint64_t cache_bytes;       /* block cache bound; 0 = sized from the image */
	unsigned jobs;              /* threads a pass may use (--jobs): 0 = one
	                               per CPU, 1 = the caller's alone */
	bool     keep_ownership;    /* keep the per-AG ownership lists after the
	                               check (the repair planner reads them) */
	/* Called at the start of each pass and each AG within it (may be NULL). */
	void   (*progress)(void *arg, const char *pass, uint32_t agno, uint32_t nags);
	void    *progress_arg;
	bool     no_replay;         /* analyse the on-disk state of a dirty log's
	                               filesystem, not the replayed one */
	bool     zero_tail;         /* repair: read a truncated image's missing end
	                               as zeros (lost, like zeroed sectors) */
	bool     walk_blank;        /* repair: walk AGs whose header sectors are all
	                               zero like damaged ones, so they can be
	                               rebuilt, as long as they are no more than
	                               the AGs that are not blank */
};

/* What the log pass found and, for a dirty log, what replay did. */
struct xa_log_state {
	bool     present;           /* an internal log was read */
	struct xa_log_pos    pos;
	struct xa_log_bounds bounds;
	struct xa_log_walk   walk;  /* where the walk from tail to head ended */
	struct xa_log_replay_stats st;
	bool     replayed;          /* the filesystem is seen through the replay */
};

struct xa_ctx {
	/* input */
	const char     *image_path;
	struct ximg    *img;             /* what passes and views read: input, or
	                                    the replay overlay over it */
	struct ximg    *input;           /* the image as given (the evidence) */
	struct ximg_overlay *overlay;    /* replayed log changes, or NULL */
	struct ximg    *tail;            /* a truncated input read to the filesystem's
	                                    end with zeros (opts.zero_tail), or NULL */
	const char     *logdev_path;     /* the external log's image (--logdev), or NULL */
	struct ximg    *logdev;          /* it, opened read-only (evidence too), or NULL */
	const char     *rtdev_path;      /* the realtime device's image (--rtdev), or NULL */
	struct ximg    *rtdev;           /* it, opened read-only, or NULL: realtime
	                                    files' data reads as unreadable then */
	struct xcache  *cache;
	uint64_t        image_size;      /* bytes of the (partition) image */
	bool            have_sha256;
	uint8_t         sha256[32];      /* of the image bytes as read */

	/* geometry and the vote behind it */
	struct xfmt_sb  sb;              /* the superblock whose geometry is used */
	bool            sb_primary_ok;   /* primary superblock decoded and sane */
	struct xfmt_geom geom;
	enum xa_geom_source geom_source;
	uint32_t        sb_votes_for;    /* superblocks agreeing with the chosen geometry */
	uint32_t        sb_votes_total;  /* superblocks read */

	/* log state: from the log head (dirty = not cleanly unmounted) */
	bool            log_checked;
	bool            log_dirty;
	uint64_t        log_last_lsn;    /* LSN of the last record before the head (0 = none
	                                    found); metadata written by a repair carries it */
	struct xa_log_state log;
	struct xa_meta_lsn  meta_lsn;    /* latest LSN of the metadata read (check/lsn_order.h) */

	/* per-AG results: AGs 0..nags-1.  AGs from nags to ags_in_image - 1 lie
	 * in the image but are blank to its end (no header sector holds a byte;
	 * imageAgsBlank), and AGs from ags_in_image to geom.agcount - 1 start
	 * past the image's end (imageTruncated): neither costs any memory. */
	struct xa_ag   *ags;
	uint32_t        nags;
	uint32_t        ags_in_image;

	struct xa_findings findings;
	struct xa_options  opts;
	uint64_t           read_errors;  /* reads the image refused (exit 8) */

	/* in-use inodes in inode-number order (inodes pass -> namespace pass) */
	struct xa_irec    *irecs;
	size_t             nirecs, irecs_cap;
	size_t             irec_hint;   /* the last record xa_irec_find found */
	bool               truncated;    /* image shorter than the geometry (exit 8) */

	/* forward ownership noted by the check passes (check/ownership.h);
	 * NULL when not collecting (info and the views) */
	struct xa_own     *own;
};

/* Which commands a pass serves. */
enum { XA_RUN_INFO = 1u << 0, XA_RUN_CHECK = 1u << 1 };

/*
 * Open the image at path (read-only; see ximg_open for io, which may be NULL)
 * and prepare ctx.  On failure returns a negative xerr with a one-line reason
 * in err; ctx then needs no release.
 */
int xa_ctx_open(struct xa_ctx *ctx, const char *path,
		const struct ximg_open_opts *io, const struct xa_options *opts,
		char *err, size_t errlen);

/*
 * Prepare ctx over an image that is already open; ctx takes ownership of img
 * on success (released by xa_ctx_release).  Returns 0 or a negative xerr.
 */
int xa_ctx_open_img(struct xa_ctx *ctx, struct ximg *img, const struct xa_options *opts);

/*
 * Read the filesystem through ov from now on (the log pass calls this after
 * a replay): a new block cache over an overlay image of ctx->input.  ctx
 * takes ownership of ov on success.  Returns 0 or a negative xerr.
 */
int xa_ctx_use_overlay(struct xa_ctx *ctx, struct ximg_overlay *ov);

/*
 * Read the filesystem as size bytes from now on, the part past the input's
 * end as zeros (the superblock pass calls this for opts.zero_tail):
 * ctx->image_size becomes size; the input itself is unchanged.  Returns 0
 * or a negative xerr.
 */
int xa_ctx_use_zero_tail(struct xa_ctx *ctx, uint64_t size);

/* What the log pass and the replay overlay read: the input, or its
 * zero-tail view. */
static inline struct ximg *xa_base_image(const struct xa_ctx *ctx)
{
	return ctx->tail ? ctx->tail : ctx->input;
}

/* The record of in-use inode ino, or NULL. */
struct xa_irec *xa_irec_find(struct xa_ctx *ctx, uint64_t ino);

/*
 * The filesystem's own inodes, which live outside the tree: the realtime
 * bitmap and summary inodes and the quota inodes the superblock names,
 * and the two right after the root whatever it names there (mkfs puts the
 * realtime inodes there, and the repair puts them back: a secondary, the
 * vote's choice when the primary is gone, names none, a damaged field
 * anything).
 */
bool xa_is_metadata_inode(const struct xa_ctx *ctx, uint64_t ino);

/* Run the passes for mode (XA_RUN_*).  Returns 0, or a negative xerr when
 * the run could not continue (out of memory). */
int xa_run(struct xa_ctx *ctx, unsigned mode);

/* Release everything ctx owns. */
void xa_ctx_release(struct xa_ctx *ctx);

#endif /* XA_ENGINE_H */
