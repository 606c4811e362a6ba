/*
 * show_attr.c - extended attributes and remote symlink blocks for `xfsrecon
 * show`: one attr block of any kind (leaf with its header, free map,
 * entries and name/value structures; DA node; remote value block with its
 * header and the value bytes), a DA node shown without knowing whose fork
 * holds it, a remote symlink block (header and target), and `attr`, every
 * block of one inode's attr fork in fork order (or its shortform list).
 * Every structure is judged by its verifier from formats/attr.h,
 * danode.h or symlink.h.
 *
 * Names are xfs_db's under `type attr3` / `type symlink` (hdr.freemap,
 * entries, nvlist, btree, data; a.sfattr.list in the inode), so a test can
 * compare the two; xfs_db's entry flags (incomplete, root, secure, local)
 * are there, and the raw flags byte beside them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "cli/views/show_int.h"
#include "formats/attr.h"
#include "formats/block.h"
#include "formats/danode.h"
#include "formats/endian.h"
#include "formats/symlink.h"

/* The owner a v5 block of kind k names for itself (0 on v4 or when it does not fit). */
static uint64_t header_owner(const struct xfmt_geom *g, const uint8_t *buf, size_t len,
			     enum xfmt_blk_kind k)
{
	uint64_t owner = 0;

	if (g->v5)
		xfmt_blk_owner_of(buf, len, k, &owner);
	return owner;
}

/* ---------------------------------------------------------------- leaves */

/* The flags of an entry as xfs_db splits them, and the byte itself. */
static void entry_flags(struct xc_show_out *o, uint8_t flags, bool leaf)
{
	if (leaf)
		xc_so_item_u64(o, "incomplete", (flags & XFS_ATTR_INCOMPLETE) != 0);
	xc_so_item_u64(o, "root", (flags & XFS_ATTR_ROOT) != 0);
	xc_so_item_u64(o, "secure", (flags & XFS_ATTR_SECURE) != 0);
	if (flags & XFS_ATTR_PARENT)  /* xfs_db 6.10+ names the bit */
		xc_so_item_u64(o, "parent", 1);
	if (leaf)
		xc_so_item_u64(o, "local", (flags & XFS_ATTR_LOCAL) != 0);
	xc_so_item_hex(o, "flags", flags);
}

/* A local value; a parent pointer's as xfs_db 6.10+ prints it: the
 * directory and its generation. */
static void item_value(struct xc_show_out *o, const struct xfmt_attr_entry *e)
{
	uint64_t pino;
	uint32_t pgen;

	if (e->ns == XFMT_ATTR_NS_PARENT &&
	    xfmt_attr_pptr_decode(e->value, e->valuelen, &pino, &pgen) == 0) {
		xc_so_item_u64(o, "parent_dir.inumber", pino);
		xc_so_item_u64(o, "parent_dir.gen", pgen);
		return;
	}
	xc_so_item_name(o, "value", e->value, e->valuelen);
}

