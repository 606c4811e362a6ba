/*
 * test_log.c - log record header encoder and decoder, the record CRC, and
 * the unmount records a cleared log is made of.
 *
 * The CRC is checked against a record the Linux 6.18 kernel wrote at clean
 * unmount (captured from the log of corpus image v5-normap: BB 47, two
 * sectors, every byte not listed below is zero), and against an independent
 * CRC-32C over the covered bytes laid end to end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/crc32c.h"
#include "formats/endian.h"
#include "formats/log.h"

static const uint8_t uuid2[16] = {
	0x5e, 0x2c, 0x4a, 0x10, 0x7d, 0x3b, 0x4c, 0x1e,
	0x9f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};

/* The kernel's unmount record (xxd of the two sectors, zero lines left out). */
static void kernel_record(uint8_t rec[1024])
{
	static const uint8_t l000[] = { 0xfe, 0xed, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x01,
					0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x02, 0x00 };
	static const uint8_t l010[] = { 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2f,
					0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2d };
	static const uint8_t l020[] = { 0xa1, 0x5d, 0xa9, 0x15, 0x00, 0x00, 0x00, 0x2d,
					0x00, 0x00, 0x00, 0x01, 0x4c, 0xb0, 0xb0, 0xfd };
	static const uint8_t l12c[] = { 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t l140[] = { 0x00, 0x00, 0x80, 0x00 };
	static const uint8_t l200[] = { 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
					0xaa, 0x20, 0x00, 0x00, 0x6e, 0x55, 0x00, 0x00 };

	memset(rec, 0, 1024);
	memcpy(rec + 0x000, l000, sizeof(l000));
	memcpy(rec + 0x010, l010, sizeof(l010));
	memcpy(rec + 0x020, l020, sizeof(l020));
	memcpy(rec + 0x12c, l12c, sizeof(l12c));
	memcpy(rec + 0x130, uuid2, 16);
	memcpy(rec + 0x140, l140, sizeof(l140));
	memcpy(rec + 0x200, l200, sizeof(l200));
}

static void test_kernel_record_crc(void **state)
{
	uint8_t rec[1024];
	struct xfmt_log_rec r;
	uint32_t crc;

	(void)state;
	kernel_record(rec);
	assert_int_equal(xfmt_log_rec_decode(rec, sizeof(rec), &r), 0);
	assert_int_equal(r.len, 512);
	assert_int_equal(r.lsn, 0x10000002full);
	assert_int_equal(xfmt_log_rec_crc(rec, sizeof(rec), &crc), 0);
	assert_int_equal(crc, r.crc);
	assert_true(xfmt_log_payload_is_unmount(rec, rec + 512));
	/* One flipped payload bit changes the CRC. */
	rec[600] ^= 1;
	assert_int_equal(xfmt_log_rec_crc(rec, sizeof(rec), &crc), 0);
	assert_int_not_equal(crc, r.crc);
	/* A header claiming more payload than the buffer holds is refused. */
	xfmt_put_be32(rec + 12, 1024);
	assert_int_equal(xfmt_log_rec_crc(rec, sizeof(rec), &crc), -1);
}

static void test_header_roundtrip(void **state)
{
	struct xfmt_log_rec r = {
		.magicno = XLOG_HEADER_MAGIC, .cycle = 7, .version = 2, .len = 3584,
		.lsn = 0x0000000700000010ull, .tail_lsn = 0x0000000600000100ull,
		.crc = 0xdeadbeef, .prev_block = 0xFFFFFFFF, .num_logops = 1, .fmt = 1,
		.size = 65536,
	};
	struct xfmt_log_rec back;
	uint8_t sec[512];

	(void)state;
	memcpy(r.fs_uuid, uuid2, 16);
	memset(sec, 0xA5, sizeof(sec));
	assert_int_equal(xfmt_log_rec_encode(&r, sec, sizeof(sec)), 0);
	assert_int_equal(xfmt_log_rec_decode(sec, sizeof(sec), &back), 0);
	assert_memory_equal(&back, &r, sizeof(r));
	assert_int_equal(xfmt_log_block_cycle(sec), 7);
	assert_int_equal(xfmt_log_rec_hdr_blocks(&back), 2);
	for (size_t i = 44; i < 300; i++)   /* h_cycle_data left zero */
		assert_int_equal(sec[i], 0);
	assert_int_equal(xfmt_log_rec_encode(&r, sec, 511), -1);
}

/* CRC over the covered bytes laid end to end (xfs-ondisk.md 10.4). */
static uint32_t crc_by_hand(const uint8_t *rec, uint32_t hdrs, uint32_t h_len)
{
	size_t xheads = (h_len + 32767) / 32768, n = 0;
	uint8_t *flat = malloc(328 + 8 * 260 + h_len);
	uint32_t crc;

	assert_non_null(flat);
	memcpy(flat, rec, 328);
	memset(flat + 32, 0, 4);
	n = 328;
	for (size_t i = 1; i < xheads; i++, n += 260)
		memcpy(flat + n, rec + i * 512, 260);
	memcpy(flat + n, rec + (size_t)hdrs * 512, h_len);
	crc = xfmt_crc32c(flat, n + h_len);
	free(flat);
	return crc;
}

/* Check one encoded unmount record of `size` bytes with `hdrs` header sectors. */
static void check_unmount(const uint8_t *rec, uint32_t size, uint32_t hdrs, uint32_t cycle,
			  uint32_t block, uint32_t h_size)
{
	struct xfmt_log_rec r;
	uint32_t crc;

	assert_int_equal(xfmt_log_rec_decode(rec, size, &r), 0);
	assert_int_equal(r.magicno, XLOG_HEADER_MAGIC);
	assert_int_equal(r.cycle, cycle);
	assert_int_equal(r.lsn, ((uint64_t)cycle << 32) | block);
	assert_int_equal(r.num_logops, 1);
	assert_int_equal(r.prev_block, XLOG_NULL_BLOCK);
	assert_int_equal(r.fmt, XLOG_FMT_LINUX_LE);
	assert_int_equal(r.size, h_size);
	assert_int_equal(r.len, size - hdrs * 512);
	assert_memory_equal(r.fs_uuid, uuid2, 16);
	assert_int_equal(xfmt_log_rec_hdr_blocks(&r), hdrs);
	assert_true(xfmt_log_payload_is_unmount(rec, rec + hdrs * 512));
	/* Every sector says the cycle: headers by their cycle field, payload
	 * sectors by their stamp. */
	for (uint32_t s = 0; s < size / 512; s++)
		assert_int_equal(xfmt_log_block_cycle(rec + s * 512), cycle);
	assert_int_equal(xfmt_log_rec_crc(rec, size, &crc), 0);
	assert_int_equal(crc, r.crc);
	assert_int_equal(crc_by_hand(rec, hdrs, r.len), r.crc);
	assert_int_not_equal(r.crc, 0);
}

static void test_unmount_small(void **state)
{
	struct xfmt_log_unmount_args a = { .cycle = 4, .block = 0,
					   .tail_lsn = 0x000000030001fe02ull, .version = 2,
					   .sunit = 1 };
	uint8_t rec[1024];

	(void)state;
	memcpy(a.fs_uuid, uuid2, 16);
	assert_int_equal(xfmt_log_unmount_rec_size(2, 1), 1024);
	assert_int_equal(xfmt_log_unmount_rec_size(2, 0), 1024);
	assert_int_equal(xfmt_log_unmount_rec_size(1, 262144), 1024);
	assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, sizeof(rec)), 0);
	check_unmount(rec, 1024, 1, 4, 0, 32768);
	/* The op as xfsprogs writes it: tid, oh_len 8, client, flags, type. */
	assert_int_equal(xfmt_get_be32(rec + 44), XLOG_UNMOUNT_TID);
	assert_int_equal(xfmt_get_be32(rec + 512 + 4), 8);
	assert_int_equal(rec[512 + 12], 0x6e);
	assert_int_equal(rec[512 + 13], 0x55);
	/* Same record on a v1 log. */
	a.version = 1;
	assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, sizeof(rec)), 0);
	check_unmount(rec, 1024, 1, 4, 0, 32768);
	/* Bad arguments. */
	a.cycle = 0;
	assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, sizeof(rec)), -1);
	a.cycle = 4;
	assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, 512), -1);
	a.version = 3;
	assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, sizeof(rec)), -1);
}

