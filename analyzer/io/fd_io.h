/*
 * fd_io.h - whole reads and writes on a file descriptor at an offset,
 * retried across short transfers and EINTR: the plan's spill file, the
 * stored plan and undo files, apply's target and the read-ahead thread
 * (prefetch.c) all need exactly this.
 */
#ifndef XA_FD_IO_H
#define XA_FD_IO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Read len bytes at off into p: 0, or -1 on an error or end of file. */
static inline int xio_pread_full(int fd, uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write len bytes from p at off: 0, or -1. */
static inline int xio_pwrite_full(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

#endif /* XA_FD_IO_H */
