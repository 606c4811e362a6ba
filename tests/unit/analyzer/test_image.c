/*
 * test_image.c - the image vtable and ximg_open: the memory and slice
 * backends and their bounds, raw files opened read-only (checked in
 * /proc/self/fdinfo), backend dispatch by magic, and the choice of the
 * filesystem: at byte 0, by --offset, by --partition, or found through an
 * MBR, also inside a zstd-compressed whole-disk image; the holes of a
 * sparse raw file, directly and through a slice.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "formats/endian.h"

#define DISK (4u << 20)
#define PART_LBA 2048u
#define PART_SECTS 4096u

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/xfsrecon-test-image.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	(void)state;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%.64s/%.255s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static const char *write_file(const char *name, const void *data, size_t len)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* A disk with an MBR whose partition 2 holds "XFSB" and a pattern. */
static uint8_t *mbr_disk(void)
{
	uint8_t *d = calloc(1, DISK);
	uint8_t *e = d + 446 + 16;

	assert_non_null(d);
	e[4] = 0x83;
	xfmt_put_le32(e + 8, PART_LBA);
	xfmt_put_le32(e + 12, PART_SECTS);
	d[510] = 0x55;
	d[511] = 0xAA;
	for (size_t i = 0; i < (size_t)PART_SECTS * 512; i += 4096)
		d[(size_t)PART_LBA * 512 + i + 7] = (uint8_t)(i >> 12);
	memcpy(d + (size_t)PART_LBA * 512, "XFSB", 4);
	return d;
}

static void test_memory_and_bounds(void **state)
{
	uint8_t data[1000], buf[16];
	struct ximg *img = NULL, *copy = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	assert_int_equal(ximg_open_mem(data, sizeof(data), 0, NULL, &img), 0);
	assert_int_equal(ximg_open_mem(data, sizeof(data), 1, "copy", &copy), 0);
	data[5] = 0xEE;  /* the borrowed image sees it, the copy does not */
	assert_int_equal(ximg_pread(img, buf, 8, 0), 0);
	assert_int_equal(buf[5], 0xEE);
	assert_int_equal(ximg_pread(copy, buf, 8, 0), 0);
	assert_int_equal(buf[5], 5);
	assert_string_equal(copy->name, "copy");
	assert_string_equal(img->ops->kind, "memory");
	assert_int_equal(ximg_pread(img, buf, 10, 990), 0);
	assert_int_equal(ximg_pread(img, buf, 11, 990), XERR_RANGE);
	assert_int_equal(ximg_pread(img, buf, 0, 1000), 0);
	assert_int_equal(ximg_pread(img, buf, 1, 1000), XERR_RANGE);
	assert_int_equal(ximg_pread(img, buf, 0, 1001), XERR_RANGE);
	assert_int_equal(ximg_pread(img, buf, 2, UINT64_MAX), XERR_RANGE);
	assert_int_equal(ximg_pread(img, buf, 16, UINT64_MAX - 4), XERR_RANGE);
	ximg_free(&copy);
	ximg_free(&img);
	assert_null(img);
	ximg_free(&img);  /* NULL is fine */
	ximg_free(NULL);
}

static void test_slice(void **state)
{
	uint8_t data[1000], buf[16];
	struct ximg *parent = NULL, *sl = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	assert_int_equal(ximg_open_mem(data, sizeof(data), 0, "p", &parent), 0);
	assert_int_equal(ximg_open_slice(parent, 900, 101, &sl), XERR_RANGE);
	assert_int_equal(ximg_open_slice(parent, 1001, 0, &sl), XERR_RANGE);
	assert_int_equal(ximg_open_slice(parent, 100, 200, &sl), 0);
	assert_string_equal(sl->ops->kind, "slice");
	assert_int_equal(sl->size, 200);
	assert_int_equal(ximg_pread(sl, buf, 4, 0), 0);
	assert_int_equal(buf[0], 100);
	assert_int_equal(ximg_pread(sl, buf, 4, 196), 0);
	assert_int_equal(buf[3], (uint8_t)299);
	/* The parent has more bytes, but the slice ends at 200. */
	assert_int_equal(ximg_pread(sl, buf, 5, 196), XERR_RANGE);
	ximg_free(&sl);  /* frees the parent too */
}

/* The access mode of the descriptor open on path, from /proc (or -1). */
static int open_mode_of(const char *path)
{
	char want[PATH_MAX], link[PATH_MAX], fdpath[300], line[128];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int mode = -1;

	if (!d || !realpath(path, want))
		skip();
	while ((e = readdir(d))) {
		ssize_t n;
		FILE *f;

		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%s", e->d_name);
		n = readlink(fdpath, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, want) != 0)
			continue;
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(fdpath, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags:", 6))
				mode = (int)(strtol(line + 6, NULL, 8) & O_ACCMODE);
		if (f)
			fclose(f);
	}
	closedir(d);
	return mode;
}

