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
 *
 * Text shows each step as a note.  JSON gives each component one entry of
 * kind "lookup" (component, position, directory, hash, steps, form, found,
 * resolved_by), whose steps are objects: an "action" (hash, form, search,
 * no_match, entry, leaf, sibling, node, read, stop, scan), the numbers
 * that step used (fork block, array and entry index, address, data block
 * and byte, node level, hashval, child) and the note's sentence as "text".
 * Everything read is bounded: leaf searches by the entry counts the blocks
 * can hold, node descents by XFS_DA_NODE_MAXDEPTH, sibling hops by
 * MAX_HOPS.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/engine_io.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/scan/fork_walk.h"
#include "cli/views/show_int.h"
#include "formats/block.h"
#include "formats/dahash.h"
#include "formats/dir2.h"
#include "formats/endian.h"

/* leafN blocks followed forward while their last entry still has the hash */
#define MAX_HOPS 64u

struct lookup {
	struct xc_show_run *s;
	const struct xa_inode *dir;
	struct xa_extents ex;
	uint8_t *blk;       /* one directory block: the index block being searched */
	uint8_t *data;      /* one directory block: the data block an address names */
	const uint8_t *name;
	size_t len;
	uint32_t hash;
	bool found;
	struct xfmt_dirent de;  /* name points into data */
	struct xa_json *j;      /* JSON: the open lookup entry's "steps"; text: NULL */
	const char *form;       /* the directory's form, as the lookup found it */
};

/* One number or string a step reports (JSON; text has the sentence only). */
enum kv_kind { KV_U64, KV_STR, KV_BYTES };
struct kv {
	const char   *key;
	enum kv_kind  kind;
	uint64_t      u;
	const void   *p;     /* KV_STR: a C string; KV_BYTES: n bytes from the image */
	size_t        n;
};
#define KU(k, v)    { (k), KV_U64, (uint64_t)(v), NULL, 0 }
#define KS(k, v)    { (k), KV_STR, 0, (v), 0 }
#define KB(k, v, n) { (k), KV_BYTES, 0, (v), (n) }
#define NKV(a)      (sizeof(a) / sizeof((a)[0]))

/*
 * One step of the lookup: a note in text; in JSON an object of the steps
 * array with the action, the values in kv and the same sentence as "text".
 */
static void step(struct lookup *l, const char *action, const struct kv *kv, size_t nkv,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void step(struct lookup *l, const char *action, const struct kv *kv, size_t nkv,
		 const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!l->j) {
		xc_so_note(&l->s->o, "%s", text);
		return;
	}
	xa_json_object(l->j, true);
	xa_json_kstr(l->j, "action", action);
	for (size_t i = 0; i < nkv; i++) {
		xa_json_key(l->j, kv[i].key);
		if (kv[i].kind == KV_U64)
			xa_json_u64(l->j, kv[i].u);
		else if (kv[i].kind == KV_STR)
			xa_json_str(l->j, kv[i].p);
		else
			xa_json_bytes(l->j, kv[i].p, kv[i].n);
	}
	xa_json_key(l->j, "text");
	xa_json_bytes(l->j, text, strlen(text));
	xa_json_end(l->j);
}

