/*
 * test_sb.c - superblock decoder, verifier, geometry, copy comparison and
 * field table, against real superblocks captured from mkfs.xfs 6.1 images
 * (fixtures/, made by fixtures/mkfixtures.sh).  Expected values are what
 * `xfs_db -r -c 'sb N' -c p` printed for the same images.
 *
 * Corruption tests poke one field of a copy and check that the verifier
 * names that exact finding; each runs twice: with the CRC recomputed (a
 * "good CRC, insane value" sector, where the field's finding must be the
 * only kind of finding) and with the stale CRC (sbBadCrc must appear too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "formats/crc32c.h"
#include "formats/sb.h"

#include "fixtures/fixture.h"
#include "fixtures/v5_sb0.h"
#include "fixtures/v5_sb1.h"
#include "fixtures/v4_sb0.h"
#include "fixtures/s4k_sb0.h"
#include "fixtures/ag3_sb0.h"
#include "fixtures/ag3_sb2.h"
#include "fixtures/unl_sb0.h"

static const uint8_t v5_uuid[16] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

/* CRC values as stored; xfs_db prints the same four bytes read big-endian. */
static uint32_t bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static void decode_fx(const struct fx_sector *fx, struct xfmt_sb *sb, uint8_t **bufp)
{
	*bufp = fx_load(fx);
	assert_int_equal(xfmt_sb_decode(*bufp, fx->len, sb), 0);
}

/* ---------------------------------------------------------------- decode */

static void test_decode_v5(void **state)
{
	struct xfmt_sb sb;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_v5_sb0, &sb, &buf);
	/* xfs_db -r -c 'sb 0' -c p v5.img */
	assert_int_equal(sb.magicnum, 0x58465342);
	assert_int_equal(sb.blocksize, 4096);
	assert_int_equal(sb.dblocks, 262144);
	assert_int_equal(sb.rblocks, 0);
	assert_int_equal(sb.rextents, 0);
	assert_memory_equal(sb.uuid, v5_uuid, 16);
	assert_int_equal(sb.logstart, 131079);
	assert_int_equal(sb.rootino, 128);
	assert_int_equal(sb.rbmino, 129);
	assert_int_equal(sb.rsumino, 130);
	assert_int_equal(sb.rextsize, 1);
	assert_int_equal(sb.agblocks, 65536);
	assert_int_equal(sb.agcount, 4);
	assert_int_equal(sb.rbmblocks, 0);
	assert_int_equal(sb.logblocks, 16384);
	assert_int_equal(sb.versionnum, 0xb4a5);
	assert_int_equal(sb.sectsize, 512);
	assert_int_equal(sb.inodesize, 512);
	assert_int_equal(sb.inopblock, 8);
	assert_memory_equal(sb.fname, "hdrv5\0\0\0\0\0\0\0", 12);
	assert_int_equal(sb.blocklog, 12);
	assert_int_equal(sb.sectlog, 9);
	assert_int_equal(sb.inodelog, 9);
	assert_int_equal(sb.inopblog, 3);
	assert_int_equal(sb.agblklog, 16);
	assert_int_equal(sb.rextslog, 0);
	assert_int_equal(sb.inprogress, 0);
	assert_int_equal(sb.imax_pct, 25);
	assert_int_equal(sb.icount, 64);
	assert_int_equal(sb.ifree, 61);
	assert_int_equal(sb.fdblocks, 245724);
	assert_int_equal(sb.frextents, 0);
	assert_int_equal(sb.uquotino, 0);
	assert_int_equal(sb.gquotino, 0);
	assert_int_equal(sb.qflags, 0);
	assert_int_equal(sb.flags, 0);
	assert_int_equal(sb.shared_vn, 0);
	assert_int_equal(sb.inoalignmt, 8);
	assert_int_equal(sb.unit, 0);
	assert_int_equal(sb.width, 0);
	assert_int_equal(sb.dirblklog, 0);
	assert_int_equal(sb.logsectlog, 0);
	assert_int_equal(sb.logsectsize, 0);
	assert_int_equal(sb.logsunit, 1);
	assert_int_equal(sb.features2, 0x18a);
	assert_int_equal(sb.bad_features2, 0x18a);
	assert_int_equal(sb.features_compat, 0);
	assert_int_equal(sb.features_ro_compat, 0xf);
	assert_int_equal(sb.features_incompat, 0xb);
	assert_int_equal(sb.features_log_incompat, 0);
	assert_int_equal(sb.crc, bswap32(0x745c4762));   /* xfs_db: crc = 0x745c4762 */
	assert_int_equal(sb.spino_align, 4);
	assert_int_equal(sb.pquotino, 0);
	assert_int_equal(sb.lsn, 0);
	assert_true(xfmt_sb_is_v5(&sb));
	free(buf);
}

static void test_decode_v4(void **state)
{
	struct xfmt_sb sb;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_v4_sb0, &sb, &buf);
	/* xfs_db -r -c 'sb 0' -c p v4.img */
	assert_int_equal(sb.versionnum, 0xb4a4);
	assert_false(xfmt_sb_is_v5(&sb));
	assert_int_equal(sb.logstart, 131076);
	assert_int_equal(sb.inodesize, 256);
	assert_int_equal(sb.inopblock, 16);
	assert_int_equal(sb.inodelog, 8);
	assert_int_equal(sb.inopblog, 4);
	assert_int_equal(sb.fdblocks, 245740);
	assert_int_equal(sb.inoalignmt, 2);
	assert_int_equal(sb.features2, 0x28a);
	assert_int_equal(sb.bad_features2, 0x28a);
	assert_int_equal(sb.features_ro_compat, 0);
	assert_int_equal(sb.features_incompat, 0);
	assert_int_equal(sb.crc, 0);
	assert_int_equal(sb.spino_align, 0);
	assert_memory_equal(sb.fname, "hdrv4\0\0\0\0\0\0\0", 12);
	free(buf);
}

static void test_decode_s4k(void **state)
{
	struct xfmt_sb sb;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_s4k_sb0, &sb, &buf);
	/* xfs_db -r -c 'sb 0' -c p s4k.img */
	assert_int_equal(fx_s4k_sb0.len, 4096);
	assert_int_equal(sb.versionnum, 0xbca5);
	assert_int_equal(sb.sectsize, 4096);
	assert_int_equal(sb.sectlog, 12);
	assert_int_equal(sb.logsectlog, 12);
	assert_int_equal(sb.logsectsize, 4096);
	assert_int_equal(sb.logsunit, 4096);
	assert_int_equal(sb.logstart, 131081);
	assert_int_equal(sb.fdblocks, 245716);
	assert_int_equal(sb.features_ro_compat, 0xd);
	assert_int_equal(sb.crc, bswap32(0xcec2630d));
	free(buf);
}

