#!/bin/sh
# tests/golden/leaf_one_block.sh - a leaf-form directory whose data fits in
# one block has the same di_size as a block-form directory; only the end of
# its data fork (the leaf block at 32 GiB) tells them apart.  Both must be
# read right: check stays clean and ls lists what the kernel lists.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
img="$TMPD/l1.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mkdir "$mnt/leaf1" "$mnt/block"
i=0
while [ $i -lt 200 ]; do mkdir "$mnt/leaf1/d$i"; i=$((i + 1)); done
i=0
while [ $i -lt 20 ]; do : > "$mnt/block/f$i"; i=$((i + 1)); done
(cd "$mnt" && find . -mindepth 1 -printf '/%P\n' | LC_ALL=C sort) > "$TMPD/want"
umount "$mnt"

"${XFS_DB:-xfs_db}" -r -c 'path /leaf1' -c 'p core.size' "$img" | grep -q "= 4096" ||
	skip "the directory did not come out as a one-block leaf directory"
"$XFSRECON" check "$img" > "$TMPD/out" || fail "check exited $?: $(head -5 "$TMPD/out")"
"$XFSRECON" ls -R "$img" / | LC_ALL=C sort > "$TMPD/got"
diff "$TMPD/want" "$TMPD/got" > "$TMPD/diff" || fail "ls -R differs: $(head "$TMPD/diff")"
exit 0
