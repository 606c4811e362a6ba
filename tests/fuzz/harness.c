/*
 * harness.c - the checking sink, exact-size copies, field and geometry
 * sweeps and the built-in geometries shared by the fuzz targets.
 *
 * The presets are encoded as real superblocks through xfmt_sb_fields (the
 * one place that knows the offsets) and turned into a geometry by
 * xfmt_geom_from_sb, so a preset can never be a geometry the analyzer would
 * refuse.  They cover the shapes the decoders care about: v4 and v5, block
 * sizes 512 B to 64 KiB, 512 B and 4 KiB sectors, inode sizes 256 B to
 * 2 KiB, sparse inodes, rmap/reflink, nrext64, bigtime, meta_uuid, a short
 * last AG and a single AG.
 */
#include "tests/fuzz/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/endian.h"
#include "formats/sb.h"

volatile uint64_t fz_blackhole;
static int fz_verbose = -1;

_Noreturn void fz_fail(const char *what, unsigned long long a, unsigned long long b)
{
	fprintf(stderr, "fuzz invariant broken: %s (%llu, %llu)\n", what, a, b);
	abort();
}

static void fz_sink_report(void *arg, const struct xprob *p)
{
	struct fz_sink *s = arg;
	const char *id = xprob_id(p->code);

	/* A code outside problems.def would render as nothing in the report. */
	if (!id || !xprob_message(p->code))
		fz_fail("finding code not in problems.def", (unsigned)p->code, 0);
	if (p->has & ~0x7Fu)
		fz_fail("unknown xprob.has bits", p->has, 0);
	/* The field name must be a readable string (it is stored, not copied). */
	if (p->field)
		fz_blackhole += strlen(p->field);
	/* XFZ_VERBOSE=1 names each finding (triage, and checking that seeds
	 * taken from clean images draw none). */
	if (fz_verbose < 0)
		fz_verbose = getenv("XFZ_VERBOSE") != NULL;
	if (fz_verbose)
		fprintf(stderr, "finding %s field %s off %llu expected %llu observed %llu\n", id,
			p->field ? p->field : "-", (unsigned long long)p->off,
			(unsigned long long)p->expected, (unsigned long long)p->observed);
	fz_blackhole += strlen(id) + (unsigned)xprob_severity_of(p->code) +
			(unsigned)xprob_fix_of(p->code) + p->expected + p->observed + p->off;
	s->count++;
}

void fz_sink_init(struct fz_sink *s)
{
	s->sink.report = fz_sink_report;
	s->sink.arg = s;
	s->count = 0;
}

uint8_t *fz_dup(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		fz_fail("out of memory", len, 0);
	if (len)
		memcpy(p, src, len);
	return p;
}

static char scratch_dir[256], scratch_path[512];

static void remove_scratch(void)
{
	unlink(scratch_path);
	rmdir(scratch_dir);
}

const char *fz_scratch_file(const char *file)
{
	const char *base;

	if (scratch_path[0])
		return scratch_path;
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/xfz-XXXXXX", base);
	if (!mkdtemp(scratch_dir))
		fz_fail("cannot make a scratch directory", 0, 0);
	snprintf(scratch_path, sizeof(scratch_path), "%s/%s", scratch_dir, file);
	atexit(remove_scratch);
	return scratch_path;
}

uint64_t fz_sweep_fields(const struct xfmt_field *table, const uint8_t *buf, size_t len)
{
	uint64_t acc = 0;

	for (const struct xfmt_field *f = table; f->name; f++) {
		uint64_t v;

		if (xfmt_field_find(table, f->name) == NULL)
			fz_fail("field table lookup lost a field", f->off, f->size);
		if (xfmt_field_get(buf, len, f, &v) == 0) {
			/* A field that decodes must lie inside the buffer. */
			if ((size_t)f->off + f->size > len)
				fz_fail("xfmt_field_get read past the buffer", f->off, len);
			acc += v;
		}
	}
	fz_blackhole += acc;
	return acc;
}