static void test_decode_ag3(void **state)
{
	struct xfmt_sb sb, sb2;
	uint8_t *buf, *buf2;

	(void)state;
	decode_fx(&fx_ag3_sb0, &sb, &buf);
	decode_fx(&fx_ag3_sb2, &sb2, &buf2);
	/* xfs_db -r -c 'sb 0' -c p ag3.img / -c 'sb 2' */
	assert_int_equal(sb.dblocks, 256000);
	assert_int_equal(sb.agblocks, 85334);   /* not a power of two */
	assert_int_equal(sb.agcount, 3);
	assert_int_equal(sb.agblklog, 17);
	assert_int_equal(sb.logstart, 131078);
	assert_int_equal(sb.fdblocks, 239590);
	assert_int_equal(sb.crc, bswap32(0x62887260));
	assert_int_equal(sb2.inprogress, 1);
	assert_int_equal(sb2.icount, 0);
	assert_int_equal(sb2.ifree, 0);
	assert_int_equal(sb2.fdblocks, 239598);
	assert_int_equal(sb2.rootino, 128);
	assert_int_equal(sb2.rbmino, XFS_NULLFSINO);
	assert_int_equal(sb2.rsumino, XFS_NULLFSINO);
	assert_int_equal(sb2.crc, bswap32(0xe49244d2));
	free(buf);
	free(buf2);
}

static void test_decode_kernel_written(void **state)
{
	struct xfmt_sb sb;
	uint8_t *buf;

	(void)state;
	/* After a mount the kernel sets ATTR and writes null quota inodes. */
	decode_fx(&fx_unl_sb0, &sb, &buf);
	assert_int_equal(sb.versionnum, 0xb4b5);
	assert_int_equal(sb.uquotino, XFS_NULLFSINO);
	assert_int_equal(sb.gquotino, XFS_NULLFSINO);
	assert_int_equal(sb.pquotino, XFS_NULLFSINO);
	assert_int_equal(sb.ifree, 58);
	assert_int_equal(sb.lsn, 0x10000000c);
	assert_int_equal(sb.crc, bswap32(0x5a5dfd0d));
	free(buf);
}

static void test_decode_truncated(void **state)
{
	uint8_t *full = fx_load(&fx_v5_sb0);
	struct xfmt_sb sb;

	(void)state;
	for (size_t len = 0; len < XFS_SB_STRUCT_SIZE; len += 37) {
		uint8_t *cut = fx_dup(full, len);

		memset(&sb, 0xA5, sizeof(sb));
		assert_int_equal(xfmt_sb_decode(cut, len, &sb), -1);
		assert_int_equal(sb.magicnum, 0xA5A5A5A5u);   /* out untouched */
		free(cut);
	}
	{
		uint8_t *cut = fx_dup(full, XFS_SB_STRUCT_SIZE - 1);

		assert_int_equal(xfmt_sb_decode(cut, XFS_SB_STRUCT_SIZE - 1, &sb), -1);
		free(cut);
	}
	assert_int_equal(xfmt_sb_decode(NULL, 512, &sb), -1);
	free(full);
}

/* ---------------------------------------------------------------- clean */

static unsigned verify_fx(const struct fx_sector *fx, bool primary, struct fx_sink *store)
{
	FX_SINK(sink, store);
	struct xfmt_sb sb;
	uint8_t *buf = fx_load(fx);
	unsigned n;

	assert_int_equal(xfmt_sb_decode(buf, fx->len, &sb), 0);
	n = primary ? xfmt_sb_verify(buf, fx->len, &sb, &sink)
		    : xfmt_sb_verify_secondary(buf, fx->len, &sb, &sink);
	free(buf);
	assert_int_equal(n, store->n);
	return n;
}

static void test_clean_primaries(void **state)
{
	const struct fx_sector *all[] = {
		&fx_v5_sb0, &fx_v4_sb0, &fx_s4k_sb0, &fx_ag3_sb0, &fx_unl_sb0,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct fx_sink store = { 0 };

		if (verify_fx(all[i], true, &store))
			fx_dump(&store);
		assert_int_equal(store.n, 0);
	}
}

static void test_clean_secondaries(void **state)
{
	struct fx_sink store = { 0 };

	(void)state;
	assert_int_equal(verify_fx(&fx_v5_sb1, false, &store), 0);
	assert_int_equal(verify_fx(&fx_ag3_sb2, false, &store), 0);
}

/* A copy holds no quota flags or inodes (xfs_repair clears them there). */
static void test_secondary_quota_fields(void **state)
{
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb;
	uint8_t *buf = fx_load(&fx_v5_sb1);

	(void)state;
	xfmt_put_be16(buf + 176, 1);   /* qflags: user accounting */
	xfmt_crc_update(buf, fx_v5_sb1.len, 224);
	assert_int_equal(xfmt_sb_decode(buf, fx_v5_sb1.len, &sb), 0);
	xfmt_sb_verify_secondary(buf, fx_v5_sb1.len, &sb, &sink);
	assert_int_equal(fx_count(&store, XP_sbCopyQuotaFlags, "qflags"), 1);
	assert_int_equal(store.n, 1);
	free(buf);
}

static void test_secondary_as_primary(void **state)
{
	struct fx_sink store = { 0 };

	(void)state;
	/* mkfs leaves inprogress = 1 and null rt inodes in the copies. */
	verify_fx(&fx_v5_sb1, true, &store);
	assert_int_equal(fx_count(&store, XP_sbInProgress, "inprogress"), 1);
	assert_int_equal(fx_count(&store, XP_sbBadRootIno, "rbmino"), 1);
	assert_int_equal(fx_count(&store, XP_sbBadRootIno, "rsumino"), 1);
	assert_int_equal(store.n, 3);
}

