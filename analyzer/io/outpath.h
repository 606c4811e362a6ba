/*
 * outpath.h - every file xfsrecon writes is named and opened here: the one
 * place that decides whether a path the user gave may be written, so that
 * no output (image, plan, undo file, report, picture) can land on the
 * evidence under another name.
 *
 * The rules (README.md, "Where output may go"):
 *   - never the input, nor anything that aliases it: the same inode under
 *     another name, a device node of the same block device, a loop device
 *     backed by it (matched by device and inode number, so a deleted or
 *     renamed backing file is still seen), the block device holding the
 *     filesystem that holds it, the whole disk of that partition or a
 *     partition of that disk, the device below a device-mapper or md
 *     device -- and, the other way round, never a file inside a filesystem
 *     the input device (or a loop device over the input file) holds;
 *   - a block device only where the caller allows one (repair -o), and only
 *     with force; reports, pictures, plans and undo files never go to one;
 *   - a new name is created with O_CREAT | O_EXCL | O_NOFOLLOW, so a
 *     symlink planted at it (even a dangling one) is never followed;
 *   - an existing name is replaced only with force (reports: see replace),
 *     and a symlink there is followed only with force; whatever it reaches
 *     is checked by the rules above on the opened file itself.
 */
#ifndef XIMG_OUTPATH_H
#define XIMG_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define XIMG_OUT_MAX_INPUTS 4

struct ximg_out_opts {
	const char *what;          /* names the document in messages: "the report" */
	/* The evidence to protect: paths (NULL entries are skipped) and an
	 * open descriptor of the input (used when in_fd_set). */
	const char *in_path[XIMG_OUT_MAX_INPUTS];
	int         in_fd;
	bool        in_fd_set;
	bool        force;         /* replace an existing OUT; follow a symlink there */
	bool        replace;       /* an existing regular file (not a symlink) may be
				    * replaced without force (reports, rewritten on each run) */
	bool        block_ok;      /* a block device may be written (with force) */
	bool        stream_ok;     /* a character device or FIFO may be written */
	bool        rdwr;          /* open O_RDWR, not O_WRONLY */
	bool        truncate;      /* empty an existing regular file once it is proved safe */
	mode_t      mode;          /* a new file's mode */
};

/*
 * Open path for writing under the rules above.  *fd receives the open
 * descriptor; *created says a new file was made (the caller removes it if
 * writing fails); *is_blk says it is a block device (opened O_EXCL, which
 * fails while it is mounted or claimed).  Returns 0, XERR_EXISTS (exists,
 * not forced), XERR_USAGE (aliases the input, a refused kind of file, a
 * symlink) or XERR_IO; err receives one line.
 */
int ximg_out_open(const char *path, const struct ximg_out_opts *o, int *fd, bool *created,
		  bool *is_blk, char *err, size_t errlen);

/*
 * For a file written elsewhere and renamed onto path (plans, undo files):
 * may path be replaced?  A missing path is fine (*exists false); an existing
 * one needs force (or replace), must be a regular file or a symlink (the
 * rename replaces the link, never its target) and must not alias the input.
 * Returns 0, XERR_EXISTS or XERR_USAGE; err receives one line.
 */
int ximg_out_check_name(const char *path, const struct ximg_out_opts *o, bool *exists,
			char *err, size_t errlen);

/* Does writing to the object st describes touch the object in describes?
 * Returns a phrase saying how ("is a loop device backed by the input"), or
 * NULL. */
const char *ximg_out_aliases(const struct stat *out, const struct stat *in);

/* The file behind loop device rdev (LOOP_GET_STATUS64: device and inode,
 * true even when the file was deleted or renamed); false when rdev is no
 * bound loop device or it cannot be asked. */
bool ximg_loop_backing(dev_t rdev, dev_t *dev, ino_t *ino);

#endif /* XIMG_OUTPATH_H */
