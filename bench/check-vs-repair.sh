#!/bin/sh
# bench/check-vs-repair.sh - `xfsrecon check` against `xfs_repair -n` on the
# same image in the same run: wall time and peak memory of each, and ratios.
#
# usage: bench/check-vs-repair.sh [IMAGE]
#   Without IMAGE (as root with loop mounts), builds a populated scratch image
#   under $BENCH_DIR (default /tmp/xfsrecon-bench): BENCH_SIZE (default 8G),
#   BENCH_FILES files (default 200000) spread over directories, every third
#   file removed again to fragment free space and the inode btrees.
# The program measured is $XFSRECON (default ./xfsrecon).  Each tool runs
# BENCH_RUNS times (default 3); the best wall time and largest RSS are kept.
# Use an optimised build without sanitizers for meaningful figures.
set -eu

XFSRECON=${XFSRECON:-./xfsrecon}
BENCH_DIR=${BENCH_DIR:-/tmp/xfsrecon-bench}
BENCH_SIZE=${BENCH_SIZE:-8G}
BENCH_FILES=${BENCH_FILES:-200000}
BENCH_RUNS=${BENCH_RUNS:-3}
. "$(dirname "$0")/lib.sh"
bench_need_tools

img=${1:-}
if [ -z "$img" ]; then
	mkdir -p "$BENCH_DIR"
	img="$BENCH_DIR/bench-$BENCH_SIZE-$BENCH_FILES.img"
	if [ ! -f "$img" ]; then
		echo "bench: building $img ($BENCH_SIZE, $BENCH_FILES files)" >&2
		truncate -s "$BENCH_SIZE" "$img.tmp"
		mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$img.tmp"
		mnt="$BENCH_DIR/mnt"
		mkdir -p "$mnt"
		mount -o loop "$img.tmp" "$mnt"
		i=0
		while [ $i -lt "$BENCH_FILES" ]; do
			d="$mnt/d$((i / 1000))"
			[ -d "$d" ] || mkdir "$d"
			printf "%*s" $(( (i % 7) * 1500 + 1 )) "" > "$d/f$i"
			i=$((i + 1))
		done
		i=0
		while [ $i -lt "$BENCH_FILES" ]; do
			rm -f "$mnt/d$((i / 1000))/f$i"
			i=$((i + 3))
		done
		umount "$mnt"
		mv "$img.tmp" "$img"
	fi
fi

measure() { # prints "best_wall max_rss_kb"
	log=$(mktemp)
	n=0
	while [ $n -lt "$BENCH_RUNS" ]; do
		bench_run1 "$log" "$@"
		n=$((n + 1))
	done | bench_best
	rm -f "$log"
}

set -- $(measure "$XFSRECON" check -q --no-hash "$img")
our_t=$1 our_m=$2
set -- $(measure xfs_repair -n "$img")
rep_t=$1 rep_m=$2

printf 'image: %s (%s bytes)\n' "$img" "$(stat -c %s "$img")"
printf '%-22s %10s %12s\n' tool "wall (s)" "peak RSS (KiB)"
printf '%-22s %10s %12s\n' "xfsrecon check" "$our_t" "$our_m"
printf '%-22s %10s %12s\n' "xfs_repair -n" "$rep_t" "$rep_m"
awk -v a="$our_t" -v b="$rep_t" -v c="$our_m" -v d="$rep_m" 'BEGIN {
	printf "ratio xfsrecon/xfs_repair: wall %.2f, memory %.2f\n",
		(b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
