/*
 * fuzz_inputs.c - libFuzzer target for the files that stand for an image
 * or mark parts of it: an xfs_metadump (analyzer/io/image_metadump.c) and a
 * bad-sector map (analyzer/io/badmap.c).  Both come from whoever hands the
 * image over, so they are hostile input like the image.
 *
 * Input: byte 0 picks the kind.
 *   even: the rest is a metadump file (v1 or v2), opened from memory; on
 *         success, ranges picked by byte 0's other bits are read from it;
 *   odd:  the rest is a map file, written to a private scratch directory
 *         and loaded; on success, overlaps are asked and a memory image
 *         under the map is read through the refusing and the zero-filling
 *         reads.
 *
 * Invariants beyond "no crash": a metadump view's size is a whole number of
 * its superblock's blocks; a loaded map is sorted, merged and non-empty
 * ranges; a refused read touches a listed byte, an accepted one touches
 * none; the zero-filling read returns zeros exactly on the listed bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/badmap.h"
#include "analyzer/io/image.h"
#include "analyzer/io/image_metadump.h"
#include "tests/fuzz/harness.h"

#define IN_MAX_INPUT (1u << 20)
#define MEM_IMAGE    65536u

static void fuzz_metadump(const uint8_t *data, size_t size, uint8_t sel)
{
	struct ximg *file = NULL, *img = NULL;
	uint8_t buf[8192];
	char err[256];

	if (ximg_open_mem(data, size, 0, "fuzz", &file) != 0)
		return;
	if (!ximg_is_metadump(file)) {
		ximg_free(&file);
		return;
	}
	if (ximg_open_metadump(file, &img, err, sizeof(err)) != 0)
		return;   /* file was taken over and freed */
	if (img->size == 0 || img->size % 512)
		fz_fail("metadump view size not whole sectors", img->size, 0);
	for (unsigned k = 0; k < 4; k++) {
		uint64_t off = ((uint64_t)(sel >> 1) * 4096 * (k + 1) * 977) % img->size;
		size_t len = sizeof(buf) < img->size - off ? sizeof(buf) : (size_t)(img->size - off);

		if (ximg_pread(img, buf, len, off) == XERR_NOMEM)
			break;
	}
	fz_blackhole += img->size;
	ximg_free(&img);
}

static void fuzz_map(const uint8_t *data, size_t size)
{
	static uint8_t mem[MEM_IMAGE];
	struct ximg_badmap bm;
	struct ximg *base = NULL, *img = NULL;
	uint8_t buf[4096];
	const char *path = fz_scratch_file("m");
	char err[256];
	FILE *f;

	f = fopen(path, "wb");
	if (!f)
		fz_fail("cannot write the scratch file", 0, 0);
	if (size && fwrite(data, 1, size, f) != size)
		fz_fail("cannot write the scratch file", size, 0);
	if (fclose(f) != 0)
		fz_fail("cannot write the scratch file", size, 1);
	if (ximg_badmap_load(path, &bm, err, sizeof(err)) != 0)
		return;
	for (size_t i = 0; i < bm.n; i++) {
		if (bm.start[i] >= bm.end[i])
			fz_fail("empty or reversed range", bm.start[i], bm.end[i]);
		if (i && bm.start[i] <= bm.end[i - 1])
			fz_fail("ranges not sorted and merged", bm.start[i], bm.end[i - 1]);
	}
	for (size_t i = 0; i < MEM_IMAGE; i++)
		mem[i] = (uint8_t)(i * 131 + 7) | 1;   /* never zero */
	if (ximg_open_mem(mem, MEM_IMAGE, 0, "mem", &base) != 0 ||
	    ximg_open_badmap(base, &bm, &img) != 0) {
		ximg_badmap_release(&bm);
		ximg_free(&base);
		return;
	}
	for (uint64_t off = 0; off + sizeof(buf) <= MEM_IMAGE; off += 3000) {
		uint64_t bad = 0, zeros = 0;
		int rc = ximg_pread(img, buf, sizeof(buf), off);

		if (ximg_pread_fill(img, buf, sizeof(buf), off, &bad) != 0)
			fz_fail("the zero-filling read failed", off, 0);
		for (size_t i = 0; i < sizeof(buf); i++)
			zeros += buf[i] == 0;
		if (zeros != bad)
			fz_fail("zero-filled bytes are not the listed ones", zeros, bad);
		if ((rc == XERR_IO) != (bad != 0))
			fz_fail("a read refused or accepted against the map", off, bad);
	}
	ximg_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > IN_MAX_INPUT)
		return 0;
	if (data[0] & 1)
		fuzz_map(data + 1, size - 1);
	else
		fuzz_metadump(data + 1, size - 1, data[0]);
	return 0;
}
