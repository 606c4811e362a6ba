/*
 * show_path.c - `xfsrecon show path PATH`: how each component of a path is
 * found, the way the kernel looks a name up.  For every component: the
 * directory inode and its form; the name's hash; in block form the binary
 * search of the block's leaf array, in leaf form of the leaf1 block, in
 * node form the DA node entries followed down to a leafN block (and along
 * its forward siblings while the hash run continues); every leaf entry with
 * the name's hash that was tried (stale, another name with the same hash,
 * or the entry); and the entry found: inode number and file type.
 * Shortform directories have no index: their entries are searched in order.
 *
 * When the hashed lookup fails, a scan of every entry (model/dir.c) says
 * whether the name is there after all: then the index is damaged.
 * Everything read is bounded: leaf searches by the entry counts the blocks
 * can hold, node descents by XFS_DA_NODE_MAXDEPTH, sibling hops by
 * MAX_HOPS.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "analyzer/views/show_int.h"
#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/endian.h"

/* leafN blocks followed forward while their last entry still has the hash */
#define MAX_HOPS 64u

struct lookup {
	struct xa_show_run *s;
	const struct xa_inode *dir;
	struct xa_extents ex;
	uint8_t *blk;       /* one directory block: the index block being searched */
	uint8_t *data;      /* one directory block: the data block an address names */
	const uint8_t *name;
	size_t len;
	uint32_t hash;
	bool found;
	struct xfmt_dirent de;  /* name points into data */
};

/* Read the directory block at fork block da into dst; 0 or an xerr. */
static int read_da(struct lookup *l, uint64_t da, uint8_t *dst)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	uint32_t per = g->dirblksize >> g->blocklog;

	for (uint32_t k = 0; k < per; k++) {
		const struct xfmt_bmbt_rec *r = xa_extents_find(&l->ex, da + k);
		struct xbuf *b = NULL;
		uint64_t fsb;
		int rc;

		if (!r || r->unwritten)
			return XERR_RANGE;
		fsb = r->startblock + (da + k - r->startoff);
		if (!xfmt_geom_fsb_valid(g, fsb))
			return XERR_RANGE;
		rc = xa_read(l->s->ctx, xfmt_geom_fsb_byte(g, fsb), g->blocksize, &b, NULL);
		if (rc)
			return rc;
		memcpy(dst + ((size_t)k << g->blocklog), b->data, g->blocksize);
		xa_put(l->s->ctx, &b);
	}
	return 0;
}

/*
 * Try the leaf entry (index i of array arr) with address addr: the entry it
 * names in data block (block 0 itself for block form) must carry the name.
 */
static bool try_address(struct lookup *l, const char *arr, unsigned i, uint32_t addr,
			bool block_form)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	uint32_t db = xfmt_dir2_dataptr_to_db(g, addr), off = xfmt_dir2_dataptr_to_off(g, addr);
	struct xfmt_dir2_rec r;
	size_t pos = off;
	char shown[64];

	if (addr == XFS_DIR2_NULL_DATAPTR) {
		xa_so_note(&l->s->o, "%s[%u]: stale (address 0), skipped", arr, i);
		return false;
	}
	if (block_form) {
		memcpy(l->data, l->blk, g->dirblksize);
	} else if (read_da(l, xfmt_dir2_db_to_da(g, db), l->data) != 0) {
		xa_so_note(&l->s->o, "%s[%u]: address 0x%" PRIx32 " names data block %" PRIu32
			   ", which cannot be read", arr, i, addr, db);
		return false;
	}
	if (off < xfmt_dir2_data_hdr_len(g) ||
	    xfmt_dir2_data_rec_next(l->data, g->dirblksize, g, block_form, &pos, &r) != 1 ||
	    r.kind != XFMT_DIR2_REC_ENTRY) {
		xa_so_note(&l->s->o, "%s[%u]: address 0x%" PRIx32 " (data block %" PRIu32
			   ", byte %" PRIu32 ") names no entry", arr, i, addr, db, off);
		return false;
	}
	xa_chars_format(r.ent.name, r.ent.namelen, shown, sizeof(shown));
	if (r.ent.namelen != l->len || memcmp(r.ent.name, l->name, l->len) != 0) {
		xa_so_note(&l->s->o, "%s[%u]: address 0x%" PRIx32 " (data block %" PRIu32 ", byte %"
			   PRIu32 ") holds %s: the same hash, another name", arr, i, addr, db, off,
			   shown);
		return false;
	}
	xa_so_note(&l->s->o, "%s[%u]: address 0x%" PRIx32 " = data block %" PRIu32 ", byte %"
		   PRIu32 ": the entry", arr, i, addr, db, off);
	l->de = r.ent;
	l->found = true;
	return true;
}

