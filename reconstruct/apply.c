/*
 * apply.c - `apply` and `undo` (see apply.h): refuse a mounted or foreign
 * TARGET, classify every planned range as before / after / divergent, write
 * the undo file durably, write, sync, and read back.
 *
 * Why there is no journal: each planned range is either still "before" or
 * already "after" (a write is one pwrite of bytes whose digest is known), so
 * the target itself says how far an interrupted run got.  An undo file is a
 * plan with the digests swapped and the old bytes as payload, so undo is
 * this same code run on it.
 */
#include "reconstruct/apply.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "analyzer/errors.h"
#include "analyzer/io/fd_io.h"
#include "analyzer/io/image.h"
#include "analyzer/io/outpath.h"
#include "analyzer/io/partition.h"
#include "analyzer/io/sha256.h"
#include "analyzer/messages.h"
#include "formats/sb.h"
#include "reconstruct/plan.h"
#include "reconstruct/plan_file.h"

#define STOP_ENV "XFSRECON_TEST_APPLY_STOP_AFTER"

enum { ST_BEFORE, ST_AFTER, ST_OTHER };

struct ap {
	const struct xr_apply_opts *o;
	const struct xa_messages *msgs;
	struct xr_planfile pf;
	const char        *tpath;
	int                fd;
	uint64_t           tsize;
	uint64_t           base;    /* TARGET byte where the filesystem starts */
	uint64_t           fslen;   /* TARGET bytes from base (the partition's length) */
	uint8_t           *state;   /* one ST_ per change */
	uint8_t           *buf;     /* the largest change */
	size_t             ndone, ntodo, nother;
};

/* ------------------------------------------------------------ mounted? */

/* Read a small sysfs file into buf without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* Is device "MAJ:MIN" mounted (field 3 of /proc/self/mountinfo)? */
static bool devno_mounted(const char *devno)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);

		for (int i = 1; tok && i < 3; i++)
			tok = strtok_r(NULL, " ", &save);
		found = tok && !strcmp(tok, devno);
	}
	fclose(f);
	return found;
}

/* Is /sys/block/NAME (or one of its partitions) mounted or held by another
 * device (device mapper, md)? */
static bool block_busy(const char *name)
{
	char path[512], devno[64];
	struct dirent *e;
	bool busy = false;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	if (read_line(path, devno, sizeof(devno)) == 0 && devno_mounted(devno))
		return true;
	snprintf(path, sizeof(path), "/sys/block/%s/holders", name);
	d = opendir(path);
	if (d) {
		while (!busy && (e = readdir(d)))
			busy = e->d_name[0] != '.';
		closedir(d);
	}
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	d = opendir(path);
	if (d) {
		size_t n = strlen(name);

		while (!busy && (e = readdir(d))) {
			if (strncmp(e->d_name, name, n) || e->d_name[n] != 'p')
				continue;
			snprintf(path, sizeof(path), "/sys/block/%s/%s/dev", name, e->d_name);
			busy = read_line(path, devno, sizeof(devno)) == 0 && devno_mounted(devno);
		}
		closedir(d);
	}
	return busy;
}

/* Is the image file st backs a loop device that is mounted or held?  Names
 * it in why.  Loop devices are matched by the device and inode number of
 * their backing file, as the kernel reports them: a path in sysfs reads
 * "(deleted)" once the name is gone, and another hard link has another. */
static bool loop_busy(const struct stat *st, char *why, size_t len)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	bool busy = false;

	if (!d)
		return false;
	while (!busy && (e = readdir(d))) {
		char path[512], devno[64];
		unsigned maj, min;
		dev_t bdev;
		ino_t bino;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		if (read_line(path, devno, sizeof(devno)) || sscanf(devno, "%u:%u", &maj, &min) != 2 ||
		    !ximg_loop_backing(makedev(maj, min), &bdev, &bino) || bdev != st->st_dev ||
		    bino != st->st_ino)
			continue;
		if (block_busy(e->d_name)) {
			snprintf(why, len, "it backs /dev/%s, which is mounted or in use", e->d_name);
			busy = true;
		}
	}
	closedir(d);
	return busy;
}

