/*
 * fuzz_sb.c - libFuzzer target for the superblock decoder and verifier.
 *
 * Input: one superblock sector (any length; real ones are 512 B to 32 KiB),
 * optionally followed by a second superblock structure (the bytes from
 * XFS_SB_STRUCT_SIZE... on, when the input is at least twice that long are
 * also decoded as "another copy").  Exercised: xfmt_sb_decode, both
 * verifiers (primary and secondary rules, CRC over sectsize when it fits),
 * xfmt_geom_from_sb and, when it accepts, every geometry helper on hostile
 * addresses, xfmt_sb_compare_geometry in both directions (also against a
 * sane preset), and the field table.
 *
 * Invariants checked beyond "no crash": every finding code is in
 * problems.def, a superblock compared with itself gives no mismatch, and a
 * geometry xfmt_geom_from_sb accepts has self-consistent address arithmetic.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/sb.h"
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_sink s;
	struct xfmt_sb sb, other, preset;
	struct xfmt_geom g;
	uint8_t presetbuf[XFS_SB_STRUCT_SIZE];
	uint8_t *buf;
	bool have_other = false;

	if (size > 65536)
		return 0;
	buf = fz_dup(data, size);
	fz_sink_init(&s);
	fz_sweep_fields(xfmt_sb_fields, buf, size);
	if (xfmt_sb_decode(buf, size, &sb) != 0) {
		if (size >= XFS_SB_STRUCT_SIZE)
			fz_fail("xfmt_sb_decode refused a full-size buffer", size, 0);
		free(buf);
		return 0;
	}
	fz_blackhole += xfmt_sb_is_v5(&sb);
	xfmt_sb_verify(buf, size, &sb, &s.sink);
	xfmt_sb_verify_secondary(buf, size, &sb, &s.sink);

	if (xfmt_sb_compare_geometry(&sb, &sb, 0, &s.sink) != 0)
		fz_fail("a superblock differs from itself", 0, 0);
	if (size >= 2 * XFS_SB_STRUCT_SIZE &&
	    xfmt_sb_decode(buf + XFS_SB_STRUCT_SIZE, size - XFS_SB_STRUCT_SIZE, &other) == 0) {
		have_other = true;
		xfmt_sb_compare_geometry(&sb, &other, 1, &s.sink);
		xfmt_sb_compare_geometry(&other, &sb, 2, &s.sink);
	}

	/* Against a sane superblock (a preset), both ways round. */
	fz_preset_sb((unsigned)size, presetbuf);
	if (xfmt_sb_decode(presetbuf, sizeof(presetbuf), &preset) != 0)
		fz_fail("preset superblock does not decode", size, 0);
	xfmt_sb_compare_geometry(&preset, &sb, 3, &s.sink);
	xfmt_sb_compare_geometry(&sb, &preset, 4, &s.sink);

	if (xfmt_geom_from_sb(&sb, &g) == 0) {
		uint64_t seed = have_other ? other.rootino ^ other.dblocks : sb.rootino;

		fz_sweep_geom(&g, seed);
		fz_sweep_geom(&g, sb.logstart);
		fz_sweep_geom(&g, ~seed);
		/* The AGFL must hold at least one slot in any sane geometry. */
		if (xfmt_geom_agfl_size(&g) == 0)
			fz_fail("sane geometry with an empty AGFL", g.sectsize, g.v5);
	}
	fz_blackhole += s.count;
	free(buf);
	return 0;
}
