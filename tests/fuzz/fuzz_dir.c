/*
 * fuzz_dir.c - libFuzzer target for the directory decoders: shortform
 * forks, data and block-form blocks, leaf1/leafN blocks, free-index blocks
 * and DA node blocks, with their iterators, verifiers, name hashes,
 * address arithmetic and field tables; deleted names carved from the unused
 * regions of data blocks.
 *
 * Input: the geometry header of harness.h, then
 *   byte 0   kind (modulo 6): 0 shortform fork, 1 data block, 2 block-form
 *            block, 3 leaf block, 4 free block, 5 node block
 *   byte 1   flags: bit 0 leaf1 (else leafN) for kind 3; bit 1 the entries
 *            use 8-byte inode numbers (shortform field table only)
 *   bytes 2-9   be64 directory inode number
 *   bytes 10-13 be32 fork block (dablk) the block was read from; for a
 *               shortform fork, its di_size (low 16 bits)
 *   then the fork bytes (shortform: as many as given, at most 2 KiB) or
 *   the block, zero-padded to the directory block size (a shorter payload
 *   is also offered as a short read in an allocation of exactly its size).
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * iterators always advance and hand out names inside the buffer; carved
 * names lie inside the region they were carved from; capacity
 * helpers leave room for their headers.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/dahash.h"
#include "formats/danode.h"
#include "formats/dir2.h"
#include "formats/dir2_carve.h"
#include "formats/endian.h"
#include "tests/fuzz/harness.h"

#define MAX_SF 2048u

static void check_name(const uint8_t *buf, size_t len, const struct xfmt_dirent *e,
		       const struct xfmt_geom *g)
{
	if (!e->name || e->name < buf || e->namelen > len || e->name > buf + len - e->namelen)
		fz_fail("directory entry name outside the buffer", e->namelen, len);
	fz_blackhole += xfmt_dir2_name_ok(e->name, e->namelen) +
			(unsigned)xfmt_dir2_name_dots(e->name, e->namelen) +
			xfmt_dir2_ino_ok(g, e->ino) + xfmt_dir2_hashname(g, e->name, e->namelen) +
			xfmt_da_hashname(e->name, e->namelen) +
			xfmt_ascii_ci_hashname(e->name, e->namelen);
	fz_blackhole += (uintptr_t)xfmt_dir3_ftype_name(e->ftype);
}

static void fuzz_sf(const uint8_t *fork, size_t size, uint64_t di_size, bool i8,
		    const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_dir2_sf_hdr h;
	struct xfmt_dirent e;
	struct xfmt_dir2_carved c;
	size_t pos = 0, walk = di_size < size ? (size_t)di_size : size;
	unsigned n = 0;
	int rc;

	fz_sweep_fields(xfmt_dir2_sf_hdr_fields(g->v5, xfmt_geom_has_ftype(g), i8), fork, size);
	if (xfmt_dir2_sf_hdr_decode(fork, size, &h) == 0)
		fz_blackhole += h.count + h.parent + xfmt_dir2_sf_entsize(g, h.i8count != 0, 255);
	for (size_t prev = pos; (rc = xfmt_dir2_sf_next(fork, walk, g, &pos, &e)) == 1; prev = pos) {
		if (pos <= prev)
			fz_fail("shortform iterator does not advance", pos, prev);
		check_name(fork, walk, &e, g);
		if (++n > MAX_SF)
			fz_fail("shortform iterator does not end", n, walk);
	}
	if (rc != 0 && rc != -1)
		fz_fail("shortform iterator returned an unknown code", (unsigned)rc, 0);
	xfmt_dir2_sf_verify(fork, size, di_size, g, &s->sink);
	/* old entries past di_size: inside the tail, the walk advancing */
	pos = walk;
	n = 0;
	for (size_t prev = pos; xfmt_dir2_sf_carve_next(fork, size, walk, g, i8, &pos, &c) == 1;
	     prev = pos) {
		if (pos <= prev || ++n > size)
			fz_fail("shortform carve walk does not advance", pos, prev);
		if (c.offset < walk || c.name < fork + walk ||
		    (size_t)(c.name - fork) + c.namelen > size)
			fz_fail("shortform carved entry outside the tail", c.offset, c.namelen);
		fz_blackhole += c.ino + c.ftype;
	}
}

