#!/bin/sh
# bench/million-inodes.sh - a million-inode image: `xfsrecon check`,
# `xfs_repair -n` and `xfsrecon repair --dry-run` timed on the same image in
# the same run (wall time and peak RSS of each, and ratios to xfs_repair -n).
#
# usage: bench/million-inodes.sh [IMAGE]
#        bench/million-inodes.sh --build-only   (print the cached image's path)
#   Without IMAGE, builds once and caches under $XFSRECON_BENCH_DIR (default
#   $BENCH_DIR, else /tmp/xfsrecon-bench) an image of BENCH_SIZE (default 8G)
#   with rmapbt and reflink, BENCH_DIRS directories (default 1000) holding
#   BENCH_FILES files in all (default 1000000, 2% of them removed again): a
#   tenth of the directories short form, a tenth single block, a tenth leaf
#   form, the rest node form; a quarter of the files hold data; BENCH_FRAG
#   files (default 4) of 2000, 4000, ... extents (written whole, then every
#   other block punched), a reflinked copy of the most fragmented one and an
#   unwritten preallocation.  BENCH_MKFS (default "-m rmapbt=1,reflink=1")
#   are mkfs.xfs's options; other options give another cached image (their
#   characters that cannot be in a file name become _).  Building needs root and loop mounts (exit 77
#   otherwise); a small C helper, compiled on the spot, makes the files with
#   BENCH_JOBS processes (default 2).  The build time is recorded beside the
#   image and printed on every run.
#
# The program measured is $XFSRECON; when unset, an optimised build without
# sanitizers is configured and made in $XFSRECON_BENCH_BUILD (default
# _build-bench in the source tree).  Each command runs once untimed to warm
# the page cache, then BENCH_RUNS times (default 3); every run is printed,
# and the ratios use the median wall time and the largest peak RSS.  The full
# `time -v` reports are kept in the cache directory under logs/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
bench_need_tools

BENCH_DIR=${XFSRECON_BENCH_DIR:-${BENCH_DIR:-/tmp/xfsrecon-bench}}
BENCH_SIZE=${BENCH_SIZE:-8G}
BENCH_DIRS=${BENCH_DIRS:-1000}
BENCH_FILES=${BENCH_FILES:-1000000}
BENCH_FRAG=${BENCH_FRAG:-4}
BENCH_JOBS=${BENCH_JOBS:-2}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_MKFS=${BENCH_MKFS:--m rmapbt=1,reflink=1}

skip() { echo "bench: skipped: $*" >&2; exit 77; }

# The population helper: "tree ROOT NDIRS NFILES JOBS" makes the directories
# and files; "frag PATH NEXTENTS" writes 2*NEXTENTS blocks then punches every
# other one; "clone SRC DST" reflinks a whole file; "prealloc PATH BYTES".
write_helper() {
	cat > "$1" <<'CEOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLK 4096

/* Files in directory d: sizes chosen so each directory format appears. */
static long files_in(long d, long ndirs, long nfiles)
{
	long tenth = ndirs / 10, rest = ndirs - 3 * tenth;
	switch (d % 10) {
	case 0: return 4;       /* short form */
	case 1: return 100;     /* single block */
	case 2: return 300;     /* leaf */
	default: return rest > 0 ? (nfiles - tenth * 404) / rest : 0; /* node */
	}
}

static int tree_part(const char *root, long first, long ndirs, long nfiles, long step)
{
	static char data[BLK];
	char path[4096];
	memset(data, 'x', sizeof data);
	for (long d = first; d < ndirs; d += step) {
		long n = files_in(d, ndirs, nfiles);
		snprintf(path, sizeof path, "%s/d%04ld", root, d);
		if (mkdir(path, 0755) && errno != EEXIST) { perror(path); return 1; }
		for (long f = 0; f < n; f++) {
			snprintf(path, sizeof path, "%s/d%04ld/file-%07ld", root, d, f);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0) { perror(path); return 1; }
			if (f % 4 == 0 && write(fd, data, (size_t)(f % BLK) + 1) < 0) {
				perror(path); close(fd); return 1;
			}
			close(fd);
		}
		/* holes in the directories and the inode chunks */
		for (long f = 7; f < n; f += 50) {
			snprintf(path, sizeof path, "%s/d%04ld/file-%07ld", root, d, f);
			if (unlink(path)) { perror(path); return 1; }
		}
	}
	return 0;
}