/* Is the block device st mounted, or one of its partitions, or held? */
static bool device_busy(const struct stat *st)
{
	char devno[64], path[4200], real[4096], *name;
	struct dirent *e;
	bool busy = false;
	DIR *d;

	snprintf(devno, sizeof(devno), "%u:%u", major(st->st_rdev), minor(st->st_rdev));
	if (devno_mounted(devno))
		return true;
	snprintf(path, sizeof(path), "/sys/dev/block/%s/holders", devno);
	d = opendir(path);
	if (d) {
		while (!busy && (e = readdir(d)))
			busy = e->d_name[0] != '.';
		closedir(d);
	}
	/* A whole disk: its partitions too. */
	snprintf(path, sizeof(path), "/sys/dev/block/%s", devno);
	if (!busy && realpath(path, real)) {
		name = strrchr(real, '/');
		snprintf(path, sizeof(path), "/sys/block/%s", name ? name + 1 : real);
		if (name && access(path, F_OK) == 0)
			busy = block_busy(name + 1);
	}
	return busy;
}

/* ------------------------------------------------------------ the target */

/* Open TARGET as apply.h says; returns 0 or an enum xr_apply_result. */
static int open_target(struct ap *a)
{
	int mode = a->o->dry_run ? O_RDONLY : O_RDWR;
	struct stat st, fst, other;
	char why[600];

	if (stat(a->tpath, &st) != 0) {
		xa_diag(a->msgs, "%s: %s", a->tpath, strerror(errno));
		return errno == ENOENT ? XR_APPLY_BAD_REQUEST : XR_APPLY_FAILED;
	}
	if ((stat(a->o->file, &other) == 0 && ximg_out_aliases(&st, &other)) ||
	    (a->o->undo && stat(a->o->undo, &other) == 0 && ximg_out_aliases(&st, &other))) {
		xa_diag(a->msgs, "%s is the plan or the undo file, not a target", a->tpath);
		return XR_APPLY_BAD_REQUEST;
	}
	if (S_ISBLK(st.st_mode)) {
		/* Mounted is refused before any open for writing; O_EXCL (which
		 * fails while the device is mounted or claimed) guards the race. */
		if (device_busy(&st)) {
			xa_diag(a->msgs, "%s is mounted or in use: refusing to write to it",
				a->tpath);
			return XR_APPLY_REFUSED;
		}
		a->fd = open(a->tpath, mode | O_EXCL | O_CLOEXEC);
		if (a->fd < 0 && errno == EBUSY) {
			xa_diag(a->msgs, "%s is mounted or in use: refusing to write to it",
				a->tpath);
			return XR_APPLY_REFUSED;
		}
	} else if (S_ISREG(st.st_mode)) {
		if (loop_busy(&st, why, sizeof(why))) {
			xa_diag(a->msgs, "%s: %s: refusing to write to it", a->tpath, why);
			return XR_APPLY_REFUSED;
		}
		a->fd = open(a->tpath, mode | O_CLOEXEC);
	} else {
		xa_diag(a->msgs, "%s: not an image file or a block device", a->tpath);
		return XR_APPLY_BAD_REQUEST;
	}
	if (a->fd < 0) {
		xa_diag(a->msgs, "%s: %s", a->tpath, strerror(errno));
		return XR_APPLY_FAILED;
	}
	/* The file opened is the one checked (no swap in between). */
	if (fstat(a->fd, &fst) != 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino ||
	    fst.st_mode != st.st_mode) {
		xa_diag(a->msgs, "%s changed while it was opened", a->tpath);
		return XR_APPLY_FAILED;
	}
	a->tsize = (uint64_t)st.st_size;
#ifdef BLKGETSIZE64
	if (S_ISBLK(st.st_mode) && ioctl(a->fd, BLKGETSIZE64, &a->tsize) != 0) {
		xa_diag(a->msgs, "%s: cannot get the device size: %s", a->tpath,
			strerror(errno));
		return XR_APPLY_FAILED;
	}
#endif
	return 0;
}

/*
 * Where the filesystem starts in TARGET: --offset, --partition N, or by
 * itself when byte 0 holds no XFS superblock and a partition table names a
 * partition that does (what the reading commands do with a whole-disk image).
 * Without either, byte 0.  Returns 0 (found, or byte 0) or an enum xr_apply_result.
 */
