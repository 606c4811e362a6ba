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
 * Attributes are set through the descriptor of the entry just created
 * (fchown, fchmod, futimens, fsetxattr), never by a name someone who can
 * write into the destination could have swapped for a symlink meanwhile;
 * symlinks get their owner and times from the no-follow calls, which act
 * on the link itself.  The owner is set before the mode: chown clears the
 * setuid and setgid bits, and until the mode is set the file is 0600.
 * Privileges: unless asked, what would carry privileges from the image to
 * the host is stripped (see extract.h) and counted.
 * Bounds: directories are visited once each (a set of inode numbers) and
 * depth is capped, with the descriptors of the open path bounded likewise.
 * Bytes written are bounded by the filesystem's blocks (a block mapped
 * twice in one file is written once, see extract_map.c; zero blocks are
 * not written), by --max-bytes and by the destination's free space.
 */
#include "cli/views/extract.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "analyzer/engine.h"
#include "analyzer/errors.h"
#include "analyzer/io/image.h"
#include "analyzer/io/sha256.h"
#include "analyzer/model/dir.h"
#include "analyzer/model/file.h"
#include "analyzer/model/inode_alloc.h"
#include "analyzer/model/u64set.h"
#include "analyzer/model/undelete.h"
#include "analyzer/model/xattr.h"
#include "analyzer/report/escape.h"
#include "analyzer/report/report_xml.h"
#include "analyzer/scan/fork_walk.h"
#include "cli/views/extract_links.h"
#include "cli/views/extract_manifest.h"
#include "cli/views/extract_map.h"
#include "cli/views/files.h"
#include "formats/dir2_carve.h"
#include "formats/symlink.h"

#define EXTRACT_MAX_DEPTH 256u
#define EXTRACT_CHUNK     (1u << 20)
/* A manifest digest is computed for files up to this size (holes are
 * hashed as zeros: an exabyte-sized sparse file would never end). */
#define MANIFEST_HASH_MAX (64ull << 30)
/* Descriptors kept for hard links at most (and half the process's limit). */
#define LINK_FDS_MAX      4096u

