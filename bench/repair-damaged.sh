#!/bin/sh
# bench/repair-damaged.sh - `xfsrecon repair -o OUT` against what a user of
# xfs_repair does to keep the evidence: `cp --sparse=always` of the image,
# then `xfs_repair` on the copy.  Both on the same damaged image in the same
# run: wall time and peak RSS of each, the ratios, and what each output is
# worth (xfs_repair -n's verdict, the names it still lists).
#
# usage: bench/repair-damaged.sh [IMAGE]
#   IMAGE defaults to million-inodes.sh's cached image (built when missing:
#   root and loop mounts).  A damaged copy is made once beside it and
#   cached, with BENCH_SEED (default 1) choosing the damage:
#     - a directory inode zeroed (/d0500);
#     - the inode chunk of /d0300's first file zeroed (64 inodes);
#     - AG 2's bnobt root block zeroed;
#     - 0.5 % of the sectors of the AG headers, free-space, inode, reverse-map
#       and refcount btrees and inode chunks zeroed (BENCH_SECTORS_PERMIL,
#       default 5), picked at random with the seed.
#   Each command runs once untimed, then BENCH_RUNS times (default 3).
#   `repair -o` is timed with a report (the input's and OUT's SHA-256 are
#   computed for it) and without (then no digest is computed).
#
# The program measured is $XFSRECON (an optimised build without sanitizers,
# as million-inodes.sh makes when XFSRECON is unset).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
bench_need_tools

BENCH_DIR=${XFSRECON_BENCH_DIR:-${BENCH_DIR:-/tmp/xfsrecon-bench}}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_SECTORS_PERMIL=${BENCH_SECTORS_PERMIL:-5}
BENCH_RUNS=${BENCH_RUNS:-3}
command -v xfs_db >/dev/null || { echo "bench: xfs_db is needed" >&2; exit 1; }
command -v xfs_io >/dev/null || { echo "bench: xfs_io is needed" >&2; exit 1; }

img=${1:-}
if [ -z "$img" ]; then
	img=$(sh "$here/million-inodes.sh" --build-only) || exit $?
fi
[ -f "$img" ] || { echo "bench: no image $img" >&2; exit 1; }
bench_program "$top"

geo() { xfs_db -r -c 'sb 0' -c "print $1" "$img" | awk '{ print $3 }'; }
agblocks=$(geo agblocks) bsize=$(geo blocksize) inopblog=$(geo inopblog)
agblklog=$(geo agblklog) isize=$(geo inodesize)

# byte_of_ino INO: the byte its inode core starts at.
byte_of_ino() {
	awk -v i="$1" -v ab="$agblocks" -v bs="$bsize" -v ipl="$inopblog" -v abl="$agblklog" \
	    -v is="$isize" 'BEGIN {
		ipb = 2 ^ ipl; per_ag = 2 ^ (abl + ipl)
		ag = int(i / per_ag); r = i - ag * per_ag
		printf "%.0f\n", (ag * ab + int(r / ipb)) * bs + (r % ipb) * is }'
}

# damage SRC DST: the copy with the damage the header lists.
damage() {
	cp --sparse=always "$1" "$2.tmp"
	dino=$("$XFSRECON" ls -l "$1" / | awk '$NF == "d0500" { print $1 }')
	fino=$("$XFSRECON" ls -l "$1" /d0300 | awk 'NR == 1 { print $1 }')
	[ -n "$dino" ] && [ -n "$fino" ] || { echo "bench: /d0500 or /d0300 missing" >&2; exit 1; }
	chunk=$(awk -v i="$fino" 'BEGIN { printf "%.0f\n", i - i % 64 }')
	{
		echo "pwrite -q -S 0 $(byte_of_ino "$dino") $isize"
		echo "pwrite -q -S 0 $(byte_of_ino "$chunk") $((64 * isize))"
		# Sectors of metadata, as our fsmap lists their owners; awk's
		# srand(seed) makes the pick repeatable.
		"$XFSRECON" fsmap "$1" | awk -v ab="$agblocks" -v bs="$bsize" \
		    -v seed="$BENCH_SEED" -v pm="$BENCH_SECTORS_PERMIL" '
			BEGIN { srand(seed) }
			$4 == "AG" || $4 == "INOBT" || $4 == "REFC" || $4 == "INODES" {
				split($1, a, "/")
				start = (a[1] * ab + a[2]) * bs / 512
				for (s = 0; s < $3 * bs / 512; s++)
					if (rand() * 1000 < pm)
						printf "pwrite -q -S 0 %.0f 512\n", (start + s) * 512
			}'
	} > "$2.cmds"
	# Without -c, xfs_io reads its commands from standard input.
	xfs_io "$2.tmp" < "$2.cmds" >/dev/null
	xfs_db -x -c 'agf 2' -c 'addr bnoroot' -c 'type data' -c 'write fill 0' "$2.tmp" >/dev/null
	mv "$2.tmp" "$2"
	echo "damage: directory inode $dino, inode chunk $chunk, AG 2 bnobt root," \
		"$(($(wc -l < "$2.cmds") - 2)) metadata sectors (seed $BENCH_SEED," \
		"$BENCH_SECTORS_PERMIL per mille)" > "$2.damage"
}

