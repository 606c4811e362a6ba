#!/bin/sh
# bench/scale-series.sh - how `xfsrecon check` grows with the number of
# inodes, against `xfs_repair -n` on the same images: for each size of the
# series, wall time and peak RSS of both, and per inode in use (microseconds
# and bytes).  A flat or falling column per inode is what "memory bounded at
# any size" means.
#
# usage: bench/scale-series.sh
#   BENCH_SERIES lists the file counts (default "100000 1000000 4000000");
#   each image is million-inodes.sh's (rmapbt and reflink, 1000 directories
#   of every form, a quarter of the files with data), built once and cached
#   by it, on a filesystem of 8 GiB up to a million files and 24 GiB past.
#   Each command runs once untimed, then BENCH_RUNS times (default 3).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
bench_need_tools

BENCH_DIR=${XFSRECON_BENCH_DIR:-${BENCH_DIR:-/tmp/xfsrecon-bench}}
BENCH_SERIES=${BENCH_SERIES:-100000 1000000 4000000}
BENCH_RUNS=${BENCH_RUNS:-3}

bench_program "$top"
export XFSRECON
logs="$BENCH_DIR/logs"
mkdir -p "$logs"

best() { bench_measure "$logs" "$@"; }

printf '%-9s %9s | %8s %10s %7s %7s | %8s %10s %7s %7s | %6s %6s\n' files inodes \
	"ours s" "ours KiB" "us/ino" "B/ino" "xr s" "xr KiB" "us/ino" "B/ino" "wall" "mem"
for files in $BENCH_SERIES; do
	size=8G
	[ "$files" -le 1000000 ] || size=24G
	img=$(BENCH_FILES=$files BENCH_SIZE=$size sh "$here/million-inodes.sh" --build-only) ||
		exit $?
	inodes=$(awk '/inodes in use/ { for (i = 1; i < NF; i++) if ($(i + 1) == "inodes") print $i }' \
		"$img.build")
	best "series-$files-check" "$XFSRECON" check -q --no-hash "$img"
	o_med=$r_med o_rss=$r_rss
	best "series-$files-repair-n" xfs_repair -n "$img"
	x_med=$r_med x_rss=$r_rss
	awk -v f="$files" -v n="$inodes" -v om="$o_med" -v orss="$o_rss" -v xm="$x_med" \
	    -v xrss="$x_rss" 'BEGIN {
		printf "%-9s %9s | %8.2f %10d %7.2f %7.0f | %8.2f %10d %7.2f %7.0f | %6.2f %6.2f\n",
			f, n, om, orss, om * 1e6 / n, orss * 1024 / n,
			xm, xrss, xm * 1e6 / n, xrss * 1024 / n, om / xm, orss / xrss }'
done
echo "(ours: xfsrecon check -q --no-hash; xr: xfs_repair -n; wall, mem: ours / xr)"
