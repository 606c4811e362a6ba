#!/bin/sh
# tests/golden/readonly.sh - no subcommand writes to the image it reads.
#
# Every subcommand (info, check, check --xml, show of each structure, repair
# with and without --dry-run, map, and map told to write over the image,
# plan, and show-plan of that plan) runs
# on a chmod 0444 scratch copy of a corpus image, raw and compressed; the
# copies' SHA-256 must not change.  Root ignores file modes, so two more
# checks where the machine allows:
#   - with strace: every open of the image is O_RDONLY (no O_WRONLY, O_RDWR,
#     O_CREAT, O_TRUNC), and the image is opened at all;
#   - as root with losetup: the image attached as a read-only loop device
#     (losetup -r) is checked through the device, and its bytes stay the
#     same.
# Each of these is skipped, with a note, where strace or root/losetup is
# missing; the hash check always runs.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

loopdev=""
# lib.sh's EXIT trap, plus detaching our loop device first
trap 'rc=$?; if [ -n "$loopdev" ]; then losetup -d "$loopdev" 2>/dev/null; fi
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

raw=$(corpus_image v5-rmap-reflink)
img="$TMPD/ro.img"
zimg="$TMPD/ro.img.zst"
mv "$raw" "$img"
cp "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" "$zimg"
chmod 0444 "$img" "$zimg"

# structures to show, found with xfs_db on the same image
bnoroot=$("$XFS_DB" -r -c 'agf 0' -c 'p bnoroot' "$img" | sed -n 's/^bnoroot = //p')
rootino=$("$XFS_DB" -r -c 'sb 0' -c 'p rootino' "$img" | sed -n 's/^rootino = //p')
[ -n "$bnoroot" ] && [ -n "$rootino" ] || fail "xfs_db cannot read the image"

# the command lines to run, one per line; IMG stands for the image
commands() {
	cat <<EOF
info IMG
check IMG
check IMG --xml $TMPD/report.xml
show IMG sb 0
show IMG sb 1
show IMG agf 0
show IMG agi 0
show IMG agfl 0
show IMG inode $rootino
show IMG btree 0 $bnoroot
show IMG block 0/$bnoroot
show IMG btree 0 bnobt --json
show IMG dir /
show IMG path /
show IMG log
repair IMG --dry-run
repair IMG -o $TMPD/repaired.img --force --report $TMPD/repair.xml
map IMG -o $TMPD/map.svg --force
map IMG -o IMG --force --html
plan IMG -o $TMPD/repair.plan --force
show-plan $TMPD/repair.plan
show-plan $TMPD/repair.plan --xml $TMPD/plan.xml
EOF
}

before=$(sha256sum "$img" "$zimg" | awk '{print $1}')
nfail=0
report="$TMPD/report"
: > "$report"

# strace, when it works here, watches every run: how is the image opened?
tracing=0
if command -v strace >/dev/null 2>&1 && strace -qq -o /dev/null true 2>/dev/null; then
	tracing=1
	# LeakSanitizer cannot run under ptrace: switch it off for these runs
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
fi
: > "$TMPD/trace"

# run_all IMAGE: every command line on IMAGE (under strace when tracing); a
# crash is a failure, any other exit status is the business of other tests
run_all() {
	_t=$1
	commands > "$TMPD/cmds"
	while read -r _line; do
		# shellcheck disable=SC2046
		set -- $(printf '%s\n' "$_line" | sed "s|IMG|$_t|")
		if [ $tracing -eq 1 ]; then
			strace -f -qq -e trace='openat,?open,?openat2,?creat' -o "$TMPD/trace.one" \
				"$XFSRECON" "$@" < /dev/null > "$TMPD/out" 2>&1
			_rc=$?
			cat "$TMPD/trace.one" >> "$TMPD/trace"
		else
			"$XFSRECON" "$@" < /dev/null > "$TMPD/out" 2>&1
			_rc=$?
		fi
		if [ $_rc -ge 124 ]; then
			echo "xfsrecon $_line on $_t: crashed (exit status $_rc)" >> "$report"
			nfail=$((nfail + 1))
		fi
	done < "$TMPD/cmds"
}

run_all "$img"
run_all "$zimg"

if [ $tracing -eq 1 ]; then
	opens=$(grep -F -e "\"$img\"" -e "\"$zimg\"" "$TMPD/trace" | grep -E 'open(at2?)?\(|creat\(')
	if [ -z "$opens" ]; then
		echo "strace: the image was never opened (did the commands run?)" >> "$report"
		nfail=$((nfail + 1))
	elif printf '%s\n' "$opens" | grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(' > "$TMPD/badopens"; then
		echo "strace: the image was opened for writing:" >> "$report"
		sed -n '1,5p' "$TMPD/badopens" >> "$report"
		nfail=$((nfail + 1))
	else
		echo "strace: $(printf '%s\n' "$opens" | wc -l) opens of the image, all read-only"
	fi
else
	echo "note: strace not available, open flags not checked"
fi

# a read-only loop device, as root: writes through it would reach the
# image file, which the final hash covers
tracing=0
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null 2>&1 &&
	loopdev=$(losetup -r -f --show "$img" 2>/dev/null) && [ -n "$loopdev" ]; then
	run_all "$loopdev"
	losetup -d "$loopdev"
	loopdev=""
	echo "loop device: checked"
else
	echo "note: not root or no loop device, read-only block device not checked"
fi

after=$(sha256sum "$img" "$zimg" | awk '{print $1}')
[ "$before" = "$after" ] || { echo "the image's SHA-256 changed" >> "$report"; nfail=$((nfail + 1)); }

if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