static void leaf_body(struct xc_show_run *s, const uint8_t *buf, size_t len)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	size_t fm = (g->v5 ? XFMT_ATTR_LEAF_HDR_V5 - 4u : XFMT_ATTR_LEAF_HDR_V4) -
		    4u * XFMT_ATTR_LEAF_MAPSIZE;
	struct xfmt_attr_leaf_hdr h;
	struct xfmt_attr_entry e;
	size_t lim = len < g->blocksize ? len : g->blocksize;
	char q[4 * 256 + 8];
	unsigned n, max;
	int rc;

	xc_so_fields(&s->o, xfmt_attr_leaf_hdr_fields_for(g->v5), buf, len);
	if (xfmt_attr_leaf_hdr_decode(buf, len, g, &h) != 0)
		return;
	for (unsigned i = 0; i < XFMT_ATTR_LEAF_MAPSIZE; i++) {
		xc_so_item_begin(&s->o, "hdr.freemap", i, fm + 4u * i, 4, true);
		xc_so_item_u64(&s->o, "base", h.freemap[i].base);
		xc_so_item_u64(&s->o, "size", h.freemap[i].size);
		xc_so_item_end(&s->o);
	}
	/* Only the entries whose slots lie inside the block. */
	max = lim > h.hdr_len ? (unsigned)((lim - h.hdr_len) / XFMT_ATTR_LEAF_ENTRY_LEN) : 0;
	n = h.count < max ? h.count : max;
	if (n < h.count)
		xc_so_note(&s->o, "hdr.count %u: only %u entries fit in the block", h.count, n);
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_attr_leaf_entry(buf, len, &h, i, &e) == -1)
			break;
		xc_so_item_begin(&s->o, "entries", i, h.hdr_len + 8u * i, 8, true);
		xc_so_item_hex(&s->o, "hashval", e.hashval);
		xc_so_item_u64(&s->o, "nameidx", e.nameidx);
		entry_flags(&s->o, e.flags, true);
		xc_so_item_end(&s->o);
	}
	/* The name/value structures, in entry order as xfs_db lists them. */
	for (unsigned i = 0; i < n; i++) {
		rc = xfmt_attr_leaf_entry(buf, len, &h, i, &e);
		if (rc == -1)
			break;
		if (rc == -2) {
			xc_so_note(&s->o, "entries[%u]: nameidx %u does not point at a whole "
				   "name/value structure inside the block", i, e.nameidx);
			continue;
		}
		xc_so_item_begin(&s->o, "nvlist", i, e.nameidx, e.entsize, false);
		if (!e.local)
			xc_so_item_hex(&s->o, "valueblk", e.valueblk);
		xc_so_item_u64(&s->o, "valuelen", e.valuelen);
		xc_so_item_u64(&s->o, "namelen", e.namelen);
		xc_so_item_name(&s->o, "name", e.name, e.namelen);
		if (e.local && e.valuelen)
			item_value(&s->o, &e);
		xc_so_item_end(&s->o);
		if (!e.local) {
			uint32_t nb = xfmt_attr_rmt_blocks(g, e.valuelen);

			uint8_t full[16 + 256];
			size_t pl = strlen(xfmt_attr_ns_prefix(e.ns));

			/* The name as getfattr shows it: namespace prefix and name. */
			memcpy(full, xfmt_attr_ns_prefix(e.ns), pl);
			memcpy(full + pl, e.name, e.namelen);
			xc_chars_format(full, pl + e.namelen, q, sizeof(q));
			xc_so_note(&s->o, "nvlist[%u]: %s: the %" PRIu32 "-byte value lives in "
				   "%" PRIu32 " remote block%s from attr block %" PRIu32, i, q,
				   e.valuelen, nb, nb == 1 ? "" : "s", e.valueblk);
		}
	}
}

static void node_body(struct xc_show_run *s, const uint8_t *buf, size_t len,
		      const struct xfmt_field *fields, const char *arr, size_t blksize)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_da_node_hdr hdr;
	unsigned n, max = xfmt_da_node_max_ents(blksize, g->v5);
	uint32_t h, before;

	xc_so_fields(&s->o, fields, buf, len);
	if (xfmt_da_node_hdr_decode(buf, len, g->v5, &hdr) != 0)
		return;
	n = hdr.count < max ? hdr.count : max;
	for (unsigned i = 0; i < n; i++) {
		if (xfmt_da_node_entry(buf, len, g->v5, i, &h, &before) != 0)
			break;
		xc_so_item_begin(&s->o, arr, i, hdr.hdr_len + 8u * i, 8, true);
		xc_so_item_hex(&s->o, "hashval", h);
		xc_so_item_u64(&s->o, "before", before);
		xc_so_item_end(&s->o);
	}
}

