/*
 * file_salvage.c - regular files whose inode the inode phase had to clear
 * (a destroyed core, a damaged fork map), brought back from the reverse
 * map, as XFS online repair rebuilds a fork from rmap records.
 *
 * The rmapbt names every data extent of a file with its file offset and
 * unwritten state, so the data fork can be written anew as an extent list.
 * When the old core still decodes (a damaged fork, not a destroyed core) its
 * mode, owner, times and size stay; otherwise a fresh core gets the fixed
 * values of struct xr_revived (mode 0644, owner 0:0, times the epoch: never
 * another inode's) and the size the last mapped block gives (read back, its
 * trailing zeros dropped: the exact length died with the core).  The report
 * lists every such file with what was recovered and what synthesized.  The
 * attr fork is not rebuilt: its map is as damaged as the rest.  A file with
 * more extents than the inode holds as a list gets a new bmbt
 * (fork_write.c); its old bmbt blocks are held, not reused.  A file that
 * cannot have its fork (no space, mappings the fork cannot hold) stays
 * cleared.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/check/ownership.h"
#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/model/file.h"
#include "formats/btrec.h"
#include "formats/dinode_enc.h"
#include "reconstruct/fork_write.h"
#include "reconstruct/plan.h"
#include "reconstruct/repair_int.h"
#include "reconstruct/rmap_owners.h"

struct fext {
	uint64_t off, fsb;
	uint32_t len;
	uint32_t agno, agbno;
	bool     unwritten;
};

static int cmp_fext(const void *x, const void *y)
{
	const struct fext *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* Data extents rmap gives ino, sorted and merged; NULL/0 when none. */
static int collect(struct xr_rp *rp, uint64_t ino, struct fext **out, size_t *n, bool *shared)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct fext *v = NULL;
	size_t cnt = 0, cap = 0, k = 0, first, nrefs;
	int rc;

	*shared = false;
	rc = rp_rmap_owners_build(&rp->rmo, ctx);
	if (rc)
		return rc;
	nrefs = rp_rmap_owner_refs(&rp->rmo, ino, &first);
	for (size_t j = first; j < first + nrefs; j++) {
		uint32_t a = rp->rmo.refs[j].agno;
		const struct xa_ownrec *r = rp_rmap_ref_rec(ctx, &rp->rmo.refs[j]);

		if ((r->flags & XA_OWN_BMBT) && r->len) {
			/* the old tree is evidence: new blocks go elsewhere */
			rp_space_hold(rp, a, r->agbno, r->len);
			continue;
		}
		if ((r->flags & (XA_OWN_ATTR | XA_OWN_BMBT)) || !r->len)
			continue;
		/* a mapping is built only from a record inside its AG */
		if (r->agbno >= xfmt_geom_ag_length(g, a) ||
		    r->len > xfmt_geom_ag_length(g, a) - r->agbno)
			continue;
		if (cnt == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct fext *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				free(v);
				return XERR_NOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[cnt].off = r->offset;
		v[cnt].fsb = xfmt_geom_fsb(g, a, r->agbno);
		v[cnt].len = r->len;
		v[cnt].agno = a;
		v[cnt].agbno = r->agbno;
		v[cnt].unwritten = (r->flags & XA_OWN_UNWRITTEN) != 0;
		cnt++;
		/* someone else's record on the same blocks: reflinked data */
		if (!*shared)
			*shared = rp_rmap_shared_with_other(&rp->rmo, ctx, a, r->agbno, r->len, ino);
	}
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), cmp_fext);
	for (size_t i = 0; i < cnt; i++) {
		if (k && v[k - 1].off + v[k - 1].len > v[i].off) {
			free(v);      /* overlapping file offsets: not one file's map */
			*out = NULL;
			*n = 0;
			return 0;
		}
		v[k++] = v[i];
	}
	*out = v;
	*n = k;
	return 0;
}

#define MAX_BMBT_LEN ((1u << 21) - 1)