typedef int (*entry_fn)(const uint8_t *blk, size_t len, const void *arg, unsigned i,
			uint32_t *hash, uint32_t *addr);

struct block_leaf_arg {
	const struct xfmt_geom *g;
	struct xfmt_dir2_block_tail tail;
};

static int block_entry(const uint8_t *blk, size_t len, const void *arg, unsigned i,
		       uint32_t *hash, uint32_t *addr)
{
	const struct block_leaf_arg *a = arg;

	return xfmt_dir2_block_leaf(blk, len, a->g, &a->tail, i, hash, addr);
}

static int leaf_entry(const uint8_t *blk, size_t len, const void *arg, unsigned i,
		      uint32_t *hash, uint32_t *addr)
{
	return xfmt_dir2_leaf_entry(blk, len, *(const bool *)arg, i, hash, addr);
}

/*
 * Binary-search n leaf entries for the first hash >= l->hash, then try each
 * entry with that hash.  Returns 1 when the run of equal hashes reaches the
 * last entry (a leafN's forward sibling may continue it), else 0.
 */
static int search_leaf(struct lookup *l, const char *arr, unsigned n, entry_fn get,
		       const void *arg, bool block_form)
{
	size_t len = l->s->ctx->geom.dirblksize;
	unsigned lo = 0, hi = n;
	uint32_t h, a;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (get(l->blk, len, arg, mid, &h, &a) != 0) {
			hi = mid;
			continue;
		}
		if (h < l->hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	xa_so_note(&l->s->o, "%s: %u entries sorted by hash; the binary search for 0x%08" PRIx32
		   " stops at %s[%u]", arr, n, l->hash, arr, lo);
	if (lo == n) {
		xa_so_note(&l->s->o, "no entry has the name's hash");
		return 0;
	}
	for (unsigned i = lo; i < n; i++) {
		if (get(l->blk, len, arg, i, &h, &a) != 0 || h != l->hash) {
			if (i == lo)
				xa_so_note(&l->s->o, "no entry has the name's hash");
			return 0;
		}
		if (try_address(l, arr, i, a, block_form))
			return 0;
	}
	return 1;
}

static void lookup_block(struct lookup *l)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	struct block_leaf_arg a = { g, { 0, 0, 0 } };

	if (read_da(l, 0, l->blk) != 0 ||
	    xfmt_dir2_block_tail_decode(l->blk, g->dirblksize, g, &a.tail) != 0) {
		xa_so_note(&l->s->o, "the directory block or its tail cannot be read");
		return;
	}
	search_leaf(l, "bleaf", a.tail.count, block_entry, &a, true);
}

static void lookup_leaf(struct lookup *l, uint64_t da, bool leaf1)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	struct xfmt_dir2_leaf_hdr hdr;
	bool v5 = g->v5;

	for (unsigned hop = 0; hop < MAX_HOPS; hop++) {
		unsigned n;

		if (xfmt_dir2_leaf_hdr_decode(l->blk, g->dirblksize, v5, &hdr) != 0)
			return;
		n = hdr.count < xfmt_dir2_leaf_max_ents(g) ? hdr.count : xfmt_dir2_leaf_max_ents(g);
		xa_so_note(&l->s->o, "%s block at fork block %" PRIu64, leaf1 ? "leaf1" : "leafN", da);
		if (search_leaf(l, "lents", n, leaf_entry, &v5, false) == 0 || leaf1 ||
		    hdr.info.forw == 0)
			return;
		da = hdr.info.forw;
		xa_so_note(&l->s->o, "the hash run goes on past the last entry: on to the forward "
			   "sibling, fork block %" PRIu64, da);
		if (read_da(l, da, l->blk) != 0) {
			xa_so_note(&l->s->o, "fork block %" PRIu64 " cannot be read", da);
			return;
		}
	}
}