static int locate_filesystem(struct ap *a)
{
	struct ximg *img = NULL;
	struct xpart part;
	uint8_t magic[4];
	char err[256];
	int rc;

	a->base = 0;
	a->fslen = a->tsize;
	if (a->o->have_offset) {
		if (a->o->offset >= a->tsize) {
			xa_diag(a->msgs, "--offset %" PRIu64 " is past the end of %s (%" PRIu64
				" bytes)", a->o->offset, a->tpath, a->tsize);
			return XR_APPLY_BAD_REQUEST;
		}
		a->base = a->o->offset;
		a->fslen = a->tsize - a->base;
		return 0;
	}
	if (!a->o->partition && a->tsize >= 4 && xio_pread_full(a->fd, magic, 4, 0) == 0 &&
	    !memcmp(magic, "XFSB", 4))
		return 0;
	rc = ximg_open_raw(a->tpath, &img, err, sizeof(err));
	if (rc == 0)
		rc = xpart_find_xfs(img, a->o->partition, &part, err, sizeof(err));
	ximg_free(&img);
	if (rc != 0) {
		if (!a->o->partition)
			return 0;  /* no table: byte 0, refused later as no XFS there */
		xa_diag(a->msgs, "%s: %s", a->tpath, err);
		return rc == XERR_USAGE ? XR_APPLY_BAD_REQUEST : XR_APPLY_REFUSED;
	}
	if (part.start >= a->tsize) {
		xa_diag(a->msgs, "%s: partition %d starts past the end", a->tpath,
			part.index);
		return XR_APPLY_REFUSED;
	}
	a->base = part.start;
	a->fslen = part.length < a->tsize - part.start ? part.length : a->tsize - part.start;
	xa_result(a->msgs, "target: partition %d of %s, the filesystem at byte %" PRIu64,
		part.index, a->tpath, a->base);
	return 0;
}

/* Classify every change; returns 0 or XERR_NOMEM. */
static int classify(struct ap *a)
{
	size_t maxlen = 1;

	for (size_t i = 0; i < a->pf.nchanges; i++)
		if (a->pf.changes[i].len > maxlen)
			maxlen = a->pf.changes[i].len;
	a->buf = malloc(maxlen);
	a->state = calloc(a->pf.nchanges ? a->pf.nchanges : 1, 1);
	if (!a->buf || !a->state)
		return XERR_NOMEM;
	for (size_t i = 0; i < a->pf.nchanges; i++) {
		const struct xr_pf_change *c = &a->pf.changes[i];
		uint8_t sha[32];

		a->state[i] = ST_OTHER;
		if (c->offset <= a->fslen && c->len <= a->fslen - c->offset &&
		    xio_pread_full(a->fd, a->buf, c->len, a->base + c->offset) == 0) {
			xsha256(a->buf, c->len, sha);
			if (!memcmp(sha, c->before, 32))
				a->state[i] = ST_BEFORE;
			else if (!memcmp(sha, c->after, 32))
				a->state[i] = ST_AFTER;
		}
		if (a->state[i] == ST_BEFORE)
			a->ntodo++;
		else if (a->state[i] == ST_AFTER)
			a->ndone++;
		else
			a->nother++;
	}
	return 0;
}

/* Room for describe()'s text with the longest structure name. */
#define WHERE_MAX 256

/* "N bytes at byte B (structure, AG a block b, inode i)" into buf. */
static void describe(const struct xr_pf_change *c, char *buf, size_t len)
{
	char ag[64] = "", ino[40] = "";

	if (c->agno != XR_NO_AG)
		snprintf(ag, sizeof(ag), ", AG %" PRIu32 " block %" PRIu32, c->agno, c->agbno);
	if (c->ino)
		snprintf(ino, sizeof(ino), ", inode %" PRIu64, c->ino);
	snprintf(buf, len, "%" PRIu32 " bytes at byte %" PRIu64 " (%s%s%s)", c->len, c->offset,
		 c->structure, ag, ino);
}