static int tree(const char *root, long ndirs, long nfiles, long jobs)
{
	int st, bad = 0;
	for (long j = 0; j < jobs; j++) {
		pid_t p = fork();
		if (p < 0) { perror("fork"); return 1; }
		if (p == 0) _exit(tree_part(root, j, ndirs, nfiles, jobs));
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st)) bad = 1;
	return bad;
}

static int frag(const char *path, long next)
{
	static char data[256 * BLK];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) { perror(path); return 1; }
	memset(data, 'f', sizeof data);
	for (long b = 0; b < 2 * next; b += 256) {
		long n = 2 * next - b < 256 ? 2 * next - b : 256;
		if (pwrite(fd, data, (size_t)n * BLK, (off_t)b * BLK) < 0) { perror(path); goto fail; }
	}
	if (fsync(fd)) { perror(path); goto fail; }
	for (long b = 1; b < 2 * next; b += 2)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)b * BLK, BLK)) { perror(path); goto fail; }
	return close(fd) ? 1 : 0;
fail:
	close(fd);
	return 1;
}

static int clone_file(const char *src, const char *dst)
{
	int s = open(src, O_RDONLY), d = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = 0;
	if (s < 0 || d < 0 || ioctl(d, FICLONE, s)) { perror(dst); rc = 1; }
	if (s >= 0) close(s);
	if (d >= 0) close(d);
	return rc;
}

static int prealloc(const char *path, long bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), rc = 0;
	if (fd < 0 || fallocate(fd, 0, 0, bytes)) { perror(path); rc = 1; }
	if (fd >= 0) close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "tree"))
		return tree(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
	if (argc == 4 && !strcmp(argv[1], "frag"))
		return frag(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "clone"))
		return clone_file(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "prealloc"))
		return prealloc(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: populate tree|frag|clone|prealloc ...\n");
	return 2;
}
CEOF
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

build_image() { # IMG: makes it (as IMG.tmp, renamed when complete)
	[ "$(id -u)" -eq 0 ] || skip "building the image needs root (loop mount)"
	command -v mkfs.xfs >/dev/null || skip "mkfs.xfs is missing"
	cc=${CC:-cc}
	command -v "$cc" >/dev/null || skip "a C compiler is needed for the population helper"
	helper="$BENCH_DIR/populate"
	write_helper "$helper.c"
	"$cc" -O2 -Wall -o "$helper" "$helper.c"

	echo "bench: building $1 ($BENCH_SIZE, $BENCH_DIRS dirs, $BENCH_FILES files)" >&2
	t0=$(now)
	rm -f "$1.tmp"
	truncate -s "$BENCH_SIZE" "$1.tmp"
	# shellcheck disable=SC2086 # the options are words
	mkfs.xfs -q -f $BENCH_MKFS "$1.tmp"
	mnt="$BENCH_DIR/mnt"
	mkdir -p "$mnt"
	mount -o loop "$1.tmp" "$mnt" 2>/dev/null || { rm -f "$1.tmp"; skip "cannot loop mount"; }
	trap 'umount "$mnt" 2>/dev/null || :' EXIT
	t1=$(now)
	"$helper" tree "$mnt" "$BENCH_DIRS" "$BENCH_FILES" "$BENCH_JOBS"
	t2=$(now)
	mkdir "$mnt/frag"
	i=1
	while [ $i -le "$BENCH_FRAG" ]; do
		"$helper" frag "$mnt/frag/f$i" $((i * 2000))
		i=$((i + 1))
	done
	# A filesystem made without reflink has no clone to make.
	if [ "$BENCH_FRAG" -gt 0 ] && ! "$helper" clone "$mnt/frag/f$BENCH_FRAG" "$mnt/frag/clone" 2>/dev/null; then
		echo "bench: no reflinked copy (mkfs options: $BENCH_MKFS)" >&2
	fi
	"$helper" prealloc "$mnt/frag/unwritten" $((64 * 1024 * 1024))
	t3=$(now)
	used=$(df -i "$mnt" | awk 'NR == 2 { print $3 }')
	umount "$mnt"
	trap - EXIT
	t4=$(now)
	mv "$1.tmp" "$1"
	{
		echo "built $(date -u +%Y-%m-%dT%H:%MZ): $used inodes in use"
		echo "build: mkfs+mount $(elapsed "$t0" "$t1") s, tree $(elapsed "$t1" "$t2") s," \
			"fragmented files $(elapsed "$t2" "$t3") s, unmount $(elapsed "$t3" "$t4") s," \
			"total $(elapsed "$t0" "$t4") s"
	} > "$1.build"
}