/* The CRC covers the whole 4 KiB sector, not only the first 512 bytes. */
static void test_crc_covers_sectsize(void **state)
{
	uint8_t *buf = fx_load(&fx_s4k_sb0);
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb;

	(void)state;
	assert_true(xfmt_crc_ok(buf, 4096, XFS_SB_CRC_OFF));
	assert_false(xfmt_crc_ok(buf, 512, XFS_SB_CRC_OFF));
	buf[4000] = 0x5A;
	assert_int_equal(xfmt_sb_decode(buf, 4096, &sb), 0);
	xfmt_sb_verify(buf, 4096, &sb, &sink);
	assert_int_equal(fx_count(&store, XP_sbBadCrc, "crc"), 1);
	assert_int_equal(fx_count(&store, XP_sbNonzeroTail, NULL), 1);
	assert_int_equal(fx_find(&store, XP_sbNonzeroTail)->off, 4000);
	assert_int_equal(store.n, 2);

	/* Recomputed: the stray byte is still reported, the CRC no longer. */
	store.n = 0;
	xfmt_crc_update(buf, 4096, XFS_SB_CRC_OFF);
	assert_int_equal(xfmt_sb_decode(buf, 4096, &sb), 0);
	xfmt_sb_verify(buf, 4096, &sb, &sink);
	assert_int_equal(fx_count(&store, XP_sbNonzeroTail, NULL), 1);
	assert_int_equal(store.n, 1);
	free(buf);
}

/* A buffer shorter than sectsize: no CRC verdict, no read past the end. */
static void test_verify_short_buffer(void **state)
{
	uint8_t *full = fx_load(&fx_s4k_sb0);
	uint8_t *cut = fx_dup(full, XFS_SB_STRUCT_SIZE);
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb;

	(void)state;
	cut[XFS_SB_CRC_OFF] ^= 0xFF;   /* would be a bad CRC over 4096 bytes */
	assert_int_equal(xfmt_sb_decode(cut, XFS_SB_STRUCT_SIZE, &sb), 0);
	assert_int_equal(xfmt_sb_verify(cut, XFS_SB_STRUCT_SIZE, &sb, &sink), 0);
	free(cut);
	free(full);
}

/* ---------------------------------------------------------------- geometry */

static void test_geom(void **state)
{
	struct xfmt_sb sb;
	struct xfmt_geom g;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_v5_sb0, &sb, &buf);
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	assert_int_equal(g.blocksize, 4096);
	assert_int_equal(g.blocklog, 12);
	assert_int_equal(g.sectsize, 512);
	assert_int_equal(g.inopblog, 3);
	assert_int_equal(g.agblocks, 65536);
	assert_int_equal(g.agblklog, 16);
	assert_int_equal(g.agcount, 4);
	assert_int_equal(g.dblocks, 262144);
	assert_int_equal(g.dirblksize, 4096);
	assert_true(g.v5);
	assert_true(xfmt_geom_has_rmapbt(&g));
	assert_true(xfmt_geom_has_reflink(&g));
	assert_true(xfmt_geom_has_finobt(&g));
	assert_true(xfmt_geom_has_sparse_inodes(&g));
	assert_memory_equal(g.meta_uuid, v5_uuid, 16);   /* no META_UUID: sb uuid */
	assert_int_equal(g.logstart, 131079);
	assert_int_equal(g.logblocks, 16384);
	assert_int_equal(g.spino_align, 4);
	assert_int_equal(xfmt_sb_hdr_blocks(&g), 1);
	assert_int_equal(xfmt_geom_agfl_size(&g), 119);   /* xfs_db: bno[0-118] */
	/* xfs_db -c 'convert fsb 131079 agno' -> 2, agbno 7 */
	assert_int_equal(xfmt_geom_fsb_agno(&g, 131079), 2);
	assert_int_equal(xfmt_geom_fsb_agbno(&g, 131079), 7);
	assert_true(xfmt_sb_ino_usable(&g, 128));
	assert_false(xfmt_sb_ino_usable(&g, 7));          /* in the header block */
	assert_false(xfmt_sb_ino_usable(&g, (uint64_t)4 << 19)); /* AG 4 does not exist */

	/* META_UUID: metadata is stamped with meta_uuid instead. */
	sb.features_incompat |= XFS_SB_FEAT_INCOMPAT_META_UUID;
	memset(sb.meta_uuid, 0x77, 16);
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	assert_int_equal(g.meta_uuid[0], 0x77);
	assert_int_equal(g.meta_uuid[15], 0x77);
	free(buf);
}

static void test_geom_others(void **state)
{
	struct xfmt_sb sb;
	struct xfmt_geom g;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_ag3_sb0, &sb, &buf);
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	/* xfs_db -c 'agf 2' -c 'p length': 85332; AGs 0 and 1: 85334 */
	assert_int_equal(xfmt_geom_ag_length(&g, 0), 85334);
	assert_int_equal(xfmt_geom_ag_length(&g, 2), 85332);
	assert_int_equal(xfmt_geom_ag_length(&g, 3), 0);
	/* agblocks is not a power of two: packed fsb 131078 is AG 1, agbno 6 */
	assert_int_equal(xfmt_geom_fsb_agno(&g, 131078), 1);
	assert_int_equal(xfmt_geom_fsb_agbno(&g, 131078), 6);
	assert_int_equal(xfmt_geom_agbno_byte(&g, 1, 6), ((uint64_t)85334 + 6) * 4096);
	free(buf);

	decode_fx(&fx_s4k_sb0, &sb, &buf);
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	assert_int_equal(xfmt_sb_hdr_blocks(&g), 4);      /* bnoroot = 4 on this image */
	assert_int_equal(xfmt_geom_agfl_size(&g), 1015);  /* xfs_db: bno[0-1014] */
	assert_false(xfmt_geom_has_rmapbt(&g));
	free(buf);

	decode_fx(&fx_v4_sb0, &sb, &buf);
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	assert_false(g.v5);
	assert_false(xfmt_geom_has_finobt(&g));
	assert_true(xfmt_geom_has_ftype(&g));            /* features2 0x28a has FTYPE */
	assert_int_equal(xfmt_geom_agfl_size(&g), 128);  /* xfs_db: bno[0-127] */
	free(buf);
}

