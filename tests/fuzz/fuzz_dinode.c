/*
 * fuzz_dinode.c - libFuzzer target for the inode core: decode, verify, fork
 * geometry, timestamps and field tables, at every inode size (256 B to
 * 2 KiB) on v4 and v5 geometries, with and without nrext64 and bigtime.
 *
 * Input: the geometry header of harness.h (the presets cover inode
 * sizes 256/512/1024/2048, v4 and v5), then a be64 inode number (the
 * number the caller believes the inode has), then the inode bytes.  A
 * shorter inode is zero-padded to the inode size, since the decoder's
 * contract is a whole inode; the too-short-for-a-core case is tried
 * separately on every input.
 *
 * The forks are then read the way the analyzer will: an extents fork's
 * records go through the bmbt record decoder and verifier, then bmap.h's
 * decode, verify, streamed rules and lookups; a btree fork's root through
 * the bmdr accessors and bmap.h's root decode and verify.
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * both forks lie inside the inode and do not overlap; the core size matches
 * the filesystem version; extent decoding never yields more than the fork or
 * the inode holds; a lookup stays in its list and, on a sorted list, maps the
 * block the list says.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/bmap.h"
#include "formats/btrec.h"
#include "formats/btree.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "tests/fuzz/harness.h"

/* A file block looked up through recs[0..n): the answer must stay in the list and agree with it. */
static void lookup_one(const struct xfmt_bmbt_rec *recs, size_t n, uint64_t fileoff, bool sorted)
{
	struct xfmt_bmap_map m;
	bool mapped = xfmt_bmap_lookup(recs, n, fileoff, &m);

	if (mapped != m.mapped || m.idx > n || (mapped && m.idx >= n))
		fz_fail("bmap lookup answered outside its list", m.idx, n);
	if (!sorted)
		return;
	if (mapped) {
		const struct xfmt_bmbt_rec *r = &recs[m.idx];

		if (fileoff < r->startoff || fileoff - r->startoff >= r->blockcount ||
		    m.fsblock != r->startblock + (fileoff - r->startoff) ||
		    m.count != r->blockcount - (fileoff - r->startoff))
			fz_fail("bmap lookup maps the wrong block", fileoff, m.idx);
	} else if (m.count == 0 && fileoff <= XFS_MAX_FILEOFF) {
		fz_fail("bmap lookup gives an empty hole", fileoff, m.idx);
	}
}

/*
 * An EXTENTS fork the way readers and checkers take it (bmap.h): decode,
 * verify, the streamed rules, and lookups at every mapping's edges.  The
 * lookups are judged only where the rules found the list sorted.
 */
static void walk_extents(const uint8_t *fork, size_t size, uint64_t nextents,
			 const struct xfmt_dinode *d, int whichfork, const struct xfmt_geom *g,
			 struct fz_sink *s)
{
	size_t cap = xfmt_bmap_extents_capacity(size), n;
	struct xfmt_bmbt_rec *recs = calloc(cap ? cap : 1, sizeof(*recs));
	struct xfmt_bmap_fork f;
	struct xfmt_bmap_check c;
	bool sorted = true;

	if (!recs)
		fz_fail("out of memory", cap, 0);
	if (cap * XFMT_BMBT_REC_LEN > size)
		fz_fail("extent capacity larger than the fork", cap, size);
	n = xfmt_bmap_extents_decode(fork, size, nextents, recs, cap);
	if (n > cap || n > nextents)
		fz_fail("more extents decoded than the fork or the inode has", n, cap);
	xfmt_bmap_fork_init(&f, g, d, whichfork);
	xfmt_bmap_extents_verify(fork, size, nextents, g, &f, &s->sink);
	xfmt_bmap_check_init(&c, g, &f);
	for (size_t i = 0; i < n; i++) {
		xfmt_bmap_check_rec(&c, &recs[i], &s->sink);
		if (i && recs[i].startoff < recs[i - 1].startoff + recs[i - 1].blockcount)
			sorted = false;
		if (recs[i].blockcount == 0 || recs[i].startoff + recs[i].blockcount < recs[i].startoff)
			sorted = false;
	}
	xfmt_bmap_check_finish(&c, nextents, "core.nextents", &s->sink);
	lookup_one(recs, n, 0, sorted);
	lookup_one(recs, n, xfmt_bmap_max_fileoff(g), sorted);
	for (size_t i = 0; i < n; i++) {
		lookup_one(recs, n, recs[i].startoff, sorted);
		lookup_one(recs, n, recs[i].startoff + recs[i].blockcount - 1, sorted);
		lookup_one(recs, n, recs[i].startoff + recs[i].blockcount, sorted);
	}
	fz_blackhole += c.nblocks + c.findings;
	free(recs);
}

