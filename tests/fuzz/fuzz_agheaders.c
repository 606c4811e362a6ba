/*
 * fuzz_agheaders.c - libFuzzer target for the AGF, AGI and AGFL decoders,
 * verifiers and AGFL window helpers.
 *
 * Input: the geometry header of harness.h (a preset, or a superblock
 * structure from the input), then one byte choosing the AG (modulo agcount),
 * then the AGF, AGI and AGFL sectors, sectsize bytes each, as they follow
 * the superblock on disk.  A short input truncates the last sectors; each
 * sector is handed over in an allocation of exactly its length.
 *
 * Invariants checked beyond "no crash": finding codes are in problems.def;
 * the AGFL window helpers agree with each other (xfmt_agfl_active(i) is the
 * slot xfmt_agfl_active_slot(i) names) and never name a slot outside the
 * array; the btree height limits are 0 exactly when the tree cannot exist.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/agf.h"
#include "formats/agfl.h"
#include "formats/agi.h"
#include "tests/fuzz/harness.h"

static void fuzz_agfl(const uint8_t *buf, size_t len, const struct xfmt_agf *agf,
		      const struct xfmt_geom *g, uint32_t agno, struct fz_sink *s)
{
	struct xfmt_agfl agfl;
	uint32_t n;

	fz_sweep_fields(xfmt_agfl_fields, buf, len);
	if (xfmt_agfl_decode(buf, len, g, &agfl) != 0)
		return;
	if (agfl.size == 0 || (size_t)agfl.size * 4 > len)
		fz_fail("AGFL slot array does not fit its sector", agfl.size, len);
	if (agfl.slots < buf || agfl.slots + (size_t)agfl.size * 4 > buf + len)
		fz_fail("AGFL slots point outside the buffer", agfl.size, len);
	xfmt_agfl_verify(buf, len, &agfl, agf, g, agno, &s->sink);
	xfmt_agfl_verify(buf, len, &agfl, NULL, g, agno, &s->sink);
	for (uint32_t i = 0; i <= agfl.size; i++)
		fz_blackhole += xfmt_agfl_slot(&agfl, i);
	if (!agf)
		return;
	/* Walk the window a little past its end; flcount is hostile. */
	n = agf->flcount < agfl.size ? agf->flcount : agfl.size;
	for (uint32_t i = 0; i < n + 2; i++) {
		uint32_t slot = xfmt_agfl_active_slot(&agfl, agf, i);
		uint32_t bno = xfmt_agfl_active(&agfl, agf, i);

		if (slot == UINT32_MAX) {
			if (bno != XFS_NULLAGBLOCK)
				fz_fail("active block without an active slot", i, bno);
			continue;
		}
		if (slot >= agfl.size)
			fz_fail("active slot outside the AGFL array", slot, agfl.size);
		if (bno != xfmt_agfl_slot(&agfl, slot))
			fz_fail("active block differs from its slot", i, slot);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfmt_geom g;
	struct fz_sink s;
	struct xfmt_agf agf;
	struct xfmt_agi agi;
	bool agf_ok = false;
	const uint8_t *p;
	size_t left, sect;
	uint32_t agno;
	long off;

	if (size > 3 * 65536 + 512)
		return 0;
	off = fz_geom_header(data, size, &g);
	if (off < 0 || (size_t)off >= size)
		return 0;
	fz_sink_init(&s);
	agno = data[off] % g.agcount;
	p = data + off + 1;
	left = size - (size_t)off - 1;
	sect = g.sectsize;

	/* Per-geometry limits: zero exactly when the tree cannot exist. */
	if (xfmt_agf_alloc_maxlevels(&g) == 0 || xfmt_agi_inobt_maxlevels(&g) == 0)
		fz_fail("bnobt/inobt height limit is 0", g.blocksize, g.v5);
	if ((xfmt_agf_rmap_maxlevels(&g) != 0) != xfmt_geom_has_rmapbt(&g))
		fz_fail("rmapbt height limit disagrees with the feature", g.ro_compat, 0);
	if ((xfmt_agf_refcount_maxlevels(&g) != 0) != xfmt_geom_has_reflink(&g))
		fz_fail("refcountbt height limit disagrees with the feature", g.ro_compat, 0);

	/* AGF */
	{
		size_t len = left < sect ? left : sect;
		uint8_t *buf = fz_dup(p, len);

		fz_sweep_fields(xfmt_agf_fields, buf, len);
		if (xfmt_agf_decode(buf, len, &agf) == 0) {
			agf_ok = true;
			xfmt_agf_verify(buf, len, &agf, &g, agno, &s.sink);
			fz_blackhole += xfmt_agf_tree_maxlevels(agf.bno_level, agf.cnt_level,
								 agf.freeblks);
		} else if (len >= XFS_AGF_STRUCT_SIZE) {
			fz_fail("xfmt_agf_decode refused a full-size buffer", len, 0);
		}
		free(buf);
		p += len;
		left -= len;
	}
	/* AGI */
	{
		size_t len = left < sect ? left : sect;
		uint8_t *buf = fz_dup(p, len);

		fz_sweep_fields(xfmt_agi_fields, buf, len);
		if (xfmt_agi_decode(buf, len, &agi) == 0)
			xfmt_agi_verify(buf, len, &agi, &g, agno, &s.sink);
		else if (len >= XFS_AGI_STRUCT_SIZE)
			fz_fail("xfmt_agi_decode refused a full-size buffer", len, 0);
		free(buf);
		p += len;
		left -= len;
	}
	/* AGFL: with the AGF just decoded (hostile window), and without. */
	{
		size_t len = left < sect ? left : sect;
		uint8_t *buf = fz_dup(p, len);

		fuzz_agfl(buf, len, agf_ok ? &agf : NULL, &g, agno, &s);
		free(buf);
	}
	fz_blackhole += s.count;
	return 0;
}