/* Is TARGET the filesystem planned?  Says why not; true when it is. */
static bool same_filesystem(struct ap *a)
{
	const struct xr_pf_fs *fs = &a->pf.fs;
	uint8_t sect[XFS_SB_STRUCT_SIZE];
	struct xfmt_sb sb;
	bool ok = true;

	/* A plan that rewrites the primary superblock found exactly these
	 * bytes there (or wrote them): that digest is a stronger identity than
	 * any field of a superblock the plan itself calls broken. */
	if (a->pf.nchanges && a->pf.changes[0].offset == 0 && a->state[0] != ST_OTHER)
		return true;
	if (fs->blocksize && fs->dblocks > a->fslen / fs->blocksize) {
		xa_diag(a->msgs, "%s holds %" PRIu64 " bytes from byte %" PRIu64 "; the "
			"planned filesystem has %" PRIu64 " blocks of %" PRIu32 "", a->tpath,
			a->fslen, a->base, fs->dblocks, fs->blocksize);
		return false;
	}
	if (a->fslen < sizeof(sect) || xio_pread_full(a->fd, sect, sizeof(sect), a->base) != 0 ||
	    xfmt_sb_decode(sect, sizeof(sect), &sb) != 0 || sb.magicnum != XFS_SB_MAGIC) {
		xa_diag(a->msgs, "%s has no XFS superblock at byte %" PRIu64 ": not the "
			"planned filesystem", a->tpath, a->base);
		return false;
	}
	if (memcmp(sb.uuid, fs->uuid, 16)) {
		xa_diag(a->msgs, "%s: another filesystem: its uuid differs from the "
			"plan's", a->tpath);
		ok = false;
	}
	if (sb.blocksize != fs->blocksize || sb.dblocks != fs->dblocks ||
	    sb.agcount != fs->agcount || sb.agblocks != fs->agblocks ||
	    sb.sectsize != fs->sectsize) {
		xa_diag(a->msgs, "%s: its geometry (%" PRIu32 "-byte blocks, %" PRIu64
			" blocks, %" PRIu32 " AGs of %" PRIu32 ") differs from the plan's",
			a->tpath, sb.blocksize, sb.dblocks, sb.agcount, sb.agblocks);
		ok = false;
	}
	return ok;
}

/* ------------------------------------------------------------ the undo file */

/* Does the existing undo file u belong to plan p, write for write? */
static bool undo_matches(const struct xr_planfile *p, const struct xr_planfile *u)
{
	if (memcmp(u->plan_id, p->id, 32) || u->nchanges != p->nchanges ||
	    memcmp(u->fs.uuid, p->fs.uuid, 16))
		return false;
	for (size_t i = 0; i < p->nchanges; i++) {
		const struct xr_pf_change *pc = &p->changes[i], *uc = &u->changes[i];

		if (pc->offset != uc->offset || pc->len != uc->len ||
		    memcmp(pc->before, uc->after, 32) || memcmp(pc->after, uc->before, 32))
			return false;
	}
	return true;
}

/* Write the undo file: TARGET's current bytes (all "before", checked). */
static int write_undo(struct ap *a)
{
	struct ximg_out_opts guard = { .what = "the undo file" };
	struct xr_pf_xml px;
	uint8_t *payload = malloc(a->pf.payload_len ? (size_t)a->pf.payload_len : 1), sha[32];
	const uint8_t *index;
	char err[512], hex[65];
	size_t ilen;
	int rc = XERR_NOMEM;

	memset(&px, 0, sizeof(px));
	if (!payload || xr_pf_xml_begin(&px, XR_PF_UNDO, &a->pf.fs))
		goto out;
	xsha256_hex(a->pf.id, hex);
	xa_xw_start(&px.x, "undoes");
	xa_xw_attr(&px.x, "plan", hex);
	xa_xw_end(&px.x);
	for (size_t i = 0; i < a->pf.nchanges; i++) {
		const struct xr_pf_change *c = &a->pf.changes[i];

		if (xio_pread_full(a->fd, payload + c->payload_off, c->len, a->base + c->offset) != 0) {
			xa_diag(a->msgs, "%s: reading byte %" PRIu64 ": %s", a->tpath,
				a->base + c->offset, strerror(errno));
			rc = XERR_IO;
			goto out;
		}
	}
	xsha256(payload, (size_t)a->pf.payload_len, sha);
	xr_pf_xml_payload(&px, a->pf.payload_len, sha);
	xa_xw_start(&px.x, "changes");
	xa_xw_attr_u64(&px.x, "count", a->pf.nchanges);
	for (size_t i = 0; i < a->pf.nchanges && !px.x.failed; i++) {
		struct xr_pf_change u = a->pf.changes[i];

		memcpy(u.before, a->pf.changes[i].after, 32);
		memcpy(u.after, a->pf.changes[i].before, 32);
		xr_pf_xml_change(&px, &u);
	}
	xa_xw_end(&px.x);
	if (xr_pf_xml_end(&px, &index, &ilen))
		goto out;
	guard.in_path[0] = a->o->file;
	guard.in_path[1] = a->tpath;
	rc = xr_pf_save(a->o->undo, XR_PF_UNDO, index, ilen, payload, a->pf.payload_len, false,
			&guard, NULL, err, sizeof(err));
	if (rc)
		xa_diag(a->msgs, "the undo file: %s", err);
out:
	if (rc == XERR_NOMEM)
		xa_diag(a->msgs, "out of memory writing the undo file");
	xr_pf_xml_free(&px);
	free(payload);
	return rc;
}

