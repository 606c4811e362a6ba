/*
 * outpath.c - may this path be written, and open it (see outpath.h).
 *
 * Why a closure of objects rather than a list of special cases: each alias
 * the tool must see is one step from a file or device to what stores it (a
 * file to the block device of its filesystem, a partition to its disk, a
 * device-mapper or md device to the devices below it, a loop device to its
 * backing file), and hostile setups stack them (a file in a filesystem on a
 * loop device over a file on a partition).  Writing OUT touches OUT and
 * everything below it; reading the input depends on the input and
 * everything below it.  OUT is refused when either lies in the other's
 * chain.  Two files on one filesystem share the device below them without
 * sharing a byte, so only the file itself (not its siblings) is in a chain
 * above its device: that is why the chain only goes down.
 */
#include "analyzer/io/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/loop.h>
#endif

#include "analyzer/errors.h"

/* Bounds on the walk: real stacks are a few levels deep; a hostile or odd
 * sysfs (a cycle through holders) must not make it unbounded. */
#define CHAIN_MAX  64
#define DEPTH_MAX  8

struct node {
	bool  blk;   /* a block device (dev is its rdev) or a file (dev, ino) */
	dev_t dev;
	ino_t ino;
};

struct chain {
	struct node n[CHAIN_MAX];
	size_t      len;
};

static struct node node_of(const struct stat *st)
{
	struct node n = { false, st->st_dev, st->st_ino };

	if (S_ISBLK(st->st_mode)) {
		n.blk = true;
		n.dev = st->st_rdev;
		n.ino = 0;
	}
	return n;
}

static bool same_node(const struct node *a, const struct node *b)
{
	return a->blk == b->blk && a->dev == b->dev && (a->blk || a->ino == b->ino);
}

static bool chain_has(const struct chain *c, const struct node *n)
{
	for (size_t i = 0; i < c->len; i++)
		if (same_node(&c->n[i], n))
			return true;
	return false;
}

/* Read a small sysfs file (NUL-terminated, newline dropped); 0 or -1. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/* The device number a sysfs "dev" file ("MAJ:MIN") names; 0 or -1. */
static int read_devno(const char *path, dev_t *out)
{
	char buf[64];
	unsigned maj, min;
	char tail;

	if (read_small(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u%c", &maj, &min, &tail) != 2)
		return -1;
	*out = makedev(maj, min);
	return 0;
}

/* Open the /dev node of block device rdev (its name from sysfs), checked to
 * be that device; -1 when there is none. */
static int open_devnode(dev_t rdev)
{
	char path[128], buf[512], *name;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major(rdev), minor(rdev));
	if (read_small(path, buf, sizeof(buf)))
		return -1;
	name = strstr(buf, "DEVNAME=");
	if (!name)
		return -1;
	name += 8;
	name[strcspn(name, "\n")] = '\0';
	if (!*name || name[0] == '/' || strstr(name, "..") || strlen(name) > 64)
		return -1;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != rdev) {
		close(fd);
		return -1;
	}
	return fd;
}

bool ximg_loop_backing(dev_t rdev, dev_t *dev, ino_t *ino)
{
#if defined(__linux__) && defined(LOOP_GET_STATUS64)
	struct loop_info64 li;
	char path[128];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop", major(rdev), minor(rdev));
	if (access(path, F_OK) != 0)
		return false;
	fd = open_devnode(rdev);
	if (fd < 0)
		return false;
	memset(&li, 0, sizeof(li));
	ok = ioctl(fd, LOOP_GET_STATUS64, &li) == 0;
	close(fd);
	if (!ok)
		return false;
	/* The kernel encodes lo_device as new_encode_dev does. */
	*dev = makedev((unsigned)((li.lo_device & 0xfff00u) >> 8),
		       (unsigned)((li.lo_device & 0xffu) | ((li.lo_device >> 12) & 0xfff00u)));
	*ino = (ino_t)li.lo_inode;
	return true;
#else
	(void)rdev;
	(void)dev;
	(void)ino;
	return false;
#endif
}