/* Each insane value must make xfmt_geom_from_sb refuse the geometry. */
static void test_geom_insane(void **state)
{
	struct xfmt_sb good, sb;
	struct xfmt_geom g;
	uint8_t *buf;

	(void)state;
	decode_fx(&fx_v5_sb0, &good, &buf);
#define INSANE(stmt) do { sb = good; stmt; assert_int_equal(xfmt_geom_from_sb(&sb, &g), -1); } while (0)
	INSANE(sb.blocksize = 4097);
	INSANE(sb.blocklog = 44);            /* 1 << (44 & 31) would be 4096 */
	INSANE(sb.blocksize = 1u << 17; sb.blocklog = 17);
	INSANE(sb.sectsize = 256; sb.sectlog = 8);
	INSANE(sb.sectlog = 41);
	INSANE(sb.inodesize = 128; sb.inodelog = 7);
	INSANE(sb.inodelog = 40);
	INSANE(sb.inopblog = 4);
	INSANE(sb.inopblock = 9);
	INSANE(sb.dirblklog = 5);
	INSANE(sb.agblocks = 0);
	INSANE(sb.agblklog = 17);
	INSANE(sb.agblklog = 30);            /* agino would need 33 bits */
	INSANE(sb.agcount = 0);
	INSANE(sb.dblocks = 0);
	INSANE(sb.dblocks = 262145);         /* more than agcount * agblocks */
	INSANE(sb.dblocks = 196608);         /* the last AG would be empty */
	INSANE(sb.dblocks = 196609);         /* the last AG cannot hold its headers */
	INSANE(sb.agcount = 0xFFFFFFFF; sb.dblocks = UINT64_MAX >> 1);
#undef INSANE
	sb = good;
	sb.dblocks = 196610;                 /* a 2-block last AG is odd but addressable */
	assert_int_equal(xfmt_geom_from_sb(&sb, &g), 0);
	free(buf);
}

/* ---------------------------------------------------------------- copies */

static void test_compare_geometry(void **state)
{
	struct xfmt_sb p, s, other;
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	uint8_t *b1, *b2;
	const struct xprob *f;

	(void)state;
	decode_fx(&fx_v5_sb0, &p, &b1);
	decode_fx(&fx_v5_sb1, &s, &b2);
	assert_int_equal(xfmt_sb_compare_geometry(&p, &s, 1, &sink), 0);

	/* The copy's geometry differs in one field. */
	other = s;
	other.agblocks = 65535;
	assert_int_equal(xfmt_sb_compare_geometry(&p, &other, 1, &sink), 1);
	f = fx_find(&store, XP_sbSecondaryMismatch);
	assert_non_null(f);
	assert_string_equal(f->field, "agblocks");
	assert_true(f->has & XPROB_HAS_AG);
	assert_int_equal(f->agno, 1);
	assert_int_equal(f->expected, 65536);
	assert_int_equal(f->observed, 65535);

	/* Fields mkfs fixes on every copy: the directory block size. */
	store.n = 0;
	other = s;
	other.dirblklog = 1;
	assert_int_equal(xfmt_sb_compare_geometry(&p, &other, 1, &sink), 1);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "dirblklog"), 1);

	/* NEEDSREPAIR only on the primary is normal; other bits are not. */
	store.n = 0;
	other = s;
	other.features_incompat |= XFS_SB_FEAT_INCOMPAT_NEEDSREPAIR;
	assert_int_equal(xfmt_sb_compare_geometry(&p, &other, 1, &sink), 0);
	other.features_incompat |= XFS_SB_FEAT_INCOMPAT_NREXT64;
	other.versionnum |= XFS_SB_VERSION_DALIGNBIT;
	assert_int_equal(xfmt_sb_compare_geometry(&p, &other, 1, &sink), 2);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "features_incompat"), 1);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "versionnum"), 1);

	/* Under a metadata directory tree the realtime group geometry is
	 * every copy's too; elsewhere those bytes are not compared. */
	store.n = 0;
	other = s;
	other.rgextents = 7;
	assert_int_equal(xfmt_sb_compare_geometry(&p, &other, 1, &sink), 0);
	{
		struct xfmt_sb pm = p, om = s;

		pm.features_incompat |= XFS_SB_FEAT_INCOMPAT_METADIR;
		om.features_incompat |= XFS_SB_FEAT_INCOMPAT_METADIR;
		pm.rgextents = om.rgextents = 268435456;
		pm.rgblklog = om.rgblklog = 28;
		assert_int_equal(xfmt_sb_compare_geometry(&pm, &om, 1, &sink), 0);
		om.rgextents = 0;
		om.rgblklog = 3;
		assert_int_equal(xfmt_sb_compare_geometry(&pm, &om, 1, &sink), 2);
		assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "rgextents"), 1);
		assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "rgblklog"), 1);
	}

	/* Two different filesystems: v5 (512-byte sectors) vs 4 KiB sectors. */
	store.n = 0;
	free(b2);
	decode_fx(&fx_s4k_sb0, &s, &b2);
	assert_int_equal(xfmt_sb_compare_geometry(&p, &s, 3, &sink), 4);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "logstart"), 1);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "sectsize"), 1);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "logsectsize"), 1);
	assert_int_equal(fx_count(&store, XP_sbSecondaryMismatch, "features_ro_compat"), 1);
	free(b1);
	free(b2);

	/* Counters, inprogress and null rt inodes are not geometry. */
	store.n = 0;
	decode_fx(&fx_ag3_sb0, &p, &b1);
	decode_fx(&fx_ag3_sb2, &s, &b2);
	assert_int_equal(xfmt_sb_compare_geometry(&p, &s, 2, &sink), 0);
	free(b1);
	free(b2);
}

/* ---------------------------------------------------------------- fields */

/* `xfs_db -r -c 'sb 0' -c p v5.img`, " (correct)" dropped from crc. */
static const char *const xfs_db_v5_sb0[] = {
	"magicnum = 0x58465342", "blocksize = 4096", "dblocks = 262144", "rblocks = 0",
	"rextents = 0", "uuid = 01234567-89ab-cdef-0123-456789abcdef", "logstart = 131079",
	"rootino = 128", "rbmino = 129", "rsumino = 130", "rextsize = 1", "agblocks = 65536",
	"agcount = 4", "rbmblocks = 0", "logblocks = 16384", "versionnum = 0xb4a5",
	"sectsize = 512", "inodesize = 512", "inopblock = 8",
	"fname = \"hdrv5\\000\\000\\000\\000\\000\\000\\000\"", "blocklog = 12",
	"sectlog = 9", "inodelog = 9", "inopblog = 3", "agblklog = 16", "rextslog = 0",
	"inprogress = 0", "imax_pct = 25", "icount = 64", "ifree = 61", "fdblocks = 245724",
	"frextents = 0", "uquotino = 0", "gquotino = 0", "qflags = 0", "flags = 0",
	"shared_vn = 0", "inoalignmt = 8", "unit = 0", "width = 0", "dirblklog = 0",
	"logsectlog = 0", "logsectsize = 0", "logsunit = 1", "features2 = 0x18a",
	"bad_features2 = 0x18a", "features_compat = 0", "features_ro_compat = 0xf",
	"features_incompat = 0xb", "features_log_incompat = 0", "crc = 0x745c4762",
	"spino_align = 4", "pquotino = 0", "lsn = 0",
	"meta_uuid = 00000000-0000-0000-0000-000000000000",
};

