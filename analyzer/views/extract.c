/*
 * extract.c - files, directories, symlinks and special files copied out.
 *
 * Safety: the destination is opened once (O_DIRECTORY); every directory
 * below it is created with mkdirat and then opened with openat(O_NOFOLLOW |
 * O_DIRECTORY) relative to its parent's descriptor, and files with
 * openat(O_CREAT | O_EXCL | O_NOFOLLOW).  A name can therefore never climb
 * out ("." and ".." are never created, "/" cannot appear in a created name),
 * and a symlink extracted from the image is never followed: it is created
 * with symlinkat and nothing is ever opened through it.
 * Bounds: directories are visited once each (a set of inode numbers) and
 * depth is capped, with the descriptors of the open path bounded likewise.
 */
#include "analyzer/views/extract.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/u64set.h"
#include "analyzer/model/xattr.h"
#include "analyzer/report/report_xml.h"
#include "analyzer/scan/fork_walk.h"
#include "analyzer/views/files.h"
#include "formats/symlink.h"

#define EXTRACT_MAX_DEPTH 256u
#define EXTRACT_CHUNK     (1u << 20)

struct xstate {
	struct xa_ctx           *ctx;
	const struct xa_extract_opts *o;
	struct xa_extract_stats *st;
	FILE                    *err;
	struct xa_u64set         seen_dirs;
	uint8_t                 *buf;
	bool                     tty;
	int                      rc;       /* first operational error */
	/* The host path of the directory being extracted, for messages: one
	 * buffer that grows by a name on the way down and is cut back on the
	 * way up, so memory follows the depth, not the sum of the paths. */
	char                    *cur_path;
	size_t                   cur_len, cur_cap;
};

/* Host name for an on-disk name: "/" and NUL escaped; never "." or "..". */
static int host_name(const uint8_t *name, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	if (len == 0 || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] == '/' || name[i] == '\0') {
			if (o + 5 >= outlen)
				return -1;
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", name[i]);
		} else {
			if (o + 2 >= outlen)
				return -1;
			out[o++] = (char)name[i];
		}
	}
	out[o] = '\0';
	return 0;
}

static void progress(struct xstate *x)
{
	if (!x->tty || !x->o->progress)
		return;
	fprintf(x->err, "\rxfsrecon: extracted %" PRIu64 " files, %" PRIu64 " directories, %"
		PRIu64 " MiB", x->st->files, x->st->dirs, x->st->bytes >> 20);
}

struct xattr_set {
	struct xstate *x;
	int            fd;
	const char    *name;
};

static int set_one_xattr(void *arg, const struct xa_xattr *a)
{
	struct xattr_set *xs = arg;
	char key[8 + 10 + 256];
	const char *prefix = xfmt_attr_ns_prefix(a->ns);

	/* Parent pointers are filesystem-internal, not host attributes. */
	if (a->ns == XFMT_ATTR_NS_PARENT || !*prefix || memchr(a->name, 0, a->namelen))
		return 0;
	snprintf(key, sizeof(key), "%s%.*s", prefix, (int)a->namelen, (const char *)a->name);
	if (fsetxattr(xs->fd, key, a->value, a->valuelen, 0) != 0) {
		fprintf(xs->x->err, "xfsrecon: %s/%s: cannot set attribute %s: %s\n",
			xs->x->cur_path, xs->name, key, strerror(errno));
		xs->x->st->skipped++;
	}
	return 0;
}

/* Copy the inode's extended attributes onto the open host file fd. */
static void set_xattrs(struct xstate *x, int fd, const char *name, const struct xa_inode *ip)
{
	struct xattr_set xs = { x, fd, name };
	bool complete = true;
	int rc;

	if (!ip->d.has_attr_fork)
		return;
	rc = xa_xattr_iterate(x->ctx, ip, NULL, set_one_xattr, &xs, &complete);
	if (rc == XERR_NOMEM)
		x->rc = rc;
	if (!complete) {
		fprintf(x->err, "xfsrecon: %s/%s: some attributes could not be read\n",
			x->cur_path, name);
		x->st->damaged++;
	}
}