/* Read the directory block at fork block da into dst; 0 or an xerr. */
static int read_da(struct lookup *l, uint64_t da, uint8_t *dst)
{
	uint64_t byte;

	return xa_dir_read_block(l->s->ctx, &l->ex, da, dst, &byte, NULL);
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
		const struct kv kv[] = { KS("array", arr), KU("index", i), KU("address", addr),
					 KS("result", "stale") };

		step(l, "entry", kv, NKV(kv), "%s[%u]: stale (address 0), skipped", arr, i);
		return false;
	}
	if (block_form) {
		memcpy(l->data, l->blk, g->dirblksize);
	} else if (read_da(l, xfmt_dir2_db_to_da(g, db), l->data) != 0) {
		const struct kv kv[] = { KS("array", arr), KU("index", i), KU("address", addr),
					 KU("data_block", db), KS("result", "unreadable") };

		step(l, "entry", kv, NKV(kv), "%s[%u]: address 0x%" PRIx32 " names data block %"
		     PRIu32 ", which cannot be read", arr, i, addr, db);
		return false;
	}
	if (off < xfmt_dir2_data_hdr_len(g) ||
	    xfmt_dir2_data_rec_next(l->data, g->dirblksize, g, block_form, &pos, &r) != 1 ||
	    r.kind != XFMT_DIR2_REC_ENTRY) {
		const struct kv kv[] = { KS("array", arr), KU("index", i), KU("address", addr),
					 KU("data_block", db), KU("byte", off),
					 KS("result", "no entry") };

		step(l, "entry", kv, NKV(kv), "%s[%u]: address 0x%" PRIx32 " (data block %" PRIu32
		     ", byte %" PRIu32 ") names no entry", arr, i, addr, db, off);
		return false;
	}
	xc_chars_format(r.ent.name, r.ent.namelen, shown, sizeof(shown));
	if (r.ent.namelen != l->len || memcmp(r.ent.name, l->name, l->len) != 0) {
		const struct kv kv[] = { KS("array", arr), KU("index", i), KU("address", addr),
					 KU("data_block", db), KU("byte", off),
					 KS("result", "other name"),
					 KB("name", r.ent.name, r.ent.namelen) };

		step(l, "entry", kv, NKV(kv), "%s[%u]: address 0x%" PRIx32 " (data block %" PRIu32
		     ", byte %" PRIu32 ") holds %s: the same hash, another name", arr, i, addr, db,
		     off, shown);
		return false;
	}
	{
		const struct kv kv[] = { KS("array", arr), KU("index", i), KU("address", addr),
					 KU("data_block", db), KU("byte", off),
					 KS("result", "match") };

		step(l, "entry", kv, NKV(kv), "%s[%u]: address 0x%" PRIx32 " = data block %" PRIu32
		     ", byte %" PRIu32 ": the entry", arr, i, addr, db, off);
	}
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
	{
		const struct kv kv[] = { KS("array", arr), KU("entries", n), KU("hash", l->hash),
					 KU("index", lo) };

		step(l, "search", kv, NKV(kv), "%s: %u entries sorted by hash; the binary search "
		     "for 0x%08" PRIx32 " stops at %s[%u]", arr, n, l->hash, arr, lo);
	}
	for (unsigned i = lo; i <= n; i++) {
		if (i == n || get(l->blk, len, arg, i, &h, &a) != 0 || h != l->hash) {
			const struct kv kv[] = { KS("array", arr) };

			if (i == lo)
				step(l, "no_match", kv, NKV(kv), "no entry has the name's hash");
			/* A run that reached the end may go on in the next leafN. */
			return i == n && i > lo ? 1 : 0;
		}
		if (try_address(l, arr, i, a, block_form))
			return 0;
	}
	return 0;
}