static void walk_fork(const uint8_t *buf, const struct xfmt_dinode *d, int whichfork,
		      const struct xfmt_geom *g, struct fz_sink *s)
{
	size_t size = 0;
	const uint8_t *fork = xfmt_dinode_fork(buf, d, whichfork, &size);
	uint8_t format = whichfork ? d->aformat : d->format;

	if (!fork) {
		if (size != 0)
			fz_fail("absent fork with a size", (unsigned)whichfork, size);
		return;
	}
	if (fork < buf || size > g->inodesize || fork > buf + g->inodesize - size)
		fz_fail("fork outside the inode", (unsigned long long)(fork - buf), size);
	if (size) {
		fz_blackhole += fork[0] + fork[size - 1];
	}
	if (format == XFS_DINODE_FMT_EXTENTS) {
		uint64_t n = whichfork ? d->anextents : d->nextents;
		size_t max = size / 16;

		if (n > max)
			n = max;
		for (size_t i = 0; i < n; i++) {
			struct xfmt_bmbt_rec r;

			xfmt_bmbt_rec_decode(fork + 16 * i, &r);
			xfmt_bt_rec_verify(XFMT_BT_BMAP, fork + 16 * i, (unsigned)i, g, 0, &s->sink);
			fz_blackhole += r.startblock;
		}
		walk_extents(fork, size, whichfork ? d->anextents : d->nextents, d, whichfork, g, s);
	} else if (format == XFS_DINODE_FMT_BTREE) {
		uint16_t level, numrecs;
		unsigned max = xfmt_bmdr_maxrecs(size);
		struct xfmt_bmap_root root;
		uint64_t v;

		if (xfmt_bmap_root_decode(fork, size, &root) == 0 &&
		    (root.nrecs > root.maxrecs || root.nrecs > root.numrecs))
			fz_fail("bmbt root offers more slots than it has", root.nrecs, root.maxrecs);
		xfmt_bmap_root_verify(fork, size, g, whichfork, &s->sink);
		fz_blackhole += xfmt_bmap_maxlevels(g, whichfork);
		if (xfmt_bmdr_decode(fork, size, &level, &numrecs) != 0)
			return;
		for (unsigned i = 0; i < numrecs && i <= max; i++) {
			if (xfmt_bmdr_key(fork, size, i, &v) == 0)
				fz_blackhole += v;
			if (xfmt_bmdr_ptr(fork, size, i, &v) == 0)
				fz_blackhole += v;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfmt_geom g;
	struct fz_sink s;
	struct xfmt_dinode d;
	struct xfmt_timestamp ts;
	uint8_t *buf;
	uint64_t ino;
	size_t len;
	long off;

	if (size > 8192)
		return 0;
	off = fz_geom_header(data, size, &g);
	if (off < 0 || size - (size_t)off < 8)
		return 0;
	fz_sink_init(&s);
	ino = xfmt_get_be64(data + off);
	off += 8;
	len = size - (size_t)off;
	if (len > g.inodesize)
		len = g.inodesize;

	/* A buffer too short for the core must be refused, not read. */
	{
		size_t core = g.v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE;
		size_t shortlen = len < core ? len : core - 1;

		buf = fz_dup(data + off, shortlen);
		if (xfmt_dinode_decode(buf, shortlen, &g, &d) == 0)
			fz_fail("inode decoded from a buffer shorter than its core", shortlen, core);
		free(buf);
	}

	buf = calloc(1, g.inodesize);
	if (!buf)
		fz_fail("out of memory", g.inodesize, 0);
	memcpy(buf, data + off, len);
	len = g.inodesize;

	fz_sweep_fields(xfmt_dinode_core_fields, buf, len);
	fz_sweep_fields(xfmt_dinode_nrext64_fields, buf, len);
	xfmt_timestamp_decode(buf + 32, false, &ts);
	fz_blackhole += (uint64_t)ts.sec + ts.nsec;
	xfmt_timestamp_decode(buf + 32, true, &ts);
	fz_blackhole += (uint64_t)ts.sec + ts.nsec;

	if (xfmt_dinode_decode(buf, len, &g, &d) != 0)
		fz_fail("inode of full size refused", len, 0);
	if (d.core_size != (g.v5 ? XFMT_DINODE_V3_CORE : XFMT_DINODE_V2_CORE))
		fz_fail("core size does not match the filesystem version", d.core_size, g.v5);
	if (d.dfork_off + d.dfork_size > len || (d.afork_off && d.afork_off + d.afork_size > len))
		fz_fail("fork extends past the inode", d.dfork_off + d.dfork_size,
			d.afork_off + d.afork_size);
	if (d.afork_off && d.afork_size && d.dfork_size &&
	    d.afork_off < d.dfork_off + d.dfork_size && d.dfork_off < d.afork_off + d.afork_size)
		fz_fail("data and attr forks overlap", d.dfork_off, d.afork_off);
	fz_sweep_fields(xfmt_dinode_fields(&d), buf, len);
	xfmt_dinode_verify(buf, len, &g, ino, &d, &s.sink);
	/* Also at the inode number the inode claims (the analyzer's usual case). */
	if (d.ino != ino)
		xfmt_dinode_verify(buf, len, &g, d.ino, &d, &s.sink);
	fz_blackhole += xfmt_dinode_in_use(&d);
	walk_fork(buf, &d, 0, &g, &s);
	walk_fork(buf, &d, 1, &g, &s);
	fz_blackhole += s.count;
	free(buf);
	return 0;
}
