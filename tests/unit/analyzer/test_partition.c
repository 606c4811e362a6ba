/*
 * test_partition.c - GPT and MBR parsing on tables built in memory: the
 * happy paths (fdisk numbering, 4 KiB sectors, names), a primary GPT with a
 * bad header or entries CRC (the backup is used), both copies bad, hostile
 * entry counts and sizes, partitions past the end, overlapping MBR entries,
 * extended-partition chains with loops, and random damage (no crash, no
 * hang).  The CRC-32 is checked against its standard check value here; the
 * shell tests check the parser against tables written by sfdisk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/partition.h"
#include "formats/endian.h"

#define DISK (8u << 20)

/* Linux filesystem data type GUID 0FC63DAF-8483-4772-8E79-3D69D8477DE4 as stored. */
static const uint8_t linux_guid[16] = {
	0xAF, 0x3D, 0xC6, 0x0F, 0x83, 0x84, 0x72, 0x47,
	0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D, 0xE4,
};

struct gent { uint64_t first, last; const char *name; };

static void put_le64(uint8_t *p, uint64_t v)
{
	xfmt_put_le32(p, (uint32_t)v);
	xfmt_put_le32(p + 4, (uint32_t)(v >> 32));
}

static void mbr_entry(uint8_t *sector, int slot, uint8_t status, uint8_t type,
		      uint32_t lba, uint32_t nsect)
{
	uint8_t *e = sector + 446 + 16 * slot;

	e[0] = status;
	e[4] = type;
	xfmt_put_le32(e + 8, lba);
	xfmt_put_le32(e + 12, nsect);
	sector[510] = 0x55;
	sector[511] = 0xAA;
}

/* One GPT header at lba with entries at elba, CRCs filled in. */
static void gpt_header(uint8_t *disk, unsigned ss, uint64_t lba, uint64_t alt, uint64_t elba,
		       uint32_t nent, uint32_t esz)
{
	uint8_t *h = disk + lba * ss;
	uint64_t nsect = DISK / ss;

	memset(h, 0, ss);
	memcpy(h, "EFI PART", 8);
	xfmt_put_le32(h + 8, 0x00010000);
	xfmt_put_le32(h + 12, 92);
	put_le64(h + 24, lba);
	put_le64(h + 32, alt);
	put_le64(h + 40, 34);
	put_le64(h + 48, nsect - 34);
	memset(h + 56, 0x5A, 16);
	put_le64(h + 72, elba);
	xfmt_put_le32(h + 80, nent);
	xfmt_put_le32(h + 84, esz);
	if ((uint64_t)nent * esz <= DISK - elba * ss)
		xfmt_put_le32(h + 88, xpart_crc32(disk + elba * ss, (size_t)nent * esz));
	xfmt_put_le32(h + 16, xpart_crc32(h, 92));
}

/* Fix the header CRC after editing a field. */
static void gpt_recrc(uint8_t *disk, unsigned ss, uint64_t lba)
{
	uint8_t *h = disk + lba * ss;

	xfmt_put_le32(h + 16, 0);
	xfmt_put_le32(h + 16, xpart_crc32(h, 92));
}

/* A whole GPT disk: protective MBR, primary and backup tables. */
static uint8_t *gpt_disk(unsigned ss, const struct gent *ents, int n)
{
	uint8_t *d = calloc(1, DISK);
	uint64_t nsect = DISK / ss;
	uint32_t esz = 128, nent = 128;
	uint64_t arr = (uint64_t)nent * esz, asect = arr / ss;

	assert_non_null(d);
	mbr_entry(d, 0, 0, 0xEE, 1, (uint32_t)(nsect - 1));
	for (int i = 0; i < n; i++) {
		uint8_t *e = d + 2 * ss + (size_t)i * esz;

		if (!ents[i].first && !ents[i].last)
			continue;  /* leave the slot unused */
		memcpy(e, linux_guid, 16);
		memset(e + 16, i + 1, 16);
		put_le64(e + 32, ents[i].first);
		put_le64(e + 40, ents[i].last);
		for (size_t k = 0; ents[i].name && ents[i].name[k]; k++)
			e[56 + 2 * k] = (uint8_t)ents[i].name[k];
	}
	memcpy(d + (nsect - 1 - asect) * ss, d + 2 * ss, arr);
	gpt_header(d, ss, 1, nsect - 1, 2, nent, esz);
	gpt_header(d, ss, nsect - 1, 1, nsect - 1 - asect, nent, esz);
	return d;
}

