/*
 * imgcat.c - test helper: open an image through ximg_open, as the analyzer
 * does, and show what it reads.
 *
 *   imgcat [--partition N | --offset BYTES] [--cache] MODE IMAGE
 *
 * MODE is one of
 *   --info          "kind K" and "size N" of the opened image
 *   --sha256        SHA-256 of every byte of the opened image (ximg_sha256)
 *   --cat OFF LEN   LEN bytes at OFF, raw, to standard output
 *   --list          the partition table of the container (xpart_list)
 * --cache reads --cat and --sha256 through the block cache in 64 KiB pieces,
 * twice, and checks that the second pass is all hits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/errors.h"
#include "analyzer/io/cache.h"
#include "analyzer/io/image.h"
#include "analyzer/io/partition.h"
#include "analyzer/io/sha256.h"

#define PIECE (64u * 1024)

static int usage(void)
{
	fprintf(stderr, "usage: imgcat [--partition N | --offset BYTES] [--cache] "
		"--info|--sha256|--list|--cat OFF LEN IMAGE\n");
	return 16;
}

/* Feed [off, off+len) through the cache to the hash and/or stdout. */
static int through_cache(struct ximg *img, uint64_t off, uint64_t len, struct xsha256 *h,
			 FILE *out)
{
	struct xcache *c;
	struct xcache_stats st;
	int rc = xcache_new(img, 4u << 20, &c);

	if (rc)
		return rc;
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (uint64_t pos = off; pos < off + len && rc == 0; pos += PIECE) {
			size_t n = off + len - pos < PIECE ? (size_t)(off + len - pos) : PIECE;
			struct xbuf *b;

			rc = xcache_read(c, pos, n, &b);
			if (rc)
				break;
			if (pass == 0 && h)
				xsha256_update(h, b->data, b->len);
			if (pass == 0 && out && fwrite(b->data, 1, b->len, out) != b->len)
				rc = XERR_IO;
			xcache_release(c, &b);
		}
	}
	xcache_get_stats(c, &st);
	/* With 4 MiB of cache, a second pass over at most 4 MiB is all hits. */
	if (rc == 0 && len + (len / PIECE + 1) * 128 <= (4u << 20) && st.hits != st.misses) {
		fprintf(stderr, "imgcat: cache: %llu hits for %llu misses\n",
			(unsigned long long)st.hits, (unsigned long long)st.misses);
		rc = XERR_IO;
	}
	xcache_free(&c);
	return rc;
}

static int list(const char *path)
{
	struct ximg *img = NULL;
	struct xpart_table tab;
	struct xpart parts[64];
	char err[512], guid[37];
	int n, rc;

	if (ximg_open_raw(path, &img, err, sizeof(err)) != 0) {
		fprintf(stderr, "imgcat: %s\n", err);
		return 8;
	}
	n = xpart_list(img, &tab, parts, 64, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "imgcat: %s\n", err);
		ximg_free(&img);
		return 8;
	}
	printf("table %s sector %u anomalies 0x%x count %d\n",
	       tab.kind == XPART_GPT ? "gpt" : tab.kind == XPART_MBR ? "mbr" : "none",
	       tab.sector_size, (unsigned)tab.anomalies, n);
	for (int i = 0; i < n && i < 64; i++) {
		xpart_guid_str(parts[i].type_guid, guid);
		printf("%d start %llu length %llu flags 0x%x type %s name %s\n", parts[i].index,
		       (unsigned long long)parts[i].start, (unsigned long long)parts[i].length,
		       (unsigned)parts[i].flags,
		       parts[i].is_gpt ? guid : (snprintf(guid, sizeof(guid), "0x%02x",
							  parts[i].mbr_type), guid),
		       parts[i].name[0] ? parts[i].name : "-");
	}
	rc = 0;
	ximg_free(&img);
	return rc;
}

int main(int argc, char **argv)
{
	struct ximg_open_opts o = { 0 };
	const char *mode = NULL, *path = NULL;
	uint64_t cat_off = 0, cat_len = 0;
	int use_cache = 0, rc;
	struct ximg *img = NULL;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--partition") && i + 1 < argc) {
			o.partition = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--offset") && i + 1 < argc) {
			o.have_offset = 1;
			o.offset = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--cache")) {
			use_cache = 1;
		} else if (!strcmp(argv[i], "--cat") && i + 2 < argc) {
			mode = argv[i];
			cat_off = strtoull(argv[++i], NULL, 0);
			cat_len = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--info") || !strcmp(argv[i], "--sha256") ||
			   !strcmp(argv[i], "--list")) {
			mode = argv[i];
		} else if (argv[i][0] == '-' || path) {
			return usage();
		} else {
			path = argv[i];
		}
	}
	if (!mode || !path)
		return usage();
	if (!strcmp(mode, "--list"))
		return list(path);

	rc = ximg_open(path, &o, &img, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "imgcat: %s (%s)\n", err, xerr_str(rc));
		return rc == XERR_USAGE ? 16 : 8;
	}
	if (!strcmp(mode, "--info")) {
		printf("kind %s\nsize %llu\n", img->ops->kind, (unsigned long long)img->size);
	} else if (!strcmp(mode, "--sha256")) {
		uint8_t d[XSHA256_DIGEST_LEN];
		char hex[2 * XSHA256_DIGEST_LEN + 1];

		if (use_cache) {
			struct xsha256 h;

			xsha256_init(&h);
			rc = through_cache(img, 0, img->size, &h, NULL);
			if (rc == 0)
				xsha256_final(&h, d);
		} else {
			rc = ximg_sha256(img, d);
		}
		if (rc == 0) {
			xsha256_hex(d, hex);
			printf("%s\n", hex);
		}
	} else {
		if (use_cache) {
			rc = through_cache(img, cat_off, cat_len, NULL, stdout);
		} else {
			uint8_t *buf = malloc(PIECE);

			rc = buf ? 0 : XERR_NOMEM;
			for (uint64_t pos = cat_off; rc == 0 && pos < cat_off + cat_len; pos += PIECE) {
				size_t n = cat_off + cat_len - pos < PIECE ?
					   (size_t)(cat_off + cat_len - pos) : PIECE;

				rc = ximg_pread(img, buf, n, pos);
				if (rc == 0 && fwrite(buf, 1, n, stdout) != n)
					rc = XERR_IO;
			}
			free(buf);
		}
	}
	if (rc)
		fprintf(stderr, "imgcat: %s: %s %s\n", path, xerr_str(rc), img->errmsg);
	ximg_free(&img);
	return rc ? 8 : 0;
}