/* Before the first write: an undo file, new or the one of an interrupted
 * run.  Returns 0 (go on) or an enum xr_apply_result. */
static int prepare_undo(struct ap *a)
{
	struct ximg_out_opts guard = { .what = "the undo file", .replace = true };
	struct xr_planfile u;
	bool exists;
	struct stat st;
	char err[512];
	int rc;

	if (!a->o->undo) {
		xa_diag(a->msgs, "note: no undo file (--undo UNDO keeps the old bytes)");
		return 0;
	}
	/* An existing UNDO is read, never written: yet it must be no alias of
	 * the plan or TARGET (a loop device over either, say). */
	guard.in_path[0] = a->o->file;
	guard.in_path[1] = a->tpath;
	if (ximg_out_check_name(a->o->undo, &guard, &exists, err, sizeof(err))) {
		xa_diag(a->msgs, "%s", err);
		return XR_APPLY_BAD_REQUEST;
	}
	if (lstat(a->o->undo, &st) == 0) {
		rc = xr_pf_load(a->o->undo, XR_PF_UNDO, &u, err, sizeof(err));
		if (rc) {
			xa_diag(a->msgs, "%s exists and is no undo file: %s", a->o->undo, err);
			return XR_APPLY_BAD_REQUEST;
		}
		if (!undo_matches(&a->pf, &u)) {
			xr_pf_release(&u);
			xa_diag(a->msgs, "%s exists and undoes another plan", a->o->undo);
			return XR_APPLY_BAD_REQUEST;
		}
		xr_pf_release(&u);
		xa_result(a->msgs, "resuming: %s (written by an earlier apply of this plan) "
			  "is kept", a->o->undo);
		return 0;
	}
	if (a->ndone) {
		xa_diag(a->msgs, "%zu of the writes are already in %s (an "
		       "interrupted apply?); their old bytes are gone, so a new undo file would be "
		       "incomplete.", a->ndone, a->tpath);
		xa_diag(a->msgs, "name the undo file the first apply wrote, or "
		       "apply without --undo");
		return XR_APPLY_REFUSED;
	}
	rc = write_undo(a);
	if (rc)
		return XR_APPLY_FAILED;
	xa_result(a->msgs, "undo file %s written", a->o->undo);
	return 0;
}

/* ------------------------------------------------------------ writing */

