/*
 * extract_manifest.c - the manifest file, written as extract goes (memory
 * does not grow with the tree).
 */
#include "cli/views/extract_manifest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/errors.h"
#include "analyzer/io/outpath.h"
#include "analyzer/io/sha256.h"

struct xc_manifest {
	FILE *f;
	char *path;
	bool  failed;
};

int xc_manifest_open(struct xc_manifest **mp, const char *path, const char *image_path,
		     int image_fd, char *err, size_t errlen)
{
	struct ximg_out_opts oo = {
		.what = "the manifest", .in_fd = image_fd, .in_fd_set = image_fd >= 0,
		.stream_ok = true, .mode = 0644,
	};
	struct xc_manifest *m;
	bool created, blk;
	int fd, rc;

	oo.in_path[0] = image_path;
	rc = ximg_out_open(path, &oo, &fd, &created, &blk, err, errlen);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (m)
		m->path = strdup(path);
	if (!m || !m->path || !(m->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: out of memory", path);
		close(fd);
		if (created)
			unlink(path);
		if (m)
			free(m->path);
		free(m);
		return XERR_NOMEM;
	}
	fprintf(m->f, "path\tinode\ttype\tsize\tsha256\tstate\n");
	*mp = m;
	return 0;
}

void xc_manifest_line(struct xc_manifest *m, const char *path, uint64_t ino, const char *type,
		      uint64_t size, const uint8_t *sha, const char *state)
{
	char hex[2 * XSHA256_DIGEST_LEN + 1];

	if (!m)
		return;
	if (sha)
		xsha256_hex(sha, hex);
	if (fprintf(m->f, "%s\t%" PRIu64 "\t%s\t%" PRIu64 "\t%s\t%s\n", path, ino, type, size,
		    sha ? hex : "-", state) < 0)
		m->failed = true;
}

int xc_manifest_close(struct xc_manifest **mp, char *err, size_t errlen)
{
	struct xc_manifest *m = *mp;
	int rc = 0;

	if (!m)
		return 0;
	if (fclose(m->f) != 0 || m->failed) {
		snprintf(err, errlen, "%s: writing the manifest: %s", m->path, strerror(errno));
		rc = XERR_IO;
	}
	free(m->path);
	free(m);
	*mp = NULL;
	return rc;
}
