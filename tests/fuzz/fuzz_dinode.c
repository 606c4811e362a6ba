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
 * records go through the bmbt record decoder and verifier, a btree fork's
 * root through the bmdr accessors.
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * both forks lie inside the inode and do not overlap; the core size matches
 * the filesystem version.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/btrec.h"
#include "formats/btree.h"
#include "formats/dinode.h"
#include "formats/endian.h"
#include "tests/fuzz/harness.h"

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
	} else if (format == XFS_DINODE_FMT_BTREE) {
		uint16_t level, numrecs;
		unsigned max = xfmt_bmdr_maxrecs(size);
		uint64_t v;

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