static void put_xfs(uint8_t *d, uint64_t byte)
{
	memcpy(d + byte, "XFSB", 4);
}

static struct ximg *mem(uint8_t *d, size_t len)
{
	struct ximg *img = NULL;

	assert_int_equal(ximg_open_mem(d, len, 0, "disk", &img), 0);
	return img;
}

static void test_crc32_check_value(void **state)
{
	(void)state;
	assert_int_equal(xpart_crc32("123456789", 9), 0xCBF43926u);
	assert_int_equal(xpart_crc32("", 0), 0);
}

static void test_gpt_basic(void **state)
{
	const struct gent ents[] = {
		{ 2048, 4095, "boot" }, { 4096, 8191, "data" }, { 0, 0, NULL }, { 8192, 12287, "x" },
	};
	uint8_t *d = gpt_disk(512, ents, 4);
	struct ximg *img;
	struct xpart p, list[8];
	struct xpart_table tab;
	char err[256], guid[37];

	(void)state;
	put_xfs(d, 4096 * 512);
	put_xfs(d, 8192 * 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.index, 2);
	assert_int_equal(p.start, 4096 * 512);
	assert_int_equal(p.length, 4096 * 512);
	assert_true(p.is_gpt);
	assert_string_equal(p.name, "data");
	xpart_guid_str(p.type_guid, guid);
	assert_string_equal(guid, "0FC63DAF-8483-4772-8E79-3D69D8477DE4");

	assert_int_equal(xpart_find_xfs(img, 4, &p, err, sizeof(err)), 0);
	assert_int_equal(p.start, 8192 * 512);
	assert_int_equal(xpart_find_xfs(img, 1, &p, err, sizeof(err)), 0);  /* not XFS: still given */
	assert_int_equal(xpart_find_xfs(img, 3, &p, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "partition 3 does not exist"));
	assert_int_equal(xpart_find_xfs(img, 200, &p, err, sizeof(err)), XERR_USAGE);

	assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 3);
	assert_int_equal(tab.kind, XPART_GPT);
	assert_int_equal(tab.sector_size, 512);
	assert_int_equal(tab.anomalies, 0);
	assert_int_equal(list[0].index, 1);
	assert_int_equal(list[1].index, 2);
	assert_int_equal(list[2].index, 4);
	for (int i = 0; i < 3; i++)
		assert_int_equal(list[i].flags, 0);
	/* max smaller than the table: the count is still the whole table. */
	assert_int_equal(xpart_list(img, &tab, list, 1, err, sizeof(err)), 3);
	ximg_free(&img);
	free(d);
}

static void test_gpt_4k_sectors(void **state)
{
	const struct gent ents[] = { { 256, 511, "a" }, { 512, 1023, "b" } };
	uint8_t *d = gpt_disk(4096, ents, 2);
	struct ximg *img;
	struct xpart p;
	struct xpart_table tab;
	char err[256];

	(void)state;
	put_xfs(d, 512 * 4096);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.index, 2);
	assert_int_equal(p.start, 512 * 4096);
	assert_int_equal(p.length, 512 * 4096);
	assert_int_equal(xpart_list(img, &tab, NULL, 0, err, sizeof(err)), 2);
	assert_int_equal(tab.sector_size, 4096);
	ximg_free(&img);
	free(d);
}

static void test_gpt_primary_damaged_uses_backup(void **state)
{
	const struct gent ents[] = { { 2048, 4095, "a" } };
	struct xpart p;
	struct xpart_table tab;
	char err[256];

	(void)state;
	for (int what = 0; what < 3; what++) {
		uint8_t *d = gpt_disk(512, ents, 1);
		struct ximg *img;

		put_xfs(d, 2048 * 512);
		if (what == 0)
			d[512 + 40] ^= 1;        /* header field: header CRC breaks */
		else if (what == 1)
			d[2 * 512 + 33] ^= 1;    /* entry: entries CRC breaks */
		else
			memset(d + 512, 0, 512); /* primary header gone */
		img = mem(d, DISK);
		assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), 0);
		assert_int_equal(p.start, 2048 * 512);
		assert_int_equal(xpart_list(img, &tab, NULL, 0, err, sizeof(err)), 1);
		assert_int_equal(tab.anomalies, XPART_T_GPT_BACKUP);
		ximg_free(&img);
		free(d);
	}
}

