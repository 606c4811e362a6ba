/*
 * extract_links.c - the inode-to-host-file table behind hard links.
 *
 * Open addressing on the inode number; the table never grows past twice
 * max_fds slots, so a hostile image with millions of linked inodes costs
 * a bounded table and bounded descriptors, and the rest become copies.
 */
#include "cli/views/extract_links.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/io/sha256.h"

struct link_slot {
	uint64_t key;     /* ino + 1; 0: empty */
	int      fd;
	bool     have_sha;
	uint8_t  sha[XSHA256_DIGEST_LEN];
};

struct xc_links {
	struct link_slot *slots;
	size_t            cap, used, max;
};

struct xc_links *xc_links_new(size_t max_fds)
{
	struct xc_links *l = calloc(1, sizeof(*l));
	size_t cap = 16;

	if (!l)
		return NULL;
	while (cap < 2 * max_fds)
		cap *= 2;
	l->slots = calloc(cap, sizeof(*l->slots));
	if (!l->slots) {
		free(l);
		return NULL;
	}
	l->cap = cap;
	l->max = max_fds;
	return l;
}

static struct link_slot *find(struct xc_links *l, uint64_t ino, bool *found)
{
	uint64_t key = ino + 1;
	size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull >> 17) & (l->cap - 1);

	while (l->slots[i].key && l->slots[i].key != key)
		i = (i + 1) & (l->cap - 1);
	*found = l->slots[i].key == key;
	return &l->slots[i];
}

int xc_links_make(struct xc_links *l, uint64_t ino, int dirfd, const char *name,
		  const uint8_t **sha)
{
	char proc[64];
	bool found;
	struct link_slot *s;

	if (!l || ino == UINT64_MAX)
		return 0;
	s = find(l, ino, &found);
	if (!found)
		return 0;
	/* Linking a descriptor: AT_EMPTY_PATH where the kernel lets us, else
	 * through its /proc name (which names the file, not a path). */
	if (linkat(s->fd, "", dirfd, name, AT_EMPTY_PATH) != 0) {
		if (errno == EEXIST)
			return -1;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->fd);
		if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) != 0)
			return -1;
	}
	*sha = s->have_sha ? s->sha : NULL;
	return 1;
}

int xc_links_note(struct xc_links *l, uint64_t ino, int fd, const uint8_t *sha)
{
	struct link_slot *s;
	bool found;
	int nfd;

	if (!l || ino == UINT64_MAX || l->used >= l->max)
		return -1;
	s = find(l, ino, &found);
	if (found)
		return 0;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -1;
	s->key = ino + 1;
	s->fd = nfd;
	s->have_sha = sha != NULL;
	if (sha)
		memcpy(s->sha, sha, XSHA256_DIGEST_LEN);
	l->used++;
	return 0;
}

void xc_links_free(struct xc_links **lp)
{
	struct xc_links *l = *lp;

	if (!l)
		return;
	for (size_t i = 0; i < l->cap; i++)
		if (l->slots[i].key)
			close(l->slots[i].fd);
	free(l->slots);
	free(l);
	*lp = NULL;
}