struct xstate {
	struct xa_ctx           *ctx;
	const struct xc_extract_opts *o;
	struct xc_extract_stats *st;
	FILE                    *err;
	struct xa_u64set         seen_dirs;
	uint8_t                 *buf;
	bool                     tty;
	int                      rc;       /* first operational error */
	struct xc_extract_refc  *refc;     /* refcountbt evidence, read on demand */
	uint64_t                 room;     /* free bytes in the destination, last seen */
	/* The host path of the directory being extracted, for messages: one
	 * buffer that grows by a name on the way down and is cut back on the
	 * way up, so memory follows the depth, not the sum of the paths. */
	char                    *cur_path;
	size_t                   cur_len, cur_cap;
	/* The same for the path in the image (names escaped as ls prints
	 * them), for the manifest. */
	char                    *img_path;
	size_t                   img_len, img_cap;
	struct xc_links         *links;
	struct xc_manifest      *man;
	/* The raw name of the entry being extracted (NULL: the target
	 * itself), for its manifest line. */
	const uint8_t           *ent_name;
	size_t                   ent_len;
	/* --deleted: the log's copies and the free space (NULL without) */
	struct xa_undelete      *undel;
	bool                     deleted;  /* the file being extracted is a deleted one */
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

/* Entries handled so far (made or skipped). */
static uint64_t entries(const struct xstate *x)
{
	return x->st->files + x->st->dirs + x->st->symlinks + x->st->specials + x->st->skipped +
	       x->st->hardlinks;
}

/* On a terminal one line rewritten in place; with --progress elsewhere one
 * line every 1,000 entries, for a log or a script. */
static void progress(struct xstate *x)
{
	if (x->tty && (x->o->progress || x->o->progress_lines))
		fprintf(x->err, "\rxfsrecon: extracted %" PRIu64 " files, %" PRIu64 " directories, %"
			PRIu64 " MiB", x->st->files, x->st->dirs, x->st->bytes >> 20);
	else if (x->o->progress_lines && entries(x) % 1000 == 0)
		fprintf(x->err, "xfsrecon: extracted %" PRIu64 " files, %" PRIu64 " directories, %"
			PRIu64 " MiB\n", x->st->files, x->st->dirs, x->st->bytes >> 20);
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
	/* trusted.* and security.* steer the host's kernel and security
	 * modules (capabilities, SELinux labels, overlayfs): not from an image
	 * unless asked. */
	if ((a->ns == XFMT_ATTR_NS_TRUSTED || a->ns == XFMT_ATTR_NS_SECURE) &&
	    !xs->x->o->preserve_privileges) {
		xs->x->st->strip_xattrs++;
		if (xs->x->o->verbose)
			fprintf(xs->x->err, "xfsrecon: %s/%s: attribute %s not set "
				"(--preserve-privileges sets it)\n", xs->x->cur_path, xs->name, key);
		return 0;
	}
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

static void times_of(const struct xa_inode *ip, struct timespec ts[2])
{
	ts[0].tv_sec = (time_t)ip->d.atime.sec;
	ts[0].tv_nsec = ip->d.atime.nsec < 1000000000u ? (long)ip->d.atime.nsec : 0;
	ts[1].tv_sec = (time_t)ip->d.mtime.sec;
	ts[1].tv_nsec = ip->d.mtime.nsec < 1000000000u ? (long)ip->d.mtime.nsec : 0;
}

/*
 * The permission bits the host entry gets.  A directory keeps its setgid
 * and sticky bits: they grant nothing (they pick the group of new entries
 * and restrict who may delete them), and a 1777 directory made 0777 would
 * be weaker, not safer.
 */
static mode_t host_mode(struct xstate *x, const char *name, const struct xa_inode *ip)
{
	unsigned m = ip->d.mode & 07777u;

	if ((m & 07000u) && (ip->d.mode & 0170000u) != 0040000u && !x->o->preserve_privileges) {
		x->st->strip_modes++;
		if (x->o->verbose)
			fprintf(x->err, "xfsrecon: %s/%s: mode 0%o extracted as 0%o (setuid, setgid "
				"and sticky bits need --preserve-privileges)\n", x->cur_path, name, m,
				m & 0777u);
		m &= 0777u;
	}
	return (mode_t)m;
}

/*
 * The image's owner, through fd (or, for a symlink, fd < 0: on the link
 * dirfd/name itself, which fchownat without following cannot leave).
 * Failures are not errors: the bytes matter more than the metadata.
 */
static void set_owner(struct xstate *x, int fd, int dirfd, const char *name,
		      const struct xa_inode *ip)
{
	int rc;

	if (!x->o->same_owner) {
		if (ip->d.uid != geteuid() || ip->d.gid != getegid()) {
			x->st->strip_owners++;
			if (x->o->verbose)
				fprintf(x->err, "xfsrecon: %s/%s: owner %" PRIu32 ":%" PRIu32 " not "
					"reproduced (--same-owner reproduces it)\n", x->cur_path, name,
					ip->d.uid, ip->d.gid);
		}
		return;
	}
	rc = fd >= 0 ? fchown(fd, ip->d.uid, ip->d.gid)
		     : fchownat(dirfd, name, ip->d.uid, ip->d.gid, AT_SYMLINK_NOFOLLOW);
	if (rc != 0 && x->o->verbose)
		fprintf(x->err, "xfsrecon: %s/%s: cannot set owner %" PRIu32 ":%" PRIu32 ": %s\n",
			x->cur_path, name, ip->d.uid, ip->d.gid, strerror(errno));
}

/* Owner, then mode, then times, all through fd (see the file comment). */
static void set_meta_fd(struct xstate *x, int fd, const char *name, const struct xa_inode *ip)
{
	struct timespec ts[2];

	set_owner(x, fd, -1, name, ip);
	(void)fchmod(fd, host_mode(x, name, ip));
	times_of(ip, ts);
	(void)futimens(fd, ts);
}

struct miss {
	struct xstate        *x;
	const char           *name;
	uint64_t              n;
	struct xa_missing_run run;   /* unreadable bytes not yet named */
	char                  state[160];  /* the manifest's "damaged:..." parts */
};

/* Add a part to the manifest state of a damaged file (cut with "..."
 * when it is full: the messages on err name everything). */
static void state_add(struct miss *m, const char *part)
{
	size_t l = strlen(m->state);

	if (l + strlen(part) + 2 >= sizeof(m->state) - 4) {
		if (l < 3 || strcmp(m->state + l - 3, "..."))
			snprintf(m->state + l, sizeof(m->state) - l, ",...");
		return;
	}
	snprintf(m->state + l, sizeof(m->state) - l, "%s%s", l ? "," : "", part);
}

static void say_missing(struct miss *m, const struct xa_missing_run *r)
{
	char part[64];

	fprintf(m->x->err, "xfsrecon: %s/%s: bytes %" PRIu64 "..%" PRIu64
		" could not be read; left as a hole (zeros)\n", m->x->cur_path, m->name, r->off,
		r->off + r->len - 1);
	snprintf(part, sizeof(part), "unreadable=%" PRIu64 "-%" PRIu64, r->off,
		 r->off + r->len - 1);
	state_add(m, part);
}

/* The manifest line of name (in the directory being extracted). */
static void manifest_line(struct xstate *x, uint64_t ino, const char *type, uint64_t size,
			  const uint8_t *sha, const char *state)
{
	char *esc;

	if (!x->man)
		return;
	esc = x->ent_name ? xa_escape_name(x->ent_name, x->ent_len) : NULL;
	if (x->ent_name && !esc) {
		x->rc = XERR_NOMEM;
		return;
	}
	if (esc) {
		/* the root's entries are "/name" */
		char *full = malloc(x->img_len + strlen(esc) + 2);

		if (!full) {
			free(esc);
			x->rc = XERR_NOMEM;
			return;
		}
		sprintf(full, "%s/%s", x->img_path, esc);
		xc_manifest_line(x->man, full, ino, type, size, sha, state);
		free(full);
		free(esc);
	} else {
		xc_manifest_line(x->man, x->img_len ? x->img_path : "/", ino, type, size, sha, state);
	}
}

/* Feed n zero bytes to the digest. */
static void hash_zeros(struct xsha256 *h, uint64_t n)
{
	static const uint8_t zeros[65536];

	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		xsha256_update(h, zeros, k);
		n -= k;
	}
}

/* Unreadable ranges are named a run at a time, not a block at a time. */
static void on_missing(void *arg, uint64_t off, uint64_t len)
{
	struct miss *m = arg;
	struct xa_missing_run done;

	m->n++;
	if (xa_missing_run_add(&m->run, off, len, &done))
		say_missing(m, &done);
}

/* Is the block at p (len bytes) all zeros? */
static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * May n more bytes be written to fd?  Not past --max-bytes, nor past the
 * free space of the destination (f_bavail: what is left to the user, the
 * root reserve kept).  When not, the whole run stops with a message.
 */
static bool room_for(struct xstate *x, int fd, const char *name, size_t n)
{
	struct statvfs sv;

	if (x->o->max_bytes && (x->st->bytes > x->o->max_bytes ||
				n > x->o->max_bytes - x->st->bytes)) {
		fprintf(x->err, "xfsrecon: %s/%s: stopped: writing it would pass --max-bytes %" PRIu64
			" (%" PRIu64 " bytes written so far)\n", x->cur_path, name, x->o->max_bytes,
			x->st->bytes);
		goto stop;
	}
	/* The free space is asked again only when what was left at the last
	 * look is used up (one fstatvfs per run, not per block). */
	if (n > x->room && fstatvfs(fd, &sv) == 0) {
		x->room = (uint64_t)sv.f_bavail * sv.f_frsize;
		if (x->room < n) {
			fprintf(x->err, "xfsrecon: %s/%s: stopped: the destination %s has %" PRIu64
				" bytes free, not enough for the next %zu bytes\n", x->cur_path, name,
				x->o->dest, x->room, n);
			goto stop;
		}
	}
	x->room = x->room > n ? x->room - n : 0;
	return true;
stop:
	x->st->limit_hit = true;
	x->rc = XERR_NOMEM;
	return false;
}

/*
 * Write buf[0, n) at file offset off, leaving all-zero blocks as holes
 * (a zero run need not take space, and an image of zeros must not fill
 * the host).  Returns false when the file must be given up.
 */
static bool write_data(struct xstate *x, int fd, const char *name, const uint8_t *buf,
		       size_t n, uint64_t off)
{
	size_t bs = x->ctx->geom.blocksize, i = 0;

	while (i < n) {
		size_t s, e;
		ssize_t w;

		/* skip zero blocks, then take the run of non-zero ones */
		while (i < n && all_zero(buf + i, n - i < bs ? n - i : bs))
			i += n - i < bs ? n - i : bs;
		for (s = i; i < n && !all_zero(buf + i, n - i < bs ? n - i : bs); )
			i += n - i < bs ? n - i : bs;
		e = i;
		if (e == s)
			continue;
		if (!room_for(x, fd, name, e - s))
			return false;
		w = pwrite(fd, buf + s, e - s, (off_t)(off + s));
		if (w != (ssize_t)(e - s)) {
			fprintf(x->err, "xfsrecon: %s/%s: write failed: %s\n", x->cur_path, name,
				w < 0 ? strerror(errno) : "short write");
			x->st->skipped++;
			return false;
		}
		x->st->bytes += e - s;
	}
	return true;
}

/*
 * The size to give the host file.  A size past the largest an XFS file can
 * have (2^63 - 1 bytes, the kernel's MAX_LFS_FILESIZE; xfmt_bmap_max_fileoff)
 * is damage: the file ends with its last mapped block instead.
 */
static uint64_t bounded_size(struct xstate *x, const char *name, const struct xa_inode *ip,
			     const struct xa_extents *ex, bool *cut)
{
	unsigned blocklog = x->ctx->geom.blocklog;
	uint64_t end = 0;

	*cut = false;
	if (ip->d.size <= (uint64_t)INT64_MAX)
		return ip->d.size;
	if (ex->n) {
		const struct xfmt_bmbt_rec *r = &ex->v[ex->n - 1];
		uint64_t last = r->startoff + r->blockcount;

		end = last > ((uint64_t)INT64_MAX >> blocklog) ? (uint64_t)INT64_MAX
							       : last << blocklog;
	}
	fprintf(x->err, "xfsrecon: %s/%s: the size %" PRIu64 " is past the largest an XFS file "
		"can have (2^63 - 1 bytes); cut at %" PRIu64 " bytes, the end of its last mapped "
		"block\n", x->cur_path, name, ip->d.size, end);
	*cut = true;
	return end;
}

/*
 * A deleted file's mapping (from the log) is read only where its blocks
 * are free now: a block in use again holds another file's data.  Such
 * mappings are dropped (their range stays a hole) and named.
 */
static void drop_reused(struct xstate *x, const char *name, struct xa_extents *ex, struct miss *m)
{
	size_t k = 0;

	for (size_t i = 0; i < ex->n; i++) {
		const struct xfmt_bmbt_rec *r = &ex->v[i];
		char part[80];

		if (r->unwritten ||
		    xa_undelete_free_blocks(x->undel, r->startblock, r->blockcount) == r->blockcount) {
			ex->v[k++] = *r;
			continue;
		}
		fprintf(x->err, "xfsrecon: %s/%s: file blocks %" PRIu64 "..%" PRIu64 " are in use "
			"again (another file's now); left as a hole\n", x->cur_path, name, r->startoff,
			r->startoff + r->blockcount - 1);
		snprintf(part, sizeof(part), "reused=%" PRIu64 "-%" PRIu64,
			 r->startoff << x->ctx->geom.blocklog,
			 ((r->startoff + r->blockcount) << x->ctx->geom.blocklog) - 1);
		state_add(m, part);
		m->n++;
	}
	ex->n = k;
}

static void extract_file(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	struct xa_extents ex;
	struct miss m = { x, name, 0, { 0, 0 }, "" };
	struct xa_missing_run tail;
	uint64_t off, size, dups = 0, hashed = 0;
	unsigned blocklog = x->ctx->geom.blocklog;
	bool tangled = false, cut, hashing, write_failed = false;
	struct xsha256 h;
	uint8_t digest[XSHA256_DIGEST_LEN];
	char state[sizeof(m.state) + 16];
	int fd, rc;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot create: %s\n", x->cur_path, name,
			strerror(errno));
		x->st->skipped++;
		return;
	}
	rc = xa_extents_load(x->ctx, ip, XA_DATA_FORK, &ex);
	if (!rc && !ex.realtime)
		rc = xc_extract_map_dedup(x->ctx, &ex, &x->refc, &dups, &tangled);
	if (rc) {
		xa_extents_release(&ex);
		x->rc = rc;
		close(fd);
		return;
	}
	if (x->deleted)
		drop_reused(x, name, &ex, &m);
	if (dups) {
		fprintf(x->err, "xfsrecon: %s/%s: %" PRIu64 " blocks are mapped again at later file "
			"offsets (the refcountbt does not say they are shared); written once, at the "
			"first offset, the later ones left as holes%s\n", x->cur_path, name, dups,
			tangled ? " (the map is too tangled to sort out: every overlapping mapping "
			"was left out)" : "");
		x->st->dup_blocks += dups;
		m.n++;
		snprintf(state, sizeof(state), "twice=%" PRIu64, dups);
		state_add(&m, state);
	}
	size = bounded_size(x, name, ip, &ex, &cut);
	if (cut) {
		m.n++;
		state_add(&m, "size-cut");
	}
	/* The digest of the bytes as extracted: holes and unwritten ranges
	 * are the zeros the host file reads there. */
	hashing = x->man && size <= MANIFEST_HASH_MAX;
	if (hashing)
		xsha256_init(&h);
	/*
	 * Copy the mapped ranges only; holes (and unwritten extents, which
	 * read as zeros) stay holes on the host and ftruncate sets the size.
	 * Work is bounded by the mapped bytes, not by di_size, which a damaged
	 * inode may claim to be exabytes.
	 */
	for (size_t i = 0; i < ex.n && !x->rc; i++) {
		const struct xfmt_bmbt_rec *r = &ex.v[i];
		uint64_t start, end, last = r->startoff + r->blockcount;

		if (r->unwritten || r->startoff > ((uint64_t)INT64_MAX >> blocklog))
			continue;
		start = r->startoff << blocklog;
		end = last > ((uint64_t)INT64_MAX >> blocklog) ? (uint64_t)INT64_MAX : last << blocklog;
		if (start >= size)
			continue;
		if (end > size)
			end = size;
		for (off = start; off < end; ) {
			size_t n = end - off < EXTRACT_CHUNK ? (size_t)(end - off) : EXTRACT_CHUNK;

			rc = xa_file_pread(x->ctx, &ex, x->buf, n, off, on_missing, &m);
			if (rc) {
				x->rc = rc;
				break;
			}
			if (hashing) {
				hash_zeros(&h, off - hashed);
				xsha256_update(&h, x->buf, n);
				hashed = off + n;
			}
			if (!write_data(x, fd, name, x->buf, n, off)) {
				write_failed = true;
				i = ex.n;  /* give up on this file, go on with the others */
				break;
			}
			off += n;
		}
	}
	if (xa_missing_run_end(&m.run, &tail))
		say_missing(&m, &tail);
	if (ftruncate(fd, (off_t)size) != 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot set the size %" PRIu64 ": %s\n", x->cur_path,
			name, size, strerror(errno));
		x->st->skipped++;
	}
	set_xattrs(x, fd, name, ip);
	if (!ex.complete) {
		fprintf(x->err, "xfsrecon: %s/%s: the block map is damaged; unmapped ranges are "
			"zeros\n", x->cur_path, name);
		m.n++;
		state_add(&m, "map");
	}
	if (m.n)
		x->st->damaged++;
	xa_extents_release(&ex);
	x->st->files++;
	set_meta_fd(x, fd, name, ip);
	if (x->man) {
		hashing = hashing && !write_failed && !x->rc;
		if (hashing) {
			hash_zeros(&h, size - hashed);
			xsha256_final(&h, digest);
		}
		if (write_failed)
			snprintf(state, sizeof(state), "incomplete");
		else if (x->deleted)
			snprintf(state, sizeof(state), "deleted%s%s", m.n ? ":" : "", m.state);
		else
			snprintf(state, sizeof(state), "%s%s", m.n ? "damaged:" : "intact", m.state);
		manifest_line(x, ip->ino, "file", size, hashing ? digest : NULL, state);
	}
	if (ip->d.nlink > 1 && !write_failed &&
	    xc_links_note(x->links, ip->ino, fd, hashing ? digest : NULL) != 0)
		x->st->link_copies++;
	close(fd);
}

