/*
 * logrec.c - test helper: look at, or rewrite, one record of an XFS log in
 * a raw image, keeping its CRC valid, so the damaged-log tests can make a
 * record that is wrong in one way only.
 *
 *   logrec IMAGE LOGSTART LOGLEN BLOCK crc
 *       print "lsn CYCLE/BLOCK crc STORED computed COMPUTED" for the record
 *       whose header is at log block BLOCK
 *   logrec IMAGE LOGSTART LOGLEN BLOCK lsn CYCLE LBLOCK
 *       set the record's h_lsn to CYCLE/LBLOCK and store the CRC the
 *       changed record gives (IMAGE is modified in place: a scratch copy)
 *
 * LOGSTART is the log's first 512-byte sector in IMAGE and LOGLEN its
 * length in 512-byte blocks (as xfs_logprint prints them: "daddr" and
 * "length"); a record that wraps past the end of the log is read and
 * written in two pieces.  Exit 0, 1 on an error (unreadable image, no valid
 * record header at BLOCK), 16 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/endian.h"
#include "formats/log.h"

#define BB 512u
#define OFF_H_LSN 16u   /* h_lsn in the record header (be64) */

static int usage(void)
{
	fprintf(stderr, "usage: logrec IMAGE LOGSTART LOGLEN BLOCK crc\n"
			"       logrec IMAGE LOGSTART LOGLEN BLOCK lsn CYCLE LBLOCK\n");
	return 16;
}

static int number(const char *s, uint64_t max, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !end || *end || end == s || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Read (write) n log blocks from log block bb on, wrapping at the end. */
static int log_io(int fd, uint64_t start, uint64_t nbb, uint64_t bb, uint64_t n, uint8_t *buf,
		  int write)
{
	while (n) {
		uint64_t run = nbb - bb < n ? nbb - bb : n;
		off_t off = (off_t)((start + bb) * BB);
		ssize_t got = write ? pwrite(fd, buf, (size_t)(run * BB), off)
				    : pread(fd, buf, (size_t)(run * BB), off);

		if (got < 0 || (uint64_t)got != run * BB)
			return -1;
		buf += run * BB;
		n -= run;
		bb = (bb + run) % nbb;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t start, nbb, block, cycle = 0, lblock = 0, total;
	struct xfmt_log_rec r;
	uint8_t hdr[BB], *rec = NULL;
	uint32_t crc;
	int fd = -1, set, rc = 1;

	if (argc < 6)
		return usage();
	set = !strcmp(argv[5], "lsn");
	if ((!set && (strcmp(argv[5], "crc") || argc != 6)) || (set && argc != 8))
		return usage();
	if (number(argv[2], UINT64_MAX / BB, &start) || number(argv[3], UINT32_MAX, &nbb) ||
	    nbb < 2 || number(argv[4], nbb - 1, &block) || start > UINT64_MAX / BB - nbb)
		return usage();
	if (set && (number(argv[6], UINT32_MAX, &cycle) || number(argv[7], UINT32_MAX, &lblock)))
		return usage();

	fd = open(argv[1], set ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "logrec: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (log_io(fd, start, nbb, block, 1, hdr, 0) || xfmt_log_rec_decode(hdr, BB, &r) ||
	    xfmt_log_rec_check(&r) != XLOG_REC_OK) {
		fprintf(stderr, "logrec: no valid record header at log block %" PRIu64 "\n", block);
		goto out;
	}
	total = xfmt_log_rec_total_blocks(&r);
	if (total > nbb || !(rec = malloc((size_t)(total * BB))) ||
	    log_io(fd, start, nbb, block, total, rec, 0)) {
		fprintf(stderr, "logrec: cannot read the record (%" PRIu64 " blocks)\n", total);
		goto out;
	}
	if (set) {
		xfmt_put_be64(rec + OFF_H_LSN, (cycle << 32) | lblock);
		if (xfmt_log_rec_crc(rec, (size_t)(total * BB), &crc) != 0)
			goto bad_crc;
		xfmt_put_le32(rec + XLOG_CRC_OFF, crc);
		/* Only the header sector changed. */
		if (log_io(fd, start, nbb, block, 1, rec, 1) || fsync(fd)) {
			fprintf(stderr, "logrec: cannot write the record header\n");
			goto out;
		}
		xfmt_log_rec_decode(rec, BB, &r);
	} else if (xfmt_log_rec_crc(rec, (size_t)(total * BB), &crc) != 0) {
		goto bad_crc;
	}
	printf("lsn %" PRIu32 "/%" PRIu32 " crc 0x%08" PRIx32 " computed 0x%08" PRIx32 "\n",
	       (uint32_t)(r.lsn >> 32), (uint32_t)r.lsn, r.crc, crc);
	rc = 0;
	goto out;
bad_crc:
	fprintf(stderr, "logrec: the record's CRC cannot be computed\n");
out:
	free(rec);
	if (fd >= 0)
		close(fd);
	return rc;
}