static int write_all_changes(struct ap *a)
{
	const char *env = getenv(STOP_ENV);
	unsigned long stop = env && *env ? strtoul(env, NULL, 10) : 0;
	char where[WHERE_MAX];
	size_t written = 0;

	for (size_t i = 0; i < a->pf.nchanges; i++) {
		const struct xr_pf_change *c = &a->pf.changes[i];

		if (a->state[i] != ST_BEFORE)
			continue;
		if (xio_pwrite_full(a->fd, a->pf.payload + c->payload_off, c->len,
				   a->base + c->offset) != 0) {
			xa_diag(a->msgs, "%s: write of %" PRIu32 " bytes at byte %" PRIu64
				" failed: %s", a->tpath, c->len, a->base + c->offset,
				strerror(errno));
			return XR_APPLY_FAILED;
		}
		written++;
		if (stop && written == stop)
			kill(getpid(), SIGKILL);   /* the test hook: an interrupted run */
	}
	if (fsync(a->fd) != 0) {
		xa_diag(a->msgs, "%s: fsync: %s", a->tpath, strerror(errno));
		return XR_APPLY_FAILED;
	}
	/* Read back: every range must now hold what the plan writes. */
	for (size_t i = 0; i < a->pf.nchanges; i++) {
		const struct xr_pf_change *c = &a->pf.changes[i];
		uint8_t sha[32];

		if (xio_pread_full(a->fd, a->buf, c->len, a->base + c->offset) != 0) {
			xa_diag(a->msgs, "%s: reading back byte %" PRIu64 ": %s", a->tpath,
				a->base + c->offset, strerror(errno));
			return XR_APPLY_FAILED;
		}
		xsha256(a->buf, c->len, sha);
		if (memcmp(sha, c->after, 32)) {
			describe(c, where, sizeof(where));
			xa_diag(a->msgs, "%s: %s does not hold the written bytes "
			       "after the sync", a->tpath, where);
			return XR_APPLY_FAILED;
		}
	}
	return 0;
}

enum xr_apply_result xr_apply(const struct xr_apply_opts *o, const struct xa_messages *msgs)
{
	const char *verb = o->undo_mode ? "undo" : "apply";
	char err[512], where[WHERE_MAX];
	struct ap a;
	int rc, code;

	memset(&a, 0, sizeof(a));
	a.o = o;
	a.msgs = msgs;
	a.tpath = o->target;
	a.fd = -1;
	rc = xr_pf_load(o->file, o->undo_mode ? XR_PF_UNDO : XR_PF_PLAN, &a.pf, err, sizeof(err));
	if (rc) {
		xa_diag(msgs, "%s", err);
		return rc == XERR_USAGE ? XR_APPLY_BAD_REQUEST : XR_APPLY_FAILED;
	}
	code = open_target(&a);
	if (!code)
		code = locate_filesystem(&a);
	if (code)
		goto out;
	if (classify(&a)) {
		xa_diag(msgs, "out of memory");
		code = XR_APPLY_FAILED;
		goto out;
	}
	if (!same_filesystem(&a)) {
		xa_diag(msgs, "%s: refused, nothing written", verb);
		code = XR_APPLY_REFUSED;
		goto out;
	}
	for (size_t i = 0; i < a.pf.nchanges; i++) {
		if (a.state[i] != ST_OTHER)
			continue;
		describe(&a.pf.changes[i], where, sizeof(where));
		xa_result(msgs, "divergent: %s holds neither the bytes the %s expects "
		       "nor the bytes it writes", where, o->undo_mode ? "undo file" : "plan");
	}
	if (a.nother) {
		xa_diag(msgs, "%s: %s: %zu of %zu planned ranges diverged; refused, nothing "
			"written", verb, a.tpath, a.nother, a.pf.nchanges);
		code = XR_APPLY_REFUSED;
		goto out;
	}
	if (o->dry_run) {
		xa_result(msgs, "verified: %s is the planned filesystem; %zu writes to make, "
			  "%zu already made (dry run: nothing written)", a.tpath, a.ntodo, a.ndone);
		code = XR_APPLY_DONE;
		goto out;
	}
	if (a.ntodo == 0) {
		xa_result(msgs, "nothing to do: all %zu writes are already in %s", a.ndone,
			  a.tpath);
		code = XR_APPLY_DONE;
		goto out;
	}
	if (!o->undo_mode) {
		code = prepare_undo(&a);
		if (code)
			goto out;
	}
	code = write_all_changes(&a);
	if (code)
		goto out;
	xa_result(msgs, "%s: %zu writes (%" PRIu64 " bytes in all ranges) made and read back, %zu "
		"were already in place", o->undo_mode ? "restored" : "applied", a.ntodo,
		a.pf.payload_len, a.ndone);
	code = XR_APPLY_DONE;
out:
	if (a.fd >= 0 && close(a.fd) != 0 && code == XR_APPLY_DONE && !o->dry_run) {
		xa_diag(msgs, "%s: close: %s", a.tpath, strerror(errno));
		code = XR_APPLY_FAILED;
	}
	free(a.buf);
	free(a.state);
	xr_pf_release(&a.pf);
	return code;
}