/* Lines of `xfs_db -r -c 'sb 0' -c p unl-frozen.img` that show null and hex LSNs. */
static const char *const xfs_db_unl_sb0[] = {
	"uquotino = null", "gquotino = null", "pquotino = null", "lsn = 0x10000000c",
	"versionnum = 0xb4b5", "ifree = 58", "crc = 0x5a5dfd0d",
};

static void test_field_table(void **state)
{
	uint8_t *buf = fx_load(&fx_v5_sb0);
	size_t n = 0;
	char line[160];

	(void)state;
	for (const struct xfmt_field *f = xfmt_sb_fields; f->name; f++, n++) {
		assert_true(n < sizeof(xfs_db_v5_sb0) / sizeof(xfs_db_v5_sb0[0]));
		assert_int_equal(fx_print_field(buf, 512, f, line, sizeof(line)), 0);
		assert_string_equal(line, xfs_db_v5_sb0[n]);
		assert_non_null(f->doc);
		assert_true(f->off + f->size <= XFS_SB_STRUCT_SIZE);
		assert_int_equal(f->v5only, f->off >= XFS_SB_V4_SIZE);
	}
	assert_int_equal(n, sizeof(xfs_db_v5_sb0) / sizeof(xfs_db_v5_sb0[0]));
	free(buf);

	buf = fx_load(&fx_unl_sb0);
	for (size_t i = 0; i < sizeof(xfs_db_unl_sb0) / sizeof(xfs_db_unl_sb0[0]); i++) {
		char name[32];
		const struct xfmt_field *f;

		sscanf(xfs_db_unl_sb0[i], "%31s", name);
		f = xfmt_field_find(xfmt_sb_fields, name);
		assert_non_null(f);
		assert_int_equal(fx_print_field(buf, 512, f, line, sizeof(line)), 0);
		assert_string_equal(line, xfs_db_unl_sb0[i]);
	}
	free(buf);
}

/* Every integer field read through the table equals the decoder's value. */
static void test_field_table_matches_decoder(void **state)
{
	uint8_t *buf = fx_load(&fx_unl_sb0);
	struct xfmt_sb sb;
	uint64_t v;

	(void)state;
	assert_int_equal(xfmt_sb_decode(buf, 512, &sb), 0);
#define SAME(name, member) do { \
	assert_int_equal(xfmt_field_get(buf, 512, xfmt_field_find(xfmt_sb_fields, name), &v), 0); \
	assert_int_equal(v, sb.member); } while (0)
	SAME("magicnum", magicnum); SAME("blocksize", blocksize); SAME("dblocks", dblocks);
	SAME("logstart", logstart); SAME("rootino", rootino); SAME("agblocks", agblocks);
	SAME("agcount", agcount); SAME("logblocks", logblocks); SAME("versionnum", versionnum);
	SAME("sectsize", sectsize); SAME("inodesize", inodesize); SAME("inopblock", inopblock);
	SAME("blocklog", blocklog); SAME("agblklog", agblklog); SAME("imax_pct", imax_pct);
	SAME("icount", icount); SAME("ifree", ifree); SAME("fdblocks", fdblocks);
	SAME("uquotino", uquotino); SAME("qflags", qflags); SAME("inoalignmt", inoalignmt);
	SAME("logsunit", logsunit); SAME("features2", features2);
	SAME("features_incompat", features_incompat); SAME("crc", crc);
	SAME("spino_align", spino_align); SAME("pquotino", pquotino); SAME("lsn", lsn);
#undef SAME
	free(buf);
}

/* ---------------------------------------------------------------- corruption */

struct poke {
	uint16_t off;
	uint8_t width;   /* 1, 2, 4 or 8; 0 = unused */
	uint64_t value;
};

struct corrupt {
	const char *name;
	const struct fx_sector *fx;
	struct poke poke[2];
	enum xprob_code code;     /* the finding that must appear */
	const char *field;        /* ... on this field (NULL: any) */
	unsigned exact;           /* with a good CRC: total findings, 0 = not checked */
};