uint64_t fz_sweep_geom(const struct xfmt_geom *g, uint64_t seed)
{
	uint64_t acc = 0;
	uint32_t agnos[4] = { 0, g->agcount ? g->agcount - 1 : 0, g->agcount,
			      (uint32_t)seed };
	uint32_t agbno = (uint32_t)(seed >> 32);

	acc += xfmt_geom_has_finobt(g) + xfmt_geom_has_rmapbt(g) + xfmt_geom_has_reflink(g) +
	       xfmt_geom_has_inobtcnt(g) + xfmt_geom_has_sparse_inodes(g) +
	       xfmt_geom_has_ftype(g) + xfmt_geom_has_bigtime(g) + xfmt_geom_has_nrext64(g);
	acc += xfmt_geom_chunk_blocks(g) + xfmt_geom_agfl_size(g) + xfmt_geom_agino_bits(g);
	acc += xfmt_sb_hdr_blocks(g);
	for (unsigned i = 0; i < 4; i++) {
		uint32_t agno = agnos[i];
		uint32_t len = xfmt_geom_ag_length(g, agno);

		if (agno < g->agcount && len == 0)
			fz_fail("existing AG has length 0", agno, g->agcount);
		if (agno >= g->agcount && len != 0)
			fz_fail("AG past agcount has a length", agno, len);
		acc += len;
		if (agno < g->agcount) {
			uint64_t fsb;

			acc += xfmt_geom_ag_byte(g, agno) + xfmt_geom_agbno_byte(g, agno, 0);
			acc += xfmt_geom_agbno_daddr(g, agno, len - 1);
			fsb = xfmt_geom_fsb(g, agno, len - 1);
			if (!xfmt_geom_fsb_valid(g, fsb))
				fz_fail("last block of an AG is not a valid fsb", agno, fsb);
			if (xfmt_geom_fsb_agno(g, fsb) != agno ||
			    xfmt_geom_fsb_agbno(g, fsb) != len - 1)
				fz_fail("fsb does not round-trip", agno, len - 1);
			acc += xfmt_geom_fsb_byte(g, fsb);
			acc += xfmt_geom_agino_valid(g, agno, (uint32_t)seed);
			acc += xfmt_sb_agino_usable(g, agno, (uint32_t)seed);
		}
		acc += xfmt_geom_agino_valid(g, agno, agbno);
	}
	/* Hostile fsblock and inode numbers straight from the seed. */
	if (xfmt_geom_fsb_valid(g, seed))
		acc += xfmt_geom_fsb_byte(g, seed) + xfmt_geom_fsb_agno(g, seed) +
		       xfmt_geom_fsb_agbno(g, seed);
	acc += xfmt_geom_ino_agno(g, seed) + xfmt_geom_ino_agino(g, seed);
	acc += xfmt_geom_agino_agbno(g, (uint32_t)seed) + xfmt_geom_agino_slot(g, (uint32_t)seed);
	if (xfmt_geom_ino_valid(g, seed))
		acc += xfmt_geom_ino_byte(g, seed);
	acc += xfmt_sb_ino_usable(g, seed);
	fz_blackhole += acc;
	return acc;
}

/* ---------------------------------------------------------------- presets */

struct fz_preset {
	const char *name;
	bool     v5;
	uint32_t blocksize, sectsize, inodesize;
	uint32_t agblocks, agcount;
	uint32_t last_ag;     /* length of the last AG; 0 = agblocks */
	uint32_t ro_compat, incompat;
	bool     meta_uuid;
};

#define RO_ALL (XFS_SB_FEAT_RO_COMPAT_FINOBT | XFS_SB_FEAT_RO_COMPAT_RMAPBT | \
		XFS_SB_FEAT_RO_COMPAT_REFLINK | XFS_SB_FEAT_RO_COMPAT_INOBTCNT)
#define RO_NORMAP (XFS_SB_FEAT_RO_COMPAT_FINOBT | XFS_SB_FEAT_RO_COMPAT_REFLINK | \
		   XFS_SB_FEAT_RO_COMPAT_INOBTCNT)
#define INC_STD (XFS_SB_FEAT_INCOMPAT_FTYPE | XFS_SB_FEAT_INCOMPAT_SPINODES | \
		 XFS_SB_FEAT_INCOMPAT_BIGTIME)