static void test_gpt_both_damaged(void **state)
{
	const struct gent ents[] = { { 2048, 4095, "a" } };
	uint8_t *d = gpt_disk(512, ents, 1);
	struct ximg *img;
	struct xpart p;
	char err[256];

	(void)state;
	put_xfs(d, 2048 * 512);
	d[512 + 16] ^= 0xFF;                      /* primary header CRC */
	d[DISK - 512 + 16] ^= 0xFF;               /* backup header CRC */
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_FORMAT);
	assert_non_null(strstr(err, "damaged GPT"));
	assert_non_null(strstr(err, "header CRC mismatch"));
	ximg_free(&img);

	/* A protective MBR with no GPT anywhere is damage too, not "no table". */
	memset(d + 512, 0, 512);
	memset(d + DISK - 512, 0, 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_FORMAT);
	assert_non_null(strstr(err, "protective MBR"));
	ximg_free(&img);
	free(d);
}

/* Entry counts and sizes that would make us read or allocate absurd amounts. */
static void test_gpt_hostile_counts(void **state)
{
	static const struct { uint32_t nent, esz; const char *why; } bad[] = {
		{ 0xFFFFFFFFu, 128, "exceed" },
		{ 0x02000000u, 128, "exceed" },
		{ 8192, 256, "exceed" },
		{ 128, 0, "entry size" },
		{ 128, 100, "entry size" },
		{ 128, 192, "entry size" },
		{ 128, 1u << 31, "entry size" },
	};
	const struct gent ents[] = { { 2048, 4095, "a" } };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *d = gpt_disk(512, ents, 1);
		uint64_t last = DISK / 512 - 1;
		struct ximg *img;
		struct xpart p;
		char err[256];

		put_xfs(d, 2048 * 512);
		for (int k = 0; k < 2; k++) {
			uint64_t lba = k ? last : 1;

			xfmt_put_le32(d + lba * 512 + 80, bad[i].nent);
			xfmt_put_le32(d + lba * 512 + 84, bad[i].esz);
			gpt_recrc(d, 512, lba);
		}
		img = mem(d, DISK);
		assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_FORMAT);
		assert_non_null(strstr(err, bad[i].why));
		ximg_free(&img);
		free(d);
	}
}

static void test_gpt_entries_beyond_end(void **state)
{
	const struct gent ents[] = { { 2048, 4095, "a" } };
	uint8_t *d = gpt_disk(512, ents, 1);
	struct ximg *img;
	struct xpart p;
	char err[256];

	(void)state;
	for (int k = 0; k < 2; k++) {
		uint64_t lba = k ? DISK / 512 - 1 : 1;

		put_le64(d + lba * 512 + 72, UINT64_MAX / 256);
		gpt_recrc(d, 512, lba);
	}
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_FORMAT);
	assert_non_null(strstr(err, "beyond the end"));
	ximg_free(&img);
	free(d);
}

static void test_partition_beyond_end(void **state)
{
	const struct gent ents[] = {
		{ 2048, 4095, "ok" }, { 8192, 40000, "long" }, { 90000, 90100, "far" },
		{ 5000, 4000, "backwards" }, { 6000, UINT64_MAX, "huge" },
	};
	uint8_t *d = gpt_disk(512, ents, 5);
	struct ximg *img;
	struct xpart p, list[8];
	struct xpart_table tab;
	char err[256];

	(void)state;
	put_xfs(d, 8192 * 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 2, &p, err, sizeof(err)), XERR_TRUNCATED);
	assert_non_null(strstr(err, "partition 2 extends beyond the end of the image"));
	assert_int_equal(xpart_find_xfs(img, 3, &p, err, sizeof(err)), XERR_TRUNCATED);
	assert_non_null(strstr(err, "partition 3 extends beyond the end of the image"));
	assert_int_equal(xpart_find_xfs(img, 4, &p, err, sizeof(err)), XERR_FORMAT);
	assert_int_equal(xpart_find_xfs(img, 5, &p, err, sizeof(err)), XERR_FORMAT);
	/* The only XFS partition is cut short: say so rather than "no XFS". */
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_TRUNCATED);
	assert_non_null(strstr(err, "partition 2 extends beyond the end of the image"));
	assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 5);
	assert_int_equal(list[0].flags, 0);
	assert_int_equal(list[1].flags, XPART_F_BEYOND_END);
	assert_int_equal(list[2].flags, XPART_F_BEYOND_END);
	assert_true(list[3].flags & XPART_F_INVALID);
	assert_true(list[4].flags & XPART_F_INVALID);
	ximg_free(&img);
	free(d);
}