static void set_meta(int dirfd, const char *name, const struct xa_inode *ip, bool is_link)
{
	struct timespec ts[2];

	/* Ownership only when we may (running as root); failures are not
	 * errors: the bytes matter more than the metadata. */
	if (geteuid() == 0)
		(void)fchownat(dirfd, name, ip->d.uid, ip->d.gid, AT_SYMLINK_NOFOLLOW);
	if (!is_link)
		(void)fchmodat(dirfd, name, ip->d.mode & 07777, 0);
	ts[0].tv_sec = (time_t)ip->d.atime.sec;
	ts[0].tv_nsec = ip->d.atime.nsec < 1000000000u ? (long)ip->d.atime.nsec : 0;
	ts[1].tv_sec = (time_t)ip->d.mtime.sec;
	ts[1].tv_nsec = ip->d.mtime.nsec < 1000000000u ? (long)ip->d.mtime.nsec : 0;
	(void)utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
}

struct miss {
	struct xstate *x;
	const char    *name;
	uint64_t       n;
};

static void on_missing(void *arg, uint64_t off, uint64_t len)
{
	struct miss *m = arg;

	m->n++;
	fprintf(m->x->err, "xfsrecon: %s/%s: bytes %" PRIu64 "..%" PRIu64
		" could not be read; written as zeros\n", m->x->cur_path, m->name, off, off + len - 1);
}

static void extract_file(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	struct xa_extents ex;
	struct miss m = { x, name, 0 };
	uint64_t off;
	int fd, rc;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot create: %s\n", x->cur_path, name,
			strerror(errno));
		x->st->skipped++;
		return;
	}
	rc = xa_extents_load(x->ctx, ip, XA_DATA_FORK, &ex);
	if (rc) {
		x->rc = rc;
		close(fd);
		return;
	}
	/*
	 * Copy the mapped ranges only; holes (and unwritten extents, which
	 * read as zeros) stay holes on the host and ftruncate sets the size.
	 * Work is bounded by the mapped bytes, not by di_size, which a damaged
	 * inode may claim to be exabytes.
	 */
	for (size_t i = 0; i < ex.n && !x->rc; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t start = r->startoff << x->ctx->geom.blocklog;
		uint64_t end = (r->startoff + r->blockcount) << x->ctx->geom.blocklog;

		if (r->unwritten || start >= ip->d.size)
			continue;
		if (end > ip->d.size)
			end = ip->d.size;
		for (off = start; off < end; ) {
			size_t n = end - off < EXTRACT_CHUNK ? (size_t)(end - off) : EXTRACT_CHUNK;
			ssize_t w;

			rc = xa_file_pread(x->ctx, &ex, x->buf, n, off, on_missing, &m);
			if (rc) {
				x->rc = rc;
				break;
			}
			w = pwrite(fd, x->buf, n, (off_t)off);
			if (w != (ssize_t)n) {
				fprintf(x->err, "xfsrecon: %s/%s: write failed: %s\n", x->cur_path, name,
					w < 0 ? strerror(errno) : "short write");
				x->st->skipped++;
				i = ex.n;  /* give up on this file, go on with the others */
				break;
			}
			off += n;
			x->st->bytes += n;
		}
	}
	if (ftruncate(fd, (off_t)ip->d.size) != 0)
		x->st->skipped++;
	set_xattrs(x, fd, name, ip);
	close(fd);
	if (!ex.complete) {
		fprintf(x->err, "xfsrecon: %s/%s: the block map is damaged; unmapped ranges are "
			"zeros\n", x->cur_path, name);
		m.n++;
	}
	if (m.n)
		x->st->damaged++;
	xa_extents_release(&ex);
	x->st->files++;
	set_meta(dirfd, name, ip, false);
}

static void extract_symlink(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	uint8_t raw[XFMT_SYMLINK_MAXLEN];
	char target[XFMT_SYMLINK_MAXLEN + 1];
	size_t n = 0;
	int rc = xa_symlink_target(x->ctx, ip, raw, &n, NULL);

	if (rc == XERR_NOMEM) {
		x->rc = rc;
		return;
	}
	memcpy(target, raw, n);
	target[n] = '\0';
	if (rc || n == 0 || strlen(target) != n) {
		fprintf(x->err, "xfsrecon: %s/%s: the symlink target is damaged; not created\n",
			x->cur_path, name);
		x->st->skipped++;
		return;
	}
	/* The target is stored as text only: symlinkat never resolves it. */
	if (symlinkat(target, dirfd, name) != 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot create symlink: %s\n", x->cur_path, name,
			strerror(errno));
		x->st->skipped++;
		return;
	}
	x->st->symlinks++;
	set_meta(dirfd, name, ip, true);
}