static const struct fz_preset fz_presets[FZ_NPRESETS] = {
	{ "v5-4k-rmap",     true,  4096,  512,  512, 25600, 4, 0,    RO_ALL,    INC_STD, false },
	{ "v4-4k",          false, 4096,  512,  256, 20480, 4, 0,    0,         0,       false },
	{ "v5-1k",          true,  1024,  512,  512, 81920, 4, 0,    RO_NORMAP, INC_STD, false },
	{ "v5-4ksect",      true,  4096, 4096,  512, 20480, 4, 0,    RO_NORMAP, INC_STD, false },
	{ "v5-nrext64-1k",  true,  4096,  512, 1024, 20480, 4, 0,    RO_ALL,
	  INC_STD | XFS_SB_FEAT_INCOMPAT_NREXT64, false },
	{ "v5-64k-2k",      true, 65536, 4096, 2048,  4096, 4, 1000, RO_ALL,
	  XFS_SB_FEAT_INCOMPAT_FTYPE | XFS_SB_FEAT_INCOMPAT_NREXT64, false },
	{ "v4-512",         false,  512,  512,  256, 65536, 2, 0,    0,         0,       false },
	{ "v4-4k-512i",     false, 4096,  512,  512, 16384, 3, 9000, 0,         0,       false },
	{ "v4-4k-1ki",      false, 4096,  512, 1024, 20480, 2, 0,    0,         0,       false },
	{ "v4-4k-2ki",      false, 4096,  512, 2048,  1000, 1, 0,    0,         0,       false },
	{ "v5-4k-2ki-plain", true, 4096,  512, 2048, 16000, 1, 0,    0,
	  XFS_SB_FEAT_INCOMPAT_FTYPE, false },
	{ "v5-4k-metauuid", true,  4096,  512,  512, 20480, 4, 0,    RO_NORMAP,
	  INC_STD | XFS_SB_FEAT_INCOMPAT_META_UUID, true },
};

const char *fz_preset_name(unsigned i)
{
	return i < FZ_NPRESETS ? fz_presets[i].name : "?";
}