static void lookup_node(struct lookup *l)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	uint64_t da = xfmt_dir2_leaf_firstda(g);

	for (unsigned depth = 0; depth <= XFS_DA_NODE_MAXDEPTH; depth++) {
		struct xfmt_da_node_hdr hdr;
		uint16_t m16;
		unsigned n, i;
		uint32_t h = 0, before = 0;

		if (read_da(l, da, l->blk) != 0) {
			xa_so_note(&l->s->o, "fork block %" PRIu64 " cannot be read", da);
			return;
		}
		m16 = xfmt_get_be16(l->blk + 8);
		if (m16 == XFS_DIR2_LEAFN_MAGIC || m16 == XFS_DIR3_LEAFN_MAGIC ||
		    m16 == XFS_DIR2_LEAF1_MAGIC || m16 == XFS_DIR3_LEAF1_MAGIC) {
			lookup_leaf(l, da, m16 == XFS_DIR2_LEAF1_MAGIC || m16 == XFS_DIR3_LEAF1_MAGIC);
			return;
		}
		if ((m16 != XFS_DA_NODE_MAGIC && m16 != XFS_DA3_NODE_MAGIC) ||
		    xfmt_da_node_hdr_decode(l->blk, g->dirblksize, g->v5, &hdr) != 0) {
			xa_so_note(&l->s->o, "fork block %" PRIu64 " (magic 0x%04x) is neither a node "
				   "nor a leaf", da, m16);
			return;
		}
		n = hdr.count < xfmt_da_node_max_ents(g->dirblksize, g->v5) ?
		    hdr.count : xfmt_da_node_max_ents(g->dirblksize, g->v5);
		/* A node entry's hashval is the highest hash below it. */
		for (i = 0; i < n; i++)
			if (xfmt_da_node_entry(l->blk, g->dirblksize, g->v5, i, &h, &before) == 0 &&
			    h >= l->hash)
				break;
		if (i == n) {
			xa_so_note(&l->s->o, "node at fork block %" PRIu64 " (level %u, %u entries): "
				   "every hashval is below 0x%08" PRIx32 ", so no entry has the name",
				   da, hdr.level, n, l->hash);
			return;
		}
		xa_so_note(&l->s->o, "node at fork block %" PRIu64 " (level %u): nbtree[%u] hashval "
			   "0x%08" PRIx32 " is the first >= the hash: down to fork block %" PRIu32,
			   da, hdr.level, i, h, before);
		da = before;
	}
	xa_so_note(&l->s->o, "deeper than %u node levels: stopped", XFS_DA_NODE_MAXDEPTH);
}

static void lookup_shortform(struct lookup *l)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	size_t forksize = 0, pos = 0, size;
	const uint8_t *fork = xfmt_dinode_fork(l->dir->raw, &l->dir->d, 0, &forksize);
	struct xfmt_dirent de;
	unsigned i = 0;

	xa_so_note(&l->s->o, "shortform: no hash index; the entries in the inode are compared "
		   "one by one");
	if (!fork)
		return;
	size = l->dir->d.size < forksize ? (size_t)l->dir->d.size : forksize;
	while (xfmt_dir2_sf_next(fork, size, g, &pos, &de) == 1) {
		if (de.namelen == l->len && !memcmp(de.name, l->name, l->len)) {
			xa_so_note(&l->s->o, "list[%u] is the entry", i);
			l->de = de;
			l->found = true;
			return;
		}
		i++;
	}
	xa_so_note(&l->s->o, "none of the %u entries has the name", i);
}