static const struct corrupt corruptions[] = {
	{ "magic", &fx_v5_sb0, { { 0, 4, 0x58465343 } }, XP_sbBadMagic, "magicnum", 1 },
	{ "version3", &fx_v5_sb0, { { 100, 2, 0xb4a3 } }, XP_sbBadVersion, "versionnum", 0 },
	{ "sharedbit", &fx_v5_sb0, { { 100, 2, 0xb6a5 } }, XP_sbUnknownFeature, "versionnum", 1 },
	{ "v5_no_dirv2", &fx_v5_sb0, { { 100, 2, 0x94a5 } }, XP_sbMissingFeature, "versionnum", 1 },
	{ "v5_no_crcbit", &fx_v5_sb0, { { 200, 4, 0x8a }, { 204, 4, 0x8a } },
	  XP_sbMissingFeature, "features2", 1 },
	{ "features2_unknown", &fx_v5_sb0, { { 200, 4, 0x18b }, { 204, 4, 0x18b } },
	  XP_sbUnknownFeature, "features2", 1 },
	{ "bad_features2", &fx_v5_sb0, { { 204, 4, 0x18b } }, XP_sbFeatures2Mismatch,
	  "bad_features2", 1 },
	{ "ro_compat_unknown", &fx_v5_sb0, { { 212, 4, 0x1f } }, XP_sbUnknownFeature,
	  "features_ro_compat", 1 },
	{ "incompat_unknown", &fx_v5_sb0, { { 216, 4, 0x20b } }, XP_sbUnknownFeature,
	  "features_incompat", 1 },
	{ "log_incompat_unknown", &fx_v5_sb0, { { 220, 4, 0x2 } }, XP_sbUnknownFeature,
	  "features_log_incompat", 1 },
	{ "compat_unknown", &fx_v5_sb0, { { 208, 4, 0x1 } }, XP_sbBadFlags, "features_compat", 1 },
	{ "needsrepair", &fx_v5_sb0, { { 216, 4, 0x1b } }, XP_sbNeedsRepair, "features_incompat", 1 },
	{ "blocksize_odd", &fx_v5_sb0, { { 4, 4, 4097 } }, XP_sbBadBlocksize, "blocksize", 1 },
	{ "blocksize_512_v5", &fx_v5_sb0, { { 4, 4, 512 }, { 120, 1, 9 } }, XP_sbBadBlocksize,
	  "blocksize", 0 },
	{ "blocklog", &fx_v5_sb0, { { 120, 1, 13 } }, XP_sbLogMismatch, "blocklog", 1 },
	{ "sectsize", &fx_v5_sb0, { { 102, 2, 1000 } }, XP_sbBadSectsize, "sectsize", 1 },
	{ "sectlog", &fx_v5_sb0, { { 121, 1, 10 } }, XP_sbLogMismatch, "sectlog", 1 },
	{ "inodesize", &fx_v5_sb0, { { 104, 2, 384 } }, XP_sbBadInodesize, "inodesize", 1 },
	{ "inodelog", &fx_v5_sb0, { { 122, 1, 10 } }, XP_sbLogMismatch, "inodelog", 1 },
	{ "inopblock", &fx_v5_sb0, { { 106, 2, 9 } }, XP_sbBadInopblock, "inopblock", 1 },
	{ "inopblog", &fx_v5_sb0, { { 123, 1, 4 } }, XP_sbLogMismatch, "inopblog", 1 },
	{ "dirblklog", &fx_v5_sb0, { { 192, 1, 5 } }, XP_sbBadDirblklog, "dirblklog", 1 },
	{ "agblocks_small", &fx_v5_sb0, { { 84, 4, 1000 } }, XP_sbBadAgblocks, "agblocks", 0 },
	{ "agblklog", &fx_v5_sb0, { { 124, 1, 17 } }, XP_sbBadAgblklog, "agblklog", 1 },
	{ "agcount", &fx_v5_sb0, { { 88, 4, 5 } }, XP_sbBadAgcount, "agcount", 0 },
	{ "agcount_zero", &fx_v5_sb0, { { 88, 4, 0 } }, XP_sbBadAgcount, "agcount", 0 },
	{ "dblocks_over", &fx_v5_sb0, { { 8, 8, 262145 } }, XP_sbBadDblocks, "dblocks", 0 },
	{ "dblocks_zero", &fx_v5_sb0, { { 8, 8, 0 } }, XP_sbBadDblocks, "dblocks", 0 },
	{ "ag3_dblocks", &fx_ag3_sb0, { { 8, 8, 170668 } }, XP_sbBadAgcount, "agcount", 0 },
	{ "rextsize_zero", &fx_v5_sb0, { { 80, 4, 0 } }, XP_sbBadRextsize, "rextsize", 1 },
	{ "rextents_no_rt", &fx_v5_sb0, { { 24, 8, 5 } }, XP_sbBadRextsize, "rextents", 1 },
	{ "rt_geometry", &fx_v5_sb0, { { 16, 8, 1000 } }, XP_sbBadRextsize, "rextents", 0 },
	{ "imax_pct", &fx_v5_sb0, { { 127, 1, 101 } }, XP_sbBadImaxPct, "imax_pct", 1 },
	{ "shared_vn", &fx_v5_sb0, { { 179, 1, 1 } }, XP_sbSharedVn, "shared_vn", 1 },
	{ "logblocks_zero", &fx_v5_sb0, { { 96, 4, 0 } }, XP_sbBadLogGeometry, "logblocks", 1 },
	{ "logblocks_huge", &fx_v5_sb0, { { 96, 4, 0x200000 } }, XP_sbBadLogGeometry,
	  "logblocks", 0 },
	{ "logstart_past_end", &fx_v5_sb0, { { 48, 8, (uint64_t)4 << 16 } }, XP_sbBadLogGeometry,
	  "logstart", 1 },
	{ "logstart_header", &fx_v5_sb0, { { 48, 8, 0x20000 } }, XP_sbBadLogGeometry, "logstart", 1 },
	{ "log_crosses_ag", &fx_v5_sb0, { { 48, 8, 0x20000 + 60000 } }, XP_sbBadLogGeometry,
	  "logstart", 1 },
	{ "logsunit", &fx_v5_sb0, { { 196, 4, 1000 } }, XP_sbBadLogGeometry, "logsunit", 1 },
	{ "logsectsize_nosector", &fx_v5_sb0, { { 194, 2, 4096 } }, XP_sbBadSectsize,
	  "logsectsize", 1 },
	{ "logsectlog_nosector", &fx_v5_sb0, { { 193, 1, 12 } }, XP_sbLogMismatch, "logsectlog", 1 },
	{ "logsectlog_sector", &fx_s4k_sb0, { { 193, 1, 11 } }, XP_sbLogMismatch, "logsectlog", 1 },
	{ "logsectsize_sector", &fx_s4k_sb0, { { 194, 2, 3000 } }, XP_sbBadSectsize,
	  "logsectsize", 1 },
	{ "unit_without_dalign", &fx_v5_sb0, { { 184, 4, 16 }, { 188, 4, 64 } }, XP_sbBadStripe,
	  "unit", 1 },
	{ "width_without_unit", &fx_v5_sb0, { { 188, 4, 64 } }, XP_sbBadStripe, "width", 1 },
	{ "dalign_without_unit", &fx_v5_sb0, { { 100, 2, 0xb5a5 } }, XP_sbBadStripe, "unit", 1 },
	{ "stripe_not_multiple", &fx_v5_sb0, { { 100, 2, 0xb5a5 }, { 184, 4, 16 } },
	  XP_sbBadStripe, "width", 1 },
	{ "inoalignmt_sparse", &fx_v5_sb0, { { 180, 4, 4 } }, XP_sbBadInodeAlign, "inoalignmt", 1 },
	{ "spino_align", &fx_v5_sb0, { { 228, 4, 8 } }, XP_sbBadSpinoAlign, "spino_align", 1 },
	{ "qflags_oquota_v5", &fx_v5_sb0, { { 176, 2, 0x10 } }, XP_sbBadQuotaFlags, "qflags", 1 },
	{ "qflags_unknown", &fx_v5_sb0, { { 176, 2, 0x1000 } }, XP_sbBadFlags, "qflags", 1 },
	{ "flags_unknown", &fx_v5_sb0, { { 178, 1, 0x02 } }, XP_sbFlagsSet, "flags", 1 },
	{ "flags_readonly", &fx_v5_sb0, { { 178, 1, 0x01 } }, XP_sbFlagsSet, "flags", 1 },
	{ "rootino_zero", &fx_v5_sb0, { { 56, 8, 0 } }, XP_sbBadRootIno, "rootino", 1 },
	{ "rbmino_misplaced", &fx_v5_sb0, { { 64, 8, 200 } }, XP_sbSysInoMisplaced, "rbmino", 1 },
	{ "rsumino_misplaced", &fx_v5_sb0, { { 72, 8, 300 } }, XP_sbSysInoMisplaced, "rsumino", 1 },
	{ "rt_pair_misplaced", &fx_v5_sb0, { { 64, 8, 200 }, { 72, 8, 300 } },
	  XP_sbSysInoMisplaced, "rsumino", 2 },
	{ "rootino_far", &fx_v5_sb0, { { 56, 8, (uint64_t)1 << 40 } }, XP_sbBadRootIno,
	  "rootino", 1 },
	{ "rbmino_null", &fx_v5_sb0, { { 64, 8, UINT64_MAX } }, XP_sbBadRootIno, "rbmino", 1 },
	{ "uquotino", &fx_v5_sb0, { { 160, 8, 5 } }, XP_sbBadQuotaIno, "uquotino", 1 },
	{ "pquotino", &fx_v5_sb0, { { 232, 8, (uint64_t)9 << 19 } }, XP_sbBadQuotaIno,
	  "pquotino", 1 },
	{ "inprogress", &fx_v5_sb0, { { 126, 1, 1 } }, XP_sbInProgress, "inprogress", 1 },
	{ "fdblocks", &fx_v5_sb0, { { 144, 8, 262145 } }, XP_sbBadCounter, "fdblocks", 1 },
	{ "ifree", &fx_v5_sb0, { { 136, 8, 65 } }, XP_sbBadCounter, "ifree", 1 },
	{ "icount", &fx_v5_sb0, { { 128, 8, (uint64_t)1 << 40 } }, XP_sbBadCounter, "icount", 1 },
	{ "meta_uuid", &fx_v5_sb0, { { 250, 1, 0x42 } }, XP_sbBadMetaUuid, "meta_uuid", 1 },
	{ "tail", &fx_v5_sb0, { { 300, 1, 0x42 } }, XP_sbNonzeroTail, NULL, 1 },
	/* v4: no CRC, so only the good-CRC variant means anything (both run). */
	{ "v4_no_dirv2", &fx_v4_sb0, { { 100, 2, 0x94a4 } }, XP_sbMissingFeature, "versionnum", 1 },
	{ "v4_crcbit", &fx_v4_sb0, { { 200, 4, 0x38a }, { 204, 4, 0x38a } }, XP_sbUnknownFeature,
	  "features2", 1 },
	{ "v4_qflags_pquota", &fx_v4_sb0, { { 176, 2, 0x0200 } }, XP_sbBadQuotaFlags, "qflags", 1 },
	{ "v4_tail", &fx_v4_sb0, { { 212, 4, 0x1 } }, XP_sbNonzeroTail, NULL, 1 },
	{ "v4_inoalignmt", &fx_v4_sb0, { { 180, 4, 4 } }, XP_sbBadInodeAlign, "inoalignmt", 1 },
};

