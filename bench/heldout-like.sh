#!/bin/sh
# bench/heldout-like.sh - `xfsrecon repair -o OUT` against `xfs_repair` on
# cases like the held-out corruption set's: filesystems of 1-2 GiB made and
# populated by the kernel, each damaged in one field at a time as xfstests'
# fuzz tests do (xfs_db's fuzz verbs, CRC recomputed), both tools on the same
# damaged image in the same run.
#
# usage: bench/heldout-like.sh
#   BENCH_SHAPES: the images, "SIZE|DIRS|FILES|MKFS OPTIONS" separated by ";"
#     (default a 1 GiB image of 20,000 files without rmapbt and a 2 GiB image
#     of 50,000 files with rmapbt and reflink), built once by
#     million-inodes.sh (root, loop mounts) and cached with it.
#   For each image, one case per structure below that it has (AG 1 for the
#   per-AG ones), each a copy with one field fuzzed by a verb that depends on
#   the case's place in the list, so every run damages the same bytes:
#     superblock counters, AGF and AGI roots and counters, the AGFL count,
#     the roots of the free-space, inode and reverse-map btrees, the core of
#     a directory, of a regular file and of the root, and the first
#     directory block of a block-form and of a node-form directory.
#   Per case, each command once untimed, then BENCH_RUNS times (default 3):
#     xfs_repair IMG    on a fresh copy (the copy made and synced untimed)
#     cp --sparse=always IMG COPY
#     xfsrecon repair IMG -o OUT             (a repair without a report)
#     xfsrecon repair IMG -o OUT --report R  (the input's and OUT's SHA-256 too)
#   then both outputs judged by xfs_repair -n.  BENCH_CASES (shell patterns
#   of case names, default all) runs some of them.  Printed: a row per case (the
#   medians, the ratios of ours to xfs_repair alone and to the copy plus
#   xfs_repair) and the median ratio over all cases.
#
# The program measured is $XFSRECON (an optimised build without sanitizers,
# as million-inodes.sh makes when XFSRECON is unset).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/lib.sh"
bench_need_tools
command -v xfs_db >/dev/null || { echo "bench: xfs_db is needed" >&2; exit 1; }

BENCH_DIR=${XFSRECON_BENCH_DIR:-${BENCH_DIR:-/tmp/xfsrecon-bench}}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_SHAPES=${BENCH_SHAPES:-"1G|50|20000|-m rmapbt=0,reflink=0;2G|100|50000|-m rmapbt=1,reflink=1"}
export BENCH_DIR

bench_program "$top"
work="$BENCH_DIR/heldout-like"
logs="$BENCH_DIR/logs"
mkdir -p "$work" "$logs"

VERBS="ones zeroes firstbit lastbit middlebit add sub"