static void lookup_block(struct lookup *l)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	struct block_leaf_arg a = { g, { 0, 0, 0 } };

	if (read_da(l, 0, l->blk) != 0 ||
	    xfmt_dir2_block_tail_decode(l->blk, g->dirblksize, g, &a.tail) != 0) {
		const struct kv kv[] = { KU("block", 0), KS("result", "unreadable") };

		step(l, "read", kv, NKV(kv), "the directory block or its tail cannot be read");
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
		{
			const struct kv kv[] = { KU("block", da), KS("form", leaf1 ? "leaf1" : "leafN"),
						 KU("entries", n) };

			step(l, "leaf", kv, NKV(kv), "%s block at fork block %" PRIu64,
			     leaf1 ? "leaf1" : "leafN", da);
		}
		if (search_leaf(l, "lents", n, leaf_entry, &v5, false) == 0 || leaf1 ||
		    hdr.info.forw == 0)
			return;
		da = hdr.info.forw;
		{
			const struct kv kv[] = { KU("block", da) };

			step(l, "sibling", kv, NKV(kv), "the hash run goes on past the last entry: on "
			     "to the forward sibling, fork block %" PRIu64, da);
		}
		if (read_da(l, da, l->blk) != 0) {
			const struct kv kv[] = { KU("block", da), KS("result", "unreadable") };

			step(l, "read", kv, NKV(kv), "fork block %" PRIu64 " cannot be read", da);
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
		enum xfmt_blk_kind kind;
		uint16_t m16;
		unsigned n, i;
		uint32_t h = 0, before = 0;
		bool leaf1;

		if (read_da(l, da, l->blk) != 0) {
			const struct kv kv[] = { KU("block", da), KS("result", "unreadable") };

			step(l, "read", kv, NKV(kv), "fork block %" PRIu64 " cannot be read", da);
			return;
		}
		kind = xfmt_blk_classify(l->blk, g->dirblksize, XFMT_BLK_ANY);
		m16 = xfmt_get_be16(l->blk + xfmt_blk_row(XFMT_BLK_DA_NODE)->magic_off);
		leaf1 = kind == XFMT_BLK_DIR_LEAF1;
		/* The first index block says the form: a leaf1 block, or the root node. */
		if (depth == 0)
			l->form = leaf1 ? "leaf" : kind == XFMT_BLK_DA_NODE ? "node" :
				  "leaf or node (unrecognised index block)";
		if (leaf1 || kind == XFMT_BLK_DIR_LEAFN) {
			lookup_leaf(l, da, leaf1);
			return;
		}
		if (kind != XFMT_BLK_DA_NODE ||
		    xfmt_da_node_hdr_decode(l->blk, g->dirblksize, g->v5, &hdr) != 0) {
			const struct kv kv[] = { KU("block", da), KU("magic", m16),
						 KS("result", "neither node nor leaf") };

			step(l, "node", kv, NKV(kv), "fork block %" PRIu64 " (magic 0x%04x) is neither "
			     "a node nor a leaf", da, m16);
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
			const struct kv kv[] = { KU("block", da), KU("level", hdr.level),
						 KU("entries", n), KS("result", "no entry") };

			step(l, "node", kv, NKV(kv), "node at fork block %" PRIu64 " (level %u, %u "
			     "entries): every hashval is below 0x%08" PRIx32 ", so no entry has the "
			     "name", da, hdr.level, n, l->hash);
			return;
		}
		{
			const struct kv kv[] = { KU("block", da), KU("level", hdr.level),
						 KS("array", "nbtree"), KU("index", i),
						 KU("hashval", h), KU("child", before) };

			step(l, "node", kv, NKV(kv), "node at fork block %" PRIu64 " (level %u): "
			     "nbtree[%u] hashval 0x%08" PRIx32 " is the first >= the hash: down to "
			     "fork block %" PRIu32, da, hdr.level, i, h, before);
		}
		da = before;
	}
	{
		const struct kv kv[] = { KU("levels", XFS_DA_NODE_MAXDEPTH) };

		step(l, "stop", kv, NKV(kv), "deeper than %u node levels: stopped",
		     XFS_DA_NODE_MAXDEPTH);
	}
}

static void lookup_shortform(struct lookup *l)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	size_t forksize = 0, pos = 0, size;
	const uint8_t *fork = xfmt_dinode_fork(l->dir->raw, &l->dir->d, 0, &forksize);
	struct xfmt_dirent de;
	unsigned i = 0;

	{
		const struct kv kv[] = { KS("form", "shortform") };

		l->form = "shortform";
		step(l, "form", kv, NKV(kv), "shortform: no hash index; the entries in the inode "
		     "are compared one by one");
	}
	if (!fork)
		return;
	size = l->dir->d.size < forksize ? (size_t)l->dir->d.size : forksize;
	while (xfmt_dir2_sf_next(fork, size, g, &pos, &de) == 1) {
		if (de.namelen == l->len && !memcmp(de.name, l->name, l->len)) {
			const struct kv kv[] = { KS("array", "list"), KU("index", i),
						 KS("result", "match") };

			step(l, "entry", kv, NKV(kv), "list[%u] is the entry", i);
			l->de = de;
			l->found = true;
			return;
		}
		i++;
	}
	{
		const struct kv kv[] = { KS("array", "list"), KU("entries", i) };

		step(l, "no_match", kv, NKV(kv), "none of the %u entries has the name", i);
	}
}