static void apply_pokes(uint8_t *buf, const struct poke *poke)
{
	for (int i = 0; i < 2; i++) {
		switch (poke[i].width) {
		case 1: buf[poke[i].off] = (uint8_t)poke[i].value; break;
		case 2: xfmt_put_be16(buf + poke[i].off, (uint16_t)poke[i].value); break;
		case 4: xfmt_put_be32(buf + poke[i].off, (uint32_t)poke[i].value); break;
		case 8: xfmt_put_be64(buf + poke[i].off, poke[i].value); break;
		default: break;
		}
	}
}

static void run_corruption(const struct corrupt *c, bool fix_crc)
{
	uint8_t *buf = fx_load(c->fx);
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb;
	bool crc_checked;
	unsigned n;

	apply_pokes(buf, c->poke);
	assert_int_equal(xfmt_sb_decode(buf, c->fx->len, &sb), 0);
	/* The verifier checks the CRC on v5 or whenever the field is set. */
	crc_checked = xfmt_sb_is_v5(&sb) || sb.crc;
	if (fix_crc && crc_checked) {
		xfmt_crc_update(buf, c->fx->len, XFS_SB_CRC_OFF);
		assert_int_equal(xfmt_sb_decode(buf, c->fx->len, &sb), 0);
	}
	n = xfmt_sb_verify(buf, c->fx->len, &sb, &sink);
	assert_int_equal(n, store.n);
	if (getenv("FX_VERBOSE") || fx_count(&store, c->code, c->field) != 1 ||
	    (fix_crc && c->exact && store.n != c->exact))
		fx_dump(&store);
	assert_int_equal(fx_count(&store, c->code, c->field), 1);
	if (fix_crc) {
		assert_int_equal(fx_count(&store, XP_sbBadCrc, NULL), 0);
		if (c->exact)
			assert_int_equal(store.n, c->exact);
	} else {
		assert_int_equal(fx_count(&store, XP_sbBadCrc, "crc"), crc_checked ? 1 : 0);
	}
	free(buf);
}

static void test_corrupt_good_crc(void **state)
{
	run_corruption(*state, true);
}

static void test_corrupt_stale_crc(void **state)
{
	run_corruption(*state, false);
}

/* Only the CRC is wrong: exactly one finding, with both values. */
static void test_crc_only(void **state)
{
	uint8_t *buf = fx_load(&fx_v5_sb0);
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb;
	const struct xprob *f;

	(void)state;
	buf[XFS_SB_CRC_OFF] ^= 0x01;
	assert_int_equal(xfmt_sb_decode(buf, 512, &sb), 0);
	assert_int_equal(xfmt_sb_verify(buf, 512, &sb, &sink), 1);
	f = fx_find(&store, XP_sbBadCrc);
	assert_non_null(f);
	assert_int_equal(f->expected, bswap32(0x745c4762));
	assert_int_equal(f->observed, bswap32(0x745c4762) ^ 0x01);
	free(buf);
}

