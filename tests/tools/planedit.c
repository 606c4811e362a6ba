/*
 * planedit.c - test helper: forge a plan or undo file the way a hostile
 * editor would, with every digest made to match, so tests can check that
 * what the file asks is refused on its merits and not for a broken digest.
 *
 *   planedit IN OUT OFFSET BEFORE_FILE BYTE
 *       load IN (plan or undo file), append one write of as many bytes as
 *       BEFORE_FILE holds at filesystem byte OFFSET: its "before" digest is
 *       BEFORE_FILE's (the bytes the target holds there now), its bytes are
 *       BYTE (a number 0-255) repeated; the payload element, the header's
 *       index digest and lengths are recomputed; write OUT (replaced).
 *
 * OFFSET must lie past the last write of IN.  Exit 0, 1 on an error, 16 on
 * usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/io/sha256.h"
#include "reconstruct/plan_file.h"

static int die(const char *what)
{
	fprintf(stderr, "planedit: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct xr_planfile pf;
	uint8_t before[32], after[32], psha[32], *bytes, *payload;
	char err[512], bh[65], ah[65], ph[65], *index, *p, *q, *elem;
	uint64_t off, plen;
	unsigned long fill;
	size_t n, ilen, cap;
	FILE *f;
	int rc;

	if (argc != 6)
		return fprintf(stderr, "usage: planedit IN OUT OFFSET BEFORE_FILE BYTE\n"), 16;
	off = strtoull(argv[3], NULL, 0);
	fill = strtoul(argv[5], NULL, 0);
	if (xr_pf_load_review(argv[1], 0, &pf, err, sizeof(err)))
		return die(err);
	f = fopen(argv[4], "rb");
	if (!f)
		return die("cannot open BEFORE_FILE");
	bytes = malloc(1 << 20);
	n = bytes ? fread(bytes, 1, 1 << 20, f) : 0;
	fclose(f);
	if (n == 0)
		return die("BEFORE_FILE is empty");
	xsha256(bytes, n, before);
	memset(bytes, (int)(fill & 0xff), n);
	xsha256(bytes, n, after);
	xsha256_hex(before, bh);
	xsha256_hex(after, ah);

	plen = pf.payload_len + n;
	payload = malloc((size_t)plen);
	if (!payload)
		return die("out of memory");
	memcpy(payload, pf.payload, (size_t)pf.payload_len);
	memcpy(payload + pf.payload_len, bytes, n);
	xsha256(payload, (size_t)plen, psha);
	xsha256_hex(psha, ph);

	/* The new index: the payload element rewritten, the change added
	 * before </changes>. */
	cap = pf.index_len + 1024;
	index = malloc(cap);
	elem = malloc(512);
	if (!index || !elem)
		return die("out of memory");
	p = strstr(pf.index, "<payload ");
	q = p ? strstr(p, "/>") : NULL;
	if (!q || !strstr(q, "</changes>"))
		return die("IN's index has no payload element or no changes element after it");
	ilen = (size_t)(p - pf.index);
	memcpy(index, pf.index, ilen);
	ilen += (size_t)snprintf(index + ilen, cap - ilen, "<payload length=\"%" PRIu64
				 "\" sha256=\"%s\"/>", plen, ph);
	p = q + 2;
	q = strstr(p, "</changes>");
	memcpy(index + ilen, p, (size_t)(q - p));
	ilen += (size_t)(q - p);
	snprintf(elem, 512, "<change offset=\"%" PRIu64 "\" length=\"%zu\" structure=\"sb\" "
		 "before=\"%s\" after=\"%s\"/>", off, n, bh, ah);
	ilen += (size_t)snprintf(index + ilen, cap - ilen, "%s%s", elem, q);

	rc = xr_pf_save(argv[2], pf.kind, (const uint8_t *)index, ilen, payload, plen, true, NULL,
			NULL, err, sizeof(err));
	if (rc)
		return die(err);
	xr_pf_release(&pf);
	free(index);
	free(elem);
	free(payload);
	free(bytes);
	return 0;
}