# verb N: the Nth verb of VERBS, round robin.
verb() {
	set -- "$1" $VERBS
	_i=$(($1 % (${#} - 1) + 2))
	eval "printf '%s\n' \"\${$_i}\""
}

# ino_of IMG DIR NAME_TEST: the inode of the first entry of DIR whose
# `ls -l` line passes the awk condition NAME_TEST.
ino_of() {
	"$XFSRECON" ls -l "$1" "$2" 2>/dev/null | awk "$3 { print \$1; exit }"
}

# targets IMG: "NAME|NAV|FIELD" lines; NAV is xfs_db commands separated by ";".
# A target the image lacks (no rmapbt) is left out.
targets() {
	_img=$1
	_root=$(xfs_db -r -c 'sb 0' -c 'print rootino' "$_img" | awk '{ print $3 }')
	# The largest directory is in node form, one of 4096 bytes a single block.
	_node=$("$XFSRECON" ls -l "$_img" / | awk '$2 ~ /^d/ && $6 > s { s = $6; i = $1 } END { print i }')
	_block=$(ino_of "$_img" / '$2 ~ /^d/ && $6 == 4096')
	_dname=$("$XFSRECON" ls -l "$_img" / | awk -v i="$_node" '$1 == i { print $NF; exit }')
	_file=$(ino_of "$_img" "/$_dname" '$2 ~ /^-/ && $6 > 0')
	cat <<EOF
sb0-fdblocks|sb 0|fdblocks
sb0-icount|sb 0|icount
agf-bnoroot|agf 1|bnoroot
agf-freeblks|agf 1|freeblks
agf-longest|agf 1|longest
agf-flcount|agf 1|flcount
agi-root|agi 1|root
agi-count|agi 1|count
bnobt-numrecs|agf 1;addr bnoroot|numrecs
cntbt-level|agf 1;addr cntroot|level
inobt-numrecs|agi 1;addr root|numrecs
dir-mode|inode $_node|core.mode
dir-size|inode $_node|core.size
file-nextents|inode $_file|core.nextents
file-format|inode $_file|core.format
root-nlink|inode $_root|core.nlinkv2
EOF
	if xfs_db -r -c version "$_img" | grep -q 'RMAPBT'; then
		echo "rmapbt-numrecs|agf 1;addr rmaproot|numrecs"
	fi
	if [ -n "$_block" ]; then
		_f=$(xfs_db -r -c "inode $_block" -c 'dblock 0' -c print "$_img" | awk -F' = ' 'NR == 1 { print $1 }')
		[ -z "$_f" ] || echo "dirblock-magic|inode $_block;dblock 0|$_f"
	fi
	_f=$(xfs_db -r -c "inode $_node" -c 'dblock 0' -c print "$_img" | awk -F' = ' 'NR == 1 { print $1 }')
	[ -z "$_f" ] || echo "dirdata-magic|inode $_node;dblock 0|$_f"
}

# damage SRC DST NAV FIELD VERB: DST is SRC with FIELD fuzzed; 0 when the
# field changed.
damage() {
	cp --sparse=always "$1" "$2.tmp"
	_args=$(printf '%s' "$3" | awk -F';' '{ for (i = 1; i <= NF; i++) printf "-c \"%s\" ", $i }')
	eval "xfs_db -x $_args -c \"fuzz -d $4 $5\" \"$2.tmp\"" > "$2.fuzz" 2>&1 || :
	if cmp -s "$1" "$2.tmp"; then
		rm -f "$2.tmp"
		return 1
	fi
	mv "$2.tmp" "$2"
}

# The timed commands: each makes its output afresh, as a user would.
# xfs_repair's copy is made and synced untimed: its own fsync must not pay
# for writing the copy out.
cat > "$work/xr.sh" <<'EOF'
cp --sparse=always "$1" "$2.copy" && sync "$2.copy" && mv "$2.copy" "$2"
EOF
cat > "$work/cp.sh" <<'EOF'
rm -f "$2" && cp --sparse=always "$1" "$2"
EOF
cat > "$work/ours.sh" <<'EOF'
rm -f "$3" && exec "$1" repair "$2" -o "$3" -q
EOF
cat > "$work/ours-report.sh" <<'EOF'
rm -f "$3" "$3.xml" && exec "$1" repair "$2" -o "$3" -q --report "$3.xml"
EOF

# xr_runs DMG: xfs_repair on a fresh copy, the copy untimed; sets r_med, r_st.
xr_runs() {
	_n=0 _lines=""
	while [ $_n -le "$BENCH_RUNS" ]; do
		sh "$work/xr.sh" "$1" "$work/theirs.img"
		_l=$(bench_run1 "$logs/heldout-xr.$_n" xfs_repair "$work/theirs.img")
		# The first run warms the page cache.
		[ $_n -eq 0 ] || _lines="$_lines$_l
"
		_n=$((_n + 1))
	done
	r_med=$(printf '%s' "$_lines" | sort -n | awk '{ w[NR] = $1 }
		END { printf "%.2f", (NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2) }')
	r_st=$(printf '%s' "$_lines" | awk '{ s[$3] = 1 } END { for (k in s) o = o (o ? "," : "") k; print o }')
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { [ -f "$1" ] && xfs_repair -n "$1" >/dev/null 2>&1 && echo clean || echo unclean; }
row() { printf '%-8s %-16s %-9s %7s %6s %7s %9s %8s %8s %8s %-8s %-8s\n' "$@"; }

results="$work/results.tsv"
: > "$results"
row image case verb "xr (s)" "cp (s)" "ours(s)" "+report" "ours/xr" "/cp+xr" "rep/xr" ours xr
n=0
old_ifs=$IFS
IFS=';'
# shellcheck disable=SC2086 # split on ";"
set -- $BENCH_SHAPES
IFS=$old_ifs
for shape in "$@"; do
	size=$(printf '%s' "$shape" | cut -d'|' -f1)
	dirs=$(printf '%s' "$shape" | cut -d'|' -f2)
	files=$(printf '%s' "$shape" | cut -d'|' -f3)
	mkfs=$(printf '%s' "$shape" | cut -d'|' -f4)
	img=$(BENCH_SIZE=$size BENCH_DIRS=$dirs BENCH_FILES=$files BENCH_MKFS=$mkfs \
		sh "$here/million-inodes.sh" --build-only) || exit $?
	tag=$size
	case "$mkfs" in *rmapbt=1*) tag="$tag+rmap" ;; esac
	targets "$img" > "$work/targets"
	while IFS='|' read -r name nav field; do
		v=$(verb "$n")
		n=$((n + 1))
		want=
		[ -n "${BENCH_CASES:-}" ] || want=1
		# The patterns are matched against case names, not files here.
		set -f
		for p in ${BENCH_CASES:-}; do
			# shellcheck disable=SC2254 # the pattern is the user's
			case "$name" in $p) want=1 ;; esac
		done
		set +f
		[ -n "$want" ] || continue
		dmg="$work/$tag.$name.img"
		if ! damage "$img" "$dmg" "$nav" "$field" "$v"; then
			row "$tag" "$name" "$v" "(the fuzz changed nothing)" "" "" "" "" "" "" "" ""
			continue
		fi
		xr_runs "$dmg"
		x_med=$r_med x_st=$r_st
		bench_measure "$logs" heldout-cp sh "$work/cp.sh" "$dmg" "$work/copy.img"
		c_med=$r_med
		bench_measure "$logs" heldout-ours sh "$work/ours.sh" "$XFSRECON" "$dmg" "$work/ours.img"
		o_med=$r_med o_st=$r_st
		bench_measure "$logs" heldout-ours-report sh "$work/ours-report.sh" "$XFSRECON" "$dmg" "$work/ours-r.img"
		p_med=$r_med
		cx=$(awk -v a="$c_med" -v b="$x_med" 'BEGIN { printf "%.2f", a + b }')
		ov=$(verdict "$work/ours.img") xv=$(verdict "$work/theirs.img")
		row "$tag" "$name" "$v" "$x_med" "$c_med" "$o_med" "$p_med" "$(ratio "$o_med" "$x_med")" \
			"$(ratio "$o_med" "$cx")" "$(ratio "$p_med" "$x_med")" "$ov/$o_st" "$xv/$x_st"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$name" "$x_med" "$c_med" "$o_med" \
			"$p_med" "$cx" "$ov" "$xv" >> "$results"
		rm -f "$dmg" "$work/ours.img" "$work/ours-r.img" "$work/ours-r.img.xml" "$work/copy.img"
	done < "$work/targets"
done
rm -f "$work/theirs.img"

# The medians over the cases, of the times and of the ratios.
awk -F'\t' '
function med(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
		t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; ro[n] = $5 / $3; rc[n] = $5 / $7; rp[n] = $6 / $3
  x[n] = $3; o[n] = $5; p[n] = $6
  if ($8 == "clean") oc++; if ($9 == "clean") xc++ }
END {
	if (!n) { print "no case ran"; exit }
	printf "%d cases; median wall: xfs_repair %.2f s, ours %.2f s, ours with --report %.2f s\n",
		n, med(x, n), med(o, n), med(p, n)
	printf "median ratio: ours / xfs_repair %.2f, ours / (cp + xfs_repair) %.2f, with --report / xfs_repair %.2f\n",
		med(ro, n), med(rc, n), med(rp, n)
	printf "outputs clean for xfs_repair -n: ours %d of %d, xfs_repair %d of %d\n", oc, n, xc, n
}' "$results"