static void test_raw_is_read_only(void **state)
{
	uint8_t *d = mbr_disk();
	const char *path = write_file("ro.img", d, DISK);
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	assert_int_equal(ximg_open_raw(path, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "raw");
	assert_int_equal(img->size, DISK);
	assert_int_equal(open_mode_of(path), O_RDONLY);
	ximg_free(&img);
	assert_int_equal(open_mode_of(path), -1);  /* and closed again */
	free(d);
}

/*
 * ximg_is_hole: true only for a range wholly inside a hole of a raw file (or
 * of the raw file under a slice); never for a range with data, past the
 * end, or of another backend.  A filesystem without SEEK_DATA holes says
 * "data" everywhere, which is never wrong: then only the "false" answers
 * are checked.
 */
static void test_holes(void **state)
{
	char path[PATH_MAX];
	struct ximg *img = NULL, *slice = NULL, *mem = NULL;
	uint8_t data[4096];
	char err[256];
	int fd;
	bool has_holes;

	(void)state;
	snprintf(path, sizeof(path), "%s/sparse.img", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	memset(data, 0xAB, sizeof(data));
	/* 8 MiB: data at 4 MiB only */
	assert_int_equal(pwrite(fd, data, sizeof(data), 4u << 20), (ssize_t)sizeof(data));
	assert_int_equal(ftruncate(fd, 8u << 20), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(ximg_open_raw(path, &img, err, sizeof(err)), 0);
	has_holes = ximg_is_hole(img, 0, 4096);
	/* never a hole where the data is, or beyond the image */
	assert_false(ximg_is_hole(img, 4u << 20, 4096));
	assert_false(ximg_is_hole(img, (4u << 20) - 4096, 8192));
	assert_false(ximg_is_hole(img, (8u << 20) - 4096, 8192));
	assert_false(ximg_is_hole(img, 0, 0));
	if (has_holes) {
		assert_true(ximg_is_hole(img, 1u << 20, 1u << 20));
		assert_true(ximg_is_hole(img, 6u << 20, 2u << 20));   /* to the end */
	}
	/* through a slice from 4 MiB - 64 KiB (it takes img): the data is at
	 * 64 KiB */
	assert_int_equal(ximg_open_slice(img, (4u << 20) - 65536, 1u << 20, &slice), 0);
	assert_false(ximg_is_hole(slice, 65536, 4096));
	if (has_holes)
		assert_true(ximg_is_hole(slice, 0, 65536));
	/* another backend: never */
	assert_int_equal(ximg_open_mem(data, sizeof(data), 1, "m", &mem), 0);
	memset(data, 0, sizeof(data));
	assert_false(ximg_is_hole(mem, 0, 4096));
	ximg_free(&mem);
	ximg_free(&slice);   /* and img, which the slice owns */
}

static void test_open_errors(void **state)
{
	struct ximg *img = NULL;
	char err[256], path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.img", dir);
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), XERR_IO);
	assert_non_null(strstr(err, "missing.img"));
	assert_int_equal(ximg_open(dir, NULL, &img, err, sizeof(err)), XERR_USAGE);
	assert_null(img);
}

static void test_open_choices(void **state)
{
	uint8_t *d = mbr_disk(), buf[8];
	const char *path = write_file("disk.img", d, DISK);
	struct ximg_open_opts o = { 0 };
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	/* Automatic: partition 2 of the MBR. */
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "slice");
	assert_int_equal(img->size, (uint64_t)PART_SECTS * 512);
	assert_int_equal(ximg_pread(img, buf, 8, 4096 * 3), 0);
	assert_int_equal(buf[7], 3);
	assert_int_equal(ximg_pread(img, buf, 4, 0), 0);
	assert_memory_equal(buf, "XFSB", 4);
	ximg_free(&img);

	o.partition = 2;
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), 0);
	assert_int_equal(img->size, (uint64_t)PART_SECTS * 512);
	ximg_free(&img);
	o.partition = 3;
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "partition 3 does not exist"));

	o.partition = 0;
	o.have_offset = 1;
	o.offset = (uint64_t)PART_LBA * 512 + 4096 * 5;
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), 0);
	assert_int_equal(img->size, DISK - o.offset);
	assert_int_equal(ximg_pread(img, buf, 8, 0), 0);
	assert_int_equal(buf[7], 5);
	ximg_free(&img);
	o.offset = DISK;
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "beyond the end"));

	/* A filesystem at byte 0 is used as is. */
	memcpy(d, "XFSB", 4);
	d[510] = 0;
	path = write_file("fs.img", d, DISK);
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "raw");
	assert_int_equal(img->size, DISK);
	ximg_free(&img);

	/* No table and no magic: the whole image goes to the analyzer (which
	 * may still find secondary superblocks); a partition cannot be had. */
	memset(d, 0, DISK);
	path = write_file("zero.img", d, DISK);
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "raw");
	assert_int_equal(img->size, DISK);
	ximg_free(&img);
	o.have_offset = 0;
	o.partition = 1;
	assert_int_equal(ximg_open(path, &o, &img, err, sizeof(err)), XERR_USAGE);
	assert_non_null(strstr(err, "partition 1 does not exist"));
	free(d);
}

/* A compressed whole-disk image: zstd backend, then the partition inside it. */
static void test_zstd_whole_disk(void **state)
{
	uint8_t *d = mbr_disk(), buf[8];
	size_t cap = ZSTD_compressBound(DISK), n;
	uint8_t *c = malloc(cap);
	const char *path;
	struct ximg *img = NULL;
	char err[256];

	(void)state;
	assert_non_null(c);
	n = ZSTD_compress(c, cap, d, DISK, 3);
	assert_false(ZSTD_isError(n));
	path = write_file("disk.img.zst", c, n);
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), 0);
	assert_string_equal(img->ops->kind, "slice");
	assert_int_equal(img->size, (uint64_t)PART_SECTS * 512);
	assert_int_equal(ximg_pread(img, buf, 8, 4096 * 7), 0);
	assert_int_equal(buf[7], 7);
	assert_int_equal(open_mode_of(path), O_RDONLY);
	ximg_free(&img);

	/* A damaged one fails at open with the container's reason. */
	c[n / 2] ^= 0xFF;
	c[n / 2 + 1] ^= 0xFF;
	path = write_file("bad.img.zst", c, n - 7);
	assert_int_equal(ximg_open(path, NULL, &img, err, sizeof(err)), XERR_FORMAT);
	assert_non_null(strstr(err, "bad.img.zst"));
	free(c);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_and_bounds),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_raw_is_read_only),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_open_choices),
		cmocka_unit_test(test_zstd_whole_disk),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