dmg="$img.damaged-$BENCH_SEED-$BENCH_SECTORS_PERMIL"
[ -f "$dmg" ] || damage "$img" "$dmg"
work="$BENCH_DIR/repair-damaged"
logs="$BENCH_DIR/logs"
mkdir -p "$work" "$logs"

measure() { bench_measure "$logs" "$@"; }

# The user of xfs_repair copies first (the image is evidence), then repairs
# the copy: one command, so its wall time and peak RSS cover both.
cat > "$work/copy-repair.sh" <<'EOF'
rm -f "$2" && cp --sparse=always "$1" "$2" && xfs_repair "$2"
EOF
measure copy-xfs_repair sh "$work/copy-repair.sh" "$dmg" "$work/theirs.img"
x_runs=$r_runs x_med=$r_med x_rss=$r_rss x_st=$r_st
measure repair-o "$XFSRECON" repair "$dmg" -o "$work/ours.img" --force --report "$work/ours.xml"
o_runs=$r_runs o_med=$r_med o_rss=$r_rss o_st=$r_st
measure repair-o-noreport "$XFSRECON" repair "$dmg" -o "$work/ours-noreport.img" --force
n_runs=$r_runs n_med=$r_med n_rss=$r_rss n_st=$r_st

# What each output is worth.
verdict() { xfs_repair -n "$1" >/dev/null 2>&1 && echo clean || echo "not clean"; }
names() { "$XFSRECON" ls -R "$1" / 2>/dev/null | grep -vc '^lost+found' || :; }
printf 'image: %s (%s bytes apparent, %s KiB allocated)\n' "$dmg" \
	"$(stat -c %s "$dmg")" "$(du -k "$dmg" | cut -f1)"
cat "$dmg.damage"
printf 'runs: %s timed after one warm-up each; median wall, largest RSS\n' "$BENCH_RUNS"
row() { printf '%-34s %-20s %8s %12s %5s %8s %8s\n' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row tool "wall runs (s)" median "RSS (KiB)" exit "wall/xr" "mem/xr"
row "cp --sparse=always + xfs_repair" "$x_runs" "$x_med" "$x_rss" "$x_st" 1.00 1.00
row "xfsrecon repair -o --report" "$o_runs" "$o_med" "$o_rss" "$o_st" \
	"$(ratio "$o_med" "$x_med")" "$(ratio "$o_rss" "$x_rss")"
row "xfsrecon repair -o (no report)" "$n_runs" "$n_med" "$n_rss" "$n_st" \
	"$(ratio "$n_med" "$x_med")" "$(ratio "$n_rss" "$x_rss")"
echo "(wall/xr, mem/xr: ratio to the copy and xfs_repair)"
echo "xfs_repair -n on the outputs: theirs $(verdict "$work/theirs.img"), ours $(verdict "$work/ours.img")"
echo "names outside lost+found: theirs $(names "$work/theirs.img"), ours $(names "$work/ours.img")," \
	"the undamaged image $(names "$img")"
cmp -s "$work/ours.img" "$work/ours-noreport.img" && echo "without a report: the same bytes" ||
	echo "without a report: OTHER bytes"