/* The value bytes of a v5 remote block: hdr.bytes of them, at most what fits. */
static void rmt_body(struct xc_show_run *s, const uint8_t *buf, size_t len)
{
	struct xfmt_rmt_hdr h;
	size_t n;

	xc_so_fields(&s->o, xfmt_attr3_rmt_hdr_fields, buf, len);
	if (xfmt_rmt_hdr_decode(buf, len, &h) != 0)
		return;
	n = len - XFMT_ATTR_RMT_HDR_LEN;
	if (h.bytes < n)
		n = h.bytes;
	else if (h.bytes > n)
		xc_so_note(&s->o, "hdr.bytes %" PRIu32 " is more than the block holds: %zu shown",
			   h.bytes, n);
	xc_so_note(&s->o, "value bytes %" PRIu32 "..%" PRIu64 " of the attribute", h.offset,
		   (uint64_t)h.offset + n);
	xc_so_data(&s->o, "data", buf, len, XFMT_ATTR_RMT_HDR_LEN, n, true);
}

int xc_show_attrblock(struct xc_show_run *s, const char *where, const uint8_t *buf,
		      size_t len, uint64_t byte, uint64_t owner, uint32_t dablk,
		      uint32_t fork_end)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	enum xfmt_blk_kind k = xfmt_blk_classify(buf, len, xfmt_blk_ver_of(g->v5));
	struct xfmt_da_expect exp;
	struct xfmt_rmt_expect rexp;
	bool known = dablk != UINT32_MAX;

	if (k != XFMT_BLK_ATTR_LEAF && k != XFMT_BLK_DA_NODE && k != XFMT_BLK_ATTR_RMT && g->v5) {
		fprintf(s->err, "xfsrecon: %s: magic 0x%08" PRIx32 " is not an attr block's\n",
			where, len >= 4 ? xfmt_get_be32(buf) : 0);
		return XERR_USAGE;
	}
	if (owner == 0)
		owner = header_owner(g, buf, len, k == XFMT_BLK_ATTR_RMT ? XFMT_BLK_ATTR_RMT :
				     XFMT_BLK_ATTR_LEAF);
	xc_so_begin(&s->o, k == XFMT_BLK_ATTR_LEAF ? "attr leaf" : k == XFMT_BLK_DA_NODE ?
		    "attr node" : "attr remote value", where, byte, g->blocksize);
	if (len < g->blocksize) {
		xc_so_note(&s->o, "only %zu of the block's %" PRIu32 " bytes could be read", len,
			   g->blocksize);
		xc_so_end(&s->o);
		return 0;
	}
	if (!known && k != XFMT_BLK_ATTR_RMT)
		xc_so_note(&s->o, "shown without its inode: the checks that need the block's "
			   "place in the attr fork are left out");
	xfmt_attr_da_expect_init(&exp, byte >> XFS_BB_SHIFT, owner, dablk, -1, fork_end);
	switch (k) {
	case XFMT_BLK_ATTR_LEAF:
		xfmt_attr_leaf_verify(buf, len, g, &exp, xc_so_sink(&s->o));
		/* The leaf verifier names an entry's field and gives its index. */
		xc_so_items_by_key(&s->o);
		leaf_body(s, buf, len);
		break;
	case XFMT_BLK_DA_NODE:
		xfmt_da_node_verify(buf, len, g->blocksize, g, &exp, xc_so_sink(&s->o));
		node_body(s, buf, len, xfmt_attr_node_hdr_fields_for(g->v5), "btree", g->blocksize);
		break;
	case XFMT_BLK_ATTR_RMT:
		memset(&rexp, 0, sizeof(rexp));
		rexp.daddr = byte >> XFS_BB_SHIFT;
		rexp.owner = owner;
		xfmt_attr_rmt_verify(buf, len, g, &rexp, xc_so_sink(&s->o));
		xc_so_note(&s->o, "which value and which part of it this block holds comes from "
			   "the leaf entry that points here; shown alone, offset and bytes are "
			   "not checked against it");
		rmt_body(s, buf, len);
		break;
	default:
		/* v4: remote value blocks are raw value bytes, with no header to check. */
		xc_so_note(&s->o, "no attr magic: on a v4 filesystem a remote value block holds "
			   "raw value bytes, with no header");
		xc_so_data(&s->o, "data", buf, len, 0, g->blocksize, true);
		break;
	}
	xc_so_end(&s->o);
	return 0;
}