/* Remember the entry just made at name (of type S_IF*) for the inode's
 * other names, through an O_PATH descriptor of what is there now, once it
 * is checked to be that entry (its type, one link). */
static void note_made(struct xstate *x, int dirfd, const char *name, mode_t type,
		      const struct xa_inode *ip, const uint8_t *sha)
{
	struct stat sb;
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && (sb.st_mode & S_IFMT) == type && sb.st_nlink == 1 &&
	    xc_links_note(x->links, ip->ino, fd, sha) != 0)
		x->st->link_copies++;
	close(fd);
}

static const char *special_type(unsigned type)
{
	switch (type) {
	case 0010000u: return "fifo";
	case 0020000u: return "chardev";
	case 0060000u: return "blockdev";
	}
	return "socket";
}

static void extract_symlink(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	uint8_t raw[XFMT_SYMLINK_MAXLEN];
	char target[XFMT_SYMLINK_MAXLEN + 1];
	struct timespec ts[2];
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
		manifest_line(x, ip->ino, "symlink", n, NULL, "skipped");
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
	/* Both calls act on the link itself, whatever it points to: a link
	 * has no mode, and nothing here can follow it. */
	set_owner(x, -1, dirfd, name, ip);
	times_of(ip, ts);
	(void)utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
	if (x->man) {
		uint8_t digest[XSHA256_DIGEST_LEN];

		xsha256(raw, n, digest);
		manifest_line(x, ip->ino, "symlink", n, digest, "intact");
		if (ip->d.nlink > 1)
			note_made(x, dirfd, name, S_IFLNK, ip, digest);
	} else if (ip->d.nlink > 1) {
		note_made(x, dirfd, name, S_IFLNK, ip, NULL);
	}
}