/* How many fork mappings n rmap extents need at most (long ones split). */
static size_t fork_extents_max(const struct fext *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += (v[i].len + MAX_BMBT_LEN - 1) / MAX_BMBT_LEN;
	return k;
}

/* Mappings merged as the kernel would keep them in the fork; an rmap
 * record longer than a mapping can say is split, as xfs_repair does. */
static size_t fork_extents(const struct fext *v, size_t n, struct xfmt_bmbt_rec *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t off = v[i].off, fsb = v[i].fsb;
		uint32_t left = v[i].len;

		while (left) {
			uint32_t take;

			if (k && out[k - 1].startoff + out[k - 1].blockcount == off &&
			    out[k - 1].startblock + out[k - 1].blockcount == fsb &&
			    out[k - 1].unwritten == v[i].unwritten &&
			    out[k - 1].blockcount < MAX_BMBT_LEN) {
				take = MAX_BMBT_LEN - out[k - 1].blockcount;
				take = take < left ? take : left;
				out[k - 1].blockcount += take;
			} else {
				take = left < MAX_BMBT_LEN ? left : MAX_BMBT_LEN;
				out[k].startoff = off;
				out[k].startblock = fsb;
				out[k].blockcount = take;
				out[k].unwritten = v[i].unwritten;
				k++;
			}
			off += take;
			fsb += take;
			left -= take;
		}
	}
	return k;
}

/*
 * The byte length the data gives when the core that knew it is gone: the
 * last mapped block read back without its trailing zeros (a file's end
 * rarely falls on a block boundary), or the end of the last mapping when
 * that is unwritten or unreadable.
 */
static uint64_t size_evidence(struct xr_rp *rp, const struct fext *last, const char **from)
{
	const struct xfmt_geom *g = &rp->ctx->geom;
	uint64_t end = last->off + last->len;
	uint8_t *blk;

	*from = "last-mapped-block";
	if (last->unwritten || !(blk = malloc(g->blocksize)))
		return end << g->blocklog;
	if (ximg_pread(rp->ctx->img, blk, g->blocksize,
		       xfmt_geom_fsb_byte(g, last->fsb + last->len - 1)) == 0) {
		size_t k = g->blocksize;

		while (k && blk[k - 1] == 0)
			k--;
		*from = "last-nonzero-byte";
		free(blk);
		return ((end - 1) << g->blocklog) + k;
	}
	free(blk);
	return end << g->blocklog;
}

/* Bring ino back; *no_rec is set when it is back and had no inode record
 * (the caller inserts those in one merge). */