/* Deleted names carved from one unused region: each inside the region, the walk advancing. */
static void carve_region(const uint8_t *buf, size_t len, uint32_t off, uint32_t rlen,
			 const struct xfmt_geom *g)
{
	struct xfmt_dir2_carved c;
	size_t pos = 0, prev = 0;
	unsigned n = 0;
	uint64_t end = (uint64_t)off + rlen;

	if (end > len)
		end = len;
	while (xfmt_dir2_carve_next(buf, len, off, rlen, g, &pos, &c) == 1) {
		if (n++ && pos <= prev)
			fz_fail("carve walk does not advance", pos, prev);
		prev = pos;
		if (c.offset < off || !c.name || c.name < buf + off ||
		    (uint64_t)(c.name - buf) + c.namelen > end)
			fz_fail("carved entry outside its region", c.offset, c.namelen);
		if (n > len)
			fz_fail("carve walk does not end", n, len);
		fz_blackhole += c.ino_low + c.ino + c.ftype + c.ino_whole +
				xfmt_dir2_hashname(g, c.name, c.namelen);
	}
}

static void fuzz_data(const uint8_t *buf, size_t len, bool block_form, uint64_t ino,
		      uint32_t dablk, const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_dir2_data_hdr h;
	struct xfmt_dir2_block_tail t;
	struct xfmt_da_expect exp;
	struct xfmt_dir2_rec r;
	struct xfmt_dirent e;
	struct xfmt_dir2_unused u;
	size_t pos, prev;

	fz_sweep_fields(xfmt_dir2_data_fields(g->v5, block_form), buf, len);
	if (xfmt_dir2_data_hdr_decode(buf, len, g->v5, &h) == 0)
		fz_blackhole += h.bestfree[0].length + h.hdr_len;
	fz_blackhole += xfmt_dir2_data_end(buf, len, g, block_form);
	for (pos = 0, prev = 0; xfmt_dir2_data_rec_next(buf, len, g, block_form, &pos, &r) == 1;
	     prev = pos) {
		if (pos <= prev && prev)
			fz_fail("data record walk does not advance", pos, prev);
		if (r.kind == XFMT_DIR2_REC_ENTRY)
			check_name(buf, len, &r.ent, g);
	}
	for (pos = 0, prev = 0; xfmt_dir2_data_next(buf, len, g, block_form, &pos, &e) == 1;
	     prev = pos) {
		if (pos <= prev && prev)
			fz_fail("data entry walk does not advance", pos, prev);
		check_name(buf, len, &e, g);
	}
	for (pos = 0, prev = 0; xfmt_dir2_unused_next(buf, len, g, block_form, &pos, &u) == 1;
	     prev = pos) {
		if (pos <= prev && prev)
			fz_fail("unused-space walk does not advance", pos, prev);
		if ((size_t)u.offset + u.length > len)
			fz_fail("unused region outside the block", u.offset, u.length);
		carve_region(buf, len, u.offset, u.length, g);
	}
	/* The carver must stay inside any region it is given, even a wrong one. */
	carve_region(buf, len, 0, (uint32_t)len, g);
	carve_region(buf, len, (uint32_t)len / 2, (uint32_t)len, g);
	if (block_form) {
		fz_sweep_fields(xfmt_dir2_block_tail_fields, buf + len - (len >= 8 ? 8 : len),
				len >= 8 ? 8 : len);
		if (xfmt_dir2_block_tail_decode(buf, len, g, &t) == 0) {
			unsigned max = xfmt_dir2_block_max_leaf(g) + 2;
			uint32_t hv, addr;

			for (unsigned i = 0; i < t.count && i < max; i++)
				if (xfmt_dir2_block_leaf(buf, len, g, &t, i, &hv, &addr) == 0)
					fz_blackhole += hv + xfmt_dir2_dataptr_to_db(g, addr) +
							xfmt_dir2_dataptr_to_off(g, addr);
		}
	}
	xfmt_dir2_da_expect_init(&exp, g, ino, dablk, h.blkno);
	if (block_form)
		xfmt_dir2_block_verify(buf, len, g, &exp, &s->sink);
	else
		xfmt_dir2_data_verify(buf, len, g, &exp, &s->sink);
	xfmt_dir3_blkhdr_verify(buf, len, g, block_form ? XFS_DIR3_BLOCK_MAGIC : XFS_DIR3_DATA_MAGIC,
				&exp, &s->sink);
}