static void test_unmount_stripe(void **state)
{
	static const struct { uint32_t sunit, size, hdrs, h_size; } cases[] = {
		{ 4096, 4096, 1, 32768 },
		{ 32768, 32768, 1, 32768 },
		{ 65536, 65536, 2, 65536 },
		{ 100352, 100352, 4, 100352 },
		{ 262144, 262144, 8, 262144 },
	};
	uint8_t *rec = malloc(262144);

	(void)state;
	assert_non_null(rec);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xfmt_log_unmount_args a = { .cycle = 9, .block = 1024,
						   .tail_lsn = 0x0000000800000000ull,
						   .version = 2, .sunit = cases[i].sunit };

		memcpy(a.fs_uuid, uuid2, 16);
		assert_int_equal(xfmt_log_unmount_rec_size(2, cases[i].sunit), cases[i].size);
		assert_int_equal(xfmt_log_unmount_rec_encode(&a, rec, cases[i].size), 0);
		check_unmount(rec, cases[i].size, cases[i].hdrs, 9, 1024, cases[i].h_size);
	}
	/* No record is larger than 256 KiB or a fraction of a sector. */
	assert_int_equal(xfmt_log_unmount_rec_size(2, 262144 + 512), 0);
	assert_int_equal(xfmt_log_unmount_rec_size(2, 1000), 0);
	free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_record_crc),
		cmocka_unit_test(test_header_roundtrip),
		cmocka_unit_test(test_unmount_small),
		cmocka_unit_test(test_unmount_stripe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