static void extract_special(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	size_t fsz = 0;
	const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, XA_DATA_FORK, &fsz);
	dev_t dev = 0;

	if (fork && fsz >= 4) {
		uint32_t raw = (uint32_t)fork[0] << 24 | (uint32_t)fork[1] << 16 |
			       (uint32_t)fork[2] << 8 | fork[3];
		dev = makedev(raw >> 18, raw & 0x3FFFF);
	}
	if (mknodat(dirfd, name, (ip->d.mode & 0170000u) | 0600, dev) != 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot create special file: %s\n", x->cur_path,
			name, strerror(errno));
		x->st->skipped++;
		return;
	}
	x->st->specials++;
	set_meta(dirfd, name, ip, false);
}

struct entlist {
	struct xfmt_dirent *v;
	uint8_t           (*names)[256];
	size_t              n, cap;
};

static int collect(void *arg, const struct xfmt_dirent *de)
{
	struct entlist *l = arg;

	if (xfmt_dir2_name_dots(de->name, de->namelen))
		return 0;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 32;
		struct xfmt_dirent *nv = realloc(l->v, ncap * sizeof(*nv));
		uint8_t (*nn)[256];

		if (!nv)
			return XERR_NOMEM;
		l->v = nv;
		nn = realloc(l->names, ncap * sizeof(*nn));
		if (!nn)
			return XERR_NOMEM;
		l->names = nn;
		l->cap = ncap;
	}
	l->v[l->n] = *de;
	memcpy(l->names[l->n], de->name, de->namelen);
	l->n++;
	return 0;
}

/* Append "/" and name to the current path; false when memory runs out. */
static bool path_push(struct xstate *x, const char *name)
{
	size_t len = strlen(name), need = x->cur_len + 1 + len + 1;

	if (need > x->cur_cap) {
		size_t ncap = x->cur_cap ? x->cur_cap : 256;
		char *n;

		while (ncap < need)
			ncap *= 2;
		n = realloc(x->cur_path, ncap);
		if (!n)
			return false;
		x->cur_path = n;
		x->cur_cap = ncap;
	}
	x->cur_path[x->cur_len] = '/';
	memcpy(x->cur_path + x->cur_len + 1, name, len + 1);
	x->cur_len += 1 + len;
	return true;
}