static void fuzz_leaf(const uint8_t *buf, size_t len, bool leaf1, uint64_t ino, uint32_t dablk,
		      const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_dir2_leaf_hdr h;
	struct xfmt_dir2_leaf_tail t;
	struct xfmt_da_expect exp;
	uint64_t daddr = 0;

	fz_sweep_fields(xfmt_dir2_leaf_fields(g->v5), buf, len);
	if (xfmt_dir2_leaf_hdr_decode(buf, len, g->v5, &h) == 0) {
		unsigned max = xfmt_dir2_leaf_max_ents(g) + 2;
		uint32_t hv, addr;

		daddr = h.info.blkno;
		for (unsigned i = 0; i < h.count && i < max; i++)
			if (xfmt_dir2_leaf_entry(buf, len, g->v5, i, &hv, &addr) == 0)
				fz_blackhole += hv + addr;
	}
	if (leaf1 && len >= 8) {
		fz_sweep_fields(xfmt_dir2_leaf_tail_fields, buf + len - 8, 8);
		if (xfmt_dir2_leaf1_tail_decode(buf, len, g, &t) == 0) {
			uint16_t best;

			/* leaf1_best takes no length: the tail decode vouches for it. */
			if (t.bests_off > len || t.bestcount > (len - t.bests_off) / 2)
				fz_fail("leaf1 bests outside the block", t.bests_off, t.bestcount);
			for (unsigned i = 0; i <= t.bestcount && i < len / 2; i++)
				if (xfmt_dir2_leaf1_best(buf, &t, i, &best) == 0)
					fz_blackhole += best;
		}
	}
	xfmt_dir2_da_expect_init(&exp, g, ino, dablk, daddr);
	xfmt_dir2_leaf_verify(buf, len, g, &exp, leaf1, &s->sink);
}

static void fuzz_free(const uint8_t *buf, size_t len, uint64_t ino, uint32_t dablk,
		      const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_dir2_free_hdr h;
	struct xfmt_da_expect exp;

	fz_sweep_fields(xfmt_dir2_free_fields(g->v5), buf, len);
	if (xfmt_dir2_free_hdr_decode(buf, len, g->v5, &h) == 0) {
		unsigned max = xfmt_dir2_free_max_bests(g) + 2;
		uint16_t best;

		for (unsigned i = 0; i < h.nvalid && i < max; i++)
			if (xfmt_dir2_free_best(buf, len, g->v5, i, &best) == 0)
				fz_blackhole += best;
		fz_blackhole += xfmt_dir2_free_firstdb(g, dablk);
	}
	xfmt_dir2_da_expect_init(&exp, g, ino, dablk, h.blkno);
	xfmt_dir2_free_verify(buf, len, g, &exp, &s->sink);
}

static void fuzz_node(const uint8_t *buf, size_t len, size_t blksize, uint64_t ino,
		      uint32_t dablk, const struct xfmt_geom *g, struct fz_sink *s)
{
	struct xfmt_da_node_hdr h;
	struct xfmt_da_blkinfo bi;
	struct xfmt_da_expect exp;
	uint64_t daddr = 0;

	fz_sweep_fields(xfmt_da_node_fields_for(g->v5), buf, len);
	if (xfmt_da_blkinfo_decode(buf, len, g->v5, &bi) == 0)
		daddr = bi.blkno;
	if (xfmt_da_node_hdr_decode(buf, len, g->v5, &h) == 0) {
		unsigned max = xfmt_da_node_max_ents(blksize, g->v5) + 2;
		uint32_t hv, before;

		for (unsigned i = 0; i < h.count && i < max; i++)
			if (xfmt_da_node_entry(buf, len, g->v5, i, &hv, &before) == 0)
				fz_blackhole += hv + before;
	}
	xfmt_dir2_da_expect_init(&exp, g, ino, dablk, daddr);
	exp.level = h.level;
	xfmt_da_node_verify(buf, len, blksize, g, &exp, &s->sink);
	xfmt_da_blkinfo_verify(buf, len, blksize, g, g->v5 ? XFS_DA3_NODE_MAGIC : XFS_DA_NODE_MAGIC,
			       &exp, &s->sink);
}

