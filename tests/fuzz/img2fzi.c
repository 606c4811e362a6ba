/*
 * img2fzi.c - convert between raw images and the compact container that
 * fuzz_image reads (tests/fuzz/sparse_image.h).
 *
 *   img2fzi pack RAW OUT     write the non-zero bytes of RAW as a container
 *   img2fzi trim IN OUT [KEEP]  copy IN without its trailing zero bytes,
 *                            keeping at least KEEP bytes (seeds for targets
 *                            that zero-pad their payload after a header)
 *   img2fzi unpack IN OUT    write the image a container (or raw input)
 *                            describes, as a sparse file, e.g. to triage a
 *                            fuzz_image crash with `xfsrecon check OUT`
 *
 * pack works one 512-byte sector at a time: runs of non-zero bytes (merged
 * across gaps shorter than a record header) become literal records, runs of
 * 16 or more equal bytes inside them become fill records.  It is a test
 * tool: it exits 1 on any error with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/endian.h"
#include "tests/fuzz/sparse_image.h"

#define SECT 512u
#define GAP  12u   /* zero bytes that end a run: more than a record costs */
#define FILL 16u   /* equal bytes worth a fill record */

static void die(const char *what, const char *path)
{
	fprintf(stderr, "img2fzi: %s: %s: %s\n", path, what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void put_rec(FILE *out, uint32_t sector, uint16_t skip, uint16_t word,
		    const uint8_t *bytes, size_t n)
{
	uint8_t h[FZI_REC_LEN];

	xfmt_put_be32(h, sector);
	xfmt_put_be16(h + 4, skip);
	xfmt_put_be16(h + 6, word);
	fwrite(h, 1, sizeof(h), out);
	fwrite(bytes, 1, n, out);
}

/* Emit the records for the bytes [a, b) of sector s. */
static void pack_run(FILE *out, uint32_t sector, const uint8_t *s, unsigned a, unsigned b)
{
	unsigned lit = a, k = a;

	while (k < b) {
		unsigned r = 1;

		while (k + r < b && s[k + r] == s[k])
			r++;
		if (r >= FILL) {
			if (k > lit)
				put_rec(out, sector, (uint16_t)lit, (uint16_t)(k - lit), s + lit, k - lit);
			put_rec(out, sector, (uint16_t)k, (uint16_t)(FZI_FILL_BIT | r), s + k, 1);
			lit = k + r;
		}
		k += r;
	}
	if (b > lit)
		put_rec(out, sector, (uint16_t)lit, (uint16_t)(b - lit), s + lit, b - lit);
}

static void pack_sector(FILE *out, uint32_t sector, const uint8_t *s)
{
	unsigned i = 0;

	while (i < SECT) {
		unsigned start, last;

		while (i < SECT && s[i] == 0)
			i++;
		if (i == SECT)
			break;
		start = last = i;
		while (i < SECT && i - last <= GAP) {
			if (s[i])
				last = i;
			i++;
		}
		pack_run(out, sector, s, start, last + 1);
		i = last + 1;
	}
}

static int pack(const char *in, const char *outp)
{
	static uint8_t chunk[1u << 20];
	int fd = open(in, O_RDONLY);
	struct stat st;
	FILE *out;
	uint64_t off = 0;
	uint8_t h[FZI_HDR_LEN];

	if (fd < 0 || fstat(fd, &st) != 0)
		die("cannot open", in);
	if ((uint64_t)st.st_size > (uint64_t)FZI_MAX_KIB << 10 || st.st_size % SECT)
		die("image too big or not whole sectors", in);
	out = fopen(outp, "wb");
	if (!out)
		die("cannot create", outp);
	memcpy(h, FZI_MAGIC, 4);
	xfmt_put_be32(h + 4, (uint32_t)((uint64_t)(st.st_size + 1023) >> 10));
	fwrite(h, 1, sizeof(h), out);
	while (off < (uint64_t)st.st_size) {
		ssize_t n = pread(fd, chunk, sizeof(chunk), (off_t)off);

		if (n <= 0 || n % SECT)
			die("short read", in);
		for (ssize_t s = 0; s < n; s += SECT)
			pack_sector(out, (uint32_t)((off + (uint64_t)s) / SECT), chunk + s);
		off += (uint64_t)n;
	}
	close(fd);
	if (fclose(out) != 0)
		die("cannot write", outp);
	return 0;
}

static uint8_t *slurp(const char *in, size_t *lenp)
{
	FILE *f = fopen(in, "rb");
	uint8_t *buf;
	long len;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read", in);
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		die("cannot read", in);
	fclose(f);
	*lenp = (size_t)len;
	return buf;
}

static int trim(const char *in, const char *outp, size_t keep)
{
	size_t len;
	uint8_t *buf = slurp(in, &len);
	FILE *out = fopen(outp, "wb");

	if (!out)
		die("cannot create", outp);
	while (len > keep && buf[len - 1] == 0)
		len--;
	if (fwrite(buf, 1, len, out) != len || fclose(out) != 0)
		die("cannot write", outp);
	free(buf);
	return 0;
}

static int emit_fd(void *arg, uint64_t off, const uint8_t *src, uint8_t fill, size_t len)
{
	int fd = *(int *)arg;
	uint8_t buf[4096];

	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		if (!src)
			memset(buf, fill, n);
		if (pwrite(fd, src ? src : buf, n, (off_t)off) != (ssize_t)n)
			return -1;
		if (src)
			src += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int unpack(const char *in, const char *outp)
{
	size_t len;
	uint8_t *buf = slurp(in, &len);
	uint64_t size;
	int fd;

	fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("cannot create", outp);
	if (fzi_parse(buf, len, &size, emit_fd, &fd) != 0)
		die("cannot write", outp);
	if (ftruncate(fd, (off_t)size) != 0 || close(fd) != 0)
		die("cannot write", outp);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "pack"))
		return pack(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "unpack"))
		return unpack(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "trim"))
		return trim(argv[2], argv[3], argc == 5 ? strtoul(argv[4], NULL, 0) : 0);
	fprintf(stderr, "usage: img2fzi pack RAW OUT | unpack IN OUT | trim IN OUT [KEEP]\n");
	return 2;
}