static void extract_dir(struct xstate *x, int dirfd, uint64_t ino, unsigned depth)
{
	struct entlist l = { 0 };
	struct xa_inode dir;
	bool complete = true;
	int rc;

	if (xa_u64set_add(&x->seen_dirs, ino) <= 0) {
		fprintf(x->err, "xfsrecon: %s: directory inode %" PRIu64 " is reached twice; "
			"extracted once\n", x->cur_path, ino);
		x->st->skipped++;
		return;
	}
	if (xa_inode_read(x->ctx, ino, &dir) != 0) {
		fprintf(x->err, "xfsrecon: %s: directory inode %" PRIu64 " cannot be read\n",
			x->cur_path, ino);
		x->st->skipped++;
		return;
	}
	rc = xa_dir_iterate(x->ctx, &dir, NULL, collect, &l, &complete);
	xa_inode_release(&dir);
	if (rc) {
		x->rc = rc;
		goto out;
	}
	if (!complete) {
		fprintf(x->err, "xfsrecon: %s: directory could not be read completely\n", x->cur_path);
		x->st->skipped++;
	}
	for (size_t i = 0; i < l.n && !x->rc; i++) {
		char name[256 * 4 + 1];
		struct xa_inode ip;
		unsigned type;

		if (host_name(l.names[i], l.v[i].namelen, name, sizeof(name)) != 0) {
			x->st->skipped++;
			continue;
		}
		if (xa_inode_read(x->ctx, l.v[i].ino, &ip) != 0) {
			fprintf(x->err, "xfsrecon: %s/%s: inode %" PRIu64 " cannot be read\n", x->cur_path,
				name, l.v[i].ino);
			x->st->skipped++;
			continue;
		}
		type = ip.d.mode & 0170000u;
		if (type == 0040000u) {
			size_t sub_len;
			int fd;

			if (depth >= EXTRACT_MAX_DEPTH) {
				fprintf(x->err, "xfsrecon: %s/%s: deeper than %u levels; not extracted\n",
					x->cur_path, name, EXTRACT_MAX_DEPTH);
				x->st->skipped++;
				xa_inode_release(&ip);
				continue;
			}
			if (mkdirat(dirfd, name, 0700) != 0 ||
			    (fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
				fprintf(x->err, "xfsrecon: %s/%s: cannot create directory: %s\n", x->cur_path,
					name, strerror(errno));
				x->st->skipped++;
				xa_inode_release(&ip);
				continue;
			}
			x->st->dirs++;
			set_xattrs(x, fd, name, &ip);
			sub_len = x->cur_len;
			if (!path_push(x, name)) {
				x->rc = XERR_NOMEM;
				close(fd);
				xa_inode_release(&ip);
				break;
			}
			extract_dir(x, fd, l.v[i].ino, depth + 1);
			x->cur_len = sub_len;
			x->cur_path[sub_len] = '\0';
			close(fd);
			/* Times last: creating entries inside changed them. */
			set_meta(dirfd, name, &ip, false);
		} else if (type == 0100000u) {
			extract_file(x, dirfd, name, &ip);
		} else if (type == 0120000u) {
			extract_symlink(x, dirfd, name, &ip);
		} else if (type == 0010000u || type == 0020000u || type == 0060000u ||
			   type == 0140000u) {
			extract_special(x, dirfd, name, &ip);
		} else {
			fprintf(x->err, "xfsrecon: %s/%s: inode %" PRIu64 " has an invalid type; "
				"not extracted\n", x->cur_path, name, l.v[i].ino);
			x->st->skipped++;
		}
		xa_inode_release(&ip);
		progress(x);
	}
out:
	free(l.v);
	free(l.names);
}

int xa_cmd_extract(struct xa_ctx *ctx, const char *target, const struct xa_extract_opts *o,
		   struct xa_extract_stats *st, FILE *err)
{
	struct xstate x;
	struct xa_inode ip;
	uint64_t ino;
	int dirfd, rc;

	memset(st, 0, sizeof(*st));
	rc = xa_target_resolve(ctx, target, &ino, err);
	if (rc)
		return rc;
	dirfd = open(o->dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		fprintf(err, "xfsrecon: %s: %s\n", o->dest, strerror(errno));
		return XERR_USAGE;
	}
	memset(&x, 0, sizeof(x));
	x.ctx = ctx;
	x.o = o;
	x.st = st;
	x.err = err;
	x.tty = isatty(fileno(err));
	x.buf = malloc(EXTRACT_CHUNK);
	x.cur_path = strdup(o->dest);
	if (x.cur_path) {
		x.cur_len = strlen(x.cur_path);
		x.cur_cap = x.cur_len + 1;
	}
	if (!x.buf || !x.cur_path) {
		free(x.buf);
		free(x.cur_path);
		close(dirfd);
		return XERR_NOMEM;
	}
	rc = xa_inode_read(ctx, ino, &ip);
	if (rc) {
		fprintf(err, "xfsrecon: %s: inode %" PRIu64 " cannot be read\n", target, ino);
		rc = rc == XERR_NOMEM ? rc : XERR_USAGE;
	} else {
		if ((ip.d.mode & 0170000u) == 0040000u) {
			extract_dir(&x, dirfd, ino, 0);
		} else {
			/* A single file keeps its last path component as its name. */
			const char *slash = strrchr(target, '/');
			const char *base = slash && slash[1] ? slash + 1 : target;
			char name[256 * 4 + 1];

			if (host_name((const uint8_t *)base, strlen(base), name, sizeof(name)) == 0) {
				if ((ip.d.mode & 0170000u) == 0100000u)
					extract_file(&x, dirfd, name, &ip);
				else if ((ip.d.mode & 0170000u) == 0120000u)
					extract_symlink(&x, dirfd, name, &ip);
				else
					extract_special(&x, dirfd, name, &ip);
			}
		}
		xa_inode_release(&ip);
		rc = x.rc;
	}
	if (x.tty && o->progress)
		fputc('\n', err);
	free(x.buf);
	free(x.cur_path);
	xa_u64set_release(&x.seen_dirs);
	close(dirfd);
	if (!rc && (st->skipped || st->damaged))
		rc = XERR_IO;
	return rc;
}
