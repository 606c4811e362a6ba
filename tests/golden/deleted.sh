#!/bin/sh
# tests/golden/deleted.sh - `ls --deleted` recovers the names of removed
# entries from unused directory space, with the inode numbers they had
# (taken from the kernel before the removal) and the state of that inode.
# Covers a block-form and a leaf-form directory, adjacent removals (merged
# free regions) and a removal whose inode was reused.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
img="$TMPD/del.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mkdir "$mnt/b" "$mnt/l"
i=1
while [ $i -le 30 ]; do echo $i > "$mnt/b/file_number_$i"; i=$((i + 1)); done
i=1
while [ $i -le 400 ]; do echo $i > "$mnt/l/leafname_$i"; i=$((i + 1)); done
: > "$TMPD/want"
for f in b/file_number_7 b/file_number_8 b/file_number_20 l/leafname_100 l/leafname_333; do
	echo "/$f $(stat -c %i "$mnt/$f")" >> "$TMPD/want"
	rm "$mnt/$f"
done
umount "$mnt"

"$XFSRECON" ls -R --deleted "$img" / > "$TMPD/out" || fail "ls --deleted exited $?"
sed -n 's|^\(/[^ ]*\) (deleted: inode \([0-9]*\), free)$|\1 \2|p' "$TMPD/out" | sort > "$TMPD/got"
sort "$TMPD/want" > "$TMPD/want.s"
diff "$TMPD/want.s" "$TMPD/got" || fail "deleted names differ from what was removed"
# the live listing is unchanged by the option
"$XFSRECON" ls -R "$img" / > "$TMPD/live"
[ "$(grep -vc deleted "$TMPD/out")" -eq "$(wc -l < "$TMPD/live")" ] || fail "live names changed"
grep -q "^/b/file_number_6$" "$TMPD/out" || fail "a live name is missing"

# a removed name whose inode number is now used by a new file
mount -o loop "$img" "$mnt" || fail "remount failed"
echo new > "$mnt/b/reuser"
reused=$(stat -c %i "$mnt/b/reuser")
umount "$mnt"
if grep -q " $reused\$" "$TMPD/want"; then
	"$XFSRECON" ls --deleted "$img" /b | grep -q "inode $reused, in use" ||
		fail "a reused inode is not reported as in use"
fi
exit 0