/* Add n and everything below it to c. */
static void walk_down(struct chain *c, struct node n, int depth)
{
	char base[96], path[512];
	struct dirent *e;
	dev_t below;
	ino_t ino;
	DIR *d;

	if (chain_has(c, &n) || c->len == CHAIN_MAX)
		return;
	c->n[c->len++] = n;
	if (depth >= DEPTH_MAX)
		return;
	if (!n.blk) {
		/* A file lives on the device of its filesystem. */
		walk_down(c, (struct node){ true, n.dev, 0 }, depth + 1);
		return;
	}
	snprintf(base, sizeof(base), "/sys/dev/block/%u:%u", major(n.dev), minor(n.dev));
	/* A partition lies on its disk. */
	snprintf(path, sizeof(path), "%s/partition", base);
	if (access(path, F_OK) == 0) {
		snprintf(path, sizeof(path), "%s/../dev", base);
		if (read_devno(path, &below) == 0)
			walk_down(c, (struct node){ true, below, 0 }, depth + 1);
	}
	/* A device-mapper or md device lies on its slaves. */
	snprintf(path, sizeof(path), "%s/slaves", base);
	d = opendir(path);
	if (d) {
		while ((e = readdir(d)) && c->len < CHAIN_MAX) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/slaves/%.200s/dev", base, e->d_name);
			if (read_devno(path, &below) == 0)
				walk_down(c, (struct node){ true, below, 0 }, depth + 1);
		}
		closedir(d);
	}
	/* A loop device lies on its backing file. */
	if (ximg_loop_backing(n.dev, &below, &ino))
		walk_down(c, (struct node){ false, below, ino }, depth + 1);
}

const char *ximg_out_aliases(const struct stat *out, const struct stat *in)
{
	struct node on = node_of(out), inn = node_of(in);
	struct chain *oc, *ic;
	const char *why = NULL;

	if (same_node(&on, &inn))
		return on.blk ? "is the input device" : "is the input image";
	oc = calloc(1, sizeof(*oc));
	ic = calloc(1, sizeof(*ic));
	if (!oc || !ic) {
		why = "cannot be told apart from the input (out of memory)";
		goto out;
	}
	walk_down(oc, on, 0);
	walk_down(ic, inn, 0);
	if (chain_has(ic, &on))
		why = on.blk ? "holds the input (the device of its filesystem, or a disk or "
			       "device it lies on)"
			     : "holds the input (the file behind the input's loop device)";
	else if (chain_has(oc, &inn))
		why = on.blk ? "writes through to the input (a loop device backed by it, or a part "
			       "of it)"
			     : "lies in a filesystem stored on the input";
out:
	free(oc);
	free(ic);
	return why;
}

/* Is st one of the inputs, or an alias of one?  Says which in err. */
static int check_inputs(const char *path, const struct ximg_out_opts *o, const struct stat *st,
			char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "output";
	struct stat in;
	const char *why;

	for (int i = 0; i <= XIMG_OUT_MAX_INPUTS; i++) {
		if (i == XIMG_OUT_MAX_INPUTS ? !o->in_fd_set || fstat(o->in_fd, &in) != 0
					     : !o->in_path[i] || stat(o->in_path[i], &in) != 0)
			continue;
		why = ximg_out_aliases(st, &in);
		if (why)
			return xerr_say(err, errlen, XERR_USAGE, "%s %s: refusing to write %s to it", path,
				   why, what);
	}
	return 0;
}

/* Whether an existing st (lst as found at the name) may be written. */
static int check_kind(const char *path, const struct ximg_out_opts *o, const struct stat *lst,
		      const struct stat *st, char *err, size_t errlen)
{
	const char *what = o->what ? o->what : "output";

	if (S_ISREG(st->st_mode)) {
		if (!o->force && !(o->replace && !S_ISLNK(lst->st_mode)))
			return xerr_say(err, errlen, XERR_EXISTS, "%s exists (force to overwrite it)", path);
		return 0;
	}
	if (S_ISBLK(st->st_mode)) {
		if (!o->block_ok)
			return xerr_say(err, errlen, XERR_USAGE, "%s is a block device: refusing to write %s "
				   "to it", path, what);
		if (!o->force)
			return xerr_say(err, errlen, XERR_EXISTS, "%s exists (force to overwrite it)", path);
		return 0;
	}
	if ((S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) && o->stream_ok)
		return 0;
	return xerr_say(err, errlen, XERR_USAGE, "%s: not a regular file%s", path,
		   o->block_ok ? " or block device" : "");
}

