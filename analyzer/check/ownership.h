/*
 * ownership.h - who owns every block of every AG, from primary metadata,
 * and its cross-check against the reverse map and the free-space btree.
 *
 * During `check` the scan passes note what they walk into ctx->own: every
 * AG btree block (btree_walk.c), bnobt free extents, rmapbt records and CoW
 * staging extents (pass_btrees.c), every bmbt block (fork_walk.c) and every
 * data/attr fork mapping of every in-use inode (pass_inodes.c).  The
 * ownership pass then adds what no walk visits (header sectors, AGFL
 * blocks, the internal log, inode chunks), builds per AG the forward list of
 * rmap-shaped records, merged as the kernel merges them, and checks:
 *   - with an rmapbt: forward records against rmapbt records, both ways
 *     (0x0F01..0x0F06: missing, unowned, wrong owner / offset / flags /
 *     length; expected = forward, observed = rmapbt);
 *   - always: no free extent overlaps an owned block, and every block of
 *     the AG is free or owned (0x0F07, 0x0F08);
 *   - with reflink: the refcountbt's share counts against the overlaps of
 *     the file data mappings (0x0F0A);
 *   - in every AG, complete or not: no block claimed by two owners, except
 *     file data the refcountbt says is shared (0x0F0B, crosslink.h).
 * An AG not compared gets an INFO finding saying so (0x0F09).
 * An AG is compared only when both sides are complete: its headers usable,
 * every btree walked, every inode read and every fork walked.
 * Memory: records are bounded by the blocks and records the walks read.
 */
#ifndef XA_OWNERSHIP_H
#define XA_OWNERSHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/btree.h"

struct xa_ctx;
struct xa_own;
struct xfmt_bmbt_rec;

/* Start collecting (the btrees pass calls this first); 0 or XERR_NOMEM.
 * Does nothing when ctx->own exists. */
int xa_own_begin(struct xa_ctx *ctx);

/* Free what *own holds; *own becomes NULL. */
void xa_own_free(struct xa_own **own);

/* A block of AG btree bt reached by a walk; 0 or XERR_NOMEM. */
int xa_own_note_btree_block(struct xa_ctx *ctx, uint32_t agno, enum xfmt_btnum bt,
			    uint32_t agbno);

/* A bnobt free extent, an rmapbt record (raw 24 bytes) and a refcountbt
 * record (raw 12 bytes; only CoW staging extents are kept). */
int xa_own_note_free(struct xa_ctx *ctx, uint32_t agno, uint32_t agbno, uint32_t len);
int xa_own_note_rmap(struct xa_ctx *ctx, uint32_t agno, const uint8_t *rec);
int xa_own_note_refc(struct xa_ctx *ctx, uint32_t agno, const uint8_t *rec);

/* A bmbt block (filesystem block fsb) of inode ino's fork whichfork. */
int xa_own_note_bmbt_block(struct xa_ctx *ctx, uint64_t ino, int whichfork, uint64_t fsb);

/* Argument of xa_own_fork_rec: whose mappings are being walked. */
struct xa_own_fork {
	struct xa_ctx *ctx;
	uint64_t       ino;
	int            whichfork;   /* XA_DATA_FORK / XA_ATTR_FORK */
	bool           realtime;    /* data on the realtime device: not ours to map */
};

/* xa_fork_rec_fn that records one mapping of the fork described by arg. */
int xa_own_fork_rec(void *arg, const struct xfmt_bmbt_rec *r);

/* Inode ino carries the reflink flag (its shared blocks are legitimate);
 * 0 or XERR_NOMEM. */
int xa_own_note_reflink(struct xa_ctx *ctx, uint64_t ino);

/* Some inode could not be read or walked completely: the forward side is
 * missing owners and no AG is cross-checked. */
void xa_own_mark_incomplete(struct xa_ctx *ctx);

/*
 * After the ownership pass with ctx->opts.keep_ownership set: AG agno's
 * forward list (normalised when *complete is set, i.e. every walk that
 * names owners reached all of its tree and the AG was cross-checked), the
 * rmapbt's records as read (normalised when complete, else sorted) and the
 * bnobt's free extents; the forward list is sorted by start block either
 * way.  xa_own_refc: the refcountbt's shared extents (owner = the share
 * count; CoW staging extents are forward records).  NULL when nothing was
 * collected for agno.
 */
struct xa_ownlist;
const struct xa_ownlist *xa_own_forward(const struct xa_ctx *ctx, uint32_t agno, bool *complete);
const struct xa_ownlist *xa_own_rmap(const struct xa_ctx *ctx, uint32_t agno);
const struct xa_ownlist *xa_own_free_list(const struct xa_ctx *ctx, uint32_t agno);
const struct xa_ownlist *xa_own_refc(const struct xa_ctx *ctx, uint32_t agno);

/*
 * Which AG structure block agbno of AG agno is, as the walks found it: an
 * enum xfmt_btnum for a block of an AG btree (bnobt, cntbt, inobt, finobt,
 * rmapbt, refcountbt), XA_KIND_AGFL for a block on the free list, or -1
 * (not such a block, or nothing kept: needs keep_ownership).  A block two
 * structures claim gives one of them.
 */
enum { XA_KIND_AGFL = XFMT_BT_COUNT };
int xa_own_kind(const struct xa_ctx *ctx, uint32_t agno, uint32_t agbno);

/* The ownership pass (after the inodes pass); 0 or a negative xerr. */
int xa_pass_ownership(struct xa_ctx *ctx);

#endif /* XA_OWNERSHIP_H */