/*
 * JSON: open the lookup entry of component k (position k of the path) and
 * its steps array; the form, the outcome and resolved_by follow the steps.
 */
static void json_begin(struct lookup *l, unsigned k)
{
	struct xa_json *j = xc_so_entry_begin(&l->s->o, "lookup");

	if (!j)
		return;
	xa_json_key(j, "component");
	xa_json_bytes(j, l->name, l->len);
	xa_json_ku64(j, "position", k);
	xa_json_ku64(j, "directory", l->dir->ino);
	xa_json_ku64(j, "hash", l->hash);
	xa_json_kbool(j, "ci_hash", xfmt_dir_is_ci(&l->s->ctx->geom));
	xa_json_key(j, "steps");
	xa_json_array(j, false);
	l->j = j;
}

/* JSON: close the steps; what was found by the index (l->de) or by a scan (scan_ino). */
static void json_end(struct lookup *l, bool scanned, uint64_t scan_ino)
{
	const struct xfmt_geom *g = &l->s->ctx->geom;
	struct xa_json *j = l->j;

	if (!j)
		return;
	l->j = NULL;
	xa_json_end(j);  /* steps */
	xa_json_key(j, "form");
	if (l->form)
		xa_json_str(j, l->form);
	else
		xa_json_null(j);
	xa_json_key(j, "found");
	if (l->found) {
		xa_json_object(j, true);
		xa_json_ku64(j, "inode", l->de.ino);
		xa_json_key(j, "name");
		xa_json_bytes(j, l->de.name, l->de.namelen);
		if (xfmt_geom_has_ftype(g)) {
			xa_json_ku64(j, "ftype", l->de.ftype);
			xa_json_kstr(j, "type", xfmt_dir3_ftype_name(l->de.ftype));
		}
		xa_json_end(j);
	} else if (scanned) {
		xa_json_object(j, true);
		xa_json_ku64(j, "inode", scan_ino);
		xa_json_end(j);
	} else {
		xa_json_null(j);
	}
	xa_json_kstr(j, "resolved_by", l->found ? "index" : scanned ? "scan" : "none");
	xc_so_entry_end(&l->s->o);
}

/* Look one component up in directory dir (read); the entry's inode in *next. */
static int lookup_component(struct xc_show_run *s, const struct xa_inode *dir, unsigned k,
			    const uint8_t *name, size_t len, uint64_t *next)
{
	const struct xfmt_geom *g = &s->ctx->geom;
	struct lookup l;
	char where[160], q[64];
	const struct xfmt_bmbt_rec *last;
	uint64_t lin = 0;
	bool scanned = false;
	int rc = 0;

	memset(&l, 0, sizeof(l));
	l.s = s;
	l.dir = dir;
	l.name = name;
	l.len = len;
	l.hash = xfmt_dir2_hashname(g, name, len);
	xc_chars_format(name, len, q, sizeof(q));
	snprintf(where, sizeof(where), "component %u, %s, in directory inode %" PRIu64, k, q,
		 dir->ino);
	xc_so_begin(&s->o, "lookup", where, xfmt_geom_ino_byte(g, dir->ino), g->inodesize);
	json_begin(&l, k);
	{
		const struct kv kv[] = { KU("hash", l.hash) };

		step(&l, "hash", kv, NKV(kv), "hash of %s: 0x%08" PRIx32 "%s", q, l.hash,
		     xfmt_dir_is_ci(g) ? " (ASCII case-insensitive hash)" : "");
	}
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
		const struct kv kv[] = { KS("form", "empty") };

		l.form = "empty";
		step(&l, "form", kv, NKV(kv), "the directory has no blocks");
		goto done;
	}
	last = &l.ex.v[l.ex.n - 1];
	if (((last->startoff + last->blockcount) << g->blocklog) == g->dirblksize) {
		const struct kv kv[] = { KS("form", "block") };

		l.form = "block";
		step(&l, "form", kv, NKV(kv), "block form: one directory block holds the entries "
		     "and their hash-sorted leaf (bleaf)");
		lookup_block(&l);
	} else {
		const struct kv kv[] = { KS("form", "leaf or node"),
					 KU("block", xfmt_dir2_leaf_firstda(g)) };

		l.form = "leaf or node";  /* lookup_node tells which when it can read the index */
		step(&l, "form", kv, NKV(kv), "leaf or node form: the index starts at fork block %"
		     PRIu32 " (the leaf segment)", xfmt_dir2_leaf_firstda(g));
		lookup_node(&l);
	}