static int revive(struct xr_rp *rp, uint64_t ino, bool *no_rec)
{
	struct xa_ctx *ctx = rp->ctx;
	const struct xfmt_geom *g = &ctx->geom;
	struct xa_irec *r = xa_irec_find(ctx, ino);
	struct fext *v = NULL;
	struct xfmt_bmbt_rec *recs = NULL;
	struct xfmt_dinode d;
	struct xr_revived rv;
	struct xr_fork f;
	size_t n = 0, nrec, core = g->v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE;
	uint64_t blocks = 0;
	bool shared, have_core, had_attrs = false;
	uint8_t *buf = malloc(g->inodesize);
	uint32_t agno = xfmt_geom_ino_agno(g, ino);
	uint64_t byte = xfmt_geom_ino_byte(g, ino);
	int action, rc;

	memset(&f, 0, sizeof(f));
	if (!buf)
		return XERR_NOMEM;
	rc = collect(rp, ino, &v, &n, &shared);
	if (rc || !n)
		goto out;
	recs = calloc(fork_extents_max(v, n), sizeof(*recs));
	if (!recs) {
		rc = XERR_NOMEM;
		goto out;
	}
	nrec = fork_extents(v, n, recs);
	for (size_t i = 0; i < n; i++) {
		blocks += v[i].len;
		/* no owner of them is known before this file is back: keep the
		 * allocator (a new bmbt below) off them */
		rp_space_hold(rp, v[i].agno, v[i].agbno, v[i].len);
	}
	/* The old core, when it still decodes as a regular file. */
	have_core = ximg_pread(ctx->img, buf, g->inodesize, byte) == 0 &&
		    xfmt_dinode_decode(buf, g->inodesize, g, &d) == 0 &&
		    d.magic == XFS_DINODE_MAGIC && (d.mode & XFMT_S_IFMT) == XFMT_S_IFREG &&
		    r && (r->mode & XFMT_S_IFMT) == XFMT_S_IFREG;
	memset(&rv, 0, sizeof(rv));
	rv.ino = ino;
	rv.mode = XFMT_S_IFREG | 0644;
	rv.source = "rmapbt";
	rv.lost = "";
	if (have_core) {
		rv.mode = d.mode;
		rv.recovered = "mode uid gid times size extents";
		rv.synthesized = "";
		rv.size = d.size;
		rv.size_from = "old-core";
		had_attrs = d.forkoff != 0;
	} else {
		/* A fresh core with the fixed values (owner 0:0, times the
		 * epoch), one name until the namespace phase counts them. */
		xfmt_dinode_new_encode(buf, g, ino, XFMT_S_IFREG | 0644, 1, 0, rp->env.lsn);
		if (xfmt_dinode_decode(buf, g->inodesize, g, &d) != 0)
			goto out;
		rv.recovered = "extents";
		rv.synthesized = "mode uid gid times size nlink";
		rv.lost = "xattrs";
		rv.size = size_evidence(rp, &v[n - 1], &rv.size_from);
		xfmt_dinode_put_size(buf, rv.size);
	}
	/* A size the kernel cannot hold (bit 63) died with the core too. */
	if (have_core && (d.size >> 63)) {
		rv.size = size_evidence(rp, &v[n - 1], &rv.size_from);
		rv.recovered = "mode uid gid times extents";
		rv.synthesized = "size";
		xfmt_dinode_put_size(buf, rv.size);
	}
	if (had_attrs)
		rv.lost = "xattrs";
	memset(buf + core, 0, g->inodesize - core);
	/* A kept core may have been cleared for a field the seal does not
	 * rewrite (its version byte, di_onlink, flags, pads). */
	if (have_core)
		xfmt_dinode_tidy_kept_core(buf, g, ino, &d);
	buf[82] = 0;                               /* no attr fork */
	buf[83] = XFS_DINODE_FMT_EXTENTS;
	xfmt_dinode_put_anextents(buf, &d, 0);
	/* An extent list, or a bmbt when the list does not fit the inode. */
	rc = xr_fork_build(rp, ino, XR_DATA_FORK, buf, recs, nrec, &f);
	if (rc == XERR_UNSUPPORTED || rc == XERR_USAGE) {
		/* no space, or mappings no fork can hold: stays cleared */
		rp_space_unalloc(rp, ino);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	xfmt_dinode_put_nblocks(buf, blocks + f.nblocks);
	xfmt_dinode_put_next_unlinked(buf, 0xFFFFFFFFu);
	if (g->v5) {
		/* di_flags2 (be64 at 120): reflink only when the data is shared */
		uint64_t f2 = ((uint64_t)buf[120] << 56) | ((uint64_t)buf[121] << 48) |
			      ((uint64_t)buf[122] << 40) | ((uint64_t)buf[123] << 32) |
			      ((uint64_t)buf[124] << 24) | ((uint64_t)buf[125] << 16) |
			      ((uint64_t)buf[126] << 8) | buf[127];

		f2 &= ~(uint64_t)(XFS_DIFLAG2_REFLINK | XFS_DIFLAG2_COWEXTSIZE | XFS_DIFLAG2_DAX);
		if (shared && xfmt_geom_has_reflink(g))
			f2 |= XFS_DIFLAG2_REFLINK;
		for (int i = 0; i < 8; i++)
			buf[120 + i] = (uint8_t)(f2 >> (56 - 8 * i));
	}
	if (!have_core) {
		/* plain flags (be16 at 90): a fresh file has none */
		buf[90] = 0;
		buf[91] = 0;
	}
	xfmt_dinode_seal(buf, g, ino, rp->env.lsn);
	action = xr_plan_action(rp->plan, XR_ACT_REVIVE_FILE, agno, ino,
				"file %" PRIu64 " brought back from the reverse map: %zu extents, "
				"%" PRIu64 " blocks%s%s", ino, nrec, blocks,
				f.nblocks ? ", mapped by a new bmbt" : "",
				have_core ? "" : " (fresh core: mode 0644, owner 0:0, times the epoch, "
				"size from its last block)");
	if (action < 0) {
		rc = action;
		goto out;
	}
	rc = rp_answer_entries(rp, action, ino);
	if (!rc)
		rc = xr_fork_plan(rp, action, ino, &f);
	if (!rc)
		rc = rp_write_inode(rp, action, ino, buf);
	if (!rc && xa_u64set_add(&rp->new_inodes, ino) < 0)
		rc = XERR_NOMEM;
	if (!rc)
		rc = xr_plan_revived(rp->plan, &rv);
	if (!rc && !r)
		*no_rec = true;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = xa_ownlist_add(&rp->ags[v[i].agno].added, v[i].agbno, v[i].len, ino, v[i].off,
				    v[i].unwritten ? XA_OWN_UNWRITTEN : 0);
		if (!rc && rp->ags[v[i].agno].space_ready)
			for (uint32_t b = v[i].agbno; b < v[i].agbno + v[i].len; b++)
				xa_bitmap_set(&rp->ags[v[i].agno].used, b);
		rp_need_rebuild(rp, v[i].agno);
	}
	if (!rc)
		rp_need_rebuild(rp, agno);
out:
	xr_fork_release(&f);
	free(recs);
	free(v);
	free(buf);
	return rc;
}