static void extract_special(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	size_t fsz = 0;
	const uint8_t *fork = xfmt_dinode_fork(ip->raw, &ip->d, XA_DATA_FORK, &fsz);
	unsigned type = ip->d.mode & 0170000u;
	bool device = type == 0020000u || type == 0060000u;
	dev_t dev = 0;
	struct timespec ts[2];
	struct stat sb;
	mode_t old;
	int fd, rc;

	if (fork && fsz >= 4) {
		uint32_t raw = (uint32_t)fork[0] << 24 | (uint32_t)fork[1] << 16 |
			       (uint32_t)fork[2] << 8 | fork[3];
		dev = makedev(raw >> 18, raw & 0x3FFFF);
	}
	/*
	 * A device node is a door into the host's hardware named by the image:
	 * not created unless asked.  Not a placeholder either: an empty regular
	 * file would pass for the device's contents.  FIFOs and sockets carry
	 * nothing and are created.
	 */
	if (device && !x->o->preserve_privileges) {
		x->st->strip_devices++;
		if (x->o->verbose)
			fprintf(x->err, "xfsrecon: %s/%s: %s device %u:%u not created "
				"(--preserve-privileges creates it)\n", x->cur_path, name,
				type == 0020000u ? "character" : "block", major(dev), minor(dev));
		manifest_line(x, ip->ino, special_type(type), 0, NULL, "stripped");
		return;
	}
	/* Created with its final permission bits (umask cleared for the call),
	 * as no descriptor able to fchmod a special file can be opened safely. */
	old = umask(0);
	rc = mknodat(dirfd, name, (mode_t)type | host_mode(x, name, ip), dev);
	umask(old);
	if (rc != 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot create special file: %s\n", x->cur_path,
			name, strerror(errno));
		x->st->skipped++;
		return;
	}
	x->st->specials++;
	/* Owner through an O_PATH descriptor of what is there now, after
	 * checking it is still the node just made (same type, one link). */
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &sb) == 0 && (sb.st_mode & S_IFMT) == type && sb.st_nlink == 1) {
		if (x->o->same_owner) {
			if (fchownat(fd, "", ip->d.uid, ip->d.gid, AT_EMPTY_PATH) != 0 && x->o->verbose)
				fprintf(x->err, "xfsrecon: %s/%s: cannot set owner: %s\n", x->cur_path,
					name, strerror(errno));
		} else {
			set_owner(x, -1, dirfd, name, ip);   /* only counts it */
		}
	}
	if (fd >= 0)
		close(fd);
	/* Times by name, without following: at worst the times of whatever
	 * replaced the node inside the destination. */
	times_of(ip, ts);
	(void)utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW);
	manifest_line(x, ip->ino, special_type(type), 0, NULL, "intact");
	if (ip->d.nlink > 1)
		note_made(x, dirfd, name, (mode_t)type, ip, NULL);
}