static void fuzz_block(unsigned kind, const uint8_t *buf, size_t len, uint8_t flags,
		       uint64_t ino, uint32_t dablk, const struct xfmt_geom *g, struct fz_sink *s)
{
	switch (kind) {
	case 1: fuzz_data(buf, len, false, ino, dablk, g, s); break;
	case 2: fuzz_data(buf, len, true, ino, dablk, g, s); break;
	case 3: fuzz_leaf(buf, len, flags & 1, ino, dablk, g, s); break;
	case 4: fuzz_free(buf, len, ino, dablk, g, s); break;
	default: fuzz_node(buf, len, g->dirblksize, ino, dablk, g, s); break;
	}
}

/* Geometry-only facts and the address arithmetic on hostile numbers. */
static void fuzz_arith(const struct xfmt_geom *g, uint32_t v)
{
	if (xfmt_dir2_data_first_offset(g) < xfmt_dir2_data_hdr_len(g))
		fz_fail("first entry offset inside the data header", g->v5, 0);
	if (xfmt_dir2_data_entsize(g, 255) > g->dirblksize)
		fz_fail("largest entry does not fit a directory block", g->dirblksize, 0);
	fz_blackhole += xfmt_dir2_db_off_to_dataptr(g, v, v) + xfmt_dir2_dataptr_to_db(g, v) +
			xfmt_dir2_dataptr_to_off(g, v) + xfmt_dir2_db_to_byte(g, v) +
			xfmt_dir2_byte_to_db(g, (uint64_t)v << 12) + xfmt_dir2_byte_to_da(g, v) +
			xfmt_dir2_db_to_da(g, v) + xfmt_dir2_da_to_db(g, v) +
			xfmt_dir2_leaf_firstda(g) + xfmt_dir2_free_firstda(g) +
			xfmt_dir3_ftype_from_mode((uint16_t)v) + xfmt_dir_is_ci(g) +
			xfmt_ascii_ci_xfrm((uint8_t)v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfmt_geom g;
	struct fz_sink s;
	unsigned kind;
	uint8_t flags, *buf;
	uint64_t ino;
	uint32_t dablk;
	size_t len;
	long off;

	if (size > 65536 + 512)
		return 0;
	off = fz_geom_header(data, size, &g);
	if (off < 0 || size - (size_t)off < 14)
		return 0;
	fz_sink_init(&s);
	kind = data[off] % 6;
	flags = data[off + 1];
	ino = xfmt_get_be64(data + off + 2);
	dablk = xfmt_get_be32(data + off + 10);
	data += off + 14;
	len = size - (size_t)off - 14;
	fuzz_arith(&g, dablk);

	if (kind == 0) {
		if (len > MAX_SF)
			len = MAX_SF;
		buf = fz_dup(data, len);
		fuzz_sf(buf, len, dablk & 0xFFFF, flags & 2, &g, &s);
		free(buf);
		return 0;
	}
	if (len > g.dirblksize)
		len = g.dirblksize;
	if (len < g.dirblksize) {
		buf = fz_dup(data, len);
		fuzz_block(kind, buf, len, flags, ino, dablk, &g, &s);
		free(buf);
	}
	buf = calloc(1, g.dirblksize);
	if (!buf)
		fz_fail("out of memory", g.dirblksize, 0);
	memcpy(buf, data, len);
	fuzz_block(kind, buf, g.dirblksize, flags, ino, dablk, &g, &s);
	fz_blackhole += s.count;
	free(buf);
	return 0;
}