/* The inodes the check found deleted while open (nsUnlinkedOpen). */
static int unlinked_open(const struct xa_ctx *ctx, struct xa_u64set *out)
{
	for (size_t i = 0; i < ctx->findings.count; i++)
		if (ctx->findings.items[i].p.code == XP_nsUnlinkedOpen &&
		    xa_u64set_add(out, ctx->findings.items[i].p.ino) < 0)
			return XERR_NOMEM;
	return 0;
}

int rp_revive_files(struct xr_rp *rp)
{
	struct xa_ctx *ctx = rp->ctx;
	struct xa_u64set unlinked = { 0 };
	uint64_t *cand, *insert;
	size_t n = 0, ninsert = 0;
	int rc = 0;

	if (!xfmt_geom_has_rmapbt(&ctx->geom) || !rp->cleared.used)
		return 0;
	cand = malloc(rp->cleared.used * sizeof(*cand));
	insert = malloc(rp->cleared.used * sizeof(*insert));
	if (!cand || !insert) {
		free(cand);
		free(insert);
		return XERR_NOMEM;
	}
	for (size_t i = 0; i < rp->cleared.cap; i++)
		if (rp->cleared.slots[i])
			cand[n++] = rp->cleared.slots[i] - 1;
	rc = unlinked_open(ctx, &unlinked);
	for (size_t i = 0; i < n && !rc; i++) {
		struct xa_irec *r = xa_irec_find(ctx, cand[i]);
		bool no_rec = false;

		if (xa_u64set_has(&rp->new_inodes, cand[i]) || cand[i] == ctx->sb.rootino)
			continue;
		if (r && (r->mode & XFMT_S_IFMT) != XFMT_S_IFREG)
			continue;
		if (!r && !rp_inobt_says_used(ctx, cand[i]))
			continue;
		if (xa_u64set_has(&unlinked, cand[i]))
			continue;  /* deleted while open: freed, not brought back */
		rc = revive(rp, cand[i], &no_rec);
		if (!rc && no_rec)
			insert[ninsert++] = cand[i];
	}
	if (!rc)
		rc = rp_irec_insert_many(ctx, insert, ninsert, XFMT_S_IFREG | 0644);
	xa_u64set_release(&unlinked);
	free(insert);
	free(cand);
	return rc;
}