static void test_mbr_primaries(void **state)
{
	uint8_t *d = calloc(1, DISK);
	struct ximg *img;
	struct xpart p, list[8];
	struct xpart_table tab;
	char err[256];

	(void)state;
	assert_non_null(d);
	mbr_entry(d, 0, 0x80, 0x83, 2048, 2048);
	mbr_entry(d, 1, 0x00, 0x83, 3072, 4096);      /* overlaps slot 1 */
	mbr_entry(d, 3, 0x00, 0x83, 12000, 10000);    /* past the end (16384 sectors) */
	put_xfs(d, 3072 * 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 3);
	assert_int_equal(tab.kind, XPART_MBR);
	assert_int_equal(list[0].index, 1);
	assert_int_equal(list[1].index, 2);
	assert_int_equal(list[2].index, 4);  /* empty slot 3 keeps its number */
	assert_int_equal(list[0].flags, XPART_F_OVERLAP);
	assert_int_equal(list[1].flags, XPART_F_OVERLAP);
	assert_int_equal(list[2].flags, XPART_F_BEYOND_END);
	assert_int_equal(list[1].mbr_type, 0x83);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.index, 2);
	assert_int_equal(p.start, 3072 * 512);
	assert_int_equal(p.length, 4096 * 512);
	assert_false(p.is_gpt);
	assert_int_equal(xpart_find_xfs(img, 3, &p, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "partition 3 does not exist"));
	assert_int_equal(xpart_find_xfs(img, 4, &p, err, sizeof(err)), XERR_TRUNCATED);
	ximg_free(&img);

	/* No XFS anywhere. */
	memset(d + 3072 * 512, 0, 4);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_NOTXFS);
	ximg_free(&img);
	free(d);
}

/* Extended partition at 4096 (8192 sectors) with EBRs at +0 and +2048. */
static uint8_t *mbr_extended(void)
{
	uint8_t *d = calloc(1, DISK);
	uint8_t *ebr1 = d + 4096 * 512, *ebr2 = d + (4096 + 2048) * 512;

	assert_non_null(d);
	mbr_entry(d, 0, 0, 0x83, 2048, 2048);
	mbr_entry(d, 1, 0, 0x05, 4096, 8192);
	mbr_entry(ebr1, 0, 0, 0x83, 63, 1000);        /* logical 5 at 4159 */
	mbr_entry(ebr1, 1, 0, 0x05, 2048, 4000);      /* next EBR at 4096 + 2048 */
	mbr_entry(ebr2, 0, 0, 0x83, 128, 2000);       /* logical 6 at 6272 */
	return d;
}

static void test_mbr_logicals(void **state)
{
	uint8_t *d = mbr_extended();
	struct ximg *img;
	struct xpart p, list[8];
	struct xpart_table tab;
	char err[256];

	(void)state;
	put_xfs(d, 6272 * 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 4);
	assert_int_equal(tab.anomalies, 0);
	assert_int_equal(list[1].index, 2);
	assert_int_equal(list[1].flags, XPART_F_EXTENDED);
	assert_int_equal(list[2].index, 5);
	assert_int_equal(list[2].start, 4159 * 512);
	assert_int_equal(list[2].flags, XPART_F_LOGICAL);
	assert_int_equal(list[3].index, 6);
	assert_int_equal(list[3].start, 6272 * 512);
	assert_int_equal(list[3].length, 2000 * 512);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), 0);
	assert_int_equal(p.index, 6);
	assert_int_equal(xpart_find_xfs(img, 5, &p, err, sizeof(err)), 0);
	assert_int_equal(p.start, 4159 * 512);
	assert_int_equal(xpart_find_xfs(img, 7, &p, err, sizeof(err)), XERR_USAGE);
	ximg_free(&img);
	free(d);
}

