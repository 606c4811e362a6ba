/*
 * mkseekable.c - test helper: compress a file into the zstd seekable format
 * (zstd contrib/seekable_format, version 0.1.0) with libzstd.
 *
 *   mkseekable [-f FRAME_BYTES] [-l LEVEL] [-c] [-n] IN OUT
 *
 * IN is cut into frames of FRAME_BYTES decompressed bytes (the last may be
 * shorter), each compressed as an independent zstd frame, followed by the
 * seek table skippable frame.  -c stores per-frame checksums; they are taken
 * from each frame's own content checksum (which zstd defines as the low 32
 * bits of XXH64 of the frame content, exactly what the seek table wants), so
 * the checksums come from libzstd, not from the code under test.  -n writes
 * the frames without a seek table (a plain multi-frame zstd file).
 *
 * -L COUNT makes a lying table: after the real frames come COUNT skippable
 * frames of 16 bytes (valid zstd: they decompress to nothing), whose entries
 * claim 1 GiB of content each.  Every compressed size is true, so the file
 * adds up; only the decompressed sizes lie.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static int usage(void)
{
	fprintf(stderr, "usage: mkseekable [-f FRAME_BYTES] [-l LEVEL] [-c] [-n] [-L COUNT] IN OUT\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long frame = 256 * 1024, lies = 0;
	int level = 3, checksums = 0, no_table = 0, opt, rc = 1;
	FILE *in = NULL, *out = NULL;
	uint8_t *ibuf = NULL, *cbuf = NULL, *entries = NULL, hdr[8], foot[9];
	size_t cap, nentries = 0, ecap = 0, esz;
	ZSTD_CCtx *cctx = NULL;

	while ((opt = getopt(argc, argv, "f:l:cnL:")) != -1) {
		switch (opt) {
		case 'f': frame = strtoul(optarg, NULL, 0); break;
		case 'l': level = atoi(optarg); break;
		case 'c': checksums = 1; break;
		case 'n': no_table = 1; break;
		case 'L': lies = strtoul(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (argc - optind != 2 || frame == 0 || frame > 0x40000000ul || lies > 0x8000000ul)
		return usage();
	esz = checksums ? 12 : 8;
	in = fopen(argv[optind], "rb");
	out = fopen(argv[optind + 1], "wb");
	if (!in || !out) {
		fprintf(stderr, "mkseekable: %s\n", strerror(errno));
		goto done;
	}
	cap = ZSTD_compressBound(frame);
	ibuf = malloc(frame);
	cbuf = malloc(cap);
	cctx = ZSTD_createCCtx();
	if (!ibuf || !cbuf || !cctx)
		goto done;
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksums);
	for (;;) {
		size_t n = fread(ibuf, 1, frame, in), c;

		if (n == 0)
			break;
		c = ZSTD_compress2(cctx, cbuf, cap, ibuf, n);
		if (ZSTD_isError(c) || c > UINT32_MAX) {
			fprintf(stderr, "mkseekable: compression failed\n");
			goto done;
		}
		if (fwrite(cbuf, 1, c, out) != c)
			goto done;
		if (nentries == ecap) {
			uint8_t *ne;

			ecap = ecap ? ecap * 2 : 256;
			ne = realloc(entries, ecap * esz);
			if (!ne)
				goto done;
			entries = ne;
		}
		put_le32(entries + nentries * esz, (uint32_t)c);
		put_le32(entries + nentries * esz + 4, (uint32_t)n);
		if (checksums)  /* the frame ends with its 4-byte content checksum */
			memcpy(entries + nentries * esz + 8, cbuf + c - 4, 4);
		nentries++;
		if (n < frame)
			break;
	}
	if (ferror(in))
		goto done;
	for (unsigned long k = 0; k < lies; k++) {
		uint8_t skip[16] = { 0 };

		put_le32(skip, 0x184D2A50u);
		put_le32(skip + 4, 8);
		if (fwrite(skip, 1, sizeof(skip), out) != sizeof(skip))
			goto done;
		if (nentries == ecap) {
			uint8_t *ne;

			ecap = ecap ? ecap * 2 : 256;
			ne = realloc(entries, ecap * esz);
			if (!ne)
				goto done;
			entries = ne;
		}
		memset(entries + nentries * esz, 0, esz);
		put_le32(entries + nentries * esz, sizeof(skip));
		put_le32(entries + nentries * esz + 4, 0x40000000u);
		nentries++;
	}
	if (!no_table) {
		put_le32(hdr, 0x184D2A5Eu);
		put_le32(hdr + 4, (uint32_t)(nentries * esz + 9));
		put_le32(foot, (uint32_t)nentries);
		foot[4] = checksums ? 0x80 : 0;
		put_le32(foot + 5, 0x8F92EAB1u);
		if (fwrite(hdr, 1, 8, out) != 8 ||
		    (nentries && fwrite(entries, esz, nentries, out) != nentries) ||
		    fwrite(foot, 1, 9, out) != 9)
			goto done;
	}
	rc = 0;
done:
	if (out && fclose(out) != 0)
		rc = 1;
	if (in)
		fclose(in);
	ZSTD_freeCCtx(cctx);
	free(ibuf);
	free(cbuf);
	free(entries);
	if (rc)
		fprintf(stderr, "mkseekable: failed\n");
	return rc;
}