/* Look one component up in directory dir (read); the entry's inode in *next. */
static int lookup_component(struct xa_show_run *s, const struct xa_inode *dir, unsigned k,
			    const uint8_t *name, size_t len, uint64_t *next)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct lookup l;
	char where[160], q[64];
	const struct xfmt_bmbt_rec *last;
	uint64_t lin;
	int rc = 0;

	memset(&l, 0, sizeof(l));
	l.s = s;
	l.dir = dir;
	l.name = name;
	l.len = len;
	l.hash = xfmt_dir2_hashname(g, name, len);
	xa_chars_format(name, len, q, sizeof(q));
	snprintf(where, sizeof(where), "component %u, %s, in directory inode %" PRIu64, k, q,
		 dir->ino);
	xa_so_begin(&s->o, "lookup", where, xfmt_geom_ino_byte(g, dir->ino), g->inodesize);
	xa_so_note(&s->o, "hash of %s: 0x%08" PRIx32 "%s", q, l.hash,
		   xfmt_dir_is_ci(g) ? " (ASCII case-insensitive hash)" : "");
	if (dir->d.format == 1) {
		lookup_shortform(&l);
		goto done;
	}
	l.blk = malloc(g->dirblksize);
	l.data = malloc(g->dirblksize);
	if (!l.blk || !l.data) {
		rc = XERR_NOMEM;
		goto out;
	}
	rc = xa_extents_load(s->ctx, dir, XA_DATA_FORK, &l.ex);
	if (rc)
		goto out;
	if (l.ex.n == 0) {
		xa_so_note(&s->o, "the directory has no blocks");
		goto done;
	}
	last = &l.ex.v[l.ex.n - 1];
	if (((last->startoff + last->blockcount) << g->blocklog) == g->dirblksize) {
		xa_so_note(&s->o, "block form: one directory block holds the entries and their "
			   "hash-sorted leaf (bleaf)");
		lookup_block(&l);
	} else {
		xa_so_note(&s->o, "leaf or node form: the index starts at fork block %" PRIu32
			   " (the leaf segment)", xfmt_dir2_leaf_firstda(g));
		lookup_node(&l);
	}
done:
	if (l.found) {
		xa_so_item_begin(&s->o, "entry", 0, 0, 0, false);
		xa_so_item_u64(&s->o, "inumber", l.de.ino);
		xa_so_item_name(&s->o, "name", l.de.name, l.de.namelen);
		if (xfmt_geom_has_ftype(g)) {
			xa_so_item_u64(&s->o, "filetype", l.de.ftype);
			xa_so_item_word(&s->o, "type", xfmt_dir3_ftype_name(l.de.ftype));
		}
		xa_so_item_end(&s->o);
		*next = l.de.ino;
	} else if ((rc = xa_dir_lookup(s->ctx, dir, name, len, &lin)) == 0) {
		xa_so_note(&s->o, "the hashed lookup failed, yet a scan of every entry finds it "
			   "(inode %" PRIu64 "): the directory's index is damaged", lin);
		*next = lin;
	} else if (rc == XERR_RANGE) {
		xa_so_note(&s->o, "not found, not even by a scan of every entry");
		rc = XERR_USAGE;
	}
out:
	xa_so_end(&s->o);
	free(l.blk);
	free(l.data);
	xa_extents_release(&l.ex);
	return rc;
}

int xa_show_path(struct xa_show_run *s, const char *path)
{
	uint64_t cur = s->ctx->sb.rootino;
	const char *p = path;
	unsigned k = 0;

	if (path[0] != '/') {
		fprintf(s->err, "xfsrecon: show path needs an absolute path, not '%s'\n", path);
		return XERR_USAGE;
	}
	xa_so_begin(&s->o, "path", path, 0, 0);
	xa_so_note(&s->o, "the walk starts at the root directory, inode %" PRIu64
		   " (the superblock's rootino)", cur);
	xa_so_end(&s->o);
	while (*p) {
		struct xa_inode dir;
		const char *end;
		size_t len;
		uint64_t next = 0;
		int rc;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len > XFMT_DIR_MAXNAMELEN) {
			fprintf(s->err, "xfsrecon: a path component is longer than %u bytes\n",
				XFMT_DIR_MAXNAMELEN);
			return XERR_USAGE;
		}
		rc = xa_inode_read(s->ctx, cur, &dir);
		if (rc) {
			fprintf(s->err, "xfsrecon: inode %" PRIu64 " cannot be read\n", cur);
			return rc == XERR_NOMEM ? rc : XERR_USAGE;
		}
		if ((dir.d.mode & 0170000u) != 0040000u) {
			fprintf(s->err, "xfsrecon: inode %" PRIu64 ", before '%.*s', is not a "
				"directory\n", cur, (int)len, p);
			xa_inode_release(&dir);
			return XERR_USAGE;
		}
		rc = lookup_component(s, &dir, ++k, (const uint8_t *)p, len, &next);
		xa_inode_release(&dir);
		if (rc) {
			if (rc == XERR_USAGE)
				fprintf(s->err, "xfsrecon: '%.*s': no such entry\n", (int)len, p);
			return rc;
		}
		cur = next;
		p += len;
	}
	xa_so_begin(&s->o, "path", path, 0, 0);
	xa_so_note(&s->o, "resolved: inode %" PRIu64, cur);
	xa_so_end(&s->o);
	return 0;
}