/* ------------------------------------------------- blocks of either fork */

int xc_show_danode(struct xc_show_run *s, const char *where, const uint8_t *buf, size_t len,
		   uint64_t byte)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_da_expect exp;

	xc_so_begin(&s->o, "da node", where, byte, g->blocksize);
	xc_so_note(&s->o, "a DA node: directories and attr forks share this form; --as dir3 "
		   "or --as attr3 shows it in one of them, with that context's checks");
	if (len < g->blocksize) {
		xc_so_note(&s->o, "only %zu of the block's %" PRIu32 " bytes could be read", len,
			   g->blocksize);
		xc_so_end(&s->o);
		return 0;
	}
	/* The block size is the one thing both contexts agree on only when they are equal. */
	if (g->dirblksize == g->blocksize) {
		memset(&exp, 0, sizeof(exp));
		exp.daddr = byte >> XFS_BB_SHIFT;
		exp.owner = header_owner(g, buf, len, XFMT_BLK_DA_NODE);
		exp.dablk = UINT32_MAX;
		exp.level = -1;
		xfmt_da_node_verify(buf, len, g->blocksize, g, &exp, xc_so_sink(&s->o));
	} else {
		xc_so_note(&s->o, "directory blocks (%" PRIu32 " bytes) and attr blocks (%" PRIu32
			   ") differ in size here: not verified without --as", g->dirblksize,
			   g->blocksize);
	}
	node_body(s, buf, len, xfmt_da_node_fields_for(g->v5), "nbtree", g->blocksize);
	xc_so_end(&s->o);
	return 0;
}

void xc_show_symlink_block(struct xc_show_run *s, const char *where, const uint8_t *buf,
			   size_t len, uint64_t byte)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xfmt_rmt_expect exp;
	struct xfmt_rmt_hdr h;
	size_t n;
	const uint8_t *nul;

	xc_so_begin(&s->o, "symlink block", where, byte, len);
	if (!g->v5) {
		/* v4: raw target bytes; their length is the inode's di_size. */
		nul = memchr(buf, 0, len);
		n = nul ? (size_t)(nul - buf) : len;
		xc_so_note(&s->o, "v4: no header; the target's length is the inode's di_size "
			   "(shown up to the first NUL byte)");
		xc_so_data(&s->o, "data", buf, len, 0, n, false);
		xc_so_end(&s->o);
		return;
	}
	memset(&exp, 0, sizeof(exp));
	exp.daddr = byte >> XFS_BB_SHIFT;
	exp.owner = header_owner(g, buf, len, XFMT_BLK_SYMLINK);
	xfmt_symlink_rmt_verify(buf, len, g, &exp, xc_so_sink(&s->o));
	xc_so_note(&s->o, "one header per mapping: its CRC covers the whole mapping, here "
		   "taken as this one block");
	xc_so_fields(&s->o, xfmt_symlink_hdr_fields, buf, len);
	if (xfmt_rmt_hdr_decode(buf, len, &h) == 0) {
		n = xfmt_symlink_buf_space(len, true);
		if (h.bytes < n)
			n = h.bytes;
		xc_so_data(&s->o, "data", buf, len, XFMT_SYMLINK_HDR_LEN, n, false);
	}
	xc_so_end(&s->o);
}

/* ------------------------------------------------------ whole attr forks */

