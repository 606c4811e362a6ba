#!/bin/sh
# tests/golden/unlinked.sh - open-but-deleted files on a snapshot of a live
# filesystem: the AGI unlinked lists are walked, their inodes are reported
# as open-unlinked (warnings, not orphans), and a broken chain is an error.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
need_tool xfs_freeze
img="$TMPD/live.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
echo one > "$mnt/open1"
echo two > "$mnt/open2"
sync
exec 3<"$mnt/open1" 4<"$mnt/open2"
ino1=$(stat -c %i "$mnt/open1")
ino2=$(stat -c %i "$mnt/open2")
rm "$mnt/open1" "$mnt/open2"
xfs_freeze -f "$mnt" || { exec 3<&- 4<&-; umount "$mnt"; skip "cannot freeze"; }
cp "$img" "$TMPD/snap.img"
xfs_freeze -u "$mnt"
exec 3<&- 4<&-
umount "$mnt"

"$XFSRECON" check "$TMPD/snap.img" > "$TMPD/out"
rc=$?
[ $rc -eq 0 ] || fail "snapshot with open-unlinked files: exit $rc: $(cat "$TMPD/out")"
for ino in $ino1 $ino2; do
	grep -q "nsUnlinkedOpen.*inode $ino " "$TMPD/out" || fail "inode $ino not reported as open-unlinked"
done
grep -q "nsOrphan" "$TMPD/out" && fail "open-unlinked inodes reported as orphans"

# Break the chain: the first inode's successor becomes an allocated inode
# with links (the root directory, agino 128 in AG 0).
cp "$TMPD/snap.img" "$TMPD/broken.img"
"${XFS_DB:-xfs_db}" -x -c "inode $ino1" -c "write -d next_unlinked 128" "$TMPD/broken.img" >/dev/null 2>&1 ||
	fail "xfs_db write failed"
"$XFSRECON" check "$TMPD/broken.img" > "$TMPD/out"
rc=$?
[ $rc -eq 4 ] || fail "broken unlinked chain: exit $rc, expected 4"
grep -q "agiUnlinkedBadChain" "$TMPD/out" || fail "broken unlinked chain not reported"
exit 0