/* Append "/" and name to the path in *buf (length *len, room *cap); false
 * when memory runs out.  One buffer grows on the way down and is cut back
 * on the way up (memory follows the depth). */
static bool path_append(char **buf, size_t *len, size_t *cap, const char *name)
{
	size_t nl = strlen(name), need = *len + 1 + nl + 1;

	if (need > *cap) {
		size_t ncap = *cap ? *cap : 256;
		char *n;

		while (ncap < need)
			ncap *= 2;
		n = realloc(*buf, ncap);
		if (!n)
			return false;
		*buf = n;
		*cap = ncap;
	}
	(*buf)[*len] = '/';
	memcpy(*buf + *len + 1, name, nl + 1);
	*len += 1 + nl;
	return true;
}

static bool path_push(struct xstate *x, const char *name)
{
	return path_append(&x->cur_path, &x->cur_len, &x->cur_cap, name);
}

/* Append "/" and the escaped raw name to the image path; false when
 * memory runs out. */
static bool img_push(struct xstate *x, const uint8_t *raw, size_t rlen)
{
	char *esc = xa_escape_name(raw, rlen);
	bool ok = esc && path_append(&x->img_path, &x->img_len, &x->img_cap, esc);

	free(esc);
	return ok;
}

struct del_walk {
	struct xstate *x;
	int            dirfd;
};

