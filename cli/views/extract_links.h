/*
 * extract_links.h - hard links kept as hard links by extract: the first
 * name of an inode with several links is extracted as usual and remembered
 * by a descriptor of the host file; every later name is linked to it.
 *
 * The descriptor, not a host path, is what is linked: a path inside the
 * destination could be swapped for a symlink by someone who can write
 * there, and linkat would then reach outside.  Descriptors are bounded
 * (max_fds, below the process's limit): past it a name is extracted as a
 * copy, and counted.
 */
#ifndef XC_EXTRACT_LINKS_H
#define XC_EXTRACT_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xc_links;

/* A table for at most max_fds inodes; NULL when memory runs out. */
struct xc_links *xc_links_new(size_t max_fds);

/*
 * Link name (in directory dirfd) to the host file made for inode ino.
 * Returns 1 when linked (*sha: the digest noted with it, or NULL), 0 when ino has
 * no host file yet, -1 when linking failed (errno set; extract a copy).
 */
int xc_links_make(struct xc_links *l, uint64_t ino, int dirfd, const char *name,
		  const uint8_t **sha);

/*
 * Remember fd (duplicated; the caller keeps its own) as inode ino's host
 * file, with the manifest's sha (NULL: none).  Returns 0, or -1
 * when the table is full or a descriptor cannot be had (later names are
 * then copies).
 */
int xc_links_note(struct xc_links *l, uint64_t ino, int fd, const uint8_t *sha);

void xc_links_free(struct xc_links **l);

#endif /* XC_EXTRACT_LINKS_H */