img=${1:-}
build_only=
[ "$img" = --build-only ] && build_only=1 img=
if [ -z "$img" ]; then
	mkdir -p "$BENCH_DIR"
	img="$BENCH_DIR/million-$BENCH_SIZE-$BENCH_DIRS-$BENCH_FILES-$BENCH_FRAG"
	# The default options keep the name images were cached under before.
	[ "$BENCH_MKFS" = "-m rmapbt=1,reflink=1" ] ||
		img="$img-$(printf '%s' "$BENCH_MKFS" | tr -c 'A-Za-z0-9=,.-' '_' | sed 's/^[-_]*//')"
	img="$img.img"
	[ -f "$img" ] || build_image "$img"
fi
[ -f "$img" ] || { echo "bench: no image $img" >&2; exit 1; }
[ -z "$build_only" ] || { printf '%s\n' "$img"; exit 0; }

bench_program "$top"

logs="$BENCH_DIR/logs"
mkdir -p "$logs"

measure() { bench_measure "$logs" "$@"; }

measure check "$XFSRECON" check -q --no-hash "$img"
c_runs=$r_runs c_med=$r_med c_rss=$r_rss c_st=$r_st
measure repair-n xfs_repair -n "$img"
x_runs=$r_runs x_med=$r_med x_rss=$r_rss x_st=$r_st
measure dry-run "$XFSRECON" repair --dry-run "$img"
d_runs=$r_runs d_med=$r_med d_rss=$r_rss d_st=$r_st

printf 'image: %s (%s bytes apparent, %s KiB allocated)\n' "$img" \
	"$(stat -c %s "$img")" "$(du -k "$img" | cut -f1)"
[ -f "$img.build" ] && cat "$img.build"
printf 'runs: %s timed after one warm-up each; median wall, largest RSS\n' "$BENCH_RUNS"
row() { # label runs median rss status ratio_w ratio_m
	printf '%-26s %-20s %8s %12s %5s %8s %8s\n' "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row tool "wall runs (s)" "median" "RSS (KiB)" exit "wall/xr" "mem/xr"
row "xfsrecon check -q" "$c_runs" "$c_med" "$c_rss" "$c_st" \
	"$(ratio "$c_med" "$x_med")" "$(ratio "$c_rss" "$x_rss")"
row "xfs_repair -n" "$x_runs" "$x_med" "$x_rss" "$x_st" 1.00 1.00
row "xfsrecon repair --dry-run" "$d_runs" "$d_med" "$d_rss" "$d_st" \
	"$(ratio "$d_med" "$x_med")" "$(ratio "$d_rss" "$x_rss")"
echo "(wall/xr, mem/xr: ratio to xfs_repair -n)"
