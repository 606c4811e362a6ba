#!/bin/sh
# tests/golden/deep_tree.sh - the tree walk's memory is linear in the number
# of directories, not in the sum of their path lengths.  A chain of 400
# directories, 15 siblings a level, 255-byte names (paths of up to 100 KiB,
# made with mkdirat/openat by tests/tools/mkdeeptree) is walked by ls -R,
# bodyfile and map; each must list every directory (counted against the
# number made, the deepest path 400 names long) with a peak RSS below a
# bound.  A walk that stacks every pending directory with its full path
# needs gigabytes here (the bound leaves room for the sanitizers).
. "$top_srcdir/tests/lib.sh"

DEPTH=400
WIDTH=15
NAMELEN=255
# Peak RSS bound in KiB (GNU time's %M).
BOUND_KB=$((300 * 1024))

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
[ -x /usr/bin/time ] && /usr/bin/time -f %M true 2>/dev/null >/dev/null ||
	skip "GNU time (/usr/bin/time) is not installed"
tool="$top_builddir/tests/tools/mkdeeptree"
[ -x "$tool" ] || fail "$tool is not built"
img="$TMPD/deep.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
made=$("$tool" "$mnt" $DEPTH $WIDTH $NAMELEN)
mrc=$?
umount "$mnt" || fail "umount failed"
[ $mrc -eq 0 ] || fail "mkdeeptree exited $mrc"
[ "$made" -eq $((DEPTH * WIDTH)) ] || fail "mkdeeptree made $made directories"

# peak CMD...: run CMD with standard output to $TMPD/out; print its peak RSS
# in KiB; fail when it fails.
peak() {
	/usr/bin/time -f %M -o "$TMPD/rss" "$@" > "$TMPD/out" 2> "$TMPD/err" ||
		fail "$* exited non-zero: $(head -c 300 "$TMPD/err")"
	tail -n 1 "$TMPD/rss"
}

# deepest FILE: the most "/"-separated names on one line.
deepest() {
	awk -F/ 'NF - 1 > m { m = NF - 1 } END { print m + 0 }' "$1"
}

kb=$(peak "$XFSRECON" ls -R "$img" /)
lines=$(wc -l < "$TMPD/out")
echo "ls -R: peak ${kb} KiB, $lines lines"
[ "$lines" -eq "$made" ] || fail "ls -R listed $lines paths, $made directories were made"
[ "$(deepest "$TMPD/out")" -eq $DEPTH ] || fail "ls -R: the deepest path is not $DEPTH names long"
[ "$kb" -lt $BOUND_KB ] || fail "ls -R peaked at $kb KiB (bound $BOUND_KB)"

kb=$(peak "$XFSRECON" bodyfile "$img")
lines=$(wc -l < "$TMPD/out")
echo "bodyfile: peak ${kb} KiB, $lines lines"
[ "$lines" -eq $((made + 1)) ] || fail "bodyfile has $lines lines, want $((made + 1))"
cut -d'|' -f2 "$TMPD/out" > "$TMPD/paths"
[ "$(deepest "$TMPD/paths")" -eq $DEPTH ] || fail "bodyfile: the deepest path is not $DEPTH names long"
[ "$kb" -lt $BOUND_KB ] || fail "bodyfile peaked at $kb KiB (bound $BOUND_KB)"

kb=$(peak "$XFSRECON" map "$img" -o "$TMPD/deep.svg")
echo "map: peak ${kb} KiB"
grep -q '<svg' "$TMPD/deep.svg" || fail "map wrote no SVG"
[ "$kb" -lt $BOUND_KB ] || fail "map peaked at $kb KiB (bound $BOUND_KB)"
exit 0
