#!/bin/sh
# bench/sparse-100t.sh - a 100 TiB filesystem of hundreds of AGs, mostly
# empty, holding a couple of million inodes: `xfsrecon check` against
# `xfs_repair -n` (wall time, peak RSS, ratios).  What it shows is the cost
# of AGs and of the blocks nobody uses: memory must follow what the image
# holds, not the size it claims.
#
# usage: bench/sparse-100t.sh
#   The image is a sparse file of BENCH_SPARSE_SIZE (default 100T) with
#   BENCH_SPARSE_AGS AGs (default 400), populated through a loop mount with
#   BENCH_SPARSE_FILES files (default 2000000, empty) in BENCH_SPARSE_DIRS
#   directories (default 2000) by million-inodes.sh's helper.  ext4 holds no
#   file past 16 TiB, so the image lives in an XFS host image (20 GiB,
#   sparse) mounted beside it; both are cached under $XFSRECON_BENCH_DIR
#   (default /tmp/xfsrecon-bench) and the host stays mounted while the
#   benchmark runs.  Root and loop mounts are needed (exit 77 otherwise).
#   Each command runs once untimed, then BENCH_RUNS times (default 3).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
bench_need_tools

BENCH_DIR=${XFSRECON_BENCH_DIR:-${BENCH_DIR:-/tmp/xfsrecon-bench}}
BENCH_SPARSE_SIZE=${BENCH_SPARSE_SIZE:-100T}
BENCH_SPARSE_AGS=${BENCH_SPARSE_AGS:-400}
BENCH_SPARSE_FILES=${BENCH_SPARSE_FILES:-2000000}
BENCH_SPARSE_DIRS=${BENCH_SPARSE_DIRS:-2000}
BENCH_RUNS=${BENCH_RUNS:-3}

skip() { echo "bench: skipped: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "the host image needs root (loop mount)"

# The population helper comes from million-inodes.sh (built there).
sh "$here/million-inodes.sh" --build-only > /dev/null || exit $?
helper="$BENCH_DIR/populate"
[ -x "$helper" ] || skip "million-inodes.sh left no population helper"

hostimg="$BENCH_DIR/sparse-host.img"
host="$BENCH_DIR/sparse-host"
name="sparse-$BENCH_SPARSE_SIZE-$BENCH_SPARSE_AGS-$BENCH_SPARSE_DIRS-$BENCH_SPARSE_FILES.img"
mkdir -p "$host"
if ! mountpoint -q "$host"; then
	if [ ! -f "$hostimg" ]; then
		truncate -s 20G "$hostimg"
		mkfs.xfs -q -f "$hostimg"
	fi
	mount -o loop "$hostimg" "$host" 2>/dev/null || skip "cannot loop mount"
	trap 'umount "$host" 2>/dev/null || :' EXIT
fi
img="$host/$name"
if [ ! -f "$img" ]; then
	echo "bench: building $img" >&2
	t0=$(date +%s)
	truncate -s "$BENCH_SPARSE_SIZE" "$img.tmp"
	mkfs.xfs -q -f -d agcount="$BENCH_SPARSE_AGS" "$img.tmp"
	mnt="$BENCH_DIR/sparse-mnt"
	mkdir -p "$mnt"
	mount -o loop,nouuid "$img.tmp" "$mnt" || skip "cannot loop mount the sparse image"
	"$helper" tree "$mnt" "$BENCH_SPARSE_DIRS" "$BENCH_SPARSE_FILES" 2
	used=$(df -i "$mnt" | awk 'NR == 2 { print $3 }')
	umount "$mnt"
	mv "$img.tmp" "$img"
	echo "built $(date -u +%Y-%m-%dT%H:%MZ) in $(($(date +%s) - t0)) s: $used inodes in use" > "$img.build"
fi
bench_program "$top"
logs="$BENCH_DIR/logs"
mkdir -p "$logs"

measure() { bench_measure "$logs" "$@"; }
measure sparse-check "$XFSRECON" check -q --no-hash "$img"
c_runs=$r_runs c_med=$r_med c_rss=$r_rss c_st=$r_st
measure sparse-repair-n xfs_repair -n "$img"
x_runs=$r_runs x_med=$r_med x_rss=$r_rss x_st=$r_st

printf 'image: %s (%s bytes apparent, %s KiB allocated, %s AGs)\n' "$img" \
	"$(stat -c %s "$img")" "$(du -k "$img" | cut -f1)" "$BENCH_SPARSE_AGS"
cat "$img.build"
printf 'runs: %s timed after one warm-up each; median wall, largest RSS\n' "$BENCH_RUNS"
row() { printf '%-26s %-20s %8s %12s %5s %8s %8s\n' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row tool "wall runs (s)" median "RSS (KiB)" exit "wall/xr" "mem/xr"
row "xfsrecon check -q" "$c_runs" "$c_med" "$c_rss" "$c_st" \
	"$(ratio "$c_med" "$x_med")" "$(ratio "$c_rss" "$x_rss")"
row "xfs_repair -n" "$x_runs" "$x_med" "$x_rss" "$x_st" 1.00 1.00
echo "(wall/xr, mem/xr: ratio to xfs_repair -n)"