/* One carved name of the directory: its file as the log last saw it, under
 * the carved name (".deleted-INODE" added when that name is taken). */
static int on_deleted(void *arg, const struct xfmt_dir2_carved *c)
{
	struct del_walk *w = arg;
	struct xstate *x = w->x;
	char name[256 * 4 + 32];
	struct xa_inode ip;
	uint64_t lsn = 0;
	int why;

	if (!c->ino_whole || host_name(c->name, c->namelen, name, sizeof(name) - 32) != 0)
		return 0;
	if (faccessat(w->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		snprintf(name + strlen(name), 32, ".deleted-%" PRIu64, c->ino);
	if (faccessat(w->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;   /* the same name carved twice */
	x->ent_name = c->name;
	x->ent_len = c->namelen;
	why = xa_undelete_inode(x->undel, c->ino, &ip, &lsn);
	if (why < 0)
		return why;
	if (why != XA_UNDEL_OK) {
		char state[96];

		fprintf(x->err, "xfsrecon: %s/%s (deleted, inode %" PRIu64 "): not extracted: %s\n",
			x->cur_path, name, c->ino, xa_undel_why_text((enum xa_undel_why)why));
		snprintf(state, sizeof(state), "deleted-lost:%s", xa_undel_why_text((enum xa_undel_why)why));
		manifest_line(x, c->ino, "file", 0, NULL, state);
		x->st->deleted_lost++;
		return 0;
	}
	x->deleted = true;
	extract_file(x, w->dirfd, name, &ip);
	x->deleted = false;
	x->st->files--;       /* counted as a deleted file, not a live one */
	x->st->deleted_files++;
	xa_inode_release(&ip);
	return x->rc;
}

/* The deleted names still in directory ino's blocks (--deleted). */
static void extract_deleted(struct xstate *x, int dirfd, uint64_t ino)
{
	struct del_walk w = { x, dirfd };
	struct xa_inode dir;
	int rc;

	if (xa_inode_read(x->ctx, ino, &dir) != 0)
		return;
	rc = xa_dir_deleted(x->ctx, &dir, on_deleted, &w);
	xa_inode_release(&dir);
	if (rc < 0 && !x->rc)
		x->rc = rc;
}

/* Make name a hard link to the host file of an inode extracted before
 * under another name; true when done (or when the run must stop). */
static bool link_again(struct xstate *x, int dirfd, const char *name, const struct xa_inode *ip)
{
	const uint8_t *sha = NULL;
	int r;

	if (ip->d.nlink < 2)
		return false;
	r = xc_links_make(x->links, ip->ino, dirfd, name, &sha);
	if (r == 0)
		return false;
	if (r < 0) {
		fprintf(x->err, "xfsrecon: %s/%s: cannot link to the other name of inode %" PRIu64
			": %s; extracted as a copy\n", x->cur_path, name, ip->ino, strerror(errno));
		x->st->link_copies++;
		return false;
	}
	x->st->hardlinks++;
	manifest_line(x, ip->ino, (ip->d.mode & 0170000u) == 0100000u ? "file" :
		      (ip->d.mode & 0170000u) == 0120000u ? "symlink" :
		      special_type(ip->d.mode & 0170000u), ip->d.size, sha, "hardlink");
	return true;
}

static void extract_dir(struct xstate *x, int dirfd, uint64_t ino, unsigned depth)
{
	struct xa_dirent_list l = { 0 };
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
	rc = xa_dir_iterate(x->ctx, &dir, NULL, xa_dirent_list_add, &l, &complete);
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

		if (host_name(l.v[i].name, l.v[i].namelen, name, sizeof(name)) != 0) {
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
		x->ent_name = l.v[i].name;
		x->ent_len = l.v[i].namelen;
		if (type != 0040000u && link_again(x, dirfd, name, &ip)) {
			xa_inode_release(&ip);
			progress(x);
			continue;
		}
		if (type == 0040000u) {
			size_t sub_len, img_len;
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
			manifest_line(x, l.v[i].ino, "dir", ip.d.size, NULL, "intact");
			sub_len = x->cur_len;
			img_len = x->img_len;
			if (!path_push(x, name) || !img_push(x, l.v[i].name, l.v[i].namelen)) {
				x->rc = XERR_NOMEM;
				close(fd);
				xa_inode_release(&ip);
				break;
			}
			extract_dir(x, fd, l.v[i].ino, depth + 1);
			x->cur_len = sub_len;
			x->cur_path[sub_len] = '\0';
			x->img_len = img_len;
			x->img_path[img_len] = '\0';
			/* Owner, mode and times after the subtree: creating entries
			 * inside changed the times, and the image's owner gets the
			 * directory only once nothing more is made in it. */
			set_meta_fd(x, fd, name, &ip);
			close(fd);
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
	if (x->undel && !x->rc)
		extract_deleted(x, dirfd, ino);
out:
	xa_dirent_list_release(&l);
}

int xc_cmd_extract(struct xa_ctx *ctx, const char *target, const struct xc_extract_opts *o,
		   struct xc_extract_stats *st, FILE *err)
{
	struct xstate x;
	struct xa_inode ip;
	struct rlimit rl;
	size_t max_fds = LINK_FDS_MAX;
	uint64_t ino;
	char merr[512];
	int dirfd, rc;

	memset(st, 0, sizeof(*st));
	rc = xc_target_resolve(ctx, target, &ino, err);
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
	x.refc = NULL;
	x.cur_path = strdup(o->dest);
	if (x.cur_path) {
		x.cur_len = strlen(x.cur_path);
		x.cur_cap = x.cur_len + 1;
	}
	/* The image path of the target: a path as given (without a trailing
	 * "/"), or an inode number as typed. */
	x.img_path = strdup(target);
	if (x.img_path) {
		x.img_len = strlen(x.img_path);
		while (x.img_len && x.img_path[x.img_len - 1] == '/')
			x.img_path[--x.img_len] = '\0';
		x.img_cap = x.img_len + 1;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < max_fds)
		max_fds = rl.rlim_cur > 64 ? (size_t)rl.rlim_cur / 2 : 16;
	x.links = xc_links_new(max_fds);
	if (!x.buf || !x.cur_path || !x.img_path || !x.links) {
		rc = XERR_NOMEM;
		goto out;
	}
	if (o->deleted) {
		x.undel = calloc(1, sizeof(*x.undel));
		rc = x.undel ? xa_undelete_open(ctx, x.undel) : XERR_NOMEM;
		if (rc)
			goto out;
	}
	if (o->manifest) {
		rc = xc_manifest_open(&x.man, o->manifest, ctx->image_path,
				      ximg_raw_fd(ctx->input), merr, sizeof(merr));
		if (rc) {
			fprintf(err, "xfsrecon: %s\n", merr);
			rc = rc == XERR_NOMEM ? rc : XERR_USAGE;
			goto out;
		}
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
	if (x.tty && (o->progress || o->progress_lines))
		fputc('\n', err);
	if (xc_manifest_close(&x.man, merr, sizeof(merr)) != 0) {
		fprintf(err, "xfsrecon: %s\n", merr);
		if (!rc)
			rc = XERR_IO;
	}
	if (!rc && (st->skipped || st->damaged))
		rc = XERR_IO;
out:
	xc_links_free(&x.links);
	if (x.undel) {
		if (x.undel->ctx)
			xa_undelete_close(x.undel);
		free(x.undel);
	}
	free(x.buf);
	xc_extract_refc_free(&x.refc);
	free(x.cur_path);
	free(x.img_path);
	xa_u64set_release(&x.seen_dirs);
	close(dirfd);
	return rc;
}
