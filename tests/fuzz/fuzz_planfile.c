/*
 * fuzz_planfile.c - libFuzzer target for the stored plan and undo files
 * (reconstruct/plan_file.c): `apply` and `undo` read them from wherever the
 * user keeps them, so they are hostile input like an image.
 *
 * Input: byte 0 picks the mode.
 *   even: the rest is a whole container, loaded as it is (header, lengths,
 *         zstd frames, digests);
 *   odd:  the rest is a be32 index length, that many bytes of XML index, and
 *         a payload; the target wraps them in a container with correct
 *         lengths and digests (xr_pf_save, kind from bit 1), so mutations
 *         reach the index parser and the per-write checks behind the
 *         digests instead of stopping at them.
 * The file lives in a private directory under /dev/shm (or $TMPDIR).
 *
 * Invariants beyond "no crash": a loaded file's writes are in ascending
 * offset order without overlaps, each inside the payload, and the kind is
 * the one asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "formats/endian.h"
#include "reconstruct/plan_file.h"
#include "tests/fuzz/harness.h"

#define PF_MAX_INPUT (1u << 20)

static void check_loaded(const struct xr_planfile *pf)
{
	uint64_t end = 0;

	for (size_t i = 0; i < pf->nchanges; i++) {
		const struct xr_pf_change *c = &pf->changes[i];

		if (i && c->offset < end)
			fz_fail("loaded writes overlap or are out of order", c->offset, end);
		if (c->payload_off > pf->payload_len || c->len > pf->payload_len - c->payload_off)
			fz_fail("a loaded write lies outside the payload", c->payload_off, c->len);
		end = c->offset + c->len;
		fz_blackhole += c->ino + c->agno + c->action;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	char err[256];
	struct xr_planfile pf;
	int rc, want = 0;

	if (size < 1 || size > PF_MAX_INPUT)
		return 0;
	path = fz_scratch_file("p");
	unlink(path);
	if (data[0] & 1) {
		uint32_t ilen;

		if (size < 5)
			return 0;
		ilen = xfmt_get_be32(data + 1);
		if (ilen > size - 5)
			return 0;
		want = (data[0] & 2) ? XR_PF_UNDO : XR_PF_PLAN;
		rc = xr_pf_save(path, (enum xr_pf_kind)want, data + 5, ilen, data + 5 + ilen,
				size - 5 - ilen, true, NULL, NULL, err, sizeof(err));
		if (rc)
			return 0;   /* e.g. an empty index: refused before writing */
	} else {
		FILE *f = fopen(path, "wb");

		if (!f)
			fz_fail("cannot write the scratch file", 0, 0);
		if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1)
			fz_fail("cannot write the scratch file", size, 0);
		if (fclose(f) != 0)
			fz_fail("cannot write the scratch file", size, 1);
	}
	rc = xr_pf_load(path, want, &pf, err, sizeof(err));
	if (rc == 0) {
		if (want && (int)pf.kind != want)
			fz_fail("a container of the other kind was accepted", pf.kind, (unsigned)want);
		check_loaded(&pf);
		xr_pf_release(&pf);
	} else if (!err[0]) {
		fz_fail("a refused container gave no reason", (unsigned long long)-rc, 0);
	}
	unlink(path);
	return 0;
}