static void test_mbr_ebr_loops(void **state)
{
	struct xpart list[XPART_MAX_LOGICAL + 8];
	struct xpart_table tab;
	char err[256];

	(void)state;
	/* EBR 2 points back to EBR 1. */
	{
		uint8_t *d = mbr_extended();
		struct ximg *img;

		mbr_entry(d + (4096 + 2048) * 512, 1, 0, 0x05, 0, 100);
		img = mem(d, DISK);
		assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 4);
		assert_int_equal(tab.anomalies, XPART_T_EBR_LOOP);
		ximg_free(&img);
		free(d);
	}
	/* EBR 2 points to itself (rel 2048 from the extended start). */
	{
		uint8_t *d = mbr_extended();
		struct ximg *img;

		mbr_entry(d + (4096 + 2048) * 512, 1, 0, 0x05, 2048, 100);
		img = mem(d, DISK);
		assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 4);
		assert_int_equal(tab.anomalies, XPART_T_EBR_LOOP);
		ximg_free(&img);
		free(d);
	}
	/* A chain of 3-cycle EBRs at +2048, +3000, +4000 -> +2048. */
	{
		uint8_t *d = mbr_extended();
		struct ximg *img;

		mbr_entry(d + (4096 + 2048) * 512, 1, 0, 0x05, 3000, 100);
		mbr_entry(d + (4096 + 3000) * 512, 0, 0, 0x83, 10, 10);
		mbr_entry(d + (4096 + 3000) * 512, 1, 0, 0x05, 4000, 100);
		mbr_entry(d + (4096 + 4000) * 512, 1, 0, 0x05, 2048, 100);
		img = mem(d, DISK);
		assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 5);
		assert_int_equal(tab.anomalies, XPART_T_EBR_LOOP);
		ximg_free(&img);
		free(d);
	}
	/* Next EBR outside the extended partition. */
	{
		uint8_t *d = mbr_extended();
		struct ximg *img;

		mbr_entry(d + (4096 + 2048) * 512, 1, 0, 0x05, 9000, 100);
		img = mem(d, DISK);
		assert_int_equal(xpart_list(img, &tab, list, 8, err, sizeof(err)), 4);
		assert_int_equal(tab.anomalies, XPART_T_EBR_BROKEN);
		ximg_free(&img);
		free(d);
	}
	/* A long, legal chain is cut at XPART_MAX_LOGICAL. */
	{
		uint8_t *d = mbr_extended();
		struct ximg *img;
		uint8_t *ebr;
		int n;

		for (unsigned i = 0; i < XPART_MAX_LOGICAL + 10; i++) {
			ebr = d + (4096 + 2048 + 20 * i) * 512;
			memset(ebr + 446, 0, 64);
			mbr_entry(ebr, 0, 0, 0x83, 1, 1);
			mbr_entry(ebr, 1, 0, 0x05, 2048 + 20 * (i + 1), 20);
		}
		img = mem(d, DISK);
		n = xpart_list(img, &tab, list, XPART_MAX_LOGICAL + 8, err, sizeof(err));
		assert_int_equal(n, 2 + XPART_MAX_LOGICAL);
		assert_int_equal(tab.anomalies, XPART_T_EBR_TOO_MANY);
		ximg_free(&img);
		free(d);
	}
}

static void test_no_table(void **state)
{
	uint8_t *d = calloc(1, DISK);
	struct ximg *img;
	struct xpart p;
	struct xpart_table tab;
	char err[256];

	(void)state;
	assert_non_null(d);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_NOTXFS);
	assert_non_null(strstr(err, "no partition table and no XFS superblock at byte 0"));
	assert_int_equal(xpart_find_xfs(img, 1, &p, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "partition 1 does not exist"));
	assert_int_equal(xpart_list(img, &tab, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(tab.kind, XPART_NONE);
	ximg_free(&img);

	/* A boot sector with 0x55AA but boot flags that are not 0/0x80 (FAT). */
	mbr_entry(d, 0, 0x12, 0x83, 2048, 2048);
	put_xfs(d, 2048 * 512);
	img = mem(d, DISK);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_NOTXFS);
	ximg_free(&img);

	/* Tiny images. */
	img = mem(d, 100);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_NOTXFS);
	ximg_free(&img);
	img = mem(d, 0);
	assert_int_equal(xpart_find_xfs(img, 0, &p, err, sizeof(err)), XERR_NOTXFS);
	ximg_free(&img);
	free(d);
}