static unsigned fz_log2(uint64_t v)
{
	unsigned l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static void sb_set(uint8_t *sb, const char *name, uint64_t v)
{
	const struct xfmt_field *f = xfmt_field_find(xfmt_sb_fields, name);

	if (!f)
		fz_fail("superblock field missing from xfmt_sb_fields", 0, 0);
	switch (f->size) {
	case 1: sb[f->off] = (uint8_t)v; break;
	case 2: xfmt_put_be16(sb + f->off, (uint16_t)v); break;
	case 4: xfmt_put_be32(sb + f->off, (uint32_t)v); break;
	case 8: xfmt_put_be64(sb + f->off, v); break;
	default: fz_fail("superblock field of odd width", f->off, f->size);
	}
}

static void sb_set_bytes(uint8_t *sb, const char *name, uint8_t fill)
{
	const struct xfmt_field *f = xfmt_field_find(xfmt_sb_fields, name);

	if (!f)
		fz_fail("superblock field missing from xfmt_sb_fields", 0, 0);
	for (unsigned i = 0; i < f->size; i++)
		sb[f->off + i] = (uint8_t)(fill + i * 7);
}

void fz_preset_sb(unsigned i, uint8_t *sb)
{
	const struct fz_preset *p = &fz_presets[i % FZ_NPRESETS];
	uint32_t blocklog = fz_log2(p->blocksize), inodelog = fz_log2(p->inodesize);
	uint32_t agblklog = fz_log2((uint64_t)p->agblocks - 1) + 1;
	uint32_t last = p->last_ag ? p->last_ag : p->agblocks;
	uint64_t dblocks = (uint64_t)(p->agcount - 1) * p->agblocks + last;
	uint32_t cluster = (p->v5 ? 8192u * (p->inodesize / 256) : 8192u) / p->blocksize;
	uint32_t chunk = 64u * p->inodesize / p->blocksize;
	bool sparse = p->v5 && (p->incompat & XFS_SB_FEAT_INCOMPAT_SPINODES);
	uint32_t logag = p->agcount / 2;
	uint32_t versionnum = (p->v5 ? 5u : 4u) | XFS_SB_VERSION_NLINKBIT |
			      XFS_SB_VERSION_ALIGNBIT | XFS_SB_VERSION_DIRV2BIT |
			      XFS_SB_VERSION_LOGV2BIT | XFS_SB_VERSION_EXTFLGBIT |
			      XFS_SB_VERSION_MOREBITSBIT | XFS_SB_VERSION_ATTRBIT;

	if (cluster == 0)
		cluster = 1;
	if (chunk == 0)
		chunk = 1;
	if (p->sectsize != 512)
		versionnum |= XFS_SB_VERSION_SECTORBIT;
	memset(sb, 0, XFS_SB_STRUCT_SIZE);
	sb_set(sb, "magicnum", XFS_SB_MAGIC);
	sb_set(sb, "blocksize", p->blocksize);
	sb_set(sb, "dblocks", dblocks);
	sb_set_bytes(sb, "uuid", 0x5e);
	sb_set(sb, "logstart", ((uint64_t)logag << agblklog) + 64);
	sb_set(sb, "rootino", (uint64_t)(64 * chunk) << (blocklog - inodelog));
	sb_set(sb, "rbmino", ((uint64_t)(64 * chunk) << (blocklog - inodelog)) + 1);
	sb_set(sb, "rsumino", ((uint64_t)(64 * chunk) << (blocklog - inodelog)) + 2);
	sb_set(sb, "rextsize", 1);
	sb_set(sb, "agblocks", p->agblocks);
	sb_set(sb, "agcount", p->agcount);
	sb_set(sb, "logblocks", p->agblocks / 4 > 2000 ? 2000 : p->agblocks / 4);
	sb_set(sb, "versionnum", versionnum);
	sb_set(sb, "sectsize", p->sectsize);
	sb_set(sb, "inodesize", p->inodesize);
	sb_set(sb, "inopblock", p->blocksize / p->inodesize);
	sb_set(sb, "blocklog", blocklog);
	sb_set(sb, "sectlog", fz_log2(p->sectsize));
	sb_set(sb, "inodelog", inodelog);
	sb_set(sb, "inopblog", blocklog - inodelog);
	sb_set(sb, "agblklog", agblklog);
	sb_set(sb, "imax_pct", 25);
	sb_set(sb, "inoalignmt", sparse ? chunk : cluster);
	sb_set(sb, "features2", XFS_SB_VERSION2_LAZYSBCOUNTBIT | XFS_SB_VERSION2_ATTR2BIT |
	       XFS_SB_VERSION2_PROJID32BIT | (p->v5 ? XFS_SB_VERSION2_CRCBIT : 0));
	sb_set(sb, "bad_features2", XFS_SB_VERSION2_LAZYSBCOUNTBIT | XFS_SB_VERSION2_ATTR2BIT |
	       XFS_SB_VERSION2_PROJID32BIT | (p->v5 ? XFS_SB_VERSION2_CRCBIT : 0));
	if (p->v5) {
		sb_set(sb, "features_ro_compat", p->ro_compat);
		sb_set(sb, "features_incompat", p->incompat);
		if (sparse)
			sb_set(sb, "spino_align", cluster);
		if (p->meta_uuid)
			sb_set_bytes(sb, "meta_uuid", 0xa1);
	}
}

void fz_preset_geom(unsigned i, struct xfmt_geom *g)
{
	uint8_t sb[XFS_SB_STRUCT_SIZE];
	struct xfmt_sb d;

	fz_preset_sb(i, sb);
	if (xfmt_sb_decode(sb, sizeof(sb), &d) != 0)
		fz_fail("preset superblock does not decode", i, 0);
	if (xfmt_geom_from_sb(&d, g) != 0)
		fz_fail("preset geometry refused by xfmt_geom_from_sb", i, 0);
}

long fz_geom_header(const uint8_t *data, size_t size, struct xfmt_geom *g)
{
	struct xfmt_sb sb;

	if (size < 1)
		return -1;
	if (data[0] < 0x80) {
		fz_preset_geom(data[0] % FZ_NPRESETS, g);
		return 1;
	}
	if (size < 1 + XFS_SB_STRUCT_SIZE)
		return -1;
	if (xfmt_sb_decode(data + 1, XFS_SB_STRUCT_SIZE, &sb) != 0)
		fz_fail("xfmt_sb_decode refused a full-size buffer", size, 0);
	if (xfmt_geom_from_sb(&sb, g) != 0)
		return -1;
	return 1 + XFS_SB_STRUCT_SIZE;
}
