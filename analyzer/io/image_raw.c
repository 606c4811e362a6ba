/*
 * image_raw.c - raw image files and block devices, opened O_RDONLY.
 *
 * The size of a regular file comes from fstat, that of a block device from
 * BLKGETSIZE64.  Reads retry on EINTR and short reads; an EIO is reported with
 * the failing range so that the caller can record an unreadable region and go on.
 */
#include "analyzer/io/image.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "analyzer/errors.h"

struct raw_priv {
	int fd;
};

static int raw_pread(struct ximg *img, void *buf, size_t len, uint64_t off)
{
	struct raw_priv *r = img->priv;
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(r->fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(img->errmsg, sizeof(img->errmsg),
				 "read of %zu bytes at byte %llu failed: %s", len,
				 (unsigned long long)off, strerror(errno));
			return XERR_IO;
		}
		if (n == 0) {
			snprintf(img->errmsg, sizeof(img->errmsg),
				 "unexpected end of file at byte %llu", (unsigned long long)off);
			return XERR_RANGE;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static void raw_release(struct ximg *img)
{
	struct raw_priv *r = img->priv;

	if (r && r->fd >= 0)
		close(r->fd);
	free(r);
}

static const struct ximg_ops raw_ops = { "raw", raw_pread, raw_release };
static const struct ximg_ops blockdev_ops = { "blockdev", raw_pread, raw_release };

int ximg_raw_fd(const struct ximg *img)
{
	const struct raw_priv *r;

	if (!img || (img->ops != &raw_ops && img->ops != &blockdev_ops))
		return -1;
	r = img->priv;
	return r ? r->fd : -1;
}

int ximg_direct_fd(const struct ximg *img, uint64_t *base)
{
	const struct raw_priv *r;

	*base = 0;
	if (img && img->ops != &raw_ops && img->ops != &blockdev_ops)
		img = ximg_slice_parent(img, base);
	if (!img || (img->ops != &raw_ops && img->ops != &blockdev_ops))
		return -1;
	r = img->priv;
	return r ? r->fd : -1;
}

bool ximg_is_hole(const struct ximg *img, uint64_t off, size_t len)
{
#ifdef SEEK_DATA
	const struct ximg *base_img = img;
	uint64_t base = 0;
	const struct raw_priv *r;
	off_t data;

	if (!img || !len || off > img->size || img->size - off < len)
		return false;
	if (img->ops != &raw_ops) {
		base_img = ximg_slice_parent(img, &base);
		if (!base_img || base_img->ops != &raw_ops)
			return false;
	}
	r = base_img->priv;
	if (!r || r->fd < 0 || base > UINT64_MAX - off - len)
		return false;
	data = lseek(r->fd, (off_t)(base + off), SEEK_DATA);
	if (data < 0)
		return errno == ENXIO;   /* no data from here to the end */
	return (uint64_t)data >= base + off + len;
#else
	(void)img;
	(void)off;
	(void)len;
	return false;
#endif
}

int ximg_open_raw(const char *path, struct ximg **out, char *err, size_t errlen)
{
	struct raw_priv *r;
	struct ximg *img;
	struct stat st;
	uint64_t size;
	const struct ximg_ops *ops = &raw_ops;
	int fd;

	/* O_RDONLY, always: the evidence is never opened for writing. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return XERR_IO;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return XERR_IO;
	}
	if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
#ifdef BLKGETSIZE64
		if (ioctl(fd, BLKGETSIZE64, &size) != 0) {
			snprintf(err, errlen, "%s: cannot get device size: %s", path, strerror(errno));
			close(fd);
			return XERR_IO;
		}
		ops = &blockdev_ops;
#else
		snprintf(err, errlen, "%s: block devices are not supported here", path);
		close(fd);
		return XERR_UNSUPPORTED;
#endif
	} else {
		snprintf(err, errlen, "%s: not a regular file or block device", path);
		close(fd);
		return XERR_USAGE;
	}

	r = calloc(1, sizeof(*r));
	img = r ? ximg_alloc(ops, size, path) : NULL;
	if (!img) {
		free(r);
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return XERR_NOMEM;
	}
	r->fd = fd;
	img->priv = r;
	*out = img;
	return 0;
}