static void test_gpt_name_utf8(void **state)
{
	const struct gent ents[] = { { 2048, 4095, NULL } };
	uint8_t *d = gpt_disk(512, ents, 1);
	uint8_t *e = d + 2 * 512;
	struct ximg *img;
	struct xpart list[1];
	struct xpart_table tab;
	char err[256];

	(void)state;
	/* "dé€" then U+1F600 as a surrogate pair, then a lone surrogate */
	xfmt_put_le32(e + 56, 0x00E90064);
	e[60] = 0xAC; e[61] = 0x20;
	e[62] = 0x3D; e[63] = 0xD8; e[64] = 0x00; e[65] = 0xDE;
	e[66] = 0x00; e[67] = 0xDC;
	memcpy(d + DISK - 33 * 512, e, 128);
	gpt_header(d, 512, 1, DISK / 512 - 1, 2, 128, 128);
	gpt_header(d, 512, DISK / 512 - 1, 1, DISK / 512 - 33, 128, 128);
	img = mem(d, DISK);
	assert_int_equal(xpart_list(img, &tab, list, 1, err, sizeof(err)), 1);
	assert_string_equal(list[0].name, "d\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80?");
	ximg_free(&img);
	free(d);
}

/* Random damage to the table sectors: any result, but no crash and no hang. */
static void test_random_damage(void **state)
{
	const struct gent ents[] = { { 2048, 4095, "a" }, { 4096, 8191, "b" } };
	uint8_t *good = gpt_disk(512, ents, 2), *ext = mbr_extended();
	uint8_t *d = malloc(DISK);
	uint32_t seed = 12345;

	(void)state;
	assert_non_null(d);
	for (int iter = 0; iter < 400; iter++) {
		struct ximg *img;
		struct xpart p, list[4];
		struct xpart_table tab;
		char err[256];
		int rc;

		memcpy(d, iter & 1 ? ext : good, DISK);
		for (int k = 0; k < 8; k++) {
			uint32_t pos;

			seed = seed * 1103515245u + 12345u;
			/* MBR, GPT header and entries, or the first EBRs */
			pos = (seed >> 8) % (iter & 1 ? 512 : 3 * 512);
			if (iter & 1 && (seed & 3) == 0)
				pos += (4096 + ((seed >> 4) & 1) * 2048) * 512;
			seed = seed * 1103515245u + 12345u;
			d[pos] = (uint8_t)(seed >> 16);
		}
		/* Sometimes re-sign the header so that the fields behind it are trusted. */
		if (!(iter & 1) && (iter & 2))
			gpt_recrc(d, 512, 1);
		img = mem(d, DISK);
		rc = xpart_find_xfs(img, (iter >> 2) % 7, &p, err, sizeof(err));
		if (rc == 0) {
			assert_true(p.start <= DISK && p.length <= DISK - p.start);
		}
		rc = xpart_list(img, &tab, list, 4, err, sizeof(err));
		assert_true(rc >= 0 || rc == XERR_FORMAT);
		ximg_free(&img);
	}
	free(d);
	free(good);
	free(ext);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_check_value),
		cmocka_unit_test(test_gpt_basic),
		cmocka_unit_test(test_gpt_4k_sectors),
		cmocka_unit_test(test_gpt_primary_damaged_uses_backup),
		cmocka_unit_test(test_gpt_both_damaged),
		cmocka_unit_test(test_gpt_hostile_counts),
		cmocka_unit_test(test_gpt_entries_beyond_end),
		cmocka_unit_test(test_partition_beyond_end),
		cmocka_unit_test(test_mbr_primaries),
		cmocka_unit_test(test_mbr_logicals),
		cmocka_unit_test(test_mbr_ebr_loops),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_gpt_name_utf8),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
