/*
 * fuzz_log.c - libFuzzer target for the log decoders: record headers, cycle
 * stamps, header-sector counts and the unmount-record test.
 *
 * Input: a run of 512-byte log blocks as they sit in the log (a trailing
 * partial block is offered to the decoder, which must refuse it).  Every
 * block gets xfmt_log_block_cycle; every block that starts with the record
 * magic is decoded, its header-sector count taken, and the first payload
 * block after those headers (when the input holds it) tested for an
 * unmount record.
 *
 * Invariants checked beyond "no crash": a record never claims fewer than
 * one or more than XLOG_MAX_RECORD_BYTES / XLOG_HEADER_CYCLE_SIZE header
 * sectors; the cycle of a header block is its h_cycle field.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/endian.h"
#include "formats/log.h"
#include "tests/fuzz/harness.h"

#define BB 512u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nblocks = size / BB, tail = size % BB;
	uint8_t *buf;

	if (size > 256 * BB)
		return 0;
	buf = fz_dup(data, size);
	for (size_t i = 0; i < nblocks; i++) {
		const uint8_t *bb = buf + i * BB;
		struct xfmt_log_rec r;
		uint32_t cycle = xfmt_log_block_cycle(bb), hdrs;

		fz_blackhole += cycle;
		fz_sweep_fields(xfmt_log_rec_fields, bb, BB);
		if (xfmt_log_rec_decode(bb, BB, &r) != 0)
			fz_fail("log record decode refused a whole block", i, 0);
		if (r.magicno != XLOG_HEADER_MAGIC)
			continue;
		if (cycle != r.cycle)
			fz_fail("header block cycle is not h_cycle", cycle, r.cycle);
		hdrs = xfmt_log_rec_hdr_blocks(&r);
		if (hdrs < 1 || hdrs > XLOG_MAX_RECORD_BYTES / XLOG_HEADER_CYCLE_SIZE)
			fz_fail("record header sector count out of range", hdrs, r.size);
		if (i + hdrs < nblocks)
			fz_blackhole += xfmt_log_payload_is_unmount(bb, buf + (i + hdrs) * BB);
		fz_blackhole += r.len + r.num_logops + r.prev_block;
	}
	if (tail) {
		/* The partial block, in an allocation of exactly its size. */
		uint8_t *part = fz_dup(data + nblocks * BB, tail);
		struct xfmt_log_rec r;

		if (xfmt_log_rec_decode(part, tail, &r) == 0)
			fz_fail("log record decoded from a partial block", tail, 0);
		fz_sweep_fields(xfmt_log_rec_fields, part, tail);
		if (tail >= 4)
			fz_blackhole += xfmt_get_be32(part);
		free(part);
	}
	free(buf);
	return 0;
}
