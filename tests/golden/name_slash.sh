#!/bin/sh
# tests/golden/name_slash.sh - a "/" stored inside a name (only a damaged or
# hostile image holds one) must not pose as a path separator: ls, ls -R,
# bodyfile and map's titles print it as \x2F, a backslash in a name as \\
# (so the escape is unambiguous), ls -0 keeps the stored bytes, and check
# reports the name as dirBadName without printing it.  The name is written
# with xfs_db, and xfs_repair -n confirms the image holds an illegal
# character.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
img="$TMPD/slash.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mkdir "$mnt/d" "$mnt/d/axb" && echo hi > "$mnt/d/axb/f" &&
	: > "$mnt/d/a\\x2Fb" && : > "$mnt/d/zz"
mrc=$?
umount "$mnt" || fail "umount failed"
[ $mrc -eq 0 ] || fail "cannot populate the image"

# /d is short-form; its first entry "axb" becomes "a/b".
"$XFS_DB" -r -c 'path /d' -c 'p u3.sfdir3.list[0].name' "$img" | grep -q '= "axb"' ||
	skip "/d's first entry is not axb (the layout changed)"
"$XFS_DB" -x -c 'path /d' -c 'write u3.sfdir3.list[0].name "a/b"' "$img" > /dev/null ||
	fail "xfs_db write failed"
"$XFS_DB" -r -c 'path /d' -c 'p u3.sfdir3.list[0].name' "$img" | grep -q '= "a/b"' ||
	fail "xfs_db did not store a/b"
xfs_repair -n "$img" > "$TMPD/repair" 2>&1
grep -q 'illegal character' "$TMPD/repair" || fail "xfs_repair -n sees no illegal character"

printf '%s\n' 'a\x2Fb' 'a\\x2Fb' 'zz' > "$TMPD/want"
"$XFSRECON" ls "$img" /d > "$TMPD/got" || fail "ls exited $?"
diff "$TMPD/want" "$TMPD/got" > "$TMPD/diff" || fail "ls: $(cat "$TMPD/diff")"

# A directory's entries, then those of its subdirectories.
printf '%s\n' '/d/a\x2Fb' '/d/a\\x2Fb' '/d/zz' '/d/a\x2Fb/f' > "$TMPD/want"
"$XFSRECON" ls -R "$img" /d > "$TMPD/got" || fail "ls -R exited $?"
diff "$TMPD/want" "$TMPD/got" > "$TMPD/diff" || fail "ls -R: $(cat "$TMPD/diff")"

"$XFSRECON" bodyfile "$img" | cut -d'|' -f2 | grep '^/d/' > "$TMPD/got"
diff "$TMPD/want" "$TMPD/got" > "$TMPD/diff" || fail "bodyfile: $(cat "$TMPD/diff")"

# map names the owner of f's data block by its path in a cell's title.
"$XFSRECON" map "$img" -o "$TMPD/slash.svg" 2> "$TMPD/map.err" || fail "map exited $?"
grep -q '/d/a\\x2Fb/f' "$TMPD/slash.svg" || fail "map names no /d/a\\x2Fb/f"
grep -q '/d/a/b' "$TMPD/slash.svg" && fail "map prints the name raw"

# -0 prints the names as stored.
printf 'a/b\000a\\x2Fb\000zz\000' > "$TMPD/want0"
"$XFSRECON" ls -0 "$img" /d > "$TMPD/got0" || fail "ls -0 exited $?"
cmp -s "$TMPD/want0" "$TMPD/got0" || fail "ls -0 does not print the stored names"

"$XFSRECON" check --xml "$TMPD/report.xml" "$img" > "$TMPD/report.txt"
grep -q '\[dirBadName\]' "$TMPD/report.txt" || fail "the text report has no dirBadName"
grep -q 'dirBadName' "$TMPD/report.xml" || fail "the XML report has no dirBadName"
for f in "$TMPD/report.txt" "$TMPD/report.xml"; do
	if grep -q 'a/b' "$f"; then
		fail "$(basename "$f") prints the name raw: $(grep 'a/b' "$f" | head -n 2)"
	fi
done
exit 0