int ximg_out_open(const char *path, const struct ximg_out_opts *o, int *fd, bool *created,
		  bool *is_blk, char *err, size_t errlen)
{
	int flags = (o->rdwr ? O_RDWR : O_WRONLY) | O_CLOEXEC, f, rc;
	struct stat lst, st, fst;

	*fd = -1;
	*created = false;
	*is_blk = false;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return xerr_say(err, errlen, XERR_IO, "%s: %s", path, strerror(errno));
		/* A new name: O_EXCL with O_NOFOLLOW, so nothing planted in the
		 * meantime (a symlink, dangling or not) is followed. */
		f = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, o->mode);
		if (f < 0)
			return xerr_say(err, errlen, errno == EEXIST ? XERR_EXISTS : XERR_IO, "%s: %s",
				   path, strerror(errno));
		/* New, yet it may lie in a filesystem the input holds. */
		rc = fstat(f, &fst) != 0 ? xerr_say(err, errlen, XERR_IO, "%s: %s", path, strerror(errno))
					 : check_inputs(path, o, &fst, err, errlen);
		if (rc) {
			close(f);
			unlink(path);
			return rc;
		}
		*fd = f;
		*created = true;
		return 0;
	}
	st = lst;
	if (S_ISLNK(lst.st_mode)) {
		if (!o->force)
			return xerr_say(err, errlen, XERR_USAGE, "%s is a symlink: refusing to follow it "
				   "(force to write where it points)", path);
		if (stat(path, &st) != 0)
			return xerr_say(err, errlen, XERR_USAGE, "%s is a symlink to nothing: refusing to "
				   "create where it points", path);
	}
	/* Refused before any open for writing: not even that touches the
	 * evidence.  An existing name not to be replaced is refused as that
	 * first, whatever it is. */
	rc = check_kind(path, o, &lst, &st, err, errlen);
	if (!rc)
		rc = check_inputs(path, o, &st, err, errlen);
	if (rc)
		return rc;
	if (!S_ISLNK(lst.st_mode))
		flags |= O_NOFOLLOW;
	if (S_ISBLK(st.st_mode))
		flags |= O_EXCL;   /* fails while the device is mounted or claimed */
	f = open(path, flags);
	if (f < 0)
		return xerr_say(err, errlen, errno == EBUSY ? XERR_USAGE : XERR_IO, "%s: %s%s", path,
			   strerror(errno), errno == EBUSY ? " (mounted or in use)" : "");
	/* The file opened is the one checked; no O_TRUNC before this. */
	if (fstat(f, &fst) != 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino ||
	    (fst.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) {
		close(f);
		return xerr_say(err, errlen, XERR_USAGE, "%s changed while it was opened", path);
	}
	if (S_ISREG(fst.st_mode) && o->truncate && ftruncate(f, 0) != 0) {
		rc = xerr_say(err, errlen, XERR_IO, "%s: %s", path, strerror(errno));
		close(f);
		return rc;
	}
	*fd = f;
	*is_blk = S_ISBLK(fst.st_mode);
	return 0;
}

int ximg_out_check_name(const char *path, const struct ximg_out_opts *o, bool *exists,
			char *err, size_t errlen)
{
	struct stat lst, st;
	int rc;

	*exists = false;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return xerr_say(err, errlen, XERR_IO, "%s: %s", path, strerror(errno));
		return 0;
	}
	*exists = true;
	/* The new file is renamed over the name: a symlink there is replaced,
	 * never followed; still, a name that reaches the input is refused. */
	st = lst;
	if (!S_ISLNK(lst.st_mode) || stat(path, &st) == 0) {
		rc = check_inputs(path, o, &st, err, errlen);
		if (rc)
			return rc;
	}
	if (!S_ISLNK(lst.st_mode) && !S_ISREG(lst.st_mode))
		return xerr_say(err, errlen, XERR_USAGE, "%s: not a regular file: refusing to replace it",
			   path);
	if (!o->force && !o->replace)
		return xerr_say(err, errlen, XERR_EXISTS, "%s exists", path);
	return 0;
}