static void show_shortform(struct xc_show_run *s, const struct xa_inode *ip)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	size_t forksize = 0;
	const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, XA_ATTR_FORK, &forksize);
	struct xfmt_attr_sf_iter it;
	struct xfmt_attr_entry e;
	char where[64];
	int rc;

	snprintf(where, sizeof(where), "inode %" PRIu64 ", attr fork", ip->ino);
	xc_so_begin(&s->o, "shortform attributes", where,
		    xfmt_geom_ino_byte(g, ip->ino) + (uint64_t)(fork ? fork - ip->raw : 0),
		    forksize);
	if (!fork) {
		xc_so_note(&s->o, "the attr fork lies outside the inode");
		xc_so_end(&s->o);
		return;
	}
	xfmt_attr_sf_verify(fork, forksize, g, xc_so_sink(&s->o));
	xc_so_items_by_key(&s->o);
	xc_so_field_prefix(&s->o, "a.sfattr.");
	xc_so_fields(&s->o, xfmt_attr_sf_hdr_fields, fork, forksize);
	xc_so_field_prefix(&s->o, NULL);
	xfmt_attr_sf_iter_init(&it, fork, forksize);
	while ((rc = xfmt_attr_sf_next(&it, &e)) == 1) {
		xc_so_item_begin(&s->o, "a.sfattr.list", e.idx, it.pos - e.entsize, e.entsize,
				 false);
		xc_so_item_u64(&s->o, "namelen", e.namelen);
		xc_so_item_u64(&s->o, "valuelen", e.valuelen);
		entry_flags(&s->o, e.flags, false);
		xc_so_item_name(&s->o, "name", e.name, e.namelen);
		if (e.valuelen)
			item_value(&s->o, &e);
		xc_so_item_end(&s->o);
	}
	if (rc < 0)
		xc_so_note(&s->o, "entry %u runs past the list's end (hdr.totsize or the fork)",
			   it.idx);
	xc_so_end(&s->o);
}

/* Read attr block fblock (one filesystem block) through the fork's map. */
static int attr_read(struct xc_show_run *s, const struct xa_extents *ex, uint64_t fblock,
		     struct xbuf **b, uint64_t *byte)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	const struct xfmt_bmbt_rec *r = xa_extents_find(ex, fblock);
	uint64_t fsb;

	if (!r || r->unwritten)
		return XERR_RANGE;
	fsb = r->startblock + (fblock - r->startoff);
	if (!xfmt_geom_fsb_valid(g, fsb))
		return XERR_RANGE;
	*byte = xfmt_geom_fsb_byte(g, fsb);
	return xa_read(s->ctx, *byte, g->blocksize, b, NULL);
}

/* Every mapped block of the attr fork, in fork order. */
static int show_blocks(struct xc_show_run *s, const struct xa_inode *ip,
		       const struct xa_extents *ex)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	const struct xfmt_bmbt_rec *last = &ex->v[ex->n - 1];
	uint64_t end = last->startoff + last->blockcount, shown = 0;
	/* Siblings and children must point inside the fork (32-bit block numbers). */
	uint32_t fork_end = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
	char where[96];

	for (size_t i = 0; i < ex->n; i++) {
		const struct xfmt_bmbt_rec *r = &ex->v[i];

		for (uint64_t fb = r->startoff; fb < r->startoff + r->blockcount; fb++) {
			struct xbuf *b = NULL;
			uint64_t byte = 0;
			int rc;

			snprintf(where, sizeof(where), "inode %" PRIu64 ", attr block %" PRIu64,
				 ip->ino, fb);
			if (shown++ >= XC_SHOW_MAX_BLOCKS) {
				xc_so_begin(&s->o, "attr fork", where, 0, 0);
				xc_so_note(&s->o, "stopped after %u blocks", XC_SHOW_MAX_BLOCKS);
				xc_so_end(&s->o);
				return 0;
			}
			rc = attr_read(s, ex, fb, &b, &byte);
			if (rc == XERR_NOMEM)
				return rc;
			if (rc) {
				xc_so_begin(&s->o, "attr block", where, 0, 0);
				xc_so_note(&s->o, "cannot be read: %s", xerr_str(rc));
				xc_so_end(&s->o);
				continue;
			}
			if (fb > UINT32_MAX ||
			    xc_show_attrblock(s, where, b->data, b->len, byte, ip->ino,
					      (uint32_t)fb, fork_end) != 0) {
				xc_so_begin(&s->o, "attr block", where, byte, g->blocksize);
				xc_so_note(&s->o, "magic 0x%08" PRIx32 " is no attr block's",
					   xfmt_get_be32(b->data));
				xc_so_end(&s->o);
			}
			xa_put(s->ctx, &b);
		}
	}
	return 0;
}