done:
	if (!l.found) {
		rc = xa_dir_lookup(s->ctx, dir, name, len, &lin);
		if (rc == 0) {
			const struct kv kv[] = { KS("result", "found"), KU("inode", lin) };

			scanned = true;
			step(&l, "scan", kv, NKV(kv), "the hashed lookup failed, yet a scan of every "
			     "entry finds it (inode %" PRIu64 "): the directory's index is damaged",
			     lin);
			*next = lin;
		} else if (rc == XERR_RANGE) {
			const struct kv kv[] = { KS("result", "not found") };

			step(&l, "scan", kv, NKV(kv), "not found, not even by a scan of every entry");
			rc = XERR_USAGE;
		}
	}
out:
	json_end(&l, scanned, lin);
	if (l.found) {
		xc_so_item_begin(&s->o, "entry", 0, 0, 0, false);
		xc_so_item_u64(&s->o, "inumber", l.de.ino);
		xc_so_item_name(&s->o, "name", l.de.name, l.de.namelen);
		if (xfmt_geom_has_ftype(g)) {
			xc_so_item_u64(&s->o, "filetype", l.de.ftype);
			xc_so_item_word(&s->o, "type", xfmt_dir3_ftype_name(l.de.ftype));
		}
		xc_so_item_end(&s->o);
		*next = l.de.ino;
	}
	xc_so_end(&s->o);
	free(l.blk);
	free(l.data);
	xa_extents_release(&l.ex);
	return rc;
}

int xc_show_path(struct xc_show_run *s, const char *path)
{
	uint64_t cur = s->ctx->sb.rootino;
	const char *p = path;
	size_t len;
	unsigned k = 0;

	if (path[0] != '/') {
		fprintf(s->err, "xfsrecon: show path needs an absolute path, not '%s'\n", path);
		return XERR_USAGE;
	}
	xc_so_begin(&s->o, "path", path, 0, 0);
	xc_so_note(&s->o, "the walk starts at the root directory, inode %" PRIu64
		   " (the superblock's rootino)", cur);
	xc_so_end(&s->o);
	for (const char *walk = path; xa_path_next(&walk, &p, &len); ) {
		struct xa_inode dir;
		uint64_t next = 0;
		int rc;

		if (len > XFMT_DIR_MAXNAMELEN) {
			fprintf(s->err, "xfsrecon: a path component is longer than %u bytes\n",
				XFMT_DIR_MAXNAMELEN);
			return XERR_USAGE;
		}
		rc = xa_inode_read(s->ctx, cur, &dir);
		if (rc) {
			fprintf(s->err, "xfsrecon: inode %" PRIu64 " cannot be read\n", cur);
			/* Unreadable on the way is damage (8), as for every path. */
			return rc == XERR_NOMEM ? rc : XERR_IO;
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
	}
	xc_so_begin(&s->o, "path", path, 0, 0);
	xc_so_note(&s->o, "resolved: inode %" PRIu64, cur);
	xc_so_end(&s->o);
	return 0;
}