/* Garbage never crashes and always yields findings. */
static void test_garbage(void **state)
{
	uint8_t *buf = malloc(512);
	struct fx_sink store;
	FX_SINK(sink, &store);
	struct xfmt_sb sb;
	struct xfmt_geom g;
	uint32_t x = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 512; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		if (round & 1)
			memcpy(buf, fx_v5_sb0_head, 100);   /* plausible start, garbage rest */
		store.n = 0;
		assert_int_equal(xfmt_sb_decode(buf, 512, &sb), 0);
		assert_true(xfmt_sb_verify(buf, 512, &sb, &sink) > 0);
		(void)xfmt_geom_from_sb(&sb, &g);
	}
	free(buf);
}

/* ---------------------------------------------------------------- encode */

/*
 * Every captured mkfs and kernel sector (primaries and secondaries, v4, v5,
 * 4 KiB sectors) decodes and re-encodes to exactly its own bytes, and the
 * encoding verifies clean wherever the original did.
 */
static void test_encode_roundtrip(void **state)
{
	const struct fx_sector *all[] = {
		&fx_v5_sb0, &fx_v5_sb1, &fx_v4_sb0, &fx_s4k_sb0, &fx_ag3_sb0, &fx_ag3_sb2,
		&fx_unl_sb0,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct fx_sink before = { 0 }, after = { 0 };
		FX_SINK(sink_before, &before);
		FX_SINK(sink_after, &after);
		struct xfmt_sb sb, back;
		uint8_t *orig = fx_load(all[i]);
		uint8_t *enc = malloc(all[i]->len);
		bool primary = all[i] != &fx_v5_sb1 && all[i] != &fx_ag3_sb2;

		assert_non_null(enc);
		assert_int_equal(xfmt_sb_decode(orig, all[i]->len, &sb), 0);
		memset(enc, 0xA5, all[i]->len);
		assert_int_equal(xfmt_sb_encode(&sb, enc, all[i]->len), 0);
		assert_memory_equal(enc, orig, all[i]->len);
		assert_int_equal(xfmt_sb_decode(enc, all[i]->len, &back), 0);
		assert_memory_equal(&back, &sb, sizeof(sb));
		if (primary) {
			xfmt_sb_verify(orig, all[i]->len, &sb, &sink_before);
			xfmt_sb_verify(enc, all[i]->len, &back, &sink_after);
		} else {
			xfmt_sb_verify_secondary(orig, all[i]->len, &sb, &sink_before);
			xfmt_sb_verify_secondary(enc, all[i]->len, &back, &sink_after);
		}
		assert_int_equal(after.n, before.n);
		free(orig);
		free(enc);
	}
}

/* A changed field lands at its offset, the CRC follows it, and garbage
 * after the structure (and, on v4, in the v5 fields) is not carried over. */
static void test_encode_changes(void **state)
{
	struct fx_sink store = { 0 };
	FX_SINK(sink, &store);
	struct xfmt_sb sb, back;
	uint8_t *buf = fx_load(&fx_v5_sb0);
	size_t len = fx_v5_sb0.len;

	(void)state;
	assert_int_equal(xfmt_sb_decode(buf, len, &sb), 0);
	sb.fdblocks = 12345;
	sb.icount = 640;
	sb.ifree = 61;
	memset(buf, 0xFF, len);
	assert_int_equal(xfmt_sb_encode(&sb, buf, len), 0);
	assert_int_equal(xfmt_get_be64(buf + 144), 12345);
	assert_int_equal(xfmt_get_be64(buf + 128), 640);
	assert_true(xfmt_crc_ok(buf, len, XFS_SB_CRC_OFF));
	for (size_t i = XFS_SB_STRUCT_SIZE; i < len; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(xfmt_sb_decode(buf, len, &back), 0);
	assert_int_equal(back.fdblocks, 12345);
	assert_int_equal(xfmt_sb_verify(buf, len, &back, &sink), 0);
	free(buf);

	/* v4: bytes 208.. stay zero whatever the struct holds there. */
	buf = fx_load(&fx_v4_sb0);
	len = fx_v4_sb0.len;
	assert_int_equal(xfmt_sb_decode(buf, len, &sb), 0);
	sb.features_incompat = 0xFFFFFFFF;
	sb.crc = 0x12345678;
	sb.lsn = 99;
	assert_int_equal(xfmt_sb_encode(&sb, buf, len), 0);
	for (size_t i = XFS_SB_V4_SIZE; i < len; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(xfmt_sb_encode(&sb, buf, XFS_SB_STRUCT_SIZE - 1), -1);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_decode_v5),
		cmocka_unit_test(test_decode_v4),
		cmocka_unit_test(test_decode_s4k),
		cmocka_unit_test(test_decode_ag3),
		cmocka_unit_test(test_decode_kernel_written),
		cmocka_unit_test(test_decode_truncated),
		cmocka_unit_test(test_clean_primaries),
		cmocka_unit_test(test_clean_secondaries),
		cmocka_unit_test(test_secondary_quota_fields),
		cmocka_unit_test(test_secondary_as_primary),
		cmocka_unit_test(test_crc_covers_sectsize),
		cmocka_unit_test(test_verify_short_buffer),
		cmocka_unit_test(test_geom),
		cmocka_unit_test(test_geom_others),
		cmocka_unit_test(test_geom_insane),
		cmocka_unit_test(test_compare_geometry),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_field_table_matches_decoder),
		cmocka_unit_test(test_crc_only),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_encode_roundtrip),
		cmocka_unit_test(test_encode_changes),
	};
	enum { NFIXED = sizeof(fixed) / sizeof(fixed[0]),
	       NCORRUPT = sizeof(corruptions) / sizeof(corruptions[0]) };
	struct CMUnitTest tests[NFIXED + 2 * NCORRUPT];
	static char names[2 * NCORRUPT][64];
	int rc;

	memcpy(tests, fixed, sizeof(fixed));
	/* One named test per corruption and CRC mode. */
	for (size_t i = 0; i < NCORRUPT; i++) {
		for (int crc = 0; crc < 2; crc++) {
			struct CMUnitTest *t = &tests[NFIXED + 2 * i + (size_t)crc];

			snprintf(names[2 * i + (size_t)crc], sizeof(names[0]), "corrupt_%s_%s",
				 corruptions[i].name, crc ? "good_crc" : "stale_crc");
			memset(t, 0, sizeof(*t));
			t->name = names[2 * i + (size_t)crc];
			t->test_func = crc ? test_corrupt_good_crc : test_corrupt_stale_crc;
			t->initial_state = (void *)(uintptr_t)&corruptions[i];
		}
	}
	rc = _cmocka_run_group_tests("test_sb", tests, NFIXED + 2 * NCORRUPT, NULL, NULL);
	return rc;
}
