/*
 * mkdeeptree.c - builds a deep directory chain under DIR for the tests of
 * the tree walk's memory: DEPTH levels, WIDTH sibling directories per
 * level with names of NAMELEN bytes, the chain going on in the first
 * sibling by name (the one a depth-first walk in name order enters first,
 * so the others wait on its stack at every level).
 *
 * The paths are far longer than PATH_MAX, so every directory is made with
 * mkdirat and entered with openat relative to its parent's descriptor.
 *
 * Usage: mkdeeptree DIR DEPTH WIDTH NAMELEN
 * Prints the number of directories made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long arg(const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "mkdeeptree: %s: want a number in %lu..%lu\n", s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
	unsigned long depth, width, namelen, made = 0;
	char name[256];
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: mkdeeptree DIR DEPTH WIDTH NAMELEN\n");
		return 2;
	}
	depth = arg(argv[2], 1, 100000);
	width = arg(argv[3], 1, 26);
	namelen = arg(argv[4], 1, 255);
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mkdeeptree: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (unsigned long level = 0; level < depth; level++) {
		int next;

		for (unsigned long j = 0; j < width; j++) {
			/* Distinct by the first byte; the rest pads to namelen. */
			memset(name, 'x', namelen);
			name[0] = letters[j];
			name[namelen] = '\0';
			if (mkdirat(fd, name, 0755) != 0) {
				fprintf(stderr, "mkdeeptree: level %lu: mkdirat: %s\n", level,
					strerror(errno));
				return 1;
			}
			made++;
		}
		name[0] = letters[0];
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			fprintf(stderr, "mkdeeptree: level %lu: openat: %s\n", level, strerror(errno));
			return 1;
		}
		close(fd);
		fd = next;
	}
	close(fd);
	printf("%lu\n", made);
	return 0;
}