/* The fork's form, as the kernel tells it: from di_aformat and attr block 0. */
static const char *fork_form(struct xc_show_run *s, const struct xa_extents *ex)
{
	struct xbuf *b = NULL;
	uint64_t byte;
	const char *form = "leaf or node (block 0 cannot be read)";

	if (attr_read(s, ex, 0, &b, &byte) != 0)
		return form;
	switch (xfmt_blk_classify(b->data, b->len, xfmt_blk_ver_of(s->ctx->geom.v5))) {
	case XFMT_BLK_ATTR_LEAF: form = "leaf (one leaf block holds every attribute)"; break;
	case XFMT_BLK_DA_NODE: form = "node (a DA btree over leaf blocks)"; break;
	default: form = "unknown (block 0 is neither a leaf nor a node)"; break;
	}
	xa_put(s->ctx, &b);
	return form;
}

int xc_show_attr(struct xc_show_run *s, const char *arg)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct xa_extents ex = { 0 };
	struct xa_inode ip;
	uint64_t ino;
	char where[64];
	int rc;

	rc = xc_show_resolve(s, arg, &ino);
	if (rc)
		return rc;
	rc = xa_inode_read(s->ctx, ino, &ip);
	if (rc) {
		fprintf(s->err, "xfsrecon: inode %" PRIu64 " cannot be read as an inode\n", ino);
		return rc == XERR_NOMEM ? rc : XERR_USAGE;
	}
	snprintf(where, sizeof(where), "inode %" PRIu64, ino);
	xc_so_begin(&s->o, "attr fork", where, xfmt_geom_ino_byte(g, ino), g->inodesize);
	if (!ip.d.has_attr_fork) {
		xc_so_note(&s->o, "no attr fork (core.forkoff is 0): the inode has no attributes");
		xc_so_end(&s->o);
		goto out;
	}
	if (ip.d.aformat == XFS_DINODE_FMT_LOCAL) {
		xc_so_note(&s->o, "form: shortform (the attributes live in the inode, past the "
			   "first core.forkoff * 8 (%u) bytes of the literal area)",
			   ip.d.forkoff * 8u);
		xc_so_end(&s->o);
		show_shortform(s, &ip);
		goto out;
	}
	rc = xa_extents_load(s->ctx, &ip, XA_ATTR_FORK, &ex);
	if (rc)
		goto out;
	if (ex.n == 0) {
		xc_so_note(&s->o, "form: no blocks (core.aformat %u, nothing mapped)", ip.d.aformat);
		xc_so_end(&s->o);
		goto out;
	}
	xc_so_note(&s->o, "form: %s; %zu mapping%s%s; attr blocks of %" PRIu32 " bytes",
		   fork_form(s, &ex), ex.n, ex.n == 1 ? "" : "s",
		   ex.complete ? "" : " (the map is incomplete)", g->blocksize);
	for (size_t i = 0; i < ex.n; i++) {
		xc_so_item_begin(&s->o, "extent", (unsigned)i, 0, 0, true);
		xc_so_item_u64(&s->o, "startoff", ex.v[i].startoff);
		xc_so_item_u64(&s->o, "startblock", ex.v[i].startblock);
		xc_so_item_u64(&s->o, "blockcount", ex.v[i].blockcount);
		xc_so_item_end(&s->o);
	}
	xc_so_end(&s->o);
	rc = show_blocks(s, &ip, &ex);
out:
	xa_extents_release(&ex);
	xa_inode_release(&ip);
	return rc;
}
